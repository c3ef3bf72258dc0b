"""Quantization libraries' Triton kernels, unmodified (tests/python/libraries/bitsandbytes/ and
libraries/torchao/, each file headed by its origin, commit and the imports changed),
launched through the libraries' own Python wrappers on torch CPU tensors and checked against
references written here with torch in float64 from the math, independently of the kernels
(and of the libraries' own reference code):

- bitsandbytes' backends/triton (ops.py, kernels_8bit_quant.py, kernels_4bit.py):
  quantize_blockwise / dequantize_blockwise (8-bit codebook, a binary search of the code per
  element), quantize_4bit / dequantize_4bit in NF4 and FP4 (two 4-bit codes a byte), and
  gemv_4bit (dequantize with a passed code, then a linear), float16/bfloat16/float32;
- bitsandbytes' former bitsandbytes/triton/ (removed upstream in c27dc581; the text at its
  parent): dequantize_rowwise, int8_matmul_mixed_dequantize and
  int8_matmul_rowwise_dequantize (int8 GEMMs with fused dequantization and bias, split-K with
  atomic adds, K not a multiple of the block), and quantize_rowwise, quantize_global,
  quantize_global_transpose, quantize_columnwise_and_transpose, which call
  Triton 2.0's tl.libdevice.llrint;
- torchao's prototype/quantized_training/int8_mm.py: scaled_int8_mm (int8 x int8 -> int32
  dot, row and column scales, a scalar column scale);
- torchao's prototype/hqq (mixed_mm.py, kernels.py): pack_2xint4 and triton_mixed_mm, the
  fused int4-dequantize GEMM with group-wise scales and zeros (tl.join/permute unpacking),
  float16/bfloat16/float32, through its fixed-block path (its scale indexing assumes
  BLOCK_K == group_size, so the autotuned paths, whose BLOCK_K may be smaller, are left out);
- gemlite's triton_kernels/gemv_kernels.py: gemv_forward through gemv_INT_kernel, 2/4/8-bit
  weights packed along K into int32, unpacked with shifts and masks, grouped scales and
  zeros in the three group modes, atomic-add accumulation over K blocks, float16/bfloat16.

The int8 GEMMs are autotuned over 27 (torchao) and ~200 (bitsandbytes) configs; a CPU
compiles each, so the tests restrict what is tried: bitsandbytes' performance-model pruning
is a stand-in in bnb_shim.py that keeps named configs, and torchao's config list is cut to
one while a test runs (the kernels and wrappers are unchanged); gemlite's 12 "fast" GEMV
configs are cut to the first. The bitsandbytes quantizers autotune 12-14 configs each (they
differ only in num_warps/num_stages).

Not covered: gemlite's GEMM/split-K kernels and core.py (GemLiteLinear needs CUDA and torch
2.x float8 dtypes to import), its MX path; torchao's float8/MX kernels (this torch has no
float8 dtypes). gemlite's gemv_kernels.py is imported through gemlite_shim.py (its dtypes
tables without the float8 entries, a CPU answer to torch.cuda.get_device_properties).

Licenses: gemlite is Apache-2.0 (libraries/gemlite/LICENSE, mobiusml/gemlite at commit
1a6815d06373ed3a276d6726026a6ce15ea4ed71); bitsandbytes is MIT (libraries/bitsandbytes/
LICENSE, bitsandbytes-foundation/bitsandbytes at commit
95f9af309d4d5793847169c39288dcd3fcbdf564); torchao is BSD-3-Clause (libraries/torchao/
LICENSE, pytorch/ao at commit 36027d82d1ad9949597ea16002ff4940374b1b94).
"""

import sys

import pytest
import torch
from library_testing import DTYPES, check, package_module, randn


def library(lib, name):
    """libraries/<lib>/<name>.py imported as blockc_lib_<lib>.<name> (the files import each
    other relatively)."""
    if not hasattr(torch, "compile"):
        # bitsandbytes' kernels_optim.py decorates PyTorch fallbacks with @torch.compile at
        # import; torch 1.13 has none. They are not called here.
        torch.compile = lambda fn=None, **kwargs: fn if fn is not None else (lambda f: f)
    return package_module(lib, name)


def bnb(name):
    return library("bitsandbytes", name)


def torchao(name):
    if name == "int8_mm" and "blockc_lib_torchao.int8_mm" not in sys.modules:
        with library("torchao", "torchao_shim").torch_library():
            return library("torchao", name)
    return library("torchao", name)


@pytest.fixture
def cpu_cuda():
    with bnb("bnb_shim").cpu_cuda():
        yield


