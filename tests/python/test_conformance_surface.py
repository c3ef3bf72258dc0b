"""Conformance: the smaller parts of Triton's language surface. tl.constexpr(...)
inside a kernel and its .value; a pointer's .type/.dtype and their element_ty; dtype
predicates and attributes as Triton answers them; tensor methods (.cast, .to, .sum,
...); triton.language.standard (softmax, swizzle2d, flip, zeros, ...); tl.umulhi;
tl.debug_barrier, tl.static_assert, tl.static_print and the hints.

Expected values are computed with numpy (or written out, for compile-time answers)."""

import numpy as np
import pytest

import triton
import triton.language as tl
import triton.language.core as tlcore
from triton.language.standard import softmax as std_softmax, swizzle2d

from conftest import (INTERPRET, assert_close, assert_equal, blockc_extension, blockc_only,
                      compile_error_at, empty, interpreter_limitation, rand, rng, to_torch)

HERE = __file__
BLOCK = 16


# --- tl.constexpr inside a kernel


@triton.jit
def constexpr_call_kernel(z_ptr, BLOCK: tl.constexpr):
    HALF = tl.constexpr(BLOCK // 2)
    THREE: tl.constexpr = tlcore.constexpr(3)
    offs = tl.arange(0, BLOCK)
    tl.static_assert(HALF.value * 2 == BLOCK)
    tl.store(z_ptr + offs, offs * THREE.value + HALF + BLOCK.value)


@blockc_extension("tl.constexpr(v) called inside a kernel is a constexpr with .value (Triton 3.6 makes a "
                  "tensor of it, on a GPU too)")
def test_constexpr_called_inside_a_kernel_and_its_value():
    z = empty(BLOCK, "int32")
    constexpr_call_kernel[(1,)](z, BLOCK=BLOCK)
    assert_equal(z, np.arange(BLOCK) * 3 + BLOCK // 2 + BLOCK)


def test_constexpr_arithmetic_on_the_host():
    c = tl.constexpr(6)
    assert (c + 1).value == 7 and (2 * c).value == 12 and (c // 4).value == 1
    assert c == 6 and (c > 5) and not (c < 5)
    assert tl.constexpr(c).value == 6


# --- pointer types and dtypes


@triton.jit
def pointer_type_kernel(x_ptr, z_ptr):
    r = 0
    if x_ptr.type.element_ty == tl.float32:
        r += 1
    if x_ptr.dtype.element_ty == tl.float32:
        r += 2
    if x_ptr.dtype == tl.pointer_type(tl.float32):
        r += 4
    if x_ptr.dtype.is_ptr() and not x_ptr.dtype.element_ty.is_ptr():
        r += 8
    if x_ptr.type.scalar == x_ptr.dtype:
        r += 16
    offs = tl.arange(0, 4)
    ptrs = x_ptr + offs
    if ptrs.type.is_block() and ptrs.dtype.element_ty == tl.float32 and \
            ptrs.type.element_ty == tl.pointer_type(tl.float32):
        r += 32
    if x_ptr.type.element_ty == tl.int32:
        r += 1000  # the branch a pointer type compared as the pointee must not take
    tl.store(z_ptr, r)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_pointer_element_type(dtype):
    z = empty(1, "int32")
    pointer_type_kernel[(1,)](to_torch(np.zeros(4, dtype)), z)
    expected = (1 + 2 + 4 + 32) if dtype == "float32" else (8 + 16 + 1000)
    expected = expected + 8 + 16 if dtype == "float32" else expected
    assert_equal(z, [expected])


@triton.jit
def _fill(ptr, value, dtype):
    offs = tl.arange(0, 8)
    tl.store(ptr + offs, tl.full((8,), value, dtype) + tl.zeros((8,), dtype=dtype))


@triton.jit
def dtype_to_helper_kernel(z_ptr, DT: tl.constexpr):
    _fill(z_ptr, 7, DT)
    _fill(z_ptr + 8, 3, z_ptr.dtype.element_ty)


def test_a_dtype_passed_to_a_helper():
    z = empty(16, "float32")
    dtype_to_helper_kernel[(1,)](z, DT=tl.float16)
    assert_equal(z, [7.0] * 8 + [3.0] * 8)


@triton.jit
def dtype_predicates_kernel(x_ptr, z_ptr):
    x = tl.load(x_ptr)
    d = x.dtype
    bits = 0
    bits += 1 if d.is_floating() else 0
    bits += 2 if d.is_int() else 0
    bits += 4 if d.is_int_signed() else 0
    bits += 8 if d.is_int_unsigned() else 0
    bits += 16 if d.is_standard_floating() else 0
    bits += 32 if d.is_fp32() or d.is_int32() else 0
    bits += 64 if d.is_int64() or d.is_fp16() else 0
    tl.store(z_ptr, bits * 1000 + d.primitive_bitwidth)


@pytest.mark.parametrize("dtype,expected", [
    ("float32", (1 + 16 + 32) * 1000 + 32), ("float16", (1 + 16 + 64) * 1000 + 16),
    ("int32", (2 + 4 + 32) * 1000 + 32), ("int64", (2 + 4 + 64) * 1000 + 64),
    ("int8", (2 + 4) * 1000 + 8)])
def test_dtype_predicates_in_a_kernel(dtype, expected):
    z = empty(1, "int32")
    dtype_predicates_kernel[(1,)](to_torch(np.ones(1, dtype)), z)
    assert_equal(z, [expected])


def test_dtype_predicates_and_attributes_on_the_host():
    assert tl.int64.is_int64() and tl.uint64.is_uint64() and tl.int32.is_int32()
    assert tl.float32.is_fp32() and tl.float16.is_fp16() and tl.bfloat16.is_bf16()
    assert tl.bfloat16.is_floating() and tl.bfloat16.is_standard_floating()
    assert not tl.float8e5.is_standard_floating() and tl.float8e5.is_fp8()
    # Triton counts int1 among the unsigned integers.
    assert tl.int1.is_bool() and tl.int1.is_int() and tl.int1.is_int_unsigned()
    assert not tl.int1.is_int_signed() and tl.int8.is_int_signed()
    assert tl.float32.primitive_bitwidth == 32 and tl.int16.int_bitwidth == 16
    assert tl.float32.fp_mantissa_width == 23 and tl.float64.fp_mantissa_width == 52
    assert tl.bfloat16.fp_mantissa_width == 7 and tl.float16.exponent_bias == 15
    assert tl.int8.get_int_max_value() == 127 and tl.uint8.get_int_min_value() == 0
    assert not tl.float32.is_ptr() and not tl.float32.is_block()
    assert tl.float32.scalar is tl.float32
    p = tl.pointer_type(tl.float32)
    assert p.is_ptr() and p.element_ty == tl.float32 and p.scalar is p and not p.is_const()
    assert p == tl.pointer_type(tl.float32) and p != tl.pointer_type(tl.float16)
    assert p != tl.float32 and tl.float32 != p
    assert {tl.float32: 1}[tl.float32] == 1
    assert str(tl.float32) == "fp32" and repr(tl.float32) == "triton.language.float32"
    assert repr(tl.bfloat16) == "triton.language.bfloat16" and repr(tl.int8) == "triton.language.int8"
    assert str(p) == "pointer<fp32>"
    assert tl.float32.kind() == tl.dtype.KIND.FLOATING and tl.int1.kind() == tl.dtype.KIND.BOOLEAN


@blockc_extension("pointer types are hashable (Triton 3.6's pointer_type is not)")
def test_pointer_types_are_hashable():
    p = tl.pointer_type(tl.float32)
    assert len({tl.float32, tl.float32, p, tl.pointer_type(tl.float32)}) == 2


@triton.jit
def dtype_call_kernel(x_ptr, z_ptr, w_ptr):
    x = tl.load(x_ptr)
    y = tl.float16(x)  # a conversion, as Liger's softmax writes `tl.float32(0.0)`
    m = tl.float32(-float("inf"))
    tl.store(z_ptr, y.to(tl.float32))
    tl.store(w_ptr, tl.maximum(m, tl.int32(7.9)).to(tl.float32))


@blockc_extension("calling a dtype converts (tl.float32(x)); Triton 3.6: 'dtype' object is not callable")
def test_calling_a_dtype_converts():
    x = np.array([1.0 / 3.0], np.float32)
    z, w = empty(1, "float32"), empty(1, "float32")
    dtype_call_kernel[(1,)](to_torch(x), z, w)
    assert z[0] == np.float32(np.float16(x[0]))
    assert w[0] == 7.0


# --- tensor methods


@triton.jit
def methods_kernel(x_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    a = x.cast(tl.float16).cast(tl.float32)
    b = x.cast(tl.int32, bitcast=True).cast(tl.float32, bitcast=True)
    c = x.reshape(4, BLOCK // 4).trans().permute(1, 0).reshape(BLOCK)
    e = x.expand_dims(0).broadcast_to(2, BLOCK).sum(axis=0) * 0.5
    m = x.max() + x.min() + x.sum() + x.argmax(0) + x.argmin(0)
    f = x.abs().sqrt() + x.abs().exp().log() + x.sigmoid()
    tl.store(z_ptr + offs, a + b + c + e + m + f + (offs + 7).cdiv(8) * 1000)


@interpreter_limitation("math functions as tensor methods (x.exp()) are not patched: _semantic is None")
def test_tensor_methods():
    x = rand(rng(1), BLOCK, "float32", 0.5, 4.0)
    z = empty(BLOCK, "float32")
    methods_kernel[(1,)](to_torch(x), z, BLOCK=BLOCK)
    x64 = x.astype(np.float64)
    a = x.astype(np.float16).astype(np.float64)
    m = x64.max() + x64.min() + x64.sum() + np.argmax(x) + np.argmin(x)
    f = np.sqrt(x64) + x64 + 1 / (1 + np.exp(-x64))
    cdiv = (np.arange(BLOCK) + 7 + 7) // 8 * 1000
    assert_close(z, a + x64 + x64 + x64 + m + f + cdiv, rtol=1e-5)


@triton.jit
def logical_methods_kernel(x_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    both = (x > 0).logical_and(x < 10)
    either = (x < -5).logical_or(x > 20)
    tl.store(z_ptr + offs, both.to(tl.int32) + 2 * either.to(tl.int32))


def test_logical_and_or_methods():
    x = rand(rng(2), BLOCK, "int32", -30, 30)
    z = empty(BLOCK, "int32")
    logical_methods_kernel[(1,)](to_torch(x), z, BLOCK=BLOCK)
    assert_equal(z, ((x > 0) & (x < 10)).astype(np.int32) + 2 * ((x < -5) | (x > 20)))


# --- triton.language.standard


@triton.jit
def softmax_kernel(x_ptr, z_ptr, ROWS: tl.constexpr, COLS: tl.constexpr, SPELLING: tl.constexpr):
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + r * COLS + c)
    if SPELLING == "import":
        y = std_softmax(x, dim=1, keep_dims=True)
    elif SPELLING == "tl.standard":
        y = tl.standard.softmax(x, 1, True)
    elif SPELLING == "tl":
        y = tl.softmax(x, dim=1, keep_dims=True)
    else:
        y = x.softmax(dim=1, keep_dims=True)
    tl.store(z_ptr + r * COLS + c, y)


@pytest.mark.parametrize("spelling", ["import", "tl.standard", "tl", "method"])
def test_standard_softmax(spelling):
    x = rand(rng(3), (4, 8), "float32")
    z = empty((4, 8), "float32")
    softmax_kernel[(1,)](to_torch(x), z, ROWS=4, COLS=8, SPELLING=spelling)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    assert_close(z, e / e.sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-7)


@triton.jit
def standard_misc_kernel(x_ptr, z_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.standard.zeros((BLOCK,), tl.float32) + tl.standard.zeros_like(x)
    y += tl.standard.sigmoid(x) + tl.standard.cdiv(BLOCK, 5)
    y += tl.standard.maximum(x, 0.0) - tl.standard.minimum(x, 0.0)
    y += tl.standard.max(x, 0) + tl.standard.sum(x, 0) - tl.standard.min(x, 0)
    y += tl.standard.ravel(x[None, :])
    tl.store(z_ptr + offs, y)
    tl.store(i_ptr + offs, tl.standard.argmax(x, 0) * 100 + tl.standard.argmin(x, 0) + offs * 0)


@blockc_extension("tl.standard.maximum and tl.standard.minimum (Triton 3.6 has them in tl only)")
def test_standard_small_functions():
    x = rand(rng(4), BLOCK, "float32")
    z, i = empty(BLOCK, "float32"), empty(BLOCK, "int32")
    standard_misc_kernel[(1,)](to_torch(x), z, i, BLOCK=BLOCK)
    x64 = x.astype(np.float64)
    expected = 1 / (1 + np.exp(-x64)) + 4 + np.abs(x64) + x64.max() + x64.sum() - x64.min() + x64
    assert_close(z, expected, rtol=1e-5, atol=1e-6)
    assert_equal(i, np.full(BLOCK, np.argmax(x) * 100 + np.argmin(x)))


@triton.jit
def swizzle_kernel(i_ptr, j_ptr, SIZE_I: tl.constexpr, SIZE_J: tl.constexpr, SIZE_G: tl.constexpr):
    k = tl.arange(0, SIZE_I * SIZE_J)
    i, j = swizzle2d(k // SIZE_J, k % SIZE_J, SIZE_I, SIZE_J, SIZE_G)
    tl.store(i_ptr + k, i)
    tl.store(j_ptr + k, j)


def _swizzle_reference(size_i, size_j, size_g):
    # Column-major order inside each group of size_g rows (the last group may be
    # shorter), written out directly.
    new_i, new_j = np.zeros((size_i, size_j), np.int32), np.zeros((size_i, size_j), np.int32)
    k = 0
    for start in range(0, size_i, size_g):
        rows = min(size_g, size_i - start)
        for j in range(size_j):
            for i in range(rows):
                src = k
                new_i.flat[src], new_j.flat[src] = start + i, j
                k += 1
    return new_i.ravel(), new_j.ravel()


NON_POWER_OF_2_ARANGE = blockc_extension("tl.arange of a length that is not a power of 2")


@pytest.mark.parametrize("sizes", [(4, 4, 2), pytest.param((6, 4, 4), marks=NON_POWER_OF_2_ARANGE),
                                   pytest.param((5, 3, 2), marks=NON_POWER_OF_2_ARANGE)])
def test_swizzle2d(sizes):
    i, j = empty(sizes[0] * sizes[1], "int32"), empty(sizes[0] * sizes[1], "int32")
    swizzle_kernel[(1,)](i, j, SIZE_I=sizes[0], SIZE_J=sizes[1], SIZE_G=sizes[2])
    ri, rj = _swizzle_reference(*sizes)
    assert_equal(i, ri)
    assert_equal(j, rj)


@triton.jit
def flip_kernel(x_ptr, z_ptr, ROWS: tl.constexpr, COLS: tl.constexpr, TWO_D: tl.constexpr,
                DIM: tl.constexpr):
    if TWO_D:
        r = tl.arange(0, ROWS)[:, None]
        c = tl.arange(0, COLS)[None, :]
        if DIM is None:
            tl.store(z_ptr + r * COLS + c, tl.flip(tl.load(x_ptr + r * COLS + c)))
        else:
            tl.store(z_ptr + r * COLS + c, tl.flip(tl.load(x_ptr + r * COLS + c), DIM))
    else:
        c = tl.arange(0, COLS)
        if DIM is None:
            tl.store(z_ptr + c, tl.load(x_ptr + c).flip())
        else:
            tl.store(z_ptr + c, tl.load(x_ptr + c).flip(DIM))


# Without a dim, with 3 rows: blockc's own (Triton 3.6's flip asserts -len(shape) <= dim
# before it replaces None, and its aranges need powers of 2); dim=-1 with 4 rows runs
# on both.
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int64", "bool"])
@pytest.mark.parametrize("two_d", [False, True])
@pytest.mark.parametrize("dim", [pytest.param(None, marks=blockc_extension(
    "tl.flip without a dim, 3-row blocks")), -1])
def test_flip(dtype, two_d, dim):
    rows = 3 if dim is None else 4
    shape = (rows, 8) if two_d else (8,)
    x = rand(rng(5), shape, dtype)
    if dtype.startswith("float"):
        x.flat[0], x.flat[1], x.flat[2] = -0.0, np.nan, np.inf
    z = empty(shape, dtype)
    flip_kernel[(1,)](to_torch(x), z, ROWS=rows, COLS=8, TWO_D=two_d, DIM=dim)
    out = z.numpy()
    expected = x[..., ::-1]
    assert_equal(out, expected)
    if dtype.startswith("float"):
        assert_equal(np.signbit(out), np.signbit(expected))


@triton.jit
def bad_merge_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.standard.bitonic_merge(x, 3, 0))  # err:bitonic


@blockc_only
def test_a_standard_function_misused_names_itself():
    with compile_error_at(HERE, "err:bitonic", match=r"bitonic_merge merges along the last"):
        bad_merge_kernel[(1,)](empty(8, "float32"))


@triton.jit
def loop_then_unsupported_kernel(x_ptr, n):
    acc = tl.zeros((8,), tl.float32)
    for i in range(n):
        acc += tl.load(x_ptr + i * 8 + tl.arange(0, 8))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [acc], dtype=tl.float32,  # err:asm
                                  is_pure=True, pack=1)
    tl.store(x_ptr + tl.arange(0, 8), y)


@blockc_only
def test_an_unsupported_function_after_a_loop_is_blamed_not_the_loop():
    with compile_error_at(HERE, "err:asm", match=r"inline_asm_elementwise"):
        loop_then_unsupported_kernel[(1,)](empty(32, "float32"), 4)


# --- umulhi


@triton.jit
def umulhi_kernel(a_ptr, b_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, tl.umulhi(tl.load(a_ptr + offs), tl.load(b_ptr + offs)))


@interpreter_limitation("umulhi multiplies int32 as signed and overflows on int64")
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_umulhi(dtype):
    gen = rng(6)
    a, b = rand(gen, 64, dtype), rand(gen, 64, dtype)
    a[:4] = [-1, 0, np.iinfo(dtype).min, np.iinfo(dtype).max]
    b[:4] = [-1, -1, -1, np.iinfo(dtype).max]
    z = empty(64, dtype)
    umulhi_kernel[(1,)](to_torch(a), to_torch(b), z, BLOCK=64)
    bits = np.iinfo(dtype).bits
    mask = (1 << bits) - 1
    expected = [((int(x) & mask) * (int(y) & mask)) >> bits for x, y in zip(a, b)]
    expected = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in expected]
    assert_equal(z, np.array(expected, dtype))


# --- compile-time checks, barrier, hints


@triton.jit
def barrier_and_hints_kernel(x_ptr, z_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 4 == 0, "BLOCK must be a multiple of 4")
    tl.static_print("BLOCK is", BLOCK)
    offs = tl.multiple_of(tl.max_contiguous(tl.max_constancy(tl.arange(0, BLOCK), 1), BLOCK), 4)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, x * 2)
    tl.debug_barrier()
    tl.store(z_ptr + offs, tl.load(z_ptr + offs) + 1)


def test_debug_barrier_static_assert_static_print_and_hints(capsys):
    x = rand(rng(7), BLOCK, "int32", -100, 100)
    z = empty(BLOCK, "int32")
    barrier_and_hints_kernel[(1,)](to_torch(x), z, BLOCK=BLOCK)
    assert_equal(z, x * 2 + 1)
    if not INTERPRET:
        assert "BLOCK is 16" in capsys.readouterr().out


@triton.jit
def static_assert_at_line_kernel(BLOCK: tl.constexpr):
    tl.static_assert(BLOCK < 8, f"BLOCK={BLOCK} is too big")  # err:static_assert_line


def test_static_assert_fails_at_its_line():
    with compile_error_at(HERE, "err:static_assert_line", match="BLOCK=16 is too big"):
        static_assert_at_line_kernel[(1,)](BLOCK=16)


@triton.jit
def _optional_output_kernel(x_ptr, out_ptr, extra_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x)
    if extra_ptr:  # a pointer is true where it is not null (FlagGems' `if dW:`)
        tl.store(extra_ptr + offs, x * 2)


def test_a_pointer_as_a_condition():
    x = np.arange(8, dtype=np.float32)
    out, extra = np.zeros(8, np.float32), np.zeros(8, np.float32)
    _optional_output_kernel[(1,)](x, out, extra, BLOCK=8)
    assert_equal(out, x)
    assert_equal(extra, 2 * x)
    out[:] = 0
    _optional_output_kernel[(1,)](x, out, None, BLOCK=8)  # None: a constexpr, false
    assert_equal(out, x)


@triton.jit
def _block_pointer_methods_kernel(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, shape=(N,), strides=(1,), offsets=(0,), block_shape=(BLOCK,),
                          order=(0,))
    q = tl.make_block_ptr(out_ptr, shape=(N,), strides=(1,), offsets=(0,),
                          block_shape=(BLOCK,), order=(0,))
    for _ in range(N // BLOCK):
        v = tl.load(p) * 3
        # Triton's block pointer type: a pointer to a block, whose element_ty is the block's.
        tl.store(q, v.to(q.type.element_ty))
        p = p.advance([BLOCK])
        q = q.advance((BLOCK,))


def test_block_pointer_advance_method_and_type():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    _block_pointer_methods_kernel[(1,)](x, out, N=32, BLOCK=8)
    assert_equal(out, 3 * x)


@triton.jit
def _helper_a(x):
    return x + 1


@triton.jit
def _helper_b(x):
    return x + 2


@triton.jit
def _calls_a(x_ptr):
    tl.store(x_ptr, _helper_a(tl.load(x_ptr)))


@triton.jit
def _calls_b(x_ptr):
    tl.store(x_ptr, _helper_b(tl.load(x_ptr)))


def test_jit_function_source_and_cache_key():
    # What libraries read of a JITFunction (FlagGems' pointwise_dynamic keys its
    # generated code on it).
    assert _calls_a.src.startswith("def _calls_a(x_ptr):") and "_helper_a" in _calls_a.src
    key = _calls_a.cache_key
    assert len(key) == 64 and key == _calls_a.cache_key
    # The helpers it calls are part of the key: the bodies differ only in them.
    assert _calls_b.cache_key != key
    assert _calls_a.src.replace("_a", "_b") == _calls_b.src
