"""Element types as Triton names them, and how they map onto Block IR.

A Triton `dtype` and a Block IR element type are the same thing seen from two
sides; one object carries both names so that the translator never keeps two
tables in step. Types Block IR does not have yet (unsigned integers, fp8) exist
too, so that a kernel naming them gets an error that says what is missing
instead of an AttributeError on `tl.uint8`.
"""


class dtype:
    """A scalar element type: `tl.float32`, `tl.int8`, ..."""

    # Triton's kinds, ordered as its promotion of weak (Python number) operands
    # compares them: a literal of a kind <= the tensor's kind never widens it.
    KIND_BOOL, KIND_UINT, KIND_INT, KIND_FLOAT = range(4)

    def __init__(self, name, bir, kind, bits, mantissa=0, missing=None):
        self.name = name
        self._bir = bir
        self.kind = kind
        self.primitive_bitwidth = bits
        self.fp_mantissa_width = mantissa
        # Why Block IR cannot use this type, or None when it can.
        self.missing = missing

    # Triton's predicates, which kernels and helpers call on `x.dtype`.
    def is_int1(self):
        return self.name == "int1"

    def is_bool(self):
        return self.is_int1()

    def is_int(self):
        return self.kind in (dtype.KIND_BOOL, dtype.KIND_INT, dtype.KIND_UINT)

    def is_int_signed(self):
        return self.kind in (dtype.KIND_BOOL, dtype.KIND_INT)

    def is_int_unsigned(self):
        return self.kind == dtype.KIND_UINT

    def is_floating(self):
        return self.kind == dtype.KIND_FLOAT

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    @property
    def int_bitwidth(self):
        return self.primitive_bitwidth

    @property
    def scalar(self):
        return self

    @property
    def bir(self):
        """The Block IR spelling; raises for a type Block IR lacks."""
        if self.missing:
            raise UnsupportedType(self)
        return self._bir

    def to_ir(self, _builder=None):
        return self.bir

    def __eq__(self, other):
        return isinstance(other, dtype) and not isinstance(other, pointer_type) and \
            other.name == self.name

    def __hash__(self):
        return hash(("dtype", self.name))

    def __repr__(self):
        return f"triton.language.{self.name}"

    def __str__(self):
        return self.name


class pointer_type(dtype):
    """`tl.pointer_type(tl.float16)`: the address of an element in memory."""

    def __init__(self, element_ty, address_space=1, const=False):
        if not isinstance(element_ty, dtype) or isinstance(element_ty, pointer_type):
            raise TypeError(f"pointer_type needs a scalar element type, not {element_ty!r}")
        super().__init__(f"pointer<{element_ty.name}>", None, None, 64)
        self.element_ty = element_ty

    def is_ptr(self):
        return True

    def is_int(self):
        return False

    def is_floating(self):
        return False

    @property
    def bir(self):
        # Triton keeps booleans in memory as bytes; so does the translator.
        element = "i8" if self.element_ty.is_int1() else self.element_ty.bir
        return f"ptr<{element}>"

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty

    def __hash__(self):
        return hash(("ptr", self.element_ty.name))

    def __repr__(self):
        return f"pointer_type({self.element_ty!r})"

    def __str__(self):
        return f"*{self.element_ty.name}"


class UnsupportedType(Exception):
    def __init__(self, ty):
        super().__init__(f"{ty.name}: {ty.missing}")
        self.type = ty


_UNSIGNED = "Block IR has no unsigned integer types yet"
_FP8 = "Block IR has no 8-bit float types"

