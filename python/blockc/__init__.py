"""blockc's Python package: the Triton-compatible frontend (`blockc.triton`)
and the bindings to the compiler and launcher (`blockc._core`).
docs/python.md describes both."""

__version__ = "0.1.0"


def trace_start(path=None):
    """Starts a launch trace (docs/launcher.md, "Tracing a launch")."""
    from . import _core
    _core.trace_start(path)


def trace_flush():
    from . import _core
    _core.trace_flush()


def trace_stop():
    from . import _core
    _core.trace_stop()
