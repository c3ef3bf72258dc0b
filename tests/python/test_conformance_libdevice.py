"""Conformance: libdevice (`triton.language.extra.libdevice`, also
`tl.extra.cuda.libdevice`): the functions blockc composes from Block IR's math ops,
on f32 and f64, over random ranges and the special values (0, -0, inf, -inf, NaN,
halves, integers, tiny and huge numbers).

References are numpy or Python's math in float64. Tolerances, in ulps of the result
type: the exact functions (rounding, classification, sign, fmod, remainder, fdim,
integer bits) must match bit for bit; composed f32 results are computed in f64 and
must be within 1 ulp; composed f64 results within the bound libdevice.py states for
each (2 to 4 ulp); erfc and normcdf (f32 only) within 1.2e-7 relative plus rounding.
Special inputs must give the reference's value exactly (NaN for NaN, the sign of a
zero included)."""

import math

import numpy as np
import pytest

import triton
import triton.language as tl
from triton.language.extra import libdevice

from conftest import (to_numpy, assert_equal, blockc_extension, blockc_only, compile_error_at, empty,
                      interpreter_limitation, rng, to_torch)

# Triton 3.6's interpreter implements no function of triton.language.extra.libdevice: each
# call returns None there ("cannot convert None to tensor").
NO_LIBDEVICE = interpreter_limitation("libdevice functions are not implemented (each returns None)")
# Most tests pass the function as a constexpr argument (FN=libdevice.name): Triton 3.6 maps
# a libdevice stub to the backend's function only where a kernel names it, so there, on a
# GPU too, FN(x) is the stub's None.
FN_ARGUMENT = blockc_extension("a libdevice function passed as a constexpr argument")

HERE = __file__
BLOCK = 128

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, 3.0, -4.0,
            0.25, -0.75, 1e-30, -1e-30, 1e30, -1e30]


