"""A Triton kernel as a torch operator, the way users on the board write one: a
fused matmul + softmax, wrapped with torch.library.triton_op and wrap_triton (torch
2.6 and later), called on torch tensors inside torch.profiler with a
record_function around it, timed beside torch's own matmul and softmax; and the
same kernel launched on NumPy arrays. References are NumPy in float64.

Runs wherever torch is installed; the operator tests need triton_op, which torch 1.13
(Debian 12's) lacks: they skip there, naming it, and run on Debian 13's torch 2.6
(ctest label python-modern).
"""
import time

import numpy as np
import pytest

import triton
import triton.language as tl

torch = pytest.importorskip("torch")
needs_triton_op = pytest.mark.skipif(
    not hasattr(torch.library, "triton_op"),
    reason=f"torch {torch.__version__} has no torch.library.triton_op (torch 2.6 and later)")


@triton.jit
def matmul_softmax_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                          stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    acc = tl.where(rn[None, :] < N, acc, float("-inf"))
    numerator = tl.exp(acc - tl.max(acc, axis=1)[:, None])
    out = numerator / tl.sum(numerator, axis=1)[:, None]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, out,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


BLOCK_M, BLOCK_N, BLOCK_K = 16, 128, 32


def strides(x):
    """Strides in elements, of a tensor or an array."""
    return x.stride() if hasattr(x, "stride") and callable(x.stride) else \
        tuple(s // x.itemsize for s in x.strides)


def launch(kernel, a, b, c):
    M, K = a.shape
    N = b.shape[1]
    assert N <= BLOCK_N, "one tile holds whole rows"
    kernel[(triton.cdiv(M, BLOCK_M),)](a, b, c, M, N, K, *strides(a), *strides(b), *strides(c),
                                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)


def reference(a, b):
    logits = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def inputs(m=100, k=70, n=90):
    rng = np.random.default_rng(11)
    return (rng.standard_normal((m, k)).astype(np.float32),
            rng.standard_normal((k, n)).astype(np.float32))


def test_the_kernel_on_numpy_arrays():
    a, b = inputs()
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    launch(matmul_softmax_kernel, a, b, c)
    np.testing.assert_allclose(c, reference(a, b), rtol=1e-5, atol=1e-6)


@needs_triton_op
def test_a_triton_op_under_the_profiler_beside_torch():
    from torch.library import triton_op, wrap_triton

    @triton_op("blockc_test::matmul_softmax", mutates_args={})
    def matmul_softmax(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        c = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
        launch(wrap_triton(matmul_softmax_kernel), a, b, c)
        return c

    a, b = (torch.from_numpy(x) for x in inputs())
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        with torch.profiler.record_function("fused_attention_scores"):
            c = torch.ops.blockc_test.matmul_softmax(a, b)
    np.testing.assert_allclose(c.numpy(), reference(a.numpy(), b.numpy()), rtol=1e-5,
                               atol=1e-6)
    names = {event.key for event in prof.key_averages()}
    for name in ("fused_attention_scores", "blockc_test::matmul_softmax",
                 "matmul_softmax_kernel"):
        assert name in names, f"{name} is not among the profile's events: {sorted(names)}"

    # Timed as a user times it, beside torch (reported, not asserted: speed is
    # bench/'s business, and this machine is shared).
    def best_of(fn, rounds=5):
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)
    ours = best_of(lambda: torch.ops.blockc_test.matmul_softmax(a, b))
    theirs = best_of(lambda: torch.softmax(a @ b, dim=1))
    print(f"matmul_softmax 100x70x90: blockc {ours * 1e6:.0f} us, torch {theirs * 1e6:.0f} us")


@needs_triton_op
def test_wrap_triton_refuses_what_is_not_a_kernel():
    from torch.library import wrap_triton
    with pytest.raises(RuntimeError):
        wrap_triton(lambda: None)
