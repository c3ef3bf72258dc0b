"""flash-attention's Triton kernels, unmodified (tests/python/libraries/flash_attn/, each file
headed by its origin, commit and the imports changed), launched through flash-attention's own
Python wrappers on torch CPU tensors and checked against references written here with torch
in float64 from the math, independently of the kernels (and of flash-attention's *_ref
functions):

- ops/triton/rotary.py: apply_rotary, the rotary embedding (out = x0 cos - x1 sin,
  x0 sin + x1 cos on the halves, or on interleaved pairs), with a partial rotary_dim,
  integer and per-sequence seqlen offsets, varlen (cu_seqlens), conjugate and in place;
- ops/triton/cross_entropy.py: cross_entropy_loss forward and backward (the online-softmax
  LSE over column blocks, label smoothing, logit_scale, the z-loss lse_square_scale,
  ignore_index, a precomputed LSE);
- ops/triton/layer_norm.py: layer_norm_fn / rms_norm_fn forward and backward (residual,
  prenorm, residual_in_fp32, the parallel second norm x1/weight1/bias1, rowscale,
  zero_centered_weight, dropout checked against the returned keep masks);
- ops/triton/linear.py + k_activations.py: triton_linear_act (act(x W^T + b), saving the
  pre-activation) and triton_dgrad_act ((dy W) * act'(pre)), for id, gelu, gelu_approx and
  squared_relu;
- flash_attn_triton.py: flash_attn_func forward and backward, written against Triton 2.0's
  tl.dot(..., trans_a=/trans_b=), which blockc accepts as keywords (Triton 2.1 and later
  no longer do).

The wrappers call torch.cuda.device, torch.cuda.get_device_properties,
torch.cuda.current_device and torch.library.wrap_triton, which this torch (1.13, no CUDA)
cannot answer: a fixture swaps the CPU stand-ins of libraries/flash_attn/fa_shim.py in while
each test runs. layer_norm.py autotunes over 6 num_warps configs, so each new key costs 6
compiles (forward and backward each); linear.py's 98 configs are pruned to one by the
stand-in early_config_prune.

flash-attention's LICENSE (BSD-3-Clause) is libraries/flash_attn/LICENSE, the text of
Dao-AILab/flash-attention's LICENSE at commit 0251105a2fb19d2957484b7f023cd8c115286ced.
"""

import math

import pytest
import torch
from library_testing import DTYPES, check, package_module, randn


def fa(name):
    """The module libraries/flash_attn/<name>.py, imported as blockc_lib_flash_attn.<name>
    (the files import each other and fa_shim relatively)."""
    return package_module("flash_attn", name)


@pytest.fixture(autouse=True)
def cpu_cuda():
    with fa("fa_shim").cpu_cuda():
        yield


def d(t):
    return t.detach().double()


# =====================================================================================
# rotary.py: apply_rotary
# =====================================================================================

