"""`triton.language.random`: Philox 4x32-10 (Salmon et al., "Parallel random
numbers: as easy as 1, 2, 3", SC 2011) and the uniform and normal numbers
Triton derives from it, bit for bit as Triton computes them: the same keys
and round constants, the seed split the same way, the same conversion of 32
random bits to a float in [0, 1) and Box-Muller pairs for normals.

The functions are @triton.jit functions: a kernel's call inlines them, so
their arithmetic is Block IR's uint32 (or uint64) arithmetic on the blocks
the kernel passes.
"""

from ..runtime.jit import jit
from . import core as tl

N_ROUNDS_DEFAULT = tl.constexpr(10)

# Weyl-sequence key increments (the golden ratio and sqrt(3) - 1 in 32 and 64
# bits) and the round multipliers of Philox 4x32 and 4x64.
_KEY_A_32, _KEY_B_32 = 0x9E3779B9, 0xBB67AE85
_ROUND_A_32, _ROUND_B_32 = 0xD2511F53, 0xCD9E8D57
_KEY_A_64, _KEY_B_64 = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B
_ROUND_A_64, _ROUND_B_64 = 0xD2E7470EE14C6C93, 0xCA5A826395121157


@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """n_rounds rounds of Philox on the counter (c0, c1, c2, c3) and key (k0, k1)."""
    if c0.dtype == tl.uint32:
        KEY_A: tl.constexpr = _KEY_A_32
        KEY_B: tl.constexpr = _KEY_B_32
        ROUND_A: tl.constexpr = _ROUND_A_32
        ROUND_B: tl.constexpr = _ROUND_B_32
    else:
        tl.static_assert(c0.dtype == tl.uint64, "philox works on uint32 or uint64 counters")
        KEY_A: tl.constexpr = _KEY_A_64
        KEY_B: tl.constexpr = _KEY_B_64
        ROUND_A: tl.constexpr = _ROUND_A_64
        ROUND_B: tl.constexpr = _ROUND_B_64
    for _ in tl.static_range(n_rounds):
        prev0 = c0
        prev2 = c2
        c0 = tl.umulhi(ROUND_B, prev2) ^ c1 ^ k0
        c2 = tl.umulhi(ROUND_A, prev0) ^ c3 ^ k1
        c1 = ROUND_B * prev2
        c3 = ROUND_A * prev0
        k0 = k0 + KEY_A
        k1 = k1 + KEY_B
    return c0, c1, c2, c3


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    seed = tl.to_tensor(seed)
    tl.static_assert(seed.dtype.is_int(), "the seed is an integer")
    seed = seed.to(tl.uint64)
    c0 = tl.to_tensor(c0)
    c1 = tl.to_tensor(c1)
    c2 = tl.to_tensor(c2)
    c3 = tl.to_tensor(c3)
    if tl.constexpr(c0.dtype.primitive_bitwidth) == 32:
        word: tl.constexpr = tl.uint32
        key_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        key_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        tl.static_assert(tl.constexpr(c0.dtype.primitive_bitwidth) == 64,
                         "philox counters are 32 or 64 bits")
        word: tl.constexpr = tl.uint64
        key_hi = tl.full((1, ), 0, dtype=word)
        key_lo = seed
    c0 = c0.to(word, bitcast=True)
    c1 = c1.to(word, bitcast=True)
    c2 = c2.to(word, bitcast=True)
    c3 = c3.to(word, bitcast=True)
    return philox_impl(c0, c1, c2, c3, key_lo, key_hi, n_rounds)


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for `offset`: Philox 4x32 of the counter
    (offset's low word, its high word, 0, 0), as Triton computes it."""
    offset_lo = offset.to(tl.uint32)
    zero = offset_lo * 0
    if tl.constexpr(offset.dtype.primitive_bitwidth) > 32:
        offset_hi = (offset >> 32).to(tl.uint32)
    else:
        offset_hi = zero
    return philox(seed, offset_lo, offset_hi, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    first, _, _, _ = randint4x(seed, offset, n_rounds)
    return first


@jit
def uint_to_uniform_float(x):
    """Random bits to a float32 in [0, 1): the bits read as a signed number,
    folded onto [0, 2^31) (or 2^63) and scaled by the largest factor whose
    product with the maximum stays below 1.0 after rounding."""
    if tl.constexpr(x.dtype == tl.uint32) or tl.constexpr(x.dtype == tl.int32):
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        tl.static_assert(tl.constexpr(x.dtype == tl.uint64) or tl.constexpr(x.dtype == tl.int64))
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return (uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3),
            uint_to_uniform_float(i4))


@jit
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniforms to two independent standard normals."""
    u1 = tl.maximum(1.0e-7, u1)
    angle = 6.283185307179586 * u2
    radius = tl.sqrt(-2.0 * tl.log(u1))
    return radius * tl.cos(angle), radius * tl.sin(angle)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
