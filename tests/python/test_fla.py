"""flash-linear-attention's Triton kernels, unmodified (tests/python/libraries/fla/:
fla_cumsum.py, fla_fused_recurrent.py, fla_chunk_h.py, fla_chunk_o.py,
fla_simple_gla_chunk.py, fla_l2norm.py, fla_solve_tril.py, with the helpers fla_index.py
and fla_op.py, as of fla's commit bc3b101d; and the fla_bp_ twins of six of them as of
commit fd3b8b91, where the same kernels address memory through tl.make_block_ptr; each
file headed by its origin, commit and the imports changed; fla_shim.py provides what they
import from fla's device and autotune helpers), launched through fla's own Python
wrappers on torch CPU tensors and checked against a reference written here with torch in
float64, independently of the kernels:

- chunk_local_cumsum / chunk_global_cumsum: a cumulative sum over time within each chunk
  of BT steps / over each whole sequence (forward or reversed, optionally scaled);
- fused_recurrent (forward and backward through autograd): gated linear attention
  S_t = decay_t(S_{t-1}) + k_t v_t^T, o_t = scale q_t S_t, with a head-wise gate
  exp(g_t), a constant exp(g_gamma), a key-wise diag(exp(gk_t)) and a value-wise
  diag(exp(gv_t)) decay; the gradients are float64 autograd through that recurrence;
- chunk_fwd_h / chunk_bwd_dh: the same recurrence in base 2, in chunks: the state at the
  start of each chunk (or split) and the gradient flowing into each chunk's end state;
- chunk_simple_gla (forward and backward): the chunked form of the head-wise gated
  recurrence, against the token-by-token recurrence;
- l2norm (forward and backward): x / sqrt(sum(x^2) + eps) over the last dimension;
- solve_tril: (I + A)^-1 for each chunk's strictly lower triangular block, also through
  the kernels' TMA tensor-descriptor path.

Variable-length batches (cu_seqlens) are used wherever the kernels take them, and sizes
that are not multiples of the block sizes.

fla's LICENSE (MIT) is libraries/fla/LICENSE: the text of fla-org/flash-linear-attention's
LICENSE at commit bc3b101dcb713ddc5bd8924b66754eb68b5ccf89.
"""

import importlib
import os
import sys

import pytest
import torch
import torch.nn.functional as F
from library_testing import DTYPES, check, randn

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.join(HERE, "libraries", "fla")


def fla(name, version="pointers"):
    """The module libraries/fla/fla_<name>.py (fla_bp_<name>.py for version
    "block_ptr"); its folder goes on sys.path, where the library files import one
    another and fla_shim by those names."""
    if LIBRARY not in sys.path:
        sys.path.insert(0, LIBRARY)
    return importlib.import_module(("fla_bp_" if version == "block_ptr" else "fla_") + name)


# Each file of libraries/fla/ that has an fla_bp_ twin runs in both versions: "pointers",
# as fla has it now (pointer arithmetic, commit bc3b101d...), and "block_ptr", as it was
# before fla's #1062 (the same kernels over tl.make_block_ptr with boundary_check, commit
# fd3b8b91...).
VERSIONS = pytest.mark.parametrize("version", ["pointers", "block_ptr"])


def log_decay(*shape, dtype=torch.float32, seed=0):
    """Log-decays log(sigmoid(x + 1)), x standard normal: negative, typically -0.3."""
    return F.logsigmoid(randn(*shape, seed=seed, scale=1.0) + 1.0).to(dtype)


def sequences(batch, seq_len, cu_seqlens):
    """(batch row, first token, end token) of each sequence: the rows of a [B, T]
    batch, or the spans of cu_seqlens in row 0."""
    if cu_seqlens is None:
        return [(b, 0, seq_len) for b in range(batch)]
    bounds = cu_seqlens.tolist()
    return [(0, bos, eos) for bos, eos in zip(bounds[:-1], bounds[1:])]


# =====================================================================================
# chunk_local_cumsum / chunk_global_cumsum (fla_cumsum.py)
# =====================================================================================

