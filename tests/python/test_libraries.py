"""Triton kernels from real libraries, unmodified (tests/python/libraries/<library>/, each
file headed by its origin, commit and license), launched as the library launches them
(its own wrapper where that runs on the CPU, else a launch written here) on torch CPU
tensors, and checked against a reference written here with torch in float64,
independently of the kernel.

A kernel that needs a construct blockc lacks is marked xfail_in_blockc with the first
such construct; the mark is strict, so the test flips when the construct lands.
"""

import math
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import BF16_REASON, blockc_extension, interpreter_limitation, xfail_in_blockc
from library_testing import DTYPES, FLOAT_DTYPES, check, load, randn

# What Triton 3.6's interpreter lacks, met by these kernels (each passes under blockc and,
# as far as the libraries say, on a GPU):
FLOAT_SCALAR = interpreter_limitation(
    "a float scalar argument arrives as a Python float, without .to() (Liger: eps.to, "
    "gate_multiplier.to)")
NO_LIBDEVICE = interpreter_limitation(
    "libdevice functions are not implemented (each returns None): libdevice.tanh")
CONSTEXPR_VALUE = interpreter_limitation(
    "constexprs are plain values inside a kernel, without .value (FlagGems' get_dtype_min)")
# Triton 3.6 itself, on a GPU too, rejects calling a dtype: blockc's extension.
DTYPE_CALL = blockc_extension("calling a dtype (Liger's tl.float32(0.0)); Triton 3.6, on a GPU too: "
                              "'dtype' object is not callable")
ALIASED_BUILTIN = interpreter_limitation(
    "a builtin under another name (Unsloth's triton_cast = tl.cast) is not patched: "
    "_semantic is None")
BF16 = interpreter_limitation(BF16_REASON, when=lambda p: p.get("dtype") == "bfloat16")
BF16_LITERAL = interpreter_limitation(
    "a Python float operand of a bfloat16 tensor (its builder has no get_bf16)",
    when=lambda p: p.get("dtype") == "bfloat16")


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=g, dtype=torch.float64).to(dtype)


def grads(fn, inputs, dy):
    """The float64 gradients of sum(fn(*inputs) * dy) with respect to inputs."""
    xs = [x.detach().double().requires_grad_(True) for x in inputs]
    out = fn(*xs)
    out.backward(dy.double())
    return [x.grad for x in xs]


ROWS_COLS = [(4, 64), (3, 37), (7, 300)]


# =====================================================================================
# Liger-Kernel (libraries/liger_kernel)
# =====================================================================================

def liger(name):
    return load("liger_kernel", name)


