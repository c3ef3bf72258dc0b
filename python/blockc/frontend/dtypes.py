"""Element types as Triton names them, and how they map onto Block IR.

A Triton `dtype` and a Block IR element type are the same thing seen from two
sides; one object carries both names so that the translator never keeps two
tables in step. Types Block IR does not have (the GPU vendors' fp8 variants)
exist too, so that a kernel naming them gets an error that says what is
missing instead of an AttributeError on `tl.float8e4b15`.
"""

import enum


class dtype:
    """A scalar element type: `tl.float32`, `tl.int8`, ... Its predicates
    and attributes are Triton's, with Triton's answers (int1 counts as an
    unsigned integer, as it does there)."""

    # Triton's kinds, ordered as its promotion of weak (Python number) operands
    # compares them: a literal of a kind <= the tensor's kind never widens it.
    KIND_BOOL, KIND_UINT, KIND_INT, KIND_FLOAT = range(4)

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
                "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    class SIGNEDNESS(enum.Enum):
        SIGNED = 0
        UNSIGNED = 1

    class KIND(enum.Enum):
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    def __init__(self, name, bir, kind, bits, mantissa=0, missing=None, bias=None):
        self.name = name
        self._bir = bir
        # The promotion kind above; Triton's own `kind()` is a method.
        self._kind = kind
        self.primitive_bitwidth = bits
        self.itemsize = bits // 8
        if kind == dtype.KIND_FLOAT:
            self.fp_mantissa_width = mantissa
            self.exponent_bias = bias
        elif kind is not None:
            self.int_signedness = (dtype.SIGNEDNESS.SIGNED if name in dtype.SINT_TYPES
                                   else dtype.SIGNEDNESS.UNSIGNED)
            self.int_bitwidth = bits
        # Why Block IR cannot use this type, or None when it can.
        self.missing = missing

    # Triton's predicates, which kernels and helpers call on `x.dtype`.
    def is_fp8(self):
        return self.name.startswith("fp8")  # not a pointer to one

    def is_fp8e4nv(self):
        return self.name == "fp8e4nv"

    def is_fp8e4b8(self):
        return self.name == "fp8e4b8"

    def is_fp8e4b15(self):
        return self.name == "fp8e4b15"

    def is_fp8e5(self):
        return self.name == "fp8e5"

    def is_fp8e5b16(self):
        return self.name == "fp8e5b16"

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_int1(self):
        return self.name == "int1"

    def is_int8(self):
        return self.name == "int8"

    def is_int16(self):
        return self.name == "int16"

    def is_int32(self):
        return self.name == "int32"

    def is_int64(self):
        return self.name == "int64"

    def is_uint8(self):
        return self.name == "uint8"

    def is_uint16(self):
        return self.name == "uint16"

    def is_uint32(self):
        return self.name == "uint32"

    def is_uint64(self):
        return self.name == "uint64"

    def is_floating(self):
        return self.name in dtype.FP_TYPES

    def is_standard_floating(self):
        return self.name in dtype.STANDARD_FP_TYPES

    def is_int_signed(self):
        return self.name in dtype.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in dtype.UINT_TYPES

    def is_int(self):
        return self.name in dtype.SINT_TYPES or self.name in dtype.UINT_TYPES

    def is_bool(self):
        return self.is_int1()

    def kind(self):
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        if self.is_int():
            return dtype.KIND.INTEGRAL
        if self.is_floating():
            return dtype.KIND.FLOATING
        raise TypeError(f"{self} has no kind")

    def get_int_max_value(self):
        if self.is_int_signed():
            return 2**(self.int_bitwidth - 1) - 1
        if self.is_int_unsigned():
            return 2**self.int_bitwidth - 1
        raise TypeError(f"{self} is not an integer type")

    def get_int_min_value(self):
        if self.is_int_signed():
            return -2**(self.int_bitwidth - 1)
        if self.is_int_unsigned():
            return 0
        raise TypeError(f"{self} is not an integer type")

    @staticmethod
    def is_dtype(type_str):
        return type_str in (dtype.SINT_TYPES + dtype.UINT_TYPES + dtype.FP_TYPES +
                            dtype.OTHER_TYPES)

    @staticmethod
    def is_void():
        raise RuntimeError("Not implemented")  # Triton's answer, kept

    @staticmethod
    def is_block():
        return False

    @staticmethod
    def is_ptr():
        return False

    @staticmethod
    def is_const():
        return False

    @property
    def scalar(self):
        return self

    def with_element_ty(self, element_ty):
        return element_ty

    @property
    def bir(self):
        """The Block IR spelling; raises for a type Block IR lacks."""
        if self.missing:
            raise UnsupportedType(self)
        return self._bir

    def to_ir(self, _builder=None):
        return self.bir

    def codegen_name(self):
        if self.name.startswith("fp"):
            return "float" + self.name[2:]
        if self.name.startswith("bf"):
            return "bfloat" + self.name[2:]
        return self.name

    @property
    def cache_key_part(self):
        return self.name

    def __call__(self, *args, **kwargs):
        # Inside a kernel the translator makes `tl.float32(x)` a conversion;
        # here, outside one, there is nothing to convert into.
        raise TypeError(f"tl.{self.codegen_name()}(...) converts a value only inside a "
                        f"@triton.jit function; outside one, use x.to(tl.{self.codegen_name()}) "
                        "in a kernel or a numpy/torch dtype")

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.name,))

    def __repr__(self):
        return f"triton.language.{self.codegen_name()}"

    def __str__(self):
        return self.name


