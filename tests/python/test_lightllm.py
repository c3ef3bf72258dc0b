"""LightLLM's Triton kernels, unmodified (tests/python/libraries/lightllm/, each file headed
by its origin, commit and the imports changed), launched through LightLLM's own Python
wrappers on torch CPU tensors and checked against references written here with torch in
float64 from the math, independently of the kernels (and of LightLLM's own torch_* and
test_* functions in the same files):

- models/llama: rmsnorm_forward; rotary_emb_fwd (in place on q and k, full and partial
  rotary); silu_and_mul_fwd; context_attention_fwd (causal prefill over a request's token
  slots after a cached prompt prefix, MHA and GQA); gqa_token_decode_attention_flash_decoding
  (split-sequence decode, stages 1 and 2); token_att_fwd, token_softmax_fwd and
  token_att_fwd2 (the three-kernel token attention);
- models/gemma_2b: gelu_and_mul_fwd (tanh GELU);
- common/basemodel: destindex_copy_kv and destindex_copy_quantize_kv (scatter into the KV
  pool, plain and int8 with per-head scales).

The files import each other relatively, so the folder is imported as a package
(blockc_lib_lightllm). Wrappers that allocate with device="cuda" take a CPU allocator
through their own alloc_tensor_func argument.

LightLLM's LICENSE (Apache-2.0) is libraries/lightllm/LICENSE, the text of ModelTC/lightllm's
LICENSE at commit fc72ffab9a3455cfb571f22d45ab777cc29de0de.
"""

import math
import types

import pytest
import torch
from library_testing import DTYPES, check, package_module, randn


def lightllm(name):
    return package_module("lightllm", name)


def d(t):
    return t.detach().double()


def low(dtype, factor=2.0):
    return 1.0 if dtype == torch.float32 else factor


# =====================================================================================
# Norms and activations
# =====================================================================================

@pytest.mark.parametrize("shape,dtype", [
    ((3, 100), "float32"), ((2, 3, 256), "float16"), ((5, 1000), "bfloat16"),
])
def test_lightllm_rmsnorm(shape, dtype):
    mod = lightllm("rmsnorm")
    dtype = DTYPES[dtype]
    x = randn(*shape, dtype=dtype, seed=1)
    w = randn(shape[-1], dtype=dtype, seed=2)
    y = mod.rmsnorm_forward(x, w, 1e-6)
    x64 = d(x)
    expected = x64 / torch.sqrt((x64 * x64).mean(-1, keepdim=True) + 1e-6) * d(w)
    check(y, expected, dtype, scale=low(dtype))


@pytest.mark.parametrize("act", ["silu", "gelu"])
@pytest.mark.parametrize("rows,hidden,dtype", [(3, 100, "float32"), (130, 64, "bfloat16")])
def test_lightllm_act_and_mul(act, rows, hidden, dtype):
    mod = lightllm("silu_and_mul" if act == "silu" else "gelu_and_mul")
    dtype = DTYPES[dtype]
    x = randn(rows, 2 * hidden, dtype=dtype, seed=1, scale=2.0)
    out = torch.empty(rows, hidden, dtype=dtype)
    (mod.silu_and_mul_fwd if act == "silu" else mod.gelu_and_mul_fwd)(x, out)
    gate, up = d(x[:, :hidden]), d(x[:, hidden:])
    if act == "silu":
        a = gate * torch.sigmoid(gate)
    else:
        a = 0.5 * gate * (1 + torch.tanh(math.sqrt(2 / math.pi) * (gate + 0.044715 * gate ** 3)))
    check(out, up * a, dtype, scale=1.0 if dtype == torch.float32 else 3.0)


# =====================================================================================
# Rotary embedding (in place)
# =====================================================================================

