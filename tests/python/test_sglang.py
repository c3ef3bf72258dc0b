"""SGLang's Triton kernels, unmodified (tests/python/libraries/sglang/, each file headed by
its origin, commit and the imports changed), launched through SGLang's own Python wrappers
on torch CPU tensors and checked against references written here with torch in float64
from the math, independently of the kernels (and of SGLang's own reference code):

- attention/triton_ops/merge_state.py: merge_state, the log-sum-exp merge of two partial
  attention results (an lse of +inf counts as an empty part);
- attention/triton_ops/prefill_attention.py: context_attention_fwd, causal and
  non-causal prefill attention over packed sequences, MHA and GQA;
- attention/triton_ops/decode_attention.py: decode_attention_fwd, split-KV decode
  attention over a token pool (page size 1) through the MHA kernel and the grouped
  GQA/MQA/MLA kernel (with its rope part, Lk = 288), then the stage-2 merge, with
  logit_cap, attention sinks, k_scale/v_scale and the xai temperature;
- quantization/int8_kernel.py: per_token_quant_int8 (with the row sums),
  per_token_group_quant_int8, and the block-quantized int8 GEMM w8a8_block_int8_matmul;
- elementwise.py: fused_dual_residual_rmsnorm (plain and autotuned), fused_rmsnorm,
  experts_combine_triton, gelu_and_mul_triton, silu_and_mul_triton and
  fused_gate_sigmoid_mul_add.

SGLang's LICENSE (Apache-2.0) is libraries/sglang/LICENSE, the text of sgl-project/sglang's
LICENSE at commit d0cef137db6ec8c17b43b30489c9175b1a1eeadd.
"""

import math

import pytest
import torch
from library_testing import DTYPES, check, load, randn


def sglang(name):
    return load("sglang", name)


def d(t):
    return t.detach().double()


# =====================================================================================
# merge_state (merge_state.py)
# =====================================================================================

@pytest.mark.parametrize("tokens,heads,head_size,dtype", [
    (5, 3, 20, "float32"), (7, 2, 64, "float16"), (3, 4, 100, "bfloat16"), (1, 1, 1, "float32"),
])
def test_sglang_merge_state(tokens, heads, head_size, dtype):
    mod = sglang("merge_state")
    dtype = DTYPES[dtype]
    po = randn(tokens, heads, head_size, dtype=dtype, seed=1)
    so = randn(tokens, heads, head_size, dtype=dtype, seed=2)
    pl = randn(tokens, heads, seed=3, scale=3.0)
    sl = randn(tokens, heads, seed=4, scale=3.0)
    pl[0, 0] = float("inf")  # an empty prefix: counts as -inf
    out, out_lse = mod.merge_state(po, pl, so, sl)
    p, s = d(pl), d(sl)
    p = torch.where(p == math.inf, torch.full_like(p, -math.inf), p)
    s = torch.where(s == math.inf, torch.full_like(s, -math.inf), s)
    m = torch.maximum(p, s)
    a, b = torch.exp(p - m), torch.exp(s - m)
    expected = (d(po) * a[..., None] + d(so) * b[..., None]) / (a + b)[..., None]
    check(out, expected, dtype, err_msg="output")
    check(out_lse, torch.log(a + b) + m, torch.float32, err_msg="lse")


# =====================================================================================
# context_attention_fwd (prefill_attention.py)
# =====================================================================================

