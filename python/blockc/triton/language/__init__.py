"""blockc's `triton.language`: what `import triton.language as tl` gives a
kernel. See core.py for the functions and docs/python.md for what differs
from Triton on a GPU."""

from . import core, math, extra, standard
# Triton 2.0 had libdevice as `tl.libdevice`; kernels written then (bitsandbytes'
# quantizers) still call it there.
from .extra import libdevice  # noqa: F401
from .core import *  # noqa: F401,F403
from .standard import softmax, swizzle2d, flip, reduce_or, topk  # noqa: F401
from . import random
from .random import (philox, philox_impl, randint, randint4x, rand, rand4x, randn, randn4x,  # noqa: F401
                     uint_to_uniform_float, pair_uniform_to_normal)
from .core import constexpr, tensor, dtype, pointer_type, range, static_range  # noqa: F401
