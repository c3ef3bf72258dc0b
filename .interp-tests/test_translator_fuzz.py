"""The translator on kernels a user might half-write: seeded random mutations
of valid kernels (operators swapped, names and literals replaced, lines
dropped or duplicated) are translated and compiled, never run. Each must
either compile or raise the frontend's own errors (CompilationError, or a
TypeError about the launch); anything else is a translator bug, and so is a
Block IR the compiler rejects, since the translator must only ever produce
valid Block IR or say why not."""

import importlib.util
import random
import re

import numpy as np
import pytest

import triton

SEEDS = range(400)

KERNELS = {
    "softmax": '''
import triton
import triton.language as tl

@triton.jit
def kernel(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    row_start = tl.program_id(0)
    for row in tl.range(row_start, n_rows, tl.num_programs(0)):
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        if row > 2:
            y = y * 2.0
        tl.store(out_ptr + row * stride + offs, y, mask=mask)
''',
    "matmul": '''
import triton
import triton.language as tl

@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=(k + rk)[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    c = tl.where(acc > 0, acc, 0.01 * acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))
''',
}

ARGUMENTS = {
    "softmax": lambda: (np.zeros((4, 16), np.float32), np.zeros((4, 16), np.float32), 16, 4, 16),
    "matmul": lambda: (np.zeros((8, 8), np.float16), np.zeros((8, 8), np.float16),
                       np.zeros((8, 8), np.float32), 8, 8, 8),
}
CONSTEXPRS = {"softmax": {"BLOCK": 16}, "matmul": {"BM": 8, "BN": 8, "BK": 8}}

OPERATORS = ["+", "-", "*", "/", "//", "%", "&", "|", "<", ">", "==", "<<"]
REPLACEMENTS = ["0", "1", "2.5", "-1", "None", "True", "tl.float16", "(1, 2)", "x", "mask",
                "offs", "acc", "tl.arange(0, 4)", "tl.zeros((2, 2), dtype=tl.int8)", "'s'",
                "in_ptr", "a_ptr", "k"]


def mutate(source, rng):
    lines = source.split("\n")
    body = [i for i, line in enumerate(lines) if line.startswith("    ") and line.strip()]
    for _ in range(rng.randint(1, 3)):
        i = rng.choice(body)
        line = lines[i]
        kind = rng.randrange(4)
        if kind == 0:  # swap an operator
            found = [m for m in re.finditer(r"(?<=\s)(\+|-|\*|/|<|>|&)(?=\s)", line)]
            if found:
                m = rng.choice(found)
                line = line[:m.start()] + rng.choice(OPERATORS) + line[m.end():]
        elif kind == 1:  # replace a name or literal
            found = list(re.finditer(r"\b[A-Za-z_][A-Za-z_0-9]*\b|\b\d+(\.\d+)?\b", line))
            if found:
                m = rng.choice(found)
                line = line[:m.start()] + rng.choice(REPLACEMENTS) + line[m.end():]
        elif kind == 2 and not line.rstrip().endswith(":"):  # drop the line
            line = line[:len(line) - len(line.lstrip())] + "pass"
        elif not line.rstrip().endswith(":"):  # run it twice
            indent = line[:len(line) - len(line.lstrip())]
            line = line + "\n" + indent + line.strip()
        lines[i] = line
    return "\n".join(lines)


def load(source, path):
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_unmutated_kernels_compile(name, tmp_path):
    kernel = load(KERNELS[name], tmp_path / f"fuzz_{name}.py")
    kernel.warmup(*ARGUMENTS[name](), grid=(1,), **CONSTEXPRS[name])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_mutated_kernel_compiles_or_gets_a_frontend_error(seed, tmp_path):
    rng = random.Random(seed)
    name = sorted(KERNELS)[seed % len(KERNELS)]
    source = mutate(KERNELS[name], rng)
    try:
        kernel = load(source, tmp_path / f"fuzz_{name}_{seed}.py")
    except (SyntaxError, NameError, TypeError, ValueError, AttributeError):
        return  # not a kernel Python accepts; the frontend never sees it
    try:
        kernel.warmup(*ARGUMENTS[name](), grid=(1,), **CONSTEXPRS[name])
    except triton.CompilationError as e:
        assert "in the Block IR translated from it" not in str(e), \
            f"the translator produced invalid Block IR for:\n{source}\n{e}"
        assert re.match(r".*fuzz_\w+\.py:\d+:\d+: error: ", str(e)), str(e)
    except TypeError as e:
        assert "(defined at" in str(e), f"{type(e).__name__}: {e}\n{source}"
