"""`import triton` for scripts run with PYTHONPATH=build/python: blockc's
implementation under Triton's name. It is opt-in (only that folder holds it),
so it never shadows a real Triton installation.

The submodules are registered under both names so that `triton.language`
and `blockc.triton.language` are one module: `tl.constexpr` and the dtypes
must be the same objects whichever name a script imports them by.
"""

import sys

import blockc.triton as _impl

for _name, _module in list(sys.modules.items()):
    if _name == "blockc.triton" or _name.startswith("blockc.triton."):
        sys.modules["triton" + _name[len("blockc.triton"):]] = _module
