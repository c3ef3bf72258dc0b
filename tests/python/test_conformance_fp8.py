"""Conformance: the 8-bit floats tl.float8e4nv (OCP E4M3, no infinities) and
tl.float8e5 (OCP E5M2). Kernels receive their bits as uint8 tensors and bitcast, as
quantization kernels do (torch 1.13 has no float8 tensors; where torch has them they
are passed directly too). Conversions to fp8 round to nearest even and saturate at the
largest finite value, as Triton's `cvt.rn.satfinite` does on NVIDIA GPUs; arithmetic on
fp8 tensors rounds each result to fp8, and tl.dot of fp8 blocks accumulates in f32.

The reference is written from the formats' definitions: a table of what each of the 256
codes stands for, and rounding as a search for the nearest finite code, ties to the even
code. It shares nothing with blockc's bit-level conversions."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import assert_equal, blockc_only, compile_error_at, rng


def to_torch(a):
    import torch
    return torch.from_numpy(np.ascontiguousarray(a))

HERE = __file__

FORMATS = {"float8e4nv": (4, 3, 7, True), "float8e5": (5, 2, 15, False)}
INTERPRETER_FP8 = ("fp8 conversions flush subnormals and neither round to nearest even nor "
                   "saturate (its _convert_float)")


def code_values(fmt):
    """What each of the 256 codes of `fmt` stands for, as float64."""
    exponent_bits, mantissa_bits, bias, finite_only = FORMATS[fmt]
    values = np.empty(256)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        field = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
        fraction = (code & ((1 << mantissa_bits) - 1)) / (1 << mantissa_bits)
        if finite_only and code & 0x7F == 0x7F:
            values[code] = np.copysign(np.nan, sign)
        elif not finite_only and field == (1 << exponent_bits) - 1:
            values[code] = np.copysign(np.nan, sign) if fraction else sign * np.inf
        elif field == 0:
            values[code] = sign * fraction * 2.0 ** (1 - bias)
        else:
            values[code] = sign * (1 + fraction) * 2.0 ** (field - bias)
    return values


def nearest_codes(x, fmt):
    """The code each of `x` (float64) converts to: nearest, ties to even, saturating."""
    table = code_values(fmt)[:128]
    finite = np.flatnonzero(np.isfinite(table))
    magnitude = np.minimum(np.abs(x), table[finite].max())
    distance = np.abs(magnitude[:, None] - table[finite][None, :])
    best = distance.min(axis=1, keepdims=True)
    tied = distance == best
    # The even code among the nearest: codes ascend with their values.
    even = tied & (finite[None, :] % 2 == 0)
    pick = np.where(even.any(axis=1), even.argmax(axis=1), tied.argmax(axis=1))
    codes = finite[pick].astype(np.uint8)
    codes[np.isnan(x)] = 0x7F
    return codes | np.where(np.signbit(x), 0x80, 0).astype(np.uint8)


def probes(fmt, count=2048, seed=0):
    """float32 values at every code's value, at the midpoints between neighbours (ties)
    and one float32 ulp either side of them, specials, and random magnitudes."""
    table = code_values(fmt)[:128]
    finite = np.sort(table[np.isfinite(table)])
    mids = ((finite[:-1] + finite[1:]) / 2).astype(np.float32)
    values = [finite.astype(np.float32), mids, np.nextafter(mids, np.float32(0)),
              np.nextafter(mids, np.float32(np.inf))]
    values = np.concatenate(values)
    values = np.concatenate([values, -values,
                             np.float32([np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 1e-30])])
    gen = rng(seed)
    extra = gen.standard_normal(count - len(values)) * np.exp2(gen.uniform(-24, 18, count - len(values)))
    return np.concatenate([values, extra.astype(np.float32)]).astype(np.float32)


def tl_format(fmt):
    return getattr(tl, fmt)


@triton.jit
def decode_kernel(code_ptr, out_ptr, FP8: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    bits = tl.load(code_ptr + offs)
    tl.store(out_ptr + offs, bits.to(FP8, bitcast=True).to(tl.float32))


@pytest.mark.interpreter_limitation(reason=INTERPRETER_FP8)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_code_decodes_exactly(fmt):
    codes = to_torch(np.arange(256, dtype=np.uint8))
    out = to_torch(np.zeros(256, np.float32))
    decode_kernel[(1,)](codes, out, FP8=tl_format(fmt), N=256)
    expected = code_values(fmt).astype(np.float32)
    finite = ~np.isnan(expected)
    assert_equal(out.numpy()[finite], expected[finite])
    assert np.isnan(out.numpy()[~finite]).all()


@triton.jit
def encode_kernel(x_ptr, code_ptr, n, FP8: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(code_ptr + offs, x.to(FP8).to(tl.uint8, bitcast=True), mask=mask)


@pytest.mark.interpreter_limitation(reason=INTERPRETER_FP8)
@pytest.mark.parametrize("fmt", FORMATS)
def test_f32_rounds_to_nearest_even_and_saturates(fmt):
    x = probes(fmt)
    codes = to_torch(np.zeros(len(x), np.uint8))
    encode_kernel[(triton.cdiv(len(x), 256),)](to_torch(x), codes, len(x), FP8=tl_format(fmt),
                                              BLOCK=256)
    expected = nearest_codes(x.astype(np.float64), fmt)
    actual = codes.numpy()
    bad = np.flatnonzero(actual != expected)
    assert not len(bad), [(float(x[i]), int(actual[i]), int(expected[i])) for i in bad[:8]]


@triton.jit
def arithmetic_kernel(x_ptr, y_ptr, out_ptr, FP8: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs).to(FP8, bitcast=True)
    y = tl.load(y_ptr + offs).to(FP8, bitcast=True)
    z = tl.where(x > y, x * y + x, -x - 0.5)
    tl.store(out_ptr + offs, z.to(tl.uint8, bitcast=True))


def finite_codes(gen, fmt, n):
    values = code_values(fmt)
    codes = gen.integers(0, 256, n).astype(np.uint8)
    return np.where(np.isfinite(values[codes]), codes, np.uint8(0x38))


@pytest.mark.interpreter_limitation(reason=INTERPRETER_FP8)
@pytest.mark.parametrize("fmt", FORMATS)
def test_arithmetic_rounds_each_result_to_fp8(fmt):
    gen = rng(1)
    x, y = finite_codes(gen, fmt, 256), finite_codes(gen, fmt, 256)
    out = to_torch(np.zeros(256, np.uint8))
    arithmetic_kernel[(1,)](to_torch(x), to_torch(y), out, FP8=tl_format(fmt), N=256)
    values = code_values(fmt)
    xv, yv = values[x], values[y]
    product = values[nearest_codes(xv * yv, fmt)]
    taken = nearest_codes(product + xv, fmt)
    other = nearest_codes(values[nearest_codes(-xv, fmt)] - 0.5, fmt)
    assert_equal(out.numpy(), np.where(xv > yv, taken, other))


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, sum_ptr, FP8: tl.constexpr, M: tl.constexpr):
    rows = tl.arange(0, M)[:, None] * M + tl.arange(0, M)[None, :]
    a = tl.load(a_ptr + rows).to(FP8, bitcast=True)
    b = tl.load(b_ptr + rows).to(FP8, bitcast=True)
    tl.store(c_ptr + rows, tl.dot(a, b))
    tl.store(sum_ptr + tl.arange(0, M), tl.sum(a.to(tl.float32), axis=1))


@pytest.mark.parametrize("fmt", FORMATS)
def test_dot_multiplies_exactly_and_accumulates_in_f32(fmt):
    gen = rng(2)
    # Small magnitudes: products and their sums stay exact in f32, so any
    # accumulation order gives the reference.
    values = code_values(fmt)
    small = np.flatnonzero(np.isfinite(values) & (np.abs(values) <= 4) & (np.abs(values) >= 2**-4))
    a, b = gen.choice(small, (32, 32)).astype(np.uint8), gen.choice(small, (32, 32)).astype(np.uint8)
    c, sums = to_torch(np.zeros((32, 32), np.float32)), to_torch(np.zeros(32, np.float32))
    dot_kernel[(1,)](to_torch(a), to_torch(b), c, sums, FP8=tl_format(fmt), M=32)
    assert_equal(c.numpy(), (values[a] @ values[b]).astype(np.float32))
    assert_equal(sums.numpy(), values[a].sum(axis=1).astype(np.float32))


@triton.jit
def copy_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, (x.to(tl.float32) * 2).to(y_ptr.dtype.element_ty))
    tl.store(out_ptr + offs, x.to(tl.float32))


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2"])
def test_torch_float8_tensors_are_arguments(name):
    import torch
    if not hasattr(torch, name):
        pytest.skip(f"torch {torch.__version__} has no torch.{name} tensors")
    fp8 = getattr(torch, name)
    x = (torch.randn(64) * 8).to(fp8)
    y = torch.zeros(64, dtype=fp8)
    out = torch.zeros(64)
    copy_kernel[(1,)](x, y, out, N=64)
    assert torch.equal(out, x.float())
    assert torch.equal(y.float(), (x.float() * 2).to(fp8).float())


@triton.jit
def variant_kernel(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    y = x.to(tl.float8e4b15)  # err:variant
    tl.store(x_ptr + tl.arange(0, N), y.to(tl.float32))


@blockc_only
def test_other_fp8_variants_are_errors_at_the_line():
    with compile_error_at(HERE, "err:variant", match="float8e4nv and float8e5"):
        variant_kernel[(1,)](to_torch(np.zeros(16, np.float32)), N=16)


@triton.jit
def fp8_pointer_kernel(in_ptr, x_ptr, out_ptr, code_ptr, n, BLOCK: tl.constexpr):
    # in_ptr and code_ptr point to fp8 here: the launch passed uint8 memory reinterpreted.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask).to(tl.float32), mask=mask)
    tl.store(code_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@pytest.mark.interpreter_limitation(reason=INTERPRETER_FP8)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("check_bounds", [False, True])
def test_reinterpreted_uint8_memory_is_an_fp8_pointer(fmt, check_bounds):
    x = probes(fmt, seed=3)
    n = len(x)
    codes_in = (np.arange(n) % 256).astype(np.uint8)
    codes_out = to_torch(np.zeros(n, np.uint8))
    out = to_torch(np.zeros(n, np.float32))
    fp8 = tl_format(fmt)
    # Through a torch tensor and through a numpy array (Unsloth's fp8 kernels on a torch
    # without float8 dtypes): the kernel sees a pointer to fp8 and stores x as fp8.
    fp8_pointer_kernel[(1,)](triton.reinterpret(to_torch(codes_in), fp8), to_torch(x),
                             out, triton.reinterpret(codes_out.numpy(), fp8), n,
                             BLOCK=2048, check_bounds=check_bounds)
    expected = code_values(fmt)[codes_in].astype(np.float32)
    finite = ~np.isnan(expected)
    assert_equal(out.numpy()[finite], expected[finite])
    assert np.isnan(out.numpy()[~finite]).all()
    assert_equal(codes_out.numpy(), nearest_codes(x.astype(np.float64), fmt))


def test_reinterpret_of_a_wrapper_and_bad_arguments():
    codes = to_torch(np.zeros(4, np.uint8))
    wrapper = triton.reinterpret(codes, tl.float8e5)
    assert isinstance(wrapper, triton.TensorWrapper) and wrapper.dtype == tl.float8e5
    assert triton.reinterpret(wrapper, codes.dtype) is codes
    assert triton.reinterpret(wrapper, tl.float8e4nv).base is codes
    with pytest.raises(TypeError, match="reinterpret"):
        triton.reinterpret([1, 2], tl.float8e5)


@blockc_only
def test_reinterpret_to_what_is_not_a_dtype_is_an_error():
    with pytest.raises(TypeError, match="is not an element type"):
        triton.reinterpret(to_torch(np.zeros(4, np.uint8)), "fp8")
