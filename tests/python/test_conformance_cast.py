"""Conformance: casts between bool, the signed ints and the floats (x.to(dtype),
tl.cast), bitcasts of values and of pointers.

Rules (Triton's, on a CPU): int to narrower int keeps the low bits; float to int
truncates toward zero (only values in range are tested: others are undefined); any
value to bool is `x != 0` (NaN is true); bool to a number is 0 or 1; float narrowing
rounds to nearest even and overflows to infinity."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (BF16_REASON, assert_equal, bf16_round, empty, interpreter_limitation,
                      is_float, is_int, rand, rng, round_to, tl_dtype, to_numpy, to_torch)

BLOCK = 64
N = 60

CAST_TYPES = ["bool", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@triton.jit
def cast_kernel(x_ptr, z_ptr, n, DST: tl.constexpr, SPELLING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if SPELLING == "to":
        y = x.to(DST)
    else:
        y = tl.cast(x, DST)
    tl.static_assert(y.dtype == DST)
    tl.store(z_ptr + offs, y, mask=mask)


def cast_inputs(src, dst):
    """Values every destination type represents well: small ints, and floats with
    fractions (truncated toward zero by int destinations), signed zeros, and for
    float and bool destinations infinities and NaN."""
    gen = rng(hash((src, dst)) % 1000)
    if src == "bool":
        return rand(gen, N, "bool")
    if is_int(src):
        x = rand(gen, N, src, -100, 100)
        x[:3] = [0, 1, -1]
        return x
    x = rand(gen, N, src, -100.0, 100.0)
    x[:8] = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 99.75, -99.75]
    if dst == "bool" or is_float(dst):
        x[8:11] = [np.inf, -np.inf, np.nan]
    return round_to(x, src)


def cast_reference(x, src, dst):
    if dst == "bool":
        return x != 0
    if src == "bool":
        return round_to(x.astype(np.int8), dst)
    return round_to(x, dst)


CAST_CASES = [(s, d) for s in CAST_TYPES for d in CAST_TYPES]


@interpreter_limitation(BF16_REASON, when=lambda p: p["dst"] == "bfloat16" and p["src"] != "bfloat16")
@pytest.mark.parametrize("src,dst", CAST_CASES, ids=[f"{s}-to-{d}" for s, d in CAST_CASES])
def test_cast(src, dst):
    x = cast_inputs(src, dst)
    z = empty(BLOCK, dst)
    cast_kernel[(1,)](to_torch(x, src), z, N, DST=tl_dtype(dst), SPELLING="to", BLOCK=BLOCK)
    assert_equal(z[:N], cast_reference(x, src, dst))


@interpreter_limitation(BF16_REASON, ids=["float64-bfloat16"])
@pytest.mark.parametrize("src,dst", [("float32", "int16"), ("int64", "float16"), ("bool", "float32"),
                                     ("float64", "bfloat16")])
def test_tl_cast_spelling(src, dst):
    x = cast_inputs(src, dst)
    z = empty(BLOCK, dst)
    cast_kernel[(1,)](to_torch(x, src), z, N, DST=tl_dtype(dst), SPELLING="cast", BLOCK=BLOCK)
    assert_equal(z[:N], cast_reference(x, src, dst))


NARROWING = [("int64", "int8"), ("int64", "int16"), ("int64", "int32"), ("int32", "int8"), ("int32", "int16"),
             ("int16", "int8")]


@pytest.mark.parametrize("src,dst", NARROWING, ids=[f"{s}-to-{d}" for s, d in NARROWING])
def test_int_narrowing_keeps_the_low_bits(src, dst):
    x = rand(rng(1), N, src)  # the whole range of the source type
    z = empty(BLOCK, dst)
    cast_kernel[(1,)](to_torch(x), z, N, DST=tl_dtype(dst), SPELLING="to", BLOCK=BLOCK)
    assert_equal(z[:N], x.astype(dst))


@interpreter_limitation(BF16_REASON, ids=["float32-bfloat16"])
@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float64", "float16"), ("float32", "bfloat16"),
                                     ("float64", "float32")])
def test_float_narrowing_rounds_to_nearest_even(src, dst):
    gen = rng(2)
    # Values over many binades, some beyond the destination's range (to infinity)
    # and some in its subnormal range.
    exponents = gen.integers(-30, 20, N)
    x = (gen.uniform(1.0, 2.0, N) * np.exp2(exponents.astype(np.float64))).astype(np.float32)
    x = np.where(gen.random(N) < 0.5, -x, x)
    x[:6] = [65519.0, 65520.0, 1e6, 2.0**-24, 3 * 2.0**-26, -0.0]
    if dst == "bfloat16":  # exact ties to even at bfloat16's precision
        x[6:9] = [1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, -(1.0 + 2.0**-8)]
    x = x.astype(src)
    z = empty(BLOCK, dst)
    cast_kernel[(1,)](to_torch(x), z, N, DST=tl_dtype(dst), SPELLING="to", BLOCK=BLOCK)
    expected = bf16_round(x) if dst == "bfloat16" else round_to(x, dst)
    assert_equal(z[:N], expected)
    assert_equal(np.signbit(to_numpy(z[:N])), np.signbit(expected))


# --- bitcasts


@triton.jit
def bitcast_kernel(x_ptr, z_ptr, n, DST: tl.constexpr, SPELLING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if SPELLING == "to":
        y = x.to(DST, bitcast=True)
    else:
        y = tl.cast(x, DST, bitcast=True)
    tl.store(z_ptr + offs, y, mask=mask)


BITCASTS = [("float32", "int32"), ("int32", "float32"), ("float16", "int16"), ("int16", "float16"),
            ("bfloat16", "int16"), ("int16", "bfloat16"), ("float64", "int64"), ("int64", "float64")]


def bits(t):
    """The bits of a tensor's elements, as signed ints of the same width."""
    import torch
    view = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
            torch.float64: torch.int64}.get(t.dtype, t.dtype)
    return t.view(view).numpy()


