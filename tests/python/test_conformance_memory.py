"""Conformance: loads and stores. Masks with and without `other`, masked-off lanes
left untouched, strided and non-contiguous tensors, views with a storage offset,
gathers and scatters through offsets loaded from memory, scalar loads and stores,
bool tensors, pointers advanced in loops, 64-bit offsets, load/store hints, block
pointers (tl.make_block_ptr, tl.advance, boundary_check, padding_option), and numpy
arrays passed directly."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (INTERPRET, blockc_extension, ALL_DTYPES, BF16_REASON, assert_equal, blockc_only, empty,
                      interpreter_limitation, is_float, rand, rng, to_numpy, to_torch)

BLOCK = 64
SENTINEL = -7


@triton.jit
def masked_copy_kernel(x_ptr, z_ptr, n, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if OTHER is None:
        x = tl.load(x_ptr + offs, mask=offs < n)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=OTHER)
    # Every lane is stored: the masked-off ones hold `other` (or zero).
    tl.store(z_ptr + offs, x)


@interpreter_limitation(BF16_REASON, ids=["3-bfloat16"])
@pytest.mark.parametrize("dtype", ALL_DTYPES + ("bool",))
@pytest.mark.parametrize("other", [None, 3])
def test_masked_load(dtype, other):
    n = 37
    x = rand(rng(0), BLOCK, dtype)
    z = empty(BLOCK, dtype, fill=SENTINEL if dtype != "bool" else False)
    masked_copy_kernel[(1,)](to_torch(x, dtype), z, n, OTHER=other, BLOCK=BLOCK)
    expected = x.copy()
    expected[n:] = 0 if other is None else (other if dtype != "bool" else True)
    assert_equal(z, expected)


@triton.jit
def masked_other_kernel(x_ptr, z_ptr, n, other, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=other)  # a run-time `other`
    tl.store(z_ptr + offs, x)


def test_masked_load_with_runtime_other():
    x = rand(rng(1), BLOCK, "float32")
    z = empty(BLOCK, "float32")
    masked_other_kernel[(1,)](to_torch(x), z, 20, -1.5, BLOCK=BLOCK)
    assert_equal(z, np.concatenate([x[:20], np.full(BLOCK - 20, -1.5, np.float32)]))


@triton.jit
def masked_store_kernel(x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, x, mask=(offs < n) & (offs % 3 != 0))


@pytest.mark.parametrize("dtype", ["int8", "float16", "bfloat16", "float64"])
def test_masked_store_leaves_other_lanes(dtype):
    x = rand(rng(2), BLOCK, dtype)
    z = empty(BLOCK, dtype, fill=SENTINEL)
    masked_store_kernel[(1,)](to_torch(x, dtype), z, 50, BLOCK=BLOCK)
    i = np.arange(BLOCK)
    assert_equal(z, np.where((i < 50) & (i % 3 != 0), x, SENTINEL))


@triton.jit
def strided_kernel(x_ptr, z_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * STRIDE, mask=mask)
    tl.store(z_ptr + offs * 2 + 1, x, mask=mask)  # odd elements of z


def test_strided_load_and_store():
    x = rand(rng(3), 3 * BLOCK, "float32")
    z = empty(2 * BLOCK, "float32", fill=SENTINEL)
    strided_kernel[(1,)](to_torch(x), z, 40, STRIDE=3, BLOCK=BLOCK)
    expected = np.full(2 * BLOCK, SENTINEL, np.float32)
    expected[1:80:2] = x[0:120:3]
    assert_equal(z, expected)


@triton.jit
def copy2d_kernel(x_ptr, z_ptr, M, N, stride_xm, stride_xn, stride_zm, stride_zn,
                  BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask)
    tl.store(z_ptr + rows[:, None] * stride_zm + cols[None, :] * stride_zn, x, mask=mask)


def test_non_contiguous_tensors():
    import torch
    x = rand(rng(4), (37, 23), "float32")
    xt = to_torch(x).t()  # a transposed view: [23, 37], strides (1, 23)
    z = torch.full((23, 37), float(SENTINEL))
    grid = (triton.cdiv(23, 16), triton.cdiv(37, 16))
    copy2d_kernel[grid](xt, z, 23, 37, xt.stride(0), xt.stride(1), z.stride(0), z.stride(1), BM=16, BN=16)
    assert_equal(z, x.T)
    # A column-major output, written through a transposed view.
    zc = torch.full((37, 23), float(SENTINEL))
    zt = zc.t()
    copy2d_kernel[grid](xt, zt, 23, 37, xt.stride(0), xt.stride(1), zt.stride(0), zt.stride(1), BM=16, BN=16)
    assert_equal(zc, x)


@triton.jit
def offset_view_kernel(x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 10, mask=mask)


def test_views_with_a_storage_offset():
    x = rand(rng(5), 100, "int32", -1000, 1000)
    tx = to_torch(x)
    z = empty(100, "int32", fill=SENTINEL)
    offset_view_kernel[(1,)](tx[30:], z[5:], 40, BLOCK=BLOCK)
    expected = np.full(100, SENTINEL, np.int32)
    expected[5:45] = x[30:70] * 10
    assert_equal(z, expected)


@triton.jit
def gather_scatter_kernel(x_ptr, idx_ptr, gathered_ptr, scattered_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask)
    v = tl.load(x_ptr + idx, mask=mask)  # gather
    tl.store(gathered_ptr + offs, v, mask=mask)
    tl.store(scattered_ptr + idx, offs.to(tl.float32), mask=mask)  # scatter (idx is a permutation)


@pytest.mark.parametrize("index_dtype", ["int32", "int64", "int16"])
def test_indirect_loads_and_stores(index_dtype):
    gen = rng(6)
    n = 50
    x = rand(gen, 200, "float32")
    idx = gen.permutation(200)[:n].astype(index_dtype)
    g = empty(BLOCK, "float32", fill=SENTINEL)
    s = empty(200, "float32", fill=SENTINEL)
    gather_scatter_kernel[(1,)](to_torch(x), to_torch(idx), g, s, n, BLOCK=BLOCK)
    assert_equal(g[:n], x[idx])
    assert_equal(g[n:], np.full(BLOCK - n, SENTINEL))
    expected = np.full(200, SENTINEL, np.float32)
    expected[idx] = np.arange(n)
    assert_equal(s, expected)


@triton.jit
def pointer_table_kernel(table_ptr, out_ptr, sizes_ptr, BLOCK: tl.constexpr):
    # Tutorial 08's grouped GEMM reads its matrices through a table of addresses.
    g = tl.program_id(0)
    src = tl.load(table_ptr + g).to(tl.pointer_type(tl.float32))
    n = tl.load(sizes_ptr + g)
    offs = tl.arange(0, BLOCK)
    v = tl.load(src + offs, mask=offs < n, other=0.0)
    # And back: an address as an int64, and a pointer as a condition (not null).
    back = src.to(tl.int64)
    same = (back == tl.load(table_ptr + g)) & (src.to(tl.int1))
    tl.store(out_ptr + g * BLOCK + offs, tl.where(same, v * 2.0, -1.0))


@pytest.mark.parametrize("check_bounds", [False, True])
def test_pointers_made_from_integers(check_bounds):
    import torch
    gen = rng(16)
    rows = [torch.from_numpy(rand(gen, n, "float32")) for n in (5, 64, 17)]
    table = torch.tensor([r.data_ptr() for r in rows], dtype=torch.int64)
    sizes = torch.tensor([r.numel() for r in rows], dtype=torch.int32)
    out = torch.full((3, BLOCK), float(SENTINEL))
    # The rows are not arguments: a bounds check cannot know their extents, so
    # loads through such pointers are left unchecked rather than refused.
    pointer_table_kernel[(3,)](table, out, sizes, BLOCK=BLOCK, check_bounds=check_bounds)
    for g, r in enumerate(rows):
        expected = np.zeros(BLOCK, np.float32)
        expected[:r.numel()] = 2 * r.numpy()
        assert_equal(out[g].numpy(), expected)

    @triton.jit
    def from_float(out_ptr):
        tl.store(out_ptr, tl.load(tl.load(out_ptr).to(tl.pointer_type(tl.float32))))

    # Triton's interpreter refuses it as an InterpreterError of its own words.
    expected = (Exception, "cannot cast") if INTERPRET else (
        triton.CompilationError, "a pointer converts only to another pointer or an integer")
    with pytest.raises(expected[0], match=expected[1]):
        from_float[(1,)](out)


@triton.jit
def scalar_memory_kernel(x_ptr, z_ptr, n):
    pid = tl.program_id(0)
    first = tl.load(x_ptr)  # scalar loads
    mine = tl.load(x_ptr + pid)
    last = tl.load(x_ptr + n - 1)
    tl.store(z_ptr + pid, first + mine * 2 + last)  # a scalar store per program


def test_scalar_loads_and_stores():
    x = rand(rng(7), 10, "int64", -1000, 1000)
    z = empty(10, "int64", fill=SENTINEL)
    scalar_memory_kernel[(10,)](to_torch(x), z, 10)
    assert_equal(z, x[0] + 2 * x + x[9])


@triton.jit
def bool_memory_kernel(m_ptr, x_ptr, z_ptr, pos_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    in_range = offs < n
    keep = tl.load(m_ptr + offs, mask=in_range, other=False)  # a bool tensor as a mask
    x = tl.load(x_ptr + offs, mask=keep, other=0.0)
    tl.store(z_ptr + offs, x, mask=in_range)
    tl.store(pos_ptr + offs, x > 0, mask=in_range)  # a comparison stored as bools


def test_bool_tensors():
    gen = rng(8)
    n = 45
    m, x = rand(gen, BLOCK, "bool"), rand(gen, BLOCK, "float32")
    z = empty(BLOCK, "float32", fill=SENTINEL)
    pos = empty(BLOCK, "bool")
    bool_memory_kernel[(1,)](to_torch(m), to_torch(x), z, pos, n, BLOCK=BLOCK)
    expected = np.where(m, x, 0.0)
    assert_equal(z[:n], expected[:n])
    assert_equal(pos[:n], expected[:n] > 0)
    assert_equal(pos[n:], np.zeros(BLOCK - n, bool))


@triton.jit
def pointer_loop_kernel(x_ptr, z_ptr, n_chunks, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for _ in range(n_chunks):
        acc += tl.load(x_ptr + offs)
        x_ptr += BLOCK  # a pointer carried through the loop
    z_ptr += tl.program_id(0) * BLOCK
    tl.store(z_ptr + offs, acc)


def test_pointers_advanced_in_a_loop():
    x = rand(rng(9), 5 * 32, "float32")
    z = empty(32, "float32")
    pointer_loop_kernel[(1,)](to_torch(x), z, 5, BLOCK=32)
    acc = np.zeros(32, np.float32)
    for chunk in x.reshape(5, 32):  # the kernel's order of f32 additions
        acc = acc + chunk
    assert_equal(z, acc)


@triton.jit
def int64_offsets_kernel(x_ptr, z_ptr, row, stride, BLOCK: tl.constexpr):
    base = row.to(tl.int64) * stride  # 64-bit offset arithmetic
    offs = base + tl.arange(0, BLOCK).to(tl.int64)
    tl.static_assert(offs.dtype == tl.int64)
    tl.store(z_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + offs))


def test_int64_offsets():
    x = rand(rng(10), (6, 32), "float32")
    z = empty(32, "float32")
    int64_offsets_kernel[(1,)](to_torch(x), z, 4, 32, BLOCK=32)
    assert_equal(z, x[4])


@triton.jit
def hints_kernel(x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.multiple_of(tl.program_id(0) * BLOCK, BLOCK) + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(offs, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, cache_modifier=".cg", eviction_policy="evict_last")
    y = tl.load(x_ptr + offs, mask=mask, volatile=True)
    tl.store(z_ptr + offs, x + y, mask=mask, cache_modifier=".cs")


def test_load_store_hints_are_accepted():
    x = rand(rng(11), 100, "float32")
    z = empty(100, "float32")
    hints_kernel[(2,)](to_torch(x), z, 100, BLOCK=BLOCK)
    assert_equal(z, x + x)


# --- block pointers


@triton.jit
def block_ptr_copy_kernel(x_ptr, z_ptr, M, N, stride_xm, stride_xn, stride_zm, stride_zn,
                          BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x_block = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_xm, stride_xn),
                                offsets=(pid_m * BM, pid_n * BN), block_shape=(BM, BN), order=(1, 0))
    x = tl.load(x_block, boundary_check=(0, 1), padding_option="zero")
    z_block = tl.make_block_ptr(z_ptr, (M, N), (stride_zm, stride_zn), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(z_block, x * 3, boundary_check=(0, 1))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int16"])
def test_block_pointer_copy_with_boundary_checks(dtype):
    M, N = 37, 50
    x = rand(rng(12), (M, N), dtype, -100, 100)
    z = empty((M + 3, N + 5), dtype, fill=SENTINEL)  # a larger buffer: edges must stay untouched
    zv = z[:M, :N]
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    block_ptr_copy_kernel[grid](to_torch(x, dtype), zv, M, N, N, 1, zv.stride(0), zv.stride(1), BM=16, BN=32)
    expected = np.full((M + 3, N + 5), SENTINEL, dtype=to_numpy(z).dtype)
    expected[:M, :N] = x.astype(np.float64) * 3
    assert_equal(z, expected)


@triton.jit
def block_ptr_rowsum_kernel(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    bp = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM,), tl.float32)
    for _ in range(0, N, BN):
        acc += tl.sum(tl.load(bp, boundary_check=(1,), padding_option="zero"), axis=1)
        bp = tl.advance(bp, (0, BN))  # a block pointer carried through the loop
    out = tl.make_block_ptr(out_ptr, (M,), (1,), (pid * BM,), (BM,), (0,))
    tl.store(out, acc, boundary_check=(0,))


def test_block_pointer_advanced_in_a_loop():
    M, N = 40, 100
    x = rand(rng(13), (M, N), "float32")
    out = empty(M, "float32")
    block_ptr_rowsum_kernel[(triton.cdiv(M, 8),)](to_torch(x), out, M, N, N, BM=8, BN=32)
    np.testing.assert_allclose(out.numpy(), x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)


@triton.jit
def block_ptr_nan_padding_kernel(x_ptr, z_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    bp = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    x = tl.load(bp, boundary_check=(0, 1), padding_option="nan")
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    tl.store(z_ptr + rows[:, None] * BN + cols[None, :], x)


def test_block_pointer_nan_padding():
    M, N = 10, 12
    x = rand(rng(14), (M, N), "float32")
    z = empty((16, 16), "float32")
    block_ptr_nan_padding_kernel[(1,)](to_torch(x), z, M, N, BM=16, BN=16)
    expected = np.full((16, 16), np.nan, np.float32)
    expected[:M, :N] = x
    assert_equal(z, expected)


# --- numpy arrays passed directly (Triton's interpreter wants torch tensors)


@triton.jit
def axpy_kernel(x_ptr, y_ptr, z_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, a * x + y, mask=mask)


@blockc_only
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16", "int8"])
def test_numpy_arrays_directly(dtype):
    gen = rng(15)
    n = 300
    x, y = rand(gen, n, dtype, -50, 50), rand(gen, n, dtype, -50, 50)
    z = np.full(n, SENTINEL, dtype)
    axpy_kernel[(triton.cdiv(n, BLOCK),)](x, y, z, 3, n, BLOCK=BLOCK)
    # `a` is a run-time int32: a * x computes in x's type for floats (int32 * f16
    # is f16), in int32 or int64 for ints.
    with np.errstate(over="ignore"):
        if is_float(dtype):
            expected = np.asarray(3, dtype) * x + y
        else:
            rt = np.int64 if dtype == "int64" else np.int32
            expected = (3 * x.astype(rt) + y.astype(rt)).astype(dtype)
    assert_equal(z, expected)


@blockc_only
def test_numpy_and_torch_arguments_mixed():
    gen = rng(16)
    x, y = rand(gen, 100, "float32"), rand(gen, 100, "float32")
    z = np.zeros(100, np.float32)
    axpy_kernel[(2,)](x, to_torch(y), z, 0.5, 100, BLOCK=BLOCK)
    assert_equal(z, np.float32(0.5) * x + y)


@blockc_only
def test_numpy_views_and_bools():
    x = rand(rng(17), 100, "int32", -1000, 1000)
    z = np.full(100, SENTINEL, np.int32)
    offset_view_kernel[(1,)](x[30:], z[5:], 40, BLOCK=BLOCK)  # views with an offset
    expected = np.full(100, SENTINEL, np.int32)
    expected[5:45] = x[30:70] * 10
    assert_equal(z, expected)
    m = rand(rng(18), BLOCK, "bool")
    f = rand(rng(19), BLOCK, "float32")
    out, pos = np.full(BLOCK, SENTINEL, np.float32), np.zeros(BLOCK, bool)
    bool_memory_kernel[(1,)](m, f, out, pos, BLOCK, BLOCK=BLOCK)
    assert_equal(out, np.where(m, f, 0.0))
    assert_equal(pos, np.where(m, f, 0.0) > 0)


# --- tensor descriptors


@triton.jit
def descriptor_copy_kernel(x_ptr, y_ptr, z_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    xd = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    yd = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    block = xd.load([pid_m * BM, pid_n * BN])
    yd.store([pid_m * BM, pid_n * BN], block * 2 + 1)
    # The function spelling; past the edges a load reads zeros, which the whole
    # block (stored unmasked into z) shows.
    again = tl.load_tensor_descriptor(xd, [pid_m * BM, pid_n * BN])
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    padded_cols = tl.num_programs(1) * BN
    tl.store(z_ptr + rows * padded_cols + cols, again)


@pytest.mark.parametrize("m,n", [
    pytest.param(37, 45, marks=blockc_extension("strides that are not 16-byte multiples")),
    (16, 16), (5, 64),
    pytest.param(5, 70, marks=blockc_extension("strides that are not 16-byte multiples"))])
def test_tensor_descriptor_load_and_store(m, n):
    x = rand(rng(30), (m, n), "float32")
    y = empty((m, n), "float32")
    bm, bn = 16, 16
    gm, gn = triton.cdiv(m, bm), triton.cdiv(n, bn)
    z = empty((gm * bm, gn * bn), "float32")
    descriptor_copy_kernel[(gm, gn)](to_torch(x), y, z, m, n, BM=bm, BN=bn)
    assert_equal(y, x * 2 + 1)
    padded = np.zeros((gm * bm, gn * bn), np.float32)
    padded[:m, :n] = x
    assert_equal(z, padded)


@triton.jit
def strided_descriptor_kernel(x_ptr, N, BN: tl.constexpr):
    tl.make_tensor_descriptor(x_ptr, shape=[N, N], strides=[N, 2], block_shape=[BN, BN])


@blockc_only
def test_tensor_descriptor_needs_a_contiguous_last_dimension():
    with pytest.raises(triton.CompilationError, match="contiguous"):
        strided_descriptor_kernel[(1,)](empty(16, "float32"), 4, BN=4)


@triton.jit
def host_descriptor_kernel(x_desc, y_desc, z_ptr, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    block = x_desc.load([pid_m * BM, pid_n * BN])
    y_desc.store([pid_m * BM, pid_n * BN], block * 2 + 1)
    # The descriptor's shape and strides are runtime values in the kernel.
    if pid_m == 0 and pid_n == 0:
        tl.store(z_ptr, x_desc.shape[0] * 1000 + x_desc.shape[1] * 10 + x_desc.strides[1])


@pytest.mark.parametrize("m,n,bm,bn", [
    pytest.param(37, 45, 16, 16, marks=blockc_extension("strides that are not 16-byte multiples")),
    (16, 64, 8, 32), (64, 16, 32, 16)])
def test_host_tensor_descriptors_are_arguments(m, n, bm, bn):
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = to_torch(rand(rng(31), (m, n), "float32"))
    y = empty((m, n), "float32")
    z = empty(1, "int64")
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    host_descriptor_kernel[grid](TensorDescriptor.from_tensor(x, [bm, bn]),
                                 TensorDescriptor.from_tensor(y, [bm, bn]), z, BM=bm, BN=bn)
    assert_equal(y, x.numpy() * 2 + 1)
    assert int(z[0]) == m * 1000 + n * 10 + 1


def test_a_host_descriptor_needs_a_contiguous_last_dimension():
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = to_torch(rand(rng(32), (8, 16), "float32"))
    # Triton's class asserts; blockc's raises ValueError. Both say why.
    with pytest.raises((ValueError, AssertionError), match="contiguous"):
        TensorDescriptor.from_tensor(x[:, ::2], [4, 4])



@triton.jit
def unsigned_offset_kernel(idx_ptr, table_ptr, fwd_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(idx_ptr + offs, mask=mask, other=0)
    # An unsigned offset moves a pointer by its value (Triton zero-extends it):
    # bitsandbytes' dequantizer indexes its code table with a uint8.
    tl.store(fwd_ptr + offs, tl.load(table_ptr + a, mask=mask), mask=mask)


def test_unsigned_offsets_move_pointers_by_their_value():
    import torch
    idx = np.array([0, 1, 127, 128, 200, 255, 3], dtype=np.uint8)
    table = np.arange(256, dtype=np.float32) * 0.5
    fwd = empty(8, "float32")
    unsigned_offset_kernel[(1,)](torch.from_numpy(idx), to_torch(table), fwd, len(idx), BLOCK=8)
    assert_equal(to_numpy(fwd)[:len(idx)], table[idx.astype(np.int64)])


@triton.jit
def unsigned_offset_back_kernel(idx_ptr, end_ptr, back_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.store(back_ptr + offs, tl.load(end_ptr - a, mask=mask), mask=mask)


@blockc_extension("a pointer minus an unsigned offset moves back by its value; Triton 3.6 "
                  "negates the uint8 first and zero-extends that, so a GPU reads 256 - a "
                  "elements ahead (measured on an H200)")
def test_a_pointer_minus_an_unsigned_offset_moves_back_by_its_value():
    import torch
    idx = np.array([0, 1, 127, 128, 200, 255, 3], dtype=np.uint8)
    table = np.arange(256, dtype=np.float32) * 0.5
    table_t, back = to_torch(table), empty(8, "float32")
    unsigned_offset_back_kernel[(1,)](torch.from_numpy(idx), table_t[255:], back, len(idx),
                                      BLOCK=8)
    assert_equal(to_numpy(back)[:len(idx)], table[255 - idx.astype(np.int64)])
