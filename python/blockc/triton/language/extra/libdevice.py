"""`libdevice.*` spellings of the math Block IR has (tanh and pow among them);
other libdevice functions are not available."""

from ..core import (exp, exp2, log, log2, sqrt, rsqrt, sin, cos, erf, floor, ceil, tanh,  # noqa: F401
                    pow, abs, fma, sigmoid)
from ..core import div_rn as div_rn, sqrt_rn as sqrt_rn  # noqa: F401