def cumsum_reference(s, chunk, reverse, scale, cu_seqlens):
    """Sum over time (dim 1) of s in float64, restarting at each sequence's start and,
    with chunk, every chunk steps after it; reversed sums from the end with reverse."""
    out = torch.zeros(s.shape, dtype=torch.float64)
    for b, bos, eos in sequences(s.shape[0], s.shape[1], cu_seqlens):
        step = chunk or (eos - bos)
        for start in range(bos, eos, max(step, 1)):
            end = min(start + step, eos)
            piece = s[b, start:end].double()
            if reverse:
                out[b, start:end] = piece.flip(0).cumsum(0).flip(0)
            else:
                out[b, start:end] = piece.cumsum(0)
    return out * (1.0 if scale is None else scale)


# (shape, chunk_size, reverse, scale, cu_seqlens, dtype)
LOCAL_CUMSUM_CASES = [
    # scalar gates [B, T, H]: T=100 is 6 chunks of 16 and a 4-step tail.
    ((2, 100, 3), 16, False, None, None, "float32"),
    ((2, 70, 2), 64, True, 1.4426950216, None, "bfloat16"),
    # vector gates [B, T, H, S]: S=40 spans blocks of BS=16 or 32 (autotuned), masked tail.
    ((2, 45, 2, 40), 32, False, None, None, "float32"),
    ((1, 33, 3, 7), 16, True, 0.5, None, "float16"),
    # variable lengths: sequences of 5, 35, 1 and 59 tokens (chunks listed by
    # prepare_chunk_indices).
    ((1, 100, 2), 16, False, None, [0, 5, 40, 41, 100], "float32"),
    ((1, 100, 2, 20), 32, True, 2.0, [0, 5, 40, 41, 100], "float32"),
]


@VERSIONS
@pytest.mark.parametrize("shape,chunk_size,reverse,scale,cu_seqlens,dtype",
                         LOCAL_CUMSUM_CASES)
def test_fla_chunk_local_cumsum(version, shape, chunk_size, reverse, scale, cu_seqlens,
                                dtype):
    mod = fla("cumsum", version)
    dtype = DTYPES[dtype]
    s = randn(*shape, dtype=dtype, seed=1)
    cu = None if cu_seqlens is None else torch.tensor(cu_seqlens, dtype=torch.long)
    out = mod.chunk_local_cumsum(s, chunk_size=chunk_size, reverse=reverse, scale=scale,
                                 cu_seqlens=cu)
    assert out.dtype == torch.float32  # output_dtype defaults to float
    check(out, cumsum_reference(s, chunk_size, reverse, scale, cu))


# (shape, reverse, scale, cu_seqlens, dtype)
GLOBAL_CUMSUM_CASES = [
    ((2, 300, 3), False, None, None, "float32"),
    ((2, 77, 2), True, 0.25, None, "bfloat16"),
    ((2, 90, 2, 40), False, None, None, "float32"),
    ((1, 150, 2, 9), True, None, [0, 7, 100, 150], "float32"),
    ((1, 150, 3), False, 3.0, [0, 1, 64, 150], "float32"),
]


@VERSIONS
@pytest.mark.parametrize("shape,reverse,scale,cu_seqlens,dtype", GLOBAL_CUMSUM_CASES)
def test_fla_chunk_global_cumsum(version, shape, reverse, scale, cu_seqlens, dtype):
    mod = fla("cumsum", version)
    dtype = DTYPES[dtype]
    s = randn(*shape, dtype=dtype, seed=2)
    cu = None if cu_seqlens is None else torch.tensor(cu_seqlens, dtype=torch.long)
    out = mod.chunk_global_cumsum(s, reverse=reverse, scale=scale, cu_seqlens=cu)
    check(out, cumsum_reference(s, None, reverse, scale, cu))


# =====================================================================================
# The recurrence (reference for fused_recurrent, chunk_fwd_h, chunk_simple_gla)
# =====================================================================================

