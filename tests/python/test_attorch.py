"""attorch's Triton kernels, unmodified (tests/python/libraries/attorch/, each file headed by
its origin, commit and the imports changed), launched through attorch's own autograd
Functions and modules on torch CPU tensors and checked against references written here with
torch in float64 from the math, independently of the kernels:

- activations (ActFuncAutoGrad: all 21, parameterised ones included), forward and backward,
  and with fused dropout (the mask drawn with tl.rand, the same in the backward);
- Dropout, GLU (with several gate activations);
- Softmax, LogSoftmax, Softmin (SoftmaxAutoGrad), with the several-rows-per-program path;
- LayerNorm and RMSNorm, forward and backward (weight and bias gradients included);
- BatchNorm1d/2d: training (statistics, running statistics), evaluation, the fused residual
  and activation, backward;
- Linear with fused bias and activation (the tl.dot matmul kernel), forward and backward;
- conv2d (the tl.dot implicit-GEMM kernel: stride, padding, groups) and AvgPool1d/2d built
  on it, forward (attorch's conv backward is torch's);
- p-losses (L1, MSE, smooth L1, Huber; none/mean/sum), NLL loss (weighted, spatial) and
  cross entropy (weighted), forward and backward;
- multi-head attention (_attention: the flash-attention forward and backward with block
  pointers), causal or not, sequence-parallel or not, both tl.dot forms of its backward.

attorch calls torch.cuda.get_device_capability, torch.get_autocast_dtype (torch >= 2.4) and
makes some tensors with device='cuda', which this torch (1.13, no CUDA) cannot answer: a
fixture swaps the CPU stand-ins of libraries/attorch/attorch_shim.py in while each test runs.
The autotuned kernels compile and time every config on their first launch of a key; conv2d's
16 configs and linear's 8 are cut to a few with `only_configs`, to keep this file quick.
The [33, 2, 40] batch norm once hung or corrupted memory (the stack probe's clobbered R11,
docs/lowering.md); it runs like the others now.

attorch's LICENSE (MIT) is libraries/attorch/LICENSE, the text of BobMcDear/attorch's LICENSE
at commit 67c2772baf33913ef51c2d1064f746ca17b63749.
"""

import contextlib
import math

import pytest
import torch
import torch.nn.functional as F
from library_testing import DTYPES, check, package_module, randn

# linear_layer's backward enters torch.autocast('cuda', ...), which this torch turns off.
pytestmark = pytest.mark.filterwarnings("ignore:User provided device_type of 'cuda'")


def attorch(name):
    """The module libraries/attorch/<name>.py, imported as blockc_lib_attorch.<name> (the files
    import each other and attorch_shim relatively)."""
    return package_module("attorch", name)


@pytest.fixture(autouse=True)
def cpu_cuda():
    with attorch("attorch_shim").cpu_cuda():
        yield


@contextlib.contextmanager
def only_configs(tuner, indices):
    """Within: `tuner` (an autotuned kernel) tunes over its configs `indices` alone."""
    configs, cache = tuner.configs, tuner.cache
    tuner.configs, tuner.cache = [configs[i] for i in indices], {}
    try:
        yield
    finally:
        tuner.configs, tuner.cache = configs, cache


def rand(*shape, dtype=torch.float32, seed=0, low=0.0, high=1.0):
    g = torch.Generator().manual_seed(seed)
    return (low + (high - low) * torch.rand(*shape, generator=g, dtype=torch.float64)).to(dtype)


def randint(high, *shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, shape, generator=g)


def leaf(t):
    """t as a fresh leaf that records its gradient (library inputs)."""
    return t.detach().clone().requires_grad_(True)


def leaf64(t):
    return None if t is None else t.detach().double().requires_grad_(True)


def grad_of(t):
    return t.grad


# =====================================================================================
# Activations (act_layers.ActFuncAutoGrad, act_kernels.py), with and without dropout
# =====================================================================================

