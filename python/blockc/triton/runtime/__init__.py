"""`triton.runtime`: the JIT, the autotuner and the (CPU) driver."""

from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .driver import driver  # noqa: F401
from .reinterpret import TensorWrapper, reinterpret  # noqa: F401
from .jit import JITFunction, KernelArgumentError, BoundsError, DeviceAssertionError, jit  # noqa: F401
from ...frontend.errors import CompilationError as OutOfResources  # noqa: F401
