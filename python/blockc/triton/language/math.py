"""`tl.math`: the math functions under their `triton.language.math` names; any other
libdevice name too, as Triton 2.1 and 2.2 had them here (`tl.math.rint`, `tl.math.llrint`)."""

from .core import (exp, exp2, log, log2, sqrt, sqrt_rn, rsqrt, sin, cos, erf, floor, ceil,  # noqa: F401
                   sigmoid, tanh, abs, fma, fdiv, div_rn, pow, cdiv, umulhi)
from .core import maximum as max, minimum as min  # noqa: F401


def __getattr__(name):
    from .extra import libdevice
    try:
        return getattr(libdevice, name)
    except AttributeError:
        raise AttributeError(f"module 'triton.language.math' has no attribute {name!r}") \
            from None