def _celu(x, alpha):
    return F.relu(x) + torch.clamp(alpha * (torch.exp(x / alpha) - 1), max=0)


ACTIVATIONS = {
    "sigmoid": torch.sigmoid,
    "logsigmoid": F.logsigmoid,
    "tanh": torch.tanh,
    "relu": F.relu,
    "gelu": F.gelu,
    "geluapprox": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "relu6": F.relu6,
    "hardsigmoid": F.hardsigmoid,
    "hardtanh": F.hardtanh,
    "hardswish": F.hardswish,
    "selu": F.selu,
    "mish": lambda x: x * torch.tanh(torch.log1p(torch.exp(x))),
    "softplus": F.softplus,
    "softsign": F.softsign,
    "tanhshrink": F.tanhshrink,
    "leaky_relu_0.1": lambda x: F.leaky_relu(x, 0.1),
    "elu_0.7": lambda x: F.elu(x, 0.7),
    "celu_0.5": lambda x: _celu(x, 0.5),
    "hardshrink_0.5": lambda x: F.hardshrink(x, 0.5),
    "softshrink_0.5": lambda x: F.softshrink(x, 0.5),
}
ACT_SHAPES = [(1000,), (3, 5, 7), (2, 1031), (1,)]
ACT_CASES = [(name, ACT_SHAPES[i % len(ACT_SHAPES)], "float32")
             for i, name in enumerate(ACTIVATIONS)] + \
    [("relu", (4, 300), "float16"), ("gelu", (777,), "float16"),
     ("silu", (3, 65), "bfloat16"), ("leaky_relu_0.1", (129,), "bfloat16")]


@pytest.mark.parametrize("act, shape, dtype", ACT_CASES)
def test_activation(act, shape, dtype):
    ActFuncAutoGrad = attorch("act_layers").ActFuncAutoGrad
    dtype = DTYPES[dtype]
    x = randn(*shape, dtype=dtype, seed=1, scale=2.0)
    dy = randn(*shape, dtype=dtype, seed=2)
    xl = leaf(x)
    y = ActFuncAutoGrad.apply(xl, act, 0.0, False)
    y.backward(dy)
    x64 = leaf64(x)
    y64 = ACTIVATIONS[act](x64)
    y64.backward(dy.double())
    assert y.dtype == dtype and xl.grad.dtype == dtype
    check(y, y64, dtype, err_msg=f"{act} forward")
    check(xl.grad, x64.grad, dtype, scale=2.0, err_msg=f"{act} backward")


@pytest.mark.parametrize("act, p", [("sigmoid", 0.25), ("gelu", 0.6)])
def test_activation_with_dropout(act, p):
    """A kept element is act(x) / (1 - p), a dropped one 0; the backward drops the same ones."""
    ActFuncAutoGrad = attorch("act_layers").ActFuncAutoGrad
    n = 5000
    x = randn(n, seed=3) + (0.0 if act == "gelu" else 0.5)
    dy = randn(n, seed=4)
    xl = leaf(x)
    y = ActFuncAutoGrad.apply(xl, act, p, True)
    y.backward(dy)
    x64 = leaf64(x)
    a64 = ACTIVATIONS[act](x64)
    a64.backward(torch.ones(n, dtype=torch.float64))
    kept = y != 0
    assert abs((~kept).double().mean().item() - p) < 0.04, (~kept).double().mean()
    check(y[kept], a64.detach()[kept] / (1 - p), err_msg="kept forward")
    check(xl.grad[kept], (dy.double() * x64.grad)[kept] / (1 - p), err_msg="kept backward")
    assert (xl.grad[~kept] == 0).all()


# =====================================================================================
# Dropout (dropout_layer.py) and GLU (glu_layer.py)
# =====================================================================================

