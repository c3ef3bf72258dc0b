#!/usr/bin/env python3
"""PyTorch's CPU kernels on the workloads of AotBench and MatmulBench, for side-by-side tables.

AotBench's, at each thread count AotBench uses (1, 2, 4, ... and all cores):
torch.add on 2^24 f32; torch.softmax(dim=1) on n x n f32 for n in 1024 and
4096 (aot_softmax and aot_fused_softmax); torch.nn.functional.layer_norm over
the rows of 4096 x 4096 f32 with weight and bias; RMS norm over the rows of
4096 x 4096 f32 with a weight (torch.nn.functional.rms_norm where this torch
has it, else x * rsqrt(mean(x^2) + eps) * w, which the output line says);
torch.nn.functional.gelu (exact, erf) on 2^24 f32. eps is 1e-5, as AotBench's.

MatmulBench's, at 1 thread and all cores: f32 torch.matmul on the shapes of
matmul_bench (M x N x K: square 256 to 4096, 4096x64x4096, 64x4096x4096,
4096x4096x64), bf16 torch.matmul on square 1024 and 2048, and
torch.softmax(a @ b, dim=1) on matmul_bench's matmul_softmax shapes. GFLOP/s
count 2*M*N*K, the softmax not included, as matmul_bench does.

Every figure is the minimum time of repeated runs, in ms; results go to
preallocated out= tensors, as the C++ baselines do, where the op takes out=
(layer_norm and rms_norm do not, so they allocate their result each run). GB/s
count one read and one write of each element, as AotBench's bytes_per_second.

  python3 bench/torch_baseline.py [--only add,softmax,layer_norm,rms_norm,gelu,matmul]
                                  [--json FILE]

--json also writes every figure as a Google Benchmark JSON file, each named as
the C++ benchmark it stands beside with the side `baseline_torch`
(aot_softmax/baseline_torch/n:1024/threads:1, matmul/baseline_torch/m:1024/...):
bench/ratio_charts.py then pairs them with blockc's rows from the same machine.
"""
import argparse
import json
import os
import time

import torch

MATMUL_SHAPES = [(n, n, n) for n in (256, 512, 1024, 2048, 4096)] + [
    (4096, 64, 4096),
    (64, 4096, 4096),
    (4096, 4096, 64),
]
BF16_MATMUL_SIZES = (1024, 2048)
MATMUL_SOFTMAX_SHAPES = [(1024, 256, 256), (4096, 256, 256)]


# (name, ms) of every figure printed, for --json.
RECORDS = []


def record(names, ms):
    """Keeps `ms` under each benchmark name in `names` (FAMILY/baseline_torch/PARAMS)."""
    for name in names:
        RECORDS.append((name, ms))


def write_json(path):
    benchmarks = [{"name": name + "/real_time", "run_name": name + "/real_time",
                   "run_type": "iteration", "iterations": 1, "real_time": ms,
                   "cpu_time": ms, "time_unit": "ms"} for name, ms in RECORDS]
    context = {"executable": "bench/torch_baseline.py", "torch": torch.__version__,
               "num_cpus": os.cpu_count()}
    with open(path, "w") as f:
        json.dump({"context": context, "benchmarks": benchmarks}, f, indent=1)


def best_ms(fn, repeats, budget_s=None):
    """Minimum time of `repeats` runs after one warm-up, in ms; with `budget_s`,
    stops early (after at least 3 runs) once that many seconds have been spent."""
    fn()
    best = float("inf")
    spent = 0.0
    for i in range(repeats):
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        spent += elapsed
        if budget_s is not None and i >= 2 and spent > budget_s:
            break
    return best * 1e3


def thread_counts(cores):
    counts = [1]
    while counts[-1] * 2 <= cores:
        counts.append(counts[-1] * 2)
    if counts[-1] != cores:
        counts.append(cores)
    return counts


def elementwise(cores):
    a = torch.rand(1 << 24) * 2 - 1
    b = torch.rand(1 << 24) * 2 - 1
    c = torch.empty_like(a)
    for threads in thread_counts(cores):
        torch.set_num_threads(threads)
        t = best_ms(lambda: torch.add(a, b, out=c), 20)
        record([f"aot_vector_add/baseline_torch/threads:{threads}"], t)
        print(f"torch_add n=2^24 threads={threads} {t:.3f} ms {12 * (1 << 24) / t / 1e6:.1f} GB/s")


def softmax(cores):
    for threads in thread_counts(cores):
        torch.set_num_threads(threads)
        for n in (1024, 4096):
            x = torch.rand(n, n) * 2 - 1
            y = torch.empty_like(x)
            t = best_ms(lambda: torch.softmax(x, dim=1, out=y), 20)
            record([f"aot_{form}/baseline_torch/n:{n}/threads:{threads}"
                    for form in ("softmax", "fused_softmax")], t)
            print(f"torch_softmax n={n} threads={threads} {t:.3f} ms {8 * n * n / t / 1e6:.1f} GB/s")


NORM_N = 4096
NORM_EPS = 1e-5
GELU_N = 1 << 24