def recurrence(q, k, v, g=None, g_gamma=None, gk=None, gv=None, scale=1.0, h0=None,
               reverse=False, cu_seqlens=None, base2=False):
    """Gated linear attention token by token in float64 (differentiable):
    S_t = diag(e^gk_t) (e^g_t e^g_gamma S_{t-1}) diag(e^gv_t) + k_t v_t^T and
    o_t = scale q_t S_t, per sequence and head, S starting at h0 (or 0), over time
    forward or, with reverse, backward; e is 2 with base2. S is [K, V].
    Returns o [B, T, H, V], the final states [N, H, K, V] and, per sequence, the list
    of states after each token in the order visited."""
    B, T, H, K = q.shape
    V = v.shape[-1]
    e = torch.exp2 if base2 else torch.exp
    rows = {}
    finals, history = [], []
    for n, (b, bos, eos) in enumerate(sequences(B, T, cu_seqlens)):
        S = h0[n] if h0 is not None else torch.zeros(H, K, V, dtype=torch.float64)
        steps = range(eos - 1, bos - 1, -1) if reverse else range(bos, eos)
        states = []
        for t in steps:
            if g is not None:
                S = S * e(g[b, t])[:, None, None]
            if g_gamma is not None:
                S = S * e(g_gamma)[:, None, None]
            if gk is not None:
                S = S * e(gk[b, t])[:, :, None]
            if gv is not None:
                S = S * e(gv[b, t])[:, None, :]
            S = S + k[b, t][:, :, None] * v[b, t][:, None, :]
            rows[(b, t)] = torch.einsum("hk,hkv->hv", q[b, t] * scale, S)
            states.append(S)
        finals.append(S)
        history.append(states)
    zero = torch.zeros(H, V, dtype=torch.float64)
    o = torch.stack([torch.stack([rows.get((b, t), zero) for t in range(T)])
                     for b in range(B)])
    return o, torch.stack(finals), history


def leaves(*tensors):
    """float64 copies of the inputs that are tensors, as autograd leaves."""
    return [None if t is None else t.detach().double().requires_grad_() for t in tensors]


# =====================================================================================
# fused_recurrent (fla_fused_recurrent.py)
# =====================================================================================

# (B, T, H, K, V, gates, reverse, state_v_first, with_h0, cu_seqlens, dtype)
# gates: which of g (head-wise), g_gamma (constant), gk (key-wise), gv (value-wise).
RECURRENT_CASES = [
    (2, 37, 2, 20, 24, ("g",), False, False, True, None, "float32"),
    # K=80, V=100: two key blocks of BK=64 (o summed over them) and two of BV=64.
    (1, 19, 2, 80, 100, ("gk",), False, False, True, None, "float32"),
    (2, 23, 3, 16, 12, ("gv", "g_gamma"), True, False, False, None, "float32"),
    (2, 29, 2, 24, 20, ("g", "gk", "gv"), False, True, True, None, "float32"),
    (2, 25, 2, 32, 32, (), False, False, False, None, "bfloat16"),
    (1, 21, 2, 16, 40, ("g",), True, False, True, None, "float16"),
    # variable lengths 9, 1, 30 and 17.
    (1, 57, 2, 20, 24, ("g", "gk"), False, False, True, [0, 9, 10, 40, 57], "float32"),
    (1, 57, 2, 24, 20, ("gv",), True, True, True, [0, 9, 10, 40, 57], "bfloat16"),
]


def recurrent_inputs(B, T, H, K, V, gates, with_h0, n_seqs, dtype):
    q = randn(B, T, H, K, dtype=dtype, seed=1)
    k = randn(B, T, H, K, dtype=dtype, seed=2, scale=0.5)
    v = randn(B, T, H, V, dtype=dtype, seed=3)
    g = log_decay(B, T, H, seed=4) if "g" in gates else None
    g_gamma = log_decay(H, seed=5) if "g_gamma" in gates else None
    gk = log_decay(B, T, H, K, seed=6) if "gk" in gates else None
    gv = log_decay(B, T, H, V, seed=7) if "gv" in gates else None
    h0 = randn(n_seqs, H, K, V, seed=8) if with_h0 else None
    return q, k, v, g, g_gamma, gk, gv, h0


@pytest.mark.parametrize(
    "B,T,H,K,V,gates,reverse,state_v_first,with_h0,cu_seqlens,dtype", RECURRENT_CASES)
