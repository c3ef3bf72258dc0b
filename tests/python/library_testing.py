"""What the tests of libraries' kernels (test_libraries.py, test_vllm_*.py, test_fla.py,
test_mamba.py, ...) share: loading a library file kept under libraries/, and comparing a
result with a float64 reference within the tolerance of the dtype it was computed in."""

import importlib
import importlib.util
import os
import sys
import types

import numpy as np
import torch

LIBRARIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libraries")

_modules = {}


def load(library, name):
    """The module libraries/<library>/<name>.py, imported under a name of its own
    (files of different libraries share names); its folder is on sys.path for the
    library's helper module."""
    key = f"blockc_lib_{library}_{name}"
    if key not in _modules:
        folder = os.path.join(LIBRARIES, library)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location(key, os.path.join(folder, name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
        _modules[key] = module
    return _modules[key]


def package_module(library, name):
    """libraries/<library>/<name>.py imported as blockc_lib_<library>.<name>, a module of a
    package made for the folder: for libraries whose files import each other relatively."""
    package = f"blockc_lib_{library}"
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [os.path.join(LIBRARIES, library)]
        sys.modules[package] = module
    return importlib.import_module(f"{package}.{name}")


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# (rtol, atol) for a result rounded to the dtype once or a few times.
TOL = {torch.float32: (1e-4, 1e-5), torch.float16: (1e-2, 1e-2), torch.bfloat16: (4e-2, 4e-2)}
FLOAT_DTYPES = ["float32", "float16", "bfloat16"]


def check(actual, expected, dtype=torch.float32, scale=1.0, err_msg=""):
    """actual (any dtype) against expected (float64), within the tolerance of `dtype`
    times `scale`."""
    rtol, atol = TOL[dtype]
    a = actual.detach().double().numpy()
    e = expected.detach().double().numpy()
    assert a.shape == e.shape, f"{err_msg}: shape {a.shape} != {e.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol * scale, atol=atol * scale, err_msg=err_msg)


def randn(*shape, dtype=torch.float32, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)