def rotary_reference(x, cos, sin, offsets, interleaved, conjugate):
    """x [batch, seqlen, nheads, headdim] (float64): the first rotary_dim channels of
    token t rotated by angle index offsets[b] + t, the rest copied."""
    batch, seqlen = x.shape[:2]
    rd = 2 * cos.shape[1]
    out = x.clone()
    for b in range(batch):
        pos = torch.arange(seqlen) + int(offsets[b])
        c = cos[pos][:, None, :]
        s = sin[pos][:, None, :] * (-1 if conjugate else 1)
        if interleaved:
            x0, x1 = x[b, :, :, 0:rd:2], x[b, :, :, 1:rd:2]
            out[b, :, :, 0:rd:2] = x0 * c - x1 * s
            out[b, :, :, 1:rd:2] = x0 * s + x1 * c
        else:
            x0, x1 = x[b, :, :, :rd // 2], x[b, :, :, rd // 2:rd]
            out[b, :, :, :rd // 2] = x0 * c - x1 * s
            out[b, :, :, rd // 2:rd] = x0 * s + x1 * c
    return out


ROTARY_CASES = [
    # batch, seqlen, nheads, headdim, rotary_dim, seqlen_ro, offsets, interleaved, conjugate
    (2, 5, 3, 16, 16, 5, 0, False, False),
    (2, 13, 5, 40, 24, 20, 3, True, False),
    (3, 9, 1, 64, 32, 16, "tensor", False, True),
    (1, 1, 2, 8, 8, 4, 2, True, True),
]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", ROTARY_CASES)
def test_apply_rotary(case, dtype):
    batch, seqlen, nheads, headdim, rd, seqlen_ro, offsets, interleaved, conjugate = case
    dt = DTYPES[dtype]
    x = randn(batch, seqlen, nheads, headdim, dtype=dt, seed=1)
    angle = randn(seqlen_ro, rd // 2, dtype=torch.float64, seed=2) * 3
    cos, sin = torch.cos(angle).to(dt), torch.sin(angle).to(dt)
    if offsets == "tensor":
        offs = torch.tensor([0, seqlen_ro - seqlen, 4][:batch], dtype=torch.int32)
    else:
        offs = offsets
    out = fa("rotary").apply_rotary(x, cos, sin, seqlen_offsets=offs, interleaved=interleaved,
                                    conjugate=conjugate)
    offs_list = offs.tolist() if isinstance(offs, torch.Tensor) else [offs] * batch
    ref = rotary_reference(d(x), d(cos), d(sin), offs_list, interleaved, conjugate)
    check(out, ref, dt, scale=2, err_msg="apply_rotary")


@pytest.mark.parametrize("interleaved", [False, True])
def test_apply_rotary_varlen_inplace(interleaved):
    """Varlen: sequences of 3, 1 and 6 tokens packed as [total, nheads, headdim], rotated in
    place from position 0 each."""
    lens, nheads, headdim, rd = [3, 1, 6], 3, 20, 12
    total = sum(lens)
    x = randn(total, nheads, headdim, seed=3)
    angle = randn(8, rd // 2, dtype=torch.float64, seed=4)
    cos, sin = torch.cos(angle).float(), torch.sin(angle).float()
    cu = torch.tensor([0, 3, 4, 10], dtype=torch.int32)
    x_in = x.clone()
    out = fa("rotary").apply_rotary(x_in, cos, sin, cu_seqlens=cu, max_seqlen=max(lens),
                                    interleaved=interleaved, inplace=True)
    assert out.data_ptr() == x_in.data_ptr()
    ref = torch.empty(total, nheads, headdim, dtype=torch.float64)
    for b, n in enumerate(lens):
        s = int(cu[b])
        ref[s:s + n] = rotary_reference(d(x[s:s + n])[None], d(cos), d(sin), [0], interleaved,
                                        False)[0]
    check(out, ref, torch.float32, err_msg="apply_rotary varlen")


# =====================================================================================
# cross_entropy.py: cross_entropy_loss
# =====================================================================================

def ce_reference(logits, labels, smoothing, logit_scale, lse_square_scale, ignore_index):
    """Per-row loss (float64, differentiable in logits): lse - (1 - s) z_y - s mean(z)
    + lse_square_scale lse^2 with z = logit_scale * logits, 0 where label == ignore_index;
    and the z-loss lse_square_scale lse^2 (0 where ignored)."""
    z = logits * logit_scale
    lse = torch.logsumexp(z, dim=-1)
    keep = labels != ignore_index
    safe = torch.where(keep, labels, torch.zeros_like(labels))
    zy = z.gather(1, safe[:, None])[:, 0]
    loss = lse - (1 - smoothing) * zy - smoothing * z.mean(-1)
    zloss = lse_square_scale * lse * lse
    zero = torch.zeros_like(loss)
    return torch.where(keep, loss + zloss, zero), torch.where(keep, zloss, zero)


CE_CASES = [
    # rows, n_cols, smoothing, logit_scale, lse_square_scale
    (4, 37, 0.0, 1.0, 0.0),
    (3, 1000, 0.1, 1.0, 1e-4),
    (2, 20000, 0.0, 0.5, 0.0),    # two 16384-column blocks forward, five backward
    (5, 300, 0.2, 2.0, 1e-3),
]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", CE_CASES)
def test_cross_entropy(case, dtype):
    rows, n_cols, smoothing, logit_scale, lse_sq = case
    dt = DTYPES[dtype]
    logits = randn(rows, n_cols, dtype=dt, seed=5, scale=2.0).requires_grad_()
    g = torch.Generator().manual_seed(6)
    labels = torch.randint(0, n_cols, (rows,), generator=g)
    labels[1] = -100
    losses, z_losses = fa("cross_entropy").cross_entropy_loss(
        logits, labels, label_smoothing=smoothing, logit_scale=logit_scale,
        lse_square_scale=lse_sq)
    x = d(logits).requires_grad_()
    ref, zref = ce_reference(x, labels, smoothing, logit_scale, lse_sq, -100)
    check(losses, ref, torch.float32, scale=10, err_msg="loss")
    check(z_losses, zref, torch.float32, scale=10, err_msg="z_loss")
    dloss = randn(rows, seed=7)
    losses.backward(dloss)
    ref.backward(d(dloss))
    check(logits.grad, x.grad, dt, err_msg="dlogits")


def test_cross_entropy_precomputed_lse():
    rows, n_cols = 3, 77
    logits = randn(rows, n_cols, seed=8)
    labels = torch.tensor([3, 76, 0])
    lse = torch.logsumexp(d(logits), -1).float()
    losses, _ = fa("cross_entropy").cross_entropy_loss(logits, labels, precomputed_lse=lse)
    ref, _ = ce_reference(d(logits), labels, 0.0, 1.0, 0.0, -100)
    check(losses, ref, err_msg="loss with precomputed lse")


# =====================================================================================
# layer_norm.py: layer_norm_fn / rms_norm_fn
# =====================================================================================

def norm64(x, w, b, eps, rms):
    if rms:
        y = x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps)
    else:
        mu = x.mean(-1, keepdim=True)
        y = (x - mu) * torch.rsqrt((x - mu).square().mean(-1, keepdim=True) + eps)
    y = y * w
    return y if b is None else y + b


LN_CASES = [
    # rows, N, rms, has_bias, residual, prenorm, residual_in_fp32, zero_centered
    ((6,), 40, False, True, False, False, False, False),
    ((2, 5), 100, True, False, True, True, False, False),
    ((3, 3), 64, False, True, True, True, True, True),
    ((1,), 1, True, True, False, False, False, False),
]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", LN_CASES)
def test_layer_norm_fn(case, dtype):
    rows, n, rms, has_bias, has_res, prenorm, res_fp32, zc = case
    dt = DTYPES[dtype]
    eps = 1e-5
    x = randn(*rows, n, dtype=dt, seed=10).requires_grad_()
    w = randn(n, dtype=dt, seed=11).requires_grad_()
    b = randn(n, dtype=dt, seed=12).requires_grad_() if has_bias else None
    res = randn(*rows, n, dtype=dt, seed=13).requires_grad_() if has_res else None
    fn = fa("layer_norm").rms_norm_fn if rms else fa("layer_norm").layer_norm_fn
    out = fn(x, w, b, residual=res, eps=eps, prenorm=prenorm, residual_in_fp32=res_fp32,
             zero_centered_weight=zc)
    y, res_out = out if prenorm else (out, None)

    x64, w64 = d(x).requires_grad_(), d(w).requires_grad_()
    b64 = d(b).requires_grad_() if has_bias else None
    r64 = d(res).requires_grad_() if has_res else None
    h = x64 + r64 if has_res else x64
    y64 = norm64(h, w64 + 1 if zc else w64, b64, eps, rms)
    check(y, y64, dt, scale=2, err_msg="y")
    if prenorm:
        check(res_out, h, dt, err_msg="residual_out")
    dy = randn(*rows, n, dtype=dt, seed=14)
    terms = [(y, y64, dy)]
    if prenorm:
        terms.append((res_out, h, randn(*rows, n, dtype=res_out.dtype, seed=15)))
    torch.autograd.backward([t[0] for t in terms], [t[2] for t in terms])
    torch.autograd.backward([t[1] for t in terms], [d(t[2]) for t in terms])
    check(x.grad, x64.grad, dt, scale=4, err_msg="dx")
    check(w.grad, w64.grad, dt, scale=4 * max(1, rows[0]), err_msg="dw")
    if has_bias:
        check(b.grad, b64.grad, dt, scale=4, err_msg="db")
    if has_res:
        check(res.grad, r64.grad, dt, scale=4, err_msg="dresidual")


@pytest.mark.parametrize("rms", [False, True])
def test_layer_norm_parallel_dropout(rms):
    """The parallel form: h = drop(x) + drop(x1) + residual, y = norm(h; w, b),
    y1 = norm(h; w1, b1), with the returned keep masks; forward and backward."""
    rows, n, p, eps = 7, 48, 0.25, 1e-6
    x = randn(rows, n, seed=20).requires_grad_()
    x1 = randn(rows, n, seed=21).requires_grad_()
    res = randn(rows, n, seed=22).requires_grad_()
    w, b = randn(n, seed=23).requires_grad_(), randn(n, seed=24).requires_grad_()
    w1, b1 = randn(n, seed=25).requires_grad_(), randn(n, seed=26).requires_grad_()
    y, y1, res_out, m, m1 = fa("layer_norm").layer_norm_fn(
        x, w, b, residual=res, x1=x1, weight1=w1, bias1=b1, eps=eps, dropout_p=p,
        prenorm=True, is_rms_norm=rms, return_dropout_mask=True)
    assert m.dtype == torch.bool and 0 < m.float().mean() < 1
    leaves = [d(t).requires_grad_() for t in (x, x1, res, w, b, w1, b1)]
    x64, x164, r64, w64, b64, w164, b164 = leaves
    h = (x64 * m / (1 - p)) + (x164 * m1 / (1 - p)) + r64
    y64, y164 = norm64(h, w64, b64, eps, rms), norm64(h, w164, b164, eps, rms)
    check(res_out, h, err_msg="residual_out")
    check(y, y64, scale=2, err_msg="y")
    check(y1, y164, scale=2, err_msg="y1")
    grads = [randn(rows, n, seed=27 + i) for i in range(3)]
    torch.autograd.backward([y, y1, res_out], grads)
    torch.autograd.backward([y64, y164, h], [d(g) for g in grads])
    for name, t, ref in zip(["dx", "dx1", "dres", "dw", "db", "dw1", "db1"],
                            (x, x1, res, w, b, w1, b1), leaves):
        check(t.grad, ref.grad, scale=10, err_msg=name)


def test_layer_norm_rowscale():
    rows, n, eps = 5, 33, 1e-6
    x = randn(rows, n, seed=30).requires_grad_()
    w, b = randn(n, seed=31).requires_grad_(), randn(n, seed=32).requires_grad_()
    rowscale = randn(rows, seed=33)
    y = fa("layer_norm").layer_norm_fn(x, w, b, eps=eps, rowscale=rowscale)
    x64, w64, b64 = (d(t).requires_grad_() for t in (x, w, b))
    y64 = norm64(x64 * d(rowscale)[:, None], w64, b64, eps, False)
    check(y, y64, scale=2, err_msg="y")
    dy = randn(rows, n, seed=34)
    y.backward(dy)
    y64.backward(d(dy))
    for name, t, ref in zip(["dx", "dw", "db"], (x, w, b), (x64, w64, b64)):
        check(t.grad, ref.grad, scale=10, err_msg=name)


# =====================================================================================
# linear.py (+ k_activations.py): triton_linear_act, triton_dgrad_act
# =====================================================================================

def act64(name, x):
    if name == "id":
        return x
    if name == "gelu":
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    if name == "gelu_approx":
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    assert name == "squared_relu"
    return torch.relu(x) ** 2


# The kernels store their output tile without a mask (the forward's `tl.store(C, acc)`),
# so M must be a multiple of BLOCK_M (16) and the output width of BLOCK_N (32) for the
# one config the stand-in early_config_prune keeps; K is free (EVEN_K or the masked loop).
@pytest.mark.parametrize("activation", ["id", "gelu", "gelu_approx", "squared_relu"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_linear_act_and_dgrad(activation, dtype):
    """An MLP's first layer and its input gradient: pre = x W1^T + b1, h = act(pre),
    and, for y = h W2^T, dpre = (dy W2) * act'(pre)."""
    dt = DTYPES[dtype]
    m, k_in, hidden, k_out = 48, 40, 64, 24
    x = randn(m, k_in, dtype=dt, seed=40, scale=0.5)
    w1 = randn(hidden, k_in, dtype=dt, seed=41, scale=0.3)
    b1 = randn(hidden, dtype=dt, seed=42)
    w2 = randn(k_out, hidden, dtype=dt, seed=43, scale=0.3)
    dy = randn(m, k_out, dtype=dt, seed=44)
    lin = fa("linear")
    h, pre = lin.triton_linear_act(x, w1, b1, activation=activation, save_act_input=True)
    pre64 = (d(x) @ d(w1).T + d(b1)).requires_grad_()
    check(pre, pre64, dt, scale=4, err_msg="act_input")
    h64 = act64(activation, pre64)
    check(h, h64, dt, scale=4, err_msg="output")
    dpre = lin.triton_dgrad_act(dy, w2, activation=activation, act_input=pre)
    # act' at the pre-activation the kernel saved (rounded to dtype), as the kernel reads it
    p = d(pre).requires_grad_()
    act64(activation, p).backward(d(dy) @ d(w2))
    check(dpre, p.grad, dt, scale=4, err_msg="dgrad")


# =====================================================================================
# flash_attn_triton.py: flash_attn_func
# =====================================================================================

def attention64(q, k, v, causal, scale):
    s = torch.einsum("bqhd,bkhd->bhqk", q, k) * scale
    if causal:
        sq, sk = s.shape[-2:]
        # flash_attn_triton.py aligns the causal mask top-left (query i sees keys <= i)
        s = s.masked_fill(torch.ones(sq, sk, dtype=torch.bool).triu(1), float("-inf"))
    return torch.einsum("bhqk,bkhd->bqhd", torch.softmax(s, -1), v)


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attn_func(causal):
    b, sq, sk, h, dh = 1, 70, 50, 2, 40
    q = randn(b, sq, h, dh, dtype=torch.float16, seed=50).requires_grad_()
    k = randn(b, sk, h, dh, dtype=torch.float16, seed=51).requires_grad_()
    v = randn(b, sk, h, dh, dtype=torch.float16, seed=52).requires_grad_()
    with fa("fa_shim").cuda_tensors():
        o = fa("flash_attn_triton").flash_attn_func(q, k, v, None, causal, None)
    q64, k64, v64 = (d(t).requires_grad_() for t in (q, k, v))
    o64 = attention64(q64, k64, v64, causal, 1 / math.sqrt(dh))
    check(o, o64, torch.float16, err_msg="o")
    do = randn(b, sq, h, dh, dtype=torch.float16, seed=53)
    with fa("fa_shim").cuda_tensors():
        o.backward(do)
    o64.backward(d(do))
    for name, t, ref in zip(["dq", "dk", "dv"], (q, k, v), (q64, k64, v64)):
        check(t.grad, ref.grad, torch.float16, scale=4, err_msg=name)