@pytest.mark.parametrize("shape, p", [((64, 33), 0.5), ((3001,), 0.1)])
def test_dropout(shape, p):
    DropoutAutoGrad = attorch("dropout_layer").DropoutAutoGrad
    x = randn(*shape, seed=5) + 3.0  # no zeros: a zero output is a dropped element
    dy = randn(*shape, seed=6)
    xl = leaf(x)
    y = DropoutAutoGrad.apply(xl, p, True)
    y.backward(dy)
    kept = y != 0
    frac = (~kept).double().mean().item()
    assert abs(frac - p) < 0.05, frac
    check(y[kept], x.double()[kept] / (1 - p))
    check(xl.grad[kept], dy.double()[kept] / (1 - p))
    assert (xl.grad[~kept] == 0).all()
    # A second draw is another mask; evaluation leaves the input as it is.
    y2 = DropoutAutoGrad.apply(x, p, True)
    assert not torch.equal(y2 != 0, kept)
    assert torch.equal(DropoutAutoGrad.apply(x, p, False), x)


@pytest.mark.parametrize("shape, dim, act, dtype", [
    ((6, 40), -1, "sigmoid", "float32"),
    ((5, 8, 7), 1, "gelu", "float32"),
    ((3, 6, 5), 1, "leaky_relu_0.1", "float32"),
    ((4, 130), -1, "silu", "float16"),
])
def test_glu(shape, dim, act, dtype):
    GLUAutoGrad = attorch("glu_layer").GLUAutoGrad
    dtype = DTYPES[dtype]
    x = randn(*shape, dtype=dtype, seed=7)
    xl = leaf(x)
    y = GLUAutoGrad.apply(xl, dim, act)
    dy = randn(*y.shape, dtype=dtype, seed=8)
    y.backward(dy)
    x64 = leaf64(x)
    a, b = x64.chunk(2, dim=dim)
    y64 = a * ACTIVATIONS[act](b)
    y64.backward(dy.double())
    check(y, y64, dtype, err_msg="forward")
    check(xl.grad, x64.grad, dtype, scale=2.0, err_msg="backward")


# =====================================================================================
# Softmax, LogSoftmax, Softmin (softmax_layers.py)
# =====================================================================================

@pytest.mark.parametrize("shape, neg, log, dtype", [
    ((7, 37), False, False, "float32"),
    ((2, 3, 64), False, True, "float32"),
    ((3000, 10), True, False, "float32"),   # feat < 64, batch > 2048: 2 rows a program
    ((5, 1), False, True, "float32"),
    ((33,), True, False, "float32"),
    ((4, 100), False, False, "float16"),
    ((6, 20), False, True, "bfloat16"),
])
def test_softmax(shape, neg, log, dtype):
    layers = attorch("softmax_layers")
    dtype = DTYPES[dtype]
    x = randn(*shape, dtype=dtype, seed=9, scale=3.0)
    dy = randn(*shape, dtype=dtype, seed=10)
    module = (layers.LogSoftmax(-1) if log else layers.Softmin(-1) if neg
              else layers.Softmax(-1))
    xl = leaf(x)
    y = module(xl)
    y.backward(dy)
    x64 = leaf64(x)
    z = -x64 if neg else x64
    y64 = torch.log_softmax(z, -1) if log else torch.softmax(z, -1)
    y64.backward(dy.double())
    assert y.dtype == dtype
    check(y, y64, dtype, err_msg="forward")
    check(xl.grad, x64.grad, dtype, scale=2.0, err_msg="backward")


# =====================================================================================
# LayerNorm (layer_norm_layer.py) and RMSNorm (rms_norm_layer.py)
# =====================================================================================

