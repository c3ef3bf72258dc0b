"""Block IR text, written op by op, with the Python place of every line.

Regions are written into nested buffers so that the translator can translate a
body, look at what it produced (the types a loop body yields, the names an
`if` branch rebinds) and only then decide the header that goes above it, or
throw the body away and translate it again.
"""


class Emitter:
    def __init__(self):
        self._counter = 0
        # Each buffer is a list of (depth, text, location) where location is
        # (line, col) of the Python source or None.
        self._buffers = [[]]
        self.depth = 0

    def fresh(self, hint="v"):
        self._counter += 1
        # A dot keeps generated names apart from parameters: no Python
        # identifier contains one.
        return f"%{hint}.{self._counter}"

    def line(self, text, loc):
        self._buffers[-1].append((self.depth, text, loc))

    def push(self):
        """Starts a buffer for a region's body, one level deeper."""
        self._buffers.append([])
        self.depth += 1

    def pop(self):
        """Ends the innermost buffer and returns its lines (not yet placed)."""
        self.depth -= 1
        return self._buffers.pop()

    def extend(self, lines):
        self._buffers[-1].extend(lines)

    def text(self):
        """The finished text and, per line (1-based), its Python location."""
        assert len(self._buffers) == 1, "unbalanced regions"
        out, locs = [], []
        for depth, text, loc in self._buffers[0]:
            out.append("  " * depth + text)
            locs.append(loc)
        return "\n".join(out) + "\n", locs
