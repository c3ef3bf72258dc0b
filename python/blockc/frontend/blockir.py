"""Facts about Block IR that the Builder's parts share: how its value
handles are spelled in the text, and how shapes broadcast."""

import re

# A value's handle in the text: `%x.12`, `%acc_out.3`, `%n`.
HANDLE = re.compile(r"%[\w.]+")


def broadcast_shapes(a, b):
    """NumPy's rule, which Triton and Block IR share."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"shapes {list(a)} and {list(b)} do not broadcast ({x} vs {y})")
        out.append(max(x, y))
    return tuple(out)