@triton.jit
def unary_kernel(x_ptr, z_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    tl.store(z_ptr + offs, FN(x), mask=mask)


@triton.jit
def binary_kernel(x_ptr, y_ptr, z_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(z_ptr + offs, FN(x, y), mask=mask)


def _vec(f):
    return np.vectorize(f, otypes=[np.float64])


def _round_half_away(x):
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def _sinpi(x):
    r = x - 2 * np.round(x / 2)  # exact for these inputs
    with np.errstate(invalid="ignore"):
        v = np.sin(np.pi * np.where(np.abs(r) > 0.5, np.sign(r) - r, r))
    return np.where(v == 0, x * 0.0, v)


def _cospi(x):
    r = x - 2 * np.round(x / 2)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(x), np.nan, np.sin(np.pi * (0.5 - np.abs(r))))


def _erfc(x):
    return _vec(math.erfc)(x)


def _lgamma(x):
    # IEEE's poles and infinities where Python's math raises.
    if math.isnan(x):
        return x
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return math.inf
    return math.lgamma(x)


def _tgamma(x):
    if math.isnan(x) or x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf


# name: (reference, input range, f64 ulps)
UNARY = {
    "tan": (np.tan, (-1.5, 1.5), 3),
    "exp10": (lambda x: np.power(10.0, x), (-30.0, 30.0), 2),
    "log10": (np.log10, (1e-3, 1e4), 2),
    "expm1": (np.expm1, (-3.0, 3.0), 4),
    "log1p": (np.log1p, (-0.9, 10.0), 4),
    "sinh": (np.sinh, (-30.0, 30.0), 4),
    "cosh": (np.cosh, (-30.0, 30.0), 3),
    "cbrt": (np.cbrt, (-1e6, 1e6), 2),
    "rcbrt": (lambda x: 1.0 / np.cbrt(x), (-1e6, 1e6), 3),
    "asinh": (np.arcsinh, (-100.0, 100.0), 4),
    "acosh": (np.arccosh, (1.0, 100.0), 4),
    "atanh": (np.arctanh, (-0.99, 0.99), 4),
    "sinpi": (_sinpi, (-10.0, 10.0), 2),
    "cospi": (_cospi, (-10.0, 10.0), 2),
    "erfc": (_erfc, (-3.0, 9.0), 2),
    "normcdf": (lambda x: 0.5 * _erfc(-x / np.sqrt(2.0)), (-12.0, 5.0), 3),
    "asin": (np.arcsin, (-1.0, 1.0), 1),
    "acos": (np.arccos, (-1.0, 1.0), 1),
    "atan": (np.arctan, (-50.0, 50.0), 1),
    # f64: Python's lgamma and gamma, the references, are themselves a few ulp off;
    # lgamma's error is absolute near its zeros at 1 and 2, so the range avoids them.
    "tanpi": (lambda x: _sinpi(x) / _cospi(x), (-10.0, 10.0), 5),
    "lgamma": (lambda x: _vec(_lgamma)(x), (2.5, 30.0), 8),
    "tgamma": (lambda x: _vec(_tgamma)(x), (0.1, 20.0), 8),
}
EXACT_UNARY = {
    "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint, "round": _round_half_away,
    # Clamped to [+0.0, 1.0] (CUDA's words): -0.0 and NaN give +0.0. Written out,
    # since np.clip keeps -0.0 in numpy 2 and not in numpy 1.
    "saturatef": lambda x: np.where(np.isnan(x) | (x <= 0), 0.0, np.where(x >= 1, 1.0, x)),
    "rcp_rn": lambda x: 1.0 / x,
    # The exponent, exactly (frexp's, less one); -inf for zeros, inf for infinities.
    "logb": lambda x: np.where(np.isnan(x), x, np.where(x == 0, -np.inf, np.where(
        np.isinf(x), np.inf, np.frexp(x)[1] - 1.0))),
}
CLASSIFY = {
    "isnan": np.isnan, "isinf": np.isinf, "finitef": np.isfinite, "isfinited": np.isfinite,
    "signbit": np.signbit,
}


def _inputs(dtype, low, high, seed=0, count=BLOCK - len(SPECIALS)):
    values = rng(seed).uniform(low, high, count)
    return np.concatenate([np.array(SPECIALS), values]).astype(dtype)


def _check(z, expected, dtype, ulps, rel=None, err_msg=""):
    z = np.asarray(z, np.float64)
    expected = np.asarray(expected, np.float64)
    same = (z == expected) | (np.isnan(z) & np.isnan(expected))
    finite = np.isfinite(expected) & np.isfinite(z)
    tiny = np.finfo(dtype).tiny
    with np.errstate(invalid="ignore"):
        bound = (rel if rel is not None else ulps * np.finfo(dtype).eps) * np.abs(expected) + \
            ulps * tiny * np.finfo(dtype).eps
        close = finite & (np.abs(z - expected) <= bound)
    bad = ~(same | close)
    assert not bad.any(), f"{err_msg}: at {np.flatnonzero(bad)[:6]}: got {z[bad][:6]}, expected " \
        f"{expected[bad][:6]}"
    # A zero keeps its sign, as the reference's does.
    zeros = (expected == 0) & (z == 0)
    assert_equal(np.signbit(z[zeros]), np.signbit(expected[zeros]), err_msg=err_msg + " (sign of 0)")


@FN_ARGUMENT
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_composed_unary(name, dtype):
    ref, (low, high), f64_ulps = UNARY[name]
    x = _inputs(dtype, low, high)
    z = empty(BLOCK, dtype)
    unary_kernel[(1,)](to_torch(x), z, BLOCK, FN=getattr(libdevice, name), BLOCK=BLOCK)
    with np.errstate(all="ignore"):
        expected = ref(x.astype(np.float64)).astype(dtype)
    if dtype == "float32":
        # SLEEF's 1-ulp functions, or computed in f64 and rounded once: 1 ulp;
        # erfc's fit 1.2e-7 relative.
        rel = 1.2e-7 + 2.0**-24 if name in ("erfc", "normcdf") else None
        _check(z.numpy(), expected, np.float32, 1, rel, name)
    elif name == "lgamma":
        # Near lgamma's zeros (x in [1, 2]) the error is absolute: ulps of 1.
        bound = f64_ulps * np.finfo(np.float64).eps * np.maximum(np.abs(expected), 1.0)
        got = z.numpy()
        with np.errstate(invalid="ignore"):
            ok = (np.abs(got - expected) <= bound) | (got == expected) | \
                (np.isnan(got) & np.isnan(expected))
        assert ok.all(), f"lgamma: at {np.flatnonzero(~ok)}"
    else:
        _check(z.numpy(), expected, np.float64, f64_ulps, None, name)


@FN_ARGUMENT
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(EXACT_UNARY))
def test_exact_unary(name, dtype):
    x = _inputs(dtype, -20.0, 20.0, seed=1)
    # Halves and huge values, where rounding functions go wrong if anywhere.
    x[-16:] = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 4503599627370497.0, 8388609.0,
                        -8388609.0, 0.49999997, -0.49999997, 1e300 if dtype == "float64" else 3e38,
                        7.5, -7.5, 0.3, -0.3]).astype(dtype)
    z = empty(BLOCK, dtype)
    unary_kernel[(1,)](to_torch(x), z, BLOCK, FN=getattr(libdevice, name), BLOCK=BLOCK)
    with np.errstate(all="ignore"):
        expected = EXACT_UNARY[name](x.astype(np.float64)).astype(dtype)
    _check(z.numpy(), expected, np.dtype(dtype), 0, 0.0, name)