class pointer_type(dtype):
    """`tl.pointer_type(tl.float16)`: the address of an element in memory."""

    def __init__(self, element_ty, address_space=1, const=False):
        while hasattr(element_ty, "__blockc_constexpr__") and not isinstance(element_ty, type):
            element_ty = element_ty.value
        if not isinstance(element_ty, dtype) or isinstance(element_ty, (pointer_type,
                                                                        block_type)):
            raise TypeError(f"pointer_type needs a scalar element type, not {element_ty!r}")
        name = f"{'const_' if const else ''}pointer<{element_ty.name}>"
        super().__init__(name, None, None, 64)
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const

    def is_ptr(self):
        return True

    def is_const(self):
        return self.const

    @property
    def bir(self):
        # Triton keeps booleans in memory as bytes; so does the translator.
        element = "i8" if self.element_ty.is_int1() else self.element_ty.bir
        return f"ptr<{element}>"

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty and \
            other.address_space == self.address_space and other.const == self.const

    def __hash__(self):
        return hash(("ptr", self.element_ty.name, self.address_space, self.const))

    def __repr__(self):
        return self.name

    def __str__(self):
        return self.name


class block_pointer_type(dtype):
    """`p.type` of a block pointer (tl.make_block_ptr): Triton's
    `pointer_type(block_type(...))`, whose `element_ty` is the block's type (code
    that FlagGems generates casts a result to `p.type.element_ty`)."""

    def __init__(self, block):
        super().__init__(f"pointer<{block.name}>", None, None, 64)
        self.element_ty = block

    def is_ptr(self):
        return True

    def __eq__(self, other):
        return isinstance(other, block_pointer_type) and other.element_ty == self.element_ty

    def __hash__(self):
        return hash(("block_pointer_type", self.element_ty))


