"""Triton's tutorials 01 (vector add), 02 (fused softmax), 03 (matmul with autotune
and leaky_relu) and 05 (layer-norm forward), their kernels and launch wrappers
unmodified (tests/python/tutorials/), run as a user runs them: torch CPU tensors in,
torch tensors out, each checked against numpy."""

import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tutorials"))

import tutorial01_vector_add as t01  # noqa: E402
import tutorial02_fused_softmax as t02  # noqa: E402
import tutorial03_matrix_multiplication as t03  # noqa: E402
import tutorial05_layer_norm as t05  # noqa: E402


def host(t):
    """A tensor's values in numpy. Under blockc DEVICE is the CPU; under Triton's
    interpreter on a machine with a GPU the tutorials allocate there."""
    return t.detach().float().cpu().numpy() if t.dtype == torch.bfloat16 else t.detach().cpu().numpy()


def test_vector_add():
    torch.manual_seed(0)
    size = 98432
    x = torch.rand(size, device=t01.DEVICE)
    y = torch.rand(size, device=t01.DEVICE)
    output = t01.add(x, y)
    np.testing.assert_array_equal(host(output), host(x) + host(y))


@pytest.mark.parametrize("size", [1, 1000, 4096, 5000])
def test_vector_add_sizes(size):
    torch.manual_seed(size)
    x, y = torch.randn(size, device=t01.DEVICE), torch.randn(size, device=t01.DEVICE)
    np.testing.assert_array_equal(host(t01.add(x, y)), host(x) + host(y))


def softmax_reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("shape,num_programs", [((100, 781), None), ((37, 130), 8), ((5, 1024), 1), ((64, 17), 64)])
def test_fused_softmax(shape, num_programs):
    torch.manual_seed(0)
    x = torch.randn(*shape, device=t02.DEVICE)
    y = t02.softmax(x, num_programs)
    np.testing.assert_allclose(host(y), softmax_reference(host(x)), rtol=1e-5, atol=1e-7)


def test_fused_softmax_of_a_strided_input():
    torch.manual_seed(1)
    x = torch.randn(40, 300, device=t02.DEVICE)[:, :200]  # rows 300 apart: the kernel gets the row stride
    y = t02.softmax(x)
    np.testing.assert_allclose(host(y), softmax_reference(host(x)), rtol=1e-5, atol=1e-7)


def matmul_reference(a, b, activation=""):
    c = host(a).astype(np.float32) @ host(b).astype(np.float32)
    if activation == "leaky_relu":
        c = np.where(c >= 0, c, np.float32(0.01) * c)
    return c


def check_fp16_matmul(c, expected):
    assert c.dtype == torch.float16
    # f32 sums of f16 products, rounded to f16 once: within about an f16 ulp.
    np.testing.assert_allclose(host(c).astype(np.float32), expected, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("M,N,K", [(256, 256, 256), (200, 300, 100)])
def test_matmul(M, N, K):
    torch.manual_seed(0)
    a = torch.randn((M, K), device=t03.DEVICE).to(torch.float16)
    b = torch.randn((K, N), device=t03.DEVICE).to(torch.float16)
    check_fp16_matmul(t03.matmul(a, b), matmul_reference(a, b))
    # The same shapes again: the autotuner's choice is reused, with a new
    # specialisation for the activation.
    check_fp16_matmul(t03.matmul(a, b, activation="leaky_relu"), matmul_reference(a, b, "leaky_relu"))


def test_matmul_with_a_transposed_b():
    torch.manual_seed(2)
    a = torch.randn((128, 64), device=t03.DEVICE).to(torch.float16)
    bt = torch.randn((96, 64), device=t03.DEVICE).to(torch.float16)
    b = bt.t()  # non-contiguous: the kernel reads it through its strides
    check_fp16_matmul(t03.matmul(a, b), matmul_reference(a, b))


def layer_norm_reference(x, w, b, eps):
    x = x.astype(np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    return (x - mean) * rstd * w.astype(np.float64) + b.astype(np.float64), mean.reshape(-1), rstd.reshape(-1)


@pytest.mark.parametrize("x_shape,dtype", [((64, 1000), torch.float32), ((151, 8192), torch.float32),
                                           ((4, 8, 512), torch.float16), ((33, 777), torch.float16)])
def test_layer_norm_forward(x_shape, dtype):
    torch.manual_seed(0)
    eps = 1e-5
    w_shape = (x_shape[-1], )
    weight = torch.rand(w_shape, device=t05.DEVICE).to(dtype)
    bias = torch.rand(w_shape, device=t05.DEVICE).to(dtype)
    x = (-2.3 + 0.5 * torch.randn(x_shape, device=t05.DEVICE)).to(dtype)
    y, mean, rstd = t05.layer_norm_forward(x, w_shape, weight, bias, eps)
    assert y.dtype == dtype and y.shape == x.shape
    y_ref, mean_ref, rstd_ref = layer_norm_reference(host(x.float()), host(weight.float()), host(bias.float()), eps)
    np.testing.assert_allclose(host(mean), mean_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(host(rstd), rstd_ref, rtol=1e-4)
    if dtype == torch.float16:
        np.testing.assert_allclose(host(y.float()), y_ref, rtol=2e-3, atol=2e-3)
    else:
        np.testing.assert_allclose(host(y), y_ref, rtol=1e-4, atol=1e-4)
