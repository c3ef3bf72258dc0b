"""The launch's fast path: what a repeated `kernel[grid](...)` runs.

Triton generates a launcher per signature; so does this module. For each
@triton.jit function it writes two small Python functions once:

- a binder with the kernel's own parameters (defaults included), so that
  CPython binds a call's positions, names and defaults in C, and
- a key function that types each argument in line, as the full
  specialisation would, without building a dict or walking the signature.

A launch whose key finds a compiled kernel then costs the two calls, a dict
lookup and the C++ launch. Anything the fast path does not know (a binding
error, a tuple argument, a numpy scalar, an unknown keyword) goes to the full
path in jit.py, which has the messages.
"""

import keyword
import os
import sys

from .reinterpret import unwrapped

# A key part the fast path cannot compute: the lookup misses, and the full path
# decides (it types the argument, or refuses it with a message).
UNKEYED = object()

_INT32 = 2**31
_INT64 = 2**63


# numpy.ndarray once numpy is imported: a global the hot paths read without a
# call (blockc does not import numpy itself).
_ndarray = None


def _ndarray_type():
    global _ndarray
    if _ndarray is None:
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            _ndarray = numpy.ndarray
    return _ndarray


def runtime_key(value, one_specialises):
    """The part of the launch key a runtime argument gives: what its Param's
    type depends on (jit.py's `_param`), from the value's type alone."""
    kind = type(value)
    if kind is int:
        if value == 1 and one_specialises:
            return 1
        if -_INT32 <= value < _INT32:
            return 32
        if -_INT64 <= value < _INT64:
            return 64
        return UNKEYED
    if kind is (_ndarray or _ndarray_type()):
        # An array, not a numpy scalar (those are typed by value).
        return (value.dtype, "array") if value.ndim > 0 else UNKEYED
    if kind is float or kind is bool or value is None:
        return kind
    if hasattr(value, "data_ptr"):
        # The device itself, not its .type: a quarter of a microsecond less
        # per tensor, and a key all the same (torch's devices hash by value).
        return (value.dtype, value.device)
    if getattr(value, "ndim", 0) > 0 and hasattr(kind, "__array_interface__"):
        return (value.dtype, "array")
    return UNKEYED


def constexpr_key(value):
    return (type(value), value)


_BINDER_OPTIONS = "_blockc_launch_options"


def make_binder(signature):
    """A function taking the kernel's parameters that returns (their values
    in order, the other keyword arguments); None where a parameter's name
    cannot be written in a def."""
    parts, names, namespace, keyword_only = [], [], {}, False
    for i, (name, p) in enumerate(signature.parameters.items()):
        if not name.isidentifier() or keyword.iskeyword(name) or name == _BINDER_OPTIONS:
            return None
        if p.kind == p.KEYWORD_ONLY and not keyword_only:
            parts.append("*")
            keyword_only = True
        if p.default is p.empty:
            parts.append(name)
        else:
            namespace[f"_default_{i}"] = p.default
            parts.append(f"{name}=_default_{i}")
        names.append(name)
    parts.append(f"**{_BINDER_OPTIONS}")
    values = "".join(f"{name}, " for name in names)
    source = (f"def bind({', '.join(parts)}):\n"
              f"    return ({values}), {_BINDER_OPTIONS}\n")
    exec(compile(source, "<blockc launch binder>", "exec"), namespace)
    return namespace["bind"]


def make_key(names, constexprs, do_not_specialize):
    """key(check_bounds, *values): the tuple jit.py's `_launch_key` builds,
    with UNKEYED where it would give up."""
    namespace = {"_runtime": runtime_key, "_constexpr": constexpr_key}
    arguments = [f"a{i}" for i in range(len(names))]
    parts = []
    for name, argument in zip(names, arguments):
        if name in constexprs:
            parts.append(f"_constexpr({argument})")
        else:
            parts.append(f"_runtime({argument}, {name not in do_not_specialize})")
    source = (f"def key(check_bounds, {', '.join(arguments + [''])}):\n"
              f"    return (check_bounds, {''.join(part + ', ' for part in parts)})\n")
    exec(compile(source, "<blockc launch key>", "exec"), namespace)
    return namespace["key"]


# os.environ.get raises and catches a KeyError when the variable is unset, a
# microsecond a launch; the mapping's own dict of encoded names answers at once.
_ENVIRON_DATA = getattr(os.environ, "_data", None)
_ENCODE_NAME = getattr(os.environ, "encodekey", None)
_ENCODE_VALUE = getattr(os.environ, "encodevalue", None)


def environment_flag(name):
    """Whether variable `name` is set to something other than "" or "0", read
    at each call (a test may set it between launches)."""
    if _ENVIRON_DATA is None or _ENCODE_NAME is None or _ENCODE_VALUE is None:
        return os.environ.get(name, "") not in ("", "0")
    value = _ENVIRON_DATA.get(_ENCODE_NAME(name))
    return value is not None and value != _ENCODE_VALUE("") and value != _ENCODE_VALUE("0")


MAX_PROGRAMS = 2**31 - 1  # program ids are int32
_ONES = ((), (1,), (1, 1))


def plain_grid(grid):
    """A grid given as a tuple of 1 to 3 ints in range, as three counts; None
    for anything else (jit.py's `_grid` checks and converts it)."""
    if type(grid) is not tuple or not 1 <= len(grid) <= 3:
        return None
    for count in grid:
        if type(count) is not int or not 0 <= count <= MAX_PROGRAMS:
            return None
    return grid + _ONES[3 - len(grid)]


def is_read_only(value):
    """A numpy array (or another object with __array_interface__) whose
    memory must not be written: np.frombuffer of bytes, a read-only memory
    map, an array marked so. torch tensors have no such flag (torch.from_numpy
    of a read-only array warns and gives a tensor that claims to be
    writeable), so none counts as read-only."""
    value = unwrapped(value)
    if type(value) is (_ndarray or _ndarray_type()):
        return not value.flags.writeable
    if hasattr(value, "data_ptr"):
        return False
    writeable = getattr(getattr(value, "flags", None), "writeable", None)
    if writeable is not None:
        return not writeable
    data = getattr(value, "__array_interface__", {}).get("data")
    # (address, read-only flag); an interface may give a buffer object instead.
    return isinstance(data, tuple) and bool(data[1])
