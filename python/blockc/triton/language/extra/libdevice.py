"""`libdevice`: CUDA's libdevice names (also `tl.extra.cuda.libdevice`,
`tl.extra.hip.libdevice`, `triton.language.extra.libdevice`).

Block IR's math ops are exp exp2 log log2 sqrt rsqrt sin cos tan tanh erf erfc
sigmoid floor ceil pow atan2 fma rem, the inverse and hyperbolic functions
(asin acos atan sinh cosh asinh acosh atanh), expm1 log1p log10 exp10 cbrt
lgamma and tgamma (SLEEF's, within 1 ulp; erfc 1.5); the others here are built
from them.
Where a composition could lose accuracy in the operand's own type, an f16,
bf16 or f32 operand is computed in f64 and rounded once at the end, so those
results are within about one ulp of the true value; the f64 formulas are
chosen to avoid cancellation and are within a few ulp (each function states
its bound). Rounding, classification, sign and integer-bit functions are exact.

A function that needs a primitive Block IR lacks (erfinv, the Bessel
functions, ...) is an error at the kernel's line naming it. Exponent and
bit-level functions (ldexp, logb, nextafter, byte_perm, ...) are in
libdevice_bits.py.
"""

import math as _pymath

from ..core import (exp, exp2, log, log2, sqrt, rsqrt, sin, cos, erf, floor, ceil, tanh,  # noqa: F401
                     pow, abs, fma, sigmoid, umulhi, _c)
from ..core import div_rn as div_rn, sqrt_rn as sqrt_rn  # noqa: F401
from ..core import maximum as max, minimum as min  # noqa: F401
from ..core import maximum as fmax, minimum as fmin  # noqa: F401
from ....frontend.dtypes import float32, float64, int16, int32, int64, uint32
from ....frontend.values import builtin, tensor

_INF = float("inf")
_NAN = float("nan")


# --- plumbing ----------------------------------------------------------------

def _floats(b, name, *values):
    """The operands as tensors of one float type (Triton's promotion)."""
    values = [_c(v) for v in values]
    if len(values) == 1:
        x = b.to_tensor(values[0])
        out = [x]
    else:
        x, y, _ = b._operands(values[0], values[1], what=f"libdevice.{name}")
        out = [x, y]
    for v in out:
        if not v.dtype.is_floating():
            raise TypeError(f"libdevice.{name} needs floating-point operands, got {v.dtype}")
    return out


def _ints(b, name, *values):
    values = [_c(v) for v in values]
    if len(values) == 1:
        out = [b.to_tensor(values[0])]
    else:
        x, y, _ = b._operands(values[0], values[1], what=f"libdevice.{name}")
        out = [x, y]
    for v in out:
        if v.dtype not in (int32, int64):
            raise TypeError(f"libdevice.{name} needs int32 or int64 operands, got {v.dtype}")
    return out


def _float_fn(name, arity=1, widen=True, f64=True):
    """A libdevice function built by `body(b, *operands)` in one float type:
    f64 for narrower operands when `widen`, rounded back at the end."""
    def wrap(body):
        @builtin
        def fn(*args, _builder=None):
            b = _builder
            if len(args) != arity:
                raise TypeError(f"libdevice.{name} takes {arity} argument(s), got {len(args)}")
            xs = _floats(b, name, *args)
            ty = xs[0].dtype
            if ty == float64 and not f64:
                raise ValueError(f"libdevice.{name} of fp64 is not supported yet: blockc builds "
                                 "it from f64 math, which is not accurate enough for an f64 "
                                 "result")
            if widen and ty != float64:
                result = body(b, *[b.cast(x, float64) for x in xs])
                return b.cast(result, ty) if result.dtype == float64 else result
            return body(b, *xs)
        fn.__name__ = name
        return fn
    return wrap


def _m(b, op, x):
    return b.op(f"{op} {x.handle}", x.dtype, x.shape)


