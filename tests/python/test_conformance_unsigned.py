"""Conformance: unsigned integers. uint8 to uint64 tensors in and out (torch and
numpy), division, remainder, comparisons, shifts, min/max, reductions (sum widens
uint8 to uint32; max and argmax order unsigned), casts to and from floats, Triton's
promotion of signed and unsigned operands, and the packed-int4 unpacking quantized
kernels do. References are numpy's, in the same unsigned types."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import assert_equal, blockc_extension, empty, rng, to_numpy

# Unsigned tensors reach a kernel as numpy arrays here: torch 1.13 has no uint16 to
# uint64 tensors, and Triton takes only torch tensors.
pytestmark = blockc_extension("numpy arrays as kernel arguments")

UINTS = ["uint8", "uint16", "uint32", "uint64"]


def urand(gen, shape, dtype, low=0, high=None):
    info = np.iinfo(dtype)
    return gen.integers(low, info.max if high is None else high, size=shape, endpoint=True,
                        dtype=np.uint64).astype(dtype)


@triton.jit
def arith_kernel(x_ptr, y_ptr, q_ptr, r_ptr, lt_ptr, sh_ptr, mx_ptr, mn_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(q_ptr + offs, x // y)
    tl.store(r_ptr + offs, x % y)
    tl.store(lt_ptr + offs, (x < y).to(tl.int8) + (x >= y).to(tl.int8) * 2)
    tl.store(sh_ptr + offs, x >> 3)
    tl.store(mx_ptr + offs, tl.maximum(x, y))
    tl.store(mn_ptr + offs, tl.minimum(x, y))


@pytest.mark.parametrize("dtype", UINTS)
def test_arithmetic_reads_values_as_unsigned(dtype):
    gen = rng(1)
    # The top half of the range: signed arithmetic would see negative numbers.
    x = urand(gen, 64, dtype)
    y = urand(gen, 64, dtype, low=1)
    q, r, m, s, mx, mn = (np.full(64, 7, dtype) for _ in range(6))
    lt = empty(64, "int8")
    arith_kernel[(1,)](x, y, q, r, lt, s, mx, mn, N=64)
    assert_equal(q, x // y)
    assert_equal(r, x % y)
    assert_equal(lt, np.where(x < y, 1, 2).astype(np.int8))
    assert_equal(s, x >> np.array(3, dtype))
    assert_equal(mx, np.maximum(x, y))
    assert_equal(mn, np.minimum(x, y))


@triton.jit
def reductions_kernel(x_ptr, sum_ptr, max_ptr, argmax_ptr, min_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(sum_ptr, tl.sum(x, axis=0))
    tl.store(max_ptr, tl.max(x, axis=0))
    tl.store(argmax_ptr, tl.argmax(x, axis=0))
    tl.store(min_ptr, tl.min(x, axis=0))


@pytest.mark.parametrize("dtype", ["uint8", "uint32", "uint64"])
def test_reductions_order_unsigned(dtype):
    x = urand(rng(2), 100, dtype)
    wide = "uint32" if dtype == "uint8" else dtype  # Triton's sum of narrow unsigned ints
    s, mx, mn = np.zeros(1, wide), np.zeros(1, wide if dtype == "uint8" else dtype), np.zeros(1, wide)
    am = empty(1, "int32")
    reductions_kernel[(1,)](x, s, mx, am, mn, N=100)
    assert s[0] == (x.astype(np.uint64).sum() & np.uint64(np.iinfo(wide).max))
    assert mx[0] == x.max() and mn[0] == x.min()
    assert am[0] == x.argmax()


@triton.jit
def casts_kernel(x_ptr, f_ptr, back_ptr, wide_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    f = x.to(tl.float64)
    tl.store(f_ptr + offs, f)
    tl.store(back_ptr + offs, (f * 0.5).to(x.dtype))
    tl.store(wide_ptr + offs, x.to(tl.int64))  # zero extension: the value, not its sign


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32"])
def test_casts_to_and_from_floats(dtype):
    x = urand(rng(3), 32, dtype)
    f, back, wide = empty(32, "float64"), np.zeros(32, dtype), empty(32, "int64")
    casts_kernel[(1,)](x, f, back, wide, N=32)
    assert_equal(f, x.astype(np.float64))
    assert_equal(back, np.trunc(x.astype(np.float64) * 0.5).astype(dtype))
    assert_equal(wide, x.astype(np.int64))


@triton.jit
def float_to_unsigned_kernel(x_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(z_ptr + offs, tl.load(x_ptr + offs).to(tl.uint32))


def test_float_to_unsigned_above_the_signed_range():
    x = np.array([3.5e9, 2.0**31, 4294967295.0, 17.9], np.float64)
    z = np.full(4, 7, np.uint32)
    float_to_unsigned_kernel[(1,)](x, z, N=4)
    assert_equal(z, np.array([3500000000, 2**31, 4294967295, 17], np.uint32))


@triton.jit
def int4_unpack_kernel(packed_ptr, lo_ptr, hi_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    w = tl.load(packed_ptr + offs)  # uint8: two 4-bit weights
    tl.store(lo_ptr + offs, (w & 0xF).to(tl.int32) - 8)
    tl.store(hi_ptr + offs, (w >> 4).to(tl.int32) - 8)


def test_packed_int4_weights():
    import torch
    packed = urand(rng(4), 64, "uint8")
    lo, hi = empty(64, "int32"), empty(64, "int32")
    int4_unpack_kernel[(1,)](torch.from_numpy(packed), lo, hi, N=64)
    assert_equal(lo, (packed & 15).astype(np.int32) - 8)
    assert_equal(hi, (packed >> 4).astype(np.int32) - 8)


@triton.jit
def promotion_kernel(u_ptr, i_ptr, z_ptr, w_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    u = tl.load(u_ptr + offs)  # uint32
    i = tl.load(i_ptr + offs)  # int32
    z = u + i
    tl.static_assert(z.dtype == tl.uint32)  # as C: the unsigned type of equal width wins
    tl.store(z_ptr + offs, z)
    w = u.to(tl.uint8) + i.to(tl.int16)
    tl.static_assert(w.dtype == tl.int16)  # the wider signed type wins
    tl.store(w_ptr + offs, w)


def test_promotion_of_signed_and_unsigned():
    gen = rng(5)
    u = urand(gen, 16, "uint32")
    i = gen.integers(-1000, 1000, 16).astype(np.int32)
    z, w = np.full(16, 7, np.uint32), empty(16, "int16")
    promotion_kernel[(1,)](u, i, z, w, N=16)
    assert_equal(z, u + i.astype(np.uint32))
    assert_equal(w, u.astype(np.uint8).astype(np.int16) + i.astype(np.int16))


def test_unsigned_arrays_come_back_unsigned():
    z = np.full(16, 7, np.uint32)

    @triton.jit
    def fill(z_ptr, N: tl.constexpr):
        tl.store(z_ptr + tl.arange(0, N), tl.full((N,), 4000000000, tl.uint32))

    fill[(1,)](z, N=16)
    assert z.dtype == np.uint32 and np.all(to_numpy(z) == 4000000000)

