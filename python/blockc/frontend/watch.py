"""The Python values a translation read from outside the kernel's arguments.

A kernel's module globals, closure cells and attributes of user modules are
constants to the translator: their values are compiled into the Block IR. A
launch asks `Watched.unchanged()` before reusing a compiled kernel, so that a
global changed since (a float, a list element, a `tl.constexpr`, a redefined
`@triton.jit` helper) compiles the kernel again instead of running the old
value. The check runs on every launch, so it compares identities first and
looks inside a value only where that can change in place (lists, dicts, sets,
`tl.constexpr` wrappers).
"""

import numbers

_MISSING = object()
# Containers nested deeper than this are compared by identity alone.
_MAX_DEPTH = 8


class _Same:
    """A value compared by identity: a module, a function, a dtype, an array."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self):
        return id(self.value)


def _is_constexpr(value):
    return hasattr(value, "__blockc_constexpr__") and not isinstance(value, type)


def _key(value, depth=0):
    """What the translator can take from `value`, as something to compare:
    numbers by type and value (1, 1.0 and True type a kernel differently),
    containers by their items, anything else by identity."""
    kind = type(value)
    if kind is float:
        # repr tells -0.0 from 0.0, and a NaN equals itself.
        return (kind, repr(value))
    if kind in (int, bool, str, bytes, complex) or value is None:
        return (kind, value)
    if depth < _MAX_DEPTH:
        if kind in (tuple, list):
            return (kind, tuple(_key(item, depth + 1) for item in value))
        if kind is dict:
            return (kind, tuple((k, _key(item, depth + 1)) for k, item in value.items()))
        if kind in (set, frozenset):
            return (kind, frozenset(value))
        if _is_constexpr(value):
            return ("constexpr", _key(value.value, depth + 1))
    if isinstance(value, numbers.Number) and kind.__module__ == "numpy":
        return (kind, repr(value))
    return _Same(value)


def _changes_in_place(value, depth=0):
    if type(value) in (list, dict, set) or _is_constexpr(value):
        return True
    if type(value) is tuple and depth < _MAX_DEPTH:
        return any(_changes_in_place(item, depth + 1) for item in value)
    return False


class _Read:
    __slots__ = ("namespace", "name", "value", "key", "in_place")

    def __init__(self, namespace, name, value):
        self.namespace = namespace
        self.name = name
        self.value = value
        self.key = _key(value)
        self.in_place = _changes_in_place(value)

    def current(self):
        if type(self.namespace) is dict:
            return self.namespace.get(self.name, _MISSING)
        try:
            return self.namespace.cell_contents
        except ValueError:  # an empty cell
            return _MISSING

    def unchanged(self):
        current = self.current()
        if current is self.value and not self.in_place:
            return True
        if _key(current) != self.key:
            return False
        # An equal value in a new object (`X = float(x)` again): the
        # identity test answers next time.
        self.value = current
        return True


class Watched:
    """The outside values one translation read, each once."""

    def __init__(self):
        self._reads = {}

    def read(self, namespace, name, value):
        """Records that the translation took `value` from `namespace` (a
        globals dict, a module's __dict__, or a closure cell) under `name`."""
        key = (id(namespace), name)
        if key not in self._reads:
            self._reads[key] = _Read(namespace, name, value)

    def unchanged(self):
        for read in self._reads.values():
            if not read.unchanged():
                return False
        return True

    def __iter__(self):
        return iter(self._reads.values())

    def __len__(self):
        return len(self._reads)