def _bits_type(ty):
    return {16: int16, 32: int32, 64: int64}[ty.primitive_bitwidth]


def _bits(b, x):
    return b.cast(x, _bits_type(x.dtype), bitcast=True)


def _lshr(b, x, n):
    return b._binary("lshr", x, b.const(n, x.dtype), x.shape)


def _isnan(b, x):
    return b.compare("ne", x, x)


def _isinf(b, x):
    return b.compare("eq", _m(b, "abs", x), _INF)


def _copysign(b, x, y):
    """x's magnitude with y's sign, by their bits (exact for every value)."""
    ity = _bits_type(x.dtype)
    width = x.dtype.primitive_bitwidth
    sign = b.const(1 << (width - 1), ity)
    magnitude = b.const((1 << (width - 1)) - 1, ity)
    xb, yb = _bits(b, x), _bits(b, y)
    bits = b.bitwise("or", b.bitwise("and", xb, magnitude), b.bitwise("and", yb, sign))
    return b.cast(bits, x.dtype, bitcast=True)


def _exact_integer_limit(ty):
    # Floats at or beyond 2^mantissa are integers already.
    return float(2 ** ty.fp_mantissa_width)


def _trunc(b, x):
    return b.where(b.compare("lt", x, 0.0), _m(b, "ceil", x), _m(b, "floor", x))


def _rint(b, x):
    f = _m(b, "floor", x)
    d = b.sub(x, f)  # exact below 2^mantissa
    odd = b.compare("ne", b.sub(f, b.mul(_m(b, "floor", b.mul(f, 0.5)), 2.0)), 0.0)
    up = b.logical("or", b.compare("gt", d, 0.5),
                   b.logical("and", b.compare("eq", d, 0.5), odd))
    r = _copysign(b, b.where(up, b.add(f, 1.0), f), x)
    return b.where(b.compare("lt", _m(b, "abs", x), _exact_integer_limit(x.dtype)), r, x)


def _round(b, x):
    t = _trunc(b, x)
    away = b.compare("ge", _m(b, "abs", b.sub(x, t)), 0.5)
    r = _copysign(b, b.where(away, b.add(t, _copysign(b, b.full((), 1.0, x.dtype), x)), t), x)
    return b.where(b.compare("lt", _m(b, "abs", x), _exact_integer_limit(x.dtype)), r, x)


# --- exact: rounding, classification, sign -----------------------------------

@_float_fn("trunc", widen=False)
def trunc(b, x):
    return _trunc(b, x)


@_float_fn("rint", widen=False)
def rint(b, x):
    return _rint(b, x)


def _to_int64(b, r):
    """An integral float as int64, saturating as CUDA's conversions do (measured with
    Triton 3.6 on an H200): past 2^63 gives INT64_MAX, below -2^63 and NaN INT64_MIN."""
    limit = 2.0 ** 63
    fits = b.logical("and", b.compare("ge", r, -limit), b.compare("lt", r, limit))
    high = b.compare("ge", r, limit)
    saturated = b.where(high, b.full((), 2 ** 63 - 1, int64), b.full((), -2 ** 63, int64))
    return b.where(fits, b.cast(r, int64), saturated)


@builtin
def llrint(x, _builder=None):
    """x rounded to the nearest integer, ties to even, as int64."""
    (x,) = _floats(_builder, "llrint", x)
    return _to_int64(_builder, _rint(_builder, x))


@builtin
def llround(x, _builder=None):
    """x rounded to the nearest integer, ties away from zero, as int64."""
    (x,) = _floats(_builder, "llround", x)
    return _to_int64(_builder, _round(_builder, x))


@_float_fn("nearbyint", widen=False)
def nearbyint(b, x):
    return _rint(b, x)


@_float_fn("round", widen=False)
def round(b, x):  # noqa: A001
    return _round(b, x)


@_float_fn("copysign", 2, widen=False)
def copysign(b, x, y):
    return _copysign(b, x, y)


