"""Triton's tutorials 04 (low-memory dropout), 05 (layer norm, backward), 06 (fused
attention, forward and backward), 07 (libdevice), 08 (grouped GEMM) and 09
(persistent matmul), whole and unmodified but for what the CPU needs (each file's
header lists it; tutorials/tutorial_cpu_shim.py answers their torch.cuda and fp8
questions), run through their own Python entry points on small CPU torch tensors and
checked against float64 torch. Kept out of test_tutorials.py, which also runs under
QEMU: these tune and compile more."""

import importlib
import math
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tutorials"))

import tutorial_cpu_shim  # noqa: E402


@pytest.fixture(autouse=True)
def cpu_answers():
    """The shim's torch.cuda answers and fp8 dtype stand-ins, while each test runs."""
    with tutorial_cpu_shim.cpu_answers():
        yield


def tutorial(name):
    """The tutorial module, imported on first use: one that fails to import fails its
    own tests only."""
    if name not in sys.modules:
        with tutorial_cpu_shim.importing():
            importlib.import_module(name)
    return sys.modules[name]


def f64(t):
    return t.detach().to(torch.float64)


def assert_close(actual, expected, rtol, atol):
    np.testing.assert_allclose(f64(actual).numpy(), f64(expected).numpy(), rtol=rtol, atol=atol)


# 04: low-memory dropout


@pytest.mark.parametrize("n", [10, 1000, 5000])
def test_dropout_with_a_keep_mask(n):
    t04 = tutorial("tutorial04_low_memory_dropout")
    torch.manual_seed(n)
    p = 0.3
    x = torch.randn(n, device=t04.DEVICE)
    x_keep = (torch.rand(n, device=t04.DEVICE) > p).to(torch.int32)
    output = t04.dropout(x, x_keep=x_keep, p=p)
    expected = torch.where(x_keep.bool(), f64(x) / (1 - p), torch.zeros((), dtype=torch.float64))
    assert_close(output, expected, rtol=1e-6, atol=0)


def test_seeded_dropout():
    t04 = tutorial("tutorial04_low_memory_dropout")
    # The demo the import ran: the same seed gave the same output.
    assert torch.equal(t04.output, t04.output2)
    torch.manual_seed(0)
    n, p = 100000, 0.4
    x = torch.randn(n, device=t04.DEVICE) + 10.0  # no zeros: a zero output is a dropped element
    out = t04.seeded_dropout(x, p=p, seed=123)
    kept = out != 0
    assert_close(out[kept], f64(x[kept]) / (1 - p), rtol=1e-6, atol=0)
    # About 1 - p of the elements are kept (within 6 standard deviations).
    assert abs(kept.double().mean().item() - (1 - p)) < 6 * math.sqrt(p * (1 - p) / n)
    again = t04.seeded_dropout(x, p=p, seed=123)
    assert torch.equal(out, again)
    other = t04.seeded_dropout(x, p=p, seed=512)
    assert not torch.equal(other != 0, kept)
    # The mask depends on the seed and the offset only, not on the values.
    assert torch.equal(t04.seeded_dropout(x * 2, p=p, seed=123) != 0, kept)


# 05: layer norm, forward and backward through the tutorial's LayerNorm autograd function


@pytest.mark.parametrize("shape,dtype", [((64, 512), torch.float32), ((600, 256), torch.float32),
                                         ((151, 1000), torch.float32), ((33, 777), torch.float16)],
                         ids=["64x512-fp32", "600x256-fp32-rows-share-locks", "151x1000-fp32", "33x777-fp16"])
