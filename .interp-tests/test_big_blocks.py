"""Blocks whose scratch is larger than a thread's stack should hold: a fused
matmul and column softmax in one program, BLOCK_SIZE = N, as a K1 user wrote it.
Up to N = 256 its scratch fit the stack; from N = 512 (4 MiB and more per program)
it comes from the launcher's per-thread arena. Checked against torch, an
independent reference."""

import pytest
import torch

import triton
import triton.language as tl


@triton.jit
def matmul_column_softmax(a_ptr, b_ptr, c_ptr, BLOCK_SIZE: tl.constexpr):
    rows = tl.arange(0, BLOCK_SIZE)
    cols = tl.arange(0, BLOCK_SIZE)
    offsets = rows[:, None] * BLOCK_SIZE + cols[None, :]
    a = tl.load(a_ptr + offsets)
    b = tl.load(b_ptr + offsets)
    logits = tl.dot(a, b)
    shifted = logits - tl.max(logits, axis=0)[None, :]
    numerator = tl.exp(shifted)
    tl.store(c_ptr + offsets, numerator / tl.sum(numerator, axis=0)[None, :])


@pytest.mark.parametrize("n", [128, 512, 1024])
def test_matmul_column_softmax_matches_torch(n):
    gen = torch.Generator().manual_seed(n)
    # Entries of a @ b are sums of n products: scaled so that a column's softmax
    # spreads over many rows instead of picking one.
    a = torch.rand((n, n), generator=gen) * 2 - 1
    b = (torch.rand((n, n), generator=gen) * 2 - 1) / n ** 0.5
    c = torch.full((n, n), float("nan"))
    matmul_column_softmax[(1,)](a, b, c, BLOCK_SIZE=n)
    expected = torch.softmax(a.double() @ b.double(), dim=0)
    torch.testing.assert_close(c.double(), expected, rtol=1e-4, atol=1e-7)