def _shape(x, y):
    from ....frontend.semantic import broadcast_shapes
    return broadcast_shapes(x.shape, y.shape)


@_float_fn("signbit", widen=False)
def signbit(b, x):
    return b.cast(_lshr(b, _bits(b, x), x.dtype.primitive_bitwidth - 1), int32)


@_float_fn("isnan", widen=False)
def isnan(b, x):
    return b.cast(_isnan(b, x), int32)


@_float_fn("isinf", widen=False)
def isinf(b, x):
    return b.cast(_isinf(b, x), int32)


@_float_fn("isfinited", widen=False)
def isfinited(b, x):
    return b.cast(b.compare("lt", _m(b, "abs", x), _INF), int32)


finitef = _float_fn("finitef", widen=False)(lambda b, x: b.cast(
    b.compare("lt", _m(b, "abs", x), _INF), int32))


@_float_fn("fmod", 2, widen=False)
def fmod(b, x, y):
    return b._binary("rem", x, y, _shape(x, y))


@_float_fn("remainder", 2, widen=False)
def remainder(b, x, y):
    # IEEE remainder: fmod by 2|y| (exact) gives the quotient's parity.
    shape = _shape(x, y)
    ax, a = _m(b, "abs", x), _m(b, "abs", y)
    r2 = b._binary("rem", ax, b.mul(a, 2.0), shape)
    odd = b.compare("ge", r2, a)
    r1 = b.where(odd, b.sub(r2, a), r2)
    half = b.mul(a, 0.5)
    past = b.logical("or", b.compare("gt", r1, half),
                     b.logical("and", b.compare("eq", r1, half), odd))
    r = b.where(past, b.sub(r1, a), r1)
    return b.mul(r, _copysign(b, b.full(shape, 1.0, x.dtype), x))


@_float_fn("fdim", 2, widen=False)
def fdim(b, x, y):
    r = b.where(b.compare("gt", x, y), b.sub(x, y), 0.0)
    return b.where(b.logical("or", _isnan(b, x), _isnan(b, y)), b.add(x, y), r)


@_float_fn("saturatef", widen=False)
def saturatef(b, x):
    # NaN gives 0, as CUDA's saturate does (Block IR's max returns the number).
    return b.minimum(b.maximum(x, 0.0), 1.0)


@_float_fn("rcp_rn", widen=False)
def rcp_rn(b, x):
    return b.truediv(1.0, x)


@_float_fn("fast_dividef", 2, widen=False)
def fast_dividef(b, x, y):
    return b.truediv(x, y)


for _name, _op in (("add_rn", "add"), ("sub_rn", "sub"), ("mul_rn", "mul")):
    globals()[_name] = _float_fn(_name, 2, widen=False)(
        (lambda op: lambda b, x, y: getattr(b, op)(x, y))(_op))


@builtin
def fma_rn(x, y, z, _builder=None):
    return _builder.fma(_c(x), _c(y), _c(z))


@builtin
def powi(x, y, _builder=None):
    (x,) = _floats(_builder, "powi", x)
    return _builder.pow(x, _builder.cast(_builder.to_tensor(_c(y)), x.dtype))


# --- Block IR's math ops: SLEEF's 1-ulp functions (erfc: 1.5 ulp) --------------

def _native(name, op=None, arity=1):
    op = op or name

    @builtin
    def fn(*args, _builder=None):
        if len(args) != arity:
            raise TypeError(f"libdevice.{name} takes {arity} argument(s), got {len(args)}")
        xs = _floats(_builder, name, *args)
        if arity == 1:
            return _builder.math(op, xs[0], f"libdevice.{name}")
        return _builder.op(f"{op} {xs[0].handle}, {xs[1].handle}", xs[0].dtype,
                           _shape(xs[0], xs[1]))
    fn.__name__ = name
    return fn


