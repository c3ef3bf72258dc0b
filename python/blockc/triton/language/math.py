"""`tl.math`: the math functions under their `triton.language.math` names."""

from .core import (exp, exp2, log, log2, sqrt, sqrt_rn, rsqrt, sin, cos, erf, floor, ceil,  # noqa: F401
                   sigmoid, tanh, abs, fma, fdiv, div_rn, pow, cdiv, umulhi)
from .core import maximum as max, minimum as min  # noqa: F401