class block_type(dtype):
    """`x.type` of a block: its element type and shape (a scalar's type is
    its dtype, as in Triton)."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = tuple(shape)
        if not self.shape:
            raise TypeError("0d block_type is forbidden")
        self.numel = 1
        for d in self.shape:
            self.numel *= d
        super().__init__(f"<{self.shape}, {element_ty}>", None, None,
                         getattr(element_ty, "primitive_bitwidth", 0))

    def is_block(self):
        return True

    @property
    def scalar(self):
        return self.element_ty

    def get_block_shapes(self):
        return self.shape

    def with_element_ty(self, element_ty):
        return block_type(element_ty, self.shape)

    def __eq__(self, other):
        return isinstance(other, block_type) and other.element_ty == self.element_ty and \
            other.shape == self.shape

    def __hash__(self):
        return hash((self.element_ty, self.shape))

    def __repr__(self):
        return self.name

    def __str__(self):
        return self.name


class UnsupportedType(Exception):
    def __init__(self, ty):
        super().__init__(f"{ty.name}: {ty.missing}")
        self.type = ty


_FP8_VARIANT = ("blockc has the OCP 8-bit floats, float8e4nv and float8e5; this variant (a "
                "GPU vendor's, with another bias or NaN encoding) is not supported")

int1 = dtype("int1", "i1", dtype.KIND_BOOL, 1)
int8 = dtype("int8", "i8", dtype.KIND_INT, 8)
int16 = dtype("int16", "i16", dtype.KIND_INT, 16)
int32 = dtype("int32", "i32", dtype.KIND_INT, 32)
int64 = dtype("int64", "i64", dtype.KIND_INT, 64)
# Block IR's integers have no sign: an unsigned type is its width's integer,
# and the translator picks the unsigned ops (udiv, cmp ult, lshr, ucast...).
uint8 = dtype("uint8", "i8", dtype.KIND_UINT, 8)
uint16 = dtype("uint16", "i16", dtype.KIND_UINT, 16)
uint32 = dtype("uint32", "i32", dtype.KIND_UINT, 32)
uint64 = dtype("uint64", "i64", dtype.KIND_UINT, 64)
float16 = dtype("fp16", "f16", dtype.KIND_FLOAT, 16, 10, bias=15)
bfloat16 = dtype("bf16", "bf16", dtype.KIND_FLOAT, 16, 7, bias=127)
float32 = dtype("fp32", "f32", dtype.KIND_FLOAT, 32, 23, bias=127)
float64 = dtype("fp64", "f64", dtype.KIND_FLOAT, 64, 52, bias=1023)
# Storage types in Block IR: the translator computes on them in f32 and
# rounds back, as a GPU without fp8 arithmetic does.
float8e4nv = dtype("fp8e4nv", "f8e4m3", dtype.KIND_FLOAT, 8, 3, bias=7)
float8e5 = dtype("fp8e5", "f8e5m2", dtype.KIND_FLOAT, 8, 2, bias=15)
float8e4b15 = dtype("fp8e4b15", None, dtype.KIND_FLOAT, 8, 3, missing=_FP8_VARIANT, bias=15)
float8e4b8 = dtype("fp8e4b8", None, dtype.KIND_FLOAT, 8, 3, missing=_FP8_VARIANT, bias=8)
float8e5b16 = dtype("fp8e5b16", None, dtype.KIND_FLOAT, 8, 2, missing=_FP8_VARIANT, bias=16)
void = dtype("void", None, None, 0, missing="void is the type of nothing, not of a value")

ALL = [int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16,
       float32, float64, float8e4nv, float8e5, float8e4b15, float8e4b8, float8e5b16]
BY_NAME = {t.name: t for t in ALL}
BY_BIR = {t._bir: t for t in ALL if t._bir and t.kind != dtype.KIND_UINT}


def from_bir(text):
    """The type a Block IR type spelling names (`f32`, `ptr<i8>`)."""
    if text.startswith("ptr<"):
        return pointer_type(BY_BIR[text[4:-1]])
    return BY_BIR[text]


def integer_promote(a, b):
    """Triton's promotion of two integer types: the wider of the two (int8 +
    int8 stays int8: unlike C there is no promotion to int); between signed
    and unsigned, C's usual conversions: the unsigned type when it is at
    least as wide, else the signed one."""
    a_unsigned, b_unsigned = a._kind == dtype.KIND_UINT, b._kind == dtype.KIND_UINT
    if a_unsigned == b_unsigned:
        return a if a.primitive_bitwidth >= b.primitive_bitwidth else b
    unsigned, signed = (a, b) if a_unsigned else (b, a)
    return unsigned if unsigned.primitive_bitwidth >= signed.primitive_bitwidth else signed


def computation_type(a, a_is_literal, b, b_is_literal, div_or_mod):
    """The type both operands of an arithmetic op are converted to: Triton's
    rules, including weak Python-number operands."""
    if a_is_literal != b_is_literal:
        literal, tensor = (a, b) if a_is_literal else (b, a)
        # Kinds as Triton orders them, signed and unsigned integers one kind: a Python
        # int keeps a uint8 tensor uint8 (Triton 3.6 on a GPU).
        if literal.kind().value <= tensor.kind().value:
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
    if a.is_fp8() and b.is_fp8():
        return a if a == b else float16
    if not a.is_int() or not b.is_int():
        raise TypeError(f"unexpected operand types {a} and {b}")
    if div_or_mod and (a._kind == dtype.KIND_UINT) != (b._kind == dtype.KIND_UINT):
        raise TypeError(f"cannot divide {a} by {b}: one is signed and the other unsigned")
    return integer_promote(a, b)


def literal_type(value):
    """The type Triton gives a Python number used as a tensor operand."""
    if isinstance(value, bool):
        return int1
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return int32
        if 2**31 <= value < 2**32:
            return uint32
        if -2**63 <= value < 2**63:
            return int64
        if 0 <= value < 2**64:
            return uint64
        raise ValueError(f"integer {value} does not fit in 64 bits")
    if isinstance(value, float):
        return float32
    raise TypeError(f"{type(value).__name__} value {value!r} is not a number")