def layer_norm(cores):
    n = NORM_N
    x = torch.rand(n, n) * 2 - 1
    w = torch.rand(n) * 2 - 1
    b = torch.rand(n) * 2 - 1
    for threads in thread_counts(cores):
        torch.set_num_threads(threads)
        t = best_ms(lambda: torch.nn.functional.layer_norm(x, (n,), w, b, NORM_EPS), 20)
        record([f"aot_layer_norm/baseline_torch/n:{n}/threads:{threads}"], t)
        print(f"torch_layer_norm n={n} threads={threads} {t:.3f} ms {8 * n * n / t / 1e6:.1f} GB/s")


def rms_norm(cores):
    n = NORM_N
    x = torch.rand(n, n) * 2 - 1
    w = torch.rand(n) * 2 - 1
    if hasattr(torch.nn.functional, "rms_norm"):
        form = "F.rms_norm"
        fn = lambda: torch.nn.functional.rms_norm(x, (n,), w, NORM_EPS)
    else:
        form = "x*rsqrt(mean(x^2)+eps)*w"
        y = torch.empty_like(x)
        fn = lambda: torch.mul(x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + NORM_EPS), w,
                               out=y)
    for threads in thread_counts(cores):
        torch.set_num_threads(threads)
        t = best_ms(fn, 20)
        record([f"aot_rms_norm/baseline_torch/n:{n}/threads:{threads}"], t)
        print(f"torch_rms_norm n={n} threads={threads} {t:.3f} ms {8 * n * n / t / 1e6:.1f} GB/s"
              f" ({form})")


def gelu(cores):
    x = torch.rand(GELU_N) * 2 - 1
    y = torch.empty_like(x)
    try:
        torch.nn.functional.gelu(x, out=y)
        fn = lambda: torch.nn.functional.gelu(x, out=y)
    except TypeError:  # a torch whose gelu binding takes no out=
        fn = lambda: torch.nn.functional.gelu(x)
    for threads in thread_counts(cores):
        torch.set_num_threads(threads)
        t = best_ms(fn, 20)
        record([f"aot_gelu/baseline_torch/threads:{threads}"], t)
        print(f"torch_gelu n=2^24 threads={threads} {t:.3f} ms {8 * GELU_N / t / 1e6:.1f} GB/s")


def matmul(cores):
    """The matmul workloads as one table; rows as `workload dtype MxNxK threads`."""
    workloads = []
    for m, n, k in MATMUL_SHAPES:
        workloads.append(("matmul", torch.float32, m, n, k))
    for n in BF16_MATMUL_SIZES:
        workloads.append(("matmul", torch.bfloat16, n, n, n))
    for m, n, k in MATMUL_SOFTMAX_SHAPES:
        workloads.append(("matmul_softmax", torch.float32, m, n, k))

    header = f"{'workload':<16}{'dtype':<7}{'M x N x K':>18}{'threads':>9}{'min ms':>11}{'GFLOP/s':>10}"
    print()
    print(header)
    print("-" * len(header))
    for threads in sorted({1, cores}):
        torch.set_num_threads(threads)
        for name, dtype, m, n, k in workloads:
            a = (torch.rand(m, k) * 2 - 1).to(dtype)
            b = (torch.rand(k, n) * 2 - 1).to(dtype)
            c = torch.empty(m, n, dtype=dtype)
            if name == "matmul":
                fn = lambda: torch.matmul(a, b, out=c)
            else:
                product = torch.empty(m, n, dtype=dtype)
                fn = lambda: torch.softmax(torch.matmul(a, b, out=product), dim=1, out=c)
            t = best_ms(fn, 20, budget_s=2.0)
            dtype_name = {torch.float32: "f32", torch.bfloat16: "bf16"}[dtype]
            shape = f"m:{m}/n:{n}/k:{k}/threads:{threads}"
            if name == "matmul_softmax":
                record([f"matmul_softmax/baseline_torch/{shape}"], t)
            elif dtype == torch.bfloat16:
                record([f"matmul_lowp/baseline_torch/{shape}/bf16:1"], t)
            else:
                record([f"matmul/baseline_torch/{shape}"], t)
            print(f"{name:<16}{dtype_name:<7}{f'{m}x{n}x{k}':>18}{threads:>9}{t:>11.3f}"
                  f"{2 * m * n * k / t / 1e6:>10.1f}")


WORKLOADS = {
    "add": elementwise,
    "softmax": softmax,
    "layer_norm": layer_norm,
    "rms_norm": rms_norm,
    "gelu": gelu,
    "matmul": matmul,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(WORKLOADS),
                        help="comma-separated subset of " + ", ".join(WORKLOADS) +
                        " (default: all)")
    parser.add_argument("--json", metavar="FILE",
                        help="also write the figures as Google Benchmark JSON")
    args = parser.parse_args()
    only = set(args.only.split(","))
    unknown = only - set(WORKLOADS)
    if unknown:
        parser.error("unknown workload(s): " + ", ".join(sorted(unknown)))
    cores = os.cpu_count()
    print(f"torch {torch.__version__}, {cores} cores")
    with torch.inference_mode():
        for name, run in WORKLOADS.items():
            if name in only:
                run(cores)
    if args.json:
        write_json(args.json)


if __name__ == "__main__":
    main()
