#!/usr/bin/env python3
"""PyTorch's CPU kernels on the workloads of AotBench, for side-by-side tables.

torch.add on 2^24 f32 and torch.softmax(dim=1) on n x n f32, at each thread
count AotBench uses; prints the minimum time of repeated runs in ms.
"""
import os
import time

import torch


def best_ms(fn, repeats):
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main():
    cores = os.cpu_count()
    counts = [1]
    while counts[-1] * 2 <= cores:
        counts.append(counts[-1] * 2)
    if counts[-1] != cores:
        counts.append(cores)
    a = torch.rand(1 << 24) * 2 - 1
    b = torch.rand(1 << 24) * 2 - 1
    c = torch.empty_like(a)
    print(f"torch {torch.__version__}, {cores} cores")
    for threads in counts:
        torch.set_num_threads(threads)
        t = best_ms(lambda: torch.add(a, b, out=c), 20)
        print(f"torch_add n=2^24 threads={threads} {t:.3f} ms {12 * (1 << 24) / t / 1e6:.1f} GB/s")
        for n in (1024, 4096):
            x = torch.rand(n, n) * 2 - 1
            y = torch.empty_like(x)
            t = best_ms(lambda: torch.softmax(x, dim=1, out=y), 20)
            print(f"torch_softmax n={n} threads={threads} {t:.3f} ms {8 * n * n / t / 1e6:.1f} GB/s")


if __name__ == "__main__":
    main()
