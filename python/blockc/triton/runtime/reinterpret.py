"""`triton.reinterpret(tensor, dtype)`: a tensor's memory passed to a kernel as another
element type, as Triton's TensorWrapper does. It is how a kernel gets float8 data from a
torch that has no float8 dtypes (uint8 storage read as `tl.float8e4nv`), or int16 bits as
bf16. Widths are not checked, as in Triton: the kernel's pointer type decides what it reads.
"""

from ...frontend import dtypes


class TensorWrapper:
    """`base`'s memory with `dtype` (a triton.language dtype) as its element type. A launch
    takes it where it takes the tensor; only the pointer's element type differs."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.device = getattr(base, "device", None)
        self.shape = tuple(base.shape)

    def data_ptr(self):
        if hasattr(self.base, "data_ptr"):
            return self.base.data_ptr()
        return self.base.__array_interface__["data"][0]

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return len(self.shape)

    def stride(self, *dim):
        return self.base.stride(*dim)

    def element_size(self):
        return self.base.element_size()

    def numel(self):
        return self.base.numel()

    def size(self, *dim):
        return self.base.size(*dim)

    def __repr__(self):
        return f"TensorWrapper[{self.dtype}]({self.base!r})"


def reinterpret(tensor, dtype):
    """`tensor` (a torch tensor, a numpy array or a TensorWrapper) read as `dtype`; a wrapper
    asked for its base's own dtype gives the base back, as in Triton."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        tensor = tensor.base
    elif not (hasattr(tensor, "data_ptr") or hasattr(tensor, "__array_interface__")):
        raise TypeError(f"triton.reinterpret takes a tensor or a numpy array, not "
                        f"{type(tensor).__name__}")
    if not isinstance(dtype, dtypes.dtype) or dtype.is_ptr() or dtype.is_block():
        raise TypeError(f"triton.reinterpret: {dtype!r} is not an element type of "
                        "triton.language (tl.float8e4nv, tl.bfloat16, ...)")
    return TensorWrapper(tensor, dtype)


def unwrapped(value):
    """The tensor whose memory `value` is: its base for a TensorWrapper."""
    return value.base if type(value) is TensorWrapper else value
