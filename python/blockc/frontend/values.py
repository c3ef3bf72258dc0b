"""What a translated kernel computes with: tensors (Block IR values) and the
block pointers of `tl.make_block_ptr`, which exist only in the translator.
"""

from . import dtypes
from .dtypes import block_pointer_type, block_type


def builtin(fn):
    """Marks a function the translator calls with `_builder=`: a `tl.*`
    function or a tensor method. Outside a kernel it explains itself."""
    fn.__blockc_builtin__ = True
    return fn


def is_builtin(fn):
    return getattr(getattr(fn, "__func__", fn), "__blockc_builtin__", False)


class tensor:
    """A Block IR value: an SSA name, an element type and a shape (empty for
    a scalar). Operators are translated from the syntax tree, so a tensor has
    no arithmetic of its own; its methods are Triton's tensor methods."""

    def __init__(self, handle, ty, shape=()):
        self.handle = handle
        self.dtype = ty
        self.shape = tuple(shape)

    @property
    def type(self):
        # Triton: a block's type is a block_type, a scalar's its dtype (so
        # that `x_ptr.type.element_ty` is the pointee).
        return block_type(self.dtype, self.shape) if self.shape else self.dtype

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def bir_type(self):
        base = self.dtype.bir
        return f"{base}[{', '.join(map(str, self.shape))}]" if self.shape else base

    def __bool__(self):
        raise TypeError("the truth value of a tensor is known only when the kernel runs; "
                        "use it in an `if` statement or tl.where")

    def __repr__(self):
        return f"tensor({self.handle}, {self.bir_type})"

    def __str__(self):
        return repr(self)


class block_pointer:
    """A `tl.make_block_ptr`: a tile of a strided array. Loads and stores
    through it become a pointer block and a mask (Block IR has no block
    pointers); `tl.advance` moves its offsets. Its fields are scalar tensors
    (offsets i32, shape and strides i64, as Triton types them) so that a loop
    can carry it like any value."""

    def __init__(self, base, shape, strides, offsets, block_shape, order):
        self.base = base
        self.shape_values = tuple(shape)
        self.strides = tuple(strides)
        self.offsets = tuple(offsets)
        self.block_shape = tuple(block_shape)
        self.order = tuple(order)

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def type(self):
        return block_pointer_type(block_type(self.base.dtype.element_ty, self.block_shape))

    @builtin
    def advance(self, offsets, _builder=None):
        """`p.advance(offsets)`, Triton's tensor method for tl.advance(p, offsets)."""
        return _builder.advance(self, offsets)

    def fields(self):
        return [self.base, *self.shape_values, *self.strides, *self.offsets]

    def with_fields(self, values):
        rank = len(self.block_shape)
        base, rest = values[0], values[1:]
        return block_pointer(base, rest[:rank], rest[rank:2 * rank], rest[2 * rank:],
                             self.block_shape, self.order)

    def __repr__(self):
        return f"block_pointer({self.base!r}, block_shape={self.block_shape})"


class tensor_descriptor:
    """`tl.make_tensor_descriptor(base, shape, strides, block_shape)`: a
    tensor in memory and the block it is read in. A CPU has no tensor memory
    accelerator: each load or store at `offsets` is the block pointer's
    access, every dimension bounds-checked, out-of-bounds reads zero."""

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base = base
        self.shape_values = list(shape)
        self.strides = list(strides)
        self.block_shape = tuple(block_shape)
        self.padding = padding

    @property
    def shape(self):
        """The tensor's shape (scalars), as Triton's `desc.shape`."""
        return self.shape_values

    @property
    def dtype(self):
        return self.base.dtype.element_ty

    @builtin
    def load(self, offsets, _builder=None):
        return _builder.descriptor_load(self, offsets)

    @builtin
    def store(self, offsets, value, _builder=None):
        return _builder.descriptor_store(self, offsets, value)

    def __repr__(self):
        return f"tensor_descriptor({self.base!r}, block_shape={self.block_shape})"


def scalar_dtype(value):
    if isinstance(value, tensor):
        return value.dtype
    return dtypes.literal_type(value)
