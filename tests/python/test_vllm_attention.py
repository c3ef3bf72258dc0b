"""vLLM's attention-side Triton kernels, unmodified (tests/python/libraries/vllm/:
triton_decode_attention.py, triton_merge_attn_states.py, triton_reshape_and_cache_flash.py,
each headed by its origin, commit and the imports changed), launched through vLLM's own
Python wrappers on torch CPU tensors and checked against a reference written here with
torch in float64, independently of the kernels:

- decode_attention_fwd (split-KV paged decode attention, both the MHA kernel
  _fwd_kernel_stage1 and the grouped GQA/MQA/MLA kernel _fwd_grouped_kernel_stage1, then
  _fwd_kernel_stage2): softmax(q k^T * sm_scale) v over each sequence's pages;
- merge_attn_states: the log-sum-exp merge of two partial attention results;
- triton_reshape_and_cache_flash (and its _diffkv variant): a copy of each token's key
  and value into its slot of the paged cache.

vLLM's LICENSE (Apache-2.0) is libraries/vllm/LICENSE: the text stored for
vllm-project/vllm's LICENSE (commit 11f2ceb24ca3146b707a5f0c94ebaf17e385b836), less a
word "LICENSE" before its first line and a last line "Jun Automotive Group" that the
stored copy carries and the Apache-2.0 text does not.
"""

import math

import pytest
import torch
from library_testing import DTYPES, check, load, randn


def vllm(name):
    return load("vllm", name)


# =====================================================================================
# decode_attention_fwd (triton_decode_attention.py)
# =====================================================================================

def paged_kv(seq_lens, page_size, num_kv_heads, lk, lv, dtype, seed, mla=False):
    """A paged KV cache [num_pages, page_size, num_kv_heads, L] with spare pages, and
    each sequence's page table (its pages in a shuffled order) as req_to_token
    [batch, max_pages] (int32). With mla, v_buffer is the first lv channels of
    k_buffer, as vLLM's MLA backend passes it."""
    pages_per_seq = [math.ceil(n / page_size) for n in seq_lens]
    max_pages = max(pages_per_seq)
    num_pages = sum(pages_per_seq) + 3
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(num_pages, generator=g)
    req_to_token = torch.zeros(len(seq_lens), max_pages, dtype=torch.int32)
    used = 0
    for b, n in enumerate(pages_per_seq):
        req_to_token[b, :n] = order[used:used + n].to(torch.int32)
        used += n
    k_buffer = randn(num_pages, page_size, num_kv_heads, lk, dtype=dtype, seed=seed + 1)
    if mla:
        v_buffer = k_buffer[..., :lv]
    else:
        v_buffer = randn(num_pages, page_size, num_kv_heads, lv, dtype=dtype, seed=seed + 2)
    return k_buffer, v_buffer, req_to_token