def test_layer_norm_backward(shape, dtype):
    t05 = tutorial("tutorial05_layer_norm_backward")
    torch.manual_seed(0)
    eps = 1e-5
    M, N = shape
    w_shape = (N, )
    weight = torch.rand(w_shape, device=t05.DEVICE).to(dtype).requires_grad_(True)
    bias = torch.rand(w_shape, device=t05.DEVICE).to(dtype).requires_grad_(True)
    x = (-2.3 + 0.5 * torch.randn(shape, device=t05.DEVICE)).to(dtype).requires_grad_(True)
    dy = (.1 * torch.randn(shape, device=t05.DEVICE)).to(dtype)
    y = t05.layer_norm(x, w_shape, weight, bias, eps)
    y.backward(dy)
    refs = [f64(t).requires_grad_(True) for t in (x, weight, bias)]
    y_ref = torch.nn.functional.layer_norm(refs[0], w_shape, refs[1], refs[2], eps)
    y_ref.backward(f64(dy))
    assert y.dtype == dtype and x.grad.dtype == dtype and weight.grad.dtype == dtype
    if dtype == torch.float32:
        assert_close(y, y_ref, rtol=1e-4, atol=1e-4)
        assert_close(x.grad, refs[0].grad, rtol=1e-4, atol=1e-4)
        # dw and db: sums over M rows, in GROUP_SIZE_M partial sums under a lock.
        assert_close(weight.grad, refs[1].grad, rtol=1e-4, atol=1e-4)
        assert_close(bias.grad, refs[2].grad, rtol=1e-4, atol=1e-4)
    else:
        # The tutorial's own tolerance for fp16 (its test_layer_norm).
        for actual, expected in [(y, y_ref), (x.grad, refs[0].grad), (weight.grad, refs[1].grad),
                                 (bias.grad, refs[2].grad)]:
            assert_close(actual, expected, rtol=0, atol=1e-2)


# 06: fused attention


def attention_reference(q, k, v, causal, sm_scale):
    q, k, v = (f64(t).requires_grad_(True) for t in (q, k, v))
    p = torch.matmul(q, k.transpose(2, 3)) * sm_scale
    if causal:
        n_ctx = q.shape[2]
        mask = torch.tril(torch.ones((n_ctx, n_ctx), dtype=torch.bool))
        p = p.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(p, dim=-1), v), (q, k, v)


def attention_inputs(Z, H, N_CTX, HEAD_DIM, device):
    torch.manual_seed(20)
    return [torch.empty((Z, H, N_CTX, HEAD_DIM), dtype=torch.float16,
                        device=device).normal_(mean=0.0, std=0.5).requires_grad_() for _ in range(3)]


@pytest.mark.parametrize("causal", [False, True])
def test_attention_forward(causal):
    t06 = tutorial("tutorial06_fused_attention")
    Z, H, N_CTX, HEAD_DIM, sm_scale = 2, 2, 128, 64, 0.5
    q, k, v = attention_inputs(Z, H, N_CTX, HEAD_DIM, t06.DEVICE)
    out = t06.attention(q, k, v, causal, sm_scale, False)
    assert out.dtype == torch.float16 and out.shape == q.shape
    ref, _ = attention_reference(q, k, v, causal, sm_scale)
    assert_close(out, ref, rtol=0, atol=1e-2)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_backward(causal):
    t06 = tutorial("tutorial06_fused_attention")
    Z, H, N_CTX, HEAD_DIM, sm_scale = 1, 2, 128, 64, 0.5
    q, k, v = attention_inputs(Z, H, N_CTX, HEAD_DIM, t06.DEVICE)
    dout = torch.randn_like(q)
    out = t06.attention(q, k, v, causal, sm_scale, False)
    out.backward(dout)
    ref, (rq, rk, rv) = attention_reference(q, k, v, causal, sm_scale)
    ref.backward(f64(dout))
    assert_close(out, ref, rtol=0, atol=1e-2)
    assert_close(v.grad, rv.grad, rtol=0, atol=1e-2)
    assert_close(k.grad, rk.grad, rtol=0, atol=1e-2)
    assert_close(q.grad, rq.grad, rtol=0, atol=1e-2)


def test_attention_forward_default_warp_specialize_head_dim_128():
    # The wrapper's default, warp_specialize=True, with HEAD_DIM 128 and BLOCK_M 128
    # takes the kernel's reshape/permute/split/join rescaling of the accumulator.
    t06 = tutorial("tutorial06_fused_attention")
    Z, H, N_CTX, HEAD_DIM, sm_scale = 1, 2, 128, 128, 0.3
    q, k, v = attention_inputs(Z, H, N_CTX, HEAD_DIM, t06.DEVICE)
    out = t06.attention(q, k, v, True, sm_scale)
    ref, _ = attention_reference(q, k, v, True, sm_scale)
    assert_close(out, ref, rtol=0, atol=1e-2)


# 07: libdevice


def test_libdevice_asin():
    t07 = tutorial("tutorial07_extern_functions")
    # What the import ran: both launches, the second with extern_libs=.
    expected = torch.asin(f64(t07.x))
    assert_close(t07.output_triton, expected, rtol=3e-7, atol=0)
    x = torch.rand(3001, device=t07.DEVICE) * 2 - 1
    y = torch.empty_like(x)
    t07.asin_kernel[t07.grid](x, y, x.numel(), BLOCK_SIZE=1024)
    assert_close(y, torch.asin(f64(x)), rtol=3e-7, atol=1e-45)


