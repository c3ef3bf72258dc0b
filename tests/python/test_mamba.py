"""Mamba's Triton kernels, unmodified (tests/python/libraries/mamba/, each file headed by its
origin, commit and the imports changed), launched through Mamba's own Python wrappers on
torch CPU tensors and checked against references written here with torch in float64 from
the math, independently of the kernels (and of Mamba's own *_ref functions):

- selective_state_update (Mamba's decode step): state = state * exp(dt A) + dt B x,
  out = C . state + D x, gated by silu(z); dt_bias, dt_softplus, grouped B/C,
  state_batch_indices with padding, and the tied-head-dim (Mamba-2) form;
- layer_norm.py: the fused (dropout +) residual add + LayerNorm/RMSNorm forward and
  backward (layer_norm_fn / rms_norm_fn), with prenorm, residual_in_fp32, rowscale, the
  parallel second norm (x1, weight1, bias1) and dropout;
- layernorm_gated.py: the gated, grouped RMSNorm/LayerNorm of Mamba-2 (rmsnorm_fn,
  layernorm_fn), forward and backward;
- k_activations.py: SwiGLU forward and backward;
- Mamba-2's SSD (state-space duality) chunked scan: the pieces _chunk_cumsum_fwd,
  _chunk_state_fwd, _state_passing_fwd, _bmm_chunk_fwd, _chunk_scan_fwd, and the
  combined mamba_chunk_scan_combined forward (and backward), against a sequential scan
  over the sequence.

The wrappers call torch.cuda.device(x.device.index) and torch.cuda.get_device_properties,
which this torch (no CUDA) cannot answer: a fixture swaps the CPU stand-ins of
libraries/mamba/mamba_shim.py into torch.cuda while each test runs.

Mamba's LICENSE (Apache-2.0) is libraries/mamba/LICENSE, the text of state-spaces/mamba's
LICENSE at commit e9594ce1c732d97440f0332fdc43170a2294dbfa.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from library_testing import DTYPES, check, package_module, randn


def mamba(name):
    """The module libraries/mamba/<name>.py, imported as blockc_lib_mamba.<name> (the files
    import each other and mamba_shim relatively)."""
    return package_module("mamba", name)


@pytest.fixture(autouse=True)
def cpu_cuda():
    with mamba("mamba_shim").cpu_cuda():
        yield


def rand(*shape, dtype=torch.float32, seed=0, low=0.0, high=1.0):
    g = torch.Generator().manual_seed(seed)
    return (low + (high - low) * torch.rand(*shape, generator=g, dtype=torch.float64)).to(dtype)


def d(t):
    return None if t is None else t.detach().double()


def f64(t):
    """t in float64, keeping its autograd graph (the backward references)."""
    return None if t is None else t.double()


def softplus64(t):
    return torch.log1p(torch.exp(t))


# =====================================================================================
# selective_state_update (selective_state_update.py)
# =====================================================================================

def ssu_reference(state, x, dt, A, B, C, D, z, dt_bias, dt_softplus, state_batch_indices):
    """One recurrence step in float64, all with heads: state [S, h, p, n], x/dt/z [b, h, p],
    A [h, p, n], B/C [b, g, n], D/dt_bias [h, p]. Returns (out, new state); batch entry i
    updates state row state_batch_indices[i] (all rows when None; a negative index is
    padding: output 0, no state touched)."""
    state, x, dt, A, B, C, D, z, dt_bias = map(d, (state, x, dt, A, B, C, D, z, dt_bias))
    batch, nheads, _ = x.shape
    rep = nheads // B.shape[1]
    new_state = state.clone()
    out = torch.zeros_like(x)
    for i in range(batch):
        row = i if state_batch_indices is None else int(state_batch_indices[i])
        if row < 0:
            continue
        delta = dt[i] + (dt_bias if dt_bias is not None else 0.0)
        if dt_softplus:
            delta = torch.where(delta <= 20.0, softplus64(delta), delta)
        Bh = B[i].repeat_interleave(rep, dim=0)  # [h, n]
        Ch = C[i].repeat_interleave(rep, dim=0)
        s = state[row] * torch.exp(delta[..., None] * A) + delta[..., None] * Bh[:, None, :] * x[i][..., None]
        new_state[row] = s
        y = (s * Ch[:, None, :]).sum(-1)
        if D is not None:
            y = y + D * x[i]
        if z is not None:
            y = y * z[i] * torch.sigmoid(z[i])
        out[i] = y
    return out, new_state


# (batch, nheads, ngroups, dim, dstate, heads, D, z, dt_bias, dt_softplus, batch_indices, dtype)
# dim never a multiple of the wrapper's BLOCK_SIZE_M (32, 16, 8 for dstate <= 16, 32, 64).
# The wrapper needs D and dt_bias: it passes their strides as
# `*(D.stride(0), D.stride(1)) if D is not None else 0`, which unpacks the int 0 (a
# TypeError in Python) when D is None; the same for dt_bias. Mamba's callers always pass both.
SSU_CASES = [
    (2, 4, 2, 20, 12, True, True, True, True, True, False, "float32"),
    (3, 6, 3, 37, 16, True, True, False, True, False, False, "float32"),
    (2, 1, 1, 50, 30, False, True, True, True, True, False, "float32"),
    (3, 4, 1, 9, 40, True, True, True, True, False, True, "float32"),
    (2, 4, 2, 20, 12, True, True, True, True, True, False, "float16"),
    (2, 4, 4, 20, 16, True, True, True, True, True, True, "bfloat16"),
]


@pytest.mark.parametrize("batch,nheads,ngroups,dim,dstate,heads,has_D,has_z,has_dt_bias,"
                         "dt_softplus,batch_indices,dtype", SSU_CASES)
def test_mamba_selective_state_update(batch, nheads, ngroups, dim, dstate, heads, has_D, has_z,
                                      has_dt_bias, dt_softplus, batch_indices, dtype):
    mod = mamba("selective_state_update")
    dtype = DTYPES[dtype]
    nstates = batch + 2 if batch_indices else batch
    state = randn(nstates, nheads, dim, dstate, dtype=dtype, seed=1)
    x = randn(batch, nheads, dim, dtype=dtype, seed=2)
    # dt around 0 (softplus) or a positive step; one entry past softplus's threshold of 20.
    dt = (randn(batch, nheads, dim, dtype=dtype, seed=3) if dt_softplus
          else rand(batch, nheads, dim, dtype=dtype, seed=3, low=0.01, high=0.5))
    if dt_softplus:
        dt[0, 0, 0] = 25.0
    A = -rand(nheads, dim, dstate, seed=4, low=0.1, high=2.0)
    B = randn(batch, ngroups, dstate, dtype=dtype, seed=5)
    C = randn(batch, ngroups, dstate, dtype=dtype, seed=6)
    D = randn(nheads, dim, seed=7) if has_D else None
    z = randn(batch, nheads, dim, dtype=dtype, seed=8) if has_z else None
    dt_bias = rand(nheads, dim, seed=9, low=-1.0, high=0.5) if has_dt_bias else None
    indices = None
    if batch_indices:
        # A permutation of state rows, and a padding entry (-1) for the last batch entry.
        indices = torch.randperm(nstates, generator=torch.Generator().manual_seed(10))[:batch]
        indices[-1] = -1
        indices = indices.to(torch.int32)
    expected_out, expected_state = ssu_reference(state, x, dt, A, B, C, D, z, dt_bias,
                                                 dt_softplus, indices)
    if heads:
        args = (state, x, dt, A, B, C)
        out = mod.selective_state_update(*args, D=D, z=z, dt_bias=dt_bias,
                                         dt_softplus=dt_softplus, state_batch_indices=indices)
    else:
        # The head-less form: state [b, dim, dstate], x [b, dim], A [dim, dstate], B [b, dstate].
        assert nheads == 1 and ngroups == 1
        st = state[:, 0]
        out = mod.selective_state_update(st, x[:, 0], dt[:, 0], A[0], B[:, 0], C[:, 0],
                                         D=D[0] if D is not None else None,
                                         z=z[:, 0] if z is not None else None,
                                         dt_bias=dt_bias[0] if dt_bias is not None else None,
                                         dt_softplus=dt_softplus, state_batch_indices=indices)
        out = out[:, None]
    scale = 3.0 if dtype != torch.float32 else 1.0
    check(out, expected_out, dtype, scale=scale, err_msg="out")
    check(state, expected_state, dtype, scale=scale, err_msg="state")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_mamba_selective_state_update_tied(dtype):
    """Mamba-2's decode step: A, dt and dt_bias per head, broadcast over (dim, dstate) with
    stride 0 (the wrapper's TIE_HDIM path, one scalar dA per program)."""
    mod = mamba("selective_state_update")
    dtype = DTYPES[dtype]
    batch, nheads, ngroups, dim, dstate = 3, 6, 2, 24, 20
    state = randn(batch, nheads, dim, dstate, dtype=dtype, seed=1)
    x = randn(batch, nheads, dim, dtype=dtype, seed=2)
    dt_h = randn(batch, nheads, dtype=dtype, seed=3)
    A_h = -rand(nheads, seed=4, low=0.5, high=4.0)
    dt_bias_h = rand(nheads, seed=5, low=-2.0, high=0.0)
    B = randn(batch, ngroups, dstate, dtype=dtype, seed=6)
    C = randn(batch, ngroups, dstate, dtype=dtype, seed=7)
    D_h = randn(nheads, seed=8)
    z = randn(batch, nheads, dim, dtype=dtype, seed=9)
    A = A_h[:, None, None].expand(nheads, dim, dstate)
    dt = dt_h[:, :, None].expand(batch, nheads, dim)
    dt_bias = dt_bias_h[:, None].expand(nheads, dim)
    D = D_h[:, None].expand(nheads, dim)
    expected_out, expected_state = ssu_reference(state, x, dt, A, B, C, D, z, dt_bias, True, None)
    out = mod.selective_state_update(state, x, dt, A, B, C, D=D, z=z, dt_bias=dt_bias,
                                     dt_softplus=True)
    scale = 3.0 if dtype != torch.float32 else 1.0
    check(out, expected_out, dtype, scale=scale, err_msg="out")
    check(state, expected_state, dtype, scale=scale, err_msg="state")


# =====================================================================================
# layer_norm.py: (dropout +) residual add + LayerNorm / RMSNorm, forward and backward
# =====================================================================================

def add_norm_reference(x, weight, bias, residual, x1, weight1, bias1, eps, rowscale,
                       keep, keep1, dropout_p, is_rms_norm):
    """Float64: s = dropout(x * rowscale) [+ dropout(x1)] [+ residual], then
    y = norm(s) * weight + bias (and y1 with weight1, bias1); returns (y, y1, s). keep /
    keep1 are the kernel's dropout masks (the same Philox stream the backward redraws)."""
    h = x * rowscale[..., None] if rowscale is not None else x
    if dropout_p > 0.0:
        h = torch.where(keep, h / (1.0 - dropout_p), torch.zeros_like(h))
    if x1 is not None:
        h1 = torch.where(keep1, x1 / (1.0 - dropout_p), torch.zeros_like(x1)) if dropout_p > 0.0 else x1
        h = h + h1
    s = h + residual if residual is not None else h
    if is_rms_norm:
        xhat = s / torch.sqrt((s * s).mean(-1, keepdim=True) + eps)
    else:
        mu = s.mean(-1, keepdim=True)
        xhat = (s - mu) / torch.sqrt(((s - mu) ** 2).mean(-1, keepdim=True) + eps)
    y = xhat * weight + (bias if bias is not None else 0.0)
    y1 = xhat * weight1 + (bias1 if bias1 is not None else 0.0) if weight1 is not None else None
    return y, y1, s


# (shape, is_rms_norm, has_bias, has_residual, prenorm, residual_in_fp32, rowscale,
#  parallel, dropout_p, dtype)
ADD_NORM_CASES = [
    ((3, 5, 100), False, True, True, True, False, False, False, 0.0, "float32"),
    ((3, 5, 100), True, False, True, False, False, False, False, 0.0, "float32"),
    ((13, 64), False, True, False, False, True, False, False, 0.0, "float32"),
    ((9, 200), True, True, True, True, False, True, False, 0.0, "float32"),
    ((2, 6, 48), False, True, True, True, False, False, True, 0.0, "float32"),
    ((11, 80), True, False, True, True, False, False, False, 0.25, "float32"),
    ((7, 96), False, True, False, True, False, False, True, 0.2, "float32"),
    ((4, 5, 100), True, True, True, True, True, False, False, 0.0, "float16"),
    ((4, 5, 100), False, True, True, False, False, False, False, 0.0, "bfloat16"),
]


@pytest.mark.parametrize("shape,is_rms_norm,has_bias,has_residual,prenorm,residual_in_fp32,"
                         "has_rowscale,parallel,dropout_p,dtype", ADD_NORM_CASES)
def test_mamba_layer_norm_fn(shape, is_rms_norm, has_bias, has_residual, prenorm,
                             residual_in_fp32, has_rowscale, parallel, dropout_p, dtype):
    mod = mamba("layer_norm")
    dtype = DTYPES[dtype]
    N = shape[-1]
    eps = 1e-5
    x = randn(*shape, dtype=dtype, seed=1).requires_grad_()
    weight = (1 + 0.5 * randn(N, seed=2)).to(dtype).requires_grad_()
    bias = randn(N, dtype=dtype, seed=3, scale=0.5).requires_grad_() if has_bias else None
    residual = randn(*shape, dtype=dtype, seed=4).requires_grad_() if has_residual else None
    rowscale = rand(*shape[:-1], dtype=dtype, seed=5, low=0.5, high=1.5) if has_rowscale else None
    x1 = weight1 = bias1 = None
    if parallel:
        x1 = randn(*shape, dtype=dtype, seed=6).requires_grad_()
        weight1 = (1 + 0.5 * randn(N, seed=7)).to(dtype).requires_grad_()
        bias1 = randn(N, dtype=dtype, seed=8, scale=0.5).requires_grad_() if has_bias else None
    fn = mod.rms_norm_fn if is_rms_norm else mod.layer_norm_fn
    kwargs = dict(residual=residual, x1=x1, weight1=weight1, bias1=bias1, eps=eps,
                  dropout_p=dropout_p, rowscale=rowscale, prenorm=prenorm,
                  residual_in_fp32=residual_in_fp32, return_dropout_mask=dropout_p > 0.0)
    result = fn(x, weight, bias, **kwargs)
    outs = list(result) if isinstance(result, tuple) else [result]
    y = outs.pop(0)
    y1 = outs.pop(0) if parallel else None
    res_out = outs.pop(0) if prenorm else None
    keep = keep1 = None
    if dropout_p > 0.0:
        keep, keep1 = outs.pop(0), outs.pop(0)
        assert keep.dtype == torch.bool and keep.shape == x.shape
        frac = 1.0 - keep.double().mean().item()
        assert abs(frac - dropout_p) < 0.1, f"dropped fraction {frac} for p={dropout_p}"
        if parallel:
            assert keep1.shape == x.shape and not torch.equal(keep, keep1)
    assert not outs

    leaves = [x, weight, bias, residual, x1, weight1, bias1]
    leaves64 = [d(t).requires_grad_() if t is not None else None for t in leaves]
    ry, ry1, rs = add_norm_reference(leaves64[0], leaves64[1], leaves64[2], leaves64[3],
                                     leaves64[4], leaves64[5], leaves64[6], eps, d(rowscale),
                                     keep, keep1, dropout_p, is_rms_norm)
    scale = 1.0 if dtype == torch.float32 else 2.0
    check(y, ry, dtype, scale=scale, err_msg="y")
    if parallel:
        check(y1, ry1, dtype, scale=scale, err_msg="y1")
    if prenorm:
        res_dtype = torch.float32 if (residual_in_fp32 and residual is None) else dtype
        assert res_out.dtype == (residual.dtype if residual is not None else res_dtype)
        check(res_out, rs, res_out.dtype, scale=scale, err_msg="residual_out")

    # Backward through LayerNormFn (the _layer_norm_bwd_kernel, several rows per program).
    gy = randn(*shape, dtype=dtype, seed=11)
    grads_out = [gy]
    ref_outs = [ry]
    outputs = [y]
    if parallel:
        gy1 = randn(*shape, dtype=dtype, seed=12)
        grads_out.append(gy1), ref_outs.append(ry1), outputs.append(y1)
    if prenorm:
        gres = randn(*shape, dtype=res_out.dtype, seed=13)
        grads_out.append(gres), ref_outs.append(rs), outputs.append(res_out)
    torch.autograd.backward(outputs, grads_out)
    torch.autograd.backward(ref_outs, [d(g) for g in grads_out])
    names = ["dx", "dweight", "dbias", "dresidual", "dx1", "dweight1", "dbias1"]
    for name, t, t64 in zip(names, leaves, leaves64):
        if t is None:
            continue
        # dweight / dbias sum over the rows.
        s = scale * (4.0 if name.startswith(("dweight", "dbias")) else 1.0)
        check(t.grad, t64.grad, dtype, scale=s, err_msg=name)


# =====================================================================================
# layernorm_gated.py: Mamba-2's gated, grouped norm
# =====================================================================================

# (M, N, group_size, has_z, norm_before_gate, is_rms_norm, has_bias, dtype)
GATED_CASES = [
    (10, 96, None, True, True, True, False, "float32"),
    (10, 96, 48, True, False, True, True, "float32"),
    (7, 100, 20, False, True, False, True, "float32"),
    (13, 64, 16, True, True, False, False, "float32"),
    (6, 80, 40, True, False, True, False, "bfloat16"),
]


@pytest.mark.parametrize("M,N,group_size,has_z,norm_before_gate,is_rms_norm,has_bias,dtype",
                         GATED_CASES)
def test_mamba_gated_norm(M, N, group_size, has_z, norm_before_gate, is_rms_norm, has_bias,
                          dtype):
    mod = mamba("layernorm_gated")
    dtype = DTYPES[dtype]
    eps = 1e-5
    x = randn(M, N, dtype=dtype, seed=1).requires_grad_()
    weight = (1 + 0.5 * randn(N, seed=2)).to(dtype).requires_grad_()
    bias = randn(N, dtype=dtype, seed=3, scale=0.5).requires_grad_() if has_bias else None
    z = randn(M, N, dtype=dtype, seed=4).requires_grad_() if has_z else None
    y = mod.layernorm_fn(x, weight, bias, z=z, eps=eps, group_size=group_size,
                         norm_before_gate=norm_before_gate, is_rms_norm=is_rms_norm)

    leaves = [x, weight, bias, z]
    x64, w64, b64, z64 = [d(t).requires_grad_() if t is not None else None for t in leaves]
    gs = group_size or N
    h = x64
    if z64 is not None and not norm_before_gate:
        h = h * F.silu(z64)
    hg = h.reshape(M, N // gs, gs)
    if is_rms_norm:
        xhat = hg / torch.sqrt((hg * hg).mean(-1, keepdim=True) + eps)
    else:
        mu = hg.mean(-1, keepdim=True)
        xhat = (hg - mu) / torch.sqrt(((hg - mu) ** 2).mean(-1, keepdim=True) + eps)
    ry = xhat.reshape(M, N) * w64 + (b64 if b64 is not None else 0.0)
    if z64 is not None and norm_before_gate:
        ry = ry * F.silu(z64)
    scale = 1.0 if dtype == torch.float32 else 2.0
    check(y, ry, dtype, scale=scale, err_msg="y")

    gy = randn(M, N, dtype=dtype, seed=5)
    y.backward(gy)
    ry.backward(d(gy))
    for name, t, t64 in zip(["dx", "dweight", "dbias", "dz"], leaves, [x64, w64, b64, z64]):
        if t is not None:
            s = scale * (4.0 if name in ("dweight", "dbias") else 1.0)
            check(t.grad, t64.grad, dtype, scale=s, err_msg=name)


# =====================================================================================
# k_activations.py: SwiGLU
# =====================================================================================

@pytest.mark.parametrize("shape,dtype", [((3, 5, 2 * 300), "float32"), ((7, 2 * 70), "bfloat16")])
def test_mamba_swiglu(shape, dtype):
    mod = mamba("k_activations")
    dtype = DTYPES[dtype]
    xy = randn(*shape, dtype=dtype, seed=1, scale=2.0).requires_grad_()
    out = mod.swiglu(xy)
    xy64 = d(xy).requires_grad_()
    a, b = xy64.chunk(2, dim=-1)
    ref = F.silu(a) * b
    check(out, ref, dtype, err_msg="out")
    g = randn(*out.shape, dtype=dtype, seed=2)
    out.backward(g)
    ref.backward(d(g))
    check(xy.grad, xy64.grad, dtype, err_msg="dxy")
    # _swiglu_bwd's recompute_output path.
    dxy, out2 = mod._swiglu_bwd(xy.detach(), g, recompute_output=True)
    check(dxy, xy64.grad, dtype, err_msg="dxy (recompute)")
    check(out2, ref, dtype, err_msg="out (recompute)")


# =====================================================================================
# Mamba-2 SSD: a sequential scan as the reference
# =====================================================================================

def process_dt(dt, dt_bias, dt_softplus, dt_limit):
    """dt [b, L, h] in float64 with the bias, softplus (for dt <= 20) and clamp."""
    dt = f64(dt)
    if dt_bias is not None:
        dt = dt + f64(dt_bias)
    if dt_softplus:
        dt = torch.where(dt <= 20.0, softplus64(dt), dt)
    if dt_limit is not None:
        dt = dt.clamp(dt_limit[0], dt_limit[1])
    return dt


def ssd_scan_reference(x, dt, A, B, C, D=None, z=None, dt_bias=None, dt_softplus=False,
                       dt_limit=None, initial_states=None, seq_idx=None):
    """Mamba-2's recurrence in float64, one token at a time: with dt processed as above,
    h_t = exp(dt_t A) h_{t-1} + dt_t x_t B_t^T   ([b, h, p, n]; B, C of head h from group
    h // (nheads // ngroups)), y_t = h_t C_t + D x_t, out_t = y_t * silu(z_t). h_{-1} is
    initial_states (or 0); where seq_idx changes, the state starts again from 0 (the initial
    state belongs to sequence 0). Returns (out [b, L, h, p], final state [b, h, p, n])."""
    x, A, B, C, D, z = map(f64, (x, A, B, C, D, z))
    dt = process_dt(dt, dt_bias, dt_softplus, dt_limit)
    batch, seqlen, nheads, headdim = x.shape
    ngroups, dstate = B.shape[2], B.shape[3]
    B = B.repeat_interleave(nheads // ngroups, dim=2)
    C = C.repeat_interleave(nheads // ngroups, dim=2)
    state = (f64(initial_states) if initial_states is not None
             else torch.zeros(batch, nheads, headdim, dstate, dtype=torch.float64))
    if seq_idx is not None:
        # The initial state only for a batch row whose first token is of sequence 0.
        state = state * (seq_idx[:, 0] == 0).double()[:, None, None, None]
    out = torch.empty(batch, seqlen, nheads, headdim, dtype=torch.float64)
    for t in range(seqlen):
        if seq_idx is not None and t > 0:
            same = (seq_idx[:, t] == seq_idx[:, t - 1]).double()[:, None, None, None]
            state = state * same
        dA = torch.exp(dt[:, t] * A)  # [b, h]
        state = state * dA[:, :, None, None] + (dt[:, t, :, None, None] * x[:, t, :, :, None]
                                                * B[:, t, :, None, :])
        y = (state * C[:, t, :, None, :]).sum(-1)
        if D is not None:
            y = y + (D[None, :, :] if D.dim() == 2 else D[None, :, None]) * x[:, t]
        out[:, t] = y
    if z is not None:
        out = out * F.silu(z)
    return out, state


def chunked(t, chunk_size):
    """[b, L, ...] -> [b, nchunks, chunk_size, ...], zero-padded past L."""
    b, L = t.shape[:2]
    nchunks = math.ceil(L / chunk_size)
    pad = torch.zeros(b, nchunks * chunk_size - L, *t.shape[2:], dtype=t.dtype)
    return torch.cat([t, pad], dim=1).reshape(b, nchunks, chunk_size, *t.shape[2:])


def cumsum_reference(dt, A, chunk_size, dt_bias=None, dt_softplus=False, dt_limit=None):
    """(dA_cumsum, dt_out) [b, h, nchunks, chunk_size] in float64: dt processed and zero past
    the sequence; dA_cumsum the running sum of dt * A within each chunk."""
    dtp = chunked(process_dt(dt, dt_bias, dt_softplus, dt_limit), chunk_size)  # [b, c, l, h]
    dtp = dtp.permute(0, 3, 1, 2)
    return torch.cumsum(dtp * d(A)[None, :, None, None], dim=-1), dtp


# (batch, seqlen, nheads, chunk_size, dt_bias, dt_softplus, dt_limit)
CUMSUM_CASES = [
    (2, 40, 5, 16, True, True, None),
    (1, 77, 3, 32, False, False, None),
    (3, 20, 9, 8, True, True, (0.05, 2.0)),
]


@pytest.mark.parametrize("batch,seqlen,nheads,chunk_size,has_dt_bias,dt_softplus,dt_limit",
                         CUMSUM_CASES)
def test_mamba_ssd_chunk_cumsum(batch, seqlen, nheads, chunk_size, has_dt_bias, dt_softplus,
                                dt_limit):
    mod = mamba("ssd_chunk_state")
    dt = (randn(batch, seqlen, nheads, seed=1) if dt_softplus
          else rand(batch, seqlen, nheads, seed=1, low=0.01, high=0.3))
    if dt_softplus:
        dt[0, 3, 0] = 30.0  # past softplus's threshold
    A = -rand(nheads, seed=2, low=0.5, high=3.0)
    dt_bias = rand(nheads, seed=3, low=-2.0, high=0.0) if has_dt_bias else None
    kwargs = dict(dt_bias=dt_bias, dt_softplus=dt_softplus)
    if dt_limit is not None:
        kwargs["dt_limit"] = dt_limit
    dA_cumsum, dt_out = mod._chunk_cumsum_fwd(dt, A, chunk_size, **kwargs)
    r_dA, r_dt = cumsum_reference(dt, A, chunk_size, dt_bias, dt_softplus, dt_limit)
    check(dt_out, r_dt, err_msg="dt_out")
    check(dA_cumsum, r_dA, scale=3.0, err_msg="dA_cumsum")


def ssd_inputs(batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size, dtype=torch.float32,
               seed=0):
    """x, B, C, and the chunked dt and dA_cumsum (float32, dt zero past the sequence) as
    _chunk_cumsum_fwd makes them, from the float64 reference."""
    x = randn(batch, seqlen, nheads, headdim, dtype=dtype, seed=seed + 1)
    B = randn(batch, seqlen, ngroups, dstate, dtype=dtype, seed=seed + 2)
    C = randn(batch, seqlen, ngroups, dstate, dtype=dtype, seed=seed + 3)
    dt = rand(batch, seqlen, nheads, seed=seed + 4, low=0.01, high=0.2)
    A = -rand(nheads, seed=seed + 5, low=0.5, high=4.0)
    dA_cumsum, dt_c = cumsum_reference(dt, A, chunk_size)
    return x, B, C, dt_c.float(), dA_cumsum.float()


# (batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size)
CHUNK_STATE_CASES = [
    (2, 40, 4, 12, 2, 10, 16),
    (1, 70, 3, 40, 1, 72, 32),
    (2, 33, 6, 8, 3, 16, 64),
]


@pytest.mark.parametrize("batch,seqlen,nheads,headdim,ngroups,dstate,chunk_size",
                         CHUNK_STATE_CASES)
def test_mamba_ssd_chunk_state(batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size):
    """states[c] = sum over the chunk's tokens l of exp(dA_cumsum[end] - dA_cumsum[l]) dt_l
    x_l B_l^T: each chunk's own contribution to the state at its end."""
    mod = mamba("ssd_chunk_state")
    x, B, C, dt, dA_cumsum = ssd_inputs(batch, seqlen, nheads, headdim, ngroups, dstate,
                                        chunk_size)
    states = mod._chunk_state_fwd(B, x, dt, dA_cumsum, states_in_fp32=True)
    xc = chunked(d(x), chunk_size)                                      # [b, c, l, h, p]
    Bc = chunked(d(B), chunk_size).repeat_interleave(nheads // ngroups, dim=3)  # [b, c, l, h, n]
    dAc, dtc = d(dA_cumsum), d(dt)                                      # [b, h, c, l]
    lens = [min(chunk_size, seqlen - c * chunk_size) for c in range(xc.shape[1])]
    end = torch.stack([dAc[:, :, c, n - 1] for c, n in enumerate(lens)], dim=2)  # [b, h, c]
    w = torch.exp(end[..., None] - dAc) * dtc                           # [b, h, c, l]
    expected = torch.einsum("bhcl,bclhp,bclhn->bchpn", w, xc, Bc)
    check(states, expected, scale=3.0)


# (batch, nchunks, nheads, dim, initial_states, seq_idx)
STATE_PASSING_CASES = [
    (2, 5, 3, 100, False, False),
    (2, 4, 2, 300, True, False),
    (3, 6, 2, 70, True, True),
]


@pytest.mark.parametrize("batch,nchunks,nheads,dim,has_init,has_seq_idx", STATE_PASSING_CASES)
def test_mamba_ssd_state_passing(batch, nchunks, nheads, dim, has_init, has_seq_idx):
    """out[c] = the state entering chunk c: s_0 = initial (or 0), s_{c+1} =
    exp(dA_chunk[c]) s_c + states[c]; final = s_nchunks. With seq_idx, the carried state
    drops to 0 where the sequence at a chunk's end differs from the one before."""
    mod = mamba("ssd_state_passing")
    chunk_size = 8
    seqlen = nchunks * chunk_size - 3
    states = randn(batch, nchunks, nheads, dim, seed=1)
    dA = -rand(batch, nheads, nchunks, seed=2, low=0.0, high=2.0)
    init = randn(batch, nheads, dim, seed=3) if has_init else None
    seq_idx = None
    if has_seq_idx:
        # Sequence starts at tokens 0, 13, 30 (batch 0), 0 (1), 0, 5 (2): 0-based ids.
        seq_idx = torch.zeros(batch, seqlen, dtype=torch.int32)
        seq_idx[0, 13:] = 1
        seq_idx[0, 30:] = 2
        seq_idx[2, 5:] = 1
    out, final = mod._state_passing_fwd(states, dA, initial_states=init, seq_idx=seq_idx,
                                        chunk_size=chunk_size if has_seq_idx else None)
    s = d(init) if has_init else torch.zeros(batch, nheads, dim, dtype=torch.float64)
    expected = torch.empty(batch, nchunks, nheads, dim, dtype=torch.float64)
    prev_seq = torch.zeros(batch, dtype=torch.int32)
    for c in range(nchunks):
        expected[:, c] = s
        decay = torch.exp(d(dA[:, :, c]))[..., None]
        if has_seq_idx:
            seq_end = seq_idx[:, min((c + 1) * chunk_size, seqlen) - 1]
            decay = decay * (seq_end == prev_seq).double()[:, None, None]
            prev_seq = seq_end
        s = decay * s + d(states[:, c])
    check(out, expected, scale=3.0, err_msg="states")
    check(final, s, scale=3.0, err_msg="final_states")


# (batch, seqlen, ngroups or None, dstate, chunk_size, seq_idx, causal, dtype)
BMM_CASES = [
    (2, 40, 2, 10, 16, False, False, "float32"),
    (1, 50, None, 24, 32, True, False, "float32"),
    (2, 45, 3, 16, 64, False, True, "float32"),
    (2, 40, 2, 20, 16, False, False, "bfloat16"),
]


@pytest.mark.parametrize("batch,seqlen,ngroups,dstate,chunk_size,has_seq_idx,causal,dtype",
                         BMM_CASES)
def test_mamba_ssd_bmm_chunk(batch, seqlen, ngroups, dstate, chunk_size, has_seq_idx, causal,
                             dtype):
    """CB[c, l, s] = C_l . B_s within each chunk (0 past the sequence, and 0 between tokens of
    different sequences with seq_idx); with causal only l >= s is defined."""
    mod = mamba("ssd_bmm")
    dtype = DTYPES[dtype]
    shape = (batch, seqlen, ngroups, dstate) if ngroups else (batch, seqlen, dstate)
    C = randn(*shape, dtype=dtype, seed=1)
    B = randn(*shape, dtype=dtype, seed=2)
    seq_idx = None
    if has_seq_idx:
        seq_idx = torch.zeros(batch, seqlen, dtype=torch.int32)
        seq_idx[:, 20:] = 1
        seq_idx[:, 41:] = 2
    out = mod._bmm_chunk_fwd(C, B, chunk_size, seq_idx=seq_idx, causal=causal,
                             output_dtype=torch.float32)
    Cc, Bc = chunked(d(C), chunk_size), chunked(d(B), chunk_size)
    if ngroups:
        expected = torch.einsum("bclgn,bcsgn->bcgls", Cc, Bc)
    else:
        expected = torch.einsum("bcln,bcsn->bcls", Cc, Bc)
    if has_seq_idx:
        sc = chunked(seq_idx[..., None].long(), chunk_size)[..., 0]
        same = (sc[:, :, :, None] == sc[:, :, None, :]).double()
        expected = expected * (same[:, :, None] if ngroups else same)
    if causal:
        lower = torch.tril(torch.ones(chunk_size, chunk_size, dtype=torch.bool))
        out = out[..., lower]
        expected = expected[..., lower]
    check(out, expected, dtype, scale=2.0)


# (batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size, D, z, dtype)
CHUNK_SCAN_CASES = [
    (2, 40, 4, 12, 2, 10, 16, "h", True, "float32"),
    (1, 70, 3, 40, 1, 24, 32, "hp", False, "float32"),
    (1, 37, 2, 16, 1, 136, 32, None, True, "float32"),  # dstate > 128: the kernel's K loop
    (2, 40, 4, 16, 2, 16, 16, "h", True, "float16"),
]


@pytest.mark.parametrize("batch,seqlen,nheads,headdim,ngroups,dstate,chunk_size,D_kind,has_z,"
                         "dtype", CHUNK_SCAN_CASES)
def test_mamba_ssd_chunk_scan(batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size,
                              D_kind, has_z, dtype):
    """out_l = sum_{s <= l in the chunk} (C_l . B_s) exp(dA_cumsum[l] - dA_cumsum[s]) dt_s x_s
    + exp(dA_cumsum[l]) C_l . prev_state[c] + D x_l, then * silu(z_l) (out_x without)."""
    mod = mamba("ssd_chunk_scan")
    dtype = DTYPES[dtype]
    x, B, C, dt, dA_cumsum = ssd_inputs(batch, seqlen, nheads, headdim, ngroups, dstate,
                                        chunk_size, dtype=dtype)
    nchunks = dt.shape[2]
    prev = randn(batch, nchunks, nheads, headdim, dstate, seed=7, scale=0.5)
    D = {"h": randn(nheads, seed=8), "hp": randn(nheads, headdim, seed=8), None: None}[D_kind]
    z = randn(batch, seqlen, nheads, headdim, dtype=dtype, seed=9) if has_z else None
    Cc, Bc, xc = chunked(d(C), chunk_size), chunked(d(B), chunk_size), chunked(d(x), chunk_size)
    CB = torch.einsum("bclgn,bcsgn->bcgls", Cc, Bc)
    out, out_x = mod._chunk_scan_fwd(CB.float(), x, dt, dA_cumsum, C, prev, D=D, z=z)

    rep = nheads // ngroups
    dAc, dtc = d(dA_cumsum), d(dt)                                     # [b, h, c, l]
    CBh = CB.repeat_interleave(rep, dim=2)                             # [b, c, h, l, s]
    causal = torch.tril(torch.ones(chunk_size, chunk_size, dtype=torch.float64))
    decay = torch.exp(dAc[..., :, None] - dAc[..., None, :]).permute(0, 2, 1, 3, 4) * causal
    w = CBh * decay * dtc.permute(0, 2, 1, 3)[:, :, :, None, :]        # [b, c, h, l, s]
    y = torch.einsum("bchls,bcshp->bclhp", w, xc)
    Ch = Cc.repeat_interleave(rep, dim=3)                              # [b, c, l, h, n]
    y = y + torch.einsum("bclhn,bchpn->bclhp", Ch, d(prev)) * torch.exp(dAc).permute(0, 2, 3, 1)[..., None]
    y = y.reshape(batch, -1, nheads, headdim)[:, :seqlen]
    if D is not None:
        y = y + (d(D) if D.dim() == 2 else d(D)[:, None]) * d(x)
    scale = 3.0 if dtype == torch.float32 else 2.0
    if has_z:
        check(out_x, y, dtype, scale=scale, err_msg="out_x")
        y = y * F.silu(d(z))
    else:
        assert out_x is None
    check(out, y, dtype, scale=scale, err_msg="out")


# (batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size, D, z, dt_bias, dt_softplus,
#  dt_limit, initial_states, seq_idx, dtype)
COMBINED_CASES = [
    (2, 40, 4, 12, 2, 10, 16, "h", True, True, True, None, True, False, "float32"),
    (1, 77, 3, 20, 1, 32, 32, "hp", False, False, False, (0.02, 0.15), False, True, "float32"),
    (2, 64, 6, 8, 3, 16, 64, None, True, True, True, None, False, False, "float32"),
    (3, 50, 4, 16, 4, 24, 16, "h", True, True, True, None, True, True, "float32"),
    (2, 40, 4, 16, 2, 16, 16, "hp", True, True, True, None, False, False, "bfloat16"),
]


def combined_inputs(batch, seqlen, nheads, headdim, ngroups, dstate, D_kind, has_z,
                    has_dt_bias, dt_softplus, has_init, has_seq_idx, dtype, seed=0):
    x = randn(batch, seqlen, nheads, headdim, dtype=dtype, seed=seed + 1)
    dt = (randn(batch, seqlen, nheads, dtype=dtype, seed=seed + 2) - 1.0).to(dtype) if dt_softplus \
        else rand(batch, seqlen, nheads, dtype=dtype, seed=seed + 2, low=0.01, high=0.2)
    A = -rand(nheads, seed=seed + 3, low=0.5, high=4.0)
    B = randn(batch, seqlen, ngroups, dstate, dtype=dtype, seed=seed + 4)
    C = randn(batch, seqlen, ngroups, dstate, dtype=dtype, seed=seed + 5)
    D = {"h": randn(nheads, seed=seed + 6), "hp": randn(nheads, headdim, seed=seed + 6),
         None: None}[D_kind]
    z = randn(batch, seqlen, nheads, headdim, dtype=dtype, seed=seed + 7) if has_z else None
    dt_bias = rand(nheads, seed=seed + 8, low=-2.0, high=0.0) if has_dt_bias else None
    init = randn(batch, nheads, headdim, dstate, seed=seed + 9, scale=0.5) if has_init else None
    seq_idx = None
    if has_seq_idx:
        # Batch row b starts new sequences at tokens 13 + 7b and 32 + 5b (row 0's second
        # start on a chunk boundary for chunk sizes 16 and 32, the others mid-chunk).
        seq_idx = torch.zeros(batch, seqlen, dtype=torch.int32)
        for b in range(batch):
            seq_idx[b, 13 + 7 * b:] = 1
            seq_idx[b, min(seqlen - 1, 32 + 5 * b):] = 2
    return x, dt, A, B, C, D, z, dt_bias, init, seq_idx


@pytest.mark.parametrize("batch,seqlen,nheads,headdim,ngroups,dstate,chunk_size,D_kind,has_z,"
                         "has_dt_bias,dt_softplus,dt_limit,has_init,has_seq_idx,dtype",
                         COMBINED_CASES)
def test_mamba_chunk_scan_combined(batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size,
                                   D_kind, has_z, has_dt_bias, dt_softplus, dt_limit, has_init,
                                   has_seq_idx, dtype):
    """mamba_chunk_scan_combined (cumsum, chunk state, state passing, C B^T, chunk scan)
    against the token-by-token recurrence, with the final states."""
    mod = mamba("ssd_combined")
    dtype = DTYPES[dtype]
    x, dt, A, B, C, D, z, dt_bias, init, seq_idx = combined_inputs(
        batch, seqlen, nheads, headdim, ngroups, dstate, D_kind, has_z, has_dt_bias,
        dt_softplus, has_init, has_seq_idx, dtype)
    kwargs = dict(D=D, z=z, dt_bias=dt_bias, initial_states=init, seq_idx=seq_idx,
                  dt_softplus=dt_softplus, return_final_states=True)
    if dt_limit is not None:
        kwargs["dt_limit"] = dt_limit
    out, final = mod.mamba_chunk_scan_combined(x, dt, A, B, C, chunk_size, **kwargs)
    r_out, r_final = ssd_scan_reference(x, dt, A, B, C, D=D, z=z, dt_bias=dt_bias,
                                        dt_softplus=dt_softplus, dt_limit=dt_limit,
                                        initial_states=init, seq_idx=seq_idx)
    scale = 5.0 if dtype == torch.float32 else 3.0
    check(out, r_out, dtype, scale=scale, err_msg="out")
    check(final, r_final, dtype if dtype == torch.float32 else torch.bfloat16, scale=scale,
          err_msg="final_states")


def test_mamba_chunk_scan_combined_varlen_states():
    """return_varlen_states: batch 1 holding 3 sequences (cu_seqlens, with the matching
    seq_idx); each sequence's final state (chunk_state_varlen)."""
    mod = mamba("ssd_combined")
    seqlen, nheads, headdim, ngroups, dstate, chunk_size = 70, 4, 12, 2, 16, 16
    cu = [0, 21, 32, 70]
    x, dt, A, B, C, D, z, dt_bias, init, _ = combined_inputs(
        1, seqlen, nheads, headdim, ngroups, dstate, "h", True, True, True, False, False,
        torch.float32)
    seq_idx = torch.zeros(1, seqlen, dtype=torch.int32)
    for i in range(1, len(cu) - 1):
        seq_idx[0, cu[i]:] = i
    cu_seqlens = torch.tensor(cu, dtype=torch.int32)
    out, varlen = mod.mamba_chunk_scan_combined(x, dt, A, B, C, chunk_size, D=D, z=z,
                                                dt_bias=dt_bias, seq_idx=seq_idx,
                                                cu_seqlens=cu_seqlens, dt_softplus=True,
                                                return_varlen_states=True)
    r_out, _ = ssd_scan_reference(x, dt, A, B, C, D=D, z=z, dt_bias=dt_bias, dt_softplus=True,
                                  seq_idx=seq_idx)
    check(out, r_out, scale=5.0, err_msg="out")
    expected = torch.stack([
        ssd_scan_reference(x[:, s:e], dt[:, s:e], A, B[:, s:e], C[:, s:e], dt_bias=dt_bias,
                           dt_softplus=True)[1][0]
        for s, e in zip(cu[:-1], cu[1:])])
    check(varlen, expected, scale=5.0, err_msg="varlen_states")


def test_mamba_chunk_scan_combined_backward():
    """MambaChunkScanCombinedFn.backward (_mamba_chunk_scan_combined_bwd: the chunk scan,
    chunk state, state passing, bmm and cumsum backward kernels) against autograd through
    the float64 recurrence: dx, ddt, dA, dB, dC, dD, dz, ddt_bias, dinitial_states."""
    mod = mamba("ssd_combined")
    batch, seqlen, nheads, headdim, ngroups, dstate, chunk_size = 2, 40, 4, 12, 2, 10, 16
    x, dt, A, B, C, D, z, dt_bias, init, _ = combined_inputs(
        batch, seqlen, nheads, headdim, ngroups, dstate, "h", True, True, True, True, False,
        torch.float32)
    leaves = [x, dt, A, B, C, D, z, dt_bias, init]
    for t in leaves:
        t.requires_grad_()
    out = mod.mamba_chunk_scan_combined(x, dt, A, B, C, chunk_size, D=D, z=z, dt_bias=dt_bias,
                                        initial_states=init, dt_softplus=True)
    leaves64 = [d(t).requires_grad_() for t in leaves]
    x6, dt6, A6, B6, C6, D6, z6, b6, i6 = leaves64
    r_out, _ = ssd_scan_reference(x6, dt6, A6, B6, C6, D=D6, z=z6, dt_bias=b6, dt_softplus=True,
                                  initial_states=i6)
    check(out, r_out, scale=5.0, err_msg="out")
    g = randn(*out.shape, seed=20)
    out.backward(g)
    r_out.backward(d(g))
    names = ["dx", "ddt", "dA", "dB", "dC", "dD", "dz", "ddt_bias", "dinitial_states"]
    for name, t, t64 in zip(names, leaves, leaves64):
        # Gradients summed over the sequence (dA, dD, ddt_bias) carry more rounding.
        s = 50.0 if name in ("dA", "dD", "ddt_bias") else 10.0
        check(t.grad, t64.grad, scale=s, err_msg=name)