def d(t):
    return t.detach().double()


def rint(t):
    """Round half to even (llrint's default rounding)."""
    return torch.round(t)


def assert_equal(actual, expected, msg=""):
    assert actual.shape == expected.shape, f"{msg}: {actual.shape} != {expected.shape}"
    bad = (actual != expected).nonzero()
    assert bad.numel() == 0, f"{msg}: {bad.shape[0]} differ, first at {bad[:3].tolist()}"


# =====================================================================================
# bitsandbytes backends/triton: 8-bit blockwise quantization
# =====================================================================================

def dynamic_code():
    """A sorted 256-entry code in [-1, 1] (finer near 0, like bitsandbytes' dynamic map)."""
    u = torch.linspace(-1, 1, 256, dtype=torch.float64)
    return (u * u.abs()).float()


@pytest.mark.parametrize("n,blocksize,dtype", [
    (1000, 64, "float32"), (256, 256, "float16"), (77, 64, "bfloat16"), (64, 64, "float32"),
])
def test_bnb_quantize_blockwise(n, blocksize, dtype):
    ops = bnb("ops")
    dtype = DTYPES[dtype]
    code = dynamic_code()
    a = randn(n, dtype=dtype, seed=n)
    with bnb("bnb_shim").cpu_cuda():
        q, absmax = ops.quantize_blockwise(a, code, blocksize)
    blocks = -(n // -blocksize)
    padded = torch.zeros(blocks * blocksize, dtype=torch.float64)
    padded[:n] = d(a)
    expected_absmax = padded.view(blocks, blocksize).abs().amax(1)
    check(absmax, expected_absmax, dtype, err_msg="absmax")
    normed = (padded.view(blocks, blocksize) / expected_absmax[:, None]).clamp(-1, 1).view(-1)
    dist = (d(code)[None, :] - normed[:n, None]).abs()
    chosen = dist.gather(1, q.long().view(-1, 1)).squeeze(1)
    # the nearest code value (within the rounding of the normalization in `dtype`)
    slack = {torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2}[dtype]
    assert (chosen <= dist.min(1).values + slack).all(), "not the nearest code"


@pytest.mark.parametrize("n,blocksize,dtype", [
    (1000, 64, "float32"), (300, 128, "float16"), (512, 256, "bfloat16"),
])
def test_bnb_dequantize_blockwise(n, blocksize, dtype):
    ops = bnb("ops")
    dtype = DTYPES[dtype]
    code = dynamic_code()
    g = torch.Generator().manual_seed(n)
    q = torch.randint(0, 256, (n,), generator=g).to(torch.uint8)
    absmax = torch.rand(-(n // -blocksize), generator=g) + 0.5
    with bnb("bnb_shim").cpu_cuda():
        out = ops.dequantize_blockwise(q, absmax, code, blocksize, dtype)
    expected = d(code)[q.long()] * d(absmax).repeat_interleave(blocksize)[:n]
    assert out.dtype == dtype
    check(out, expected, dtype)


# =====================================================================================
# bitsandbytes backends/triton: 4-bit (NF4 / FP4)
# =====================================================================================

NF4 = torch.tensor([
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0], dtype=torch.float64)
# FP4 (bitsandbytes' e2m1 variant): code bit 3 is the sign, bits 0-2 index the magnitudes.
FP4_MAG = torch.tensor([0.0, 0.005208333333, 0.66666667, 1.0, 0.33333333, 0.5, 0.16666667,
                        0.25], dtype=torch.float64)
FP4 = torch.cat([FP4_MAG, -FP4_MAG])


def unpack_4bit(packed):
    """Bytes -> codes: element 2i is the high nibble, 2i+1 the low one."""
    p = packed.reshape(-1).long()
    return torch.stack([p >> 4, p & 0xF], 1).reshape(-1)


@pytest.mark.parametrize("quant_type", ["nf4", "fp4"])
@pytest.mark.parametrize("shape,blocksize,dtype", [
    ((8, 64), 64, "float32"), ((5, 100), 64, "float16"), ((3, 128), 128, "bfloat16"),
])
def test_bnb_quantize_4bit(quant_type, shape, blocksize, dtype):
    ops = bnb("ops")
    dtype = DTYPES[dtype]
    a = randn(*shape, dtype=dtype, seed=len(quant_type) + shape[1])
    n = a.numel()
    with bnb("bnb_shim").cpu_cuda():
        packed, absmax = ops.quantize_4bit(a, blocksize, quant_type, torch.uint8)
    nblocks = -(n // -blocksize)
    padded = torch.zeros(nblocks * blocksize, dtype=torch.float64)
    padded[:n] = d(a).reshape(-1)
    expected_absmax = padded.view(nblocks, blocksize).abs().amax(1)
    check(absmax[:nblocks], expected_absmax, dtype, err_msg="absmax")
    normed = (padded.view(nblocks, blocksize) / expected_absmax[:, None]).view(-1)
    codes = unpack_4bit(packed)
    assert codes.numel() == nblocks * blocksize
    table = NF4 if quant_type == "nf4" else FP4
    if quant_type == "fp4":
        # the sign bit follows the sign of the input; the magnitude is the nearest one
        dist = (FP4_MAG[None, :] - normed.abs()[:, None]).abs()
        chosen = dist.gather(1, (codes & 7).view(-1, 1)).squeeze(1)
        signs_ok = ((codes >= 8) == (normed < 0)) | (normed == 0)
        assert signs_ok.all(), "sign bit"
    else:
        dist = (table[None, :] - normed[:, None]).abs()
        chosen = dist.gather(1, codes.view(-1, 1)).squeeze(1)
    slack = {torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2}[dtype]
    assert (chosen <= dist.min(1).values + slack).all(), "not the nearest 4-bit code"


@pytest.mark.parametrize("quant_type", ["nf4", "fp4"])
@pytest.mark.parametrize("shape,blocksize,dtype", [
    ((16, 64), 64, "float32"), ((6, 90), 64, "float16"), ((4, 256), 128, "bfloat16"),
])
def test_bnb_dequantize_4bit(quant_type, shape, blocksize, dtype):
    ops = bnb("ops")
    dtype = DTYPES[dtype]
    n = shape[0] * shape[1]
    g = torch.Generator().manual_seed(n)
    packed = torch.randint(0, 256, ((n + 1) // 2, 1), generator=g).to(torch.uint8)
    absmax = torch.rand(-(n // -blocksize), generator=g) + 0.5
    with bnb("bnb_shim").cpu_cuda():
        out = ops.dequantize_4bit(packed, absmax, blocksize, quant_type, shape, dtype)
    table = NF4 if quant_type == "nf4" else FP4
    codes = unpack_4bit(packed)[:n]
    expected = table[codes] * d(absmax).repeat_interleave(blocksize)[:n]
    check(out, expected.view(shape), dtype)


@pytest.mark.parametrize("m,k,n,dtype", [(1, 128, 48, "bfloat16"), (3, 64, 20, "float32")])
def test_bnb_gemv_4bit(m, k, n, dtype):
    ops = bnb("ops")
    dtype = DTYPES[dtype]
    blocksize = 64
    g = torch.Generator().manual_seed(k + n)
    packed = torch.randint(0, 256, (n * k // 2, 1), generator=g).to(torch.uint8)
    absmax = torch.rand(n * k // blocksize, generator=g) + 0.5
    code = NF4.float()
    a = randn(m, k, dtype=dtype, seed=3)
    with bnb("bnb_shim").cpu_cuda():
        out = ops.gemv_4bit(a, packed, (n, k), absmax, code, blocksize)
    w = (NF4[unpack_4bit(packed)] * d(absmax).repeat_interleave(blocksize)).view(n, k)
    check(out, d(a) @ w.T, dtype, scale=4.0)


# =====================================================================================
# bitsandbytes' former bitsandbytes/triton/ (row-wise / global int8)
# =====================================================================================

@pytest.mark.parametrize("rows,cols", [(5, 37), (4, 64), (3, 1)])
def test_bnb_dequantize_rowwise(rows, cols, cpu_cuda):
    mod = bnb("dequantize_rowwise")
    g = torch.Generator().manual_seed(cols)
    x = torch.randint(-127, 128, (rows, cols), generator=g).to(torch.int8)
    state = (torch.rand(rows, generator=g) * 4).half()
    out = mod.dequantize_rowwise(x, state)
    check(out, d(x) * d(state)[:, None] / 127, torch.float16)


@pytest.mark.parametrize("rows,cols", [(5, 37)])
def test_bnb_quantize_rowwise(rows, cols, cpu_cuda):
    x = randn(rows, cols, dtype=torch.float16, seed=1)
    q, maxs = bnb("quantize_rowwise").quantize_rowwise(x)
    m = d(x).abs().amax(1)
    check(maxs, m, torch.float16)
    assert_equal(q.long(), rint(127 * d(x) / m[:, None]).long())


def test_bnb_quantize_columnwise_and_transpose(cpu_cuda):
    x = randn(37, 20, dtype=torch.float16, seed=2)
    q, maxs = bnb("quantize_columnwise_and_transpose").quantize_columnwise_and_transpose(x)
    m = d(x).abs().amax(0)
    check(maxs, m, torch.float16)
    assert_equal(q.long(), rint(127 * d(x) / m[None, :]).T.long())


@pytest.mark.parametrize("transpose", [False, True])
def test_bnb_quantize_global(transpose, cpu_cuda):
    mod = bnb("quantize_global")
    x = randn(33, 50, dtype=torch.float32, seed=3)
    q, absmax = (mod.quantize_global_transpose if transpose else mod.quantize_global)(x)
    m = d(x).abs().max()
    expected = rint(127 * d(x) / m).long()
    assert_equal(q.long(), expected.T if transpose else expected)


@pytest.mark.parametrize("kind", ["mixed", "rowwise"])
@pytest.mark.parametrize("m,k,n,bias,split_k", [
    (33, 70, 45, True, 1),     # K not a multiple of BLOCK_K, ragged M and N, bias
    (64, 64, 32, False, 1),    # EVEN_K
    (20, 100, 40, False, 2),   # split-K: atomic adds into the zeroed output
])
def test_bnb_int8_matmul_dequantize(kind, m, k, n, bias, split_k, cpu_cuda):
    mod = bnb(f"int8_matmul_{kind}_dequantize")
    fn = getattr(mod, f"int8_matmul_{kind}_dequantize")
    g = torch.Generator().manual_seed(m * n)
    a = torch.randint(-127, 128, (m, k), generator=g).to(torch.int8)
    b = torch.randint(-127, 128, (k, n), generator=g).to(torch.int8)
    state_x = (torch.rand(m, generator=g) + 0.5).half()
    state_w = (torch.rand(n if kind == "rowwise" else 1, generator=g) + 0.5).half()
    # the kernel loads bias[rn] unmasked over a whole block: give it room past N
    b_full = (torch.randn(n + 64, generator=g)).half()
    bias_t = b_full[:n] if bias else None
    meta = (32, 32, 32, 1) if split_k == 1 else (16, 32, 32, 2)
    with bnb("bnb_shim").keep(meta):
        out = fn(a, b, state_x, state_w, bias_t)
    expected = (d(a) @ d(b)) * d(state_x)[:, None] * d(state_w)[None, :] / (127.0 * 127.0)
    if bias:
        expected = expected + d(bias_t)[None, :]
    check(out, expected, torch.float16, scale=2.0)


# =====================================================================================
# torchao: scaled_int8_mm (prototype/quantized_training/int8_mm.py)
# =====================================================================================

@pytest.fixture
def one_int8_mm_config():
    """The 27-config autotuning of _scaled_int8_mm_kernel cut to (BLOCK_M, BLOCK_N, BLOCK_K)
    = (32, 64, 32) while a test runs."""
    kernel = torchao("int8_mm")._scaled_int8_mm_kernel
    saved = kernel.configs
    kernel.configs = [c for c in saved
                      if (c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"])
                      == (32, 64, 32)][:1]
    assert kernel.configs
    yield
    kernel.configs = saved


@pytest.mark.parametrize("m,k,n,scalar_col,dtype", [
    (33, 70, 45, False, "float32"),   # K not a multiple of BLOCK_K, ragged M, N
    (64, 128, 64, False, "bfloat16"),  # EVEN_K
    (17, 64, 100, True, "float16"),   # a scalar column scale (BitNet)
])
def test_torchao_scaled_int8_mm(m, k, n, scalar_col, dtype, one_int8_mm_config):
    mod = torchao("int8_mm")
    dtype = DTYPES[dtype]
    g = torch.Generator().manual_seed(m + n)
    a = torch.randint(-128, 128, (m, k), generator=g).to(torch.int8)
    b = torch.randint(-128, 128, (k, n), generator=g).to(torch.int8)
    row = (torch.rand(m, 1, generator=g) * 1e-2).to(dtype)
    col = (torch.rand(() if scalar_col else (n,), generator=g) * 1e-2).to(dtype)
    out = mod.scaled_int8_mm_cuda(a, b, row, col)
    assert out.dtype == dtype
    expected = (d(a) @ d(b)) * d(row) * d(col)
    check(out, expected, dtype)


# =====================================================================================
# torchao: hqq triton_mixed_mm (prototype/hqq/mixed_mm.py, kernels.py)
# =====================================================================================

@pytest.mark.parametrize("m,k,n,group,block,dtype", [
    (32, 128, 64, 64, (16, 32), "float16"),
    (16, 256, 96, 128, (16, 32), "bfloat16"),  # N not a power of two
    (32, 64, 32, 32, (32, 32), "float32"),
])
def test_torchao_hqq_mixed_mm(m, k, n, group, block, dtype):
    mod = torchao("mixed_mm")
    dtype = DTYPES[dtype]
    g = torch.Generator().manual_seed(k + n)
    q = torch.randint(0, 16, (k, n), generator=g).to(torch.uint8)
    scales = (torch.rand(k // group, n, generator=g) * 0.1 + 0.01).to(dtype)
    zeros = (torch.rand(k // group, n, generator=g) * 15).to(dtype)
    x = randn(m, k, dtype=dtype, seed=5)
    packed = mod.pack_2xint4(q)
    assert_equal(packed.long(), (q[0::2].long() & 0xF) | (q[1::2].long() << 4), "pack_2xint4")
    # The fixed-block path; its scale indexing needs BLOCK_K == group_size.
    out = mod.triton_mixed_mm(x, packed, scales, zeros, group, kernel_type="debug",
                              BLOCK_M=block[0], BLOCK_N=block[1], BLOCK_K=group)
    s = d(scales).repeat_interleave(group, 0)
    z = d(zeros).repeat_interleave(group, 0)
    # the kernel dequantizes in `dtype`: (q - z) * s rounded there
    w = ((d(q) - z).to(dtype).double() * s).to(dtype).double()
    expected = d(x) @ w
    check(out, expected, dtype, scale=float(expected.abs().max()) if dtype != torch.float32
          else 10.0)


# =====================================================================================
# gemlite: the GEMV (triton_kernels/gemv_kernels.py), bit-unpacking int32-packed weights
# =====================================================================================

FP4_MAPPING = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12]


@pytest.fixture
def gemlite_gemv():
    """gemv_kernels imported under gemlite_shim.cpu_cuda(), its per-CUDA-device fp4_mapping
    given a CPU entry (device index None), and its 12-config autotuning cut to the first
    (BLOCK_SIZE_N 64, BLOCK_SIZE_K 16) while a test runs."""
    shim = library("gemlite", "gemlite_shim")
    with shim.cpu_cuda():
        mod = library("gemlite", "gemv_kernels")
    saved = mod.fp4_mapping, mod.gemv_INT_kernel.configs
    mod.fp4_mapping = {None: torch.tensor(FP4_MAPPING, dtype=torch.int8)}
    mod.gemv_INT_kernel.configs = saved[1][:1]
    yield mod, shim.DType
    mod.fp4_mapping, mod.gemv_INT_kernel.configs = saved


# gemlite requires N a multiple of BLOCK_SIZE_N and K of BLOCK_SIZE_K (no masks).
@pytest.mark.parametrize("m,k,n,nbits,group,mode,dtype", [
    (1, 256, 128, 4, 64, 3, "float16"),   # asymmetric: (q - zero) * scale
    (2, 128, 192, 8, 128, 2, "float16"),  # symmetric: q * scale
    (1, 192, 64, 2, 64, 4, "bfloat16"),   # fma(q, scale, zero); bf16 goes through fp32
])
def test_gemlite_gemv(m, k, n, nbits, group, mode, dtype, gemlite_gemv):
    mod, DType = gemlite_gemv
    dtype = DTYPES[dtype]
    eps = 32 // nbits
    g = torch.Generator().manual_seed(k + n + nbits)
    q = torch.randint(0, 2 ** nbits, (k, n), generator=g).to(torch.int32)
    packed = torch.zeros(k // eps, n, dtype=torch.int32)
    for j in range(eps):  # element k sits in row k // eps at bit (k % eps) * nbits
        packed |= q[j::eps] << (j * nbits)
    scales = (torch.rand(k // group, n, generator=g) * 0.1 + 0.01).to(dtype)
    zeros = (torch.rand(k // group, n, generator=g) * 2 ** nbits / 2).to(dtype)
    x = randn(m, k, dtype=dtype, seed=7)
    io = {torch.float16: DType.FP16.value, torch.bfloat16: DType.BF16.value}[dtype]
    out = mod.gemv_forward(x, packed, scales, zeros, None, nbits, group, 2 ** nbits - 1, eps,
                           io, io, DType.FP32.value, io, 0, mode, True, 0)
    s = d(scales).repeat_interleave(group, 0)
    z = d(zeros).repeat_interleave(group, 0)
    w = {2: d(q) * s, 3: (d(q) - z) * s, 4: d(q) * s + z}[mode]
    expected = d(x) @ w
    assert out.dtype == dtype
    check(out, expected, dtype, scale=float(expected.abs().max()))
