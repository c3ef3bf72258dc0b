"""Conformance: shapes of blocks. Broadcasting (implicit, tl.broadcast_to), new axes
(x[:, None], x[None, :], tl.expand_dims), transposes (tl.trans, x.T, tl.permute),
reshapes (tl.reshape, x.reshape, tl.ravel) up to rank 3, and the block constructors
(tl.arange with a non-zero start, tl.zeros, tl.full, tl.zeros_like)."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import assert_equal, empty, rand, rng, to_torch

A, B, C = 4, 8, 16  # the extents of the rank-3 tests


@triton.jit
def outer_kernel(x_ptr, y_ptr, sum_ptr, prod_ptr, bcast_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows)
    y = tl.load(y_ptr + cols)
    out = rows[:, None] * N + cols[None, :]
    tl.store(sum_ptr + out, x[:, None] + y[None, :])
    tl.store(prod_ptr + out, tl.expand_dims(x, 1) * tl.expand_dims(y, 0))
    # A row broadcast to a full block, then a scalar broadcast into it.
    tl.store(bcast_ptr + out, tl.broadcast_to(y[None, :], (M, N)) + 1.0)


def test_outer_sum_and_product():
    gen = rng(0)
    M, N = 16, 32
    x, y = rand(gen, M, "float32"), rand(gen, N, "float32")
    s, p, b = (empty((M, N), "float32") for _ in range(3))
    outer_kernel[(1,)](to_torch(x), to_torch(y), s, p, b, M=M, N=N)
    assert_equal(s, x[:, None] + y[None, :])
    assert_equal(p, x[:, None] * y[None, :])
    assert_equal(b, np.broadcast_to(y[None, :], (M, N)) + np.float32(1.0))


@triton.jit
def rank3_kernel(x_ptr, y_ptr, z_ptr, w_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    # x is [A, C] in memory, y is [B]; the result is [A, B, C].
    x = tl.load(x_ptr + a[:, None] * C + c[None, :])
    y = tl.load(y_ptr + b)
    z = x[:, None, :] * y[None, :, None]
    out = a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :]
    tl.store(z_ptr + out, z)
    # tl.expand_dims with a tuple of axes.
    w = tl.expand_dims(y, (0, 2)) + tl.expand_dims(x, 1)
    tl.store(w_ptr + out, w)


def test_rank3_broadcast():
    gen = rng(1)
    x, y = rand(gen, (A, C), "float32"), rand(gen, B, "float32")
    z, w = empty((A, B, C), "float32"), empty((A, B, C), "float32")
    rank3_kernel[(1,)](to_torch(x), to_torch(y), z, w, A=A, B=B, C=C)
    assert_equal(z, x[:, None, :] * y[None, :, None])
    assert_equal(w, y[None, :, None] + x[:, None, :])


@triton.jit
def transpose_kernel(x_ptr, t_ptr, u_ptr, v_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])  # [M, N]
    out = cols[:, None] * M + rows[None, :]  # [N, M]
    tl.store(t_ptr + out, tl.trans(x))
    tl.store(u_ptr + out, x.T)
    tl.store(v_ptr + out, tl.permute(x, (1, 0)))


@pytest.mark.parametrize("dtype", ["float32", "int8", "float16", "int64"])
def test_transpose(dtype):
    M, N = 16, 8
    x = rand(rng(2), (M, N), dtype)
    t, u, v = (empty((N, M), dtype) for _ in range(3))
    transpose_kernel[(1,)](to_torch(x, dtype), t, u, v, M=M, N=N)
    for out in (t, u, v):
        assert_equal(out, x.T)


@triton.jit
def permute_kernel(x_ptr, z_ptr, w_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :])
    # [A, B, C] permuted by (2, 0, 1) is [C, A, B].
    p = tl.permute(x, (2, 0, 1))
    ci = tl.arange(0, C)
    ai = tl.arange(0, A)
    bi = tl.arange(0, B)
    out = ci[:, None, None] * (A * B) + ai[None, :, None] * B + bi[None, None, :]
    tl.store(z_ptr + out, p)
    # The same with the dimensions as separate arguments, and trans's form.
    tl.store(w_ptr + out, tl.trans(x, 2, 0, 1))


def test_permute_rank3():
    x = rand(rng(3), (A, B, C), "int32")
    z, w = empty((C, A, B), "int32"), empty((C, A, B), "int32")
    permute_kernel[(1,)](to_torch(x), z, w, A=A, B=B, C=C)
    assert_equal(z, np.transpose(x, (2, 0, 1)))
    assert_equal(w, np.transpose(x, (2, 0, 1)))


@triton.jit
def reshape_kernel(x_ptr, r2_ptr, r3_ptr, r1_ptr, rv_ptr, SIZE: tl.constexpr):
    offs = tl.arange(0, SIZE)
    x = tl.load(x_ptr + offs)  # [64]
    r2 = tl.reshape(x, (4, 16))
    i = tl.arange(0, 4)
    j = tl.arange(0, 16)
    tl.store(r2_ptr + i[:, None] * 16 + j[None, :], r2 * 2)
    r3 = x.reshape(2, 4, 8)
    a = tl.arange(0, 2)
    b = tl.arange(0, 4)
    c = tl.arange(0, 8)
    tl.store(r3_ptr + a[:, None, None] * 32 + b[None, :, None] * 8 + c[None, None, :], r3 + 1)
    # Back to rank 1 from a transposed block: element order is the transpose's.
    t = tl.trans(r2)  # [16, 4]
    tl.store(r1_ptr + offs, tl.reshape(t, [SIZE]))
    tl.store(rv_ptr + offs, tl.ravel(r3))


def test_reshape():
    x = rand(rng(4), 64, "float32")
    r2, r3 = empty((4, 16), "float32"), empty((2, 4, 8), "float32")
    r1, rv = empty(64, "float32"), empty(64, "float32")
    reshape_kernel[(1,)](to_torch(x), r2, r3, r1, rv, SIZE=64)
    assert_equal(r2, x.reshape(4, 16) * 2)
    assert_equal(r3, x.reshape(2, 4, 8) + 1)
    assert_equal(r1, x.reshape(4, 16).T.reshape(64))
    assert_equal(rv, x)


@triton.jit
def constructors_kernel(a_ptr, z_ptr, f_ptr, zl_ptr, BLOCK: tl.constexpr):
    r = tl.arange(16, 16 + BLOCK)  # a non-zero start
    tl.store(a_ptr + tl.arange(0, BLOCK), r)
    z = tl.zeros((4, BLOCK), dtype=tl.float16)
    f = tl.full((4, BLOCK), 2.5, tl.float32)
    i = tl.arange(0, 4)
    j = tl.arange(0, BLOCK)
    tl.store(z_ptr + i[:, None] * BLOCK + j[None, :], z + 1)
    tl.store(f_ptr + i[:, None] * BLOCK + j[None, :], f * i[:, None])
    tl.store(zl_ptr + j, tl.zeros_like(r) - r)


def test_block_constructors():
    BLOCK = 32
    a, zl = empty(BLOCK, "int32"), empty(BLOCK, "int32")
    z, f = empty((4, BLOCK), "float16"), empty((4, BLOCK), "float32")
    constructors_kernel[(1,)](a, z, f, zl, BLOCK=BLOCK)
    assert_equal(a, np.arange(16, 16 + BLOCK))
    assert_equal(z, np.ones((4, BLOCK)))
    assert_equal(f, np.full((4, BLOCK), 2.5) * np.arange(4)[:, None])
    assert_equal(zl, -np.arange(16, 16 + BLOCK))


@triton.jit
def shape_constexpr_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    # Shapes are compile-time values that kernels compute with.
    tl.static_assert(x.shape[0] == M)
    tl.static_assert(len(x.shape) == 2)
    t = tl.reshape(x, (x.shape[1], x.shape[0]))
    tl.store(z_ptr + rows[:, None] * N + cols[None, :], tl.reshape(t, (M, N)) * x.numel)


def test_shapes_are_constexprs():
    x = rand(rng(5), (8, 16), "int32", -100, 100)
    z = empty((8, 16), "int32")
    shape_constexpr_kernel[(1,)](to_torch(x), z, M=8, N=16)
    assert_equal(z, x * 128)


@triton.jit
def join_kernel(x_ptr, y_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.join(x, y)  # [N, 2]
    tl.store(z_ptr + offs[:, None] * 2 + tl.arange(0, 2)[None, :], z)


def test_join():
    gen = rng(6)
    x, y = rand(gen, 16, "float32"), rand(gen, 16, "float32")
    z = empty((16, 2), "float32")
    join_kernel[(1,)](to_torch(x), to_torch(y), z, N=16)
    assert_equal(z, np.stack([x, y], axis=1))


@triton.jit
def split_kernel(x_ptr, a_ptr, b_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs[:, None] * 2 + tl.arange(0, 2)[None, :])
    a, b = tl.split(x)
    tl.store(a_ptr + offs, a)
    tl.store(b_ptr + offs, b)


def test_split():
    x = rand(rng(7), (16, 2), "float32")
    a, b = empty(16, "float32"), empty(16, "float32")
    split_kernel[(1,)](to_torch(x), a, b, N=16)
    assert_equal(a, x[:, 0])
    assert_equal(b, x[:, 1])


@triton.jit
def join_split_2d_kernel(x_ptr, y_ptr, z_ptr, a_ptr, b_ptr, i_ptr, M: tl.constexpr,
                         N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.join(x, y)  # [M, N, 2]: rank 3
    pair = tl.arange(0, 2)[None, None, :]
    tl.store(z_ptr + offs[:, :, None] * 2 + pair, z)
    a, b = tl.split(z)
    tl.store(a_ptr + offs, a)
    tl.store(b_ptr + offs, b)
    wide = tl.arange(0, M)[:, None] * (2 * N) + tl.arange(0, 2 * N)[None, :]
    tl.store(i_ptr + wide, tl.interleave(x, y))


@pytest.mark.parametrize("dtype", ["float32", "int8", "bfloat16", "float64"])
def test_join_split_interleave_2d(dtype):
    gen = rng(8)
    x, y = rand(gen, (4, 8), dtype), rand(gen, (4, 8), dtype)
    z = empty((4, 8, 2), dtype)
    a, b, i = empty((4, 8), dtype), empty((4, 8), dtype), empty((4, 16), dtype)
    join_split_2d_kernel[(1,)](to_torch(x, dtype), to_torch(y, dtype), z, a, b, i, M=4, N=8)
    assert_equal(z, np.stack([x, y], axis=-1))
    assert_equal(a, x)  # bit for bit: split copies, it does not add
    assert_equal(b, y)
    assert_equal(i, np.stack([x, y], axis=-1).reshape(4, 16))


@triton.jit
def cat_kernel(x_ptr, y_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    z = tl.cat(tl.load(x_ptr + offs), tl.load(y_ptr + offs), can_reorder=True)
    tl.store(z_ptr + tl.arange(0, 2 * N), z)


def test_cat_keeps_the_order():
    gen = rng(9)
    x, y = rand(gen, 16, "int32"), rand(gen, 16, "int32")
    z = empty(32, "int32")
    cat_kernel[(1,)](to_torch(x), to_torch(y), z, N=16)
    assert_equal(z, np.concatenate([x, y]))


@triton.jit
def histogram_kernel(x_ptr, z_ptr, n, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(z_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


def test_histogram():
    x = rng(10).integers(0, 8, 100).astype(np.int32)
    z = empty(8, "int32")
    histogram_kernel[(1,)](to_torch(x), z, 100, N=128, BINS=8)
    assert_equal(z, np.bincount(x, minlength=8).astype(np.int32))


@triton.jit
def gather_kernel(src_ptr, idx_ptr, rows_ptr, cols_ptr, M: tl.constexpr, N: tl.constexpr,
                  K: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    # Along axis 1: K indices per row; along axis 0: K rows of indices per column.
    by_row = tl.load(idx_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    tl.store(rows_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :],
             tl.gather(src, by_row, 1))
    by_col = tl.load(idx_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :]) % M
    tl.store(cols_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :],
             src.gather(by_col, axis=0))


@pytest.mark.parametrize("dtype", ["float32", "int16", "float16"])
@pytest.mark.parametrize("m,n,k", [(4, 8, 8), (8, 16, 4), (2, 32, 64)])
def test_gather_along_each_axis(dtype, m, n, k):
    gen = rng(m * n + k)
    src = rand(gen, (m, n), dtype)
    idx = gen.integers(0, n, max(m, k) * max(n, k)).astype(np.int32)
    rows, cols = empty((m, k), dtype), empty((k, n), dtype)
    gather_kernel[(1,)](to_torch(src, dtype), to_torch(idx), rows, cols, M=m, N=n, K=k)
    assert_equal(rows, np.take_along_axis(src, idx[:m * k].reshape(m, k), 1))
    assert_equal(cols, np.take_along_axis(src, idx[:k * n].reshape(k, n) % m, 0))


@triton.jit
def scalar_new_axis_kernel(x_ptr, y_ptr, n, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    s = tl.where(n > 3, n.to(tl.float32) * 0.5, 1.0)
    # Indexing a scalar with None makes it a [1] block whatever the position (Triton's
    # expand_dims of a scalar); SGLang's grouped decode attention scales by `s[:, None]`.
    t = s[:, None]
    u = s[None]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * t + u)


def test_scalar_indexed_with_none_becomes_a_one_element_block():
    gen = rng(7)
    M, N = 4, 8
    x = rand(gen, (M, N), "float32")
    y = empty((M, N), "float32")
    scalar_new_axis_kernel[(1,)](to_torch(x), y, 10, M=M, N=N)
    assert_equal(y, x * np.float32(5.0) + np.float32(5.0))