@pytest.mark.parametrize("tokens,heads_q,heads_k,dim,factor,dtype", [
    (5, 4, 4, 64, 1.0, "float32"), (19, 6, 2, 128, 0.5, "float16"),
    (33, 3, 1, 32, 1.0, "bfloat16"),
])
def test_lightllm_rotary_emb(tokens, heads_q, heads_k, dim, factor, dtype):
    mod = lightllm("rotary_emb")
    dtype = DTYPES[dtype]
    rot = int(dim * factor)
    q = randn(tokens, heads_q, dim, dtype=dtype, seed=1)
    k = randn(tokens, heads_k, dim, dtype=dtype, seed=2)
    angle = torch.arange(tokens, dtype=torch.float64)[:, None] * torch.linspace(0.01, 1, rot // 2)
    cos, sin = angle.cos().to(dtype), angle.sin().to(dtype)

    def rotate(x):
        x = d(x).clone()
        x0, x1 = x[..., :rot // 2].clone(), x[..., rot // 2:rot].clone()
        c, s = d(cos)[:, None, :], d(sin)[:, None, :]
        x[..., :rot // 2] = x0 * c - x1 * s
        x[..., rot // 2:rot] = x0 * s + x1 * c
        return x

    expected_q, expected_k = rotate(q), rotate(k)
    mod.rotary_emb_fwd(q, k, cos, sin, partial_rotary_factor=factor)
    check(q, expected_q, dtype, scale=low(dtype), err_msg="q")
    check(k, expected_k, dtype, scale=low(dtype), err_msg="k")


# =====================================================================================
# KV-pool scatter
# =====================================================================================

@pytest.mark.parametrize("tokens,heads,dim,dtype", [
    (5, 3, 64, "float32"), (9, 8, 16, "float16"), (1, 1, 128, "bfloat16"),
])
def test_lightllm_destindex_copy_kv(tokens, heads, dim, dtype):
    mod = lightllm("destindex_copy_kv")
    dtype = DTYPES[dtype]
    k = randn(tokens, heads, dim, dtype=dtype, seed=1)
    pool = tokens * 2 + 3
    dest = torch.randperm(pool, generator=torch.Generator().manual_seed(2))[:tokens]
    out = torch.zeros(pool, heads, dim, dtype=dtype)
    mod.destindex_copy_kv(k, dest.to(torch.int32), out)
    expected = torch.zeros(pool, heads, dim, dtype=torch.float64)
    expected[dest.long()] = d(k)
    check(out, expected, dtype, scale=0.0)


@pytest.mark.parametrize("tokens,heads,dim,dtype", [(5, 3, 64, "float32"), (7, 2, 32, "float16")])
def test_lightllm_destindex_copy_quantize_kv(tokens, heads, dim, dtype):
    mod = lightllm("destindex_copy_kv")
    dtype = DTYPES[dtype]
    k = randn(tokens, heads, dim, dtype=dtype, seed=1, scale=2.0)
    pool = tokens + 4
    dest = torch.randperm(pool, generator=torch.Generator().manual_seed(2))[:tokens]
    out = torch.zeros(pool, heads, dim, dtype=torch.int8)
    out_scale = torch.zeros(pool, heads, 1, dtype=dtype)
    mod.destindex_copy_quantize_kv(k, dest.to(torch.int32), out, out_scale)
    scale = d(k).abs().amax(-1, keepdim=True) / 127.0
    check(out_scale[dest.long()], scale, dtype, err_msg="scales")
    # The kernel divides by the scale as stored (rounded to dtype), then truncates.
    exact = d(k) / d(out_scale[dest.long()])
    ref = torch.trunc(exact)
    near = (exact - exact.round()).abs() < 1e-3
    ok = (out[dest.long()].long() == ref.long()) | near
    assert ok.all(), f"{int((~ok).sum())} quantized values differ"


# =====================================================================================
# Attention
# =====================================================================================

def causal_attention(q, k, v, offset, log2=False):
    """softmax(q k^T / sqrt(d)) v in float64 for one request: q [m, hq, d] are the last m of
    the n positions of k/v [n, hk, d]; query i sees keys 0 .. offset + i."""
    q, k, v = d(q), d(k), d(v)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    s = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(q.shape[-1])
    m, n = q.shape[0], k.shape[0]
    mask = torch.arange(n)[None, :] > (offset + torch.arange(m))[:, None]
    s = s.masked_fill(mask, -math.inf)
    return torch.einsum("hqk,khd->qhd", torch.softmax(s, -1), v)


def request_pool(seq_lens, kv_heads, dim, dtype, seed):
    """A KV pool with each request's tokens in shuffled slots, the request table
    req_to_token [num_req + 1, max_len] (requests use rows 1..), and b_req_idx."""
    total = sum(seq_lens)
    pool = total + 5
    slots = torch.randperm(pool, generator=torch.Generator().manual_seed(seed))
    req_to_token = torch.zeros(len(seq_lens) + 1, max(seq_lens) + 3, dtype=torch.int32)
    used = 0
    for b, n in enumerate(seq_lens):
        req_to_token[b + 1, :n] = slots[used:used + n].to(torch.int32)
        used += n
    k = randn(pool, kv_heads, dim, dtype=dtype, seed=seed + 1)
    v = randn(pool, kv_heads, dim, dtype=dtype, seed=seed + 2)
    b_req_idx = torch.arange(1, len(seq_lens) + 1, dtype=torch.int32)
    return k, v, req_to_token, b_req_idx


# (seq_lens, prompt_cache_lens, heads, kv_heads, dim, dtype); BLOCK_M is 128.
CONTEXT_CASES = [
    ([5, 40], [0, 0], 2, 2, 32, "float32"),
    ([150, 20], [100, 7], 4, 2, 64, "float32"),
    ([70, 133], [0, 3], 4, 1, 16, "float16"),
    ([9, 64], [4, 0], 2, 2, 128, "bfloat16"),
]


@pytest.mark.parametrize("seq_lens,cache_lens,heads,kv_heads,dim,dtype", CONTEXT_CASES)
def test_lightllm_context_attention(seq_lens, cache_lens, heads, kv_heads, dim, dtype):
    mod = lightllm("context_flashattention_nopad")
    dtype = DTYPES[dtype]
    k, v, req_to_token, b_req_idx = request_pool(seq_lens, kv_heads, dim, dtype, seed=3)
    new = [n - c for n, c in zip(seq_lens, cache_lens)]
    q = randn(sum(new), heads, dim, dtype=dtype, seed=1)
    o = torch.zeros_like(q)
    b_start_loc = torch.tensor([0] + new[:-1]).cumsum(0).to(torch.int32)
    mod.context_attention_fwd(q, k, v, o, b_req_idx, b_start_loc,
                              torch.tensor(seq_lens, dtype=torch.int32),
                              torch.tensor(cache_lens, dtype=torch.int32), max(new),
                              req_to_token)
    expected = []
    for b, (n, c) in enumerate(zip(seq_lens, cache_lens)):
        slots = req_to_token[b + 1, :n].long()
        s = int(b_start_loc[b])
        expected.append(causal_attention(q[s:s + n - c], k[slots], v[slots], c))
    check(o, torch.cat(expected), dtype, scale=low(dtype))


class _InferState:
    def __init__(self, seq_lens, req_to_token, b_req_idx):
        self.batch_size = len(seq_lens)
        self.max_len_in_batch = max(seq_lens)
        self.req_manager = types.SimpleNamespace(req_to_token_indexs=req_to_token)
        self.b_req_idx = b_req_idx
        self.b_seq_len = torch.tensor(seq_lens, dtype=torch.int32)


def cpu_alloc(shape, dtype, device=None):
    return torch.empty(shape, dtype=dtype)


def decode_expected(q, k, v, req_to_token, seq_lens):
    rows = []
    for b, n in enumerate(seq_lens):
        slots = req_to_token[b + 1, :n].long()
        rows.append(causal_attention(q[b:b + 1], k[slots], v[slots], n - 1))
    return torch.cat(rows)


@pytest.mark.parametrize("seq_lens,heads,kv_heads,dim,dtype", [
    ([1, 130, 300], 8, 2, 64, "float32"),
    ([50, 7], 4, 4, 128, "float16"),
    ([200], 16, 1, 32, "bfloat16"),
])
def test_lightllm_gqa_flash_decoding(seq_lens, heads, kv_heads, dim, dtype):
    mod = lightllm("gqa_flash_decoding")
    dtype = DTYPES[dtype]
    k, v, req_to_token, b_req_idx = request_pool(seq_lens, kv_heads, dim, dtype, seed=4)
    q = randn(len(seq_lens), heads, dim, dtype=dtype, seed=1)
    state = _InferState(seq_lens, req_to_token, b_req_idx)
    out = mod.gqa_token_decode_attention_flash_decoding(q, state, heads, dim, k, v,
                                                        alloc_tensor_func=cpu_alloc)
    check(out, decode_expected(q, k, v, req_to_token, seq_lens), dtype, scale=low(dtype))


@pytest.mark.parametrize("seq_lens,heads,kv_heads,dim,dtype", [
    ([1, 40, 150], 4, 4, 64, "float32"),
    ([33, 9], 6, 2, 16, "float16"),
    ([129], 2, 1, 128, "bfloat16"),
])
def test_lightllm_token_attention(seq_lens, heads, kv_heads, dim, dtype):
    att1 = lightllm("token_attention_nopad_att1")
    softmax = lightllm("token_attention_nopad_softmax")
    reduce_v = lightllm("token_attention_nopad_reduceV")
    dtype = DTYPES[dtype]
    k, v, req_to_token, b_req_idx = request_pool(seq_lens, kv_heads, dim, dtype, seed=5)
    batch, total = len(seq_lens), sum(seq_lens)
    q = randn(batch, heads, dim, dtype=dtype, seed=1)
    b_start_loc = torch.tensor([0] + seq_lens[:-1]).cumsum(0).to(torch.int32)
    b_seq_len = torch.tensor(seq_lens, dtype=torch.int32)
    logits = torch.zeros(heads, total, dtype=torch.float32)
    att1.token_att_fwd(q, k, logits, req_to_token, b_req_idx, b_start_loc, b_seq_len,
                       max(seq_lens))
    prob = torch.zeros(heads, total, dtype=dtype)
    softmax.token_softmax_fwd(logits, b_start_loc, b_seq_len, prob, max(seq_lens))
    out = torch.zeros(batch, heads, dim, dtype=dtype)
    reduce_v.token_att_fwd2(prob, v, out, req_to_token, b_req_idx, b_start_loc, b_seq_len)
    # The scores (q k^T / sqrt(d)) per head, laid out over the batch's tokens.
    group = heads // kv_heads
    expected_logits = torch.zeros(heads, total, dtype=torch.float64)
    for b, n in enumerate(seq_lens):
        slots = req_to_token[b + 1, :n].long()
        kk = d(k[slots]).repeat_interleave(group, dim=1)
        s = int(b_start_loc[b])
        expected_logits[:, s:s + n] = torch.einsum("hd,nhd->hn", d(q[b]), kk) / math.sqrt(dim)
    check(logits, expected_logits, dtype, scale=low(dtype), err_msg="logits")
    check(out, decode_expected(q, k, v, req_to_token, seq_lens), dtype, scale=low(dtype, 3.0),
          err_msg="out")
