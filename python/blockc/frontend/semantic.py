"""Triton's typing rules, applied while Block IR ops are written.

Each method takes tensors or Python numbers (weak literals), converts them as
Triton's `semantic.py` would (promotion, implicit casts, broadcasting), and
writes the Block IR ops that compute the result. Block IR itself converts
nothing implicitly, so every conversion Triton makes silently is an explicit
`cast` here. A rule violated raises TypeError or ValueError; the translator
turns it into an error at the Python line being translated.
"""

import math

from . import dtypes
from .dtypes import float16, float32, float64, bfloat16, int1, int8, int32, int64
from .blockir import HANDLE as _HANDLE, broadcast_shapes  # noqa: F401 (re-exported)
from .blockops import BlockOps
from .values import tensor, block_pointer, tensor_descriptor


def _is_number(v):
    return isinstance(v, (bool, int, float)) and not isinstance(v, tensor)


def _float_literal(value):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(float(value))
    # Block IR wants a digit on both sides of the point: repr already gives
    # "1.0", "1e-05" or "1.5e+20".
    return text


def _int_literal(value, bits):
    if bits == 1:
        return "true" if value & 1 else "false"
    # Wrap into the type's signed range, as a C cast would.
    value &= (1 << bits) - 1
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    if value == -(1 << 63):
        return "-9223372036854775807 - 1"
    return str(value)



# Block IR's largest block rank (kMaxBlockRank in frontend/include/blockc/frontend/Types.h).
MAX_RANK = 8


def _check_literal_fits(value, ty):
    """Triton's checks of a Python number that takes an integer tensor's type, with its
    messages: it must be a value of that type (`x_uint8 & 300` is an error, not 44)."""
    if ty.is_int_unsigned() and value < 0:
        raise ValueError("Cannot perform a binary operation between an unsigned tensor and a "
                         "negative scalar. Perform a explicit cast on one of them.")
    if not ty.get_int_min_value() <= value <= ty.get_int_max_value():
        raise ValueError(f"Scalar {value} is out of range for type {ty}")


