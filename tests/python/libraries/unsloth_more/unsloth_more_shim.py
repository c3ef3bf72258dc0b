# Test data for blockc's Python frontend, written for blockc (not copied from Unsloth):
# stand-ins for what fp8.py (in this folder) imports from the unsloth_zoo package, which
# is not installed here. tests/python/test_liger_unsloth_more.py uses them. Not part of
# blockc.
#
# SPDX-License-Identifier: Apache-2.0

import logging

from packaging.version import Version  # unsloth_zoo.utils.Version is packaging's

logger = logging.getLogger("unsloth_more")


def torch_compile(fn=None, **kwargs):
    """unsloth_zoo's torch.compile wrapper; torch 1.13 has no torch.compile, and the
    functions it decorates are not run here: the function itself."""
    if fn is None:
        return lambda f: f
    return fn


__all__ = ["Version", "logger", "torch_compile"]
