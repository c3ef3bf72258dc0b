"""Conformance: scans and reductions with a combine function. tl.cumsum and
tl.cumprod along each axis, forwards and reversed, at ragged widths (a partial strip,
one element, several strips) and for each type with Triton's promotions (small
integers add in int32, bf16 in f32); tl.associative_scan with a combine function that
is associative but not commutative (composing affine maps: a linear recurrence), and
with several operands; tl.reduce with tuple operands (a Welford merge, an argmax with
its tie break), keep_dims, axis=None; tl.xor_sum and reduce_or. References are
numpy's, computed in float64 or exactly in integers."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (assert_close, assert_equal, blockc_only, empty, interpreter_limitation, rand,
                      rng, round_to, to_numpy, to_torch)

SHAPES = [(4, 32), (2, 64), (2, 1), (1, 128), (8, 16)]  # Triton wants powers of two


@triton.jit
def scans_kernel(x_ptr, sum_ptr, prod_ptr, N: tl.constexpr, M: tl.constexpr, AXIS: tl.constexpr,
                 REVERSE: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(sum_ptr + offs, tl.cumsum(x, axis=AXIS, reverse=REVERSE))
    tl.store(prod_ptr + offs, tl.cumprod(x, axis=AXIS, reverse=REVERSE))


def numpy_scan(fn, x, axis, reverse):
    x = np.flip(x, axis) if reverse else x
    y = fn(x, axis=axis)
    return np.flip(y, axis) if reverse else y


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_and_cumprod_of_int32(shape, axis, reverse):
    x = rand(rng(1), shape, "int32", -3, 3)
    s, p = empty(shape, "int32"), empty(shape, "int32")
    scans_kernel[(1,)](to_torch(x), s, p, N=shape[0], M=shape[1], AXIS=axis, REVERSE=reverse)
    # Integer arithmetic wraps in both; int64 then int32 gives the same low bits.
    assert_equal(s, numpy_scan(np.cumsum, x.astype(np.int64), axis, reverse).astype(np.int32))
    assert_equal(p, numpy_scan(np.cumprod, x.astype(np.int64), axis, reverse).astype(np.int32))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1])
def test_cumsum_of_floats(dtype, axis):
    shape = (8, 64)
    x = rand(rng(2), shape, dtype, -2, 2)
    s, p = empty(shape, dtype), empty(shape, dtype)
    scans_kernel[(1,)](to_torch(x, dtype), s, p, N=8, M=64, AXIS=axis, REVERSE=False)
    expected = np.cumsum(x.astype(np.float64), axis=axis)
    # Each partial sum rounds in the type: bound by the running magnitude.
    bound = np.cumsum(np.abs(x.astype(np.float64)), axis=axis)
    ulp = {"float16": 2.0**-10, "float32": 2.0**-23, "float64": 2.0**-52}[dtype]
    got = to_numpy(s).astype(np.float64)
    assert np.all(np.abs(got - expected) <= 64 * ulp * bound)


@triton.jit
def cumsum_int8_kernel(x_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    z = tl.cumsum(tl.load(x_ptr + offs), axis=0)
    tl.static_assert(z.dtype == tl.int32)  # Triton's promotion of narrow integers
    tl.store(z_ptr + offs, z)


def test_cumsum_of_int8_adds_in_int32():
    x = np.full(64, 100, np.int8)
    z = empty(64, "int32")
    cumsum_int8_kernel[(1,)](to_torch(x), z, N=64)
    assert_equal(z, np.arange(1, 65, dtype=np.int32) * 100)


@triton.jit
def _compose_affine(a1, b1, a2, b2):
    # x -> a2 * (a1 * x + b1) + b2: associative, not commutative.
    return a1 * a2, b1 * a2 + b2


@triton.jit
def recurrence_kernel(a_ptr, b_ptr, h_ptr, N: tl.constexpr, M: tl.constexpr, AXIS: tl.constexpr,
                      REVERSE: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), AXIS, _compose_affine, reverse=REVERSE)
    tl.store(h_ptr + offs, h)


def recurrence_reference(a, b, axis, reverse):
    """h_t = a_t * h_{t-1} + b_t from h = 0, along `axis` (from the end if reversed)."""
    a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    h = np.zeros_like(b)
    state = np.zeros(b.shape[:-1], b.dtype)
    order = range(b.shape[-1] - 1, -1, -1) if reverse else range(b.shape[-1])
    for t in order:
        state = a[..., t] * state + b[..., t]
        h[..., t] = state
    return np.moveaxis(h, -1, axis)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_of_a_linear_recurrence(shape, axis, reverse):
    gen = rng(3)
    # Small integers in float64: every composition is exact.
    a = gen.integers(-2, 3, shape).astype(np.float64)
    b = gen.integers(-3, 4, shape).astype(np.float64)
    h = empty(shape, "float64")
    recurrence_kernel[(1,)](to_torch(a), to_torch(b), h, N=shape[0], M=shape[1], AXIS=axis, REVERSE=reverse)
    assert_equal(h, recurrence_reference(a, b, axis, reverse))


@triton.jit
def _welford_merge(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    delta = mean_b - mean_a
    w = tl.where(n == 0, 0.0, n_b / tl.maximum(n, 1.0))
    return mean_a + delta * w, m2_a + m2_b + delta * delta * n_a * w, n


@triton.jit
def welford_kernel(x_ptr, mean_ptr, var_ptr, n, N: tl.constexpr, M: tl.constexpr):
    rows = tl.arange(0, N)
    cols = tl.arange(0, M)
    mask = cols[None, :] < n
    x = tl.load(x_ptr + rows[:, None] * n + cols[None, :], mask=mask, other=0.0)
    zeros = tl.zeros((N, M), tl.float32)
    count = tl.where(mask, 1.0, 0.0) + zeros
    mean, m2, total = tl.reduce((x, zeros, count), 1, _welford_merge)
    tl.store(mean_ptr + rows, mean)
    tl.store(var_ptr + rows, m2 / total)


@pytest.mark.parametrize("n", [1, 5, 64, 100])
def test_reduce_with_tuple_operands_welford(n):
    x = rand(rng(4), (4, n), "float32", -3, 3)
    mean, var = empty(4, "float32"), empty(4, "float32")
    welford_kernel[(1,)](to_torch(x), mean, var, n, N=4, M=triton.next_power_of_2(n))
    assert_close(mean, x.astype(np.float64).mean(axis=1), rtol=1e-5, atol=1e-6)
    assert_close(var, x.astype(np.float64).var(axis=1), rtol=1e-4, atol=1e-6)


@triton.jit
def _argmax_combine(a, ai, b, bi):
    take = (a > b) | ((a == b) & (ai < bi))
    return tl.where(take, a, b), tl.where(take, ai, bi)


@triton.jit
def argmax_kernel(x_ptr, v_ptr, i_ptr, N: tl.constexpr, M: tl.constexpr, AXIS: tl.constexpr,
                  KEEP: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :]
    x = tl.load(x_ptr + offs)
    idx = tl.arange(0, N)[:, None] + tl.zeros((N, M), tl.int32) if AXIS == 0 else \
        tl.arange(0, M)[None, :] + tl.zeros((N, M), tl.int32)
    v, i = tl.reduce((x, idx), AXIS, _argmax_combine, keep_dims=KEEP)
    if KEEP:
        tl.static_assert(len(v.shape) == 2)
        v = tl.reshape(v, (N * M // (N if AXIS == 0 else M),))
        i = tl.reshape(i, (N * M // (N if AXIS == 0 else M),))
    out = tl.arange(0, N * M // (N if AXIS == 0 else M))
    tl.store(v_ptr + out, v)
    tl.store(i_ptr + out, i)


@pytest.mark.parametrize("shape", [(4, 32), (8, 16), (2, 64)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_argmax_with_ties(shape, axis, keep):
    x = rand(rng(5), shape, "int32", 0, 3)  # many ties: the first index must win
    size = shape[1 - axis]
    v, i = empty(size, "int32"), empty(size, "int32")
    argmax_kernel[(1,)](to_torch(x), v, i, N=shape[0], M=shape[1], AXIS=axis, KEEP=keep)
    assert_equal(v, x.max(axis=axis))
    assert_equal(i, x.argmax(axis=axis).astype(np.int32))


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def reduce_all_kernel(x_ptr, z_ptr, N: tl.constexpr, M: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :]
    r = tl.reduce(tl.load(x_ptr + offs), None, _max_combine, keep_dims=True)
    tl.static_assert(len(r.shape) == 2)
    tl.store(z_ptr + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :], r)


@interpreter_limitation("reduce over all axes with keep_dims drops the kept dimensions; "
                        "compiled Triton 3.6 keeps them (shape [1, 1])")
def test_reduce_over_all_axes_keeping_dims():
    x = rand(rng(6), (8, 16), "float32")
    z = empty((1, 1), "float32")
    reduce_all_kernel[(1,)](to_torch(x), z, N=8, M=16)
    assert z[0, 0] == x.max()


@triton.jit
def bitwise_reductions_kernel(x_ptr, xor_ptr, or_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(xor_ptr, tl.xor_sum(x, axis=0))
    tl.store(or_ptr, tl.reduce_or(x, axis=0))


def test_xor_sum_and_reduce_or():
    x = rand(rng(7), 128, "int32")
    xs, os_ = empty(1, "int32"), empty(1, "int32")
    bitwise_reductions_kernel[(1,)](to_torch(x), xs, os_, N=128)
    assert xs[0] == np.bitwise_xor.reduce(x)
    assert os_[0] == np.bitwise_or.reduce(x)


@triton.jit
def bf16_cumsum_kernel(x_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    z = tl.cumsum(tl.load(x_ptr + offs), axis=0)
    tl.static_assert(z.dtype == tl.float32)  # bf16 adds in f32, as Triton's standard library
    tl.store(z_ptr + offs, z)


def test_cumsum_of_bfloat16_adds_in_float32():
    x = round_to(rng(8).uniform(-2, 2, 64), "bfloat16")
    z = empty(64, "float32")
    bf16_cumsum_kernel[(1,)](to_torch(x, "bfloat16"), z, N=64)
    assert_close(z, np.cumsum(x.astype(np.float64)), rtol=1e-5, atol=1e-5)


@triton.jit
def _pair(a, b):
    return a, b


@triton.jit
def bad_combine_kernel(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr, tl.reduce(x, 0, _pair))


@blockc_only
def test_combine_function_returning_the_wrong_number_of_values_is_an_error():
    with pytest.raises(triton.CompilationError, match="returns 2 values for 1 inputs"):
        bad_combine_kernel[(1,)](empty(16, "float32"), N=16)


@triton.jit
def sort_kernel(x_ptr, up_ptr, down_ptr, top_ptr, R: tl.constexpr, N: tl.constexpr,
                K: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(up_ptr + offs, tl.sort(x))
    tl.store(down_ptr + offs, tl.sort(x, descending=True))
    tl.store(top_ptr + tl.arange(0, R)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int8", "float16"])
@pytest.mark.parametrize("r,n,k", [(4, 16, 4), (1, 128, 8), (4, 2, 1), (2, 64, 64)])
def test_sort_and_topk(dtype, r, n, k):
    x = rand(rng(n + r), (r, n), dtype)  # ints over their whole range: ties and extremes
    up, down, top = empty((r, n), dtype), empty((r, n), dtype), empty((r, k), dtype)
    sort_kernel[(1,)](to_torch(x, dtype), up, down, top, R=r, N=n, K=k)
    ascending = np.sort(x, axis=1)
    assert_equal(up, ascending)
    assert_equal(down, ascending[:, ::-1])
    assert_equal(top, ascending[:, ::-1][:, :k])


@triton.jit
def bitonic_merge_kernel(x_ptr, up_ptr, down_ptr, R: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(up_ptr + offs, tl.standard.bitonic_merge(x))
    tl.store(down_ptr + offs, tl.standard.bitonic_merge(x, descending=True))


@pytest.mark.parametrize("n", [2, 16, 128])
def test_bitonic_merge_sorts_a_bitonic_sequence(n):
    # Each row rises then falls (or falls then rises), turning at a random place.
    gen = rng(n)
    rows = []
    for r in range(4):
        values = np.sort(gen.standard_normal(n).astype(np.float32))
        turn = gen.integers(0, n + 1)
        rise, fall = values[:turn], values[turn:][::-1]
        rows.append(np.concatenate([rise, fall]) if r % 2 else np.concatenate([fall, rise])[::-1])
    x = np.stack(rows)
    up, down = empty((4, n), "float32"), empty((4, n), "float32")
    bitonic_merge_kernel[(1,)](to_torch(x), up, down, R=4, N=n)
    assert_equal(up, np.sort(x, axis=1))
    assert_equal(down, np.sort(x, axis=1)[:, ::-1])