def decode_reference(q, k_buffer, v_buffer, req_to_token, seq_lens, page_size, sm_scale,
                     logit_cap):
    """softmax(q k^T * sm_scale) v in float64 for one query token per sequence: query
    head h reads KV head h // (num_heads // num_kv_heads); token i of sequence b is
    slot i % page_size of page req_to_token[b, i // page_size]."""
    batch, num_heads, _ = q.shape
    num_kv_heads, lv = v_buffer.shape[-2], v_buffer.shape[-1]
    group = num_heads // num_kv_heads
    k_tokens = k_buffer.double().reshape(-1, num_kv_heads, k_buffer.shape[-1])
    v_tokens = v_buffer.double().reshape(-1, num_kv_heads, lv)
    out = torch.empty(batch, num_heads, lv, dtype=torch.float64)
    for b, n in enumerate(seq_lens):
        pos = torch.arange(n)
        slots = req_to_token[b, pos // page_size].long() * page_size + pos % page_size
        k = k_tokens[slots].repeat_interleave(group, dim=1)  # [n, num_heads, lk]
        v = v_tokens[slots].repeat_interleave(group, dim=1)
        s = torch.einsum("hd,nhd->hn", q[b].double(), k) * sm_scale
        if logit_cap > 0:
            s = logit_cap * torch.tanh(s / logit_cap)
        out[b] = torch.einsum("hn,nhd->hd", torch.softmax(s, dim=-1), v)
    return out


def run_decode(seq_lens, num_heads, num_kv_heads, lk, lv, page_size, num_kv_splits, dtype,
               logit_cap=0.0, q_scale=1.0, mla=False, seed=0):
    mod = vllm("triton_decode_attention")
    dtype = DTYPES[dtype]
    k_buffer, v_buffer, req_to_token = paged_kv(seq_lens, page_size, num_kv_heads, lk, lv,
                                                dtype, seed, mla)
    q = randn(len(seq_lens), num_heads, lk, dtype=dtype, seed=seed + 3, scale=q_scale)
    b_seq_len = torch.tensor(seq_lens, dtype=torch.int32)
    # Scratch the kernels must fill before they read: NaN, so a stray read shows.
    attn_logits = torch.full((len(seq_lens), num_heads, num_kv_splits, lv + 1), float("nan"),
                             dtype=torch.float32)
    o = torch.full((len(seq_lens), num_heads, lv), float("nan"), dtype=dtype)
    sm_scale = 1.0 / math.sqrt(lk)
    mod.decode_attention_fwd(q, k_buffer, v_buffer, o, req_to_token, b_seq_len, attn_logits,
                             num_kv_splits, sm_scale, page_size, logit_cap)
    expected = decode_reference(q, k_buffer, v_buffer, req_to_token, seq_lens, page_size,
                                sm_scale, logit_cap)
    check(o, expected, dtype)


# MHA: decode_attention_fwd picks _fwd_kernel_stage1 (one program per query head).
# (seq_lens, num_heads, lk, lv, page_size, num_kv_splits, dtype, logit_cap)
MHA_CASES = [
    # 37 and 64 tokens over pages of 16; 3 tokens leave the 4th split empty.
    ([37, 3, 64], 4, 64, 64, 16, 4, "float32", 0.0),
    # page size 1 (vLLM's default), a 200-token sequence: several BLOCK_N=64 blocks per split.
    ([200, 7], 2, 64, 64, 1, 2, "float32", 0.0),
    # head size 80: BLOCK_DMODEL 128 with masked channels; pages of 5.
    ([23, 50], 2, 80, 80, 5, 3, "float16", 0.0),
    ([41, 17], 3, 64, 64, 16, 4, "bfloat16", 0.0),
    # logit soft-capping (Gemma 2 style), with logits large enough for tanh to bite.
    ([30, 45], 2, 64, 64, 8, 2, "float32", 2.0),
]


@pytest.mark.parametrize("seq_lens,num_heads,lk,lv,page_size,num_kv_splits,dtype,logit_cap",
                         MHA_CASES)
def test_vllm_decode_attention_mha(seq_lens, num_heads, lk, lv, page_size, num_kv_splits,
                                   dtype, logit_cap):
    run_decode(seq_lens, num_heads, num_heads, lk, lv, page_size, num_kv_splits, dtype,
               logit_cap=logit_cap, q_scale=4.0 if logit_cap else 1.0)


# GQA/MQA/MLA: decode_attention_fwd picks _fwd_grouped_kernel_stage1 (BLOCK_H=16 query
# heads of one KV head per program, tl.dot).
# (seq_lens, num_heads, num_kv_heads, lk, lv, page_size, num_kv_splits, dtype, mla, logit_cap)
GQA_CASES = [
    # 4 query heads per KV head; 100 tokens in 2 splits: two BLOCK_N=32 blocks per split.
    ([100, 37], 8, 2, 64, 64, 16, 2, "float32", False, 0.0),
    # 3 query heads per KV head: BLOCK_H=16 rows, 13 masked; pages of 7.
    ([19, 33], 6, 2, 96, 96, 7, 4, "float16", False, 0.0),
    # MQA with 32 query heads: kv_group_num > BLOCK_H, two programs per KV head.
    ([45], 32, 1, 64, 64, 8, 2, "bfloat16", False, 0.0),
    # 2 query heads per KV head, logit soft-capping.
    ([50, 11], 8, 4, 64, 64, 16, 2, "float32", False, 2.0),
    # MLA (DeepSeek): Lk=576 splits into BLOCK_DMODEL=512 + BLOCK_DPE=64, Lv=512,
    # v_buffer a view of k_buffer's first 512 channels.
    ([21, 9], 16, 1, 576, 512, 4, 2, "float16", True, 0.0),
    # MLA with Lk=288: BLOCK_DMODEL=256 + BLOCK_DPE=32, Lv=256.
    ([40, 5], 4, 1, 288, 256, 16, 3, "bfloat16", True, 0.0),
]


@pytest.mark.parametrize(
    "seq_lens,num_heads,num_kv_heads,lk,lv,page_size,num_kv_splits,dtype,mla,logit_cap",
    GQA_CASES)
def test_vllm_decode_attention_grouped(seq_lens, num_heads, num_kv_heads, lk, lv, page_size,
                                       num_kv_splits, dtype, mla, logit_cap):
    run_decode(seq_lens, num_heads, num_kv_heads, lk, lv, page_size, num_kv_splits, dtype,
               logit_cap=logit_cap, q_scale=4.0 if logit_cap else 1.0, mla=mla)


# =====================================================================================
# merge_attn_states (triton_merge_attn_states.py)
# =====================================================================================

def merge_reference(prefix_output, prefix_lse, suffix_output, suffix_lse):
    """The log-sum-exp merge in float64 (section 2.2 of arXiv 2501.01005): with lse
    [heads, tokens] and outputs [tokens, heads, head_size], out = (exp(p_lse) p_out +
    exp(s_lse) s_out) / (exp(p_lse) + exp(s_lse)) and out_lse = log(exp(p_lse) +
    exp(s_lse)). An lse of +inf (FA2's empty sequence) counts as -inf (no weight)."""
    p_lse, s_lse = prefix_lse.double().clone(), suffix_lse.double().clone()
    p_lse[p_lse == math.inf] = -math.inf
    s_lse[s_lse == math.inf] = -math.inf
    out_lse = torch.logaddexp(p_lse, s_lse)
    p_w = torch.exp(p_lse - out_lse).t()[:, :, None]  # [tokens, heads, 1]
    s_w = torch.exp(s_lse - out_lse).t()[:, :, None]
    out = p_w * prefix_output.double() + s_w * suffix_output.double()
    return out, out_lse


# (num_tokens, num_heads, head_size, dtype, with_output_lse, infinities)
MERGE_CASES = [
    (5, 3, 64, "float32", True, False),
    (7, 2, 80, "float16", False, False),
    (4, 4, 128, "bfloat16", True, False),
    # Some prefix or suffix lse +inf (FA2's empty prefix/suffix) or -inf (FA3's).
    (6, 3, 48, "float32", True, True),
]


@pytest.mark.parametrize("num_tokens,num_heads,head_size,dtype,with_output_lse,infinities",
                         MERGE_CASES)
def test_vllm_merge_attn_states(num_tokens, num_heads, head_size, dtype, with_output_lse,
                                infinities):
    mod = vllm("triton_merge_attn_states")
    dtype = DTYPES[dtype]
    prefix_output = randn(num_tokens, num_heads, head_size, dtype=dtype, seed=1)
    suffix_output = randn(num_tokens, num_heads, head_size, dtype=dtype, seed=2)
    prefix_lse = randn(num_heads, num_tokens, seed=3, scale=3.0)
    suffix_lse = randn(num_heads, num_tokens, seed=4, scale=3.0)
    if infinities:
        prefix_lse[0, 1] = math.inf
        prefix_lse[1, 2] = -math.inf
        suffix_lse[2, 0] = math.inf
        suffix_lse[0, 3] = -math.inf
    output = torch.full_like(prefix_output, float("nan"))
    output_lse = torch.full_like(prefix_lse, float("nan")) if with_output_lse else None
    mod.merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                          output_lse)
    expected, expected_lse = merge_reference(prefix_output, prefix_lse, suffix_output,
                                             suffix_lse)
    check(output, expected, dtype)
    if with_output_lse:
        check(output_lse, expected_lse)


