"""FlagGems' compute kernels, unmodified (tests/python/libraries/flag_gems/: mm, bmm,
addmm, mv, scaled-dot-product attention, flash attention (with split KV, paged KV cache,
dropout), softmax, log_softmax, layer/RMS/group/weight norm, cross entropy, rotary
embedding, skip layernorm, fused add+RMS norm, conv2d, and gelu_and_mul/silu_and_mul
through FlagGems' pointwise_dynamic code generator; each file headed by its origin,
commit and the imports changed, flag_gems_shim2.py standing in for FlagGems' runtime),
called through FlagGems' own wrappers on torch CPU tensors and checked against float64
torch references written here, independently of the kernels: forward and, where FlagGems
has a Triton backward, backward.

Autotuned kernels are tuned on their first launch of a key (every config compiled and
timed: set BLOCKC_AUTOTUNE_REP_MS=0.25 to time briefly); `only_config` runs a wrapper with
one config of its tuner, so that each config's code path is checked, not only the
fastest one's.
"""

import contextlib
import math
import os
import sys
import tempfile

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from library_testing import DTYPES, FLOAT_DTYPES, check, load

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "libraries", "flag_gems")
# pointwise_dynamic writes the kernels it generates there (by default ~/.flaggems).
os.environ.setdefault("FLAGGEMS_CACHE_DIR", os.path.join(tempfile.gettempdir(),
                                                         "blockc-flag-gems-cache"))

def flag_gems(name):
    """libraries/flag_gems/<name>.py; its folder is on sys.path for the shims and the
    files it imports."""
    return load("flag_gems", name)


def randn(*shape, dtype=torch.float32, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(tuple(shape), generator=g, dtype=torch.float64) * scale).to(dtype)


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(tuple(shape), generator=g, dtype=torch.float64).to(dtype)



def grads(fn, inputs, dy):
    """The float64 gradients of sum(fn(*inputs) * dy) with respect to inputs."""
    xs = [x.detach().double().requires_grad_(True) for x in inputs]
    out = fn(*xs)
    out.backward(dy.double())
    return out.detach(), [x.grad for x in xs]


@contextlib.contextmanager
def only_config(tuner, index):
    """Within: `tuner` (an autotuned kernel) launches its config `index` alone, as
    if the tuner had chosen it; None leaves the tuner as it is."""
    if index is None:
        yield
        return
    configs, cache = tuner.configs, tuner.cache
    tuner.configs, tuner.cache = [configs[index]], {}
    try:
        yield
    finally:
        tuner.configs, tuner.cache = configs, cache


def acc_scale(dtype, k):
    """The tolerance scale of a k-term float32 sum: its rounding grows with k; a float16 or
    bfloat16 result's own rounding is larger than that."""
    return max(1.0, math.sqrt(k) / 4) if dtype == torch.float32 else 1.0


def layout(x, transposed):
    """x (rows, cols) as given, or the same values in a transposed buffer (a view
    with strides (1, rows))."""
    return x.t().contiguous().t() if transposed else x


# =====================================================================================
# Matrix products: mm, bmm, addmm, mv
# =====================================================================================

MM_SHAPES = [(37, 70, 50), (64, 128, 64), (1, 300, 17)]  # (M, K, N)