@FN_ARGUMENT
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CLASSIFY))
def test_classification(name, dtype):
    x = _inputs(dtype, -5.0, 5.0, seed=2)
    z = empty(BLOCK, "int32", fill=-7)
    unary_kernel[(1,)](to_torch(x), z, BLOCK, FN=getattr(libdevice, name), BLOCK=BLOCK)
    assert_equal(z, CLASSIFY[name](x).astype(np.int32))


def _fdim(x, y):
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0))


BINARY = {
    # name: (reference, exact?, f64 ulps)
    "copysign": (np.copysign, True, 0),
    "fmod": (np.fmod, True, 0),
    "remainder": (_vec(lambda a, b: math.remainder(a, b) if np.isfinite(a) and b != 0 and
                       not np.isnan(b) else math.nan), True, 0),
    "fdim": (_fdim, True, 0),
    "hypot": (np.hypot, False, 2),
    "fast_dividef": (np.divide, True, 0),
    "add_rn": (np.add, True, 0),
    "mul_rn": (np.multiply, True, 0),
    "nextafter": (np.nextafter, True, 0),
}
IN_OWN_TYPE = ("nextafter",)


@FN_ARGUMENT
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, dtype):
    ref, exact, f64_ulps = BINARY[name]
    x = _inputs(dtype, -50.0, 50.0, seed=3)
    y = np.roll(_inputs(dtype, -7.0, 7.0, seed=4), 7)
    y[:4] = np.array([3.0, -0.0, np.inf, 2.0]).astype(dtype)
    x[-6:] = np.array([7.5, -7.5, 5.0, 1e30, 3.0, -9.0]).astype(dtype)  # ties of remainder
    y[-6:] = np.array([3.0, 3.0, 2.0, 3.0, 2.0, 2.0]).astype(dtype)
    z = empty(BLOCK, dtype)
    binary_kernel[(1,)](to_torch(x), to_torch(y), z, BLOCK, FN=getattr(libdevice, name),
                        BLOCK=BLOCK)
    with np.errstate(all="ignore"):
        # nextafter steps in the operands' own type; the others are rounded from f64.
        wide = (x, y) if name in IN_OWN_TYPE else (x.astype(np.float64), y.astype(np.float64))
        expected = ref(*wide).astype(dtype)
    if exact:
        _check(z.numpy(), expected, np.dtype(dtype), 0, 0.0, name)
    else:
        _check(z.numpy(), expected, np.dtype(dtype), 1 if dtype == "float32" else f64_ulps,
               None, name)


@FN_ARGUMENT
def test_hypot_does_not_overflow_or_underflow():
    x = np.array([1e300, 3e-310, 1e-200, np.inf, np.nan, 3.0] + [1.0] * 10)
    y = np.array([1e300, 4e-310, 1e-200, np.nan, np.inf, 4.0] + [1.0] * 10)
    z = empty(16, "float64")
    binary_kernel[(1,)](to_torch(x), to_torch(y), z, 16, FN=libdevice.hypot, BLOCK=16)
    _check(z.numpy(), np.hypot(x, y), np.float64, 2, None, "hypot")