int1 = dtype("int1", "i1", dtype.KIND_BOOL, 1)
int8 = dtype("int8", "i8", dtype.KIND_INT, 8)
int16 = dtype("int16", "i16", dtype.KIND_INT, 16)
int32 = dtype("int32", "i32", dtype.KIND_INT, 32)
int64 = dtype("int64", "i64", dtype.KIND_INT, 64)
uint8 = dtype("uint8", None, dtype.KIND_UINT, 8, missing=_UNSIGNED)
uint16 = dtype("uint16", None, dtype.KIND_UINT, 16, missing=_UNSIGNED)
uint32 = dtype("uint32", None, dtype.KIND_UINT, 32, missing=_UNSIGNED)
uint64 = dtype("uint64", None, dtype.KIND_UINT, 64, missing=_UNSIGNED)
float16 = dtype("fp16", "f16", dtype.KIND_FLOAT, 16, 10)
bfloat16 = dtype("bf16", "bf16", dtype.KIND_FLOAT, 16, 7)
float32 = dtype("fp32", "f32", dtype.KIND_FLOAT, 32, 23)
float64 = dtype("fp64", "f64", dtype.KIND_FLOAT, 64, 52)
float8e4nv = dtype("fp8e4nv", None, dtype.KIND_FLOAT, 8, 3, missing=_FP8)
float8e5 = dtype("fp8e5", None, dtype.KIND_FLOAT, 8, 2, missing=_FP8)
float8e4b15 = dtype("fp8e4b15", None, dtype.KIND_FLOAT, 8, 3, missing=_FP8)
float8e4b8 = dtype("fp8e4b8", None, dtype.KIND_FLOAT, 8, 3, missing=_FP8)
float8e5b16 = dtype("fp8e5b16", None, dtype.KIND_FLOAT, 8, 2, missing=_FP8)

ALL = [int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16,
       float32, float64, float8e4nv, float8e5, float8e4b15, float8e4b8, float8e5b16]
BY_NAME = {t.name: t for t in ALL}
BY_BIR = {t._bir: t for t in ALL if t._bir}


def from_bir(text):
    """The type a Block IR type spelling names (`f32`, `ptr<i8>`)."""
    if text.startswith("ptr<"):
        return pointer_type(BY_BIR[text[4:-1]])
    return BY_BIR[text]


def integer_promote(a, b):
    """Triton's promotion of two integer types: the wider of the two (int8 +
    int8 stays int8: unlike C there is no promotion to int)."""
    if a.is_int_unsigned() != b.is_int_unsigned():
        raise TypeError(f"mixing signed and unsigned integers ({a} and {b})")
    return a if a.primitive_bitwidth >= b.primitive_bitwidth else b


def computation_type(a, a_is_literal, b, b_is_literal, div_or_mod):
    """The type both operands of an arithmetic op are converted to: Triton's
    rules, including weak Python-number operands."""
    if a_is_literal != b_is_literal:
        literal, tensor = (a, b) if a_is_literal else (b, a)
        if literal.kind <= tensor.kind:
            if div_or_mod and tensor in (float16, bfloat16):
                return float32
            return tensor
    if a.is_fp64() or b.is_fp64():
        return float64
    if a.is_fp32() or b.is_fp32():
        return float32
    if a.is_fp16() or b.is_fp16():
        return float32 if div_or_mod else float16
    if a.is_bf16() or b.is_bf16():
        if div_or_mod:
            return float32
        return bfloat16 if a.is_bf16() and b.is_bf16() else float32
    if not a.is_int() or not b.is_int():
        raise TypeError(f"unexpected operand types {a} and {b}")
    if div_or_mod and a.is_int_signed() != b.is_int_signed():
        raise TypeError(f"cannot divide {a} by {b}: one is signed and the other unsigned")
    return integer_promote(a, b)


def literal_type(value):
    """The type Triton gives a Python number used as a tensor operand."""
    if isinstance(value, bool):
        return int1
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return int32
        if -2**63 <= value < 2**63:
            return int64
        if 0 <= value < 2**64:
            return uint64
        raise ValueError(f"integer {value} does not fit in 64 bits")
    if isinstance(value, float):
        return float32
    raise TypeError(f"{type(value).__name__} value {value!r} is not a number")