def attention_reference(q, k, v, causal, scale):
    """softmax(q k^T * scale) v for one sequence, q/k/v [s, h, d] (k/v heads shared by
    groups of q heads), in float64."""
    q, k, v = d(q), d(k), d(v)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = torch.einsum("qhd,khd->hqk", q, k) * scale
    if causal:
        n = q.shape[0]
        mask = torch.ones(n, n, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(mask, -math.inf)
    return torch.einsum("hqk,khd->qhd", torch.softmax(scores, -1), v)


# (seq_lens, heads, kv_heads, head_dim, causal, dtype); the wrapper's blocks are 64 long.
PREFILL_CASES = [
    ([5, 70], 2, 2, 24, True, "float32"),
    ([1, 33, 64], 4, 2, 64, False, "float32"),
    ([100], 3, 1, 80, True, "float16"),
    ([17, 65], 4, 4, 32, True, "bfloat16"),
]


@pytest.mark.parametrize("seq_lens,heads,kv_heads,head_dim,causal,dtype", PREFILL_CASES)
def test_sglang_context_attention(seq_lens, heads, kv_heads, head_dim, causal, dtype):
    mod = sglang("prefill_attention")
    dtype = DTYPES[dtype]
    total = sum(seq_lens)
    q = randn(total, heads, head_dim, dtype=dtype, seed=1)
    k = randn(total, kv_heads, head_dim, dtype=dtype, seed=2)
    v = randn(total, kv_heads, head_dim, dtype=dtype, seed=3)
    o = torch.zeros_like(q)
    starts = torch.tensor([0] + seq_lens[:-1], dtype=torch.int32).cumsum(0).to(torch.int32)
    lens = torch.tensor(seq_lens, dtype=torch.int32)
    mod.context_attention_fwd(q, k, v, o, starts, lens, max(seq_lens), is_causal=causal)
    scale = 1.0 / math.sqrt(head_dim)
    expected = torch.cat([
        attention_reference(q[s:s + n], k[s:s + n], v[s:s + n], causal, scale)
        for s, n in zip(starts.tolist(), seq_lens)])
    check(o, expected, dtype, scale=1.0 if dtype == torch.float32 else 2.0)


# =====================================================================================
# decode_attention_fwd (decode_attention.py)
# =====================================================================================

def decode_reference(q, k_buffer, v_buffer, kv_indptr, kv_indices, sm_scale, logit_cap,
                     sinks, v_scale, xai_len):
    """One query token per sequence over its token slots kv_indices[indptr[b]:indptr[b+1]]
    of the pool, in float64: softmax over the (capped, tempered) scores and an optional
    per-head sink logit, times v, times v_scale."""
    q, kb, vb = d(q), d(k_buffer), d(v_buffer)
    batch, heads, lk = q.shape
    group = heads // kb.shape[1]
    out = torch.zeros(batch, heads, vb.shape[-1], dtype=torch.float64)
    for b in range(batch):
        slots = kv_indices[kv_indptr[b]:kv_indptr[b + 1]].long()
        k = kb[slots].repeat_interleave(group, dim=1)  # [n, h, lk]
        v = vb[slots].repeat_interleave(group, dim=1)
        s = torch.einsum("hd,nhd->hn", q[b], k) * sm_scale
        if logit_cap > 0:
            s = logit_cap * torch.tanh(s / logit_cap)
        n = len(slots)
        if xai_len > 0 and n - 1 > xai_len:
            s = s * (math.log2(n - 1) / math.log2(xai_len))
        if sinks is not None:
            s = torch.cat([s, d(sinks)[:, None]], dim=1)
        p = torch.softmax(s, -1)[:, :n]
        out[b] = torch.einsum("hn,nhd->hd", p, v) * v_scale
    return out


# (seq_lens, heads, kv_heads, lk, lv, splits, logit_cap, sinks, k_scale, v_scale, xai, dtype)
DECODE_CASES = [
    ([1, 40, 130], 4, 4, 64, 64, 4, 0.0, False, 1.0, 1.0, -1, "float32"),
    ([77, 3], 3, 3, 40, 24, 2, 30.0, True, 0.5, 2.0, -1, "float16"),
    ([50, 129], 8, 2, 64, 64, 3, 0.0, True, 1.0, 1.0, -1, "float32"),
    ([20, 129], 2, 2, 32, 32, 2, 0.0, False, 1.0, 1.0, 16, "float32"),
    ([50, 129], 8, 2, 64, 64, 3, 0.0, False, 1.0, 1.0, 16, "float32"),
    ([33, 65], 6, 1, 96, 80, 2, 20.0, False, 1.0, 1.0, -1, "bfloat16"),
    ([45, 9], 16, 1, 288, 256, 2, 0.0, False, 1.0, 1.0, -1, "float32"),
]


@pytest.mark.parametrize("seq_lens,heads,kv_heads,lk,lv,splits,logit_cap,sinks,k_scale,"
                         "v_scale,xai,dtype", DECODE_CASES)
def test_sglang_decode_attention(seq_lens, heads, kv_heads, lk, lv, splits, logit_cap, sinks,
                                 k_scale, v_scale, xai, dtype):
    mod = sglang("decode_attention")
    dtype = DTYPES[dtype]
    batch = len(seq_lens)
    pool = sum(seq_lens) + 7
    g = torch.Generator().manual_seed(5)
    slots = torch.randperm(pool, generator=g)[:sum(seq_lens)].to(torch.int32)
    kv_indptr = torch.tensor([0] + seq_lens, dtype=torch.int32).cumsum(0).to(torch.int32)
    q = randn(batch, heads, lk, dtype=dtype, seed=1)
    k_buffer = randn(pool, kv_heads, lk, dtype=dtype, seed=2)
    v_buffer = randn(pool, kv_heads, lv, dtype=dtype, seed=3)
    o = torch.zeros(batch, heads, lv, dtype=dtype)
    attn_logits = torch.empty(batch, heads, splits, lv, dtype=torch.float32)
    attn_lse = torch.empty(batch, heads, splits, dtype=torch.float32)
    # Fewer splits than the maximum for one sequence, as SGLang's dynamic splits pick.
    num_kv_splits = torch.tensor([max(1, splits - (b % 2)) for b in range(batch)],
                                 dtype=torch.int32)
    sink = randn(heads, seed=4) if sinks else None
    sm_scale = 1.0 / math.sqrt(lk)
    mod.decode_attention_fwd(q, k_buffer, v_buffer, o, kv_indptr, slots, attn_logits, attn_lse,
                             num_kv_splits, splits, sm_scale, k_scale, v_scale,
                             logit_cap=logit_cap, sinks=sink, xai_temperature_len=xai)
    expected = decode_reference(q, k_buffer, v_buffer, kv_indptr, slots, sm_scale * k_scale,
                                logit_cap, sink, v_scale, xai)
    check(o, expected, dtype, scale=1.0 if dtype == torch.float32 else 2.0 * v_scale)


# =====================================================================================
# int8 quantization (int8_kernel.py)
# =====================================================================================

@pytest.mark.parametrize("rows,cols,dtype,cal_sum", [
    (7, 100, "float32", True), (3, 257, "float16", False), (5, 64, "bfloat16", True),
])
def test_sglang_per_token_quant_int8(rows, cols, dtype, cal_sum):
    mod = sglang("int8_kernel")
    dtype = DTYPES[dtype]
    x = randn(2, rows, cols, dtype=dtype, seed=1, scale=2.0)
    x[0, 0] = 0.0  # an all-zero row: absmax floored at 1e-10
    result = mod.per_token_quant_int8(x, cal_sum=cal_sum)
    x_q, scales = result[0], result[1]
    x64 = d(x)
    absmax = x64.abs().amax(-1, keepdim=True).clamp_min(1e-10)
    check(scales, absmax / 127, torch.float32, err_msg="scales")
    exact = x64 * (127 / absmax)
    # libdevice.round rounds half away from zero; allow the float32 boundary cases.
    ref = torch.sign(exact) * torch.floor(exact.abs() + 0.5)
    frac = exact.abs() - torch.floor(exact.abs())
    ok = (x_q.long() == ref.long()) | ((frac - 0.5).abs() < 1e-4)
    assert x_q.dtype == torch.int8 and ok.all(), f"{int((~ok).sum())} quantized values differ"
    if cal_sum:
        check(result[2], x64.sum(-1), dtype, scale=4.0, err_msg="sums")


@pytest.mark.parametrize("rows,cols,group", [(3, 256, 64), (5, 96, 32), (2, 384, 128)])
def test_sglang_per_token_group_quant_int8(rows, cols, group):
    mod = sglang("int8_kernel")
    x = randn(rows, cols, seed=1, scale=3.0)
    x[1, :group] = 0.0  # an all-zero group: scale floored at eps / 127
    x_q, x_s = mod.per_token_group_quant_int8(x, group)
    xg = d(x).view(rows, cols // group, group)
    absmax = xg.abs().amax(-1).clamp_min(1e-10)
    check(x_s, absmax / 127, torch.float32, err_msg="scales")
    exact = (xg / (absmax / 127)[..., None]).clamp(-128, 127)
    ref = torch.trunc(exact)  # a float -> int8 cast truncates toward zero
    near = (exact - exact.round()).abs() < 1e-4
    ok = (x_q.view_as(xg).long() == ref.long()) | near
    assert x_q.dtype == torch.int8 and ok.all(), f"{int((~ok).sum())} quantized values differ"


@pytest.mark.parametrize("m,n,k,block,out_dtype", [
    (10, 200, 256, (128, 128), "float32"),
    (33, 96, 192, (64, 64), "float16"),
    (70, 50, 128, (32, 64), "bfloat16"),
])
def test_sglang_w8a8_block_int8_matmul(m, n, k, block, out_dtype):
    mod = sglang("int8_kernel")
    out_dtype = DTYPES[out_dtype]
    bn, bk = block
    g = torch.Generator().manual_seed(1)
    A = torch.randint(-128, 128, (m, k), generator=g, dtype=torch.int32).to(torch.int8)
    B = torch.randint(-128, 128, (n, k), generator=g, dtype=torch.int32).to(torch.int8)
    As = torch.rand(m, k // bk, generator=g) * 0.01 + 0.001
    Bs = torch.rand(math.ceil(n / bn), k // bk, generator=g) * 0.01 + 0.001
    C = mod.w8a8_block_int8_matmul(A, B, As, Bs, list(block), output_dtype=out_dtype)
    expected = torch.zeros(m, n, dtype=torch.float64)
    for kb in range(k // bk):
        part = d(A[:, kb * bk:(kb + 1) * bk]) @ d(B[:, kb * bk:(kb + 1) * bk]).T
        bscale = d(Bs[:, kb]).repeat_interleave(bn)[:n]
        expected += part * d(As[:, kb])[:, None] * bscale[None, :]
    assert C.dtype == out_dtype
    check(C, expected, out_dtype, scale=4.0 if out_dtype == torch.float32 else 1.0)


# =====================================================================================
# elementwise.py
# =====================================================================================

def rms64(x, w, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w


@pytest.mark.parametrize("rows,hidden,dtype,autotune", [
    (3, 100, "float32", False), (4, 256, "float16", False), (2, 1000, "bfloat16", False),
    (3, 77, "float32", True),
])
def test_sglang_fused_dual_residual_rmsnorm(rows, hidden, dtype, autotune):
    mod = sglang("elementwise")
    dtype = DTYPES[dtype]
    x = randn(rows, hidden, dtype=dtype, seed=1)
    r = randn(rows, hidden, dtype=dtype, seed=2)
    w1 = randn(hidden, dtype=dtype, seed=3)
    w2 = randn(hidden, dtype=dtype, seed=4)
    eps = 1e-6
    out, mid = mod.fused_dual_residual_rmsnorm(x, r, w1, w2, eps, autotune=autotune)
    mid64 = d(r) + rms64(d(x), d(w1), eps)
    scale = 1.0 if dtype == torch.float32 else 3.0
    check(mid, mid64, dtype, scale=scale, err_msg="mid")
    # The second norm reads mid as stored (rounded to dtype).
    check(out, rms64(d(mid), d(w2), eps), dtype, scale=scale, err_msg="out")


@pytest.mark.parametrize("rows,hidden,dtype,inplace", [
    (3, 100, "float32", False), (5, 64, "float16", True), (2, 300, "bfloat16", False),
])
def test_sglang_fused_rmsnorm(rows, hidden, dtype, inplace):
    mod = sglang("elementwise")
    dtype = DTYPES[dtype]
    x = randn(rows, hidden, dtype=dtype, seed=1)
    w = randn(hidden, dtype=dtype, seed=2)
    expected = rms64(d(x), d(w), 1e-5)
    out = mod.fused_rmsnorm(x, w, 1e-5, inplace=inplace)
    if inplace:
        assert out.data_ptr() == x.data_ptr()
    check(out, expected, dtype, scale=1.0 if dtype == torch.float32 else 2.0)


@pytest.mark.parametrize("rows,combine_k,hidden,dtype", [
    (3, 4, 100, "float32"), (2, None, 64, "float16"), (5, 2, 130, "bfloat16"),
])
def test_sglang_experts_combine(rows, combine_k, hidden, dtype):
    mod = sglang("elementwise")
    dtype = DTYPES[dtype]
    shape = (rows, hidden) if combine_k is None else (rows, combine_k, hidden)
    moe = randn(*shape, dtype=dtype, seed=1)
    mlp = randn(rows, hidden, dtype=dtype, seed=2)
    out = mod.experts_combine_triton(moe, mlp)
    moe_sum = d(moe) if combine_k is None else d(moe).sum(1)
    check(out, (moe_sum + d(mlp)) / math.sqrt(2.0), dtype,
          scale=1.0 if dtype == torch.float32 else 3.0)


@pytest.mark.parametrize("act", ["gelu", "silu"])
@pytest.mark.parametrize("rows,hidden,dtype", [
    (3, 100, "float32"), (4, 256, "float16"), (2, 33, "bfloat16"),
])
def test_sglang_act_and_mul(act, rows, hidden, dtype):
    mod = sglang("elementwise")
    dtype = DTYPES[dtype]
    x = randn(rows, 2 * hidden, dtype=dtype, seed=1, scale=2.0)
    fn = mod.gelu_and_mul_triton if act == "gelu" else mod.silu_and_mul_triton
    out, scales = fn(x)
    assert scales is None
    x1, x3 = d(x[:, :hidden]), d(x[:, hidden:])
    if act == "gelu":
        a = 0.5 * x1 * (1.0 + torch.erf(x1 / math.sqrt(2.0)))
    else:
        a = x1 * torch.sigmoid(x1)
    check(out, x3 * a, dtype, scale=1.0 if dtype == torch.float32 else 3.0)


@pytest.mark.parametrize("rows,hidden,dtype", [
    (3, 100, "float32"), (4, 64, "float16"), (2, 257, "bfloat16"),
])
def test_sglang_fused_gate_sigmoid_mul_add(rows, hidden, dtype):
    mod = sglang("elementwise")
    dtype = DTYPES[dtype]
    h = randn(rows, hidden, dtype=dtype, seed=1)
    w = randn(hidden, dtype=dtype, seed=2, scale=0.1)
    shared = randn(rows, hidden, dtype=dtype, seed=3)
    final = randn(rows, hidden, dtype=dtype, seed=4)
    expected = d(final) + torch.sigmoid(d(h) @ d(w))[:, None] * d(shared)
    mod.fused_gate_sigmoid_mul_add(h, w, shared, final)
    check(final, expected, dtype, scale=1.0 if dtype == torch.float32 else 2.0)
