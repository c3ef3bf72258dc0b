"""More of Liger-Kernel's Triton kernels, unmodified (tests/python/libraries/liger_kernel/, each
file headed by its origin, commit and the imports changed), launched through Liger's own
Python wrappers and autograd Functions on torch CPU tensors, and checked against
references written here with torch in float64 from the math, independently of the kernels
and of Liger's own reference code:

- fused_linear_cross_entropy.py: the chunked lm-head + cross-entropy forward that computes
  the gradients of the input, weight and bias in the forward pass (Liger's
  cross-entropy kernel on each chunk of logits), with ignore_index, label smoothing,
  softcapping, the z-loss, class weights and the sum/mean reductions; the backward scales
  the stored gradients with element_mul_kernel;
- fused_linear_jsd.py: the chunked lm-head + generalized Jensen-Shannon divergence between
  a student and a teacher (Liger's _jsd_kernel), for beta 0 (forward KL), 1 (reverse KL)
  and in between, with temperature and shifted labels;
- multi_token_attention.py: causal -inf masking, softmax or sparsemax over the keys, a
  2-D convolution over (query, key) and causal zero masking, forward and backward;
- grpo_loss.py: the GRPO family of policy losses (grpo, bnpo, dr_grpo, dapo, cispo, sapo,
  with the KL penalty, completion masks and sequence-level importance sampling) over
  logits, forward (loss, mean KL, clip ratio) and backward (the gradient of the logits),
  and fused_selective_log_softmax;
- fused_neighborhood_attention.py: 1-D neighborhood attention (a window of kernel_size
  keys, with dilation) by tiles of tl.dot, forward and backward.

Unsloth's kernels/fp8.py (libraries/unsloth_more/fp8.py, unsloth_zoo's helpers stood in by
unsloth_more_shim.py): its kernels take float8 tensors, which torch 1.13 lacks, so
test_unsloth_fp8_weight_dequant passes uint8 storage through triton.reinterpret as
tl.float8e4nv. Unsloth's kernels/moe/grouped_gemm
is not covered: it is licensed AGPL-3.0 (its own LICENSE), not Apache-2.0 like the rest of
Unsloth. torch 1.13 has no
float16 matmul or convolution on the CPU, so the wrappers that multiply in torch
(the fused-linear losses, multi-token attention) run in float32 and bfloat16 only.

Liger-Kernel's LICENSE (BSD-2-Clause) is libraries/liger_kernel/LICENSE, the text of
linkedin/Liger-Kernel's LICENSE at commit ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c;
Unsloth's (Apache-2.0) is libraries/unsloth_more/LICENSE.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from library_testing import DTYPES, check, load, randn


def liger(name):
    if name == "grpo_loss":
        # grpo_loss.py decorates with a bare `@torch.no_grad`, which torch 1.13 lacks.
        with load("liger_kernel", "liger_no_grad_shim").bare_no_grad():
            return load("liger_kernel", name)
    return load("liger_kernel", name)


def d(t):
    return None if t is None else t.detach().double()


def leaf(t):
    """t in float64 as a leaf that wants its gradient."""
    return t.detach().double().requires_grad_(True)


def labels(rows, vocab, seed, ignore_index=None, n_ignored=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, vocab, (rows,), generator=g)
    if n_ignored:
        y[torch.randperm(rows, generator=g)[:n_ignored]] = ignore_index
    return y


# =====================================================================================
# fused_linear_cross_entropy.py
# =====================================================================================


def ce_reference(x, w, b, y, ce_weight, ignore_index, smoothing, softcap, z_scale,
                 reduction):
    logits = x @ w.t()
    if b is not None:
        logits = logits + b
    if softcap is not None:
        logits = softcap * torch.tanh(logits / softcap)
    keep = y != ignore_index
    lse = torch.logsumexp(logits, dim=-1)
    yk = torch.where(keep, y, torch.zeros_like(y))
    z_y = logits.gather(1, yk[:, None])[:, 0]
    V = logits.shape[-1]
    if ce_weight is None:
        nll = lse - z_y
        smooth = lse - logits.mean(-1)
        per_row = (1 - smoothing) * nll + smoothing * smooth
        denom = keep.sum()
    else:
        wy = ce_weight[yk]
        nll = wy * (lse - z_y)
        smooth = lse * ce_weight.sum() / V - (logits * ce_weight).sum(-1) / V
        per_row = (1 - smoothing) * nll + smoothing * smooth
        denom = wy[keep].sum()
    z = z_scale * lse * lse
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    z = torch.where(keep, z, torch.zeros_like(z))
    if reduction == "sum":
        return per_row.sum() + z.sum(), z.sum()
    return per_row.sum() / denom + z.sum() / keep.sum(), z.sum() / keep.sum()


FLCE_CASES = [
    # BT, H, V, bias, ce_weight, ignored, smoothing, softcap, z_scale, reduction
    (8, 16, 40, False, False, 0, 0.0, None, 0.0, "mean"),
    (13, 24, 67, True, False, 3, 0.1, None, 0.0, "mean"),
    (7, 32, 100, True, False, 2, 0.0, 30.0, 1e-3, "mean"),
    (9, 8, 33, False, False, 1, 0.0, None, 0.0, "sum"),
    (6, 16, 50, False, True, 1, 0.0, None, 0.0, "mean"),
    (1, 5, 3, False, False, 0, 0.0, None, 0.0, "mean"),
]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", FLCE_CASES)
def test_liger_fused_linear_cross_entropy(case, dtype):
    BT, H, V, has_bias, has_cw, n_ign, smoothing, softcap, z_scale, reduction = case
    dtype = DTYPES[dtype]
    mod = liger("fused_linear_cross_entropy")
    x = randn(BT, H, dtype=dtype, seed=1)
    w = randn(V, H, dtype=dtype, seed=2, scale=0.3)
    b = randn(V, dtype=dtype, seed=3, scale=0.1) if has_bias else None
    cw = (torch.rand(V, generator=torch.Generator().manual_seed(4)) + 0.5) if has_cw else None
    y = labels(BT, V, 5, -100, n_ign)
    xs, ws = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    bs = b.clone().requires_grad_(True) if has_bias else None
    loss, z_loss, _, _ = mod.LigerFusedLinearCrossEntropyFunction.apply(
        xs, ws, y, bs, cw, -100, z_scale, smoothing, reduction, softcap, z_scale > 0)
    xr, wr = leaf(x), leaf(w)
    br = leaf(b) if has_bias else None
    ref, ref_z = ce_reference(xr, wr, br, y, d(cw), -100, smoothing, softcap, z_scale,
                              reduction)
    scale = 2.0 if dtype == torch.float32 else 1.0
    check(loss, ref, dtype, scale, "loss")
    if z_scale > 0:
        check(z_loss, ref_z, dtype, scale, "z_loss")
    go = 0.5 if BT % 2 else 1.0  # element_mul_kernel runs when grad_output != 1
    (loss * go).backward()
    (ref * go).backward()
    check(xs.grad, xr.grad, dtype, scale, "grad input")
    check(ws.grad, wr.grad, dtype, scale, "grad weight")
    if has_bias:
        check(bs.grad, br.grad, dtype, scale, "grad bias")


def test_liger_fused_linear_cross_entropy_reduction_none():
    """reduction="none": the gradients are computed in backward, with the per-token
    upstream gradient folded into the logits' gradient."""
    mod = liger("fused_linear_cross_entropy")
    BT, H, V = 11, 12, 37
    x, w = randn(BT, H, seed=6), randn(V, H, seed=7, scale=0.3)
    y = labels(BT, V, 8, -100, 2)
    xs, ws = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    loss = mod.LigerFusedLinearCrossEntropyFunction.apply(xs, ws, y, None, None, -100, 0.0,
                                                          0.0, "none")[0]
    xr, wr = leaf(x), leaf(w)
    logits = xr @ wr.t()
    keep = y != -100
    yk = torch.where(keep, y, torch.zeros_like(y))
    ref = (torch.logsumexp(logits, -1) - logits.gather(1, yk[:, None])[:, 0]) * keep
    check(loss, ref, torch.float32, 2.0, "loss")
    go = randn(BT, seed=9)
    loss.backward(go)
    ref.backward(d(go))
    check(xs.grad, xr.grad, torch.float32, 2.0, "grad input")
    check(ws.grad, wr.grad, torch.float32, 2.0, "grad weight")


