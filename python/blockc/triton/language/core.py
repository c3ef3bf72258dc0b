"""`triton.language`: the functions a kernel calls, with Triton's signatures.

Each is a builtin: the translator calls it with `_builder=`, and it hands its
arguments, constexprs unwrapped, to the Builder (frontend/semantic.py), which
applies Triton's typing rules and writes Block IR. The functions Block IR has
no counterpart for exist too, so that a kernel calling one gets an error that
names it rather than an AttributeError.
"""

import operator

from ...frontend import dtypes as _dtypes
from ...frontend.dtypes import (dtype, pointer_type, block_type, int1, int8, int16, int32, int64,
                                uint8, uint16, uint32, uint64, float16, bfloat16, float32,
                                float64, float8e4nv, float8e5, float8e4b15, float8e4b8,
                                float8e5b16, void)
from ...frontend.values import tensor, builtin, block_pointer, tensor_descriptor

bool_ = int1  # noqa: A001  (Triton's spelling is `tl.int1`; some code says tl.bool)
pi32_t = pointer_type(int32)


def get_int_dtype(bitwidth, signed):
    """Triton's: the integer dtype of a width and signedness."""
    for t in (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64):
        if t.primitive_bitwidth == bitwidth and (bitwidth == 1 or t.is_int_signed() == signed):
            return t
    raise ValueError(f"Unsupported bitwidth {bitwidth} and signedness {signed}")


class constexpr:
    """Marks a compile-time parameter (`BLOCK: tl.constexpr`) and wraps a
    compile-time value (`tl.constexpr(3)`, also inside a kernel); the
    translator sees through the wrapper. Host code may compute with one as
    Triton allows: operators give constexprs again."""

    __blockc_constexpr__ = True

    def __init__(self, value):
        while isinstance(value, constexpr):
            value = value.value
        self.value = value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return self.value.__index__()

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == _c(other)

    def __ne__(self, other):
        return self.value != _c(other)

    def __hash__(self):
        return hash(self.value)

    def __iter__(self):
        return iter(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getitem__(self, index):
        return self.value[_c(index)]

    def logical_and(self, other):
        return constexpr(self.value and _c(other))

    def logical_or(self, other):
        return constexpr(self.value or _c(other))


def _constexpr_operator(name, reflected=False, unary=False):
    op = getattr(operator, name)
    if unary:
        def method(self):
            return constexpr(op(self.value))
    elif reflected:
        def method(self, other):
            return constexpr(op(_c(other), self.value))
    else:
        def method(self, other):
            return constexpr(op(self.value, _c(other)))
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
              "lshift", "rshift", "lt", "le", "gt", "ge"):
    _op = _name + "_" if _name in ("and", "or") else _name
    setattr(constexpr, f"__{_name}__", _constexpr_operator(_op))
    if _name not in ("lt", "le", "gt", "ge"):
        setattr(constexpr, f"__r{_name}__", _constexpr_operator(_op, reflected=True))
for _name in ("neg", "pos", "invert"):
    setattr(constexpr, f"__{_name}__", _constexpr_operator(_name, unary=True))

CONSTEXPR_0 = constexpr(0)


class PropagateNan:
    NONE = "NONE"
    ALL = "ALL"


class range:  # noqa: A001  (tl.range is Triton's name)
    """`for i in tl.range(lo, hi, step, num_stages=...)`: a loop; the GPU
    pipelining hints are accepted and left to the CPU compiler."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tl.range can only be used in a for loop of a @triton.jit function")


class static_range:
    """`for i in tl.static_range(N)`: unrolled while translating; `i` is a
    constexpr in each copy of the body."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tl.static_range can only be used in a for loop of a @triton.jit "
                           "function")


def _c(value):
    while isinstance(value, constexpr):
        value = value.value
    return value


def _shape(shape):
    shape = _c(shape)
    if isinstance(shape, int):
        return (shape,)
    return tuple(_c(d) for d in shape)


def _axis(axis):
    axis = _c(axis)
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise ValueError(f"reductions over several axes at once ({axis}): reduce one at a "
                             "time")
        axis = _c(axis[0])
    return axis


# --- programs, constants, shapes --------------------------------------------

@builtin
def program_id(axis, _builder=None):
    return _builder.program_id(_c(axis))


@builtin
def num_programs(axis, _builder=None):
    return _builder.num_programs(_c(axis))


@builtin
def arange(start, end, _builder=None):
    return _builder.arange(_c(start), _c(end))


@builtin
def zeros(shape, dtype, _builder=None):
    return _builder.full(_shape(shape), 0, _c(dtype))


@builtin
def zeros_like(input, _builder=None):
    return _builder.full(input.shape, 0, input.dtype)


