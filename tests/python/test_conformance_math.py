"""Conformance: math functions (tl.*, tl.math.* and tensor-method spellings) on f32,
f64 and, through an explicit cast, f16/bf16; tl.fma, tl.where, tl.minimum/maximum
(with NaNs, both propagate_nan settings), tl.clamp and the other elementwise helpers.

References are numpy in float64, rounded to the result type. Functions that are not
correctly rounded (exp, log, sin, ...) may be off by a few ulp."""

import math

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (ULP, assert_close, assert_equal, blockc_only, bf16_round, empty,
                      interpreter_limitation, is_int, rand, rng, round_to, to_torch)

BLOCK = 64
N = 53

_erf = np.vectorize(math.erf, otypes=[np.float64])

# name: (numpy reference in float64, input range, ulps allowed for f32)
FUNCTIONS = {
    "exp": (np.exp, (-10.0, 10.0), 4),
    "exp2": (np.exp2, (-10.0, 10.0), 4),
    "log": (np.log, (0.01, 100.0), 4),
    "log2": (np.log2, (0.01, 100.0), 4),
    "sqrt": (np.sqrt, (0.0, 100.0), 1),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), (0.01, 100.0), 4),
    "sin": (np.sin, (-6.0, 6.0), 4),
    "cos": (np.cos, (-6.0, 6.0), 4),
    "erf": (_erf, (-3.0, 3.0), 4),
    "floor": (np.floor, (-10.0, 10.0), 0),
    "ceil": (np.ceil, (-10.0, 10.0), 0),
    "sigmoid": (lambda x: 1.0 / (1.0 + np.exp(-x)), (-10.0, 10.0), 8),
    "abs": (np.abs, (-10.0, 10.0), 0),
}


@triton.jit
def math_kernel(x_ptr, z_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    if FN == "exp":
        z = tl.exp(x)
    elif FN == "exp2":
        z = tl.exp2(x)
    elif FN == "log":
        z = tl.log(x)
    elif FN == "log2":
        z = tl.log2(x)
    elif FN == "sqrt":
        z = tl.sqrt(x)
    elif FN == "rsqrt":
        z = tl.rsqrt(x)
    elif FN == "sin":
        z = tl.sin(x)
    elif FN == "cos":
        z = tl.cos(x)
    elif FN == "erf":
        z = tl.erf(x)
    elif FN == "floor":
        z = tl.floor(x)
    elif FN == "ceil":
        z = tl.ceil(x)
    elif FN == "sigmoid":
        z = tl.sigmoid(x)
    elif FN == "abs":
        z = tl.abs(x)
    tl.store(z_ptr + offs, z, mask=mask)


@triton.jit
def math_spellings_kernel(x_ptr, z_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    if FN == "exp":
        z = tl.math.exp(x) + x.exp()
    elif FN == "log":
        z = tl.math.log(x) + x.log()
    elif FN == "sqrt":
        z = tl.math.sqrt(x) + x.sqrt()
    elif FN == "sin":
        z = tl.math.sin(x) + x.sin()
    elif FN == "floor":
        z = tl.math.floor(x) + x.floor()
    elif FN == "erf":
        z = tl.math.erf(x) + x.erf()
    elif FN == "sigmoid":
        z = x.sigmoid() * 2
    elif FN == "abs":
        z = tl.math.abs(x) + x.abs()
    tl.store(z_ptr + offs, z, mask=mask)


def inputs(fn, dtype, seed=0):
    lo, hi = FUNCTIONS[fn][1]
    return rand(rng(seed), N, dtype, lo, hi)


def tolerance(fn, dtype):
    ulps = FUNCTIONS[fn][2]
    if ulps == 0:
        return 0.0, 0.0
    # sin, cos and erf near their zeros are accurate in absolute, not relative, terms.
    atol = 4 * ULP[dtype] if fn in ("sin", "cos", "erf") else 0.0
    return ulps * ULP[dtype], atol


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", list(FUNCTIONS))
def test_math(fn, dtype):
    x = inputs(fn, dtype)
    z = empty(BLOCK, dtype)
    math_kernel[(1,)](to_torch(x), z, N, FN=fn, BLOCK=BLOCK)
    expected = FUNCTIONS[fn][0](x.astype(np.float64))
    rtol, atol = tolerance(fn, dtype)
    assert_close(z[:N], expected, rtol=rtol, atol=atol)


@interpreter_limitation("tl.math functions and tensor methods (x.exp()) are not patched: _semantic is None",
                        ids=["exp", "log", "sqrt", "sin", "floor", "erf"])
@pytest.mark.parametrize("fn", ["exp", "log", "sqrt", "sin", "floor", "erf", "sigmoid", "abs"])
def test_math_spellings(fn):
    x = inputs(fn, "float32")
    z = empty(BLOCK, "float32")
    math_spellings_kernel[(1,)](to_torch(x), z, N, FN=fn, BLOCK=BLOCK)
    expected = 2 * FUNCTIONS[fn][0](x.astype(np.float64))
    rtol, atol = tolerance(fn, "float32")
    assert_close(z[:N], expected, rtol=rtol + ULP["float32"], atol=2 * atol)


def test_math_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0], np.float32)
    for fn, expected in (
        ("log", [-np.inf, -np.inf, np.inf, np.nan, np.nan, np.nan, 0.0]),
        ("exp", [1.0, 1.0, np.inf, 0.0, np.nan, np.exp(-1.0), np.e]),
        ("sqrt", [0.0, -0.0, np.inf, np.nan, np.nan, np.nan, 1.0]),
        ("floor", [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0]),
    ):
        z = empty(16, "float32")
        math_kernel[(1,)](to_torch(x), z, len(x), FN=fn, BLOCK=16)
        assert_close(z[:len(x)], expected, rtol=4 * ULP["float32"], err_msg=fn)