# =====================================================================================
# fused_linear_jsd.py
# =====================================================================================


def jsd_reference(xs, ws, xt, wt, y, beta, ignore_index, temperature):
    q = torch.log_softmax(xs @ ws.t() / temperature, -1)   # student, log Q
    p = torch.log_softmax(xt @ wt.t() / temperature, -1)   # teacher, log P
    P, Q = p.exp(), q.exp()
    if beta == 0.0:
        per = (P * (p - q)).sum(-1)
    elif beta == 1.0:
        per = (Q * (q - p)).sum(-1)
    else:
        M = beta * P + (1 - beta) * Q
        per = beta * (P * (p - M.log())).sum(-1) + (1 - beta) * (Q * (q - M.log())).sum(-1)
    if y is None:
        return per.sum() / per.shape[0]
    keep = y != ignore_index
    return (per * keep).sum() / keep.sum()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("BT,H,V,beta,temperature,n_ign,go", [
    (8, 16, 40, 0.5, 1.0, 0, 1.0),
    (13, 24, 67, 0.0, 2.0, 3, 1.0),
    (7, 32, 100, 1.0, 1.0, 2, 0.5),
    (9, 8, 33, 0.3, 0.7, None, 2.0),
])
def test_liger_fused_linear_jsd(BT, H, V, beta, temperature, n_ign, go, dtype):
    dtype = DTYPES[dtype]
    mod = liger("fused_linear_jsd")
    xs, ws = randn(BT, H, dtype=dtype, seed=1), randn(V, H, dtype=dtype, seed=2, scale=0.3)
    xt, wt = randn(BT, H, dtype=dtype, seed=3), randn(V, H, dtype=dtype, seed=4, scale=0.3)
    y = None if n_ign is None else labels(BT, V, 5, -100, n_ign)
    a, b = xs.clone().requires_grad_(True), ws.clone().requires_grad_(True)
    loss = mod.LigerFusedLinearJSDFunction.apply(a, b, xt, wt, y, beta, -100, temperature)
    xr, wr = leaf(xs), leaf(ws)
    ref = jsd_reference(xr, wr, d(xt), d(wt), y, beta, -100, temperature)
    scale = 2.0 if dtype == torch.float32 else 1.0
    check(loss, ref, dtype, scale, "loss")
    (loss * go).backward()
    (ref * go).backward()
    check(a.grad, xr.grad, dtype, scale, "grad student input")
    check(b.grad, wr.grad, dtype, scale, "grad student weight")