@pytest.mark.parametrize("shape, affine, dtype", [
    ((6, 50), "weight+bias", "float32"),
    ((2, 3, 128), "weight", "float32"),
    ((3000, 24), "weight+bias", "float32"),  # 2 rows a program
    ((9, 1), "none", "float32"),
    ((5, 96), "weight+bias", "float16"),
])
def test_layer_norm(shape, affine, dtype):
    LayerNormAutoGrad = attorch("layer_norm_layer").LayerNormAutoGrad
    dtype = DTYPES[dtype]
    feat = shape[-1]
    x = randn(*shape, dtype=dtype, seed=11, scale=2.0) + 0.5
    dy = randn(*shape, dtype=dtype, seed=12)
    w = randn(feat, dtype=dtype, seed=13) if affine != "none" else None
    b = randn(feat, dtype=dtype, seed=14) if affine == "weight+bias" else None
    eps = 1e-5
    xl, wl, bl = leaf(x), w if w is None else leaf(w), b if b is None else leaf(b)
    y = LayerNormAutoGrad.apply(xl, wl, bl, eps, True)
    y.backward(dy)
    x64, w64, b64 = leaf64(x), leaf64(w), leaf64(b)
    mean = x64.mean(-1, keepdim=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdim=True)
    y64 = (x64 - mean) / torch.sqrt(var + eps)
    if w64 is not None:
        y64 = y64 * w64
    if b64 is not None:
        y64 = y64 + b64
    y64.backward(dy.double())
    scale = 1.0 if dtype == torch.float32 else 2.0
    check(y, y64, dtype, scale=scale, err_msg="forward")
    check(xl.grad, x64.grad, dtype, scale=4 * scale, err_msg="input grad")
    if w is not None:
        n = x.numel() // feat
        gscale = max(1.0, math.sqrt(n) / 4)
        check(wl.grad, w64.grad, dtype, scale=gscale * scale, err_msg="weight grad")
    if b is not None:
        check(bl.grad, b64.grad, dtype, scale=gscale * scale, err_msg="bias grad")


@pytest.mark.parametrize("shape, weighted, eps, dtype", [
    ((6, 50), True, 1e-6, "float32"),
    ((2, 3, 128), False, None, "float32"),
    ((2500, 16), True, None, "float32"),  # 2 rows a program
    ((5, 96), True, 1e-5, "bfloat16"),
])
def test_rms_norm(shape, weighted, eps, dtype):
    layer = attorch("rms_norm_layer")
    dtype = DTYPES[dtype]
    feat = shape[-1]
    x = randn(*shape, dtype=dtype, seed=15, scale=2.0)
    dy = randn(*shape, dtype=dtype, seed=16)
    xl = leaf(x)
    if weighted:
        # The module (its weight is the shim's RMSNorm base class's, set here).
        module = layer.RMSNorm(feat, eps=eps, device="cpu", dtype=dtype)
        w = randn(feat, dtype=dtype, seed=17)
        with torch.no_grad():
            module.weight.copy_(w)
        y = module(xl)
        wl = module.weight
    else:
        w = wl = None
        y = layer.RMSNormAutoGrad.apply(xl, None, eps)
    y.backward(dy)
    x64, w64 = leaf64(x), leaf64(w)
    e = torch.finfo(dtype).eps if eps is None else eps
    y64 = x64 / torch.sqrt((x64 * x64).mean(-1, keepdim=True) + e)
    if w64 is not None:
        y64 = y64 * w64
    y64.backward(dy.double())
    scale = 1.0 if dtype == torch.float32 else 2.0
    check(y, y64, dtype, scale=scale, err_msg="forward")
    check(xl.grad, x64.grad, dtype, scale=4 * scale, err_msg="input grad")
    if weighted:
        n = x.numel() // feat
        check(wl.grad, w64.grad, dtype, scale=max(1.0, math.sqrt(n) / 4) * scale,
              err_msg="weight grad")


# =====================================================================================
# BatchNorm1d / BatchNorm2d (batch_norm_layer.py)
# =====================================================================================