@blockc_only
def test_f32_math_spellings_of_the_accurate_functions():
    # fast_* are CUDA's approximations; blockc's are the accurate functions.
    assert libdevice.fast_expf is libdevice.exp and libdevice.fast_tanf is libdevice.tan
    assert tl.extra.cuda.libdevice is libdevice


# --- integers


@triton.jit
def int_unary_kernel(x_ptr, z_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, FN(tl.load(x_ptr + offs)))


def _ints(dtype):
    info = np.iinfo(dtype)
    x = rng(5).integers(info.min, info.max, size=64, endpoint=True, dtype=np.int64).astype(dtype)
    x[:8] = np.array([0, -1, 1, info.min, info.max, 2, 1 << 20, -(1 << 20)], dtype)
    return x


def _u(v, bits):
    return int(v) & ((1 << bits) - 1)


def _signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


INT_UNARY = {
    "popc": lambda v, bits: bin(_u(v, bits)).count("1"),
    "clz": lambda v, bits: bits - _u(v, bits).bit_length(),
    "ffs": lambda v, bits: (_u(v, bits) & -_u(v, bits)).bit_length(),
    "brev": lambda v, bits: _signed(int(format(_u(v, bits), f"0{bits}b")[::-1], 2), bits),
}


@FN_ARGUMENT
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("name", sorted(INT_UNARY))
def test_integer_bits(name, dtype):
    x = _ints(dtype)
    out_dtype = dtype if name == "brev" else "int32"
    z = empty(64, out_dtype)
    int_unary_kernel[(1,)](to_torch(x), z, FN=getattr(libdevice, name), BLOCK=64)
    bits = np.iinfo(dtype).bits
    assert_equal(z, np.array([INT_UNARY[name](v, bits) for v in x], out_dtype))


INT_BINARY = {
    "mulhi": lambda a, b, bits: (int(a) * int(b)) >> bits,
    "umulhi": lambda a, b, bits: _signed((_u(a, bits) * _u(b, bits)) >> bits, bits),
    "hadd": lambda a, b, bits: (int(a) + int(b)) >> 1,
    "rhadd": lambda a, b, bits: (int(a) + int(b) + 1) >> 1,
    "uhadd": lambda a, b, bits: _signed((_u(a, bits) + _u(b, bits)) >> 1, bits),
    "urhadd": lambda a, b, bits: _signed((_u(a, bits) + _u(b, bits) + 1) >> 1, bits),
}


# uhadd, urhadd and umulhi are blockc's names for the unsigned forms (blockc has no
# unsigned types); Triton's libdevice reaches them through hadd/rhadd/mulhi on uint32/64.
UNSIGNED_NAMES = ("uhadd", "urhadd", "umulhi")


@FN_ARGUMENT
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("name", [pytest.param(name, marks=blockc_extension(
    f"libdevice.{name}, an unsigned form Triton's libdevice names differently"))
    if name in UNSIGNED_NAMES else name for name in sorted(INT_BINARY)])
def test_integer_binary(name, dtype):
    x, y = _ints(dtype), np.roll(_ints(dtype), 3)
    z = empty(64, dtype)
    binary_kernel[(1,)](to_torch(x), to_torch(y), z, 64, FN=getattr(libdevice, name), BLOCK=64)
    bits = np.iinfo(dtype).bits
    assert_equal(z, np.array([INT_BINARY[name](a, b, bits) for a, b in zip(x, y)], dtype))


