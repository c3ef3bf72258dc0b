"""Values with parts: what a loop carries and an `if` merges.

A Python name in a kernel may hold a tensor, a number, a tuple of both, or a
block pointer (whose offsets move in a loop). Control flow joins values leaf
by leaf: `flatten` splits a value into a shape (its static parts) and its
leaves (tensors and numbers), `unflatten` puts it back together.
"""

from .values import tensor, block_pointer


def is_number(value):
    return isinstance(value, (bool, int, float))


def flatten(value):
    if isinstance(value, tensor) or is_number(value):
        return ("leaf",), [value]
    if isinstance(value, block_pointer):
        return ("block_pointer", value.block_shape, value.order), value.fields()
    if isinstance(value, (tuple, list)):
        shapes, leaves = [], []
        for item in value:
            shape, parts = flatten(item)
            shapes.append((shape, len(parts)))
            leaves += parts
        return (type(value), tuple(shapes)), leaves
    return ("static", value), []


def unflatten(shape, leaves):
    leaves = list(leaves)
    kind = shape[0]
    if kind == "leaf":
        return leaves[0]
    if kind == "block_pointer":
        template = block_pointer(None, [None] * len(shape[1]), [None] * len(shape[1]),
                                 [None] * len(shape[1]), shape[1], shape[2])
        return template.with_fields(leaves)
    if kind == "static":
        return shape[1]
    items, at = [], 0
    for item_shape, count in shape[1]:
        items.append(unflatten(item_shape, leaves[at:at + count]))
        at += count
    return kind(items)


def same_shape(a, b):
    """Whether two flattened shapes agree, static parts compared by value."""
    if a[0] != b[0]:
        return False
    if a[0] == "static":
        if a[1] is b[1]:
            return True
        try:
            return bool(a[1] == b[1]) and type(a[1]) is type(b[1])
        except Exception:  # a value whose == is not a plain bool
            return False
    if a[0] in ("leaf",):
        return True
    if a[0] == "block_pointer":
        return a[1:] == b[1:]
    return len(a[1]) == len(b[1]) and all(
        ca == cb and same_shape(sa, sb) for (sa, ca), (sb, cb) in zip(a[1], b[1]))
