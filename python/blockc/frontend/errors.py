"""Errors that point at the user's Python line.

They read like blockc's own diagnostics (docs/block-ir.md, section 12): the
place as FILE:LINE:COL, the message, then the source line with a caret under
the column, so that an editor or a terminal can jump to it.
"""


class CompilationError(Exception):
    """A kernel that cannot be translated or compiled. `file`, `line` and
    `col` (1-based) name the Python source; `message` is the bare message."""

    def __init__(self, message, file=None, line=None, col=None, source_line=None, note=None):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.source_line = source_line
        self.note = note
        super().__init__(self._format())

    def _format(self):
        if self.line is None:
            head = f"{self.file}: error: {self.message}" if self.file else f"error: {self.message}"
            return head + (f"\n{self.note}" if self.note else "")
        text = f"{self.file}:{self.line}:{self.col}: error: {self.message}"
        if self.source_line is not None:
            shown = "".join(c if c.isprintable() or c == "\t" else "?" for c in self.source_line)
            caret = "".join(c if c == "\t" else " " for c in shown[:max(self.col - 1, 0)])
            text += f"\n  {shown}\n  {caret}^"
        if self.note:
            text += f"\n{self.note}"
        return text


class UnsupportedLanguageConstruct(CompilationError):
    """Python or Triton that Block IR has no counterpart for (yet)."""