for _name in ("asin", "acos", "atan", "sinh", "cosh", "tan", "asinh", "acosh", "atanh", "expm1",
              "log1p", "log10", "exp10", "cbrt", "lgamma", "tgamma"):
    globals()[_name] = _native(_name)
atan2 = _native("atan2", arity=2)
# libm's Bessel functions (glibc's accuracy: within a few ULP of max(|result|, 1)).
for _name in ("j0", "j1", "y0", "y1"):
    globals()[_name] = _native(_name)


def _bessel_n(name):
    @builtin
    def fn(n, x, _builder=None):
        b = _builder
        (x,) = _floats(b, name, x)
        n = b.to_tensor(_c(n))
        if not n.dtype.is_int() or n.dtype.is_int1():
            raise TypeError(f"libdevice.{name}: the order n must be an integer, got {n.dtype}")
        # Block IR takes the order as an integral float of x's type.
        order = b.cast(b.cast(n, int32), x.dtype)
        return b.op(f"{name} {order.handle}, {x.handle}", x.dtype, _shape(order, x))
    fn.__name__ = name
    return fn


jn = _bessel_n("jn")
yn = _bessel_n("yn")




@builtin
def rcbrt(x, _builder=None):
    return _builder.truediv(1.0, cbrt(x, _builder=_builder))


# --- composed, with a stated accuracy -------------------------------------------
# f16/bf16/f32: computed in f64 (within 1 ulp after rounding). f64: the bound
# given in each function's comment.

@_float_fn("hypot", 2)
def hypot(b, x, y):  # f64: 2 ulp
    ax, ay = _m(b, "abs", x), _m(b, "abs", y)
    # Scaled by the larger operand so that nothing overflows or underflows.
    big, small = b.maximum(ax, ay), b.minimum(ax, ay)
    t = b.truediv(small, big)
    r = b.mul(big, _m(b, "sqrt", b.fma(t, t, 1.0)))
    r = b.where(b.compare("eq", big, 0.0), 0.0, r)
    r = b.where(b.logical("or", _isnan(b, x), _isnan(b, y)), b.add(x, y), r)
    return b.where(b.logical("or", _isinf(b, x), _isinf(b, y)), _INF, r)


def _sinpi_reduced(b, s):
    return _m(b, "sin", b.mul(s, _pymath.pi))


@_float_fn("sinpi")
def sinpi(b, x):  # f64: 2 ulp
    r = b.sub(x, b.mul(_rint(b, b.mul(x, 0.5)), 2.0))  # exact, in [-1, 1]
    s = b.where(b.compare("gt", _m(b, "abs", r), 0.5),
                b.sub(_copysign(b, b.full(r.shape, 1.0, r.dtype), r), r), r)
    v = _sinpi_reduced(b, s)
    return b.where(b.compare("eq", v, 0.0), b.mul(x, 0.0), v)


@_float_fn("cospi")
def cospi(b, x):  # f64: 2 ulp
    r = b.sub(x, b.mul(_rint(b, b.mul(x, 0.5)), 2.0))
    v = _sinpi_reduced(b, b.sub(0.5, _m(b, "abs", r)))
    return b.where(_isinf(b, x), b.sub(x, x), v)


@builtin
def erfc(x, _builder=None):
    # f64: SLEEF's erfc (1.5 ulp); narrower types: the fit below in f64, rounded
    # once, which is closer than SLEEF's 1.5 ulp in their own type.
    (x,) = _floats(_builder, "erfc", x)
    if x.dtype == float64:
        return _builder.math("erfc", x, "libdevice.erfc")
    return _builder.cast(_erfc(_builder, _builder.cast(x, float64)), x.dtype)


