"""`triton.profiler` (proton) as scripts use it around their launches: `start`,
`activate`, `deactivate`, `scope`, `enter_scope`, `exit_scope`, `finalize`. It
records nothing: blockc's launches are traced by BLOCKC_TRACE (a Chrome trace
of every program on every thread, docs/launcher.md) or torch.profiler, and
`start` says so once, so that no one waits for a profile that is not coming.
"""

import contextlib
import warnings

_warned = False


def start(name=None, *, context="shadow", data="tree", backend=None, mode=None, hook=None):
    global _warned
    if not _warned:
        warnings.warn("triton.profiler (proton) records nothing under blockc; set "
                      "BLOCKC_TRACE=FILE for a timeline of the launches, or use torch.profiler",
                      stacklevel=2)
        _warned = True
    return 0


def activate(session=None):
    pass


def deactivate(session=None):
    pass


def finalize(session=None, output_format=None):
    pass


def enter_scope(name, *, triton_op=False, metrics=None):
    return 0


def exit_scope(triton_op=False, metrics=None):
    return 0


class scope(contextlib.ContextDecorator):
    """`with proton.scope(name, metrics):` or `@proton.scope(name)`."""

    def __init__(self, name, metrics=None):
        self.name = name
        self.metrics = metrics

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def cpu_timed_scope(name, metrics=None):
    return scope(name, metrics)