@triton.jit
def upcast_math_kernel(x_ptr, z_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    # The Triton idiom for math on f16/bf16: compute in f32, cast back.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    xf = x.to(tl.float32)
    if FN == "exp":
        zf = tl.exp(xf)
    elif FN == "log":
        zf = tl.log(xf)
    elif FN == "sqrt":
        zf = tl.sqrt(xf)
    elif FN == "sin":
        zf = tl.sin(xf)
    elif FN == "sigmoid":
        zf = tl.sigmoid(xf)
    tl.store(z_ptr + offs, zf.to(x.dtype), mask=mask)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["exp", "log", "sqrt", "sin", "sigmoid"])
def test_math_on_half_types_through_float32(fn, dtype):
    x = inputs(fn, dtype)
    z = empty(BLOCK, dtype)
    upcast_math_kernel[(1,)](to_torch(x, dtype), z, N, FN=fn, BLOCK=BLOCK)
    expected = round_to(FUNCTIONS[fn][0](x.astype(np.float64)), dtype)
    # The f32 result is within a few f32 ulp; rounding it to the half type may then
    # land one half-type ulp away from the rounded exact value.
    assert_close(z[:N], expected, rtol=ULP[dtype], atol=ULP[dtype] if fn == "sin" else 0.0)


@blockc_only
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["exp", "log2", "sqrt", "cos", "erf", "floor", "sigmoid"])
def test_math_on_half_types_directly(fn, dtype):
    # Triton asks for f32/f64 here; blockc accepts f16/bf16 and computes in f32
    # (docs/python.md, "How it differs from Triton on a GPU").
    x = inputs(fn, dtype)
    z = empty(BLOCK, dtype)
    math_kernel[(1,)](to_torch(x, dtype), z, N, FN=fn, BLOCK=BLOCK)
    expected = round_to(FUNCTIONS[fn][0](x.astype(np.float64)), dtype)
    assert_close(z[:N], expected, rtol=ULP[dtype], atol=ULP[dtype] if fn in ("cos", "erf") else 0.0)