@pytest.mark.parametrize("shape, affine, residual, act", [
    ((16, 5), True, False, None),
    ((4, 3, 10), True, True, "relu"),
    ((2, 3, 5, 7), False, False, "leaky_relu_0.1"),
    # [N, C, L] is normalised as [L, C, N]: 70 rows (block 128) by 300 (blocks of 128).
    ((300, 2, 70), True, False, "silu"),
    # 40 rows (block 64) by 33 (one block of 64): its backward's loop once ran past its end
    # (the kernel's prologue sank below the trip count, which the stack probe clobbered).
    ((33, 2, 40), True, False, None),
])
def test_batch_norm_train(shape, affine, residual, act):
    layer = attorch("batch_norm_layer")
    cls = layer.BatchNorm2d if len(shape) == 4 else layer.BatchNorm1d
    feat = shape[1]
    module = cls(feat, eps=1e-5, momentum=0.2, affine=affine, act_func=act, device="cpu")
    rm0, rv0 = randn(feat, seed=18), rand(feat, seed=19, low=0.5, high=1.5)
    with torch.no_grad():
        module.running_mean.copy_(rm0)
        module.running_var.copy_(rv0)
        if affine:
            module.weight.copy_(randn(feat, seed=20))
            module.bias.copy_(randn(feat, seed=21))
    x = randn(*shape, seed=22, scale=2.0) + 1.0
    r = randn(*shape, seed=23) if residual else None
    dy = randn(*shape, seed=24)
    xl, rl = leaf(x), (leaf(r) if residual else None)
    y = module(xl, rl)
    y.backward(dy)

    x64 = leaf64(x)
    w64 = leaf64(module.weight) if affine else None
    b64 = leaf64(module.bias) if affine else None
    r64 = leaf64(r)
    dims = [0] + list(range(2, len(shape)))
    view = [1, feat] + [1] * (len(shape) - 2)
    mean = x64.mean(dims, keepdim=True)
    var = ((x64 - mean) ** 2).mean(dims, keepdim=True)
    y64 = (x64 - mean) / torch.sqrt(var + 1e-5)
    if affine:
        y64 = y64 * w64.view(view) + b64.view(view)
    if residual:
        y64 = y64 + r64
    if act is not None:
        y64 = ACTIVATIONS[act](y64)
    y64.backward(dy.double())
    n = x.numel() // feat
    check(y, y64, scale=2.0, err_msg="forward")
    check(module.running_mean, 0.8 * rm0.double() + 0.2 * mean.flatten(), err_msg="run mean")
    check(module.running_var, 0.8 * rv0.double() + 0.2 * var.flatten() * n / (n - 1),
          err_msg="running var")
    gscale = max(2.0, math.sqrt(n) / 2)
    check(xl.grad, x64.grad, scale=gscale, err_msg="input grad")
    if affine:
        check(module.weight.grad, w64.grad, scale=gscale, err_msg="weight grad")
        check(module.bias.grad, b64.grad, scale=gscale, err_msg="bias grad")
    if residual:
        check(rl.grad, r64.grad, scale=gscale, err_msg="residual grad")


@pytest.mark.parametrize("shape", [(8, 4), (3, 4, 6, 5)])
def test_batch_norm_eval(shape):
    """Evaluation normalises by the running statistics (forward only: attorch's backward
    recomputes from batch statistics the evaluation forward does not store)."""
    layer = attorch("batch_norm_layer")
    cls = layer.BatchNorm2d if len(shape) == 4 else layer.BatchNorm1d
    feat = shape[1]
    module = cls(feat, act_func="sigmoid", device="cpu").eval()
    rm, rv = randn(feat, seed=25), rand(feat, seed=26, low=0.5, high=2.0)
    w, b = randn(feat, seed=27), randn(feat, seed=28)
    with torch.no_grad():
        module.running_mean.copy_(rm)
        module.running_var.copy_(rv)
        module.weight.copy_(w)
        module.bias.copy_(b)
        x = randn(*shape, seed=29)
        y = module(x)
    view = [1, feat] + [1] * (len(shape) - 2)
    y64 = torch.sigmoid((x.double() - rm.double().view(view))
                        / torch.sqrt(rv.double().view(view) + 1e-5)
                        * w.double().view(view) + b.double().view(view))
    check(y, y64)
    check(module.running_mean, rm.double())


# =====================================================================================
# Linear (linear_layer.py, linear_kernels.py)
# =====================================================================================

