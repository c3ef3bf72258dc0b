"""`triton.language.extra`: libdevice, also under its cuda and hip names."""

from . import libdevice  # noqa: F401
from . import cuda, hip  # noqa: F401
