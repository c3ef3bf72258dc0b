# Test data for blockc's Python frontend, written for blockc (not copied from Liger-Kernel):
# a stand-in that tests/python/test_liger_unsloth_more.py swaps in while it imports
# grpo_loss.py. That file decorates a function with a bare `@torch.no_grad` (no
# parentheses), which torch >= 2.0 accepts and torch 1.13, the torch here, does not; the
# stand-in accepts both forms and otherwise is torch.no_grad itself.
#
# SPDX-License-Identifier: BSD-2-Clause

from contextlib import contextmanager

import torch

_no_grad = torch.no_grad


class _NoGradBare(_no_grad):
    def __new__(cls, fn=None):
        if fn is None:
            return super().__new__(cls)
        return _no_grad()(fn)


@contextmanager
def bare_no_grad():
    """torch.no_grad usable as `@torch.no_grad` while the block runs."""
    torch.no_grad = _NoGradBare
    try:
        yield
    finally:
        torch.no_grad = _no_grad