@pytest.mark.parametrize("shape, out_feat, bias, act, dtype, configs", [
    ((7, 33), 20, True, None, "float32", [0]),
    ((2, 5, 64), 48, False, "gelu", "float32", [0, 2]),
    ((40, 100), 130, True, "leaky_relu_0.1", "float32", [4]),
    ((1, 16), 1, True, "tanh", "float32", [0]),
    ((9, 70), 36, True, "relu", "float16", [1]),
    ((12, 40), 24, True, "silu", "bfloat16", [0]),
])
def test_linear(shape, out_feat, bias, act, dtype, configs):
    layer = attorch("linear_layer")
    kernel = attorch("linear_kernels").linear_forward_kernel
    dtype = DTYPES[dtype]
    in_feat = shape[-1]
    x = randn(*shape, dtype=dtype, seed=30)
    w = randn(in_feat, out_feat, dtype=dtype, seed=31, scale=1 / math.sqrt(in_feat))
    b = randn(out_feat, dtype=dtype, seed=32) if bias else None
    dy = randn(*shape[:-1], out_feat, dtype=dtype, seed=33)
    # attorch's backward is torch matmuls under torch.autocast('cuda', dtype=...): this torch
    # (1.13, CPU) has no float16 matmul, and its autocast asks CUDA about bfloat16.
    backward = dtype == torch.float32
    xl, wl, bl = leaf(x), leaf(w), (leaf(b) if bias else None)
    if not backward:
        xl, wl, bl = x, w, b
    with only_configs(kernel, configs):
        y = layer.LinearAutoGrad.apply(xl, wl, bl, act)
    x64, w64, b64 = leaf64(x), leaf64(w), leaf64(b)
    y64 = x64 @ w64
    if bias:
        y64 = y64 + b64
    if act is not None:
        y64 = ACTIVATIONS[act](y64)
    scale = max(1.0, math.sqrt(in_feat) / 4) if dtype == torch.float32 else 2.0
    assert y.dtype == dtype
    check(y, y64, dtype, scale=scale, err_msg="forward")
    if backward:
        y.backward(dy)
        y64.backward(dy.double())
        check(xl.grad, x64.grad, dtype, scale=2 * scale, err_msg="input grad")
        check(wl.grad, w64.grad, dtype, scale=2 * scale, err_msg="weight grad")
        if bias:
            check(bl.grad, b64.grad, dtype, scale=2 * scale, err_msg="bias grad")


# =====================================================================================
# conv2d (conv_layer.py, conv_kernels.py) and the average pools (pooling_layer.py)
# =====================================================================================

