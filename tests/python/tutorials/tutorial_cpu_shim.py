"""CPU answers for the questions Triton's tutorials 04-09 ask of their machine, so that
their text runs unchanged on the CPU (tests/python/test_tutorials_advanced.py). Written
for blockc's tests; it is not part of blockc, and gives nothing to the `triton` package:
what blockc's `triton` lacks stays missing.

importing(), around the import of a tutorial:
- a `tabulate` module where none is installed: 04-low-memory-dropout.py prints its
  demo's tables with `tabulate.tabulate(rows)` at import;
- PYTEST_VERSION in the environment, as pytest 8.2 and later set it: 06-fused-attention.py
  then autotunes over its one testing config instead of 36;
- no fp8 stand-ins (below), so that a tutorial's own `TORCH_HAS_FP8 = hasattr(torch,
  'float8_e5m2')` says what this torch has.

cpu_answers(), while a test runs (as tests/python/libraries/mamba/mamba_shim.py's
cpu_cuda), each only where torch lacks it:
- `torch.cuda.get_device_properties(...)` answers `multi_processor_count`, the number of
  programs a persistent kernel launches (09-persistent-matmul.py's NUM_SMS), with the
  count blockc's driver gives (one per CPU); `torch.cuda.get_device_capability()`
  answers (0, 0), no NVIDIA architecture, so the tutorials' `is_hopper()` is False;
- `torch.float8_e5m2`/`torch.float8_e4m3fn` (torch 2.1 and later): the attention,
  grouped GEMM and persistent matmul wrappers compare a tensor's dtype with them
  (`FP8_OUTPUT=q.dtype == torch.float8_e5m2`); a stand-in equal to no dtype gives those
  comparisons their answer for fp16 tensors, False.
"""

import contextlib
import os
import sys
import types

import torch

_FP8_NAMES = ("float8_e5m2", "float8_e4m3fn")


class _Fp8Standin:
    """Stands for a torch fp8 dtype this torch lacks: equal to nothing but itself."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name} (absent from torch {torch.__version__})"


def _tabulate(rows, headers=(), **_):
    lines = [" ".join(str(h) for h in headers)] if headers else []
    lines += [" ".join(str(v) for v in row) for row in rows]
    return "\n".join(lines)


def _device_properties(device=None):
    import triton
    props = triton.runtime.driver.active.utils.get_device_properties()
    return types.SimpleNamespace(multi_processor_count=props["multiprocessor_count"], name="cpu")


def _device_capability(device=None):
    return (0, 0)


def _remove_fp8_standins():
    for name in _FP8_NAMES:
        if isinstance(getattr(torch, name, None), _Fp8Standin):
            delattr(torch, name)


@contextlib.contextmanager
def importing():
    saved_env = os.environ.get("PYTEST_VERSION")
    os.environ.setdefault("PYTEST_VERSION", "8.2")
    fp8 = {name: getattr(torch, name) for name in _FP8_NAMES
           if isinstance(getattr(torch, name, None), _Fp8Standin)}
    _remove_fp8_standins()
    added_tabulate = False
    try:
        import tabulate  # noqa: F401
    except ImportError:
        module = types.ModuleType("tabulate")
        module.tabulate = _tabulate
        sys.modules["tabulate"] = module
        added_tabulate = True
    try:
        yield
    finally:
        if added_tabulate:
            del sys.modules["tabulate"]  # the tutorial keeps its reference
        for name, value in fp8.items():
            setattr(torch, name, value)
        if saved_env is None:
            del os.environ["PYTEST_VERSION"]


@contextlib.contextmanager
def cpu_answers():
    saved = torch.cuda.get_device_properties, torch.cuda.get_device_capability
    if not torch.cuda.is_available():
        torch.cuda.get_device_properties = _device_properties
        torch.cuda.get_device_capability = _device_capability
    added = [name for name in _FP8_NAMES if not hasattr(torch, name)]
    for name in added:
        setattr(torch, name, _Fp8Standin(name))
    try:
        yield
    finally:
        for name in added:
            if isinstance(getattr(torch, name, None), _Fp8Standin):
                delattr(torch, name)
        torch.cuda.get_device_properties, torch.cuda.get_device_capability = saved
