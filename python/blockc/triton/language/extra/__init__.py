"""`triton.language.extra`: the libdevice functions Block IR has."""

from . import libdevice  # noqa: F401
