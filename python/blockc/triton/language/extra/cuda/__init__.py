"""`triton.language.extra.cuda`: its `libdevice` is blockc's one libdevice."""

import sys

from .. import libdevice  # noqa: F401

sys.modules[__name__ + ".libdevice"] = libdevice
