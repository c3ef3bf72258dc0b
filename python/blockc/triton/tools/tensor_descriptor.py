"""`TensorDescriptor`: a tensor and the block a kernel reads it in, made on the host
and passed as a kernel argument (Triton's `triton.tools.tensor_descriptor`). A kernel
receives it as the base pointer, the shape and the strides (one runtime parameter
each); the block shape and padding are part of the kernel's specialisation. A CPU has
no tensor memory accelerator: `desc.load`/`desc.store` are bounds-checked block
accesses, as a block pointer's."""

from dataclasses import dataclass
from typing import Any, List


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        self.shape = [int(d) for d in self.shape]
        self.strides = [int(s) for s in self.strides]
        self.block_shape = [int(b) for b in self.block_shape]
        rank = len(self.shape)
        if not (len(self.strides) == len(self.block_shape) == rank) or rank < 1:
            raise ValueError(f"TensorDescriptor: shape {self.shape}, strides {self.strides} and "
                             f"block_shape {self.block_shape} must have one length, at least 1")
        if self.strides[-1] != 1:
            raise ValueError(f"TensorDescriptor: the last dimension must be contiguous (stride "
                             f"1), got strides {self.strides}")
        if any(b < 1 for b in self.block_shape):
            raise ValueError(f"TensorDescriptor: block_shape {self.block_shape} must be positive")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding is 'zero' or 'nan', got "
                             f"{self.padding!r}")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        return TensorDescriptor(tensor, tensor.shape, tensor.stride(), block_shape, padding)