# =====================================================================================
# multi_token_attention.py
# =====================================================================================


def sparsemax64(z):
    zs, _ = torch.sort(z, dim=-1, descending=True)
    k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype)
    cums = zs.cumsum(-1)
    support = (1 + k * zs > cums).detach()
    kz = support.sum(-1, keepdim=True)
    tau = (cums.gather(-1, kz - 1) - 1) / kz.to(z.dtype)
    return torch.clamp(z - tau, min=0)


def mta_reference(scores, weight, bias, padding, groups, sparse):
    L = scores.shape[-1]
    future = torch.ones(L, L, dtype=torch.bool).triu(1)
    s = scores.masked_fill(future, -1e9)
    probs = sparsemax64(s) if sparse else torch.softmax(s, -1)
    out = F.conv2d(probs, weight, bias, padding=padding, groups=groups)
    return out.masked_fill(future, 0.0)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("B,C,L,k,groups,bias,sparse", [
    (2, 2, 8, 3, 1, True, False),
    (1, 4, 13, 3, 2, False, False),
    (2, 3, 5, 1, 3, True, False),
    (1, 2, 11, 3, 1, True, True),
])
def test_liger_multi_token_attention(B, C, L, k, groups, bias, sparse, dtype):
    if sparse and dtype != "float32":
        pytest.skip("Liger's sparse multi-token attention takes float32 only")
    dtype = DTYPES[dtype]
    mod = liger("multi_token_attention")
    scores = randn(B, C, L, L, dtype=dtype, seed=1)
    w = randn(C, C // groups, k, k, dtype=dtype, seed=2, scale=0.5)
    b = randn(C, dtype=dtype, seed=3, scale=0.1) if bias else None
    s_, w_ = scores.clone().requires_grad_(True), w.clone().requires_grad_(True)
    b_ = b.clone().requires_grad_(True) if bias else None
    out = mod.LigerMultiTokenAttentionFunction.apply(s_, w_, b_, 1, k // 2, 1, groups, sparse)
    sr, wr = leaf(scores), leaf(w)
    br = leaf(b) if bias else None
    ref = mta_reference(sr, wr, br, k // 2, groups, sparse)
    check(out, ref, dtype, 2.0, "out")
    go = randn(*ref.shape, dtype=dtype, seed=4)
    out.backward(go)
    ref.backward(d(go))
    if dtype == torch.float32:
        # Liger's backward computes the softmax gradient in torch in the input's dtype
        # (probs * (grad - sum(grad * probs))); in bfloat16 that is off by more than the
        # tolerance (the same to the bit as that formula in torch bfloat16, so not blockc).
        check(s_.grad, sr.grad, dtype, 2.0, "grad scores")
    check(w_.grad, wr.grad, dtype, 4.0, "grad weight")
    if bias:
        check(b_.grad, br.grad, dtype, 4.0, "grad bias")


# =====================================================================================
# grpo_loss.py
# =====================================================================================


def grpo_inputs(B, L, N, with_old, with_ref, with_mask, seed=0):
    logits = randn(B, L + 1, N, seed=seed, scale=2.0)
    g = torch.Generator().manual_seed(seed + 1)
    ids = torch.randint(0, N, (B, L), generator=g)
    true_logp = torch.log_softmax(logits[:, :L].double(), -1).gather(-1, ids[..., None])[..., 0]
    old = (true_logp + 0.3 * torch.randn(B, L, generator=g, dtype=torch.float64)).float() \
        if with_old else None
    ref = (true_logp + 0.5 * torch.randn(B, L, generator=g, dtype=torch.float64)).float() \
        if with_ref else None
    adv = torch.randn(B, generator=g)
    mask = None
    if with_mask:
        mask = (torch.rand(B, L, generator=g) > 0.3).to(torch.int64)
        mask[0, :] = 1
    return logits, old, ref, ids, adv, mask


def grpo_reference(logits, old, ref, ids, adv, mask, T, beta, eps_low, eps_high, loss_type,
                   level="token", sapo=(1.0, 1.05), delta=None):
    B, L1, N = logits.shape
    L = L1 - 1
    logp = torch.log_softmax(logits[:, :L] / T, -1).gather(-1, ids[..., None])[..., 0]
    m = torch.ones(B, L, dtype=torch.float64) if mask is None else mask.double()
    old = logp.detach() if old is None else old
    A = adv[:, None]
    if level == "sequence":
        log_ratio = ((logp - old) * m).sum(-1, keepdim=True) / m.sum(-1, keepdim=True).clamp(1)
        coef1 = torch.exp(log_ratio)
        coef1 = coef1 - coef1.detach() + coef1.detach()  # the same value, kept in the graph
        coef1 = coef1.expand(B, L)
    else:
        coef1 = torch.exp(logp - old)
    clipped = torch.zeros(B, L, dtype=torch.float64)
    if loss_type == "cispo":
        per = -torch.clamp(coef1, max=eps_high).detach() * A * logp
        clipped = ((coef1 > eps_high) & (A > 0)).double()
    elif loss_type == "sapo":
        tau = torch.where(A > 0, sapo[0], sapo[1])
        per = -torch.sigmoid(tau * (coef1 - 1)) * 4 / tau * A
    else:
        coef2 = torch.clamp(coef1, 1 - eps_low, 1 + eps_high)
        c1 = coef1 if delta is None else torch.clamp(coef1, max=delta)
        per = -torch.min(c1 * A, coef2 * A)
        clipped = (((coef1 < 1 - eps_low) & (A < 0)) | ((coef1 > 1 + eps_high) & (A > 0)))
        clipped = clipped.double()
    kl = None
    if beta != 0.0:
        kl = torch.exp(ref - logp) - (ref - logp) - 1
        per = per + beta * kl
    if loss_type in ("grpo", "sapo"):
        loss = ((per * m).sum(-1) / m.sum(-1).clamp(1)).mean()
    elif loss_type == "bnpo":
        loss = (per * m).sum() / m.sum().clamp(1)
    elif loss_type == "dr_grpo":
        loss = (per * m).sum() / (B * L)
    else:  # dapo, cispo
        loss = (per * m).sum() / m.sum().clamp(1)
    ms = m.sum().clamp(1)
    kl_mean = None if kl is None else (kl * m).sum() / ms
    return loss, kl_mean, (clipped * m).sum() / ms


GRPO_CASES = [
    # B, L, N, loss_type, old, ref(beta), mask, level, delta
    (2, 5, 50, "grpo", True, True, False, "token", None),
    (3, 4, 2500, "bnpo", True, False, True, "token", None),
    (2, 3, 37, "dr_grpo", False, True, False, "token", None),
    (2, 6, 64, "dapo", True, True, True, "token", 1.5),
    (2, 4, 33, "cispo", True, False, True, "token", None),
    (2, 4, 33, "sapo", True, True, False, "token", None),
    (2, 5, 45, "grpo", True, True, True, "sequence", None),
]


@pytest.mark.parametrize("case", GRPO_CASES, ids=lambda c: f"{c[3]}-{c[7]}-N{c[2]}")
def test_liger_grpo_loss(case):
    B, L, N, loss_type, with_old, with_ref, with_mask, level, delta = case
    mod = liger("grpo_loss")
    logits, old, ref, ids, adv, mask = grpo_inputs(B, L, N, with_old, with_ref, with_mask)
    T, beta = 0.9, (0.04 if with_ref else 0.0)
    eps_low, eps_high = 0.2, (5.0 if loss_type == "cispo" else 0.28)
    lg = logits.clone().requires_grad_(True)
    loss, kl_mean, clip = mod.GrpoLossFunction.apply(
        lg, old, ref, ids, adv, mask, T, beta, eps_low, eps_high, False, loss_type, None,
        True, level, 1.0, 1.05, None, delta)
    lr = leaf(logits)
    ref_loss, ref_kl, ref_clip = grpo_reference(
        lr, d(old), d(ref), ids, d(adv), mask, T, beta, eps_low, eps_high, loss_type, level,
        delta=delta)
    check(loss, ref_loss, torch.float32, 5.0, "loss")
    if beta:
        check(kl_mean, ref_kl, torch.float32, 5.0, "kl mean")
    check(clip, ref_clip, torch.float32, 1.0, "clip ratio")
    loss.backward()
    ref_loss.backward()
    check(lg.grad, lr.grad, torch.float32, 5.0, "grad logits")


@pytest.mark.parametrize("B,L,N,masked", [(2, 5, 40, False), (3, 2, 3000, True)])
def test_liger_fused_selective_log_softmax(B, L, N, masked):
    mod = liger("grpo_loss")
    logits, _, _, ids, _, mask = grpo_inputs(B, L, N, False, False, masked, seed=3)
    out = mod.fused_selective_log_softmax(logits, ids, 0.7, mask)
    ref = torch.log_softmax(d(logits)[:, :L] / 0.7, -1).gather(-1, ids[..., None])[..., 0]
    if masked:
        ref = ref * mask
    check(out, ref, torch.float32, 2.0, "log p")


# =====================================================================================
# fused_neighborhood_attention.py
# =====================================================================================


def na_reference(q, k, v, kernel_size, dilation, scale):
    S = q.shape[-2]
    i = torch.arange(S)[:, None]
    j = torch.arange(S)[None, :]
    half = kernel_size // 2
    allowed = ((j - i).abs() <= half * dilation) & ((j - i) % dilation == 0)
    s = (q @ k.transpose(-1, -2)) * scale
    s = s.masked_fill(~allowed, float("-inf"))
    return torch.softmax(s, -1) @ v


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("B,H,S,D,ks,dil", [
    (1, 2, 16, 16, 3, 1),
    (2, 1, 13, 8, 5, 2),
    (1, 1, 70, 32, 7, 1),
])
def test_liger_fused_neighborhood_attention(B, H, S, D, ks, dil, dtype):
    dtype = DTYPES[dtype]
    mod = liger("fused_neighborhood_attention")
    q, k, v = (randn(B, H, S, D, dtype=dtype, seed=s) for s in (1, 2, 3))
    qs, ks_, vs = (t.clone().requires_grad_(True) for t in (q, k, v))
    out = mod.LigerFusedNeighborhoodAttentionFunction.apply(qs, ks_, vs, ks, dil, None)
    qr, kr, vr = leaf(q), leaf(k), leaf(v)
    ref = na_reference(qr, kr, vr, ks, dil, 1.0 / math.sqrt(D))
    check(out, ref, dtype, 2.0, "out")
    go = randn(B, H, S, D, dtype=dtype, seed=4)
    out.backward(go)
    ref.backward(d(go))
    check(qs.grad, qr.grad, dtype, 4.0, "grad q")
    check(ks_.grad, kr.grad, dtype, 4.0, "grad k")
    check(vs.grad, vr.grad, dtype, 4.0, "grad v")


# =====================================================================================
# Unsloth: kernels/fp8.py (libraries/unsloth_more)
# =====================================================================================


def e4m3_value(codes):
    """What each OCP E4M3 (float8e4nv) code stands for, as float64 (no NaN codes here)."""
    c = codes.to(torch.int64)
    sign = torch.where(c & 0x80 != 0, -1.0, 1.0).double()
    exp = (c >> 3) & 0xF
    frac = (c & 0x7).double() / 8
    normal = (1 + frac) * torch.pow(2.0, (exp - 7).double())
    subnormal = frac * 2.0 ** -6
    return sign * torch.where(exp == 0, subnormal, normal)


@pytest.mark.parametrize("M,N,block", [(40, 70, 32)])
def test_unsloth_fp8_weight_dequant(M, N, block):
    import triton
    import triton.language as tl
    mod = load("unsloth_more", "fp8")
    g = torch.Generator().manual_seed(0)
    codes = torch.randint(0, 256, (M, N), generator=g, dtype=torch.int64)
    codes = torch.where((codes & 0x7F) == 0x7F, torch.zeros_like(codes), codes).to(torch.uint8)
    s = torch.rand(triton.cdiv(M, block), triton.cdiv(N, block), generator=g) + 0.5
    y = torch.empty(M, N, dtype=torch.bfloat16)
    grid = (triton.cdiv(M, block), triton.cdiv(N, block))
    mod.weight_dequant_kernel[grid](triton.reinterpret(codes, tl.float8e4nv), s, y, M, N,
                                    BLOCK_SIZE=block)
    ref = e4m3_value(codes) * d(s).repeat_interleave(block, 0)[:M].repeat_interleave(
        block, 1)[:, :N]
    check(y, ref, torch.bfloat16, 1.0, "dequantized")