def _erfc(b, x):
    # 1 - erf(x) where no cancellation, else a Chebyshev fit of
    # erfc(z) = t * exp(-z^2 + P(t)), t = 1 / (1 + z/2), whose relative error
    # is below 1.2e-7 for every z >= 0.
    z = _m(b, "abs", x)
    t = b.truediv(1.0, b.add(b.mul(z, 0.5), 1.0))
    poly = 0.17087277
    for c in (-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418,
              0.37409196, 1.00002368, -1.26551223):
        poly = b.add(b.mul(t, poly), c)
    fit = b.mul(t, _m(b, "exp", b.add(b.minus(b.mul(z, z)), poly)))
    fit = b.where(b.compare("lt", x, 0.0), b.sub(2.0, fit), fit)
    near = b.sub(1.0, _m(b, "erf", x))
    return b.where(b.compare("lt", z, 0.5), near, fit)


@builtin
def normcdf(x, _builder=None):  # erfc(-x / sqrt(2)) / 2, as erfc
    b = _builder
    (x,) = _floats(b, "normcdf", x)
    if x.dtype == float64:
        # z = -x/sqrt(2) is rounded before erfc, whose tail amplifies that by
        # about 2 z^2: deep in the tail (x < -8) the result is within
        # 2 z^2 + 2 ulp, as the formula computed in f64 anywhere.
        return b.mul(b.math("erfc", b.truediv(x, -_pymath.sqrt(2.0)), "libdevice.normcdf"), 0.5)
    wide = b.cast(x, float64)
    return b.cast(b.mul(_erfc(b, b.mul(wide, -1.0 / _pymath.sqrt(2.0))), 0.5), x.dtype)


# The fast_* functions are CUDA's approximations; these are the accurate ones.
fast_expf = exp
fast_logf = log
fast_log2f = log2
fast_sinf = sin
fast_cosf = cos
fast_tanf = tan
fast_exp10f = exp10
fast_log10f = log10
fast_powf = pow


# --- integers -------------------------------------------------------------------

def _int_fn(name, arity=1):
    def wrap(body):
        @builtin
        def fn(*args, _builder=None):
            if len(args) != arity:
                raise TypeError(f"libdevice.{name} takes {arity} argument(s), got {len(args)}")
            return body(_builder, *_ints(_builder, name, *args))
        fn.__name__ = name
        return fn
    return wrap


def _popc(b, x):
    # SWAR population count, in x's own width.
    if x.dtype == int32:
        m1, m2, m4, h01, top = 0x55555555, 0x33333333, 0x0F0F0F0F, 0x01010101, 24
    else:
        m1, m2, m4, h01, top = (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F,
                                0x0101010101010101, 56)
    ty = x.dtype

    def c(v):
        return b.const(v, ty)
    x = b.sub(x, b.bitwise("and", _lshr(b, x, 1), c(m1)))
    x = b.add(b.bitwise("and", x, c(m2)), b.bitwise("and", _lshr(b, x, 2), c(m2)))
    x = b.bitwise("and", b.add(x, _lshr(b, x, 4)), c(m4))
    return b.cast(_lshr(b, b.mul(x, c(h01)), top), int32)


@_int_fn("popc")
def popc(b, x):
    return _popc(b, x)


@_int_fn("clz")
def clz(b, x):
    width = x.dtype.primitive_bitwidth
    shift = 1
    while shift < width:
        x = b.bitwise("or", x, _lshr(b, x, shift))
        shift *= 2
    return _popc(b, b.invert(x))


@_int_fn("ffs")
def ffs(b, x):
    # The lowest set bit's 1-based index: the ones of x ^ (x - 1).
    count = _popc(b, b.bitwise("xor", x, b.sub(x, b.const(1, x.dtype))))
    return b.where(b.compare("eq", x, b.const(0, x.dtype)), b.const(0, int32), count)