@builtin
def full(shape, value, dtype, _builder=None):
    return _builder.full(_shape(shape), _c(value), _c(dtype))


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _builder=None):
    return _builder.cast(input, _c(dtype), _c(bitcast), _c(fp_downcast_rounding))


@builtin
def broadcast(input, other, _builder=None):
    shape = _builder.to_tensor(input).shape
    from ...frontend.semantic import broadcast_shapes
    shape = broadcast_shapes(shape, _builder.to_tensor(other).shape)
    return _builder.broadcast_to(input, shape), _builder.broadcast_to(other, shape)


@builtin
def broadcast_to(input, *shape, _builder=None):
    if len(shape) == 1 and isinstance(_c(shape[0]), (tuple, list)):
        shape = _c(shape[0])
    return _builder.broadcast_to(input, _shape(shape))


@builtin
def expand_dims(input, axis, _builder=None):
    axis = _c(axis)
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    rank = len(_builder.to_tensor(input).shape) + len(axes)
    for a in sorted(_c(a) % rank for a in axes):
        input = _builder.expand_dims(input, a)
    return input


@builtin
def reshape(input, *shape, can_reorder=False, _builder=None):
    if len(shape) == 1 and isinstance(_c(shape[0]), (tuple, list)):
        shape = _c(shape[0])
    return _builder.reshape(input, _shape(shape))


view = reshape


@builtin
def ravel(input, can_reorder=False, _builder=None):
    return _builder.reshape(input, (_builder.to_tensor(input).numel,))


@builtin
def permute(input, *dims, _builder=None):
    if len(dims) == 1 and isinstance(_c(dims[0]), (tuple, list)):
        dims = _c(dims[0])
    return _builder.permute(input, _shape(dims))


@builtin
def trans(input, *dims, _builder=None):
    if len(dims) == 1 and isinstance(_c(dims[0]), (tuple, list)):
        dims = _c(dims[0])
    if not dims:
        dims = (1, 0)
    return _builder.permute(input, _shape(dims))


# --- memory -----------------------------------------------------------------

@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False, _builder=None):
    # Cache and eviction hints are GPU memory-hierarchy advice; `volatile`
    # is semantics.
    return _builder.load(pointer, _c(mask), _c(other), _c(boundary_check) or (),
                         _c(padding_option) or "", bool(_c(volatile)))


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
          _builder=None):
    return _builder.store(pointer, _c(value), _c(mask), _c(boundary_check) or ())


@builtin
def to_tensor(x, _builder=None):
    return _builder.to_tensor(_c(x))


@builtin
def atomic_add(pointer, val, mask=None, sem=None, scope=None, _builder=None):
    return _builder.atomic("add", pointer, [_c(val)], _c(mask), _c(sem), _c(scope))


@builtin
def atomic_max(pointer, val, mask=None, sem=None, scope=None, _builder=None):
    return _builder.atomic("max", pointer, [_c(val)], _c(mask), _c(sem), _c(scope))


@builtin
def atomic_min(pointer, val, mask=None, sem=None, scope=None, _builder=None):
    return _builder.atomic("min", pointer, [_c(val)], _c(mask), _c(sem), _c(scope))


@builtin
def atomic_and(pointer, val, mask=None, sem=None, scope=None, _builder=None):
    return _builder.atomic("and", pointer, [_c(val)], _c(mask), _c(sem), _c(scope))


@builtin
def atomic_or(pointer, val, mask=None, sem=None, scope=None, _builder=None):
    return _builder.atomic("or", pointer, [_c(val)], _c(mask), _c(sem), _c(scope))


@builtin
def atomic_xor(pointer, val, mask=None, sem=None, scope=None, _builder=None):
    return _builder.atomic("xor", pointer, [_c(val)], _c(mask), _c(sem), _c(scope))


@builtin
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None, _builder=None):
    return _builder.atomic("xchg", pointer, [_c(val)], _c(mask), _c(sem), _c(scope))


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _builder=None):
    return _builder.atomic("cas", pointer, [_c(cmp), _c(val)], None, _c(sem), _c(scope))


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order, _builder=None):
    return _builder.make_block_ptr(base, [_c(s) for s in shape], [_c(s) for s in strides],
                                   [_c(o) for o in offsets], _shape(block_shape), _shape(order))


@builtin
def advance(base, offsets, _builder=None):
    return _builder.advance(base, [_c(o) for o in offsets])


# --- arithmetic -------------------------------------------------------------

@builtin
def where(condition, x, y, _builder=None):
    return _builder.where(condition, _c(x), _c(y))


@builtin
def minimum(x, y, propagate_nan=PropagateNan.NONE, _builder=None):
    return _builder.minimum(_c(x), _c(y), _c(propagate_nan))