# =====================================================================================
# triton_reshape_and_cache_flash (triton_reshape_and_cache_flash.py)
# =====================================================================================

@pytest.fixture
def cuda_capability(monkeypatch):
    """vLLM's wrapper sizes its tile by the GPU's compute capability
    (torch.cuda.get_device_capability(key.device)), which a CPU torch cannot answer:
    set the major version it sees (9: Hopper, TILE_SIZE up to 2048; 8: Ampere, up to
    512)."""
    def set_major(major):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (major, 0))
    return set_major


def slot_mapping(num_tokens, num_slots, seed, padding):
    """Distinct random cache slots for the tokens, with -1 (a padding token, left out)
    at the positions in `padding`."""
    g = torch.Generator().manual_seed(seed)
    slots = torch.randperm(num_slots, generator=g)[:num_tokens].to(torch.int64)
    for i in padding:
        slots[i] = -1
    return slots


def cache_reference(cache, slots, values):
    """cache with values[t] written to slot slots[t] (slot = block * block_size + offset)
    for each t whose slot is not negative."""
    out = cache.clone()
    flat = out.view(-1, *out.shape[2:])
    for t, s in enumerate(slots.tolist()):
        if s >= 0:
            flat[s] = values[t]
    return out


# (num_tokens, num_heads, head_size, block_size, num_blocks, dtype, capability, strided)
RESHAPE_CASES = [
    (10, 4, 64, 16, 4, "float32", 9, False),
    # n = 8 * 80 = 640 > 512: two tiles on an Ampere-class device, the second part-masked;
    # key and value as views of one [tokens, 2, heads, head_size] tensor (row stride
    # 2 * heads * head_size); blocks of 5.
    (9, 8, 80, 5, 3, "float16", 8, True),
    (12, 2, 128, 16, 2, "bfloat16", 9, False),
]


