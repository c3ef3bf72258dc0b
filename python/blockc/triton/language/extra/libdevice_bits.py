"""libdevice functions built from exponent and bit manipulation: ldexp and scalbn,
logb and ilogb, nextafter, the 24-bit and byte-level integer functions, and the f64
word conversions; also tanpi, fast_tanhf and rsqrt_rn. Exact unless a function's
comment states its accuracy. Imported into `libdevice`, whose plumbing this shares."""

from ....frontend.dtypes import float64, int32, int64, uint32
from ....frontend.values import builtin
from ..core import _c
from .libdevice import (_INF, _bits, _copysign, _float_fn, _floats, _ints, _isinf, _isnan,
                        _lshr, _m, cospi, sinpi, tanh)


def _pow2(b, n):
    """2^n as f64 for int32 `n` in [-1022, 1023]: its bits, built directly."""
    biased = b.cast(b.add(n, 1023), int64)
    return b.cast(b.shift("shl", biased, b.const(52, int64)), float64, bitcast=True)


def _scale(b, x, n):
    """x * 2^n in f64, rounded once: the scale is applied in steps that stay
    exact until the last, as C libraries' scalbn does."""
    n = b.minimum(b.maximum(n, -2200), 2200)
    for _ in range(2):
        big = b.compare("gt", n, 1023)
        x = b.where(big, b.mul(x, 2.0 ** 1023), x)
        n = b.where(big, b.sub(n, 1023), n)
        small = b.compare("lt", n, -1022)
        # 2^(-1022 + 53): the product stays normal, so it is exact.
        x = b.where(small, b.mul(x, 2.0 ** -969), x)
        n = b.where(small, b.add(n, 969), n)
    n = b.minimum(b.maximum(n, -1022), 1023)
    return b.mul(x, _pow2(b, n))


def _scaling_fn(name):
    @builtin
    def fn(x, n, _builder=None):
        b = _builder
        (x,) = _floats(b, name, x)
        n = b.to_tensor(_c(n))
        if not n.dtype.is_int() or n.dtype.is_int1():
            raise TypeError(f"libdevice.{name} scales by an integer power of two, got {n.dtype}")
        if n.dtype.primitive_bitwidth == 64:  # past +-4096 every result is 0 or inf
            n = b.minimum(b.maximum(n, -4096), 4096)
        n = b.cast(n, int32)
        result = _scale(b, b.cast(x, float64), n)
        return b.cast(result, x.dtype) if x.dtype != float64 else result
    fn.__name__ = name
    return fn


ldexp = _scaling_fn("ldexp")
scalbn = _scaling_fn("scalbn")


def _exponent(b, x):
    """floor(log2(|x|)) of finite nonzero f64 `x`, as int32: the exponent field,
    after scaling a subnormal into the normal range."""
    # A constant of x's type: compare() would make a Python float an f32 (0 here).
    tiny = b.compare("lt", _m(b, "abs", x), b.const(2.0 ** -1022, float64))
    scaled = b.where(tiny, b.mul(x, 2.0 ** 54), x)
    field = b.bitwise("and", _lshr(b, _bits(b, scaled), 52), b.const(0x7FF, int64))
    exponent = b.sub(b.cast(field, int32), 1023)
    return b.where(tiny, b.sub(exponent, 54), exponent)


@_float_fn("logb")
def logb(b, x):
    # Narrower types widen to f64 exactly: their subnormals are f64 normals.
    r = b.cast(_exponent(b, x), float64)
    r = b.where(b.compare("eq", x, 0.0), -_INF, r)
    r = b.where(_isinf(b, x), _INF, r)
    return b.where(_isnan(b, x), x, r)


@builtin
def ilogb(x, _builder=None):
    b = _builder
    (x,) = _floats(b, "ilogb", x)
    wide = b.cast(x, float64)
    r = _exponent(b, wide)
    # CUDA's answers: INT_MIN for 0 and NaN, INT_MAX for infinity.
    r = b.where(b.logical("or", b.compare("eq", wide, 0.0), _isnan(b, wide)),
                b.const(-2 ** 31, int32), r)
    return b.where(_isinf(b, wide), b.const(2 ** 31 - 1, int32), r)


@_float_fn("nextafter", 2, widen=False)
def nextafter(b, x, y):
    # In the operand's own type: its bit pattern moves by one toward y.
    bits = _bits(b, x)
    ity = bits.dtype
    one = b.const(1, ity)
    away_from_zero = b.compare("eq", b.compare("lt", x, y), b.compare("gt", x, 0.0))
    moved = b.cast(b.where(away_from_zero, b.add(bits, one), b.sub(bits, one)), x.dtype,
                   bitcast=True)
    smallest = _copysign(b, b.cast(b.full(moved.shape, 1, ity), x.dtype, bitcast=True), y)
    r = b.where(b.compare("eq", x, 0.0), smallest, moved)
    r = b.where(b.compare("eq", x, y), y, r)
    return b.where(b.logical("or", _isnan(b, x), _isnan(b, y)), b.add(x, y), r)