# 08: grouped GEMM


GROUPS = [(128, 128, 64), (256, 128, 128), (128, 256, 192), (256, 256, 64)]


def grouped_inputs(device, groups):
    torch.manual_seed(0)
    group_A = [torch.randn((M, K), device=device).to(torch.float16) for M, N, K in groups]
    group_B = [torch.randn((K, N), device=device).to(torch.float16) for M, N, K in groups]
    return group_A, group_B


def test_grouped_gemm():
    t08 = tutorial("tutorial08_grouped_gemm")
    group_A, group_B = grouped_inputs(t08.DEVICE, GROUPS)
    group_C = t08.group_gemm_fn(group_A, group_B)
    assert len(group_C) == len(GROUPS)
    for a, b, c in zip(group_A, group_B, group_C):
        assert c.dtype == torch.float16
        assert_close(c, f64(a) @ f64(b), rtol=2e-3, atol=2e-3)


def test_grouped_gemm_tma_kernel():
    # group_gemm_tma_fn asserts supports_tma() (CUDA, sm90+); triton_tma_perf_fn is
    # the tutorial's launch of the same kernel without that check. The tensors it
    # takes are group_gemm_tma_fn's.
    t08 = tutorial("tutorial08_grouped_gemm")
    groups = GROUPS + [(128, 200, 96)]  # a partial tile: the descriptors bound it
    group_A, group_B = grouped_inputs(t08.DEVICE, groups)
    group_B_T = [b.T.contiguous() for b in group_B]
    group_C = [torch.empty((a.shape[0], b.shape[0]), device=t08.DEVICE, dtype=torch.float16)
               for a, b in zip(group_A, group_B_T)]
    d_a_ptrs = torch.tensor([a.data_ptr() for a in group_A], device=t08.DEVICE)
    d_b_ptrs = torch.tensor([b.data_ptr() for b in group_B_T], device=t08.DEVICE)
    d_c_ptrs = torch.tensor([c.data_ptr() for c in group_C], device=t08.DEVICE)
    d_g_sizes = torch.tensor([s for M, N, K in groups for s in (M, N, K)], dtype=torch.int32,
                             device=t08.DEVICE)
    d_g_lds = torch.tensor([s for a, b, c in zip(group_A, group_B_T, group_C)
                            for s in (a.stride(0), b.stride(0), c.stride(0))], dtype=torch.int32,
                           device=t08.DEVICE)
    t08.triton_tma_perf_fn(d_a_ptrs, d_b_ptrs, d_c_ptrs, d_g_sizes, d_g_lds, len(groups), torch.float16)
    for a, b, c in zip(group_A, group_B, group_C):
        assert_close(c, f64(a) @ f64(b), rtol=2e-3, atol=2e-3)


# 09: persistent matmul


def matmul_inputs(M, N, K, device):
    torch.manual_seed(M + N + K)
    a = torch.randn((M, K), device=device).to(torch.float16)
    b = torch.randn((K, N), device=device).to(torch.float16)
    return a, b


def check_matmul(c, a, b):
    assert c.dtype == torch.float16 and c.shape == (a.shape[0], b.shape[1])
    assert_close(c, a.float() @ b.float(), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("M,N,K", [(256, 256, 256), (200, 300, 100)])
@pytest.mark.parametrize("variant", ["matmul", "matmul_persistent"])
def test_persistent_matmul_pointer_variants(variant, M, N, K):
    t09 = tutorial("tutorial09_persistent_matmul")
    a, b = matmul_inputs(M, N, K, "cpu")
    check_matmul(getattr(t09, variant)(a, b), a, b)


@pytest.mark.parametrize("variant", ["matmul_tma", "matmul_tma_persistent", "matmul_descriptor_persistent"])
def test_persistent_matmul_descriptor_variants(variant):
    # Host (TensorDescriptor) and device (tl.make_tensor_descriptor) descriptors; b is
    # passed transposed, as the tutorial's validate() does.
    t09 = tutorial("tutorial09_persistent_matmul")
    M, N, K = 256, 384, 192
    a, b = matmul_inputs(M, N, K, "cpu")
    check_matmul(getattr(t09, variant)(a, b.T.contiguous(), False), a, b)