class Builder(BlockOps):
    """Writes ops through `emitter` at `loc`, the Python place being translated.

    It also keeps where every pointer value came from, so that a launch can
    tell which pointer arguments the kernel may store through (and refuse a
    read-only array there) without the compiler's help."""

    def __init__(self, emitter):
        self.emitter = emitter
        self.loc = None
        # A pointer value's handle -> the handles it was computed from. Only
        # pointers are keys: a loaded index that offsets a pointer does not
        # make the array it came from a store target.
        self.pointer_sources = {}
        self.stored_through = []
        self.debug = False
        # The handle of each asserted condition -> its message.
        self.assert_messages = {}

    # --- emission ---------------------------------------------------------

    def op(self, text, ty, shape=(), hint="v"):
        result = tensor(self.emitter.fresh(hint), ty, shape)
        self.emitter.line(f"{result.handle} = {text} : {result.bir_type}", self.loc)
        if ty.is_ptr():
            # Block IR makes pointers only from pointers (addptr, select,
            # broadcast, bitcast, ...), so the handles an op names are
            # enough; the offsets among them lead nowhere.
            self.derive(result.handle, _HANDLE.findall(text))
        return result

    def derive(self, handle, sources):
        """Records that pointer `handle` may hold any of `sources`' values (a
        loop's carried pointer, an `if`'s result)."""
        self.pointer_sources.setdefault(handle, []).extend(sources)

    def reaching(self, handles):
        """What `handles` derive from that has no sources of its own: the
        parameters, and the offsets met on the way, which callers filter out."""
        roots, seen, pending = set(), set(), list(handles)
        while pending:
            handle = pending.pop()
            if handle in seen:
                continue
            seen.add(handle)
            sources = self.pointer_sources.get(handle)
            if sources is None:
                roots.add(handle)
            else:
                pending.extend(sources)
        return roots

    def statement(self, text):
        self.emitter.line(text, self.loc)

    # --- constants and conversions -----------------------------------------

    def const(self, value, ty, shape=()):
        if ty.is_ptr():
            raise TypeError(f"a constant cannot have pointer type {ty}")
        if ty.is_floating():
            literal = _float_literal(float(value))
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"{value} cannot be converted to {ty}")
            literal = _int_literal(int(value), ty.primitive_bitwidth)
        else:
            literal = _int_literal(int(value), ty.primitive_bitwidth)
        result = tensor(self.emitter.fresh("c"), ty, shape)
        self.emitter.line(f"{result.handle} = const {literal} : {result.bir_type}", self.loc)
        return result

    def to_tensor(self, value, ty=None):
        if isinstance(value, tensor):
            return value if ty is None else self.cast(value, ty)
        if not _is_number(value):
            raise TypeError(f"expected a tensor or a number, got {type(value).__name__} "
                            f"{value!r}")
        return self.const(value, ty or dtypes.literal_type(value))

    def cast(self, x, dst, bitcast=False, fp_downcast_rounding=None):
        x = self.to_tensor(x)
        if isinstance(dst, dtypes.block_type):
            dst = dst.scalar  # as Triton: the shape is the value's own
        if not isinstance(dst, dtypes.dtype):
            raise TypeError(f"cannot cast to {dst!r}: not a dtype")
        dst.bir  # raises for a type Block IR lacks
        if fp_downcast_rounding not in (None, "rtne"):
            raise ValueError(f"fp_downcast_rounding={fp_downcast_rounding!r}: Block IR rounds "
                             "float conversions to nearest even only")
        src = x.dtype
        if src == dst:
            return x
        if src.is_ptr() != dst.is_ptr():
            # Triton's int_to_ptr and ptr_to_int: an address as an i64 and back
            # (a grouped GEMM's table of matrices); other integers go through i64,
            # and a pointer as a condition is whether it is null.
            number = dst if src.is_ptr() else src
            if not number.is_int():
                raise TypeError(f"cannot cast {src} to {dst}: a pointer converts only to "
                                "another pointer or an integer")
            if dst.is_ptr():
                address = x if src.bir == "i64" else self.cast(x, int64)
                return self.op(f"bitcast {address.handle} to {dst.bir}", dst, x.shape)
            address = self.op(f"bitcast {x.handle} to i64", int64, x.shape)
            if dst.is_int1():
                return self.compare("ne", address, self.const(0, int64))
            return self.cast(address, dst)
        if src.is_ptr():
            if src.bir == dst.bir:
                return tensor(x.handle, dst, x.shape)
            return self.op(f"bitcast {x.handle} to {dst.bir}", dst, x.shape)
        if bitcast and src.is_int() and dst.is_int() and src.bir == dst.bir:
            return tensor(x.handle, dst, x.shape)  # the same bits, read with another sign
        if bitcast:
            if src.primitive_bitwidth != dst.primitive_bitwidth:
                raise ValueError(f"cannot bitcast {src} to {dst}: they differ in width "
                                 f"({src.primitive_bitwidth} vs {dst.primitive_bitwidth} bits)")
            if src.is_int1():
                raise ValueError("cannot bitcast int1")
            return self.op(f"bitcast {x.handle} to {dst.bir}", dst, x.shape)
        # Extension and conversion to float read the source's sign; a float
        # converts to an unsigned integer as one.
        unsigned = (src.is_int_unsigned() and not dst.is_int1()) or \
            (src.is_floating() and dst.is_int_unsigned())
        if src.is_int() and dst.is_int() and src.bir == dst.bir:
            return tensor(x.handle, dst, x.shape)  # the same bits, read with another sign
        return self.op(f"{'ucast' if unsigned else 'cast'} {x.handle} to {dst.bir}", dst,
                       x.shape)

    def to_i1(self, x):
        x = self.to_tensor(x)
        if x.dtype.is_int1():
            return x
        # A pointer is true where it is not null, as in Triton (`if dW:` on a
        # pointer argument that may be 0).
        return self.cast(x, int1)

    # --- shapes -----------------------------------------------------------

    def broadcast_to(self, x, shape):
        x = self.to_tensor(x)
        shape = tuple(shape)
        if x.shape == shape:
            return x
        if broadcast_shapes(x.shape, shape) != shape:
            raise ValueError(f"cannot broadcast shape {list(x.shape)} to {list(shape)}")
        if not shape:
            return x
        if not x.shape:
            return self.op(f"splat {x.handle} to [{', '.join(map(str, shape))}]", x.dtype, shape)
        return self.op(f"broadcast {x.handle} to [{', '.join(map(str, shape))}]", x.dtype,
                       shape)

    def expand_dims(self, x, axis):
        x = self.to_tensor(x)
        rank = len(x.shape)
        if axis < 0:
            axis += rank + 1
        if not 0 <= axis <= rank:
            raise ValueError(f"expand_dims: axis {axis} is out of range for a tensor of rank "
                             f"{rank}")
        if rank >= MAX_RANK:
            raise ValueError(f"expand_dims: Block IR blocks have at most {MAX_RANK} dimensions")
        shape = x.shape[:axis] + (1,) + x.shape[axis:]
        return self.op(f"expand_dims {x.handle}, axis={axis}", x.dtype, shape)

    def reshape(self, x, shape):
        x = self.to_tensor(x)
        shape = tuple(int(d) for d in shape)
        count = 1
        for d in shape:
            count *= d
        if count != x.numel:
            raise ValueError(f"reshape: {list(x.shape)} has {x.numel} elements, "
                             f"{list(shape)} has {count}")
        if shape == x.shape:
            return x
        if not shape:
            raise ValueError("reshape to a scalar: reduce instead")
        if not x.shape:
            return self.broadcast_to(x, shape)
        if len(shape) > MAX_RANK:
            raise ValueError(f"reshape to {list(shape)}: Block IR blocks have at most "
                             f"{MAX_RANK} dimensions")
        return self.op(f"reshape {x.handle} to [{', '.join(map(str, shape))}]", x.dtype, shape)

    def permute(self, x, dims):
        x = self.to_tensor(x)
        dims = tuple(int(d) for d in dims)
        if sorted(dims) != list(range(len(x.shape))):
            raise ValueError(f"permute: {list(dims)} is not a permutation of the "
                             f"{len(x.shape)} dimensions of {list(x.shape)}")
        if dims == tuple(range(len(dims))):
            return x
        shape = tuple(x.shape[d] for d in dims)
        if dims == (1, 0):
            return self.op(f"trans {x.handle}", x.dtype, shape)
        return self.op(f"trans {x.handle}, perm=[{', '.join(map(str, dims))}]", x.dtype, shape)

    def subscript(self, x, index):
        """`x[:, None]`: Triton indexes tensors only to add dimensions."""
        if not isinstance(index, tuple):
            index = (index,)
        was_scalar = not x.shape
        axis = 0
        for item in index:
            if item is None:
                # Triton's expand_dims makes a scalar a [1] block whatever the axis,
                # so `scalar[:, None]` is a [1] block that broadcasts.
                x = self.broadcast_to(x, (1,)) if not x.shape else self.expand_dims(x, axis)
                axis += 1
            elif isinstance(item, slice) and item == slice(None):
                axis += 1
            else:
                raise ValueError(f"tensors can be indexed only with None and ':' (to add "
                                 f"dimensions), not {item!r}")
        if axis > len(x.shape) and not was_scalar:
            raise ValueError(f"too many indices for a tensor of shape {list(x.shape)}")
        return x

    # --- arithmetic -------------------------------------------------------

    def _operands(self, a, b, allow_lhs_ptr=False, allow_rhs_ptr=False, arithmetic=True,
                  div_or_mod=False, what="operation"):
        """Triton's binary_op_type_checking_impl: the two operands as tensors
        of their common type (pointers left alone), and the broadcast shape."""
        a_literal, b_literal = not isinstance(a, tensor), not isinstance(b, tensor)
        a_ty, b_ty = dtypes.literal_type(a) if a_literal else a.dtype, \
            dtypes.literal_type(b) if b_literal else b.dtype
        if a_ty.is_ptr() and not allow_lhs_ptr or b_ty.is_ptr() and not allow_rhs_ptr:
            raise TypeError(f"unsupported operand types for {what}: {a_ty} and {b_ty}")
        if a_ty.is_ptr() and b_ty.is_floating() or b_ty.is_ptr() and a_ty.is_floating():
            raise TypeError(f"unsupported operand types for {what}: {a_ty} and {b_ty} "
                            "(a pointer moves by an integer offset)")
        if arithmetic and not a_ty.is_ptr() and not b_ty.is_ptr():
            ty = dtypes.computation_type(a_ty, a_literal, b_ty, b_literal, div_or_mod)
            if ty.is_int() and not ty.is_int1():
                for literal, value in ((a_literal, a), (b_literal, b)):
                    if literal:
                        _check_literal_fits(value, ty)
            a = self.const(a, ty) if a_literal else self.cast(a, ty)
            b = self.const(b, ty) if b_literal else self.cast(b, ty)
        else:
            a, b = self.to_tensor(a), self.to_tensor(b)
        return a, b, broadcast_shapes(a.shape, b.shape)

    def _binary(self, op, a, b, shape, ty=None):
        if a.dtype.is_fp8():
            # Block IR's 8-bit floats are storage types: compute in f32, which
            # holds every fp8 value and every sum and product of two exactly,
            # and round the result back once.
            wide = self._binary(op, self.cast(a, float32), self.cast(b, float32), shape, ty)
            return wide if ty is not None else self.cast(wide, a.dtype)
        return self.op(f"{op} {a.handle}, {b.handle}", ty or a.dtype, shape)

    def _unary(self, op, x):
        if x.dtype.is_fp8():
            return self.cast(self._unary(op, self.cast(x, float32)), x.dtype)
        return self.op(f"{op} {x.handle}", x.dtype, x.shape)

    def addptr(self, ptr, offset, shape):
        if not offset.dtype.is_int() or offset.dtype.is_int1():
            raise TypeError(f"a pointer moves by an integer offset, not {offset.dtype}")
        if offset.dtype.is_int_unsigned() and offset.dtype.int_bitwidth < 64:
            # Block IR's addptr reads its offset as signed, as Triton's does; Triton
            # zero-extends an unsigned offset first, so a uint8 200 moves by 200.
            offset = self.cast(offset, int64)
        return self._binary("addptr", ptr, offset, shape, ptr.dtype)

    def add(self, a, b):
        a, b, shape = self._operands(a, b, True, True, what="+")
        if a.dtype.is_ptr() and b.dtype.is_ptr():
            raise TypeError(f"cannot add two pointers ({a.dtype} and {b.dtype})")
        if b.dtype.is_ptr():
            a, b = b, a
        if a.dtype.is_ptr():
            return self.addptr(a, b, shape)
        return self._binary("add", a, b, shape)

    def sub(self, a, b):
        a, b, shape = self._operands(a, b, True, False, what="-")
        if a.dtype.is_ptr():
            if b.dtype.is_int_unsigned():
                b = self.cast(b, int64)  # its value, not its bits, negated
            return self.addptr(a, self.minus(b), shape)
        return self._binary("sub", a, b, shape)

    def mul(self, a, b):
        a, b, shape = self._operands(a, b, what="*")
        if a.dtype.is_int1():
            # Triton multiplies two int1 operands as int1 (arith.muli on i1): a logical
            # and. Masks are built this way, `(rn < n)[None, :] * (rm < m)[:, None]`.
            return self._binary("and", a, b, shape)
        return self._binary("mul", a, b, shape)

    def truediv(self, a, b):
        a, b, shape = self._operands(a, b, div_or_mod=True, what="/")
        if a.dtype.is_floating() and b.dtype.is_int():
            b = self.cast(b, a.dtype)
        elif a.dtype.is_int() and b.dtype.is_floating():
            a = self.cast(a, b.dtype)
        elif a.dtype.is_int() and b.dtype.is_int():
            a, b = self.cast(a, float32), self.cast(b, float32)
        elif a.dtype != b.dtype:
            if a.dtype.fp_mantissa_width > b.dtype.fp_mantissa_width:
                b = self.cast(b, a.dtype)
            else:
                a = self.cast(a, b.dtype)
        return self._binary("div", a, b, shape)

    def floordiv(self, a, b):
        a, b, shape = self._operands(a, b, div_or_mod=True, what="//")
        if not a.dtype.is_int():
            raise TypeError(f"// needs integer operands, got {a.dtype}")
        if a.dtype.is_int1():
            raise TypeError("// on int1 operands")
        return self._binary("udiv" if a.dtype.is_int_unsigned() else "div", a, b, shape)

    def mod(self, a, b):
        a, b, shape = self._operands(a, b, div_or_mod=True, what="%")
        if a.dtype.is_int1():
            raise TypeError("% on int1 operands")
        return self._binary("urem" if a.dtype.is_int_unsigned() else "rem", a, b, shape)

    def _integer_operands(self, a, b, what):
        """Triton 3.6's bitwise operands: weak literals as in arithmetic
        (`x_i8 & 15` stays int8), then both must be integers."""
        a_ty = a.dtype if isinstance(a, tensor) else dtypes.literal_type(a)
        b_ty = b.dtype if isinstance(b, tensor) else dtypes.literal_type(b)
        if not a_ty.is_int() or not b_ty.is_int():
            raise TypeError(f"{what} needs integer operands, got {a_ty} and {b_ty}")
        return self._operands(a, b, what=what)

    def bitwise(self, op, a, b):
        symbol = {"and": "&", "or": "|", "xor": "^"}[op]
        a, b, shape = self._integer_operands(a, b, symbol)
        return self._binary(op, a, b, shape)

    def shift(self, op, a, b):
        # Triton picks an arithmetic or a logical right shift by the tensor operand's own
        # type, before promotion: int8 >> uint8 is an arithmetic shift of the uint8 result.
        arithmetic = (a if isinstance(a, tensor) else b).dtype.is_int_signed()
        a, b, shape = self._integer_operands(a, b, "<<" if op == "shl" else ">>")
        if a.dtype.is_int1():
            raise TypeError("shift of int1 operands")
        if op == "shr":
            op = "ashr" if arithmetic else "lshr"
        return self._binary(op, a, b, shape)

    def compare(self, predicate, a, b):
        # Triton's comparison operators make a Python number a tensor first,
        # so it is not weak: `x_f16 < 0.1` compares in f32.
        a, b = self.to_tensor(a), self.to_tensor(b)
        a, b, shape = self._operands(a, b, what="comparison")
        if a.dtype.is_int1():
            # Block IR compares ints and floats; booleans compare as 0 and 1.
            a, b = self.cast(a, int8), self.cast(b, int8)
        if a.dtype.is_int_unsigned() and predicate in ("lt", "le", "gt", "ge"):
            predicate = "u" + predicate
        return self._binary(f"cmp {predicate}", a, b, shape, int1)

    def logical(self, op, a, b):
        a, b = self.to_i1(a), self.to_i1(b)
        return self._binary(op, a, b, broadcast_shapes(a.shape, b.shape))

    def minimum(self, a, b, propagate_nan=None):
        return self._min_max("min", a, b, propagate_nan)

    def maximum(self, a, b, propagate_nan=None):
        return self._min_max("max", a, b, propagate_nan)

    def _min_max(self, op, a, b, propagate_nan):
        # As Triton's tl.minimum/maximum: numbers become int32 or float32 tensors first (not
        # weak literals: tl.minimum(x_int16, 2) is int32), and bf16 computes in f32.
        a, b = self.to_tensor(a), self.to_tensor(b)
        a = self.cast(a, float32) if a.dtype == bfloat16 else a
        b = self.cast(b, float32) if b.dtype == bfloat16 else b
        a, b, shape = self._operands(a, b, what=f"tl.{op}imum")
        result = self._binary("u" + op if a.dtype.is_int_unsigned() else op, a, b, shape)
        if _propagates_nan(propagate_nan) and a.dtype.is_floating():
            # Block IR's min/max return the number when one operand is NaN;
            # PropagateNan.ALL wants the NaN.
            result = self.where(self._binary("cmp ne", b, b, b.shape, int1), b, result)
            result = self.where(self._binary("cmp ne", a, a, a.shape, int1), a, result)
        return result

    def where(self, condition, x, y):
        condition = self.to_i1(condition)
        x, y, shape = self._operands(x, y, True, True, what="tl.where")
        if x.dtype != y.dtype:
            raise TypeError(f"tl.where: {x.dtype} and {y.dtype} differ")
        shape = broadcast_shapes(condition.shape, shape)
        return self.op(f"select {condition.handle}, {x.handle}, {y.handle}", x.dtype, shape)

    # --- unary and math ---------------------------------------------------

    def minus(self, x):
        x = self.to_tensor(x)
        if x.dtype.is_ptr() or x.dtype.is_int1():
            raise TypeError(f"unary - of {x.dtype}")
        return self._unary("neg", x)

    def invert(self, x):
        x = self.to_tensor(x)
        if not x.dtype.is_int():
            raise TypeError(f"~ needs an integer or boolean operand, got {x.dtype}")
        return self.op(f"not {x.handle}", x.dtype, x.shape)

    def logical_not(self, x):
        x = self.to_i1(x)
        return self.op(f"not {x.handle}", int1, x.shape)

    def abs(self, x):
        x = self.to_tensor(x)
        if x.dtype.is_int1() or x.dtype.is_int_unsigned():
            return x
        if x.dtype.is_ptr():
            raise TypeError(f"abs of {x.dtype}")
        return self._unary("abs", x)

    def math(self, op, x, name=None):
        x = self.to_tensor(x)
        if not x.dtype.is_floating():
            raise TypeError(f"{name or 'tl.' + op} needs a floating-point operand, got "
                            f"{x.dtype}")
        return self._unary(op, x)

    def pow(self, a, b):
        a, b, shape = self._operands(a, b, what="pow")
        if not a.dtype.is_floating():
            raise TypeError(f"pow needs floating-point operands, got {a.dtype}")
        return self._binary("pow", a, b, shape)

    def fma(self, a, b, c):
        a, b, _ = self._operands(a, b, what="tl.fma")
        c, a, _ = self._operands(c, a, what="tl.fma")
        c, b, _ = self._operands(c, b, what="tl.fma")
        if not a.dtype.is_floating():
            return self.add(self.mul(a, b), c)
        shape = broadcast_shapes(broadcast_shapes(a.shape, b.shape), c.shape)
        return self.op(f"fma {a.handle}, {b.handle}, {c.handle}", a.dtype, shape)

    def umulhi(self, a, b):
        a, b, shape = self._operands(a, b, what="tl.umulhi")
        if a.dtype in (dtypes.uint32, dtypes.uint64):
            signed = int32 if a.dtype == dtypes.uint32 else int64
            high = self.umulhi(tensor(a.handle, signed, a.shape), tensor(b.handle, signed, b.shape))
            return tensor(high.handle, a.dtype, high.shape)
        if a.dtype not in (int32, int64):
            raise TypeError(f"tl.umulhi needs int32 or int64 operands, got {a.dtype}")
        if a.dtype == int32:
            # The 64-bit product of the zero-extended halves is exact.
            low = self.const(0xFFFFFFFF, int64)
            wide_a = self.bitwise("and", self.cast(a, int64), low)
            wide_b = self.bitwise("and", self.cast(b, int64), low)
            product = self._binary("mul", wide_a, wide_b, shape)
            return self.cast(self._binary("lshr", product, self.const(32, int64), shape), int32)
        # Schoolbook on 32-bit halves: every partial product fits in 64 bits
        # as an unsigned number, and wrapping arithmetic keeps the bits.
        mask, bits = self.const(0xFFFFFFFF, int64), self.const(32, int64)

        def halves(x):
            return (self._binary("and", x, mask, x.shape),
                    self._binary("lshr", x, bits, x.shape))

        (al, ah), (bl, bh) = halves(a), halves(b)
        ll = self._binary("mul", al, bl, shape)
        lh = self._binary("mul", al, bh, shape)
        hl = self._binary("mul", ah, bl, shape)
        hh = self._binary("mul", ah, bh, shape)
        mid = self.add(self.add(self._binary("lshr", ll, bits, shape),
                                self._binary("and", lh, mask, shape)),
                       self._binary("and", hl, mask, shape))
        high = self.add(hh, self._binary("lshr", lh, bits, shape))
        high = self.add(high, self._binary("lshr", hl, bits, shape))
        return self.add(high, self._binary("lshr", mid, bits, shape))

    def clamp(self, x, lo, hi, propagate_nan=None):
        return self.minimum(self.maximum(x, lo, propagate_nan), hi, propagate_nan)

    def cdiv(self, x, div):
        return self.floordiv(self.sub(self.add(x, div), 1), div)

    # --- program ids and constants ----------------------------------------

    def program_id(self, axis):
        if axis not in (0, 1, 2):
            raise ValueError(f"program_id axis must be 0, 1 or 2, not {axis!r}")
        return self.op(f"program_id {axis}", int32, hint="pid")

    def num_programs(self, axis):
        if axis not in (0, 1, 2):
            raise ValueError(f"num_programs axis must be 0, 1 or 2, not {axis!r}")
        return self.op(f"num_programs {axis}", int32)

    def arange(self, start, end):
        if not isinstance(start, int) or not isinstance(end, int):
            hint = ""
            if isinstance(start, tensor) or isinstance(end, tensor):
                hint = ("; a number assigned to a name without a `: tl.constexpr` annotation "
                        "is a run-time scalar, as in Triton")
            raise TypeError("tl.arange needs compile-time integer bounds (constexprs)" + hint)
        if not 0 <= start < end <= 2**31 - 1:
            raise ValueError(f"tl.arange({start}, {end}): needs 0 <= start < end")
        return self.op(f"arange {start}, {end}", int32, (end - start,), hint="r")

    def full(self, shape, value, ty):
        shape = _shape(shape)
        if isinstance(value, tensor):
            if value.shape:
                raise ValueError("tl.full: the value must be a scalar")
            return self.broadcast_to(self.cast(value, ty), shape)
        return self.const(value, ty, shape)

    # --- reductions -------------------------------------------------------

    def reduce(self, op, x, axis, keep_dims, result_type=None):
        x = self.to_tensor(x)
        if not x.shape:
            raise ValueError(f"{op}: the operand is a scalar, not a block")
        if x.dtype.is_fp8():  # computed in f32, as the elementwise ops are
            result = self.reduce(op, self.cast(x, float32), axis, keep_dims, result_type)
            return result if result_type is not None else self.cast(result, x.dtype)
        rank = len(x.shape)
        if axis is None:
            flat = self.reshape(x, (x.numel,)) if rank > 1 else x
            result = self.op(f"{op} {flat.handle}, axis=0", result_type or x.dtype)
            return self.broadcast_to(result, (1,) * rank) if keep_dims else result
        if axis < 0:
            axis += rank
        if not 0 <= axis < rank:
            raise ValueError(f"{op}: axis {axis} is out of range for shape {list(x.shape)}")
        shape = x.shape[:axis] + x.shape[axis + 1:]
        result = self.op(f"{op} {x.handle}, axis={axis}", result_type or x.dtype, shape)
        return self.expand_dims(result, axis) if keep_dims else result

    def sum(self, x, axis=None, keep_dims=False, dtype=None):
        x = self.to_tensor(x)
        if dtype is not None:
            x = self.cast(x, dtype)
        elif x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
            x = self.cast(x, dtypes.uint32 if x.dtype.is_int_unsigned() else int32)
        return self.reduce("reduce_sum", x, axis, keep_dims)

    def _order_as_signed(self, x):
        """An unsigned block with its top bit flipped, and the signed type of
        its width: signed order on the result is unsigned order on `x`, so
        Block IR's signed max, min and argmax serve unsigned values too."""
        signed = {8: int8, 16: dtypes.int16, 32: int32, 64: int64}[x.dtype.primitive_bitwidth]
        bits = tensor(x.handle, signed, x.shape)
        top = self.const(-(1 << (x.dtype.primitive_bitwidth - 1)), signed)
        return self._binary("xor", bits, top, x.shape)

    def _promote_for_min_max(self, x):
        x = self.to_tensor(x)
        if x.dtype.primitive_bitwidth < 32:
            x = self.cast(x, float32 if x.dtype.is_floating() else int32)
        return x

    def _unsigned_extreme(self, op, x, axis, keep_dims):
        """reduce_max/min of an unsigned block, through _order_as_signed."""
        flipped = self._order_as_signed(x)
        if op.startswith("arg"):
            return self.reduce(op, flipped, axis, keep_dims, int32)
        result = self.reduce(op, flipped, axis, keep_dims)
        back = self._order_as_signed(tensor(result.handle, x.dtype, result.shape))
        return tensor(back.handle, x.dtype, back.shape)

    def max(self, x, axis=None, return_indices=False, tie_break_left=True, keep_dims=False):
        return self._extreme("max", x, axis, return_indices, tie_break_left, keep_dims)

    def min(self, x, axis=None, return_indices=False, tie_break_left=True, keep_dims=False):
        return self._extreme("min", x, axis, return_indices, tie_break_left, keep_dims)

    def _extreme(self, which, x, axis, return_indices, tie_break_left, keep_dims):
        # As Triton's standard.max/min: with indices only bf16 widens (to f32),
        # so the value keeps an f16 or i8 input's type; without, every type
        # below 32 bits does.
        x = self.to_tensor(x)
        if not return_indices:
            x = self._promote_for_min_max(x)
        elif x.dtype == bfloat16:
            x = self.cast(x, float32)
        if x.dtype.is_int_unsigned():
            value = self._unsigned_extreme(f"reduce_{which}", x, axis, keep_dims)
            if not return_indices:
                return value
            return value, self._unsigned_extreme(f"arg{which}", x, axis, keep_dims)
        value = self.reduce(f"reduce_{which}", x, axis, keep_dims)
        if not return_indices:
            return value
        return value, self.arg_extreme(which, x, axis, tie_break_left, keep_dims)

    def arg_extreme(self, which, x, axis, tie_break_left=True, keep_dims=False):
        if not tie_break_left:
            raise ValueError(f"tl.arg{which}(tie_break_left=False): Block IR breaks ties "
                             "toward the lowest index only")
        x = self._promote_for_min_max(x)
        if x.dtype.is_int_unsigned():
            return self._unsigned_extreme(f"arg{which}", x, axis, keep_dims)
        return self.reduce(f"arg{which}", x, axis, keep_dims, int32)

    # --- dot --------------------------------------------------------------

    def dot(self, a, b, acc=None, out_dtype=float32):
        a, b = self.to_tensor(a), self.to_tensor(b)
        if len(a.shape) == 3 and len(b.shape) == 3:
            return self._batched_dot(a, b, acc, out_dtype)
        if len(a.shape) != 2 or len(b.shape) != 2:
            raise ValueError(f"tl.dot needs rank-2 operands, or rank-3 ones (a batch), got "
                             f"{list(a.shape)} and {list(b.shape)}")
        if a.dtype != b.dtype:
            raise TypeError(f"tl.dot: both operands must have the same dtype, got {a.dtype} and "
                            f"{b.dtype}")
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"tl.dot: inner dimensions differ: {list(a.shape)} @ "
                             f"{list(b.shape)}")
        shape = (a.shape[0], b.shape[1])
        if a.dtype.is_fp8():
            # bf16 holds every value of both 8-bit formats exactly; the
            # products accumulate in f32, as on a GPU's fp8 tensor cores.
            a, b = self.cast(a, bfloat16), self.cast(b, bfloat16)
        ty = a.dtype
        if ty == int8:
            compute = int32
        elif ty in (float16, bfloat16, float32):
            compute = float32
        elif ty == float64:
            compute = float64
        else:
            raise TypeError(f"tl.dot of {ty}: Block IR multiplies f16, bf16, f32, f64 and int8 "
                            "blocks")
        result_type = compute
        if acc is not None:
            acc = self.to_tensor(acc)
            if acc.shape != shape:
                raise ValueError(f"tl.dot: the accumulator has shape {list(acc.shape)}, the "
                                 f"product {list(shape)}")
            result_type = acc.dtype
            acc = self.cast(acc, compute)
        else:
            if out_dtype is not None and ty != int8 and out_dtype in (float16, bfloat16):
                result_type = out_dtype
            acc = self.const(0, compute, shape)
        product = self.op(f"dot {a.handle}, {b.handle}, {acc.handle}", compute, shape, "dot")
        return self.cast(product, result_type)

    def device_assert(self, condition, message=""):
        """tl.device_assert: checked (a failure stops the launch with the
        message and the Python line) only in debug builds, as in Triton."""
        if not isinstance(message, str):
            raise TypeError(f"tl.device_assert: the message must be a string, got {message!r}")
        condition = self.to_i1(condition)
        if not self.debug:
            return
        self.assert_messages[condition.handle] = message
        self.statement(f"assert {condition.handle}")

    def device_print(self, prefix, args, hex=False):
        """tl.device_print (and `print` in a kernel): one line per element and
        program, "pid (X, Y, Z) idx (I, J) PREFIX: v0, v1", made as Triton
        makes the prefix end in ": \"."""
        if not isinstance(prefix, str):
            raise TypeError(f"tl.device_print: the prefix must be a string, got {prefix!r}")
        if not isinstance(hex, bool):
            raise TypeError(f"tl.device_print: hex must be True or False, got {hex!r}")
        bad = [c for c in prefix if not (c.isprintable() or c in "\n\t")]
        if bad:
            raise ValueError(f"tl.device_print: the prefix {prefix!r} holds {bad[0]!r}; it must "
                             "be printable text")
        if args and not prefix.endswith(" "):
            prefix += " "
        if args and not prefix.endswith(": "):
            prefix = prefix[:-1] + ": "
        values = []
        for arg in args:
            value = self.to_tensor(arg)
            if value.dtype.is_int_unsigned() and not hex and value.dtype.primitive_bitwidth < 64:
                value = self.cast(value, int64)  # printed as the unsigned value it is
            values.append(value)
        shape = ()
        for value in values:
            shape = broadcast_shapes(shape, value.shape)
        values = [self.broadcast_to(v, shape) if v.shape and v.shape != shape else v
                  for v in values]
        text = "".join({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}.get(c, c)
                       for c in prefix.lstrip(" "))
        operands = "".join(f", {v.handle}" for v in values)
        self.statement(f'print "{text}"{operands}{", hex" if hex else ""}')

    # --- memory -----------------------------------------------------------

    def load(self, pointer, mask=None, other=None, boundary_check=(), padding_option="",
             volatile=False):
        if isinstance(pointer, block_pointer):
            if mask is not None or other is not None:
                raise ValueError("a load through a block pointer takes boundary_check and "
                                 "padding_option, not mask and other")
            pointer, mask, other = self._expand_block_pointer(pointer, boundary_check,
                                                              padding_option)
        elif boundary_check or padding_option:
            raise ValueError("boundary_check and padding_option need a block pointer "
                             "(tl.make_block_ptr)")
        pointer = self.to_tensor(pointer)
        if not pointer.dtype.is_ptr():
            raise TypeError(f"tl.load needs a pointer, got {pointer.dtype}")
        element = pointer.dtype.element_ty
        memory = _memory_type(element)
        if other is not None and mask is None:
            raise ValueError("tl.load: `other` needs a `mask`")
        text = f"load {pointer.handle}"
        if mask is not None:
            mask = self._mask_for(pointer, mask, "tl.load")
            text += f", mask={mask.handle}"
            if other is not None:
                other = self._fit(pointer, self.to_tensor(other, memory), "other")
                text += f", other={other.handle}"
        if volatile:
            # Read each time, never merged or moved: another program may be
            # writing the location (a spin-wait on a flag).
            text += ", volatile"
        value = self.op(text, memory, pointer.shape, "x")
        return self.to_i1(value) if element.is_int1() else value

    def store(self, pointer, value, mask=None, boundary_check=()):
        if isinstance(pointer, block_pointer):
            if mask is not None:
                raise ValueError("a store through a block pointer takes boundary_check, not "
                                 "mask")
            pointer, mask, _ = self._expand_block_pointer(pointer, boundary_check, "")
        elif boundary_check:
            raise ValueError("boundary_check needs a block pointer (tl.make_block_ptr)")
        pointer = self.to_tensor(pointer)
        if not pointer.dtype.is_ptr():
            raise TypeError(f"tl.store needs a pointer, got {pointer.dtype}")
        element = pointer.dtype.element_ty
        value = self.to_tensor(value, None if isinstance(value, tensor) else element)
        if value.dtype.is_ptr():
            raise TypeError(f"tl.store of a pointer value ({value.dtype}): Block IR stores "
                            "numbers only")
        value = self._fit(pointer, self.cast(value, element), "the value")
        value = self.cast(value, _memory_type(element))
        text = f"store {pointer.handle}, {value.handle}"
        if mask is not None:
            text += f", mask={self._mask_for(pointer, mask, 'tl.store').handle}"
        self.statement(text)
        self.stored_through.append(pointer.handle)

    # Triton's `sem` names, and the Block IR memory order each maps to. A
    # `scope` (gpu, cta, sys) has one meaning on a CPU: every program of a
    # launch shares the process's memory, so each scope is the whole system.
    _MEMORY_ORDERS = {"relaxed": "relaxed", "acquire": "acquire", "release": "release",
                      "acq_rel": "acq_rel"}
    _SCOPES = ("gpu", "cta", "sys")

    def atomic(self, what, pointer, values, mask=None, sem=None, scope=None):
        """`tl.atomic_<what>`: `values` are the value (or, for cas, the
        compare and the new value), converted to the pointee type. Returns
        the old values, with the pointer's shape."""
        name = f"tl.atomic_{what}"
        pointer = self.to_tensor(pointer)
        if not pointer.dtype.is_ptr():
            raise TypeError(f"{name} needs a pointer, got {pointer.dtype}")
        element = pointer.dtype.element_ty
        if element.is_int1():
            raise TypeError(f"{name} on a pointer to int1: Triton has no boolean atomics")
        order = self._MEMORY_ORDERS.get(str(getattr(sem, "value", sem) or "acq_rel"))
        if order is None:
            raise ValueError(f"{name}: sem must be one of {', '.join(self._MEMORY_ORDERS)}, "
                             f"got {sem!r}")
        scope = str(getattr(scope, "value", scope) or "gpu")
        if scope not in self._SCOPES:
            raise ValueError(f"{name}: scope must be one of {', '.join(self._SCOPES)}, got "
                             f"{scope!r}")
        if element.is_floating() and what in ("and", "or", "xor"):
            raise TypeError(f"{name} needs integers, got a pointer to {element}")
        operands = []
        for value in values:
            value = self.to_tensor(value, None if isinstance(value, tensor) else element)
            if value.dtype.is_ptr():
                raise TypeError(f"{name} of a pointer value ({value.dtype})")
            if value.shape and not pointer.shape:
                # Triton broadcasts the pointer to the value's shape.
                pointer = self.broadcast_to(pointer, value.shape)
            operands.append(value)
        operands = [self._fit(pointer, self.cast(v, element), "the value") for v in operands]
        op = what
        if what in ("max", "min") and element.is_int_unsigned():
            op = "u" + what
        text = f"atomic_{op} {pointer.handle}, " + ", ".join(v.handle for v in operands)
        if mask is not None:
            if what == "cas":
                raise ValueError("tl.atomic_cas takes no mask")
            text += f", mask={self._mask_for(pointer, mask, name).handle}"
        if order != "acq_rel":
            text += f", sem={order}"
        self.stored_through.append(pointer.handle)
        return self.op(text, element, pointer.shape, "old")

    def _mask_for(self, pointer, mask, what):
        mask = self.to_i1(mask)
        if mask.shape and not pointer.shape:
            raise ValueError(f"{what}: the mask is a block but the pointer is a scalar")
        return self._fit(pointer, mask, "the mask")

    def _fit(self, pointer, x, what):
        if broadcast_shapes(x.shape, pointer.shape) != pointer.shape:
            raise ValueError(f"{what} has shape {list(x.shape)}, which does not broadcast to "
                             f"the pointer's {list(pointer.shape)}")
        return x

    def make_block_ptr(self, base, shape, strides, offsets, block_shape, order):
        base = self.to_tensor(base)
        if not base.dtype.is_ptr() or base.shape:
            raise TypeError(f"tl.make_block_ptr needs a scalar pointer base, got {base.bir_type}")
        rank = len(block_shape)
        if not (len(shape) == len(strides) == len(offsets) == rank) or not 1 <= rank <= MAX_RANK:
            raise ValueError("tl.make_block_ptr: shape, strides, offsets and block_shape "
                             f"must have the same length, 1 to {MAX_RANK}")
        block_shape = tuple(int(d) for d in block_shape)
        return block_pointer(base, [self._scalar_int(s, int64, "shape") for s in shape],
                             [self._scalar_int(s, int64, "strides") for s in strides],
                             [self._scalar_int(o, int32, "offsets") for o in offsets],
                             block_shape, tuple(order))

    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding="zero"):
        base = self.to_tensor(base)
        if not base.dtype.is_ptr() or base.shape:
            raise TypeError(f"tl.make_tensor_descriptor needs a scalar pointer base, got "
                            f"{base.bir_type}")
        rank = len(block_shape)
        if not (len(shape) == len(strides) == rank) or not 1 <= rank <= MAX_RANK:
            raise ValueError("tl.make_tensor_descriptor: shape, strides and block_shape must "
                             f"have the same length, 1 to {MAX_RANK}")
        last = strides[-1]
        if not isinstance(last, tensor) and int(last) != 1:
            raise ValueError(f"tl.make_tensor_descriptor: the last dimension must be "
                             f"contiguous (stride 1), got stride {last}")
        return tensor_descriptor(base, [self._scalar_int(s, int64, "shape") for s in shape],
                                 [self._scalar_int(s, int64, "strides") for s in strides],
                                 tuple(int(d) for d in block_shape), padding)

    def _descriptor_block(self, desc, offsets, what):
        if not isinstance(desc, tensor_descriptor):
            raise TypeError(f"{what} needs a tensor descriptor (tl.make_tensor_descriptor)")
        offsets = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
        if len(offsets) != len(desc.block_shape):
            raise ValueError(f"{what}: {len(offsets)} offsets for a descriptor of rank "
                             f"{len(desc.block_shape)}")
        order = tuple(reversed(range(len(desc.block_shape))))
        return block_pointer(desc.base, desc.shape_values, desc.strides,
                             [self._scalar_int(o, int32, "offsets") for o in offsets],
                             desc.block_shape, order)

    def descriptor_load(self, desc, offsets):
        block = self._descriptor_block(desc, offsets, "tensor descriptor load")
        return self.load(block, boundary_check=tuple(range(len(desc.block_shape))),
                         padding_option=desc.padding)

    def descriptor_store(self, desc, offsets, value):
        block = self._descriptor_block(desc, offsets, "tensor descriptor store")
        return self.store(block, value, boundary_check=tuple(range(len(desc.block_shape))))

    def advance(self, pointer, offsets):
        if not isinstance(pointer, block_pointer):
            raise TypeError("tl.advance needs a block pointer (tl.make_block_ptr)")
        if len(offsets) != len(pointer.block_shape):
            raise ValueError(f"tl.advance: {len(offsets)} offsets for a block pointer of rank "
                             f"{len(pointer.block_shape)}")
        moved = [self.add(o, self._scalar_int(d, int32, "offsets"))
                 for o, d in zip(pointer.offsets, offsets)]
        return block_pointer(pointer.base, pointer.shape_values, pointer.strides, moved,
                             pointer.block_shape, pointer.order)

    def _scalar_int(self, value, ty, what):
        value = self.to_tensor(value)
        if value.shape or not value.dtype.is_int() or value.dtype.is_int1():
            raise TypeError(f"block pointer {what} must be scalar integers, got "
                            f"{value.bir_type}")
        return self.cast(value, ty)

    def _expand_block_pointer(self, bp, boundary_check, padding_option):
        """The pointer block base + sum((offset_d + arange) * stride_d) and the
        mask that keeps each checked dimension inside [0, shape_d)."""
        rank = len(bp.block_shape)
        if isinstance(boundary_check, int):
            boundary_check = (boundary_check,)
        for d in boundary_check:
            if not 0 <= d < rank:
                raise ValueError(f"boundary_check: dimension {d} is out of range for a block "
                                 f"pointer of rank {rank}")
        if padding_option not in ("", "zero", "nan"):
            raise ValueError(f"padding_option must be 'zero' or 'nan', not {padding_option!r}")
        pointer, mask = bp.base, None
        for d, size in enumerate(bp.block_shape):
            index = self.add(self.arange(0, size), bp.offsets[d])
            for axis in range(rank):
                if axis < d:
                    index = self.expand_dims(index, 0)
                elif axis > d:
                    index = self.expand_dims(index, len(index.shape))
            pointer = self.add(pointer, self.mul(self.cast(index, int64), bp.strides[d]))
            if d in boundary_check:
                inside = self.logical("and", self.compare("ge", index, 0),
                                      self.compare("lt", self.cast(index, int64),
                                                   bp.shape_values[d]))
                mask = inside if mask is None else self.logical("and", mask, inside)
        pointer = self.broadcast_to(pointer, bp.block_shape)
        other = None
        if mask is not None:
            element = bp.base.dtype.element_ty
            other = float("nan") if padding_option == "nan" and element.is_floating() else 0
        return pointer, mask, other


def _memory_type(element):
    """The type a pointer's elements have in memory: booleans are bytes."""
    return int8 if element.is_int1() else element


def _propagates_nan(option):
    return option is not None and getattr(option, "name", option) in ("ALL", "all")


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(d) for d in shape)