@builtin
def tanpi(x, _builder=None):  # f64: 5 ulp (sinpi over cospi); narrower types: 1 ulp
    b = _builder
    (x,) = _floats(b, "tanpi", x)
    wide = b.cast(x, float64)
    r = b.truediv(sinpi(wide, _builder=b), cospi(wide, _builder=b))
    return b.cast(r, x.dtype) if x.dtype != float64 else r


fast_tanhf = tanh  # CUDA's approximation; this is the accurate one


@builtin
def rsqrt_rn(x, _builder=None):
    # 1/sqrt(x) in f64 (within an f64 ulp), rounded once: the correctly
    # rounded result but for inputs within 2^-29 ulp of a rounding tie.
    b = _builder
    (x,) = _floats(b, "rsqrt_rn", x)
    if x.dtype == float64:
        raise ValueError("libdevice.rsqrt_rn of fp64 is not supported yet: blockc computes it "
                         "in f64, which cannot round an f64 result correctly")
    wide = b.cast(x, float64)
    return b.cast(b.truediv(1.0, _m(b, "sqrt", wide)), x.dtype)


# --- integers ---------------------------------------------------------------------

def _low24(b, x, signed):
    if signed:  # sign-extend bit 23
        return b.shift("shr", b.shift("shl", x, b.const(8, int32)), b.const(8, int32))
    return b.bitwise("and", x, b.const(0xFFFFFF, int32))


@builtin
def mul24(x, y, _builder=None):
    b = _builder
    x, y = _ints(b, "mul24", x, y)
    return b.mul(_low24(b, b.cast(x, int32), True), _low24(b, b.cast(y, int32), True))


@builtin
def umul24(x, y, _builder=None):
    b = _builder
    x, y = _ints(b, "umul24", x, y)
    return b.mul(_low24(b, b.cast(x, int32), False), _low24(b, b.cast(y, int32), False))


def _absolute_difference(b, x, y):
    # compare() orders unsigned types as unsigned.
    return b.where(b.compare("gt", x, y), b.sub(x, y), b.sub(y, x))


@builtin
def sad(x, y, z, _builder=None):  # |x - y| + z, wrapping as CUDA's unsigned sum does
    b = _builder
    x, y = _ints(b, "sad", x, y)
    return b.add(_absolute_difference(b, x, y), b.to_tensor(_c(z), x.dtype))


@builtin
def usad(x, y, z, _builder=None):
    b = _builder
    x, y = (b.cast(b.to_tensor(_c(v)), uint32) for v in (x, y))
    return b.add(_absolute_difference(b, x, y), b.to_tensor(_c(z), uint32))


@builtin
def byte_perm(x, y, selector, _builder=None):
    # Byte i of the result is byte (selector >> 4i) & 7 of the 8 bytes y:x.
    b = _builder
    x, y, s = (b.cast(b.to_tensor(_c(v)), uint32) for v in (x, y, selector))
    wide = b.bitwise("or", b.shift("shl", b.cast(y, int64), b.const(32, int64)),
                     b.cast(x, int64))
    result = b.const(0, int64)
    for i in range(4):
        pick = b.bitwise("and", b.cast(_lshr(b, s, 4 * i), int64), b.const(7, int64))
        shifted = b._binary("lshr", wide, b.mul(pick, b.const(8, int64)), pick.shape)
        byte = b.bitwise("and", shifted, b.const(0xFF, int64))
        result = b.bitwise("or", result, b.shift("shl", byte, b.const(8 * i, int64)))
    return b.cast(result, int32)


@builtin
def double2hiint(x, _builder=None):
    b = _builder
    (x,) = _floats(b, "double2hiint", x)
    return b.cast(b.shift("shr", _bits(b, b.cast(x, float64)), b.const(32, int64)), int32)


@builtin
def double2loint(x, _builder=None):
    b = _builder
    (x,) = _floats(b, "double2loint", x)
    return b.cast(_bits(b, b.cast(x, float64)), int32)


@builtin
def hiloint2double(hi, lo, _builder=None):
    b = _builder
    hi, lo = (b.cast(b.to_tensor(_c(v)), int32) for v in (hi, lo))
    bits = b.bitwise("or", b.shift("shl", b.cast(hi, int64), b.const(32, int64)),
                     b.bitwise("and", b.cast(lo, int64), b.const(0xFFFFFFFF, int64)))
    return b.cast(bits, float64, bitcast=True)
