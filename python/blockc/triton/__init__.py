"""blockc's implementation of the `triton` package: `@triton.jit` kernels
translated to Block IR and run on the CPU (docs/python.md).

Import it as `blockc.triton`, or put build/python on PYTHONPATH, where a
`triton` package forwards to this one, to run Triton scripts unchanged.
"""

__version__ = "3.6.0+blockc"

from . import language, runtime, testing  # noqa: F401
from .runtime import (Config, autotune, heuristics, jit, JITFunction, KernelArgumentError,  # noqa: F401
                      BoundsError, DeviceAssertionError, TensorWrapper, reinterpret)
from ..frontend.errors import CompilationError  # noqa: F401
from . import compiler, profiler, tools  # noqa: F401


def set_allocator(allocator):
    """Triton's hook for the memory of descriptors a kernel makes with
    tl.make_tensor_descriptor (global scratch on a GPU). blockc builds them in
    the program's own frame, so the allocator is kept and never called."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"triton.set_allocator takes a callable (size, alignment, stream) -> "
                        f"buffer, or None; got {type(allocator).__name__}")
    _allocator = allocator


_allocator = None


def cdiv(x, y):
    """Ceiling division of two Python ints (outside a kernel)."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


class MockTensor:
    """Stands for a tensor argument where only its dtype matters."""

    def __init__(self, dtype):
        self.dtype = dtype

    @staticmethod
    def data_ptr():
        return 0
