"""Helpers shared by the conformance tests (test_conformance_*.py) and the tutorial
tests (test_tutorials.py).

The same files run two ways:
- against blockc's frontend: PYTHONPATH=build/python /usr/bin/python3 -m pytest FILE
- against real Triton's interpreter, the reference for what a kernel means:
  TRITON_INTERPRET=1 python3 -m pytest FILE (with the `triton` package installed and
  build/python not on the path). Tests of blockc's own limits and errors are skipped
  there, and error tests only check that something is raised.

Inputs are made with numpy from fixed seeds; every expected result is computed with
numpy, independently of the kernel. This file imports neither torch nor triton at
import time, so that the other tests in this folder load as before (under the
interpreter it patches one numpy 2.5 incompatibility of Triton's, below).

Marks: `blockc_only` (blockc's own limits and errors), `blockc_extension` (what blockc
accepts beyond Triton, listed in docs/python.md), `xfail_in_blockc` (a construct Block
IR lacks), `interpreter_limitation` (what Triton's interpreter gets wrong or lacks).
"""

import contextlib
import os
import re
import shlex
import sys

import numpy as np
import pytest

INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def python_command():
    """How to start another Python like this one, for tests that need a fresh
    process: sys.executable, unless BLOCKC_TEST_PYTHON gives the command (a Python
    of another userland runs through that userland's loader, which its own
    executable path alone does not say)."""
    command = os.environ.get("BLOCKC_TEST_PYTHON", "")
    return shlex.split(command) if command else [sys.executable]

# For tests of what only blockc does or rejects (Triton accepts these constructs).
blockc_only = pytest.mark.skipif(INTERPRET, reason="blockc's own behaviour; Triton's interpreter differs")


def xfail_in_blockc(reason):
    """A construct Block IR lacks: the test is written normally and must fail under
    blockc (strict), while Triton's interpreter runs it."""
    return pytest.mark.xfail(not INTERPRET, reason=reason, strict=True)


# For what blockc accepts beyond Triton (listed in docs/python.md, "How it differs from
# Triton on a GPU"): the test checks blockc's values; Triton rejects the construct, so
# the test is skipped under its interpreter.
def blockc_extension(reason):
    return pytest.mark.skipif(INTERPRET, reason="blockc accepts more than Triton: " + reason)


def interpreter_limitation(reason, when=None, ids=None):
    """What Triton's interpreter (TRITON_INTERPRET=1) gets wrong or lacks, while Triton
    on a GPU and blockc run it: under the interpreter the test must fail (a strict
    xfail, so it flips when the interpreter is fixed); under blockc it runs as written.
    `when`, a predicate on the test's parameters (a dict), or `ids`, the ids of the
    cases, limits the mark to some cases of a parametrized test."""
    return pytest.mark.interpreter_limitation(reason=reason, when=when, ids=ids)


# The kinds of value the interpreter gets wrong, shared by several files.
BF16_REASON = ("bfloat16 results are wrong (integers and sums stored as raw bits, "
               "comparisons on the bits, f32 casts truncated instead of rounded)")


def has_bf16(params):
    return any(value == "bfloat16" or str(value) == "torch.bfloat16"
               or (isinstance(value, (tuple, list)) and "bfloat16" in value)
               for value in params.values())


def pytest_configure(config):
    config.addinivalue_line("markers", "interpreter_limitation(reason, when=None): fails under "
                            "Triton's interpreter only (conftest.interpreter_limitation)")


def pytest_collection_modifyitems(config, items):
    if not INTERPRET:
        return
    for item in items:
        for mark in item.iter_markers("interpreter_limitation"):
            when, ids = mark.kwargs.get("when"), mark.kwargs.get("ids")
            callspec = getattr(item, "callspec", None)
            params = getattr(callspec, "params", {})
            if ids is not None:
                hit = callspec is not None and callspec.id in ids
            else:
                hit = when is None or when(params)
            if hit:
                item.add_marker(pytest.mark.xfail(
                    reason="Triton's interpreter: " + mark.kwargs["reason"], strict=True))
                break


def _fix_interpreter_for_numpy_2():
    """Triton 3.6's interpreter turns a scalar (a 1-element array) into a Python int
    with int(array), which numpy 2.5 refuses ("only 0-dimensional arrays can be
    converted to Python scalars"): every range() over a runtime bound fails. Take the
    element instead; nothing else in the interpreter changes."""
    try:
        from triton.runtime import interpreter
    except ImportError:
        return
    original = getattr(interpreter, "_patch_lang_tensor", None)
    if original is None or getattr(original, "_blockc_fixed", False):
        return

    def patch_lang_tensor(tensor, *args, **kwargs):
        result = original(tensor, *args, **kwargs)
        index = lambda self: int(np.asarray(self.handle.data).reshape(-1)[0])  # noqa: E731
        scope = args[0] if args else kwargs.get("scope")
        if scope is not None and hasattr(scope, "set_attr"):
            scope.set_attr(tensor, "__index__", index)
        else:
            tensor.__index__ = index
        return result

    patch_lang_tensor._blockc_fixed = True
    interpreter._patch_lang_tensor = patch_lang_tensor


if INTERPRET:
    _fix_interpreter_for_numpy_2()


