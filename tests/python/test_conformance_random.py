"""Conformance: random numbers. tl.randint and tl.randint4x are Philox4x32-10 (or
4x64-10 for int64 offsets) keyed by the seed; checked bit for bit against an
independent Python implementation of the published algorithm (Salmon et al., SC
2011), whose known-answer vector for a zero counter and key is checked first. tl.rand
maps the bits to [0, 1) and tl.randn through Box-Muller, as Triton does; both are
checked against numpy computations from the same bits."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import assert_close, assert_equal, blockc_only, empty, to_numpy, to_torch

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def philox(counter, key, words=32):
    """Philox 4xW-10 of a 4-word counter and a 2-word key, in Python integers."""
    if words == 32:
        mask, mul_a, mul_b = M32, 0xD2511F53, 0xCD9E8D57
        weyl_a, weyl_b = 0x9E3779B9, 0xBB67AE85
    else:
        mask, mul_a, mul_b = M64, 0xD2E7470EE14C6C93, 0xCA5A826395121157
        weyl_a, weyl_b = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(10):
        p0, p2 = mul_a * c0, mul_b * c2
        c0, c1, c2, c3 = ((p2 >> words) ^ c1 ^ k0) & mask, p2 & mask, \
            ((p0 >> words) ^ c3 ^ k1) & mask, p0 & mask
        k0, k1 = (k0 + weyl_a) & mask, (k1 + weyl_b) & mask
    return c0, c1, c2, c3


def test_reference_matches_the_published_known_answer():
    # Random123's kat_vectors: philox4x32 10 rounds, counter 0, key 0.
    assert philox((0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)


@triton.jit
def randint4x_kernel(seed, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(out_ptr + offs * 4 + 0, a)
    tl.store(out_ptr + offs * 4 + 1, b)
    tl.store(out_ptr + offs * 4 + 2, c)
    tl.store(out_ptr + offs * 4 + 3, d)


@pytest.mark.parametrize("seed", [0, 123, 2**31 - 1, -5, 2**40 + 17])
def test_randint4x_is_philox_4x32(seed):
    out = empty(64 * 4, "int32")  # the bits; torch 1.13 has no uint32
    randint4x_kernel[(1,)](seed, out, N=64)
    out = to_numpy(out).view(np.uint32)
    key = (seed & M32, (seed >> 32) & M32) if seed >= 0 else (seed & M32, M32)
    expected = [philox((i, 0, 0, 0), key) for i in range(64)]
    assert_equal(out, np.array(expected, np.uint64).astype(np.uint32).reshape(-1))


@triton.jit
def randint64_kernel(seed, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N).to(tl.int64) + 2**33
    tl.store(out_ptr + tl.arange(0, N), tl.randint(seed, offs))


def test_int64_offsets_are_two_counter_words():
    # Compiled Triton 3.6 on a GPU gave 3730466992, 3575145341, 632179663 and
    # 622382345 for the first four: Philox 4x32 of (low word, high word, 0, 0).
    out = empty(16, "int32")
    randint64_kernel[(1,)](99, out, N=16)
    out = to_numpy(out).view(np.uint32)
    expected = [philox((i, 2, 0, 0), (99, 0))[0] for i in range(16)]
    assert_equal(out, np.array(expected, np.uint64).astype(np.uint32))
    assert list(out[:4]) == [3730466992, 3575145341, 632179663, 622382345]


@triton.jit
def philox64_kernel(out_ptr, N: tl.constexpr):
    c = tl.arange(0, N).to(tl.uint64) + 2**33
    zero = c * 0
    a, _, _, _ = tl.philox(99, c, zero, zero, zero)
    tl.store(out_ptr + tl.arange(0, N), a)


@blockc_only
def test_philox_of_64_bit_counters_is_philox_4x64():
    out = np.zeros(16, np.uint64)
    philox64_kernel[(1,)](out, N=16)
    expected = [philox((2**33 + i, 0, 0, 0), (99, 0), 64)[0] for i in range(16)]
    assert_equal(out, np.array(expected, np.uint64))


@triton.jit
def uniform_and_normal_kernel(seed, u_ptr, n_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(u_ptr + offs, tl.rand(seed, offs))
    tl.store(n_ptr + offs, tl.randn(seed, offs))


def to_uniform(bits):
    signed = bits.astype(np.uint32).view(np.int32).astype(np.int64)
    folded = np.where(signed < 0, -signed - 1, signed)
    return folded.astype(np.float32) * np.float32(4.6566127342e-10)


def test_rand_and_randn_from_the_same_bits():
    n, programs = 256, 8
    u, z = empty(n * programs, "float32"), empty(n * programs, "float32")
    uniform_and_normal_kernel[(programs,)](7, u, z, N=n)
    u, z = to_numpy(u), to_numpy(z)
    words = np.array([philox((i, 0, 0, 0), (7, 0)) for i in range(n * programs)], np.uint64)
    u1, u2 = to_uniform(words[:, 0]), to_uniform(words[:, 1])
    assert_equal(u, u1)
    assert np.all((u >= 0) & (u < 1))
    radius = np.sqrt(-2.0 * np.log(np.maximum(np.float32(1e-7), u1).astype(np.float64)))
    assert_close(z, radius * np.cos(2 * np.pi * u2.astype(np.float64)), rtol=1e-5, atol=1e-5)
    # A sanity check of the distribution: 2048 normals.
    assert abs(z.mean()) < 0.1 and abs(z.std() - 1) < 0.1


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_dropout_is_reproducible_and_keeps_the_expected_fraction():
    n = 10000
    x = to_torch(np.ones(n, np.float32))
    a, b = empty(n, "float32"), empty(n, "float32")
    dropout_kernel[(triton.cdiv(n, 1024),)](x, a, n, 0.3, 42, BLOCK=1024)
    dropout_kernel[(triton.cdiv(n, 1024),)](x, b, n, 0.3, 42, BLOCK=1024)
    a, b = to_numpy(a), to_numpy(b)
    assert_equal(a, b)
    kept = np.count_nonzero(a)
    assert abs(kept / n - 0.7) < 0.02
    assert np.allclose(a[a != 0], 1 / 0.7)