def test_fla_fused_recurrent(B, T, H, K, V, gates, reverse, state_v_first, with_h0,
                             cu_seqlens, dtype):
    """Forward (o, final state) and backward (dq, dk, dv, dg, dgk, dgv, dh0 through
    FusedRecurrentFunction's fused_recurrent_bwd) against the float64 recurrence."""
    mod = fla("fused_recurrent")
    dtype = DTYPES[dtype]
    cu = None if cu_seqlens is None else torch.tensor(cu_seqlens, dtype=torch.long)
    n_seqs = B if cu is None else len(cu_seqlens) - 1
    q, k, v, g, g_gamma, gk, gv, h0 = recurrent_inputs(B, T, H, K, V, gates, with_h0,
                                                       n_seqs, dtype)
    # The state's layout is [V, K] with state_v_first.
    h0_in = None if h0 is None else (h0.transpose(-1, -2).contiguous() if state_v_first
                                     else h0)
    inputs = [q, k, v, g, gk, gv, h0_in]
    grads = [t if t is None else t.clone().requires_grad_() for t in inputs]
    tq, tk, tv, tg, tgk, tgv, th0 = grads
    o, ht = mod.fused_recurrent(tq, tk, tv, g=tg, g_gamma=g_gamma, gk=tgk, gv=tgv,
                                initial_state=th0, output_final_state=True, reverse=reverse,
                                state_v_first=state_v_first, cu_seqlens=cu)
    scale = K ** -0.5
    rq, rk, rv, rg, rgk, rgv, rh0 = leaves(q, k, v, g, gk, gv, h0)
    ro, rht, _ = recurrence(rq, rk, rv, rg, None if g_gamma is None else g_gamma.double(),
                            rgk, rgv, scale, rh0, reverse, cu)
    if state_v_first:
        rht_layout = rht.transpose(-1, -2)
    else:
        rht_layout = rht
    assert o.dtype == dtype and ht.dtype == torch.float32
    check(o, ro, dtype, err_msg="o")
    # The state is kept and returned in float32 from the inputs' values.
    check(ht, rht_layout, err_msg="ht")

    do = randn(*o.shape, dtype=o.dtype, seed=9)
    dht = randn(*ht.shape, seed=10)
    wanted = [(name, x, r) for name, x, r in zip(
        ["dq", "dk", "dv", "dg", "dgk", "dgv", "dh0"], grads, [rq, rk, rv, rg, rgk, rgv, rh0])
        if x is not None]
    got = torch.autograd.grad([o, ht], [x for _, x, _ in wanted], [do, dht])
    ref_dht = dht.double().transpose(-1, -2) if state_v_first else dht.double()
    expected = torch.autograd.grad([ro, rht], [r for _, _, r in wanted],
                                   [do.double(), ref_dht])
    for (name, _, _), a, e in zip(wanted, got, expected):
        if name == "dh0" and state_v_first:
            e = e.transpose(-1, -2)
        # Gate gradients sum many terms of either sign.
        check(a, e, dtype, scale=5.0 if name.startswith("dg") else 2.0, err_msg=name)


# =====================================================================================
# chunk_fwd_h / chunk_bwd_dh (fla_chunk_h.py)
# =====================================================================================

def chunk_local(a, chunk, cu_seqlens):
    """The chunk-local cumulative sums of the per-step log-decays a (float32): the gate
    format chunk_fwd_h and chunk_bwd_dh read (in fla, chunk_local_cumsum's output)."""
    return cumsum_reference(a, chunk, False, None, cu_seqlens).float()


# (B, T, H, K, V, gates, chunk_size, split_size, with_h0, cu_seqlens, dtype)
CHUNK_H_CASES = [
    (2, 100, 2, 40, 24, ("g",), 64, None, True, None, "float32"),
    (1, 75, 2, 20, 36, ("gk", "gv"), 16, None, True, None, "float32"),
    (2, 90, 2, 32, 32, ("g_gamma",), 32, None, False, None, "bfloat16"),
    # split_size 64 over chunks of 16: a state stored every 4 chunks.
    (1, 150, 2, 24, 20, ("g", "gk"), 16, 64, True, None, "float32"),
    # variable lengths 30, 70 and 33.
    (1, 133, 2, 20, 24, ("g",), 32, None, True, [0, 30, 100, 133], "float32"),
    (1, 133, 2, 24, 20, ("gk",), 16, 32, False, [0, 30, 100, 133], "float16"),
]