@_int_fn("brev")
def brev(b, x):
    width = x.dtype.primitive_bitwidth
    ty = x.dtype
    full = (1 << width) - 1
    shift = width // 2
    while shift >= 1:
        # Swap adjacent fields of `shift` bits.
        low = 0
        for start in range(0, width, 2 * shift):
            low |= ((1 << shift) - 1) << start
        high = full ^ low
        x = b.bitwise("or", _lshr(b, b.bitwise("and", x, b.const(high, ty)), shift),
                      b.shift("shl", b.bitwise("and", x, b.const(low, ty)), b.const(shift, ty)))
        shift //= 2
    return x


@_int_fn("mulhi", 2)
def mulhi(b, x, y):
    # Signed high half: the unsigned one corrected for the operands' signs.
    high = b.umulhi(x, y)
    zero = b.const(0, x.dtype)
    high = b.sub(high, b.where(b.compare("lt", x, zero), y, zero))
    return b.sub(high, b.where(b.compare("lt", y, zero), x, zero))


mul64hi = mulhi
umul64hi = umulhi


@_int_fn("hadd", 2)
def hadd(b, x, y):
    return b.add(b.bitwise("and", x, y), b.shift("shr", b.bitwise("xor", x, y), 1))


@_int_fn("rhadd", 2)
def rhadd(b, x, y):
    return b.sub(b.bitwise("or", x, y), b.shift("shr", b.bitwise("xor", x, y), 1))


@_int_fn("uhadd", 2)
def uhadd(b, x, y):
    return b.add(b.bitwise("and", x, y), _lshr(b, b.bitwise("xor", x, y), 1))


@_int_fn("urhadd", 2)
def urhadd(b, x, y):
    return b.sub(b.bitwise("or", x, y), _lshr(b, b.bitwise("xor", x, y), 1))


def _reinterpret(name, source, target):
    @builtin
    def fn(x, _builder=None):
        x = _builder.to_tensor(_c(x))
        if x.dtype != source:
            raise TypeError(f"libdevice.{name} needs {source}, got {x.dtype}")
        return _builder.cast(x, target, bitcast=True)
    fn.__name__ = name
    return fn


int_as_float = _reinterpret("int_as_float", int32, float32)
float_as_int = _reinterpret("float_as_int", float32, int32)
longlong_as_double = _reinterpret("longlong_as_double", int64, float64)
double_as_longlong = _reinterpret("double_as_longlong", float64, int64)
uint_as_float = _reinterpret("uint_as_float", uint32, float32)
float_as_uint = _reinterpret("float_as_uint", float32, uint32)


# --- not expressible yet ----------------------------------------------------------

def _unsupported(name, why):
    def fn(*args, **kwargs):
        raise RuntimeError(f"libdevice.{name} can only be used inside a @triton.jit function "
                           f"(and blockc does not support it yet: {why})")
    fn.__name__ = name
    fn.__blockc_unsupported__ = f"libdevice.{name} is not supported yet: {why}"
    return fn


_NEEDS_PRIMITIVE = "it needs a math primitive Block IR does not have"
_TWO_RESULTS = "CUDA gives its second result through a pointer, which a kernel cannot pass"
_DIRECTED = "Block IR rounds to nearest even only"
UNSUPPORTED = {
    **{n: _NEEDS_PRIMITIVE for n in (
        "erfinv", "erfcinv", "erfcx", "normcdfinv", "cyl_bessel_i0", "cyl_bessel_i1")},
    **{n: _TWO_RESULTS for n in ("frexp", "modf", "sincos", "sincospi")},
    **{f"{op}_{mode}": _DIRECTED for op in ("div", "rcp", "sqrt", "add", "sub", "mul", "fma")
       for mode in ("rz", "rd", "ru")},
}
from .libdevice_bits import (ldexp, scalbn, logb, ilogb, nextafter, tanpi, fast_tanhf,  # noqa: E402,F401
                             rsqrt_rn, mul24, umul24, sad, usad, byte_perm, double2hiint,
                             double2loint, hiloint2double)

for _name, _why in UNSUPPORTED.items():
    if _name not in globals():
        globals()[_name] = _unsupported(_name, _why)
