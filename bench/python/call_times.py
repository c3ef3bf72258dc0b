"""How long a Python kernel's calls take: the first call of a new
specialisation (translate + compile, or translate + load from blockc's disk
cache), and later calls (the in-process cache: argument typing and the
launch). Run with PYTHONPATH=build/python:

    /usr/bin/python3 bench/python/call_times.py

It prints milliseconds per phase for the vector add (4 programs, and one
program on numpy arrays and on torch tensors) and the tutorial matmul kernel
(fp16, 128x128x64 blocks), and for later calls also the part that is the
launch itself (blockc._core's Kernel.launch, no Python typing).
Each "cold" figure uses a fresh cache folder; "disk cache" a second process
on the same folder.
"""

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def launches():
    x = np.ones(4096, np.float32)
    out = np.empty_like(x)
    a = np.ones((256, 256), np.float16)
    c = np.empty_like(a)
    # Each launch, and the arguments its compiled kernel takes directly: the
    # grid, then the runtime parameters (strides of 1 are constexprs).
    small = np.ones(64, np.float32)
    small_out = np.empty_like(small)
    launches = {
        "vector add": (lambda: add_kernel[(4,)](x, x, out, 4096, BLOCK_SIZE=1024),
                       ((4, 1, 1), [x.ctypes.data, x.ctypes.data, out.ctypes.data, 4096])),
        "matmul": (lambda: matmul_kernel[(2, 2)](a, a, c, 256, 256, 256, 256, 1, 256, 1, 256, 1,
                                                BLOCK_M=128, BLOCK_N=128, BLOCK_K=64),
                   ((2, 2, 1), [a.ctypes.data, a.ctypes.data, c.ctypes.data, 256, 256, 256,
                                256, 256, 256])),
        # One program: the Python side of a launch, next to nothing else.
        "vector add, 1 program": (
            lambda: add_kernel[(1,)](small, small, small_out, 64, BLOCK_SIZE=64),
            ((1, 1, 1), [small.ctypes.data, small.ctypes.data, small_out.ctypes.data, 64])),
    }
    try:
        import torch
    except ImportError:
        return launches
    t, t_out = torch.ones(64), torch.empty(64)
    launches["vector add, 1 program, torch tensors"] = (
        lambda: add_kernel[(1,)](t, t, t_out, 64, BLOCK_SIZE=64),
        ((1, 1, 1), [t.data_ptr(), t.data_ptr(), t_out.data_ptr(), 64]))
    return launches


def per_call_us(fn, repeats=20000):
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - t0) * 1e6 / repeats


def measure():
    for name, (launch, (grid, values)) in launches().items():
        t0 = time.perf_counter()
        compiled = launch()
        first = (time.perf_counter() - t0) * 1e3
        later = per_call_us(launch)
        raw = per_call_us(lambda: compiled.kernel.launch(grid, values, None, 0))
        print(f"{name}: first call {first:.1f} ms, later calls {later:.0f} us "
              f"(the launch itself {raw:.0f} us)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        measure()
        sys.exit(0)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, BLOCKC_CACHE_DIR=cache)
        for label in ("cold (empty disk cache)", "disk cache"):
            print(f"-- {label}")
            sys.stdout.flush()
            subprocess.run([sys.executable, __file__, "--child"], env=env, check=True)