def chunk_inputs(B, T, H, K, V, gates, chunk_size, with_h0, cu, n_seqs, dtype):
    """Inputs in base 2: per-step log2-decays a_*, and the chunk-local sums of them
    that the kernels read."""
    k = randn(B, T, H, K, dtype=dtype, seed=2, scale=0.5)
    v = randn(B, T, H, V, dtype=dtype, seed=3)
    a_g = log_decay(B, T, H, seed=4) if "g" in gates else None
    g_gamma = log_decay(H, seed=5) if "g_gamma" in gates else None
    a_gk = log_decay(B, T, H, K, seed=6) if "gk" in gates else None
    a_gv = log_decay(B, T, H, V, seed=7) if "gv" in gates else None
    h0 = randn(n_seqs, H, K, V, seed=8) if with_h0 else None
    cum = [None if a is None else chunk_local(a, chunk_size, cu) for a in (a_g, a_gk, a_gv)]
    return k, v, (a_g, g_gamma, a_gk, a_gv), cum, h0


@VERSIONS
@pytest.mark.parametrize(
    "B,T,H,K,V,gates,chunk_size,split_size,with_h0,cu_seqlens,dtype", CHUNK_H_CASES)
def test_fla_chunk_fwd_h(version, B, T, H, K, V, gates, chunk_size, split_size, with_h0,
                         cu_seqlens, dtype):
    """h[s] is the state before split s (of split_size, default chunk_size, steps) of
    each sequence, ht the state after the last step."""
    mod = fla("chunk_h", version)
    dtype = DTYPES[dtype]
    cu = None if cu_seqlens is None else torch.tensor(cu_seqlens, dtype=torch.long)
    seqs = sequences(B, T, cu)
    k, v, (a_g, g_gamma, a_gk, a_gv), (g, gk, gv), h0 = chunk_inputs(
        B, T, H, K, V, gates, chunk_size, with_h0, cu, len(seqs), dtype)
    h, ht = mod.chunk_fwd_h(k, v, g=g, g_gamma=g_gamma, gk=gk, gv=gv, h0=h0,
                            output_final_state=True, cu_seqlens=cu, chunk_size=chunk_size,
                            split_size=split_size)
    q = torch.zeros(B, T, H, K, dtype=torch.float64)
    d = lambda t: None if t is None else t.double()  # noqa: E731
    _, rht, history = recurrence(q, k.double(), v.double(), d(a_g), d(g_gamma), d(a_gk),
                                 d(a_gv), 1.0, d(h0), False, cu, base2=True)
    split = split_size or chunk_size
    expected = torch.zeros(h.shape, dtype=torch.float64)
    slot = 0
    for n, (b, bos, eos) in enumerate(seqs):
        start = d(h0)[n] if h0 is not None else torch.zeros(H, K, V, dtype=torch.float64)
        for i, first in enumerate(range(bos, eos, split)):
            state = start if first == bos else history[n][first - bos - 1]
            expected[b, (slot + i) if cu is not None else i] = state
        slot += -(-(eos - bos) // split)
    assert h.dtype == dtype
    check(h, expected, dtype, err_msg="h")
    check(ht, rht, torch.float32 if dtype == torch.float32 else dtype, err_msg="ht")


def dh_reference(q, do, a_g, g_gamma, a_gk, a_gv, scale, dht, chunk_size, cu):
    """For each chunk c of each sequence, dh[c] = dL/dS at the last step of c, counting
    only what comes after it: L = sum_t do_t . o_t (o_t = scale q_t S_t) over the steps
    after chunk c, plus <dht, S_last>; and dh0 = dL/dh0 over all steps. Walks back
    from the last step: D = dht; at step t, the end of a chunk, dh = D; then D gains
    scale q_t^T do_t and passes back through step t's decay (base 2)."""
    B, T, H, K = q.shape
    V = do.shape[-1]
    seqs = sequences(B, T, cu)
    NT = sum(-(-(eos - bos) // chunk_size) for _, bos, eos in seqs) if cu is not None \
        else -(-T // chunk_size)
    dh = torch.zeros(B, NT, H, K, V, dtype=torch.float64)
    dh0 = torch.zeros(len(seqs), H, K, V, dtype=torch.float64)
    slot = 0
    for n, (b, bos, eos) in enumerate(seqs):
        D = dht[n].clone()
        nt = -(-(eos - bos) // chunk_size)
        for t in range(eos - 1, bos - 1, -1):
            if t == eos - 1 or (t - bos + 1) % chunk_size == 0:
                c = (t - bos) // chunk_size
                dh[b, (slot + c) if cu is not None else c] = D
            D = D + scale * q[b, t][:, :, None] * do[b, t][:, None, :]
            if a_g is not None:
                D = D * torch.exp2(a_g[b, t])[:, None, None]
            if g_gamma is not None:
                D = D * torch.exp2(g_gamma)[:, None, None]
            if a_gk is not None:
                D = D * torch.exp2(a_gk[b, t])[:, :, None]
            if a_gv is not None:
                D = D * torch.exp2(a_gv[b, t])[:, None, :]
        dh0[n] = D
        slot += nt
    return dh, dh0


@VERSIONS
@pytest.mark.parametrize(
    "B,T,H,K,V,gates,chunk_size,split_size,with_h0,cu_seqlens,dtype",
    [c for c in CHUNK_H_CASES if c[7] is None])
def test_fla_chunk_bwd_dh(version, B, T, H, K, V, gates, chunk_size, split_size, with_h0,
                          cu_seqlens, dtype):
    mod = fla("chunk_h", version)
    dtype = DTYPES[dtype]
    cu = None if cu_seqlens is None else torch.tensor(cu_seqlens, dtype=torch.long)
    seqs = sequences(B, T, cu)
    k, v, (a_g, g_gamma, a_gk, a_gv), (g, gk, gv), h0 = chunk_inputs(
        B, T, H, K, V, gates, chunk_size, True, cu, len(seqs), dtype)
    q = randn(B, T, H, K, dtype=dtype, seed=11)
    do = randn(B, T, H, V, dtype=dtype, seed=12)
    dht = randn(len(seqs), H, K, V, seed=13)
    scale = K ** -0.5
    dh, dh0 = mod.chunk_bwd_dh(q, k, v, do, h0, dht, scale, g=g, g_gamma=g_gamma, gk=gk,
                               gv=gv, cu_seqlens=cu, chunk_size=chunk_size)
    d = lambda t: None if t is None else t.double()  # noqa: E731
    rdh, rdh0 = dh_reference(q.double(), do.double(), d(a_g), d(g_gamma), d(a_gk), d(a_gv),
                             scale, dht.double(), chunk_size, cu)
    assert dh.dtype == dtype
    check(dh, rdh, dtype, err_msg="dh")
    check(dh0, rdh0, torch.float32 if dtype == torch.float32 else dtype, err_msg="dh0")


# =====================================================================================
# chunk_simple_gla (fla_simple_gla_chunk.py over fla_chunk_h.py, fla_chunk_o.py,
# fla_cumsum.py)
# =====================================================================================

# (B, T, H, K, V, gate, state_v_first, with_h0, cu_seqlens, dtype)
SIMPLE_GLA_CASES = [
    # T=100 over chunks of 64; K=40 and V=24 over tiles of 32 (two key tiles).
    (2, 100, 2, 40, 24, "g", False, True, None, "float32"),
    (2, 70, 2, 32, 48, "g_gamma", False, False, None, "float32"),
    # no gate: plain causal linear attention.
    (1, 65, 3, 16, 16, None, False, True, None, "float32"),
    (2, 80, 2, 32, 32, "g", True, True, None, "bfloat16"),
    # variable lengths 30, 70 and 33.
    (1, 133, 2, 20, 24, "g", False, True, [0, 30, 100, 133], "float32"),
    (1, 133, 2, 24, 20, "g_gamma", True, False, [0, 30, 100, 133], "float16"),
]


@VERSIONS
@pytest.mark.parametrize("B,T,H,K,V,gate,state_v_first,with_h0,cu_seqlens,dtype",
                         SIMPLE_GLA_CASES)
def test_fla_chunk_simple_gla(version, B, T, H, K, V, gate, state_v_first, with_h0, cu_seqlens,
                              dtype):
    """Forward (o, final state) and backward (dq, dk, dv, dg, dh0) against the
    float64 recurrence with exp(g_t) (or exp(g_gamma)) decay."""
    mod = fla("simple_gla_chunk", version)
    dtype = DTYPES[dtype]
    cu = None if cu_seqlens is None else torch.tensor(cu_seqlens, dtype=torch.long)
    n_seqs = B if cu is None else len(cu_seqlens) - 1
    gates = (gate,) if gate else ()
    q, k, v, g, g_gamma, _, _, h0 = recurrent_inputs(B, T, H, K, V, gates, with_h0, n_seqs,
                                                     dtype)
    if g is not None:
        g = g.float()
    h0_in = None if h0 is None else (h0.transpose(-1, -2).contiguous() if state_v_first
                                     else h0)
    grads = [t if t is None else t.clone().requires_grad_() for t in (q, k, v, g, h0_in)]
    tq, tk, tv, tg, th0 = grads
    o, ht = mod.chunk_simple_gla(tq, tk, tv, g=tg, g_gamma=g_gamma, initial_state=th0,
                                 output_final_state=True, state_v_first=state_v_first,
                                 cu_seqlens=cu)
    scale = K ** -0.5
    rq, rk, rv, rg, rh0 = leaves(q, k, v, g, h0)
    ro, rht, _ = recurrence(rq, rk, rv, rg, None if g_gamma is None else g_gamma.double(),
                            None, None, scale, rh0, False, cu)
    rht_layout = rht.transpose(-1, -2) if state_v_first else rht
    # Chunked products round their operands to the input dtype (tl.dot in bf16/fp16).
    low = dtype != torch.float32
    check(o, ro, dtype, scale=2.0 if low else 5.0, err_msg="o")
    check(ht, rht_layout, dtype, scale=2.0 if low else 5.0, err_msg="ht")

    do = randn(*o.shape, dtype=o.dtype, seed=9)
    dht = randn(*ht.shape, seed=10)
    wanted = [(name, x, r) for name, x, r in zip(["dq", "dk", "dv", "dg", "dh0"], grads,
                                                  [rq, rk, rv, rg, rh0]) if x is not None]
    got = torch.autograd.grad([o, ht], [x for _, x, _ in wanted], [do, dht])
    ref_dht = dht.double().transpose(-1, -2) if state_v_first else dht.double()
    expected = torch.autograd.grad([ro, rht], [r for _, _, r in wanted],
                                   [do.double(), ref_dht])
    for (name, _, _), a, e in zip(wanted, got, expected):
        if name == "dh0" and state_v_first:
            e = e.transpose(-1, -2)
        check(a, e, dtype, scale=(4.0 if low else 10.0) if name == "dg" else
              (2.0 if low else 5.0), err_msg=name)


# =====================================================================================
# l2norm (fla_l2norm.py)
# =====================================================================================

# (shape, dtype, output_dtype): D <= 512 takes l2norm_fwd_kernel/l2norm_bwd_kernel (rows
# in blocks of BT, autotuned), D > 512 the one-row l2norm_fwd_kernel1/l2norm_bwd_kernel1.
L2NORM_CASES = [
    ((3, 37, 100), "float32", None),
    ((5, 64), "bfloat16", None),
    ((2, 11, 48), "float16", "float32"),
    ((13, 700), "float32", None),
    ((4, 3, 520), "bfloat16", None),
]


@VERSIONS
@pytest.mark.parametrize("shape,dtype,output_dtype", L2NORM_CASES)
def test_fla_l2norm(version, shape, dtype, output_dtype):
    mod = fla("l2norm", version)
    dtype = DTYPES[dtype]
    out_dtype = None if output_dtype is None else DTYPES[output_dtype]
    x = randn(*shape, dtype=dtype, seed=1, scale=3.0)
    x[(0,) * (len(shape) - 1)] = 0.0  # an all-zero row: eps alone in the root
    eps = 1e-6
    tx = x.clone().requires_grad_()
    y = mod.l2norm(tx, eps, out_dtype)
    rx = x.double().requires_grad_()
    ry = rx / torch.sqrt((rx * rx).sum(-1, keepdim=True) + eps)
    assert y.dtype == (out_dtype or dtype)
    check(y, ry, dtype, err_msg="y")
    dy = randn(*shape, seed=2)
    (dx,) = torch.autograd.grad(y, tx, dy.to(y.dtype))
    (rdx,) = torch.autograd.grad(ry, rx, dy.double())
    # dx scales as 1/|x|: the zero row's is dy / sqrt(eps).
    rows = rdx.reshape(-1, shape[-1])
    for i in range(rows.shape[0]):
        check(dx.reshape(-1, shape[-1])[i], rows[i], dtype, err_msg=f"dx row {i}")


# =====================================================================================
# solve_tril (fla_solve_tril.py)
# =====================================================================================

def chunk_spans(B, T, chunk, cu_seqlens):
    """(batch row, first token, token count) of every chunk of every sequence."""
    return [(b, start, min(chunk, eos - start))
            for b, bos, eos in sequences(B, T, cu_seqlens) for start in range(bos, eos, chunk)]


# (B, T, H, BT, cu_seqlens, dtype): BT 16 takes solve_tril_16x16_kernel, 32 and 64 the
# merge_16x16_to_32x32/64x64_inverse kernels (16x16 diagonal blocks by substitution,
# off-diagonal blocks by tl.dot).
SOLVE_TRIL_CASES = [
    (2, 50, 2, 16, None, "float32"),
    (2, 70, 2, 32, None, "float32"),
    (1, 150, 2, 64, None, "float32"),
    (2, 100, 1, 64, None, "bfloat16"),
    # variable lengths 30, 70 and 50: partial chunks at each sequence's end.
    (1, 150, 2, 16, [0, 30, 100, 150], "float32"),
    (1, 150, 2, 32, [0, 30, 100, 150], "float32"),
    (1, 150, 2, 64, [0, 30, 100, 150], "float16"),
]


@VERSIONS
@pytest.mark.parametrize("tma", [False, True], ids=["pointers", "tma"])
@pytest.mark.parametrize("B,T,H,BT,cu_seqlens,dtype", SOLVE_TRIL_CASES)
def test_fla_solve_tril(version, tma, B, T, H, BT, cu_seqlens, dtype, monkeypatch):
    """(I + A)^-1 for each chunk's strictly lower triangular [n, n] block of A (rows:
    the chunk's tokens, columns: positions in the chunk). With tma, the wrapper takes
    the kernels' tensor-descriptor path, as fla does on NVIDIA sm90+ with FLA_USE_TMA=1
    (the module's IS_TMA_SUPPORTED set)."""
    mod = fla("solve_tril", version)
    if tma:
        monkeypatch.setattr(mod, "IS_TMA_SUPPORTED", True)
    dtype = DTYPES[dtype]
    cu = None if cu_seqlens is None else torch.tensor(cu_seqlens, dtype=torch.long)
    A = randn(B, T, H, BT, seed=1, scale=0.2)
    for b, start, n in chunk_spans(B, T, BT, cu):
        # Row t of the chunk keeps columns j < t only.
        A[b, start:start + n] *= torch.ones(n, BT).tril(-1)[:, None, :]
    A = A.to(dtype)
    Ai = mod.solve_tril(A, cu_seqlens=cu)
    expected = torch.zeros(B, T, H, BT, dtype=torch.float64)
    for b, start, n in chunk_spans(B, T, BT, cu):
        M = A[b, start:start + n, :, :n].double().permute(1, 0, 2)  # [H, n, n]
        expected[b, start:start + n, :, :n] = torch.linalg.inv(
            torch.eye(n, dtype=torch.float64) + M).permute(1, 0, 2)
    assert Ai.dtype == torch.float32
    check(Ai, expected, err_msg=f"BT={BT}")