@triton.jit
def reinterpret_kernel(f_ptr, i_ptr, d_ptr, l_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    f, i = tl.load(f_ptr + offs), tl.load(i_ptr + offs)
    d, ll = tl.load(d_ptr + offs), tl.load(l_ptr + offs)
    tl.store(i_ptr + offs, libdevice.float_as_int(f))
    tl.store(f_ptr + offs, libdevice.int_as_float(i))
    tl.store(l_ptr + offs, libdevice.double_as_longlong(d))
    tl.store(d_ptr + offs, libdevice.longlong_as_double(ll))


@NO_LIBDEVICE
def test_bit_reinterpretations():
    f = _inputs("float32", -5.0, 5.0, count=12)[:32]
    d = _inputs("float64", -5.0, 5.0, count=12)[:32]
    i = rng(8).integers(-2**31, 2**31 - 1, 32).astype(np.int32)
    ll = rng(9).integers(-2**62, 2**62, 32).astype(np.int64)
    tf, ti, td, tll = to_torch(f), to_torch(i), to_torch(d), to_torch(ll)
    reinterpret_kernel[(1,)](tf, ti, td, tll, BLOCK=32)
    assert_equal(ti, f.view(np.int32))
    assert_equal(tf.numpy().view(np.int32), i)
    assert_equal(tll, d.view(np.int64))
    assert_equal(td.numpy().view(np.int64), ll)


# --- what blockc cannot build yet


@triton.jit
def erfinv_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), libdevice.erfinv(x))  # err:erfinv


@blockc_only
def test_a_function_needing_a_new_primitive_names_itself():
    with compile_error_at(HERE, "err:erfinv", match=r"libdevice\.erfinv is not supported yet"):
        erfinv_kernel[(1,)](empty(8, "float32"))


@triton.jit
def atan2_kernel(y_ptr, x_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(z_ptr + offs, libdevice.atan2(tl.load(y_ptr + offs), tl.load(x_ptr + offs)))


@NO_LIBDEVICE
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atan2_in_every_quadrant(dtype):
    gen = rng(21)
    y = np.concatenate([[0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.0],
                        gen.uniform(-10, 10, 56)]).astype(dtype)
    x = np.concatenate([[0.0, -0.0, -1.0, -1.0, np.inf, 2.0, 1.0, np.nan],
                        gen.uniform(-10, 10, 56)]).astype(dtype)
    z = empty(64, dtype)
    atan2_kernel[(1,)](to_torch(y), to_torch(x), z, N=64)
    _check(to_numpy(z), np.arctan2(y.astype(np.float64), x.astype(np.float64)), dtype, 1,
           err_msg="atan2")


@triton.jit
def tan_of_int_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), libdevice.tan(x).to(tl.int32))  # err:tan_int


def test_math_on_integers_is_an_error():
    with compile_error_at(HERE, "err:tan_int", match="floating"):
        tan_of_int_kernel[(1,)](empty(8, "int32"))