@pytest.mark.parametrize("num_tokens,num_heads,head_size,block_size,num_blocks,dtype,capability,strided",
                         RESHAPE_CASES)
def test_vllm_reshape_and_cache_flash(num_tokens, num_heads, head_size, block_size, num_blocks,
                                      dtype, capability, strided, cuda_capability):
    mod = vllm("triton_reshape_and_cache_flash")
    cuda_capability(capability)
    dtype = DTYPES[dtype]
    if strided:
        kv = randn(num_tokens, 2, num_heads, head_size, dtype=dtype, seed=1)
        key, value = kv[:, 0], kv[:, 1]
    else:
        key = randn(num_tokens, num_heads, head_size, dtype=dtype, seed=1)
        value = randn(num_tokens, num_heads, head_size, dtype=dtype, seed=2)
    shape = (num_blocks, block_size, num_heads, head_size)
    key_cache = randn(*shape, dtype=dtype, seed=3)
    value_cache = randn(*shape, dtype=dtype, seed=4)
    slots = slot_mapping(num_tokens, num_blocks * block_size, seed=5, padding=[2, num_tokens - 1])
    expected_k = cache_reference(key_cache, slots, key)
    expected_v = cache_reference(value_cache, slots, value)
    scale = torch.ones(1, dtype=torch.float32)
    mod.triton_reshape_and_cache_flash(key, value, key_cache, value_cache, slots, "auto",
                                       scale, scale)
    assert torch.equal(key_cache, expected_k)
    assert torch.equal(value_cache, expected_v)


# (num_tokens, num_heads, head_size_k, head_size_v, block_size, num_blocks, dtype)
RESHAPE_DIFFKV_CASES = [
    (8, 2, 64, 48, 16, 2, "float32"),
    (6, 3, 32, 80, 3, 4, "float16"),
]


@pytest.mark.parametrize("num_tokens,num_heads,head_size_k,head_size_v,block_size,num_blocks,dtype",
                         RESHAPE_DIFFKV_CASES)
def test_vllm_reshape_and_cache_flash_diffkv(num_tokens, num_heads, head_size_k, head_size_v,
                                             block_size, num_blocks, dtype):
    mod = vllm("triton_reshape_and_cache_flash")
    dtype = DTYPES[dtype]
    key = randn(num_tokens, num_heads, head_size_k, dtype=dtype, seed=1)
    value = randn(num_tokens, num_heads, head_size_v, dtype=dtype, seed=2)
    kv_cache = randn(num_blocks, block_size, num_heads, head_size_k + head_size_v, dtype=dtype,
                     seed=3)
    slots = slot_mapping(num_tokens, num_blocks * block_size, seed=4, padding=[1])
    expected = cache_reference(kv_cache, slots, torch.cat([key, value], dim=-1))
    scale = torch.ones(1, dtype=torch.float32)
    mod.triton_reshape_and_cache_flash_diffkv(key, value, kv_cache, slots, "auto", scale, scale)
    assert torch.equal(kv_cache, expected)
