"""Conformance: tl.dot. f32, f16 and bf16 (accumulating in f32), f64, and int8
(accumulating in int32); with and without an accumulator (`acc=`, `acc +=`,
out_dtype), transposed operands, non-power-of-two problems through masked loads in a
K loop, and batched (rank-3) dots.

The f16/bf16 references multiply the exact inputs in float64: f16 and bf16 products
are exact in f32, so only the f32 sum's rounding differs."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (BF16_REASON, assert_close, assert_equal, blockc_extension, empty,
                      interpreter_limitation, rand, rng, to_torch)


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, acc_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               MODE: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    if MODE == "plain":
        c = tl.dot(a, b)
    elif MODE == "ieee":
        c = tl.dot(a, b, input_precision="ieee")
    elif MODE == "acc":
        acc = tl.load(acc_ptr + m[:, None] * N + n[None, :])
        c = tl.dot(a, b, acc)
    elif MODE == "acc_kw":
        acc = tl.load(acc_ptr + m[:, None] * N + n[None, :])
        c = tl.dot(a, b, acc=acc, out_dtype=acc.dtype)
    elif MODE == "plus_equal":
        c = tl.load(acc_ptr + m[:, None] * N + n[None, :])
        c += tl.dot(a, b)
    elif MODE == "f16_out":
        c = tl.dot(a, b, out_dtype=tl.float16)
        tl.static_assert(c.dtype == tl.float16)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


def operands(dtype, M, N, K, seed=0):
    gen = rng(seed)
    if dtype == "int8":
        return rand(gen, (M, K), "int8"), rand(gen, (K, N), "int8")
    return rand(gen, (M, K), dtype, -2.0, 2.0), rand(gen, (K, N), dtype, -2.0, 2.0)


ACC_TYPE = {"float32": "float32", "float16": "float32", "bfloat16": "float32", "float64": "float64",
            "int8": "int32"}
SHAPES = [(16, 16, 16), (32, 64, 16), (64, 16, 32), (16, 32, 128)]


def check(c, expected, acc_type, K):
    if acc_type == "int32":
        assert_equal(c, expected)
    elif acc_type == "float64":
        assert_close(c, expected, rtol=1e-12, atol=1e-12)
    else:
        # f32 sums of K products of size <= 4 in any order.
        assert_close(c, expected, rtol=1e-5, atol=4e-6 * K)


@interpreter_limitation(BF16_REASON, when=lambda p: p["dtype"] == "bfloat16")
@pytest.mark.parametrize("M,N,K", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8", "float64"])
def test_dot(dtype, M, N, K):
    a, b = operands(dtype, M, N, K)
    acc_type = ACC_TYPE[dtype]
    c = empty((M, N), acc_type)
    dot_kernel[(1,)](to_torch(a, dtype), to_torch(b, dtype), c, c, M=M, N=N, K=K, MODE="plain")
    wide = np.int64 if dtype == "int8" else np.float64
    check(c, a.astype(wide) @ b.astype(wide), acc_type, K)


# An int32 accumulator needs out_dtype=tl.int32 (Triton checks acc's type against
# out_dtype, which defaults to float32): int8 has "acc_kw" and "plus_equal" only.
# input_precision is for float operands.
ACC_CASES = [(d, mode) for d in ("float32", "float16") for mode in ("acc", "acc_kw", "plus_equal", "ieee")] + \
            [("int8", "acc_kw"), ("int8", "plus_equal")]


@pytest.mark.parametrize("dtype,mode", ACC_CASES, ids=[f"{d}-{m}" for d, m in ACC_CASES])
def test_dot_with_accumulator(dtype, mode):
    M, N, K = 32, 32, 64
    a, b = operands(dtype, M, N, K, seed=1)
    acc_type = ACC_TYPE[dtype]
    acc = rand(rng(2), (M, N), acc_type, -100, 100)
    c = empty((M, N), acc_type)
    dot_kernel[(1,)](to_torch(a, dtype), to_torch(b, dtype), c, to_torch(acc), M=M, N=N, K=K, MODE=mode)
    wide = np.int64 if dtype == "int8" else np.float64
    expected = a.astype(wide) @ b.astype(wide)
    if mode != "ieee":
        expected = expected + acc
    check(c, expected, acc_type, K)


def test_dot_f16_output():
    M, N, K = 32, 16, 32
    a, b = operands("float16", M, N, K, seed=3)
    c = empty((M, N), "float16")
    dot_kernel[(1,)](to_torch(a), to_torch(b), c, c, M=M, N=N, K=K, MODE="f16_out")
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert_close(c, expected, rtol=2.0**-10, atol=1e-2)


@triton.jit
def dot_trans_keywords_kernel(at_ptr, bt_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                              K: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    at = tl.load(at_ptr + k[:, None] * M + m[None, :])  # A stored transposed: [K, M]
    bt = tl.load(bt_ptr + n[:, None] * K + k[None, :])  # B stored transposed: [N, K]
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(at, bt, trans_a=True, trans_b=True))


@blockc_extension("Triton 2.0's tl.dot(trans_a=, trans_b=) (flash-attention's "
                  "flash_attn_triton.py), which Triton 2.1 and later removed")
def test_dot_with_triton_2_0_transpose_keywords():
    M, N, K = 16, 32, 24
    gen = rng(5)
    a, bt = rand(gen, (M, K), "float32", -2.0, 2.0), rand(gen, (N, K), "float32", -2.0, 2.0)
    c = empty((M, N), "float32")
    dot_trans_keywords_kernel[(1,)](to_torch(np.ascontiguousarray(a.T)), to_torch(bt), c,
                                    M=M, N=N, K=K)
    check(c, a.astype(np.float64) @ bt.astype(np.float64).T, "float32", K)


@triton.jit
def dot_transposed_kernel(a_ptr, bt_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])  # [M, K]
    bt = tl.load(bt_ptr + n[:, None] * K + k[None, :])  # B stored transposed: [N, K]
    c = tl.dot(a, tl.trans(bt))
    # a @ a.T through a transposed load: A read as [K, M] by strides.
    at = tl.load(a_ptr + k[:, None] + m[None, :] * K)
    g = tl.dot(a, at)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)
    tl.store(c_ptr + M * N + m[:, None] * M + m[None, :], g)


def test_dot_of_transposed_operands():
    M, N, K = 32, 16, 64
    gen = rng(4)
    a, bt = rand(gen, (M, K), "float32", -2.0, 2.0), rand(gen, (N, K), "float32", -2.0, 2.0)
    c = empty(M * N + M * M, "float32")
    dot_transposed_kernel[(1,)](to_torch(a), to_torch(bt), c, M=M, N=N, K=K)
    a64 = a.astype(np.float64)
    check(c[:M * N].reshape(M, N), a64 @ bt.astype(np.float64).T, "float32", K)
    check(c[M * N:].reshape(M, M), a64 @ a64.T, "float32", K)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                  stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@interpreter_limitation(BF16_REASON, when=lambda p: p["dtype"] == "bfloat16")
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("M,N,K", [(20, 24, 40), (33, 17, 65), (64, 64, 64)])
def test_dot_in_a_k_loop_with_masked_edges(dtype, M, N, K):
    gen = rng(5)
    a, b = rand(gen, (M, K), dtype, -2.0, 2.0), rand(gen, (K, N), dtype, -2.0, 2.0)
    c = empty((M, N), "float32")
    ta, tb = to_torch(a, dtype), to_torch(b, dtype)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    matmul_kernel[grid](ta, tb, c, M, N, K, ta.stride(0), ta.stride(1), tb.stride(0), tb.stride(1),
                        c.stride(0), c.stride(1), BM=16, BN=16, BK=32)
    check(c, a.astype(np.float64) @ b.astype(np.float64), "float32", K)


@triton.jit
def batched_dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    i = tl.arange(0, B)
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + i[:, None, None] * (M * K) + m[None, :, None] * K + k[None, None, :])
    b = tl.load(b_ptr + i[:, None, None] * (K * N) + k[None, :, None] * N + n[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + i[:, None, None] * (M * N) + m[None, :, None] * N + n[None, None, :], c)


@pytest.mark.parametrize("Bt,M,N,K", [(2, 16, 16, 16), (4, 8, 32, 16), (1, 16, 8, 32)])
def test_batched_dot(Bt, M, N, K):
    gen = rng(6)
    a, b = rand(gen, (Bt, M, K), "float32"), rand(gen, (Bt, K, N), "float32")
    c = empty((Bt, M, N), "float32")
    batched_dot_kernel[(1,)](to_torch(a), to_torch(b), c, B=Bt, M=M, N=N, K=K)
    check(c, a.astype(np.float64) @ b.astype(np.float64), "float32", K)