@triton.jit
def precise_kernel(x_ptr, y_ptr, sqrt_ptr, div_ptr, fdiv_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(sqrt_ptr + offs, tl.sqrt_rn(x), mask=mask)
    tl.store(div_ptr + offs, tl.div_rn(x, y), mask=mask)
    tl.store(fdiv_ptr + offs, tl.fdiv(x, y), mask=mask)


def test_correctly_rounded_sqrt_and_division():
    gen = rng(1)
    x, y = rand(gen, N, "float32", 0.0, 100.0), rand(gen, N, "float32", 0.5, 7.0)
    s, d, f = empty(BLOCK, "float32"), empty(BLOCK, "float32"), empty(BLOCK, "float32")
    precise_kernel[(1,)](to_torch(x), to_torch(y), s, d, f, N, BLOCK=BLOCK)
    assert_equal(s[:N], np.sqrt(x))
    assert_equal(d[:N], x / y)
    assert_close(f[:N], x / y, rtol=2 * ULP["float32"])  # fdiv may be approximate


# --- fma


@triton.jit
def fma_kernel(a_ptr, b_ptr, c_ptr, z_ptr, w_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.load(c_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, tl.fma(a, b, c), mask=mask)
    tl.store(w_ptr + offs, tl.math.fma(a, 2.0, c), mask=mask)  # a literal operand


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_fma(dtype):
    gen = rng(2)
    a, b, c = (rand(gen, N, dtype) for _ in range(3))
    z, w = empty(BLOCK, dtype), empty(BLOCK, dtype)
    fma_kernel[(1,)](to_torch(a), to_torch(b), to_torch(c), z, w, N, BLOCK=BLOCK)
    wide = [v.astype(np.float64) for v in (a, b, c)]
    # A fused or an unfused multiply-add: either rounding is Triton's.
    assert_close(z[:N], round_to(wide[0] * wide[1] + wide[2], dtype), rtol=2 * ULP[dtype], atol=2 * ULP[dtype])
    assert_close(w[:N], round_to(wide[0] * 2 + wide[2], dtype), rtol=2 * ULP[dtype], atol=2 * ULP[dtype])


# --- where


@triton.jit
def where_kernel(c_ptr, x_ptr, y_ptr, z_ptr, s_ptr, r_ptr, flag, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    c = tl.load(c_ptr + rows)  # bool, [M]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])  # [M, N]
    y = tl.load(y_ptr + cols)  # [N]
    # The condition [M, 1], x [M, N] and y [1, N] broadcast together.
    tl.store(z_ptr + rows[:, None] * N + cols[None, :], tl.where(c[:, None], x, y[None, :]))
    # Literal branches take the other operand's type.
    tl.store(s_ptr + rows[:, None] * N + cols[None, :], tl.where(x > 0, x, 0.0))
    # A scalar (run-time) condition.
    tl.store(r_ptr + cols, tl.where(flag, y, -y))


@interpreter_limitation("a bool scalar argument (an int32 array typed int1 fails its size check)")
@pytest.mark.parametrize("dtype", ["float32", "int16", "float16"])
def test_where(dtype):
    gen = rng(3)
    M, Ncols = 8, 16
    c = rand(gen, M, "bool")
    x, y = rand(gen, (M, Ncols), dtype, -5, 5), rand(gen, Ncols, dtype, -5, 5)
    for flag in (True, False):
        z, s, r = empty((M, Ncols), dtype), empty((M, Ncols), dtype), empty(Ncols, dtype)
        where_kernel[(1,)](to_torch(c), to_torch(x), to_torch(y), z, s, r, flag, M=M, N=Ncols)
        assert_equal(z, np.where(c[:, None], x, y[None, :]))
        assert_equal(s, np.where(x > 0, x, 0))
        assert_equal(r, y if flag else -y)


# --- minimum, maximum, clamp


@triton.jit
def minmax_kernel(x_ptr, y_ptr, min_ptr, max_ptr, n, PROPAGATE_ALL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if PROPAGATE_ALL:
        lo = tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)
        hi = tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)
    else:
        lo = tl.minimum(x, y)
        hi = tl.maximum(x, y)
    tl.store(min_ptr + offs, lo, mask=mask)
    tl.store(max_ptr + offs, hi, mask=mask)


@pytest.mark.parametrize("xd,yd", [("int8", "int8"), ("int32", "int32"), ("int64", "int64"), ("float16", "float16"),
                                   ("bfloat16", "bfloat16"), ("float32", "float32"), ("float64", "float64"),
                                   ("int8", "int32"), ("int16", "float32")])
def test_minimum_maximum(xd, yd):
    gen = rng(4)
    x, y = rand(gen, N, xd, -50, 50), rand(gen, N, yd, -50, 50)
    lo, hi = empty(BLOCK, "float64"), empty(BLOCK, "float64")
    minmax_kernel[(1,)](to_torch(x, xd), to_torch(y, yd), lo, hi, N, PROPAGATE_ALL=False, BLOCK=BLOCK)
    assert_equal(lo[:N], np.minimum(x.astype(np.float64), y.astype(np.float64)))
    assert_equal(hi[:N], np.maximum(x.astype(np.float64), y.astype(np.float64)))


@interpreter_limitation("tl.minimum/maximum propagate NaN (numpy's minimum), where Triton's default "
                        "propagate_nan=NONE returns the other operand")
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_minimum_maximum_with_nans(dtype):
    x = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0, np.inf], dtype)
    y = np.array([3.0, np.nan, np.nan, 1.0, -0.5, np.nan], dtype)
    n = len(x)
    # Default: a NaN operand is ignored unless both are NaN (IEEE minNum/maxNum).
    lo, hi = empty(16, dtype), empty(16, dtype)
    minmax_kernel[(1,)](to_torch(x), to_torch(y), lo, hi, n, PROPAGATE_ALL=False, BLOCK=16)
    assert_equal(lo[:n], np.fmin(x, y))
    assert_equal(hi[:n], np.fmax(x, y))
    # propagate_nan=ALL: any NaN operand gives NaN.
    minmax_kernel[(1,)](to_torch(x), to_torch(y), lo, hi, n, PROPAGATE_ALL=True, BLOCK=16)
    assert_equal(lo[:n], np.minimum(x, y))
    assert_equal(hi[:n], np.maximum(x, y))


