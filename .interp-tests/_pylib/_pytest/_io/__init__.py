from .terminalwriter import get_terminal_width
from .terminalwriter import TerminalWriter


__all__ = [
    "TerminalWriter",
    "get_terminal_width",
]
