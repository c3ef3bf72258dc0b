"""Conformance: reductions. tl.sum/max/min/argmax/argmin over axis 0, 1 and None,
keep_dims, return_indices, the tensor-method spellings, rank 3, Triton's result types
(sums of ints narrower than 32 bits are int32; `dtype=` picks the accumulator), NaNs
(max and min ignore them unless all are NaN), ties (argmax/argmin take the lowest
index), and reductions Block IR lacks (tl.reduce with a combine function, scans) as
strict xfails."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (BF16_REASON, ULP, assert_close, assert_equal, empty, interpreter_limitation,
                      is_int, rand, rng, to_numpy, to_torch)

M, N = 16, 32


@triton.jit
def reduce2d_kernel(x_ptr, z_ptr, OP: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr,
                    M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    if OP == "sum":
        z = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "max":
        z = tl.max(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "min":
        z = tl.min(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmax":
        z = tl.argmax(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmin":
        z = tl.argmin(x, axis=AXIS, keep_dims=KEEP)
    # Store whatever shape came out: [M], [N], [M, 1], [1, N], a scalar, or [1, 1].
    if AXIS is None:
        if KEEP:
            tl.static_assert(len(z.shape) == 2)
            tl.store(z_ptr + tl.arange(0, 1)[:, None], z)
        else:
            tl.store(z_ptr, z)
    elif AXIS == 0:
        if KEEP:
            tl.store(z_ptr + cols[None, :], z)
        else:
            tl.store(z_ptr + cols, z)
    else:
        if KEEP:
            tl.store(z_ptr + rows[:, None], z)
        else:
            tl.store(z_ptr + rows, z)


def reference(op, x, axis):
    f = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin}[op]
    if axis is None:
        return np.atleast_1d(f(x.reshape(-1)))
    return f(x, axis=axis)


REDUCE_CASES = [(op, axis, keep) for op in ("sum", "max", "min", "argmax", "argmin")
                for axis in (0, 1, None) for keep in (False, True)
                if not (op.startswith("arg") and axis is None)]


@pytest.mark.parametrize("op,axis,keep", REDUCE_CASES, ids=[f"{o}-axis{a}-keep{int(k)}" for o, a, k in REDUCE_CASES])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_reduce(op, axis, keep, dtype):
    x = rand(rng(0), (M, N), dtype, -1000, 1000)
    size = 1 if axis is None else (N if axis == 0 else M)
    out_dtype = "int32" if op.startswith("arg") else dtype
    z = empty(size, out_dtype)
    reduce2d_kernel[(1,)](to_torch(x), z, OP=op, AXIS=axis, KEEP=keep, M=M, N=N)
    expected = reference(op, x.astype(np.float64) if dtype == "float32" else x, axis)
    if op == "sum" and dtype == "float32":
        assert_close(z, expected, rtol=1e-5, atol=1e-3)  # any order of additions
    else:
        assert_equal(z, expected)


@interpreter_limitation(BF16_REASON, ids=["sum-bfloat16"])
@pytest.mark.parametrize("dtype", ["int8", "int16", "float16", "bfloat16", "float64", "int64"])
@pytest.mark.parametrize("op", ["sum", "max", "min", "argmax"])
def test_reduce_dtypes(op, dtype):
    x = rand(rng(1), (M, N), dtype, -100, 100)
    out_dtype = "int32" if op == "argmax" else ("float64" if dtype in ("float16", "bfloat16") else "int64"
                                                 if is_int(dtype) else dtype)
    z = empty(M, out_dtype)
    reduce2d_kernel[(1,)](to_torch(x, dtype), z, OP=op, AXIS=1, KEEP=False, M=M, N=N)
    expected = reference(op, x.astype(np.float64), 1)
    if op == "sum" and dtype in ("float16", "bfloat16"):
        # Triton adds f16/bf16 in their own type, blockc in f32: allow a few roundings
        # of the partial sums, which are at most the sum of the magnitudes.
        bound = 4 * ULP[dtype] * np.abs(x.astype(np.float64)).sum(axis=1)
        assert np.all(np.abs(to_numpy(z) - expected) <= bound), (to_numpy(z), expected)
    elif op == "sum" and dtype == "float64":
        assert_close(z, expected, rtol=1e-13, atol=1e-12)  # any order of additions
    else:
        assert_equal(z, expected)


@triton.jit
def int_sum_kernel(x_ptr, z_ptr, DTYPE: tl.constexpr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    s = tl.sum(x, axis=1) if DTYPE is None else tl.sum(x, axis=1, dtype=DTYPE)
    tl.static_assert(s.dtype == (tl.int32 if DTYPE is None else DTYPE))
    tl.store(z_ptr + rows, s)


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_sums_of_narrow_ints_are_int32(dtype):
    x = np.full((M, N), 100, dtype)  # 32 * 100 overflows int8 and, times 16, int16 if kept
    x[:, ::2] = np.iinfo(dtype).max
    z = empty(M, "int64")
    int_sum_kernel[(1,)](to_torch(x), z, DTYPE=None, M=M, N=N)
    assert_equal(z, x.astype(np.int64).sum(axis=1))


def test_sum_dtype_argument():
    x = rand(rng(2), (M, N), "float16", -4.0, 4.0)
    z = empty(M, "float64")
    int_sum_kernel[(1,)](to_torch(x), z, DTYPE=tl.float32, M=M, N=N)
    assert_close(z, x.astype(np.float64).sum(axis=1), rtol=1e-6, atol=1e-5)


@triton.jit
def methods_kernel(x_ptr, s_ptr, m_ptr, a_ptr, t_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(s_ptr + rows, x.sum(axis=1))
    tl.store(m_ptr + cols, x.max(0))
    tl.store(a_ptr + rows, x.argmin(1))
    tl.store(t_ptr, x.sum())


def test_reduction_methods():
    x = rand(rng(3), (M, N), "int32", -1000, 1000)
    s, m, a, t = empty(M, "int32"), empty(N, "int32"), empty(M, "int32"), empty(1, "int32")
    methods_kernel[(1,)](to_torch(x), s, m, a, t, M=M, N=N)
    assert_equal(s, x.sum(axis=1))
    assert_equal(m, x.max(axis=0))
    assert_equal(a, x.argmin(axis=1))
    assert_equal(t, [x.sum()])


@triton.jit
def return_indices_kernel(x_ptr, v_ptr, i_ptr, w_ptr, j_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    v, i = tl.max(x, axis=1, return_indices=True)
    w, j = tl.min(x, axis=0, return_indices=True)
    tl.store(v_ptr + rows, v)
    tl.store(i_ptr + rows, i)
    tl.store(w_ptr + cols, w)
    tl.store(j_ptr + cols, j)


def test_return_indices_and_ties():
    # Few distinct values: many ties, which go to the lowest index.
    x = rand(rng(4), (M, N), "int32", 0, 3).astype(np.float32)
    v, i, w, j = empty(M, "float32"), empty(M, "int32"), empty(N, "float32"), empty(N, "int32")
    return_indices_kernel[(1,)](to_torch(x), v, i, w, j, M=M, N=N)
    assert_equal(v, x.max(axis=1))
    assert_equal(i, x.argmax(axis=1))
    assert_equal(w, x.min(axis=0))
    assert_equal(j, x.argmin(axis=0))


@triton.jit
def reduce3d_kernel(x_ptr, s_ptr, m_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :])
    tl.store(s_ptr + a[:, None] * C + c[None, :], tl.sum(x, axis=1))  # [A, C]
    tl.store(m_ptr + a[:, None] * B + b[None, :], tl.max(x, axis=2))  # [A, B]


def test_reduce_rank3():
    A, B, C = 4, 8, 16
    x = rand(rng(5), (A, B, C), "int32", -100, 100)
    s, m = empty((A, C), "int32"), empty((A, B), "int32")
    reduce3d_kernel[(1,)](to_torch(x), s, m, A=A, B=B, C=C)
    assert_equal(s, x.sum(axis=1))
    assert_equal(m, x.max(axis=2))


@pytest.mark.parametrize("op", ["max", "min", "sum"])
def test_reductions_with_nans(op):
    x = rand(rng(6), (M, N), "float32")
    x[0, 3] = np.nan  # one NaN in a row
    x[1, :] = np.nan  # a row of NaNs
    x[2, ::3] = np.nan
    z = empty(M, "float32")
    reduce2d_kernel[(1,)](to_torch(x), z, OP=op, AXIS=1, KEEP=False, M=M, N=N)
    # max and min ignore NaN elements unless all are NaN; sums of NaNs are NaN.
    f = {"max": np.nanmax, "min": np.nanmin, "sum": np.sum}[op]
    with np.errstate(all="ignore"), _quiet():
        expected = f(x.astype(np.float64), axis=1)
    assert_close(z, expected, rtol=1e-5, atol=1e-4)


class _quiet:
    """Silences numpy's 'All-NaN slice' warning."""

    def __enter__(self):
        import warnings
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)


@triton.jit
def masked_row_max_kernel(x_ptr, z_ptr, n_cols, N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(z_ptr + row, tl.max(x, axis=0))


def test_reduction_of_a_masked_row():
    x = rand(rng(7), (5, 20), "float32", -10.0, -1.0)  # all negative: padding zeros would win
    z = empty(5, "float32")
    masked_row_max_kernel[(5,)](to_torch(x), z, 20, N=32)
    assert_equal(z, x.max(axis=1))


# --- what Block IR lacks


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def custom_reduce_kernel(x_ptr, z_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(z_ptr, tl.reduce(x, 0, _mul_combine))


def test_reduce_with_a_combine_function():
    x = rand(rng(8), 16, "float32", 0.5, 1.5)
    z = empty(1, "float32")
    custom_reduce_kernel[(1,)](to_torch(x), z, N=16)
    assert_close(z, [np.prod(x.astype(np.float64))], rtol=1e-5)


@triton.jit
def cumsum_kernel(x_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(z_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


def test_cumsum():
    x = rand(rng(9), 32, "int32", -100, 100)
    z = empty(32, "int32")
    cumsum_kernel[(1,)](to_torch(x), z, N=32)
    assert_equal(z, np.cumsum(x))