@triton.jit
def clamp_kernel(x_ptr, z_ptr, w_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, tl.clamp(x, lo, hi), mask=mask)  # run-time bounds
    tl.store(w_ptr + offs, tl.clamp(x, -1.0, 0.5), mask=mask)  # literal bounds


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_clamp(dtype):
    x = rand(rng(5), N, dtype, -4, 4)
    z, w = empty(BLOCK, "float64"), empty(BLOCK, "float64")
    clamp_kernel[(1,)](to_torch(x), z, w, -2.5, 1.25, N, BLOCK=BLOCK)
    # Run-time bounds are f32 scalars: the clamp runs in the promoted type.
    rt = "float64" if dtype == "float64" else "float32"
    assert_equal(z[:N], np.clip(x.astype(rt), -2.5, 1.25))
    assert_equal(w[:N], np.clip(x, round_to(-1.0, dtype), round_to(0.5, dtype)))


# --- small helpers of triton.language


@triton.jit
def helpers_kernel(x_ptr, cdiv_ptr, zeros_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(cdiv_ptr + offs, tl.cdiv(x, 7) + x.cdiv(5), mask=mask)
    z = tl.zeros_like(x) + tl.full((BLOCK,), 3, tl.int16) + tl.zeros((BLOCK,), dtype=tl.int64)
    tl.static_assert(z.dtype == tl.int64)
    tl.store(zeros_ptr + offs, z, mask=mask)


def test_cdiv_zeros_full():
    x = rand(rng(6), N, "int32", 0, 40)
    c, z = empty(BLOCK, "int32"), empty(BLOCK, "int64")
    helpers_kernel[(1,)](to_torch(x), c, z, N, BLOCK=BLOCK)
    assert_equal(c[:N], (x + 6) // 7 + (x + 4) // 5)
    assert_equal(z[:N], np.full(N, 3))