@builtin
def maximum(x, y, propagate_nan=PropagateNan.NONE, _builder=None):
    return _builder.maximum(_c(x), _c(y), _c(propagate_nan))


@builtin
def clamp(x, min, max, propagate_nan=PropagateNan.NONE, _builder=None):
    return _builder.clamp(_c(x), _c(min), _c(max), _c(propagate_nan))


@builtin
def fma(x, y, z, _builder=None):
    return _builder.fma(_c(x), _c(y), _c(z))


@builtin
def cdiv(x, div, _builder=None):
    x, div = _c(x), _c(div)
    if not isinstance(x, tensor) and not isinstance(div, tensor):
        return (x + div - 1) // div
    return _builder.cdiv(x, div)


@builtin
def abs(x, _builder=None):  # noqa: A001
    return _builder.abs(_c(x))


@builtin
def fdiv(x, y, ieee_rounding=False, _builder=None):
    return _builder.truediv(_c(x), _c(y))


@builtin
def div_rn(x, y, _builder=None):
    return _builder.truediv(_c(x), _c(y))


def _math(op):
    @builtin
    def fn(x, _builder=None):
        return _builder.math(op, _c(x), f"tl.{fn.__name__}")
    return fn


exp = _math("exp")
exp.__name__ = "exp"
exp2 = _math("exp2")
exp2.__name__ = "exp2"
log = _math("log")
log.__name__ = "log"
log2 = _math("log2")
log2.__name__ = "log2"
sqrt = _math("sqrt")
sqrt.__name__ = "sqrt"
sqrt_rn = _math("sqrt")
sqrt_rn.__name__ = "sqrt_rn"
rsqrt = _math("rsqrt")
rsqrt.__name__ = "rsqrt"
sin = _math("sin")
sin.__name__ = "sin"
cos = _math("cos")
cos.__name__ = "cos"
erf = _math("erf")
erf.__name__ = "erf"
floor = _math("floor")
floor.__name__ = "floor"
ceil = _math("ceil")
ceil.__name__ = "ceil"
sigmoid = _math("sigmoid")
sigmoid.__name__ = "sigmoid"
tanh = _math("tanh")
tanh.__name__ = "tanh"


@builtin
def pow(x, y, _builder=None):  # noqa: A001
    return _builder.pow(_c(x), _c(y))


# --- reductions and dot -----------------------------------------------------

@builtin
def sum(input, axis=None, keep_dims=False, dtype=None, _builder=None):  # noqa: A001
    return _builder.sum(input, _axis(axis), _c(keep_dims), _c(dtype))


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True,  # noqa: A001
        keep_dims=False, _builder=None):
    return _builder.max(input, _axis(axis), _c(return_indices),
                        _c(return_indices_tie_break_left), _c(keep_dims))


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True,  # noqa: A001
        keep_dims=False, _builder=None):
    return _builder.min(input, _axis(axis), _c(return_indices),
                        _c(return_indices_tie_break_left), _c(keep_dims))


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False, _builder=None):
    return _builder.arg_extreme("max", input, _axis(axis), _c(tie_break_left), _c(keep_dims))


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False, _builder=None):
    return _builder.arg_extreme("min", input, _axis(axis), _c(tie_break_left), _c(keep_dims))


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=float32, trans_a=False, trans_b=False,
        _builder=None):
    # input_precision ("tf32", "ieee", ...): Block IR multiplies f32 in full
    # precision, which every precision Triton offers is allowed to be.
    # trans_a and trans_b are Triton 2.0's (flash-attention's flash_attn_triton.py); later
    # Tritons transpose with tl.trans. As keywords only: 2.0's third parameter was trans_a.
    if _c(trans_a):
        input = _builder.permute(input, (1, 0))
    if _c(trans_b):
        other = _builder.permute(other, (1, 0))
    return _builder.dot(input, other, _c(acc), _c(out_dtype))


@builtin
def umulhi(x, y, _builder=None):
    """The high half of the 2N-bit product of x and y read as unsigned
    N-bit integers (int32, int64), as the GPU's mul.hi.u32/u64."""
    return _builder.umulhi(_c(x), _c(y))


# --- compile-time and hints -------------------------------------------------


@builtin
def debug_barrier(_builder=None):
    # One program is one CPU task whose ops run in program order, and its
    # blocks live in its own registers and stack: there are no threads of a
    # program to synchronise, so the barrier has nothing to wait for.
    return None

@builtin
def static_assert(cond, msg="", _builder=None):
    if not _c(cond):
        raise AssertionError(f"static_assert failed: {_c(msg)}" if _c(msg) else
                             "static_assert failed")


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False, _builder=None):
    print(*[_c(v) for v in values], sep=sep, end=end, file=file, flush=flush)