INT_DTYPES = ("int8", "int16", "int32", "int64")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
ALL_DTYPES = INT_DTYPES + FLOAT_DTYPES

# numpy holds bfloat16 values in float32 arrays (numpy has no bfloat16).
NUMPY_DTYPES = {
    "bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "float16": np.float16, "bfloat16": np.float32, "float32": np.float32, "float64": np.float64,
}

# One unit in the last place, relative, of each float type.
ULP = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}


def is_int(dtype):
    return dtype in INT_DTYPES


def is_float(dtype):
    return dtype in FLOAT_DTYPES


def tl_dtype(name):
    import triton.language as tl
    return tl.int1 if name == "bool" else getattr(tl, name)


def torch_dtype(name):
    import torch
    return getattr(torch, name)


# --- rounding ---------------------------------------------------------------------


def bf16_round(x):
    """x rounded to the nearest bfloat16 (ties to even), returned as float32."""
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32).copy()
    nan = np.isnan(x)
    out[nan] = x[nan]
    return out


def round_to(x, dtype):
    """x converted to `dtype` as a cast in a kernel does (floats to nearest even, ints
    keeping the low bits); bfloat16 comes back as float32 holding bfloat16 values."""
    x = np.asarray(x)
    if dtype == "bfloat16":
        return bf16_round(x.astype(np.float32))
    if dtype == "bool":
        return x != 0
    if is_int(dtype) and x.dtype.kind == "f":
        return np.trunc(x).astype(np.int64).astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(NUMPY_DTYPES[dtype])


# --- inputs -----------------------------------------------------------------------


def rng(seed=0):
    return np.random.default_rng(seed)


def rand(gen, shape, dtype, low=None, high=None):
    """Random values of `dtype`: ints uniform over [low, high] (default: the whole
    type), floats uniform over [low, high) (default [-4, 4)) rounded to the type."""
    if dtype == "bool":
        return gen.random(shape) < 0.5
    if is_int(dtype):
        info = np.iinfo(dtype)
        lo = info.min if low is None else low
        hi = info.max if high is None else high
        return gen.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64).astype(dtype)
    lo = -4.0 if low is None else low
    hi = 4.0 if high is None else high
    return round_to(gen.uniform(lo, hi, shape), dtype)


def nonzero(x):
    """x with zeros replaced by ones (divisors)."""
    x = np.array(x, copy=True)
    x[x == 0] = 1
    return x


# --- tensors ----------------------------------------------------------------------


def to_torch(a, dtype=None):
    """A torch CPU tensor holding the numpy array `a` as `dtype` (default: a's own)."""
    import torch
    a = np.asarray(a)
    if dtype is None:
        dtype = "bool" if a.dtype == np.bool_ else a.dtype.name
    if dtype == "bfloat16":
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(torch.bfloat16)
    return torch.from_numpy(np.array(a, dtype=NUMPY_DTYPES[dtype], copy=True, order="C"))


def to_numpy(t):
    """A torch tensor's values as numpy (bfloat16 as float32); numpy arrays pass."""
    if isinstance(t, np.ndarray):
        return t
    import torch
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy()


def empty(shape, dtype, fill=0):
    """A torch CPU tensor of `dtype` filled with `fill` (a sentinel for lanes that
    must stay unwritten)."""
    import torch
    return torch.full(shape if isinstance(shape, tuple) else (shape,), fill, dtype=torch_dtype(dtype))


# --- comparisons ------------------------------------------------------------------


def assert_equal(actual, expected, err_msg=""):
    """Exactly equal values (NaNs in the same places count as equal)."""
    np.testing.assert_array_equal(to_numpy(actual), np.asarray(expected), err_msg=err_msg)


def assert_close(actual, expected, rtol, atol=0.0, err_msg=""):
    np.testing.assert_allclose(to_numpy(actual).astype(np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol, equal_nan=True, err_msg=err_msg)


# --- errors -----------------------------------------------------------------------


def line_of(path, marker):
    """The 1-based number of the line of `path` that ends with the comment
    `# <marker>`: the line an error must point at."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if line.rstrip().endswith("# " + marker):
                return number
    raise LookupError(f"no line ends with '# {marker}' in {path}")


def assert_points_at(exc, path, line):
    """The message names the file (its base name suffices) and the line."""
    message = str(exc)
    base = re.escape(os.path.basename(path))
    assert re.search(base + r'(?:"?,? line |:)' + str(line) + r"\b", message), (
        f"the error should name {os.path.basename(path)}:{line}; it says:\n{message}")


@contextlib.contextmanager
def compile_error_at(path, marker, match=None):
    """The body must raise triton.CompilationError naming the file `path` and the
    line marked `# <marker>`; `match`, a regular expression, must be found in the
    message too (case-insensitive). Under Triton's interpreter any exception passes:
    its errors are Python's own."""
    line = line_of(path, marker)
    if INTERPRET:
        with pytest.raises(Exception):
            yield
        return
    import triton
    with pytest.raises(triton.CompilationError) as info:
        yield
    assert_points_at(info.value, path, line)
    if match is not None:
        assert re.search(match, str(info.value), re.IGNORECASE), (
            f"the error should mention /{match}/; it says:\n{info.value}")
