"""Python inspection/code generation API."""
from .code import Code
from .code import ExceptionInfo
from .code import filter_traceback
from .code import Frame
from .code import getfslineno
from .code import Traceback
from .code import TracebackEntry
from .source import getrawcode
from .source import Source

__all__ = [
    "Code",
    "ExceptionInfo",
    "filter_traceback",
    "Frame",
    "getfslineno",
    "getrawcode",
    "Traceback",
    "TracebackEntry",
    "Source",
]