def _hint(name):
    @builtin
    def fn(input, values=None, _builder=None):
        # Alignment and contiguity hints: blockc's own analyses find these.
        return input
    fn.__name__ = name
    return fn


multiple_of = _hint("multiple_of")
max_contiguous = _hint("max_contiguous")
max_constancy = _hint("max_constancy")
assume = _hint("assume")


def _missing(name, why):
    def fn(*args, **kwargs):
        raise RuntimeError(f"tl.{name} can only be used inside a @triton.jit function "
                           f"(and blockc does not support it: {why})")
    fn.__name__ = name
    fn.__blockc_unsupported__ = f"tl.{name}: {why}"
    return fn


@builtin
def reduce(input, axis, combine_fn, keep_dims=False, _builder=None):
    return _builder.combining("reduce", _c(input), _axis(axis), combine_fn, _c(keep_dims))


@builtin
def associative_scan(input, axis, combine_fn, reverse=False, _builder=None):
    return _builder.combining("scan", _c(input), _axis(axis), combine_fn, reverse=_c(reverse))


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None, _builder=None):
    return _builder.scan_builtin("sum", input, _axis(axis), _c(reverse), _c(dtype))


@builtin
def cumprod(input, axis=0, reverse=False, _builder=None):
    return _builder.scan_builtin("prod", input, _axis(axis), _c(reverse))


@builtin
def xor_sum(input, axis=None, keep_dims=False, _builder=None):
    x = _builder.to_tensor(input)
    if not x.dtype.is_int():
        raise TypeError(f"tl.xor_sum needs integers, got {x.dtype}")
    return _builder.combining("reduce", x, _axis(axis),
                              lambda a, b: _builder.bitwise("xor", a, b), _c(keep_dims))


@builtin
def join(a, b, _builder=None):
    return _builder.join(_c(a), _c(b))


@builtin
def split(a, _builder=None):
    return _builder.split(a)


@builtin
def interleave(a, b, _builder=None):
    return _builder.interleave(_c(a), _c(b))


@builtin
def cat(input, other, can_reorder=False, _builder=None):
    return _builder.cat(input, other, _c(can_reorder))


@builtin
def sort(x, dim=None, descending=False, _builder=None):
    return _builder.sort(x, _c(dim), _c(descending))


flip = _missing("flip", "Block IR has no flip yet")
@builtin
def histogram(input, num_bins, mask=None, _builder=None):
    return _builder.histogram(input, _c(num_bins), _c(mask))


@builtin
def gather(src, index, axis, _builder=None):
    return _builder.gather(src, index, _c(axis))
@builtin
def device_print(prefix, *args, hex=False, _builder=None):
    return _builder.device_print(_c(prefix), [_c(a) for a in args], _c(hex))
@builtin
def device_assert(cond, msg="", _builder=None):
    return _builder.device_assert(_c(cond), _c(msg))


inline_asm_elementwise = _missing("inline_asm_elementwise", "Block IR has no inline assembly")
@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, _builder=None):
    return _builder.make_tensor_descriptor(base, [_c(s) for s in shape], [_c(s) for s in strides],
                                           _shape(block_shape))


@builtin
def load_tensor_descriptor(desc, offsets, _builder=None):
    return _builder.descriptor_load(desc, [_c(o) for o in offsets])


@builtin
def store_tensor_descriptor(desc, offsets, value, _builder=None):
    return _builder.descriptor_store(desc, [_c(o) for o in offsets], _c(value))


# --- tensor methods ---------------------------------------------------------

def _method(fn, name=None):
    setattr(tensor, name or fn.__name__, fn)


@builtin
def _to(self, dtype, fp_downcast_rounding=None, bitcast=False, _builder=None):
    return _builder.cast(self, _c(dtype), _c(bitcast), _c(fp_downcast_rounding))


@builtin
def _logical_and(self, other, _builder=None):
    return _builder.logical("and", self, _c(other))


@builtin
def _logical_or(self, other, _builder=None):
    return _builder.logical("or", self, _c(other))


_method(_to, "to")
_method(cast)
_method(_logical_and, "logical_and")
_method(_logical_or, "logical_or")
for _fn in (broadcast_to, expand_dims, reshape, view, ravel, permute, trans, sum, max, min,
            argmax, argmin, exp, exp2, log, log2, sqrt, sqrt_rn, rsqrt, sin, cos, erf, floor,
            ceil, sigmoid, abs, cdiv, fma, store, advance, split, reduce, associative_scan,
            gather, histogram, xor_sum, cumsum, cumprod, sort, flip, umulhi):
    _method(_fn)
for _name in ("atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
              "atomic_xchg", "atomic_cas"):
    _method(globals()[_name])

__all__ = [n for n in dir() if not n.startswith("_") and n != "operator"]
del _dtypes