@BF16
@pytest.mark.parametrize("shape", ROWS_COLS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_element_mul(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("liger_utils")
    x = randn(*shape, dtype=dtype)
    g = torch.tensor(0.75, dtype=dtype)
    expected = x.double() * 0.75
    mod.element_mul_kernel[(shape[0],)](x, x.stride(0), g, shape[1], BLOCK_SIZE=32)
    check(x, expected, dtype)


def gelu_tanh(a):
    return 0.5 * a * (1 + torch.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))


@NO_LIBDEVICE
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_geglu_forward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("geglu")
    a, b = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    _, _, c = mod.geglu_forward(a, b)
    check(c, gelu_tanh(a.double()) * b.double(), dtype)


@NO_LIBDEVICE
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_geglu_backward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("geglu")
    a, b, dc = (randn(*shape, dtype=dtype, seed=s) for s in (1, 2, 3))
    da_ref, db_ref = grads(lambda a, b: gelu_tanh(a) * b, [a, b], dc)
    da, db = mod.geglu_backward(a.clone(), b.clone(), dc)
    check(da, da_ref, dtype, 2)
    check(db, db_ref, dtype, 2)


def silu(a):
    return a * torch.sigmoid(a)


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_swiglu_forward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("swiglu")
    a, b = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    _, _, c = mod.swiglu_forward(a, b)
    check(c, silu(a.double()) * b.double(), dtype)
    _, _, c = mod.swiglu_forward(a, b, gate_multiplier=0.5)
    check(c, silu(0.5 * a.double()) * b.double(), dtype)


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_swiglu_backward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("swiglu")
    a, b, dc = (randn(*shape, dtype=dtype, seed=s) for s in (1, 2, 3))
    da_ref, db_ref = grads(lambda a, b: silu(a) * b, [a, b], dc)
    da, db = mod.swiglu_backward(a.clone(), b.clone(), dc)
    check(da, da_ref, dtype, 2)
    check(db, db_ref, dtype, 2)


def rms_norm_ref(x, w, eps, offset):
    x = x.double()
    y = x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
    return y if w is None else y * (offset + w.double())


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("casting_mode", ["llama", "gemma", "none"])
def test_liger_rms_norm_forward(shape, dtype, casting_mode):
    dtype = DTYPES[dtype]
    mod = liger("rms_norm")
    x, w = randn(*shape, dtype=dtype, seed=1), randn(shape[-1], dtype=dtype, seed=2)
    y, _, rstd, _, _, _ = mod.rms_norm_forward(x, w, 1e-6, 1.0, casting_mode, True)
    check(y, rms_norm_ref(x, w, 1e-6, 1.0), dtype, 2)
    xd = x.double().reshape(-1, shape[-1])
    check(rstd, torch.rsqrt((xd * xd).mean(-1) + 1e-6), dtype)


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("casting_mode", ["llama", "gemma"])
def test_liger_rms_norm_backward(shape, dtype, casting_mode):
    dtype = DTYPES[dtype]
    mod = liger("rms_norm")
    x, w, dy = randn(*shape, dtype=dtype, seed=1), randn(shape[-1], dtype=dtype, seed=2), randn(*shape, dtype=dtype, seed=3)
    _, x2, rstd, block, warps, mode = mod.rms_norm_forward(x, w, 1e-6, 1.0, casting_mode, True)
    dx, dw = mod.rms_norm_backward(dy, x2, w, rstd, 1.0, mode, block, warps, False, True)
    dx_ref, dw_ref = grads(lambda x, w: rms_norm_ref(x, w, 1e-6, 1.0), [x, w], dy)
    check(dx, dx_ref, dtype, 4)
    check(dw, dw_ref, dtype, 4 * math.prod(shape[:-1]) ** 0.5)


@FLOAT_SCALAR
@pytest.mark.parametrize("rows,cols", [(20, 64), (37, 37)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_liger_block_rms_norm_forward(rows, cols, dtype):
    # The wrapper takes this kernel only for 32768 rows or more; launched here as it does.
    dtype = DTYPES[dtype]
    mod = liger("rms_norm")
    x, w = randn(rows, cols, dtype=dtype, seed=1), randn(cols, dtype=dtype, seed=2)
    BLOCK_SIZE, num_warps = mod.calculate_settings(cols)
    y = torch.empty_like(x)
    rstd = torch.empty(rows, dtype=torch.float32)
    BLOCK_ROW = 16
    mod._block_rms_norm_forward_kernel[(triton_cdiv(rows, BLOCK_ROW),)](
        y, y.stride(0), x, x.stride(0), w, w.stride(0), rstd, rstd.stride(0), rows, cols, 1e-6, 0.0,
        mod._CASTING_MODE_LLAMA.value, elementwise_affine=True, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
        BLOCK_ROW=BLOCK_ROW)
    check(y, rms_norm_ref(x, w, 1e-6, 0.0), dtype, 2)
    check(rstd, torch.rsqrt((x.double() ** 2).mean(-1) + 1e-6), dtype)


@FLOAT_SCALAR
@pytest.mark.parametrize("rows,cols", [(20, 64), (37, 37)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_liger_block_rms_norm_backward(rows, cols, dtype):
    dtype = DTYPES[dtype]
    mod = liger("rms_norm")
    x, w, dy = randn(rows, cols, dtype=dtype, seed=1), randn(cols, dtype=dtype, seed=2), randn(rows, cols, dtype=dtype, seed=3)
    _, _, rstd, BLOCK_SIZE, num_warps, mode = mod.rms_norm_forward(x, w, 1e-6, 0.0, "llama", True)
    sm_count = 3
    dw_partial = torch.zeros((sm_count, cols), dtype=torch.float32)
    dx = torch.zeros_like(dy)
    mod._block_rms_norm_backward_kernel[(sm_count,)](
        dy, dy.stride(0), dx, dx.stride(0), x, x.stride(0), mod.torch_to_triton_dtype[x.dtype], w, w.stride(0),
        rstd, rstd.stride(0), dw_partial, dw_partial.stride(0), rows, cols, 0.0, mode, elementwise_affine=True,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, BLOCK_ROW=16)
    dx_ref, dw_ref = grads(lambda x, w: rms_norm_ref(x, w, 1e-6, 0.0), [x, w], dy)
    check(dx, dx_ref, dtype, 4)
    check(dw_partial.sum(0), dw_ref, dtype, 4 * rows ** 0.5)


def triton_cdiv(a, b):
    return (a + b - 1) // b


def layer_norm_ref(x, w, b, eps):
    x = x.double()
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w.double() + b.double()


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_layer_norm_forward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("layer_norm")
    x, w, b = randn(*shape, dtype=dtype, seed=1), randn(shape[-1], dtype=dtype, seed=2), randn(shape[-1], dtype=dtype, seed=3)
    y, _, mean, rstd, _, _ = mod.layer_norm_forward(x, w, b, 1e-5)
    check(y, layer_norm_ref(x, w, b, 1e-5), dtype, 2)
    check(mean, x.double().reshape(-1, shape[-1]).mean(-1), dtype)


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_layer_norm_backward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("layer_norm")
    x, w, b, dy = (randn(*s, dtype=dtype, seed=i) for i, s in enumerate([shape, shape[-1:], shape[-1:], shape]))
    _, x2, mean, rstd, _, _ = mod.layer_norm_forward(x, w, b, 1e-5)
    dx, dw, db = mod.layer_norm_backward(dy, x2, w, b, mean, rstd)
    dx_ref, dw_ref, db_ref = grads(lambda x, w, b: layer_norm_ref(x, w, b, 1e-5), [x, w, b], dy)
    n = math.prod(shape[:-1]) ** 0.5
    check(dx, dx_ref, dtype, 4)
    check(dw, dw_ref, dtype, 4 * n)
    check(db, db_ref, dtype, 4 * n)


@pytest.mark.parametrize("rows,vocab", [(4, 100), (6, 1000)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_liger_cross_entropy(rows, vocab, dtype):
    dtype = DTYPES[dtype]
    mod = liger("cross_entropy")
    x = randn(rows, vocab, dtype=dtype, seed=1, scale=2.0)
    target = torch.randint(0, vocab, (rows,), generator=torch.Generator().manual_seed(2))
    target[1] = -100
    xin = x.clone().requires_grad_(True)
    loss, _, _, _, grad = mod.cross_entropy_forward(xin.detach().clone().requires_grad_(True), target, None, -100,
                                                     0.0, 0.0, "mean", None, False)
    xd = x.double().requires_grad_(True)
    ref = F.cross_entropy(xd, target, ignore_index=-100, reduction="mean")
    ref.backward()
    check(loss, ref.detach(), dtype, 2)
    check(grad, xd.grad, dtype, 2)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope_ref(q, cos, sin):
    return q * cos + rotate_half(q) * sin


def rope_inputs(bsz, n_qh, n_kh, seq, hd, dtype, cos_bs=1):
    q = randn(bsz, seq, n_qh, hd, dtype=dtype, seed=1).transpose(1, 2)
    k = randn(bsz, seq, n_kh, hd, dtype=dtype, seed=2).transpose(1, 2)
    pos = torch.arange(seq, dtype=torch.float64)
    inv = 1.0 / (10000 ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    freqs = torch.outer(pos, inv)
    emb = torch.cat((freqs, freqs), -1)
    cos = emb.cos()[None].expand(cos_bs, seq, hd).to(dtype)
    sin = emb.sin()[None].expand(cos_bs, seq, hd).to(dtype)
    return q, k, cos, sin


@BF16
@pytest.mark.parametrize("bsz,n_qh,n_kh,seq,hd", [(1, 4, 2, 8, 64), (2, 3, 1, 5, 32)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("backward", [False, True])
def test_liger_rope(bsz, n_qh, n_kh, seq, hd, dtype, backward):
    dtype = DTYPES[dtype]
    mod = liger("rope")
    q, k, cos, sin = rope_inputs(bsz, n_qh, n_kh, seq, hd, dtype)
    c, s = cos.double()[:, None], sin.double()[:, None]
    if not backward:
        q_ref, k_ref = rope_ref(q.double(), c, s), rope_ref(k.double(), c, s)
        q_out, k_out, _, _ = mod.rope_forward(q, k, cos, sin)  # in place, through q's and k's storage
        check(q_out, q_ref, dtype, 2)
        check(k_out, k_ref, dtype, 2)
    else:
        dq_ref, = grads(lambda q: rope_ref(q, c, s), [q], q)
        dk_ref, = grads(lambda k: rope_ref(k, c, s), [k], k)
        dq, dk = mod.rope_backward(q, k, cos, sin)
        check(dq, dq_ref, dtype, 2)
        check(dk, dk_ref, dtype, 2)


@BF16
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (3, 1000)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_softmax_single_block(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("softmax")
    x, dy = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    y, block, warps, multi = mod._softmax_forward(x)
    assert not multi
    check(y, torch.softmax(x.double(), -1), dtype)
    dx = mod._softmax_backward(dy, y, block, warps, multi)
    dx_ref, = grads(lambda x: torch.softmax(x, -1), [x], dy)
    check(dx, dx_ref, dtype, 2)


@DTYPE_CALL
@pytest.mark.parametrize("rows,cols", [(4, 300), (3, 1000)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@xfail_in_blockc("tl.max(m, blk_max) with a scalar m: the second argument is the axis, and a "
                 "scalar has none to reduce (Triton's reduction rejects a rank-0 input too)")
def test_liger_softmax_multi_block_forward(rows, cols, dtype):
    # The wrapper takes these kernels only for rows over 65536 elements; launched here
    # as it launches them, with a block smaller than the row.
    dtype = DTYPES[dtype]
    mod = liger("softmax")
    x = randn(rows, cols, dtype=dtype, seed=1)
    y = torch.empty_like(x)
    mod._softmax_multi_block_forward_kernel[(rows,)](y, y.stride(0), x, x.stride(0), cols, BLOCK_SIZE=128, num_warps=4)
    check(y, torch.softmax(x.double(), -1), dtype)


@DTYPE_CALL
@pytest.mark.parametrize("rows,cols", [(4, 300), (3, 1000)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_softmax_multi_block_backward(rows, cols, dtype):
    dtype = DTYPES[dtype]
    mod = liger("softmax")
    x, dy = randn(rows, cols, dtype=dtype, seed=1), randn(rows, cols, dtype=dtype, seed=2)
    y = torch.softmax(x.double(), -1).to(dtype)
    dx = torch.empty_like(dy)
    mod._softmax_multi_block_backward_kernel[(rows,)](dy, dy.stride(0), y, y.stride(0), dx, dx.stride(0), cols,
                                                      BLOCK_SIZE=128, num_warps=4)
    yd = y.double()
    check(dx, yd * (dy.double() - (dy.double() * yd).sum(-1, keepdim=True)), dtype, 2)


@pytest.mark.parametrize("rows,cols", [(4, 64), (3, 1000)])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_liger_kl_div(rows, cols, reduction, log_target):
    mod = liger("kl_div")
    y_pred = torch.log_softmax(randn(rows, cols, seed=1), -1)
    y_true = torch.softmax(randn(rows, cols, seed=2), -1)
    if log_target:
        y_true = y_true.log()
    out = mod.kldiv_forward_triton(y_pred, y_true, log_target, reduction, 1e-10)
    yt = y_true.double()
    elem = (yt.exp() * (yt - y_pred.double())) if log_target else yt * (yt.log() - y_pred.double())
    expected = {"none": elem, "sum": elem.sum(), "mean": elem.sum() / elem.numel(),
                "batchmean": elem.sum() / rows}[reduction]
    check(out, expected, torch.float32, 10)
    grad = mod.kldiv_backward_triton(y_true, torch.tensor(1.0), torch.empty_like(y_pred), log_target)
    check(grad, -yt.exp() if log_target else -yt)


def jsd_ref(x, y, beta):
    q, p = x.exp(), y.exp()
    if beta == 0.0:
        return (p * (y - x)).sum()
    if beta == 1.0:
        return (q * (x - y)).sum()
    m = beta * p + (1 - beta) * q
    return beta * (p * (y - m.log())).sum() + (1 - beta) * (q * (x - m.log())).sum()


@pytest.mark.parametrize("rows,cols", [(4, 64), (3, 1000)])
@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("labels", [False, True])
def test_liger_jsd(rows, cols, beta, labels):
    mod = liger("jsd")
    x = torch.log_softmax(randn(rows, cols, seed=1), -1)
    y = torch.log_softmax(randn(rows, cols, seed=2), -1)
    shift_labels = torch.zeros(rows, dtype=torch.int64)
    keep = torch.ones(rows, dtype=torch.bool)
    if labels:
        shift_labels[1] = -100
        keep[1] = False
    loss, dx = mod.jsd_forward(x, y, shift_labels, beta, -100, labels)
    n = int(keep.sum())
    xd = x.double().requires_grad_(True)
    ref = jsd_ref(xd[keep], y.double()[keep], beta) / n
    ref.backward()
    check(loss, ref.detach(), torch.float32, 10)
    check(dx, xd.grad, torch.float32, 10)


@pytest.mark.parametrize("rows,cols", [(4, 64), (3, 1000)])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
def test_liger_tvd(rows, cols, reduction):
    mod = liger("tvd")
    p = torch.softmax(randn(rows, cols, seed=1), -1)
    q = torch.softmax(randn(rows, cols, seed=2), -1)
    loss, g = mod.tv_distance_forward_triton(p, q, None, reduction, -100, False)
    elem = 0.5 * (p.double() - q.double()).abs()
    scale = {"none": 1.0, "sum": 1.0, "mean": 1.0 / (rows * cols), "batchmean": 1.0 / rows}[reduction]
    expected = {"none": elem, "sum": elem.sum(0).sum() if False else elem.sum(1).sum(),
                "mean": elem.sum() * scale, "batchmean": elem.sum() * scale}[reduction]
    if reduction == "sum":
        check(loss.sum(), expected, torch.float32, 10)
    else:
        check(loss, expected, torch.float32, 10)
    check(g, torch.where(p > q, 0.5, -0.5).double() * scale)


def dyt_ref(x, alpha, gamma, beta):
    return gamma * torch.tanh(alpha * x) + (0 if beta is None else beta)


@NO_LIBDEVICE
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 1100)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("have_beta", [True, False])
def test_liger_dyt_forward(shape, dtype, have_beta):
    dtype = DTYPES[dtype]
    mod = liger("dyt")
    x, gamma = randn(*shape, dtype=dtype, seed=1), randn(shape[-1], dtype=dtype, seed=2)
    beta = randn(shape[-1], dtype=dtype, seed=3) if have_beta else None
    alpha = torch.tensor([0.7], dtype=dtype)
    y = mod.liger_dyt_fwd(x, alpha, gamma, beta)
    check(y, dyt_ref(x.double(), alpha.double(), gamma.double(), None if beta is None else beta.double()), dtype, 2)


@NO_LIBDEVICE
@pytest.mark.parametrize("rows,cols", [(4, 64), (7, 1100)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_liger_dyt_backward(rows, cols, dtype):
    # liger_dyt_bwd sizes its grid by the GPU's multiprocessors; launched here with 2.
    dtype = DTYPES[dtype]
    mod = liger("dyt")
    x, gamma, beta, dy = (randn(*s, dtype=dtype, seed=i) for i, s in enumerate([(rows, cols), (cols,), (cols,), (rows, cols)]))
    alpha = torch.tensor([0.7], dtype=dtype)
    NUM_SMS = 2
    da = torch.zeros(NUM_SMS, triton_cdiv(cols, 512), dtype=torch.float32)
    dg = torch.empty(NUM_SMS, cols, dtype=torch.float32)
    db = torch.empty(NUM_SMS, cols, dtype=torch.float32)
    dx = torch.empty_like(dy)
    grid = lambda meta: (triton_cdiv(cols, meta["BLOCK_N"]), NUM_SMS)  # noqa: E731
    mod._dyt_bwd_kernel[grid](dy, dx, da, dg, db, x, alpha, gamma, True, rows, cols)
    dx_ref, da_ref, dg_ref, db_ref = grads(dyt_ref, [x, alpha, gamma, beta], dy)
    check(dx, dx_ref, dtype, 4)
    check(da.sum().reshape(1), da_ref, dtype, 4 * rows * cols ** 0.5)
    check(dg.sum(0), dg_ref, dtype, 4 * rows ** 0.5)
    check(db.sum(0), db_ref, dtype, 4 * rows ** 0.5)


@BF16_LITERAL
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_relu_squared(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("relu_squared")
    x, dy = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    y = mod.relu_squared_forward(x)
    y = y[0] if isinstance(y, tuple) else y
    check(y, torch.relu(x.double()) ** 2, dtype)
    dx = mod.relu_squared_backward(x, dy)
    dx = dx[0] if isinstance(dx, tuple) else dx
    check(dx, grads(lambda x: torch.relu(x) ** 2, [x], dy)[0], dtype)


def group_norm_ref(x, groups, w, b, eps):
    return F.group_norm(x.double(), groups, w.double(), b.double(), eps)


@FLOAT_SCALAR
@pytest.mark.parametrize("batch,channels,groups,hidden", [(2, 4, 2, 16), (3, 6, 3, 37)])
def test_liger_group_norm_forward(batch, channels, groups, hidden):
    mod = liger("group_norm")
    x = randn(batch, channels, hidden, seed=1)
    w, b = randn(channels, seed=2), randn(channels, seed=3)
    y, _, mean, rstd, _ = mod.group_norm_forward(x, channels, groups, w, b, 1e-6)
    check(y, group_norm_ref(x, groups, w, b, 1e-6), torch.float32, 2)
    check(mean, x.double().reshape(batch, groups, -1).mean(-1))


@FLOAT_SCALAR
@pytest.mark.parametrize("batch,channels,groups,hidden", [(2, 4, 2, 16), (3, 6, 3, 37)])
def test_liger_group_norm_backward(batch, channels, groups, hidden):
    mod = liger("group_norm")
    x, dy = randn(batch, channels, hidden, seed=1), randn(batch, channels, hidden, seed=4)
    w, b = randn(channels, seed=2), randn(channels, seed=3)
    _, x2, mean, rstd, _ = mod.group_norm_forward(x, channels, groups, w, b, 1e-6)
    dx, dw, db = mod.group_norm_backward(dy, x2, w, b, mean, rstd, channels, groups)
    dx_ref, dw_ref, db_ref = grads(lambda x, w, b: F.group_norm(x, groups, w, b, 1e-6), [x, w, b], dy)
    check(dx, dx_ref, torch.float32, 4)
    check(dw, dw_ref, torch.float32, 10)
    check(db, db_ref, torch.float32, 10)


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_liger_fused_add_rms_norm(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("fused_add_rms_norm")
    x, r, w, dy, ds = (randn(*s, dtype=dtype, seed=i) for i, s in enumerate([shape, shape, shape[-1:], shape, shape]))
    y, s, rstd, block, warps, stages, mode = mod.fused_add_rms_norm_forward(x, r, w, 1e-6, 0.0, "llama")
    check(s, x.double() + r.double(), dtype)
    check(y, rms_norm_ref(x.to(torch.float64) + r.double(), w, 1e-6, 0.0), dtype, 3)
    out = mod.fused_add_rms_norm_backward(dy, ds, s, w, rstd, 0.0, mode, block, warps, stages, False)
    dx, dr, dw = out[0], out[1], out[2]

    def f(x, r, w):
        s = x + r
        return rms_norm_ref(s, w, 1e-6, 0.0) * dy.double() + s * ds.double()
    xs = [t.detach().double().requires_grad_(True) for t in (x, r, w)]
    f(*xs).sum().backward()
    check(dx, xs[0].grad, dtype, 4)
    check(dr, xs[1].grad, dtype, 4)
    check(dw, xs[2].grad, dtype, 4 * math.prod(shape[:-1]) ** 0.5)


@pytest.mark.parametrize("vocab,dim,n", [(10, 16, 7), (50, 200, 33)])
def test_liger_embedding_forward(vocab, dim, n):
    mod = liger("experimental_embedding")
    table = randn(vocab, dim, seed=1)
    idx = torch.randint(0, vocab, (n,), generator=torch.Generator().manual_seed(2))
    out = mod.LigerEmbeddingFunction.apply(table, idx)
    check(out, table.double()[idx])


@pytest.mark.parametrize("vocab,dim,n", [(10, 16, 7), (50, 200, 33)])
def test_liger_embedding_backward(vocab, dim, n):
    mod = liger("experimental_embedding")
    table = randn(vocab, dim, seed=1).requires_grad_(True)
    idx = torch.randint(0, vocab, (n,), generator=torch.Generator().manual_seed(2))
    dy = randn(n, dim, seed=3)
    mod.LigerEmbeddingFunction.apply(table, idx).backward(dy)
    ref = torch.zeros(vocab, dim, dtype=torch.float64).index_add_(0, idx, dy.double())
    check(table.grad, ref, torch.float32, 4)


def poly_norm_ref(x, w, b, eps):
    def norm(u):
        return u * torch.rsqrt((u * u).mean(-1, keepdim=True) + eps)
    x = x.double()
    return w[0] * norm(x ** 3) + w[1] * norm(x ** 2) + w[2] * norm(x) + b


@FLOAT_SCALAR
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_liger_poly_norm(shape, dtype):
    dtype = DTYPES[dtype]
    mod = liger("poly_norm")
    x, dy = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    w, b = torch.tensor([0.3, 0.5, 0.7], dtype=dtype), torch.tensor([0.1], dtype=dtype)
    y, x2, rstd, block, warps = mod.poly_norm_forward(x, w, b, 1e-6)
    check(y, poly_norm_ref(x, w.double(), b.double(), 1e-6), dtype, 2)
    dx, dw, db = mod.poly_norm_backward(dy, x2, w, rstd, block, warps, False)
    dx_ref, dw_ref, db_ref = grads(lambda x, w, b: poly_norm_ref(x, w, b, 1e-6), [x, w, b], dy)
    check(dx, dx_ref, dtype, 4)
    check(dw, dw_ref, dtype, 4 * math.prod(shape) ** 0.5)
    check(db, db_ref.reshape(()) if db.dim() == 0 else db_ref, dtype, 4 * math.prod(shape) ** 0.5)


def sparsemax_ref(x):
    z = x.double()
    zs, _ = torch.sort(z, -1, descending=True)
    k = torch.arange(1, z.shape[-1] + 1, dtype=torch.float64)
    cs = zs.cumsum(-1)
    support = 1 + k * zs > cs
    kz = support.sum(-1, keepdim=True)
    tau = (cs.gather(-1, kz - 1) - 1) / kz
    return torch.clamp(z - tau, min=0)


@pytest.mark.parametrize("shape", [(4, 16), (3, 37)])
def test_liger_sparsemax_forward(shape):
    mod = liger("sparsemax")
    x = randn(*shape, seed=1)
    y, _ = mod._sparsemax_forward(x, -1)
    check(y, sparsemax_ref(x))


@pytest.mark.parametrize("shape", [(4, 16), (3, 37)])
def test_liger_sparsemax_backward(shape):
    mod = liger("sparsemax")
    x, dy = randn(*shape, seed=1), randn(*shape, seed=2)
    y = sparsemax_ref(x).float()
    dx = mod._sparsemax_backward(dy, y, -1)
    s = (y > 0).double()
    v = (dy.double() * s).sum(-1, keepdim=True) / s.sum(-1, keepdim=True)
    check(dx, s * (dy.double() - v))


def mrope_ref(q, cos, sin, section):
    section = section * 2
    c = torch.cat([m[i % 3] for i, m in enumerate(cos.split(section, dim=-1))], dim=-1).unsqueeze(1)
    s = torch.cat([m[i % 3] for i, m in enumerate(sin.split(section, dim=-1))], dim=-1).unsqueeze(1)
    return q * c + rotate_half(q) * s


@BF16
@pytest.mark.parametrize("bsz,n_qh,n_kh,seq,hd,section", [(1, 4, 2, 8, 32, [4, 6, 6]), (2, 3, 1, 5, 16, [2, 3, 3])])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_liger_qwen2vl_mrope(bsz, n_qh, n_kh, seq, hd, section, dtype):
    dtype = DTYPES[dtype]
    mod = liger("qwen2vl_mrope")
    q = randn(bsz, seq, n_qh, hd, dtype=dtype, seed=1).transpose(1, 2)
    k = randn(bsz, seq, n_kh, hd, dtype=dtype, seed=2).transpose(1, 2)
    ang = rand(3, bsz, seq, hd // 2, seed=3) * 6
    ang = torch.cat((ang, ang), -1)  # the kernel reads the left half: the right is its copy
    cos, sin = ang.cos().to(dtype), ang.sin().to(dtype)
    q_ref = mrope_ref(q.double(), cos.double(), sin.double(), section)
    k_ref = mrope_ref(k.double(), cos.double(), sin.double(), section)
    q_out, k_out, _, _ = mod.qwen2vl_mrope_forward(q, k, cos, sin, section)  # in place
    check(q_out, q_ref, dtype, 2)
    check(k_out, k_ref, dtype, 2)


@pytest.mark.parametrize("bsz,seq,n_qh,n_kh,hd", [(1, 8, 4, 2, 32), (2, 5, 3, 1, 16)])
def test_liger_llama4_rope(bsz, seq, n_qh, n_kh, hd):
    mod = liger("llama4_rope")
    q, k = randn(bsz, seq, n_qh, hd, seed=1), randn(bsz, seq, n_kh, hd, seed=2)
    ang = rand(seq, hd // 2, seed=3) * 6
    freqs = torch.polar(torch.ones_like(ang), ang)

    def ref(x):
        xc = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs.to(torch.complex128)[None, :, None, :]).reshape(x.shape)
    q_ref, k_ref = ref(q), ref(k)
    q_out, k_out = mod.llama4_rope_forward(q, k, freqs)[:2]  # in place (f32 q and k)
    check(q_out, q_ref, torch.float32, 2)
    check(k_out, k_ref, torch.float32, 2)


# =====================================================================================
# Unsloth (libraries/unsloth)
# =====================================================================================

def unsloth(name):
    return load("unsloth", name)


def gelu_exact(a):
    return 0.5 * a * (1 + torch.erf(a / math.sqrt(2)))


GEGLU = {"exact": gelu_exact, "approx": gelu_tanh}
UNSLOTH_SHAPES = [(2, 8, 64), (1, 7, 300), (3, 5, 37)]


@interpreter_limitation("libdevice functions are not implemented (each returns None): "
                        "libdevice.tanh", when=lambda p: p["kind"] == "approx")
@BF16
@pytest.mark.parametrize("kind", ["exact", "approx"])
@pytest.mark.parametrize("shape", UNSLOTH_SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unsloth_geglu_forward(kind, shape, dtype):
    dtype = DTYPES[dtype]
    mod = unsloth("geglu")
    gate, up = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    out = getattr(mod, f"geglu_{kind}_forward_kernel")(gate, up)
    check(out, GEGLU[kind](gate.double()) * up.double(), dtype, 2)


@interpreter_limitation("libdevice functions are not implemented (each returns None): "
                        "libdevice.tanh", when=lambda p: p["kind"] == "approx")
@BF16
@pytest.mark.parametrize("kind", ["exact", "approx"])
@pytest.mark.parametrize("shape", UNSLOTH_SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unsloth_geglu_backward(kind, shape, dtype):
    # The kernel overwrites its three inputs: DW with h = f(e) * g, e with the gradient
    # of g (DW * f), g with the gradient of e.
    dtype = DTYPES[dtype]
    mod = unsloth("geglu")
    dw, e, g = (randn(*shape, dtype=dtype, seed=s).reshape(-1, shape[-1]) for s in (1, 2, 3))
    f = GEGLU[kind]
    h_ref = f(e.double()) * g.double()
    de_ref, dg_ref = grads(lambda e, g: f(e) * g, [e, g], dw)
    h, df, de = getattr(mod, f"geglu_{kind}_backward_kernel")(dw.clone(), e.clone(), g.clone())
    check(h, h_ref, dtype, 2)
    check(df, dg_ref, dtype, 2)
    check(de, de_ref, dtype, 4)


@BF16
@pytest.mark.parametrize("shape", UNSLOTH_SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unsloth_swiglu_forward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = unsloth("swiglu")
    e, g = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    check(mod.swiglu_fg_kernel(e, g), silu(e.double()) * g.double(), dtype, 2)


@BF16
@pytest.mark.parametrize("shape", UNSLOTH_SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unsloth_swiglu_backward(shape, dtype):
    dtype = DTYPES[dtype]
    mod = unsloth("swiglu")
    dw, e, g = (randn(*shape, dtype=dtype, seed=s).reshape(-1, shape[-1]) for s in (1, 2, 3))
    h_ref = silu(e.double()) * g.double()
    de_ref, dg_ref = grads(lambda e, g: silu(e) * g, [e, g], dw)
    h, df, de = mod.swiglu_DWf_DW_dfg_kernel(dw.clone(), e.clone(), g.clone())
    check(h, h_ref, dtype, 2)
    check(df, dg_ref, dtype, 2)
    check(de, de_ref, dtype, 4)


@interpreter_limitation(BF16_REASON, when=lambda p: p["dtype"] == "bfloat16" and not p["gemma"])
@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("gemma", [False, True])
def test_unsloth_rms_layernorm_forward(shape, dtype, gemma):
    dtype = DTYPES[dtype]
    mod = unsloth("rms_layernorm")
    x, w = randn(*shape, dtype=dtype, seed=1), randn(shape[-1], dtype=dtype, seed=2)
    y = mod.Fast_RMS_Layernorm.apply(x, w, 1e-6, gemma)
    check(y, rms_norm_ref(x, w, 1e-6, 1.0 if gemma else 0.0), dtype, 2)


@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("gemma", [False, True])
def test_unsloth_rms_layernorm_backward(shape, dtype, gemma):
    dtype = DTYPES[dtype]
    mod = unsloth("rms_layernorm")
    x, w, dy = randn(*shape, dtype=dtype, seed=1), randn(shape[-1], dtype=dtype, seed=2), randn(*shape, dtype=dtype, seed=3)
    offset = 1.0 if gemma else 0.0
    dx_ref, = grads(lambda x: rms_norm_ref(x, w, 1e-6, offset), [x], dy)
    xg = x.clone().requires_grad_(True)
    mod.Fast_RMS_Layernorm.apply(xg, w, 1e-6, gemma).backward(dy.clone())
    check(xg.grad, dx_ref, dtype, 4)


@pytest.mark.parametrize("shape", [(4, 64), (2, 3, 37), (5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unsloth_layernorm(shape, dtype):
    dtype = DTYPES[dtype]
    mod = unsloth("layernorm")
    x, w, b, dy = (randn(*s, dtype=dtype, seed=i) for i, s in enumerate([shape, shape[-1:], shape[-1:], shape]))
    xg = x.clone().requires_grad_(True)
    y = mod.Fast_Layernorm.apply(xg, w, b, 1e-5)
    check(y, layer_norm_ref(x, w, b, 1e-5), dtype, 2)
    y.backward(dy.clone())
    dx_ref, = grads(lambda x: layer_norm_ref(x, w, b, 1e-5), [x], dy)
    check(xg.grad, dx_ref, dtype, 4)


def softcap_scale_ref(x, softcap, scale):
    x = x.double()
    if scale:
        x = x * scale
    if softcap:
        x = softcap * torch.tanh(x / softcap)
    return x


@ALIASED_BUILTIN
@pytest.mark.parametrize("rows,vocab", [(4, 100), (6, 1000)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("softcap,scale", [(0, 0), (30.0, 0), (0, 0.5)])
def test_unsloth_cross_entropy(rows, vocab, dtype, softcap, scale):
    dtype = DTYPES[dtype]
    mod = unsloth("cross_entropy_loss")
    x = randn(rows, vocab, dtype=dtype, seed=1, scale=3.0)
    labels = torch.randint(0, vocab, (rows,), generator=torch.Generator().manual_seed(2))
    labels[1] = -100
    dl = randn(rows, seed=3)
    xd = x.double().requires_grad_(True)
    ref = F.cross_entropy(softcap_scale_ref(xd, softcap, scale), labels, ignore_index=-100, reduction="none")
    ref.backward(dl.double())
    xg = x.clone().requires_grad_(True)
    losses = mod.Fast_CrossEntropyLoss.apply(xg, labels, softcap, scale)
    check(losses, ref.detach(), dtype, 2)
    losses.backward(dl)
    check(xg.grad, xd.grad, dtype, 2)


@ALIASED_BUILTIN
@pytest.mark.parametrize("rows,vocab", [(3, 70000)])
def test_unsloth_chunked_cross_entropy(rows, vocab):
    # Vocabularies over 65536 take the chunked kernel (a grid of rows x chunks).
    mod = unsloth("cross_entropy_loss")
    x = randn(rows, vocab, seed=1, scale=3.0)
    labels = torch.tensor([5, -100, 69999])
    losses = mod.Fast_CrossEntropyLoss.apply(x, labels, 0, 0)
    ref = F.cross_entropy(x.double(), labels, ignore_index=-100, reduction="none")
    check(losses, ref, torch.float32, 10)


def unsloth_rope_inputs(batch, seq, heads, hd, dtype):
    pos = torch.arange(seq, dtype=torch.float64)
    inv = 1.0 / (10000 ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    emb = torch.cat((torch.outer(pos, inv),) * 2, -1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


@BF16
@pytest.mark.parametrize("batch,seq,heads,hd", [(2, 8, 4, 64), (1, 5, 6, 32)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_unsloth_rope_embedding(batch, seq, heads, hd, dtype):
    dtype = DTYPES[dtype]
    mod = unsloth("rope_embedding")
    q = randn(batch, seq, heads, hd, dtype=dtype, seed=1)
    cos, sin = unsloth_rope_inputs(batch, seq, heads, hd, dtype)
    c, s = cos.double()[None, :, None, :], sin.double()[None, :, None, :]
    q_ref = rope_ref(q.double(), c, s)
    dy = randn(batch, seq, heads, hd, dtype=dtype, seed=2)
    dq_ref, = grads(lambda q: rope_ref(q, c, s), [q], dy)
    qg = q.clone().requires_grad_(True)
    out = mod.Fast_RoPE_Embedding.apply(qg, cos, sin)
    check(out, q_ref, dtype, 2)
    out.backward(dy.clone())
    check(qg.grad, dq_ref, dtype, 2)


@BF16
@pytest.mark.parametrize("batch,heads_q,heads_k,seq,hd", [(2, 4, 2, 8, 64), (1, 3, 1, 5, 32)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("indices", [False, True])
def test_unsloth_rope_embedding_qk(batch, heads_q, heads_k, seq, hd, dtype, indices):
    dtype = DTYPES[dtype]
    mod = unsloth("rope_embedding")
    q = randn(batch, heads_q, seq, hd, dtype=dtype, seed=1)
    k = randn(batch, heads_k, seq, hd, dtype=dtype, seed=2)
    cos, sin = unsloth_rope_inputs(batch, 2 * seq, heads_q, hd, dtype)
    rope_indices = None
    positions = torch.arange(seq).repeat(batch)
    if indices:
        positions = torch.randint(0, 2 * seq, (batch * seq,), generator=torch.Generator().manual_seed(3))
        rope_indices = positions.to(torch.int32).reshape(batch, seq)
    c = cos.double()[positions].reshape(batch, 1, seq, hd)
    s = sin.double()[positions].reshape(batch, 1, seq, hd)
    q_ref, k_ref = rope_ref(q.double(), c, s), rope_ref(k.double(), c, s)
    q_out, k_out = mod.Fast_RoPE_Embedding_QK.apply(q.clone(), k.clone(), cos, sin, rope_indices)
    check(q_out, q_ref, dtype, 2)
    check(k_out, k_ref, dtype, 2)


# =====================================================================================
# FlagGems (libraries/flag_gems)
# =====================================================================================

def flag_gems(name):
    return load("flag_gems", name)


ARGMAX_DTYPES = ["float32", "float16", "bfloat16", "int32"]


def make(shape, dtype, seed):
    if dtype == "int32":
        g = torch.Generator().manual_seed(seed)
        return torch.randint(-1000, 1000, shape, generator=g, dtype=torch.int32)
    return randn(*shape, dtype=DTYPES[dtype], seed=seed)


@CONSTEXPR_VALUE
@pytest.mark.parametrize("n", [1, 100, 1000, 4099])
@pytest.mark.parametrize("dtype", ARGMAX_DTYPES)
def test_flag_gems_argmax_flat(n, dtype):
    # argmax_kernel_1 (per-block max and index) then argmax_kernel_2 (over the blocks).
    mod = flag_gems("argmax")
    x = make((n,), dtype, 1)
    out = mod.argmax(x)
    assert int(out) == int(np.argmax(x.float().numpy() if dtype != "int32" else x.numpy()))


@CONSTEXPR_VALUE
@pytest.mark.parametrize("shape,dim", [((4, 37), 1), ((3, 50, 5), 1), ((64, 9), 0), ((2, 3, 300), -1)])
@pytest.mark.parametrize("dtype", ARGMAX_DTYPES)
def test_flag_gems_argmax_dim(shape, dim, dtype):
    mod = flag_gems("argmax")
    x = make(shape, dtype, 2)
    out = mod.argmax(x, dim=dim)
    ref = np.argmax(x.float().numpy() if dtype != "int32" else x.numpy(), axis=dim)
    np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("shape,dim", [((4, 37), [1]), ((3, 50, 5), [1]), ((6, 300), [1])])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_flag_gems_var_mean_welford(shape, dim, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("var_mean")
    x = randn(*shape, dtype=dtype, seed=1, scale=3.0)
    # keepdim=True: the wrapper's squeeze(dim=list) needs torch 2; the test squeezes.
    var, mean = mod.var_mean(x, dim, correction=1, keepdim=True)
    check(mean.squeeze(dim[0]), x.double().mean(dim), dtype, 2)
    check(var.squeeze(dim[0]), x.double().var(dim, unbiased=True), dtype, 4)


@pytest.mark.parametrize("shape", [(37,), (5, 300), (3000,)])
def test_flag_gems_var_mean_all(shape):
    # var_mean_kernel_1 (per-block sums) then var_mean_kernel_2 (Welford merge of the blocks).
    mod = flag_gems("var_mean")
    x = randn(*shape, seed=1, scale=3.0)
    var, mean = mod.var_mean(x, None, correction=0, keepdim=True)
    check(mean.reshape(()), x.double().mean(), torch.float32, 2)
    check(var.reshape(()), x.double().var(unbiased=False), torch.float32, 4)


@pytest.mark.parametrize("shape", [(37,), (5, 300), (3000,)])
def test_flag_gems_var_mean_kernel_1(shape):
    # The first stage alone, launched as var_mean launches it.
    mod = flag_gems("var_mean")
    x = randn(*shape, seed=1, scale=3.0)
    N = x.numel()
    BLOCK_N = 1024
    BLOCK_NUM = triton_cdiv(N, BLOCK_N)
    acc, average, count = (torch.empty([BLOCK_NUM]) for _ in range(3))
    mod.var_mean_kernel_1[(BLOCK_NUM,)](x, acc, average, count, N, BLOCK_N=BLOCK_N)
    xd = x.double().reshape(-1)
    for b in range(BLOCK_NUM):
        part = xd[b * BLOCK_N:(b + 1) * BLOCK_N]
        check(count[b], torch.tensor(float(part.numel())))
        check(average[b], part.mean(), torch.float32, 2)
        check(acc[b], ((part - part.mean()) ** 2).sum(), torch.float32, 40)


@pytest.mark.parametrize("n", [100, 5000])
@pytest.mark.parametrize("p", [0.2, 0.6])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flag_gems_dropout_forward(n, p, dtype):
    # Random: checked by the properties every dropout has (kept values scaled by
    # 1/(1-p), the rest zero, the mask saying which, a kept fraction near 1-p).
    dtype = DTYPES[dtype]
    mod = flag_gems("dropout")
    x = rand(n, dtype=dtype, seed=1) + 0.5
    out, mask = mod.dropout(x, p)
    assert mask.dtype == torch.bool
    check(out, torch.where(mask, x.double() / (1 - p), torch.zeros((), dtype=torch.float64)), dtype)
    kept = mask.double().mean().item()
    assert abs(kept - (1 - p)) < 4 * math.sqrt(p * (1 - p) / n) + 0.01


@pytest.mark.parametrize("n", [100, 5000])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flag_gems_dropout_backward(n, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("dropout")
    dy = randn(n, dtype=dtype, seed=1)
    mask = rand(n, seed=2) > 0.3
    dx = mod.dropout_backward(dy, mask, 1 / 0.7)
    check(dx, dy.double() * mask.double() / 0.7, dtype)


# --- FlagGems: scans (tl.cumsum, tl.associative_scan) ---------------------------------

CUMSUM_SHAPES = [((5, 37), 1), ((6000,), 0), ((4, 37, 3), 1), ((2, 5000, 3), 1),
                 ((3, 20000), 1)]  # a grid (M, num_ctas, 1, 1): the trailing 1s are accepted


@pytest.mark.parametrize("shape,dim", CUMSUM_SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32"])
def test_flag_gems_cumsum(shape, dim, dtype):
    # Rows of up to 16384 take the one-tile scan, longer ones the reduce-then-scan
    # kernels; a middle dimension takes scan_part_sum_abc and add_base_sum_abc (a
    # recursion over the partial sums past 4096).
    mod = flag_gems("cumsum")
    x = make(shape, dtype, 1) if dtype != "int32" else torch.randint(-5, 5, shape, generator=torch.Generator().manual_seed(1), dtype=torch.int32)
    out = mod.cumsum(x, dim)
    if dtype == "int32":
        assert out.dtype == torch.int64
        np.testing.assert_array_equal(out.numpy(), np.cumsum(x.numpy().astype(np.int64), axis=dim))
    else:
        ref = torch.cumsum(x.double(), dim)
        check(out, ref, DTYPES[dtype], 10 * math.sqrt(shape[dim]))


@pytest.mark.parametrize("shape,dim", [((5, 37), -1), ((4, 5000), -1), ((6, 4, 3), 0)])
def test_flag_gems_normed_cumsum(shape, dim):
    # block_cumsum_kernel: a loop over a row's tiles with a running sum. (FlagGems'
    # wrapper cannot run a row split over several programs, fewer than 4 rows here: it
    # calls `device.name` on the string its module made of `device`; nor a middle
    # dimension, whose result it leaves transposed.)
    mod = flag_gems("cumsum")
    x = rand(*shape, seed=2) + 0.01
    out = mod.normed_cumsum(x, dim)
    xd = x.double()
    check(out, torch.cumsum(xd, dim) / xd.sum(dim, keepdim=True), torch.float32, 10)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("shape,dim", [((5, 37), 1), ((3, 40, 2), 1)])
def test_flag_gems_cummax_cummin(op, shape, dim):
    mod = flag_gems(op)
    x = randn(*shape, seed=3).round(decimals=1)  # ties: the index is the last one's
    values, indices = getattr(mod, op)(x, dim)
    ref = getattr(torch, op)(x, dim)
    np.testing.assert_array_equal(values.numpy(), ref.values.numpy())
    xs = x.numpy()
    # the index of the last element equal to the running extreme
    np.testing.assert_array_equal(
        np.take_along_axis(xs, indices.numpy(), dim), values.numpy())


# --- FlagGems: tl.reduce with a combine function --------------------------------------

@pytest.mark.parametrize("op", ["any", "all"])
@pytest.mark.parametrize("shape,dim", [((5, 37), 1), ((3, 50, 5), 1), ((64, 9), 0), ((2, 700), 1), ((4099,), None)])
@pytest.mark.parametrize("density", [0.0, 0.002, 0.5, 1.0])
def test_flag_gems_any_all(op, shape, dim, density):
    mod = flag_gems(op)
    x = (rand(*shape, seed=4) < density).to(torch.float32) * randn(*shape, seed=5).sign()
    if op == "all":
        x = 1.0 - x.abs()  # all: zeros where `any` would have ones
    out = getattr(mod, f"{op}_dim")(x, dim=dim)
    ref = getattr(np, op)(x.numpy() != 0, axis=dim)
    np.testing.assert_array_equal(out.numpy(), ref)


@CONSTEXPR_VALUE
@pytest.mark.parametrize("shape,dim", [((4099,), None), ((4, 37), 1), ((3, 50, 5), 1), ((64, 9), 0)])
@pytest.mark.parametrize("dtype", ARGMAX_DTYPES)
def test_flag_gems_argmin(shape, dim, dtype):
    mod = flag_gems("argmin")
    x = make(shape, dtype, 6)
    out = mod.argmin(x, dim=dim)
    ref = np.argmin(x.float().numpy() if dtype != "int32" else x.numpy(), axis=dim)
    np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("shape,dim", [((37,), None), ((3000,), None), ((4, 37), 1), ((3, 50, 5), 1), ((2, 300), 0)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flag_gems_prod(shape, dim, dtype):
    # tl.reduce with reduce_mul as its combine function.
    dtype = DTYPES[dtype]
    mod = flag_gems("prod")
    x = (1 + 0.05 * randn(*shape, seed=7)).to(dtype)
    out = mod.prod(x) if dim is None else mod.prod_dim(x, dim)
    ref = x.double().prod() if dim is None else x.double().prod(dim)
    check(out, ref, dtype, 20)


# --- FlagGems: atomics ----------------------------------------------------------------

@pytest.mark.parametrize("shape,dim", [((37,), None), ((5000,), None), ((4, 37), 1), ((3, 50, 5), 1)])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_flag_gems_count_nonzero(shape, dim, dtype):
    # count_nonzero_kernel_1 sums the blocks with tl.atomic_add.
    mod = flag_gems("count_nonzero")
    x = (rand(*shape, seed=8) < 0.3) * torch.randint(1, 5, shape, generator=torch.Generator().manual_seed(9))
    x = x.to({"float32": torch.float32, "int32": torch.int32, "bool": torch.bool}[dtype])
    out = mod.count_nonzero(x, dim)
    ref = np.count_nonzero(x.numpy(), axis=dim)
    np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("n", [37, 4096, 10000, 70000])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32"])
def test_flag_gems_masked_select(n, dtype):
    # Up to 4096 elements: one program's tl.cumsum of the mask. Past it: per-program
    # counts, the last program to arrive (tl.atomic_add on a counter, acq_rel) scanning
    # them, then a write-back of each program's elements at its offset.
    mod = flag_gems("masked_select")
    x = make((n,), dtype, 10)
    mask = rand(n, seed=11) < 0.4
    out = mod.masked_select(x, mask)
    np.testing.assert_array_equal(out.float().numpy(), x[mask].float().numpy())


def test_flag_gems_masked_select_broadcast():
    mod = flag_gems("masked_select")
    x = randn(6, 37, seed=12)
    mask = rand(37, seed=13) < 0.5
    out = mod.masked_select(x, mask)
    np.testing.assert_array_equal(out.numpy(), torch.masked_select(x, mask).numpy())


@pytest.mark.parametrize("shape", [(37,), (5, 300), (2, 3, 70)])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_flag_gems_nonzero(shape, dtype):
    # nonzero_kernel scatters each nonzero's multi-index at its rank in a torch cumsum.
    mod = flag_gems("nonzero")
    x = (rand(*shape, seed=14) < 0.3).to({"float32": torch.float32, "int32": torch.int32, "bool": torch.bool}[dtype])
    out = mod.nonzero(x)
    np.testing.assert_array_equal(out.numpy(), np.argwhere(x.numpy()))


@pytest.mark.parametrize("num_weights,dim,index_shape", [(10, 64, (4, 7)), (50, 37, (300,))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 3])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
def test_flag_gems_embedding(num_weights, dim, index_shape, dtype, padding_idx, scale_grad_by_freq):
    # Forward: a gather; backward: tl.atomic_add of each row's gradient into its weight
    # row, and indice_freq_kernel's tl.atomic_add histogram of the indices.
    dtype = DTYPES[dtype]
    mod = flag_gems("embedding")
    w = randn(num_weights, dim, dtype=dtype, seed=15)
    idx = torch.randint(0, num_weights, index_shape, generator=torch.Generator().manual_seed(16))
    out = mod.embedding(w, idx)
    np.testing.assert_array_equal(out.float().numpy(), w[idx].float().numpy())
    dy = randn(*index_shape, dim, dtype=dtype, seed=17)
    wd = w.double().requires_grad_(True)
    F.embedding(idx, wd, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq).backward(dy.double())
    dw = mod.embedding_backward(dy, idx, num_weights, padding_idx=-1 if padding_idx is None else padding_idx,
                                scale_grad_by_freq=scale_grad_by_freq)
    check(dw, wd.grad, dtype, 4)


@pytest.mark.parametrize("n", [5, 37, 3000])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_flag_gems_vdot(n, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("vdot")
    a, b = randn(n, dtype=dtype, seed=18), randn(n, dtype=dtype, seed=19)
    check(mod.vdot(a, b), (a.double() * b.double()).sum(), dtype, math.sqrt(n))


@pytest.mark.parametrize("n", [5, 37, 3000])
@pytest.mark.parametrize("conj", [(False, False), (True, False), (False, True), (True, True)])
def test_flag_gems_vdot_complex(n, conj):
    mod = flag_gems("vdot")
    a = torch.complex(randn(n, seed=20), randn(n, seed=21))
    b = torch.complex(randn(n, seed=22), randn(n, seed=23))
    a_, b_ = (a.conj() if conj[0] else a), (b.conj() if conj[1] else b)
    out = mod.vdot(a_, b_)
    # vdot(a, b) = sum(conj(a) * b) (torch 1.13's own vdot of complex128 gives 0 here)
    ref = (a_.resolve_conj().to(torch.complex128).conj() * b_.resolve_conj().to(torch.complex128)).sum()
    check(torch.view_as_real(out.reshape(1)), torch.view_as_real(ref.reshape(1)), torch.float32, math.sqrt(n))


@pytest.mark.parametrize("n,c", [(5, 37), (64, 300)])
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_flag_gems_nll_loss(n, c, reduction):
    mod = flag_gems("nllloss")
    x = torch.log_softmax(randn(n, c, seed=24), 1)
    t = torch.randint(0, c, (n,), generator=torch.Generator().manual_seed(25))
    t[1] = -100
    w = rand(c, seed=26) + 0.5
    out, total_weight = mod.nll_loss_forward(x, t, w, reduction, -100)
    ref = F.nll_loss(x.double(), t, w.double(), ignore_index=-100,
                     reduction=["none", "mean", "sum"][reduction])
    check(out, ref, torch.float32, 4)


# --- FlagGems: random numbers (tl.philox, unsigned counters) --------------------------
# Checked by distribution and by consistency between the library's kernels: each draws
# Philox at counter (offset + i) of the shim's fixed seed, so rand, rand_like, randn
# (Box-Muller of the same pairs), exponential_ (-log u / lambda) and multinomial (a
# binary search of u in the CDF) must agree value for value at equal offsets.

def philox_at(offset):
    """Make the shim's next philox_backend_seed_offset return `offset`."""
    flag_gems("rand")
    sys.modules["flag_gems_shim"]._philox_calls[0] = offset


def rand_of(n, offset):
    """FlagGems' rand of n floats at Philox offset `offset`, in float64."""
    philox_at(offset)
    return flag_gems("rand").rand((n,)).double()


def philox_uniforms(counters, offset):
    """The four uniforms (r0..r3) of Philox counters offset + c, c < counters, as a
    [counters, 4] tensor, taken from rand, which stores a program's BLOCK (1024 here)
    counters' r0, r1, r2, r3 as four consecutive runs."""
    u = rand_of(4096 * triton_cdiv(counters, 1024), offset)
    return u.reshape(-1, 4, 1024).permute(0, 2, 1).reshape(-1, 4)[:counters]


def as_stored(words, n, block):
    """Four words per counter laid out as FlagGems' rand-like kernels store them."""
    c = triton_cdiv(n, 4 * block) * block
    return words[:c].reshape(-1, block, 4).permute(0, 2, 1).reshape(-1)[:n]


@pytest.mark.parametrize("n", [37, 3000, 40000])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flag_gems_rand(n, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("rand")
    philox_at(8)
    a = mod.rand((n,), dtype=dtype)
    philox_at(8)
    b = mod.rand((n,), dtype=dtype)
    c = mod.rand((n,), dtype=dtype)
    assert a.dtype == dtype and a.shape == (n,)
    assert torch.equal(a, b), "same seed and offset, same numbers"
    assert not torch.equal(a, c), "the offset moves on"
    ad = a.double()
    assert ad.min() >= 0 and ad.max() <= 1
    if n >= 3000:
        assert abs(ad.mean() - 0.5) < 5 / math.sqrt(12 * n)
        assert abs(ad.var() - 1 / 12) < 0.01
        # uniform: at most a few % off in each tenth
        hist = np.histogram(ad.numpy(), bins=10, range=(0, 1))[0] / n
        assert np.abs(hist - 0.1).max() < 0.02
        assert len(np.unique(ad.numpy())) > 0.9 * n if dtype == torch.float32 else True


@pytest.mark.parametrize("shape", [(37,), (5, 700)])
def test_flag_gems_rand_like(shape):
    mod = flag_gems("rand_like")
    x = torch.empty(shape)
    philox_at(16)
    a = mod.rand_like(x)
    u = rand_of(x.numel(), 16)
    assert a.shape == x.shape
    assert torch.equal(a.reshape(-1).double(), u)


@pytest.mark.parametrize("n", [37, 3000, 40000])
def test_flag_gems_randn(n):
    mod = flag_gems("randn")
    philox_at(24)
    z = mod.randn((n,)).double()
    # Box-Muller of the pairs (r0, r1) and (r2, r3), stored as rand stores its four
    w = philox_uniforms(triton_cdiv(n, 4) + 1024, 24)
    r01 = torch.sqrt(-2 * torch.log(torch.clamp(w[:, 0], min=1e-7)))
    r23 = torch.sqrt(-2 * torch.log(torch.clamp(w[:, 2], min=1e-7)))
    normal = torch.stack([r01 * torch.cos(2 * math.pi * w[:, 1]), r01 * torch.sin(2 * math.pi * w[:, 1]),
                          r23 * torch.cos(2 * math.pi * w[:, 3]), r23 * torch.sin(2 * math.pi * w[:, 3])], 1)
    check(z, as_stored(normal, n, 512 if n <= 512 else 1024), torch.float32, 10)
    if n >= 3000:
        assert abs(z.mean()) < 5 / math.sqrt(n)
        assert abs(z.std() - 1) < 0.05


@pytest.mark.parametrize("n", [37, 3000])
@pytest.mark.parametrize("lo,hi", [(0.0, 1.0), (-3.0, 5.0)])
def test_flag_gems_uniform(n, lo, hi):
    mod = flag_gems("uniform")
    philox_at(32)
    x = mod.uniform_(torch.empty(n), lo, hi).double()
    u = rand_of(n, 32)
    check(x, lo + (hi - lo) * u, torch.float32, 4)
    assert x.min() >= lo and x.max() <= hi


@pytest.mark.parametrize("n", [37, 3000])
@pytest.mark.parametrize("lambd", [1.0, 2.5])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flag_gems_exponential(n, lambd, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("exponential_")
    philox_at(40)
    x = mod.exponential_(torch.empty(n, dtype=dtype), lambd).double()
    u = rand_of(n, 40)
    eps = torch.finfo(dtype).eps
    ref = torch.where(u >= 1 - eps / 2, torch.full_like(u, -eps / 2), torch.log(u)) * (-1 / lambd)
    check(x, ref, dtype, 4)
    assert x.min() >= 0


def test_flag_gems_exponential_double():
    # float64: Philox words pasted into 64-bit uniforms (paste_u64, uint64 shifts; the
    # int64-times-float scaling of uint_to_uniform_float rounds to float32, as in Triton)
    mod = flag_gems("exponential_")
    philox_at(48)
    n = 5000
    x = mod.exponential_(torch.empty(n, dtype=torch.float64), 1.0)
    assert x.min() >= 0 and torch.isfinite(x).all()
    assert abs(x.mean() - 1) < 5 / math.sqrt(n)
    assert abs(x.var() - 1) < 0.15
    assert len(np.unique(x.numpy())) > 0.99 * n


@pytest.mark.parametrize("n_dist,k,n_samples", [(1, 10, 50), (4, 37, 300), (3, 1000, 64)])
def test_flag_gems_multinomial(n_dist, k, n_samples):
    # With replacement: normed_cumsum, then multinomial_with_replacement's binary search
    # of each uniform (Philox counter offset + dist * n_samples + sample) in the CDF.
    mod = flag_gems("multinomial")
    prob = rand(n_dist, k, seed=27) ** 3
    prob[:, 1] = 0  # never drawn
    philox_at(64)
    out = mod.multinomial(prob, n_samples, True)
    assert out.shape == (n_dist, n_samples) and out.dtype == torch.int64
    r0 = philox_uniforms(n_dist * n_samples, 64)[:, 0]
    rv = torch.clamp(r0.reshape(n_dist, n_samples) + 0.0001, max=0.9999)
    cdf = torch.cumsum(prob.double(), -1) / prob.double().sum(-1, keepdim=True)
    ref = torch.searchsorted(cdf, rv).clamp(max=k - 1)
    assert (out != ref).double().mean() < 0.01  # a rounding at a CDF step at most
    assert not (out == 1).any()


# --- FlagGems: while loops (randperm's radix sort with a decoupled look-back) ----------

class _NoLaunch:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


@pytest.mark.parametrize("n,key_dtype,valid_bits", [(3000, torch.int16, 16), (20000, torch.int32, 24), (5000, torch.int8, 8)])
def test_flag_gems_radix_sort_by_key(n, key_dtype, valid_bits, monkeypatch):
    # randperm's sort_by_key past 2048 elements: digit_hist_kernel, then per 4-bit pass
    # radix_sortbykey_scatter_kernel, whose programs spin in `while` loops on their
    # predecessors' published counts (volatile loads of d_lookback). The final
    # in-block shuffle is left out here (the next test), so the result is the stable
    # sort's permutation. (randperm itself calls torch.randint with constexpr bounds,
    # which torch 1.13 rejects.)
    mod = flag_gems("randperm")
    monkeypatch.setattr(mod, "duplicate_keys_shuffle_kernel", _NoLaunch())
    info = torch.iinfo(key_dtype)
    lo, hi = (-(2 ** 23), 2 ** 23 - 1) if valid_bits == 24 else (info.min, info.max)
    key = torch.randint(lo, hi, (n,), dtype=key_dtype, generator=torch.Generator().manual_seed(28))
    value = torch.arange(n)
    out = mod.sort_by_key(key, value, valid_bits)
    # the digits sorted: the key with its sign bit flipped (radix_type_convert), its
    # low valid_bits bits (randperm's 24-bit keys of int32 sort by those alone)
    digits = (key.long() + 2 ** (info.bits - 1)) & ((1 << valid_bits) - 1)
    ref = torch.sort(digits, stable=True).indices
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_flag_gems_randperm_shuffle():
    # duplicate_keys_shuffle_kernel: a random permutation within each block of 512.
    mod = flag_gems("randperm")
    n = 1500
    v = torch.arange(n)
    mod.duplicate_keys_shuffle_kernel[(triton_cdiv(n, 512),)](v, n, 1234, 0, 512, num_warps=4)
    for b in range(0, n, 512):
        np.testing.assert_array_equal(np.sort(v[b:b + 512].numpy()), np.arange(b, min(n, b + 512)))
    assert not torch.equal(v, torch.arange(n))


@pytest.mark.parametrize("shape,k", [((5, 300), 7), ((3, 2000), 16)])
@pytest.mark.parametrize("largest", [True, False])
def test_flag_gems_topk(shape, k, largest):
    mod = flag_gems("topk")
    x = randn(*shape, seed=29)
    values, indices = mod.topk(x, k, largest=largest)
    ref = torch.topk(x, k, largest=largest)
    np.testing.assert_array_equal(values.numpy(), ref.values.numpy())
    np.testing.assert_array_equal(indices.numpy(), ref.indices.numpy())