@triton.jit
def scale_kernel(x_ptr, n_ptr, z_ptr, e_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x, n = tl.load(x_ptr + offs), tl.load(n_ptr + offs)
    tl.store(z_ptr + offs, libdevice.ldexp(x, n))
    tl.store(z_ptr + BLOCK + offs, libdevice.scalbn(x, n))
    tl.store(e_ptr + offs, libdevice.ilogb(x))


@NO_LIBDEVICE
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ldexp_scalbn_and_ilogb_are_exact(dtype):
    # Scales across the whole range: into and out of subnormals (rounded once), past
    # overflow and underflow, and the specials.
    x = _inputs(dtype, -1e3, 1e3, seed=11)
    x[-4:] = np.array([np.finfo(dtype).tiny, np.finfo(dtype).smallest_subnormal, 3.0,
                       np.finfo(dtype).max]).astype(dtype)
    n = rng(12).integers(-2300, 2300, BLOCK).astype(np.int32)
    n[:40:2] = rng(13).integers(-160, 160, 20)
    n[-4:] = [-1, 1, -1100, -1]
    z, e = empty(2 * BLOCK, dtype), empty(BLOCK, "int32")
    scale_kernel[(1,)](to_torch(x), to_torch(n), z, e, BLOCK=BLOCK)
    with np.errstate(all="ignore"):
        expected = np.ldexp(x, n)  # numpy's ldexp, in the operand's type: rounded once
    _check(z.numpy()[:BLOCK], expected, np.dtype(dtype), 0, 0.0, "ldexp")
    _check(z.numpy()[BLOCK:], expected, np.dtype(dtype), 0, 0.0, "scalbn")
    with np.errstate(all="ignore"):
        exponent = np.frexp(x)[1] - 1
    ilogb = np.where(np.isinf(x), 2**31 - 1, np.where((x == 0) | np.isnan(x), -2**31, exponent))
    assert_equal(e, ilogb.astype(np.int32))


@triton.jit
def int_bits_kernel(a_ptr, b_ptr, s_ptr, out_ptr, d_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b, s = tl.load(a_ptr + offs), tl.load(b_ptr + offs), tl.load(s_ptr + offs)
    tl.store(out_ptr + offs, libdevice.mul24(a, b))
    tl.store(out_ptr + BLOCK + offs, libdevice.umul24(a, b))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.sad(a, b, s))
    tl.store(out_ptr + 3 * BLOCK + offs, libdevice.byte_perm(a, b, s))
    d = tl.load(d_ptr + offs)
    tl.store(out_ptr + 4 * BLOCK + offs, libdevice.double2hiint(d))
    tl.store(out_ptr + 5 * BLOCK + offs, libdevice.double2loint(d))
    tl.store(d_ptr + offs, libdevice.hiloint2double(libdevice.double2hiint(d) ^ 1,
                                                    libdevice.double2loint(d)))


@NO_LIBDEVICE
def test_24_bit_products_byte_permutes_and_f64_words():
    gen = rng(14)
    a = gen.integers(-2**31, 2**31 - 1, 64).astype(np.int32)
    b = gen.integers(-2**31, 2**31 - 1, 64).astype(np.int32)
    s = gen.integers(0, 2**16, 64).astype(np.int32)
    d = gen.standard_normal(64) * 1e5
    out = empty(6 * 64, "int32")
    td = to_torch(d.copy())
    int_bits_kernel[(1,)](to_torch(a), to_torch(b), to_torch(s), out, td, BLOCK=64)
    out = out.numpy().reshape(6, 64)

    def low24(v, signed):
        v = int(v) & 0xFFFFFF
        return v - (1 << 24) if signed and v >= 1 << 23 else v
    wrap = lambda v: _signed(v, 32)  # noqa: E731
    assert_equal(out[0], [wrap(low24(x, True) * low24(y, True)) for x, y in zip(a, b)])
    assert_equal(out[1], [wrap(low24(x, False) * low24(y, False)) for x, y in zip(a, b)])
    assert_equal(out[2], [wrap(abs(int(x) - int(y)) + int(z)) for x, y, z in zip(a, b, s)])

    def perm(x, y, sel):
        source = (_u(y, 32) << 32) | _u(x, 32)
        return wrap(sum(((source >> (8 * ((int(sel) >> (4 * i)) & 7))) & 0xFF) << (8 * i)
                        for i in range(4)))
    assert_equal(out[3], [perm(x, y, z) for x, y, z in zip(a, b, s)])
    bits = d.view(np.int64)
    assert_equal(out[4], (bits >> 32).astype(np.int32))
    assert_equal(out[5], bits.astype(np.int32))
    assert_equal(td.numpy().view(np.int64), bits ^ (1 << 32))


@triton.jit
def rsqrt_rn_kernel(x_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, libdevice.rsqrt_rn(tl.load(x_ptr + offs)))  # err:rsqrt_rn


@NO_LIBDEVICE
def test_rsqrt_rn_is_correctly_rounded_in_f32():
    x = np.concatenate([[0.0, -0.0, np.inf, -1.0, np.nan, 4.0, 2.0**-149, 3e38],
                        np.exp(rng(15).uniform(-80, 80, 120))]).astype(np.float32)
    z = empty(BLOCK, "float32")
    rsqrt_rn_kernel[(1,)](to_torch(x), z, BLOCK=BLOCK)
    with np.errstate(all="ignore"):
        # The exact value's f64 neighbour rounds to the correctly rounded f32 but
        # within 2^-29 ulp of a tie, which these inputs are not near.
        expected = (1.0 / np.sqrt(x.astype(np.float64))).astype(np.float32)
    _check(z.numpy(), expected, np.float32, 0, 0.0, "rsqrt_rn")


@blockc_only
def test_rsqrt_rn_of_f64_is_an_error_naming_it():
    with compile_error_at(HERE, "err:rsqrt_rn", match="rsqrt_rn of fp64"):
        rsqrt_rn_kernel[(1,)](empty(BLOCK, "float64"), empty(BLOCK, "float64"), BLOCK=BLOCK)


@triton.jit
def bessel_kernel(x_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, libdevice.j0(x))
    tl.store(z_ptr + BLOCK + offs, libdevice.j1(x))
    tl.store(z_ptr + 2 * BLOCK + offs, libdevice.y0(x))
    tl.store(z_ptr + 3 * BLOCK + offs, libdevice.y1(x))
    tl.store(z_ptr + 4 * BLOCK + offs, libdevice.jn(3, x))
    tl.store(z_ptr + 5 * BLOCK + offs, libdevice.yn(2, x))


@NO_LIBDEVICE
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bessel_functions_are_libms(dtype):
    # libm's, element by element: within a few ULP of max(|result|, 1) (near the
    # functions' zeros only an absolute bound means anything), against mpmath.
    mpmath = pytest.importorskip("mpmath")
    x = np.concatenate([[0.5, 1.0, 2.404825557695773, 10.0, 50.0],
                        rng(16).uniform(0.05, 60.0, 59)]).astype(dtype)
    z = empty(6 * 64, dtype)
    bessel_kernel[(1,)](to_torch(x), z, BLOCK=64)
    got = to_numpy(z).reshape(6, 64).astype(np.float64)
    functions = [lambda v: mpmath.besselj(0, v), lambda v: mpmath.besselj(1, v),
                 lambda v: mpmath.bessely(0, v), lambda v: mpmath.bessely(1, v),
                 lambda v: mpmath.besselj(3, v), lambda v: mpmath.bessely(2, v)]
    eps = np.finfo(dtype).eps
    for row, f in zip(got, functions):
        want = np.array([float(f(mpmath.mpf(float(v)))) for v in x])
        scale = np.maximum(np.abs(want), 1.0)
        assert np.all(np.abs(row - want) <= 8 * eps * scale), (row, want)


@triton.jit
def to_int64_kernel(x_ptr, rint_ptr, round_ptr, math_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    # Under Triton 2.0's and 2.1's names too (bitsandbytes' quantizers, older kernels).
    tl.store(rint_ptr + offs, tl.libdevice.llrint(x), mask=mask)
    tl.store(round_ptr + offs, libdevice.llround(x), mask=mask)
    tl.store(math_ptr + offs, tl.math.rint(x), mask=mask)


@NO_LIBDEVICE
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_llrint_and_llround_give_int64_saturating_and_nan_as_int64_min(dtype):
    x = np.array(SPECIALS + [9.2e18, -9.2e18, 9.3e18, -9.3e18, 123456789.5, -7.5],
                 dtype=dtype)
    n = len(x)
    rint, rounded, math_rint = empty(n, "int64"), empty(n, "int64"), empty(n, dtype)
    to_int64_kernel[(1,)](to_torch(x), rint, rounded, math_rint, n, BLOCK=64)
    wide = x.astype(np.float64)
    # As CUDA's conversions give them (Triton 3.6 on an H200): saturated, NaN as INT64_MIN.
    fits = np.abs(wide) < 2.0 ** 63
    outside = np.where(wide > 0, np.iinfo(np.int64).max, np.iinfo(np.int64).min)
    with np.errstate(all="ignore"):
        ties_away = np.trunc(wide + np.copysign(0.5, wide))
        ties_away = np.where(np.abs(wide - np.trunc(wide)) == 0.5, ties_away, np.rint(wide))
        assert_equal(to_numpy(rint), np.where(fits, np.where(fits, np.rint(wide), 0)
                                              .astype(np.int64), outside))
        assert_equal(to_numpy(rounded), np.where(fits, np.where(fits, ties_away, 0)
                                                 .astype(np.int64), outside))
    assert_equal(to_numpy(math_rint), np.rint(x))
