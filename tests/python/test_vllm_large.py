"""vLLM's larger Triton kernels, unmodified (tests/python/libraries/vllm/, each file
headed by its origin, commit and license), launched as vLLM launches them on torch CPU
tensors and checked against a reference written here with torch in float64,
independently of the kernel:

- fused_moe.py: fused_moe_kernel (and fused_moe_kernel_gptq_awq) through vLLM's
  invoke_fused_moe_kernel, with the routing (sorted_token_ids / expert_ids /
  num_tokens_post_padded) that vLLM's moe_align_block_size, a CUDA op, makes, written
  here in torch; the MoE layer is put together as vLLM's fused_experts_impl does it.
- triton_unified_attention.py: kernel_unified_attention_2d through vLLM's wrapper
  unified_attention, over a paged KV cache.
"""


import numpy as np
import pytest
import torch
import torch.nn.functional as F
from library_testing import DTYPES, FLOAT_DTYPES, check, load, randn


def vllm(name):
    return load("vllm", name)


def randint(low, high, shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(low, high, shape, generator=g, dtype=torch.int64).to(dtype)


def cdiv(a, b):
    return (a + b - 1) // b


# =====================================================================================
# Fused MoE (libraries/vllm/fused_moe.py)
# =====================================================================================

def tl_dtype(dtype):
    import triton.language as tl
    return {torch.float32: tl.float32, torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}[dtype]


def routing(num_tokens, num_experts, top_k, seed):
    """Per-token top-k experts (distinct) and their softmax weights, as vLLM's
    fused_topk gives them: float32 weights and int32 ids."""
    logits = randn(num_tokens, num_experts, seed=seed)
    weights, ids = torch.topk(torch.softmax(logits, dim=-1), top_k, dim=-1)
    return weights.to(torch.float32).contiguous(), ids.to(torch.int32).contiguous()


def moe_align_block_size(topk_ids, block_size, num_experts, expert_map=None):
    """vLLM's moe_align_block_size (its ops.moe_align_block_size is a CUDA op), in
    torch: the flattened (token, k) slots grouped by expert, each expert's group padded
    to a multiple of block_size with the value topk_ids.numel(); expert_ids the expert
    of each block of block_size slots (zeros past the end); num_tokens_post_padded the
    padded total. With expert_map (expert parallelism), expert_ids map to the local
    expert, -1 where the expert is not local."""
    numel = topk_ids.numel()
    max_num_tokens_padded = numel + num_experts * (block_size - 1)
    sorted_ids = torch.full((max_num_tokens_padded,), numel, dtype=torch.int32)
    expert_ids = torch.zeros((cdiv(max_num_tokens_padded, block_size),), dtype=torch.int32)
    flat = topk_ids.flatten().long()
    start = 0
    for e in range(num_experts):
        slots = (flat == e).nonzero().flatten()
        sorted_ids[start:start + len(slots)] = slots.to(torch.int32)
        blocks = cdiv(len(slots), block_size)
        expert_ids[start // block_size:start // block_size + blocks] = e
        start += blocks * block_size
    num_tokens_post_padded = torch.tensor([start], dtype=torch.int32)
    if expert_map is not None:
        expert_ids = expert_map[expert_ids.long()].to(torch.int32)
    return sorted_ids, expert_ids, num_tokens_post_padded


def moe_gemm_ref(x, w, topk_ids, topk_weights, mul_routed_weight, bias=None):
    """C[m, k] = (topk_weights[m, k] if mul_routed_weight) * (W[e] @ x[m] + bias[e]),
    e = topk_ids[m, k], in float64; x is (M, K) or (M * top_k, K) (one row per slot)."""
    M, top_k = topk_ids.shape
    x = x.double()
    if x.shape[0] == M:
        x = x.repeat_interleave(top_k, dim=0)
    ids = topk_ids.flatten().long()
    out = torch.einsum("snk,sk->sn", w.double()[ids], x)
    if bias is not None:
        out = out + bias.double()[ids]
    if mul_routed_weight:
        out = out * topk_weights.double().flatten()[:, None]
    return out.view(M, top_k, -1)


def invoke(mod, A, B, C, topk_weights, topk_ids, mul_routed_weight, top_k, config, dtype,
           num_experts=None, expert_map=None, A_scale=None, B_scale=None, B_zp=None,
           B_bias=None, use_int8_w8a8=False, use_int8_w8a16=False, use_int4_w4a16=False,
           per_channel_quant=False, block_shape=None):
    """One GEMM as vLLM's fused_experts_impl runs it: moe_align_block_size, then
    invoke_fused_moe_kernel."""
    sorted_token_ids, expert_ids, num_tokens_post_padded = moe_align_block_size(
        topk_ids, config["BLOCK_SIZE_M"], num_experts or B.size(0), expert_map)
    mod.invoke_fused_moe_kernel(
        A, B, C, A_scale, B_scale, B_zp, topk_weights, sorted_token_ids, expert_ids,
        num_tokens_post_padded, mul_routed_weight, top_k, config,
        compute_type=tl_dtype(dtype), use_fp8_w8a8=False, use_int8_w8a8=use_int8_w8a8,
        use_int8_w8a16=use_int8_w8a16, use_int4_w4a16=use_int4_w4a16,
        per_channel_quant=per_channel_quant, block_shape=block_shape, B_bias=B_bias)


# (tokens, experts, top_k, K, N, config): K and N not multiples of the blocks, a batch
# smaller than BLOCK_SIZE_M (invoke_fused_moe_kernel's small-batch EM) and larger.
GEMM_CASES = [
    (1, 4, 2, 64, 48, {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1}),
    (7, 8, 3, 72, 40, {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1}),
    (40, 6, 2, 48, 80, {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 4}),
]


@pytest.mark.parametrize("case", range(len(GEMM_CASES)))
@pytest.mark.parametrize("mul_routed_weight", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_vllm_fused_moe_gemm(case, mul_routed_weight, dtype):
    dtype = DTYPES[dtype]
    mod = vllm("fused_moe")
    M, E, top_k, K, N, config = GEMM_CASES[case]
    x = randn(M, K, dtype=dtype, seed=1)
    w = randn(E, N, K, dtype=dtype, seed=2, scale=K ** -0.5)
    topk_weights, topk_ids = routing(M, E, top_k, seed=3)
    C = torch.full((M, top_k, N), float("nan"), dtype=dtype)
    invoke(mod, x, w, C, topk_weights, topk_ids, mul_routed_weight, top_k, config, dtype)
    check(C, moe_gemm_ref(x, w, topk_ids, topk_weights, mul_routed_weight), dtype, 2)


def silu_and_mul(x):
    """vLLM's silu_and_mul (torch.ops._C, a CUDA op), in torch: silu(x[:, :d]) * x[:, d:],
    computed in float32 and rounded to x's dtype."""
    d = x.shape[-1] // 2
    xf = x.float()
    return (F.silu(xf[..., :d]) * xf[..., d:]).to(x.dtype)


def moe_layer_ref(x, w1, w2, topk_weights, topk_ids, apply_router_weight_on_input):
    """sum_k w_k * W2[e_k] @ silu_and_mul(W1[e_k] @ x) (w_k inside, before the
    activation, with apply_router_weight_on_input), in float64."""
    h = moe_gemm_ref(x, w1, topk_ids, topk_weights, apply_router_weight_on_input)
    d = h.shape[-1] // 2
    a = F.silu(h[..., :d]) * h[..., d:]
    M, top_k = topk_ids.shape
    out = moe_gemm_ref(a.reshape(M * top_k, d), w2, topk_ids, topk_weights,
                       not apply_router_weight_on_input)
    return out.sum(dim=1)


@pytest.mark.parametrize("tokens,experts,top_k", [(3, 4, 2), (33, 8, 2), (20, 8, 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_vllm_fused_moe_layer(tokens, experts, top_k, dtype):
    """The MoE layer as fused_experts_impl computes it: w1 GEMM over the top_k slots,
    silu_and_mul, w2 GEMM with the routing weights, sum over the slots; the config is
    vLLM's get_default_config. top_k 1 also takes apply_router_weight_on_input."""
    dtype = DTYPES[dtype]
    mod = vllm("fused_moe")
    hidden, inter = 56, 40
    x = randn(tokens, hidden, dtype=dtype, seed=1)
    w1 = randn(experts, 2 * inter, hidden, dtype=dtype, seed=2, scale=hidden ** -0.5)
    w2 = randn(experts, hidden, inter, dtype=dtype, seed=3, scale=inter ** -0.5)
    topk_weights, topk_ids = routing(tokens, experts, top_k, seed=4)
    config = mod.get_default_config(tokens, experts, inter, hidden, top_k, None)
    for on_input in ([False, True] if top_k == 1 else [False]):
        cache1 = torch.empty(tokens, top_k, 2 * inter, dtype=dtype)
        invoke(mod, x, w1, cache1, topk_weights, topk_ids, on_input, top_k, config, dtype)
        cache2 = silu_and_mul(cache1.view(-1, 2 * inter))
        cache3 = torch.empty(tokens, top_k, hidden, dtype=dtype)
        invoke(mod, cache2, w2, cache3, topk_weights, topk_ids, not on_input, 1, config, dtype)
        out = cache3.sum(dim=1)
        check(out, moe_layer_ref(x, w1, w2, topk_weights, topk_ids, on_input), dtype, 3,
              err_msg=f"apply_router_weight_on_input={on_input}")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_vllm_fused_moe_expert_map(dtype):
    """Expert parallelism: 8 global experts, 3 of them local; the blocks of the others
    get expert id -1 and the kernel writes zeros there (write_zeros_to_output)."""
    dtype = DTYPES[dtype]
    mod = vllm("fused_moe")
    M, E, top_k, K, N = 12, 8, 2, 40, 24
    local = [1, 4, 6]
    expert_map = torch.full((E,), -1, dtype=torch.int32)
    expert_map[local] = torch.arange(len(local), dtype=torch.int32)
    x = randn(M, K, dtype=dtype, seed=1)
    w = randn(len(local), N, K, dtype=dtype, seed=2, scale=K ** -0.5)
    topk_weights, topk_ids = routing(M, E, top_k, seed=3)
    config = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 2}
    C = torch.full((M, top_k, N), float("nan"), dtype=dtype)
    invoke(mod, x, w, C, topk_weights, topk_ids, True, top_k, config, dtype,
           num_experts=E, expert_map=expert_map)
    local_ids = expert_map[topk_ids.long()]
    ref = moe_gemm_ref(x, w, local_ids.clamp(min=0), topk_weights, True)
    ref[local_ids < 0] = 0.0
    check(C, ref, dtype, 2)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_vllm_fused_moe_bias(dtype):
    """HAS_BIAS: a per-expert bias added before the routing weight."""
    dtype = DTYPES[dtype]
    mod = vllm("fused_moe")
    M, E, top_k, K, N = 9, 4, 2, 48, 40
    x = randn(M, K, dtype=dtype, seed=1)
    w = randn(E, N, K, dtype=dtype, seed=2, scale=K ** -0.5)
    bias = randn(E, N, dtype=dtype, seed=5)
    topk_weights, topk_ids = routing(M, E, top_k, seed=3)
    config = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1}
    C = torch.empty(M, top_k, N, dtype=dtype)
    invoke(mod, x, w, C, topk_weights, topk_ids, True, top_k, config, dtype, B_bias=bias)
    check(C, moe_gemm_ref(x, w, topk_ids, topk_weights, True, bias), dtype, 2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_vllm_fused_moe_int8_w8a16(dtype):
    """use_int8_w8a16 with per-channel scales (block_shape None): fused_moe_kernel
    dequantizes int8 weights to the compute type and scales the accumulator."""
    dtype = DTYPES[dtype]
    mod = vllm("fused_moe")
    M, E, top_k, K, N = 10, 4, 2, 64, 48
    x = randn(M, K, dtype=dtype, seed=1)
    wq = randint(-127, 128, (E, N, K), torch.int8, seed=2)
    w_scale = (randn(E, N, seed=3).abs() * 0.01 / K ** 0.5 + 1e-3).to(dtype)
    topk_weights, topk_ids = routing(M, E, top_k, seed=4)
    config = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1}
    C = torch.empty(M, top_k, N, dtype=dtype)
    invoke(mod, x, wq, C, topk_weights, topk_ids, True, top_k, config, dtype,
           B_scale=w_scale, use_int8_w8a16=True)
    w = wq.double() * w_scale.double()[:, :, None]
    check(C, moe_gemm_ref(x, w, topk_ids, topk_weights, True), dtype, 2)


@pytest.mark.parametrize("block_shape", [None, [32, 32]])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_vllm_fused_moe_int8_w8a8(block_shape, dtype):
    """use_int8_w8a8: int8 activations and weights, an int8 dot; per-token and
    per-channel scales (per_channel_quant) or block-wise scales (block_shape)."""
    dtype = DTYPES[dtype]
    mod = vllm("fused_moe")
    M, E, top_k, K, N = 11, 4, 2, 96, 80
    xq = randint(-127, 128, (M, K), torch.int8, seed=1)
    wq = randint(-127, 128, (E, N, K), torch.int8, seed=2)
    topk_weights, topk_ids = routing(M, E, top_k, seed=4)
    config = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1}
    if block_shape is None:
        a_scale = (randn(M, 1, seed=5).abs() * 0.01 + 1e-3).float()
        b_scale = (randn(E, N, 1, seed=6).abs() * 0.01 / K ** 0.5 + 1e-4).float()
        x = xq.double() * a_scale.double()
        w = wq.double() * b_scale.double()
    else:
        gn, gk = block_shape
        a_scale = (randn(M, cdiv(K, gk), seed=5).abs() * 0.01 + 1e-3).float()
        b_scale = (randn(E, cdiv(N, gn), cdiv(K, gk), seed=6).abs() * 0.01 / K ** 0.5 + 1e-4).float()
        x = xq.double() * a_scale.double().repeat_interleave(gk, dim=1)[:, :K]
        w = wq.double() * b_scale.double().repeat_interleave(gn, dim=1)[:, :N].repeat_interleave(gk, dim=2)[:, :, :K]
    C = torch.empty(M, top_k, N, dtype=dtype)
    invoke(mod, xq, wq, C, topk_weights, topk_ids, True, top_k, config, dtype,
           A_scale=a_scale, B_scale=b_scale, use_int8_w8a8=True,
           per_channel_quant=block_shape is None, block_shape=block_shape)
    check(C, moe_gemm_ref(x, w, topk_ids, topk_weights, True), dtype, 2)


@pytest.mark.parametrize("bits", [8, 4])
@pytest.mark.parametrize("has_zp", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_vllm_fused_moe_wna16(bits, has_zp, dtype):
    """use_int8_w8a16 / use_int4_w4a16 with group scales (block_shape [0, group]):
    invoke_fused_moe_kernel takes fused_moe_kernel_gptq_awq (no CUDA here). Unsigned
    weights, zero point 128 / 8 or given (int4 packed two per byte: weights along K,
    zero points along N, low nibble first)."""
    dtype = DTYPES[dtype]
    mod = vllm("fused_moe")
    M, E, top_k, K, N, group = 6, 4, 2, 64, 48, 16
    x = randn(M, K, dtype=dtype, seed=1)
    top = 256 if bits == 8 else 16
    q = randint(0, top, (E, N, K), torch.int64, seed=2)
    scale = (randn(E, N, K // group, seed=3).abs() * 0.02 / K ** 0.5 + 1e-3).to(dtype)
    zp = randint(0, top, (E, N, K // group), torch.int64, seed=4) if has_zp else None
    if bits == 8:
        B = q.to(torch.uint8)
        B_zp = zp.to(torch.uint8) if has_zp else None
    else:
        B = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).to(torch.uint8)
        B_zp = (zp[:, 0::2, :] | (zp[:, 1::2, :] << 4)).to(torch.uint8) if has_zp else None
    zero = zp if has_zp else torch.full_like(q[:, :, ::group], top // 2)
    w = (q.double() - zero.double().repeat_interleave(group, dim=2)) * \
        scale.double().repeat_interleave(group, dim=2)
    topk_weights, topk_ids = routing(M, E, top_k, seed=5)
    config = {"BLOCK_SIZE_M": 16, "GROUP_SIZE_M": 1, "SPLIT_K": 1}
    C = torch.empty(M, top_k, N, dtype=dtype)
    invoke(mod, x, B, C, topk_weights, topk_ids, True, top_k, config, dtype,
           B_scale=scale, B_zp=B_zp, use_int8_w8a16=bits == 8, use_int4_w4a16=bits == 4,
           block_shape=[0, group])
    check(C, moe_gemm_ref(x, w, topk_ids, topk_weights, True), dtype, 2)


# =====================================================================================
# Unified attention (libraries/vllm/triton_unified_attention.py)
# =====================================================================================

# (query_lens, seq_lens) per request: decode only (one query each), prefill only (no
# context), and a mixed batch (chunked prefill over a context, and decodes).
BATCHES = {
    "decode": ([1, 1, 1, 1], [1, 17, 40, 16]),
    "prefill": ([20, 3, 33], [20, 3, 33]),
    "mixed": ([1, 7, 19, 1], [30, 7, 45, 2]),
}


def paged_kv(seq_lens, block_size, num_kv_heads, head_size, dtype, seed):
    """A KV cache [num_blocks, block_size, num_kv_heads, head_size] (vLLM's layout for
    this kernel), its blocks handed out in a shuffled order, and the block table; the
    slots past each sequence hold other values (finite), which the kernel must mask."""
    g = torch.Generator().manual_seed(seed)
    needed = [cdiv(s, block_size) for s in seq_lens]
    total = sum(needed) + 3
    order = torch.randperm(total, generator=g).to(torch.int32)
    block_table = torch.zeros(len(seq_lens), max(needed) + 2, dtype=torch.int32)
    used = 0
    for i, n in enumerate(needed):
        block_table[i, :n] = order[used:used + n]
        used += n
    k_cache = randn(total, block_size, num_kv_heads, head_size, dtype=dtype, seed=seed + 1)
    v_cache = randn(total, block_size, num_kv_heads, head_size, dtype=dtype, seed=seed + 2)
    return k_cache, v_cache, block_table


def attention_ref(q, k_cache, v_cache, block_table, query_lens, seq_lens, scale,
                  window_left=-1, softcap=0.0, alibi_slopes=None):
    """Causal attention of each request's queries (the last query_len positions of its
    sequence) over its keys gathered from the paged cache, in float64; query head h
    reads KV head h // (num_heads // num_kv_heads). window_left >= 0: a query at
    position p sees keys p - window_left .. p; softcap: softcap * tanh(s / softcap);
    alibi: slope_h * (key position - query position) added to the scores."""
    num_heads = q.shape[1]
    block_size = k_cache.shape[1]
    group = num_heads // k_cache.shape[2]
    out = torch.zeros(q.shape, dtype=torch.float64)
    start = 0
    for i, (ql, sl) in enumerate(zip(query_lens, seq_lens)):
        kpos = torch.arange(sl)
        blocks = block_table[i, kpos // block_size].long()
        k = k_cache[blocks, kpos % block_size].double().repeat_interleave(group, dim=1)
        v = v_cache[blocks, kpos % block_size].double().repeat_interleave(group, dim=1)
        qi = q[start:start + ql].double()
        s = torch.einsum("qhd,khd->hqk", qi, k) * scale
        if softcap > 0:
            s = softcap * torch.tanh(s / softcap)
        qpos = torch.arange(sl - ql, sl)
        if alibi_slopes is not None:
            s = s + alibi_slopes.double()[:, None, None] * (kpos[None, :] - qpos[:, None])[None]
        mask = kpos[None, :] <= qpos[:, None]
        if window_left >= 0:
            mask &= (qpos[:, None] - kpos[None, :]) <= window_left
        s = s.masked_fill(~mask[None], float("-inf"))
        out[start:start + ql] = torch.einsum("hqk,khd->qhd", torch.softmax(s, dim=-1), v)
        start += ql
    return out


def run_unified_attention(batch, num_heads, num_kv_heads, head_size, block_size, dtype,
                          window_left=-1, softcap=0.0, alibi=False, seed=0):
    mod = vllm("triton_unified_attention")
    query_lens, seq_lens = BATCHES[batch]
    q = randn(sum(query_lens), num_heads, head_size, dtype=dtype, seed=seed)
    k_cache, v_cache, block_table = paged_kv(seq_lens, block_size, num_kv_heads, head_size,
                                             dtype, seed + 10)
    out = torch.full(q.shape, float("nan"), dtype=dtype)
    cu_seqlens_q = torch.tensor([0] + list(np.cumsum(query_lens)), dtype=torch.int32)
    seqused_k = torch.tensor(seq_lens, dtype=torch.int32)
    scale = head_size ** -0.5
    alibi_slopes = (torch.tensor([2.0 ** (-(h + 1) / 2) for h in range(num_heads)],
                                 dtype=torch.float32) if alibi else None)
    k_descale = torch.ones(1, dtype=torch.float32)
    v_descale = torch.ones(1, dtype=torch.float32)
    mod.unified_attention(
        q=q, k=k_cache, v=v_cache, out=out, cu_seqlens_q=cu_seqlens_q,
        max_seqlen_q=max(query_lens), seqused_k=seqused_k, max_seqlen_k=max(seq_lens),
        softmax_scale=scale, causal=True, window_size=(window_left, -1),
        block_table=block_table, softcap=softcap, q_descale=None, k_descale=k_descale,
        v_descale=v_descale, alibi_slopes=alibi_slopes)
    ref = attention_ref(q, k_cache, v_cache, block_table, query_lens, seq_lens, scale,
                        window_left, softcap, alibi_slopes)
    return out, ref


@pytest.mark.parametrize("batch", list(BATCHES))
@pytest.mark.parametrize("heads", [(4, 4), (8, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_vllm_unified_attention(batch, heads, dtype):
    """Causal paged attention, MHA and GQA (4 query heads per KV head), head size 64."""
    dtype = DTYPES[dtype]
    out, ref = run_unified_attention(batch, heads[0], heads[1], 64, 16, dtype)
    check(out, ref, dtype, 2)


@pytest.mark.parametrize("variant", ["head_size_40", "block_8", "sliding_window", "softcap", "alibi"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_vllm_unified_attention_options(variant, dtype):
    """On the mixed batch, GQA 8/2: a head size that is not a power of two (padded to
    64), KV blocks of 8, a sliding window of 10 keys, a softcap of 1.5 (below the largest
    scores), ALiBi slopes."""
    dtype = DTYPES[dtype]
    kwargs = dict(batch="mixed", num_heads=8, num_kv_heads=2, head_size=64, block_size=16,
                  dtype=dtype, seed=7)
    if variant == "head_size_40":
        kwargs["head_size"] = 40
    elif variant == "block_8":
        kwargs["block_size"] = 8
    elif variant == "sliding_window":
        kwargs["window_left"] = 9
    elif variant == "softcap":
        kwargs["softcap"] = 1.5
    elif variant == "alibi":
        kwargs["alibi"] = True
    out, ref = run_unified_attention(**kwargs)
    check(out, ref, dtype, 2)