@pytest.mark.parametrize("spelling", ["to", "cast"])
@pytest.mark.parametrize("src,dst", BITCASTS, ids=[f"{s}-as-{d}" for s, d in BITCASTS])
def test_bitcast(src, dst, spelling):
    gen = rng(3)
    if is_float(src):
        x = to_torch(rand(gen, N, src, -1000.0, 1000.0), src)
    else:
        # Bit patterns of ordinary floats of the destination type (no NaN payloads).
        x = to_torch(rand(gen, N, dst, -1000.0, 1000.0), dst)
        x = to_torch(bits(x), src)
    z = empty(BLOCK, dst)
    bitcast_kernel[(1,)](x, z, N, DST=tl_dtype(dst), SPELLING=spelling, BLOCK=BLOCK)
    assert_equal(bits(z[:N]), bits(x))


@triton.jit
def pointer_cast_kernel(x_ptr, z_ptr, w_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    as_ints = x_ptr.to(tl.pointer_type(tl.int32))
    tl.store(z_ptr + offs, tl.load(as_ints + offs, mask=mask), mask=mask)
    as_halves = tl.cast(x_ptr, tl.pointer_type(tl.int16), bitcast=True)
    tl.store(w_ptr + offs, tl.load(as_halves + 2 * offs + 1, mask=mask), mask=mask)


def test_pointer_cast():
    x = rand(rng(4), N, "float32", -10.0, 10.0)
    z, w = empty(BLOCK, "int32"), empty(BLOCK, "int16")
    pointer_cast_kernel[(1,)](to_torch(x), z, w, N, BLOCK=BLOCK)
    assert_equal(z[:N], x.view(np.int32))
    assert_equal(w[:N], x.view(np.int16)[1::2])  # the high halves (little-endian)


@triton.jit
def bool_arith_kernel(m_ptr, x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    m = tl.load(m_ptr + offs, mask=mask)
    x = tl.load(x_ptr + offs, mask=mask)
    # A mask used as a number: 0 or 1.
    tl.store(z_ptr + offs, x * m.to(tl.float32) + (x > 0).to(tl.int32), mask=mask)


def test_bool_as_number():
    gen = rng(5)
    m, x = rand(gen, N, "bool"), rand(gen, N, "float32")
    z = empty(BLOCK, "float32")
    bool_arith_kernel[(1,)](to_torch(m), to_torch(x), z, N, BLOCK=BLOCK)
    assert_equal(z[:N], x * m + (x > 0))