@pytest.mark.parametrize("in_shape, out_feat, kernel, stride, padding, groups, dtype, configs", [
    ((2, 3, 9, 11), 8, (3, 3), (1, 1), (1, 1), 1, "float32", [7]),
    ((1, 4, 10, 7), 6, (3, 2), (2, 1), (0, 1), 2, "float32", [15]),
    ((3, 2, 5, 5), 5, (1, 1), (1, 1), (0, 0), 1, "float32", [7, 8]),
    ((2, 6, 8, 8), 6, (3, 3), (2, 2), (1, 1), 3, "float16", [7]),
])
def test_conv2d(in_shape, out_feat, kernel, stride, padding, groups, dtype, configs):
    Conv2dAutoGrad = attorch("conv_layer").Conv2dAutoGrad
    conv = attorch("conv_kernels").conv2d_forward_kernel
    dtype = DTYPES[dtype]
    x = randn(*in_shape, dtype=dtype, seed=34)
    w = randn(out_feat, in_shape[1] // groups, *kernel, dtype=dtype, seed=35, scale=0.5)
    b = randn(out_feat, dtype=dtype, seed=36)
    with only_configs(conv, configs):
        y = Conv2dAutoGrad.apply(x, w, b, *stride, *padding, groups)
    y64 = F.conv2d(x.double(), w.double(), b.double(), stride, padding, groups=groups)
    k = in_shape[1] // groups * kernel[0] * kernel[1]
    check(y, y64, dtype, scale=max(1.0, math.sqrt(k) / 4) if dtype == torch.float32 else 2.0)


@pytest.mark.parametrize("kind, shape, kernel, stride, padding", [
    ("1d", (2, 3, 17), 3, 2, 1),
    ("2d", (2, 4, 9, 10), (2, 3), (2, 1), (1, 0)),
])
def test_avg_pool(kind, shape, kernel, stride, padding):
    pooling = attorch("pooling_layer")
    conv = attorch("conv_kernels").conv2d_forward_kernel
    x = randn(*shape, seed=37)
    if kind == "1d":
        module = pooling.AvgPool1d(kernel, stride, padding)
        y64 = F.avg_pool1d(x.double(), kernel, stride, padding)
    else:
        module = pooling.AvgPool2d(kernel, stride, padding)
        y64 = F.avg_pool2d(x.double(), kernel, stride, padding)
    with only_configs(conv, [7]):
        y = module(x)
    check(y, y64)


# =====================================================================================
# p-losses (p_loss_layers.py), NLL (nll_loss_layer.py), cross entropy
# =====================================================================================

P_LOSSES = {"smooth_l1": 0, "l1": 1, "mse": 2, "huber": 3}


@pytest.mark.parametrize("loss, reduction, shape, dtype", [
    ("smooth_l1", "mean", (40, 30), "float32"),
    ("l1", "sum", (1000,), "float32"),
    ("mse", "none", (3, 7, 5), "float32"),
    ("huber", "mean", (2049,), "float32"),
    ("mse", "sum", (300,), "float16"),
    ("huber", "none", (77,), "float32"),
])
def test_p_loss(loss, reduction, shape, dtype):
    PLossAutoGrad = attorch("p_loss_layers").PLossAutoGrad
    dtype = DTYPES[dtype]
    x = randn(*shape, dtype=dtype, seed=38, scale=1.5)
    t = randn(*shape, dtype=dtype, seed=39)
    beta = 0.7
    xl, tl_ = leaf(x), leaf(t)
    y = PLossAutoGrad.apply(xl, tl_, P_LOSSES[loss], reduction, beta)
    dy = randn(*y.shape, dtype=y.dtype, seed=40) if reduction == "none" else \
        torch.tensor(1.7, dtype=y.dtype)
    y.backward(dy)
    x64, t64 = leaf64(x), leaf64(t)
    if loss == "smooth_l1":
        y64 = F.smooth_l1_loss(x64, t64, reduction=reduction, beta=beta)
    elif loss == "l1":
        y64 = F.l1_loss(x64, t64, reduction=reduction)
    elif loss == "mse":
        y64 = F.mse_loss(x64, t64, reduction=reduction)
    else:
        y64 = F.huber_loss(x64, t64, reduction=reduction, delta=beta)
    y64.backward(dy.double())
    n = x.numel()
    scale = (max(1.0, math.sqrt(n) / 4) if reduction != "none" else 1.0) * \
        (1.0 if dtype == torch.float32 else 2.0)
    check(y, y64, dtype, scale=scale, err_msg="forward")
    check(xl.grad, x64.grad, dtype, scale=2.0, err_msg="input grad")
    check(tl_.grad, t64.grad, dtype, scale=2.0, err_msg="target grad")


@pytest.mark.parametrize("shape, reduction, weighted", [
    ((8, 5), "mean", False),
    ((6, 7, 9), "sum", True),
    ((4, 3), "none", True),
    ((5, 10, 3, 2), "mean", True),
    ((2100, 4), "sum", False),     # 2 rows a program
])
def test_nll_loss(shape, reduction, weighted):
    NLLLossAutoGrad = attorch("nll_loss_layer").NLLLossAutoGrad
    classes = shape[1]
    x = torch.log_softmax(randn(*shape, seed=41), 1)
    target = randint(classes, shape[0], *shape[2:], seed=42)
    weight = rand(classes, seed=43, low=0.2, high=2.0) if weighted else None
    xl = leaf(x)
    y = NLLLossAutoGrad.apply(xl, target, reduction, weight)
    dy = randn(*y.shape, seed=44) if reduction == "none" else torch.tensor(0.9)
    y.backward(dy)
    x64 = leaf64(x)
    y64 = F.nll_loss(x64, target, weight=None if weight is None else weight.double(),
                     reduction=reduction)
    y64.backward(dy.double())
    check(y, y64, scale=max(1.0, math.sqrt(target.numel()) / 4), err_msg="forward")
    check(xl.grad, x64.grad, err_msg="input grad")


@pytest.mark.parametrize("shape, weighted, dtype", [
    ((8, 5), False, "float32"),
    ((13, 100), True, "float32"),
    ((3000, 7), True, "float32"),   # 2 rows a program
    ((6, 70), False, "float16"),
])
def test_cross_entropy(shape, weighted, dtype):
    CrossEntropyLossAutoGrad = attorch("cross_entropy_loss_layer").CrossEntropyLossAutoGrad
    dtype = DTYPES[dtype]
    x = randn(*shape, dtype=dtype, seed=45, scale=2.0)
    target = randint(shape[1], shape[0], seed=46)
    weight = rand(shape[1], seed=47, low=0.2, high=2.0) if weighted else None
    xl = leaf(x)
    y = CrossEntropyLossAutoGrad.apply(xl, target, weight)
    y.backward(torch.tensor(1.3))
    x64 = leaf64(x)
    y64 = F.cross_entropy(x64, target, weight=None if weight is None else weight.double())
    y64.backward(torch.tensor(1.3, dtype=torch.float64))
    scale = max(1.0, math.sqrt(shape[0]) / 4)
    check(y, y64, torch.float32 if dtype == torch.float32 else dtype, scale=scale,
          err_msg="forward")
    check(xl.grad, x64.grad, dtype, scale=2.0, err_msg="input grad")


# =====================================================================================
# Multi-head attention (multi_head_attention_kernels._attention)
# =====================================================================================

@pytest.mark.parametrize("shape, causal, seq_parallel, capability, dtype", [
    ((1, 2, 128, 16), False, False, (8, 0), "float16"),
    ((2, 1, 256, 32), True, False, (8, 0), "float16"),
    ((1, 2, 256, 16), True, True, (8, 0), "float16"),    # dq: trans(dot(trans k, trans ds))
    ((1, 1, 128, 32), False, True, (9, 0), "float32"),   # dq: dot(ds, k)
])
def test_attention(shape, causal, seq_parallel, capability, dtype):
    kernels = attorch("multi_head_attention_kernels")
    dtype = DTYPES[dtype]
    q = randn(*shape, dtype=dtype, seed=48)
    k = randn(*shape, dtype=dtype, seed=49)
    v = randn(*shape, dtype=dtype, seed=50)
    do = randn(*shape, dtype=dtype, seed=51)
    sm_scale = 0.5
    ql, kl, vl = leaf(q), leaf(k), leaf(v)
    with attorch("attorch_shim").cpu_cuda(capability):
        o = kernels._attention.apply(ql, kl, vl, causal, sm_scale, seq_parallel)
        o.backward(do)
    q64, k64, v64 = leaf64(q), leaf64(k), leaf64(v)
    s = (q64 @ k64.transpose(-1, -2)) * sm_scale
    if causal:
        n = shape[2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    o64 = torch.softmax(s, -1) @ v64
    o64.backward(do.double())
    scale = 1.0 if dtype == torch.float32 else 2.0
    check(o, o64, dtype, scale=2 * scale, err_msg="out")
    check(ql.grad, q64.grad, dtype, scale=4 * scale, err_msg="dq")
    check(kl.grad, k64.grad, dtype, scale=4 * scale, err_msg="dk")
    check(vl.grad, v64.grad, dtype, scale=4 * scale, err_msg="dv")