@pytest.mark.parametrize("shape", MM_SHAPES)
@pytest.mark.parametrize("trans", ["nn", "tn", "nt", "tt", "strided"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_mm(shape, trans, dtype):
    # mm_kernel_general, tuned on (M, N, K, stride_am, stride_bk): transposed operands
    # reach the kernel as strided views; a view strided both ways is made contiguous.
    dtype = DTYPES[dtype]
    mod = flag_gems("mm")
    M, K, N = shape
    if trans == "strided":
        a = randn(M, 2 * K, dtype=dtype, seed=1)[:, ::2]
        b = randn(K, 2 * N, dtype=dtype, seed=2)[:, ::2]
    else:
        a = layout(randn(M, K, dtype=dtype, seed=1), trans[0] == "t")
        b = layout(randn(K, N, dtype=dtype, seed=2), trans[1] == "t")
    c = mod.mm(a, b)
    assert c.dtype == dtype
    check(c, a.double() @ b.double(), dtype, acc_scale(dtype, K))


@pytest.mark.parametrize("config", [0, 1])
@pytest.mark.parametrize("shape", [(37, 70, 50), (130, 129, 65)])
def test_mm_each_config(config, shape):
    mod = flag_gems("mm")
    M, K, N = shape
    a = layout(randn(M, K, seed=3), True)
    b = randn(K, N, seed=4)
    with only_config(mod.mm_kernel_general, config):
        c = mod.mm(a, b)
    check(c, a.double() @ b.double(), torch.float32, acc_scale(torch.float32, K))


def test_mm_mixed_dtypes_and_out():
    # float16 @ float32: the kernel converts both to the output's float32.
    mod = flag_gems("mm")
    a = randn(20, 45, dtype=torch.float16, seed=5)
    b = randn(45, 33, seed=6)
    c = mod.mm(a, b)
    assert c.dtype == torch.float32
    check(c, a.double() @ b.double(), torch.float32, 4)
    out = torch.full((20, 33), float("nan"))
    a2 = randn(20, 45, seed=7)
    mod.mm_out(a2, b, out=out)
    check(out, a2.double() @ b.double(), torch.float32, 4)


@pytest.mark.parametrize("shape", [(2, 37, 50, 70), (3, 64, 32, 64), (1, 130, 40, 33)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_bmm(shape, dtype):
    # bmm_kernel with its DIVISIBLE_M/N/K heuristics (all true for the second shape).
    dtype = DTYPES[dtype]
    mod = flag_gems("bmm")
    batch, M, N, K = shape
    A = randn(batch, M, K, dtype=dtype, seed=1)
    B = randn(batch, K, N, dtype=dtype, seed=2)
    out = mod.bmm(A, B)
    check(out, A.double() @ B.double(), dtype, acc_scale(dtype, K))


@pytest.mark.parametrize("config", [0, 1])  # GROUP_M 1 (program ids as they come), 2 (reordered)
@pytest.mark.parametrize("shape", [(2, 130, 40, 33), (2, 64, 64, 64)])
def test_bmm_each_config(config, shape):
    mod = flag_gems("bmm")
    batch, M, N, K = shape
    A = randn(batch, M, K, seed=3)
    B = randn(batch, N, K, seed=4).transpose(1, 2)  # made contiguous by the wrapper
    with only_config(mod.bmm_kernel, config):
        out = mod.bmm(A, B)
    check(out, A.double() @ B.double(), torch.float32, acc_scale(torch.float32, K))


@pytest.mark.parametrize("shape", [(37, 70, 50), (64, 32, 96)])
@pytest.mark.parametrize("alpha,beta", [(1, 1), (0.5, -2.0)])
@pytest.mark.parametrize("trans", ["nn", "tt"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_addmm(shape, alpha, beta, trans, dtype):
    # beta * bias + alpha * mat1 @ mat2; mat1 is made contiguous, mat2 stays strided.
    dtype = DTYPES[dtype]
    mod = flag_gems("addmm")
    M, K, N = shape
    bias = randn(N, dtype=dtype, seed=1)
    a = layout(randn(M, K, dtype=dtype, seed=2), trans[0] == "t")
    b = layout(randn(K, N, dtype=dtype, seed=3), trans[1] == "t")
    out = mod.addmm(bias, a, b, beta=beta, alpha=alpha)
    ref = torch.addmm(bias.double(), a.double(), b.double(), beta=beta, alpha=alpha)
    check(out, ref, dtype, acc_scale(dtype, K))


@pytest.mark.parametrize("config", [0, 1])
@pytest.mark.parametrize("bias_shape", [(1,), (45,), (30, 1), (30, 45)])
def test_addmm_bias_and_configs(config, bias_shape):
    mod = flag_gems("addmm")
    a = randn(30, 77, seed=4)
    b = randn(77, 45, seed=5)
    bias = randn(*bias_shape, seed=6)
    with only_config(mod.addmm_kernel, config):
        out = mod.addmm(bias, a, b, beta=0.25, alpha=3.0)
    check(out, torch.addmm(bias.double(), a.double(), b.double(), beta=0.25, alpha=3.0),
          torch.float32, 8)
    out2 = torch.full((30, 45), float("nan"))
    with only_config(mod.addmm_kernel, config):
        mod.addmm_out(bias, a, b, beta=1.5, alpha=-1, out=out2)
    check(out2, torch.addmm(bias.double(), a.double(), b.double(), beta=1.5, alpha=-1),
          torch.float32, 8)


@pytest.mark.parametrize("shape", [(37, 300), (100, 17), (1, 64)])  # (N, M): inp is N x M
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_mv(shape, transposed, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("mv")
    N, M = shape
    inp = layout(randn(N, M, dtype=dtype, seed=1), transposed)
    vec = randn(2 * M, dtype=dtype, seed=2)[::2]  # a strided vector
    out = mod.mv(inp, vec)
    check(out, inp.double() @ vec.double(), dtype, acc_scale(dtype, M))


@pytest.mark.parametrize("config", [0, 1])
def test_mv_each_config(config):
    mod = flag_gems("mv")
    inp, vec = randn(45, 130, seed=3), randn(130, seed=4)
    with only_config(mod.mv_kernel, config):
        out = mod.mv(inp, vec)
    check(out, inp.double() @ vec.double(), torch.float32, 4)


# =====================================================================================
# softmax, log_softmax (forward and backward, along each dim)
# =====================================================================================

# (shape, dim): inner (last dim: one tile, or N > 32768 looped in tiles of 4096) and
# non-inner (one tile, or N looped when TILE_N = 8192 // TILE_K < N).
SOFTMAX_CASES = [((3, 37, 20), 0), ((3, 37, 20), 1), ((3, 37, 20), 2), ((5, 300), -1),
                 ((2, 300, 64), 1), ((2, 40000), 1), ((1, 1), 0)]


@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_softmax_forward(shape, dim, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("softmax")
    x = randn(*shape, dtype=dtype, seed=1, scale=3.0)
    out = mod.softmax(x, dim)
    assert out.dtype == dtype
    check(out, torch.softmax(x.double(), dim), dtype)
    if dtype != torch.float32:
        out = mod.softmax(x, dim, half_to_float=True)
        assert out.dtype == torch.float32
        check(out, torch.softmax(x.double(), dim), dtype, 0.2)


@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_softmax_backward(shape, dim, dtype):
    # in_grad = y * (dy - sum(y * dy)), y the softmax (given rounded to the dtype).
    dtype = DTYPES[dtype]
    mod = flag_gems("softmax")
    y = torch.softmax(randn(*shape, seed=1, scale=3.0, dtype=torch.float64), dim).to(dtype)
    dy = randn(*shape, dtype=dtype, seed=2)
    in_grad = mod.softmax_backward(dy, y, dim, dtype)
    yd, dyd = y.double(), dy.double()
    check(in_grad, yd * (dyd - (yd * dyd).sum(dim, keepdim=True)), dtype)


@pytest.mark.parametrize("config", [0, 1])
@pytest.mark.parametrize("shape,dim", [((2, 300, 64), 1), ((37, 300), 1), ((4, 20), 1)])
def test_softmax_backward_each_config(config, shape, dim):
    mod = flag_gems("softmax")
    tuner = mod.softmax_backward_kernel_non_inner if dim != len(shape) - 1 \
        else mod.softmax_backward_kernel_inner
    y = torch.softmax(randn(*shape, seed=3, dtype=torch.float64), dim).float()
    dy = randn(*shape, seed=4)
    with only_config(tuner, config):
        in_grad = mod.softmax_backward(dy, y, dim, torch.float32)
    yd, dyd = y.double(), dy.double()
    check(in_grad, yd * (dyd - (yd * dyd).sum(dim, keepdim=True)))


LOG_SOFTMAX_CASES = [((3, 37, 20), 0), ((3, 37, 20), 1), ((3, 37, 20), 2), ((5, 700), 1),
                     ((17, 3), 0)]


@pytest.mark.parametrize("shape,dim", LOG_SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_log_softmax_forward(shape, dim, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("log_softmax")
    x = randn(*shape, dtype=dtype, seed=1, scale=3.0)
    out = mod.log_softmax(x, dim)
    assert out.dtype == dtype
    check(out, torch.log_softmax(x.double(), dim), dtype, 2)
    if dtype != torch.float32:
        out = mod.log_softmax(x, dim, half_to_float=True)
        assert out.dtype == torch.float32
        check(out, torch.log_softmax(x.double(), dim), dtype, 0.2)


@pytest.mark.parametrize("shape,dim", LOG_SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("config", [None, 0, 1])
def test_log_softmax_backward(shape, dim, dtype, config):
    # in_grad = dy - exp(y) * sum(dy), y the log-softmax (given rounded to the dtype).
    dtype = DTYPES[dtype]
    mod = flag_gems("log_softmax")
    y = torch.log_softmax(randn(*shape, seed=1, scale=3.0, dtype=torch.float64), dim).to(dtype)
    dy = randn(*shape, dtype=dtype, seed=2)
    with only_config(mod.log_softmax_backward_kernel, config):
        in_grad = mod.log_softmax_backward(dy, y, dim, dtype)
    yd, dyd = y.double(), dy.double()
    check(in_grad, dyd - yd.exp() * dyd.sum(dim, keepdim=True), dtype, 2)


# =====================================================================================
# Normalisations: layer norm, RMS norm, skip layer norm, fused add + RMS norm, group
# norm, weight norm
# =====================================================================================

# N <= 128: several rows a program; N <= 4096: a row a program; else a looped row.
LAYER_NORM_SHAPES = [(37, 37), (5, 300), (3, 5000)]


def layer_norm_stats(x, eps):
    xd = x.double()
    mean = xd.mean(-1)
    rstd = 1 / torch.sqrt(((xd - mean[:, None]) ** 2).mean(-1) + eps)
    return mean, rstd


@pytest.mark.parametrize("shape", LAYER_NORM_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_layer_norm_forward(shape, affine, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("layernorm")
    M, N = shape
    x = randn(M, N, dtype=dtype, seed=1, scale=2.0) + 0.5
    w = randn(N, dtype=dtype, seed=2) if affine else None
    b = randn(N, dtype=dtype, seed=3) if affine else None
    y, mean, rstd = mod.layer_norm(x, (N,), w, b, eps=1e-5)
    ref = F.layer_norm(x.double(), (N,), None if w is None else w.double(),
                       None if b is None else b.double(), eps=1e-5)
    check(y, ref, dtype, 2)
    ref_mean, ref_rstd = layer_norm_stats(x, 1e-5)
    check(mean, ref_mean, dtype)
    check(rstd, ref_rstd, dtype, 2)


def test_layer_norm_forward_3d():
    mod = flag_gems("layernorm")
    x, w, b = randn(2, 3, 37, seed=1), randn(3, 37, seed=2), randn(3, 37, seed=3)
    y, _, _ = mod.layer_norm(x, (3, 37), w, b, eps=1e-6)
    check(y, F.layer_norm(x.double(), (3, 37), w.double(), b.double(), eps=1e-6))


@pytest.mark.parametrize("shape", LAYER_NORM_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_layer_norm_backward(shape, affine, dtype):
    # layer_norm_backward_kernel (dx) and weight_bias_backward_kernel (dw, db), given
    # mean and rstd as the forward stores them (in the input's dtype).
    dtype = DTYPES[dtype]
    mod = flag_gems("layernorm")
    M, N = shape
    eps = 1e-5
    x = randn(M, N, dtype=dtype, seed=1, scale=2.0) + 0.5
    w = randn(N, dtype=dtype, seed=2) if affine else None
    b = randn(N, dtype=dtype, seed=3) if affine else None
    dy = randn(M, N, dtype=dtype, seed=4)
    mean, rstd = (t.to(dtype) for t in layer_norm_stats(x, eps))
    mask = [True, affine, affine]
    dx, dw, db = mod.layer_norm_backward(dy, x, (N,), mean, rstd, w, b, output_mask=mask)
    inputs = [x, w, b] if affine else [x]
    _, ref = grads(lambda x, w=None, b=None: F.layer_norm(x, (N,), w, b, eps), inputs, dy)
    check(dx, ref[0], dtype, 4)
    if affine:
        check(dw, ref[1], dtype, math.sqrt(M) * 2)
        check(db, ref[2], dtype, math.sqrt(M) * 2)
    else:
        assert dw is None and db is None


@pytest.mark.parametrize("config", [0, 1])
def test_layer_norm_backward_each_config(config):
    mod = flag_gems("layernorm")
    M, N = 130, 70
    x, w, b, dy = randn(M, N, seed=1), randn(N, seed=2), randn(N, seed=3), randn(M, N, seed=4)
    mean, rstd = (t.float() for t in layer_norm_stats(x, 1e-5))
    with only_config(mod.layer_norm_backward_kernel, config), \
            only_config(mod.weight_bias_backward_kernel, config):
        dx, dw, db = mod.layer_norm_backward(dy, x, (N,), mean, rstd, w, b,
                                             output_mask=[True, True, True])
    _, ref = grads(lambda x, w, b: F.layer_norm(x, (N,), w, b, 1e-5), [x, w, b], dy)
    check(dx, ref[0], torch.float32, 4)
    check(dw, ref[1], torch.float32, 20)
    check(db, ref[2], torch.float32, 20)


def rms_norm_ref(x, w, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


@pytest.mark.parametrize("shape", [(4, 37), (3, 5, 300), (33, 1000)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rms_norm_forward_backward(shape, dtype):
    # rms_norm_kernel; backward rms_norm_grad_dx_kernel and rms_norm_grad_dw_kernel
    # (16-row x 256-column partial sums, summed by torch).
    dtype = DTYPES[dtype]
    mod = flag_gems("rms_norm")
    N = shape[-1]
    x = randn(*shape, dtype=dtype, seed=1).requires_grad_(True)
    w = (randn(N, dtype=dtype, seed=2) + 1.0).requires_grad_(True)
    dy = randn(*shape, dtype=dtype, seed=3)
    y = mod.rms_norm(x, (N,), w, eps=1e-6)
    y.backward(dy)
    ref, (dx, dw) = grads(lambda x, w: rms_norm_ref(x, w, 1e-6), [x, w], dy)
    check(y, ref, dtype, 2)
    check(x.grad, dx, dtype, 4)
    rows = math.prod(shape[:-1])
    check(w.grad, dw, dtype, math.sqrt(rows) * (2 if dtype == torch.float32 else 4))


@pytest.mark.parametrize("shape", [(4, 37), (3, 5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_fused_add_rms_norm(shape, dtype):
    # In place: residual becomes x + residual, x its RMS norm.
    dtype = DTYPES[dtype]
    mod = flag_gems("fused_add_rms_norm")
    N = shape[-1]
    x, r = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    w = randn(N, dtype=dtype, seed=3)
    s = x.double() + r.double()
    y, res = mod.fused_add_rms_norm(x, r, (N,), w, eps=1e-5)
    assert y.data_ptr() == x.data_ptr() and res.data_ptr() == r.data_ptr()
    check(r, s, dtype)
    check(x, rms_norm_ref(s, w.double(), 1e-5), dtype, 2)


@pytest.mark.parametrize("shape", [(4, 37), (3, 5, 300)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_skip_layer_norm(shape, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("skip_layernorm")
    N = shape[-1]
    x, r = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    w, b = randn(N, dtype=dtype, seed=3), randn(N, dtype=dtype, seed=4)
    y = mod.skip_layer_norm(x, r, (N,), w, b, eps=1e-5)
    ref = F.layer_norm(x.double() + r.double(), (N,), w.double(), b.double(), eps=1e-5)
    check(y, ref, dtype, 2)


@pytest.mark.parametrize("N,C,HW,groups", [(2, 6, 25, 3), (3, 8, 7, 2), (1, 5, 16, 5)])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_group_norm_forward_backward(N, C, HW, groups, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("groupnorm")
    eps = 1e-5
    x = randn(N, C, HW, dtype=dtype, seed=1, scale=2.0) + 1.0
    w, b = randn(C, dtype=dtype, seed=2), randn(C, dtype=dtype, seed=3)
    y, mean, rstd = mod.group_norm(x, w, b, N, C, HW, groups, eps)
    xg = x.double().reshape(N, groups, -1)
    ref_mean = xg.mean(-1)
    ref_rstd = 1 / torch.sqrt(xg.var(-1, unbiased=False) + eps)
    check(y, F.group_norm(x.double(), groups, w.double(), b.double(), eps), dtype, 2)
    check(mean, ref_mean, dtype)
    check(rstd, ref_rstd, dtype, 2)

    dy = randn(N, C, HW, dtype=dtype, seed=4)
    mean_in, rstd_in = ref_mean.to(dtype), ref_rstd.to(dtype)
    dx, dw, db = mod.group_norm_backward(dy, x, mean_in, rstd_in, w, N, C, HW, groups,
                                         [True, True, True])
    _, ref = grads(lambda x, w, b: F.group_norm(x, groups, w, b, eps), [x, w, b], dy)
    check(dx, ref[0], dtype, 4)
    check(dw, ref[1], dtype, math.sqrt(N * HW))
    check(db, ref[2], dtype, math.sqrt(N * HW))


def weight_norm_ref(v, g, dim):
    dims = [d for d in range(v.ndim) if d != dim]
    return v * (g / (v * v).sum(dims, keepdim=True).sqrt())


# dim 0 and the last dim: weight_norm_kernel_first/_last (weightnorm.py); a middle dim:
# weight_norm_except_dim_kernel (weight_norm.py). Sizes past one block loop.
WEIGHT_NORM_CASES = [((10, 600), 0), ((8, 5, 7), 0), ((600, 10), 1), ((4, 3, 9), 2),
                     ((3, 6, 100), 1), ((5, 3, 2, 4), 2)]


@pytest.mark.parametrize("shape,dim", WEIGHT_NORM_CASES)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_weight_norm(shape, dim, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("weight_norm")
    gshape = [s if d == dim else 1 for d, s in enumerate(shape)]
    v = randn(*shape, dtype=dtype, seed=1).requires_grad_(True)
    g = (randn(*gshape, dtype=dtype, seed=2) + 2.0).requires_grad_(True)
    dy = randn(*shape, dtype=dtype, seed=3)
    out = mod.weight_norm(v, g, dim)
    out.backward(dy)
    ref, (dv, dg) = grads(lambda v, g: weight_norm_ref(v, g, dim), [v, g], dy)
    check(out, ref, dtype, 2)
    check(v.grad, dv, dtype, 4)
    reduced = math.prod(shape) // shape[dim]
    check(g.grad, dg, dtype, math.sqrt(reduced))


@pytest.mark.parametrize("config", [0, 1])
@pytest.mark.parametrize("shape,dim", [((10, 600), 0), ((600, 10), 1)])
def test_weight_norm_interface_each_config(config, shape, dim):
    mod = flag_gems("weight_norm")  # weight_norm_interface is weightnorm.py's
    gshape = [s if d == dim else 1 for d, s in enumerate(shape)]
    v, g = randn(*shape, seed=1), randn(*gshape, seed=2)
    dy = randn(*shape, seed=3)
    wn = sys.modules["weightnorm"]
    fwd = wn.weight_norm_kernel_first if dim == 0 else wn.weight_norm_kernel_last
    bwd = wn.weight_norm_bwd_kernel_first if dim == 0 else wn.weight_norm_bwd_kernel_last
    with only_config(fwd, config), only_config(bwd, config):
        out, norm = mod.weight_norm_interface(v, g, dim)
        dv, dg = mod.weight_norm_interface_backward(dy, v, g, norm, dim)
    ref, (rdv, rdg) = grads(lambda v, g: weight_norm_ref(v, g, dim), [v, g], dy)
    check(out, ref, torch.float32, 2)
    check(norm.reshape(-1), v.double().norm(dim=1 - dim), torch.float32, 4)
    check(dv, rdv, torch.float32, 4)
    check(dg, rdg, torch.float32, 40)


# =====================================================================================
# pointwise_dynamic (FlagGems' generator of a kernel and wrapper per rank and layout):
# gelu_and_mul, silu_and_mul, forward and backward
# =====================================================================================

POINTWISE_CASES = [((37,), False), ((4, 50), False), ((3, 5, 33), False), ((40, 6), True)]


def pointwise_inputs(shape, strided, dtype, seed):
    """A tensor of `shape`: contiguous, or a transposed view of a contiguous one."""
    if strided:
        return randn(*reversed(shape), dtype=dtype, seed=seed).t()
    return randn(*shape, dtype=dtype, seed=seed)


@pytest.mark.parametrize("shape,strided", POINTWISE_CASES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gelu_and_mul(shape, strided, approximate, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("gelu_and_mul")
    x = pointwise_inputs(shape, strided, dtype, 1).requires_grad_(True)
    y = pointwise_inputs(shape, strided, dtype, 2).requires_grad_(True)
    dy = randn(*shape, dtype=dtype, seed=3)
    out = mod.gelu_and_mul(x, y, approximate)
    out.backward(dy)
    ref, (dx, dyy) = grads(lambda x, y: F.gelu(x, approximate=approximate) * y, [x, y], dy)
    check(out, ref, dtype, 2)
    check(x.grad, dx, dtype, 4)
    check(y.grad, dyy, dtype, 2)


@pytest.mark.parametrize("shape,strided", POINTWISE_CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_silu_and_mul(shape, strided, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("silu_and_mul")
    x = pointwise_inputs(shape, strided, dtype, 1).requires_grad_(True)
    y = pointwise_inputs(shape, strided, dtype, 2).requires_grad_(True)
    dy = randn(*shape, dtype=dtype, seed=3)
    out = mod.silu_and_mul(x, y)
    out.backward(dy)
    ref, (dx, dyy) = grads(lambda x, y: F.silu(x) * y, [x, y], dy)
    check(out, ref, dtype, 2)
    check(x.grad, dx, dtype, 4)
    check(y.grad, dyy, dtype, 2)


def test_silu_and_mul_broadcast_out():
    # Operands broadcast to the output's shape; the result written into `out`.
    mod = flag_gems("silu_and_mul")
    x, y = randn(5, 1, 33, seed=1), randn(4, 33, seed=2)
    out = torch.full((5, 4, 33), float("nan"))
    mod.silu_and_mul_out(x, y, out)
    check(out, F.silu(x.double()) * y.double(), torch.float32, 2)


# =====================================================================================
# Cross entropy (indices with ignore_index, with label smoothing, probabilities)
# =====================================================================================

CE_SHAPES = [(6, 10), (3, 300, 5)]  # (N, C) and (N, C, D): C past one 256-block


@pytest.mark.parametrize("shape", CE_SHAPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.15])
def test_cross_entropy_indices(shape, reduction, weighted, label_smoothing):
    # ignore_index is one of the classes, so that the kernels' loads of the ignored
    # target's logit and weight stay in bounds.
    mod = flag_gems("cross_entropy_loss")
    C = shape[1]
    ignore_index = 3
    x = randn(*shape, seed=1, scale=2.0).requires_grad_(True)
    tshape = (shape[0],) + shape[2:]
    target = torch.randint(0, C, tshape, generator=torch.Generator().manual_seed(2))
    target.view(-1)[::3] = ignore_index
    weight = rand(C, seed=3) + 0.5 if weighted else None
    loss = mod.cross_entropy_loss(x, target, weight, reduction, ignore_index, label_smoothing)
    dy = randn(*loss.shape, seed=4)
    loss.backward(dy)
    ref_fn = lambda x: F.cross_entropy(  # noqa: E731
        x, target, None if weight is None else weight.double(), reduction=reduction,
        ignore_index=ignore_index, label_smoothing=label_smoothing)
    ref, (dx,) = grads(ref_fn, [x], dy)
    check(loss, ref, torch.float32, 4)
    check(x.grad, dx, torch.float32, 4)


@pytest.mark.parametrize("shape", CE_SHAPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
def test_cross_entropy_probabilities(shape, reduction, weighted, label_smoothing):
    mod = flag_gems("cross_entropy_loss")
    C = shape[1]
    x = randn(*shape, seed=1, scale=2.0).requires_grad_(True)
    target = torch.softmax(randn(*shape, seed=2, scale=2.0), 1)
    weight = rand(C, seed=3) + 0.5 if weighted else None
    loss = mod.cross_entropy_loss(x, target, weight, reduction, -100, label_smoothing)
    dy = randn(*loss.shape, seed=4)
    loss.backward(dy)
    ref_fn = lambda x: F.cross_entropy(  # noqa: E731
        x, target.double(), None if weight is None else weight.double(),
        reduction=reduction, label_smoothing=label_smoothing)
    ref, (dx,) = grads(ref_fn, [x], dy)
    check(loss, ref, torch.float32, 4)
    check(x.grad, dx, torch.float32, 4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_cross_entropy_half(dtype, label_smoothing):
    dtype = DTYPES[dtype]
    mod = flag_gems("cross_entropy_loss")
    x = randn(8, 40, dtype=dtype, seed=1, scale=2.0).requires_grad_(True)
    target = torch.randint(0, 40, (8,), generator=torch.Generator().manual_seed(2))
    loss = mod.cross_entropy_loss(x, target, None, "mean", -100, label_smoothing)
    assert loss.dtype == dtype
    loss.backward()
    ref, (dx,) = grads(lambda x: F.cross_entropy(x, target, label_smoothing=label_smoothing),
                       [x], torch.tensor(1.0, dtype=torch.float64))
    check(loss, ref, dtype)
    check(x.grad, dx, dtype, 0.1)


@pytest.mark.parametrize("config", [0, 1])
def test_cross_entropy_each_config(config):
    mod = flag_gems("cross_entropy_loss")
    x = randn(2, 300, 7, seed=1).requires_grad_(True)
    target = torch.randint(0, 300, (2, 7), generator=torch.Generator().manual_seed(2))
    with only_config(mod.celoss_indices_kernel, config), \
            only_config(mod.celoss_indices_bwd, config):
        loss = mod.cross_entropy_loss(x, target, None, "sum", -100, 0.0)
        loss.backward()
    ref, (dx,) = grads(lambda x: F.cross_entropy(x, target, reduction="sum"), [x],
                       torch.tensor(1.0, dtype=torch.float64))
    check(loss, ref, torch.float32, 10)
    check(x.grad, dx, torch.float32, 4)


# =====================================================================================
# Rotary embedding
# =====================================================================================

def rope_ref(x, cos, sin, pos, interleaved):
    """x (..., heads, d); cos/sin (max_pos, d/2) taken at pos (x's leading shape)."""
    x = x.double()
    c = cos.double()[pos][..., None, :]
    s = sin.double()[pos][..., None, :]
    if interleaved:
        x1, x2 = x[..., 0::2], x[..., 1::2]
        out = torch.stack([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
        return out.flatten(-2)
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


@pytest.mark.parametrize("head_dim", [64, 48, 8])
@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("positions", [True, False])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rotary_embedding(head_dim, interleaved, inplace, positions, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("rotary_embedding")
    max_pos = 16
    angles = rand(max_pos, head_dim // 2, seed=1, dtype=torch.float64) * 6.0
    cos, sin = angles.cos().to(dtype), angles.sin().to(dtype)
    if positions:  # (tokens, heads, d) with a position each
        q = randn(7, 4, head_dim, dtype=dtype, seed=2)
        k = randn(7, 2, head_dim, dtype=dtype, seed=3)
        pos = torch.randint(0, max_pos, (7,), generator=torch.Generator().manual_seed(4))
        pos_arg = pos
    else:  # (batch, seq, heads, d): positions 0..seq-1
        q = randn(2, 5, 4, head_dim, dtype=dtype, seed=2)
        k = randn(2, 5, 2, head_dim, dtype=dtype, seed=3)
        pos = torch.arange(5).expand(2, 5)
        pos_arg = None
    ref_q = rope_ref(q, cos, sin, pos, interleaved)
    ref_k = rope_ref(k, cos, sin, pos, interleaved)
    q_in, k_in = q.clone(), k.clone()
    q_out, k_out = mod.apply_rotary_pos_emb(q_in, k_in, cos, sin, pos_arg,
                                            rotary_interleaved=interleaved, inplace=inplace)
    check(q_out, ref_q, dtype, 2)
    check(k_out, ref_k, dtype, 2)
    if inplace:
        check(q_in, ref_q, dtype, 2)
        check(k_in, ref_k, dtype, 2)
    else:
        assert torch.equal(q_in, q) and torch.equal(k_in, k)


# =====================================================================================
# Scaled dot-product attention (forward; causal backward)
# =====================================================================================

def attention_ref(q, k, v, scale, causal, mask=None):
    q, k, v = q.double(), k.double(), v.double()
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    s = q @ k.transpose(-1, -2) * scale
    if mask is not None:
        s = s + mask.double()
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


# ((batch, q heads, kv heads, q len, kv len, head dim), causal): FlagGems' causal mask is
# the square one (q len == kv len).
ATTENTION_CASES = [((1, 2, 2, 64, 64, 32), False), ((1, 2, 2, 64, 64, 32), True),
                   ((2, 2, 2, 37, 50, 16), False), ((1, 3, 3, 100, 100, 64), True),
                   ((1, 4, 2, 40, 40, 32), False), ((1, 4, 2, 40, 40, 32), True)]


# float16 on every case; float32 and bfloat16 on the first shape (to keep the time down).
ATTENTION_PARAMS = [(shape, causal, "float16") for shape, causal in ATTENTION_CASES] + \
    [(shape, causal, dtype) for shape, causal in ATTENTION_CASES[:2]
     for dtype in ("float32", "bfloat16")]


@pytest.mark.parametrize("shape,causal,dtype", ATTENTION_PARAMS)
def test_attention_forward(shape, causal, dtype):
    # _attn_fwd: STAGE 1 (every key block) or 3 (blocks left of the diagonal, then the
    # diagonal block masked); grouped heads where kv heads < q heads.
    B, HQ, HK, LQ, LK, D = shape
    dtype = DTYPES[dtype]
    mod = flag_gems("attention")
    q = randn(B, HQ, LQ, D, dtype=dtype, seed=1)
    k = randn(B, HK, LK, D, dtype=dtype, seed=2)
    v = randn(B, HK, LK, D, dtype=dtype, seed=3)
    out = mod.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=HQ != HK)
    check(out, attention_ref(q, k, v, 1 / math.sqrt(D), causal), dtype, 2)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_attention_forward_mask_and_scale(causal, dtype):
    # An additive float mask of 0 and -1e4 (FlagGems adds it to the log2-scaled scores
    # off the diagonal, to the natural ones on it: with these values both are torch's
    # result), and a scale of its own.
    dtype = DTYPES[dtype]
    mod = flag_gems("attention")
    B, H, L, D = 2, 2, 48, 32
    q, k, v = (randn(B, H, L, D, dtype=dtype, seed=s) for s in (1, 2, 3))
    keep = rand(B, H, L, L, seed=4) < 0.7
    keep[..., 0] = True
    mask = torch.where(keep, 0.0, -1.0e4).to(dtype)
    out = mod.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal,
                                           scale=0.3)
    check(out, attention_ref(q, k, v, 0.3, causal, mask), dtype, 2)


@pytest.mark.parametrize("shape,dtype", [((1, 2, 2, 128, 128, 32), "float32"),
                                         ((1, 2, 2, 128, 128, 32), "float16"),
                                         ((2, 1, 1, 256, 256, 16), "float16"),
                                         ((1, 4, 2, 128, 128, 32), "bfloat16")])
def test_attention_causal_backward(shape, dtype):
    # _attn_bwd_preprocess and _attn_bwd (the Triton tutorial's causal backward; the
    # lengths are multiples of its 128-row blocks, as it asks).
    B, HQ, HK, L, _, D = shape
    dtype = DTYPES[dtype]
    mod = flag_gems("attention")
    q = randn(B, HQ, L, D, dtype=dtype, seed=1).requires_grad_(True)
    k = randn(B, HK, L, D, dtype=dtype, seed=2).requires_grad_(True)
    v = randn(B, HK, L, D, dtype=dtype, seed=3).requires_grad_(True)
    do = randn(B, HQ, L, D, dtype=dtype, seed=4)
    out = mod.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=HQ != HK)
    out.backward(do)
    scale = 1 / math.sqrt(D)
    ref, (dq, dk, dv) = grads(lambda q, k, v: attention_ref(q, k, v, scale, True), [q, k, v], do)
    check(out, ref, dtype, 2)
    check(q.grad, dq, dtype, 10)
    check(k.grad, dk, dtype, 10)
    check(v.grad, dv, dtype, 10)


# =====================================================================================
# Flash attention (flash_api.py, flash_kernel.py): attention.flash_attention_forward
# and attention.flash_attn_varlen_func (paged KV cache)
# =====================================================================================

def flash_ref(q, k, v, scale, causal=False, window=(-1, -1), softcap=0.0, alibi=None):
    """q (Sq, H, D), k and v (Sk, Hk, D): FlashAttention-2's output (Sq, H, D) and
    logsumexp (H, Sq): causal and window masks aligned to the bottom right, scores
    softcap * tanh(s / softcap), alibi bias -slope * |i + Sk - Sq - j|; a row with no key
    left gives 0 (and an infinite logsumexp)."""
    q, k, v = q.double(), k.double(), v.double()
    Sq, H, D = q.shape
    Sk, Hk, _ = k.shape
    k = k.repeat_interleave(H // Hk, dim=1)
    v = v.repeat_interleave(H // Hk, dim=1)
    s = torch.einsum("qhd,khd->hqk", q, k) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    i = torch.arange(Sq)[:, None]
    j = torch.arange(Sk)[None, :]
    if alibi is not None:
        s = s - alibi.double()[:, None, None] * (i + Sk - Sq - j).abs()
    left, right = window
    if causal:
        right = 0
    allowed = torch.ones(Sq, Sk, dtype=torch.bool)
    if right >= 0:
        allowed &= j <= i + Sk - Sq + right
    if left >= 0:
        allowed &= j >= i + Sk - Sq - left
    s = s.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.nan_to_num(torch.exp(s - lse[..., None]), nan=0.0)
    out = torch.einsum("hqk,khd->qhd", p, v)
    return out, torch.where(allowed.any(-1), lse, torch.tensor(float("inf")))


# (batch, q len, kv len, q heads, kv heads, head dim) and the options; 4 stand-in SMs make
# small problems split the keys (flash_fwd_splitkv_kernel + combine) unless disabled.
FLASH_CASES = {
    "even": ((1, 128, 128, 2, 2, 64), dict(disable_splitkv=True)),
    "plain": ((2, 37, 70, 2, 2, 32), dict(disable_splitkv=True)),
    "causal_q_longer": ((1, 50, 40, 2, 2, 32), dict(is_causal=True, disable_splitkv=True)),
    "causal_gqa_alibi": ((2, 80, 80, 4, 2, 32), dict(is_causal=True, alibi=True,
                                                     disable_splitkv=True)),
    "local": ((1, 100, 100, 2, 2, 32), dict(window=(16, 8))),
    "softcap_alibi": ((1, 37, 70, 2, 1, 64), dict(softcap=20.0, alibi=True,
                                                  disable_splitkv=True)),
    "splitkv": ((1, 20, 300, 1, 1, 64), dict()),
    "splitkv_causal": ((1, 64, 300, 1, 1, 32), dict(is_causal=True)),
    "decode_gqa": ((2, 1, 70, 4, 2, 32), dict()),
}


@pytest.mark.parametrize("case,dtype", [(case, "float16") for case in FLASH_CASES] +
                         [(case, "bfloat16") for case in ("plain", "causal_gqa_alibi", "splitkv")])
def test_flash_attention_forward(case, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("attention")
    (B, Sq, Sk, H, Hk, D), opts = FLASH_CASES[case]
    q = randn(B, Sq, H, D, dtype=dtype, seed=1)
    k = randn(B, Sk, Hk, D, dtype=dtype, seed=2)
    v = randn(B, Sk, Hk, D, dtype=dtype, seed=3)
    scale = 0.7 / math.sqrt(D)
    window = opts.get("window", (None, None))
    alibi = rand(H, seed=4) * 0.3 if opts.get("alibi") else None
    out, lse, *_ = mod.flash_attention_forward(
        q, k, v, None, None, Sq, Sk, 0.0, opts.get("is_causal", False), False, scale=scale,
        softcap=opts.get("softcap", 0.0), window_size_left=window[0],
        window_size_right=window[1], alibi_slopes=alibi,
        disable_splitkv=opts.get("disable_splitkv", False))
    lse = lse.reshape(B, H, Sq)
    for b in range(B):
        ref, ref_lse = flash_ref(q[b], k[b], v[b], scale, opts.get("is_causal", False),
                                 tuple(-1 if w is None else w for w in window),
                                 opts.get("softcap", 0.0), alibi)
        check(out[b], ref, dtype, 2, err_msg=f"batch {b}")
        if not (alibi is not None and opts.get("is_causal")):  # a row-constant bias there
            check(lse[b], ref_lse, dtype, 0.2, err_msg=f"batch {b}")


def test_flash_attention_dropout():
    # The dropout mask comes back in the sign bits of the debug softmax (p): the output
    # must be softmax * keep / (1 - p) @ v for that mask, which keeps about 1 - p.
    mod = flag_gems("attention")
    B, S, H, D, p_drop = 2, 64, 2, 32, 0.3
    q, k, v = (randn(B, S, H, D, dtype=torch.float16, seed=s) for s in (1, 2, 3))
    scale = 1 / math.sqrt(D)
    out, lse, _, _, p = mod.flash_attention_forward(q, k, v, None, None, S, S, p_drop,
                                                     False, True, scale=scale)
    keep = ~torch.signbit(p[:, :, :S, :S])
    assert abs(keep.double().mean().item() - (1 - p_drop)) < 0.03
    for b in range(B):
        s = torch.einsum("qhd,khd->hqk", q[b].double(), k[b].double()) * scale
        probs = torch.softmax(s, -1) * keep[b] / (1 - p_drop)
        check(out[b], torch.einsum("hqk,khd->qhd", probs, v[b].double()), torch.float16, 2)


@pytest.mark.parametrize("causal,window,softcap,alibi", [(False, None, 0.0, False),
                                                         (True, None, 0.0, True),
                                                         (False, (24, 4), 10.0, False)])
def test_flash_attn_varlen_paged(causal, window, softcap, alibi):
    # flash_varlen_fwd_kernel: sequences packed along q (cu_seqlens_q), keys in a paged
    # cache read through a block table, lengths from seqused_k.
    mod = flag_gems("attention")
    dtype = torch.float16
    H, Hk, D, block = 4, 2, 32, 16
    q_lens, k_lens = [5, 40, 1], [37, 60, 20]
    total_q = sum(q_lens)
    pages_per_seq = [triton_cdiv(n, block) for n in k_lens]
    num_pages = sum(pages_per_seq) + 3
    perm = torch.randperm(num_pages, generator=torch.Generator().manual_seed(5))
    block_table = torch.zeros(len(k_lens), max(pages_per_seq), dtype=torch.int32)
    start = 0
    for b, n in enumerate(pages_per_seq):
        block_table[b, :n] = perm[start:start + n].int()
        start += n
    q = randn(total_q, H, D, dtype=dtype, seed=1)
    k_cache = randn(num_pages, block, Hk, D, dtype=dtype, seed=2)
    v_cache = randn(num_pages, block, Hk, D, dtype=dtype, seed=3)
    cu_q = torch.tensor([0] + list(np.cumsum(q_lens)), dtype=torch.int32)
    seqused_k = torch.tensor(k_lens, dtype=torch.int32)
    slopes = rand(H, seed=4) * 0.3 if alibi else None
    scale = 1 / math.sqrt(D)
    out, lse = mod.flash_attn_varlen_func(
        q, k_cache, v_cache, max(q_lens), cu_q, max(k_lens), seqused_k=seqused_k,
        softmax_scale=scale, causal=causal, window_size=window, softcap=softcap,
        alibi_slopes=slopes, block_table=block_table, return_softmax_lse=True)
    for b in range(len(q_lens)):
        rows = slice(int(cu_q[b]), int(cu_q[b + 1]))
        idx = torch.arange(k_lens[b])
        pages = block_table[b, idx // block].long()
        kb, vb = k_cache[pages, idx % block], v_cache[pages, idx % block]
        ref, ref_lse = flash_ref(q[rows], kb, vb, scale, causal, window or (-1, -1), softcap,
                                 slopes)
        check(out[rows], ref, dtype, 2, err_msg=f"sequence {b}")
        if not (alibi and causal):
            check(lse[:, rows], ref_lse, dtype, 0.2, err_msg=f"sequence {b}")


def triton_cdiv(a, b):
    return (a + b - 1) // b


# =====================================================================================
# conv2d (forward; backward: input through the forward kernel, weight its own kernel)
# =====================================================================================

# (input shape, weight shape, stride, padding, dilation, groups, bias)
CONV_CASES = [((2, 3, 9, 9), (4, 3, 3, 3), 1, 1, 1, 1, True),
              ((2, 4, 8, 8), (6, 2, 3, 3), 2, 1, 1, 2, False),
              ((1, 2, 7, 7), (3, 2, 2, 2), 1, 0, 2, 1, True),
              ((3, 6, 6, 5), (40, 3, 3, 2), (2, 1), (0, 1), 1, 2, True)]


@pytest.mark.parametrize("case,dtype", [(case, "float32") for case in CONV_CASES] +
                         [(case, "float16") for case in CONV_CASES[:2]])
def test_conv2d(case, dtype):
    dtype = DTYPES[dtype]
    mod = flag_gems("conv2d")
    ishape, wshape, stride, padding, dilation, groups, has_bias = case
    x = randn(*ishape, dtype=dtype, seed=1).requires_grad_(True)
    w = randn(*wshape, dtype=dtype, seed=2).requires_grad_(True)
    b = randn(wshape[0], dtype=dtype, seed=3).requires_grad_(True) if has_bias else None
    out = mod.conv2d(x, w, b, stride, padding, dilation, groups)
    dy = randn(*out.shape, dtype=dtype, seed=4)
    out.backward(dy)
    inputs = [x, w] + ([b] if has_bias else [])
    ref, ref_grads = grads(lambda x, w, b=None: F.conv2d(x, w, b, stride, padding, dilation,
                                                         groups), inputs, dy)
    reduce = math.sqrt(math.prod(wshape[1:]))
    check(out, ref, dtype, reduce)
    check(x.grad, ref_grads[0], dtype, reduce * 2)
    check(w.grad, ref_grads[1], dtype, math.sqrt(ishape[0] * out.shape[2] * out.shape[3]) * 2)
    if has_bias:
        check(b.grad, ref_grads[2], dtype, 10)
