"""Conformance: control flow and the structure of kernels. Run-time if/else on
scalars (values joined after the branches), constexpr if (the branch not taken is
never translated), early return, for loops over range with positive, negative and
run-time steps, tl.range, tl.static_range, loop-carried scalars, blocks, pointers and
tuples, nested loops, loops that run zero times; constexpr parameters and defaults
(numbers, strings, dtypes, None), @triton.jit helpers (tensors, constexprs, keyword
and default arguments, tuples returned, helpers calling helpers), tuples, program ids
on a 3-D grid, and the launch grid as a tuple, an int and a function. `while` loops:
zero trips, scalars and blocks carried, a binary search over blocks, a persistent
kernel striding over tiles, and a spin lock built from atomic_cas whose critical
section the grid's threads contend for."""

import subprocess

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (python_command, assert_close, assert_equal, blockc_only, empty, interpreter_limitation, rand,
                      rng, to_torch, xfail_in_blockc)

BLOCK = 32


# --- if / else


@triton.jit
def runtime_if_kernel(x_ptr, z_ptr, flag, threshold, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # A value defined in both branches, used after them.
    if flag > threshold:
        y = x * 2
        s = 1.0
    else:
        y = x + 100
        s = -1.0
    # A value changed in one branch only.
    w = x
    if flag == 3:
        w = w - 1
    tl.store(z_ptr + offs, y * s + w)


@pytest.mark.parametrize("flag", [0, 3, 7])
def test_runtime_if_else(flag):
    x = rand(rng(0), BLOCK, "float32")
    z = empty(BLOCK, "float32")
    runtime_if_kernel[(1,)](to_torch(x), z, flag, 2, BLOCK=BLOCK)
    y, s = (x * 2, 1.0) if flag > 2 else (x + 100, -1.0)
    w = x - 1 if flag == 3 else x
    assert_equal(z, (y * np.float32(s) + w).astype(np.float32))


@triton.jit
def nested_if_kernel(z_ptr, a, b):
    pid = tl.program_id(0)
    v = 0
    if pid == 0:
        if a > b:
            v = a - b
        elif a == b:
            v = 100
        else:
            v = b - a
    else:
        v = a * b if pid == 1 else -pid  # a conditional expression on a scalar
    tl.store(z_ptr + pid, v)


@pytest.mark.parametrize("a,b", [(5, 2), (4, 4), (1, 9)])
def test_nested_if_and_conditional_expression(a, b):
    z = empty(3, "int32")
    nested_if_kernel[(3,)](z, a, b)
    first = a - b if a > b else 100 if a == b else b - a
    assert_equal(z, [first, a * b, -2])


@triton.jit
def constexpr_if_kernel(x_ptr, z_ptr, IS_FLOAT: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if IS_FLOAT:
        y = tl.exp(x.to(tl.float32))  # never translated for ints...
    else:
        y = (x >> 1).to(tl.float32)  # ...nor this for floats (>> on floats is an error)
    if MODE == "double":
        y = y * 2
    elif MODE == "negate":
        y = -y
    if not IS_FLOAT and MODE != "double":
        y = y + 0.5
    tl.store(z_ptr + offs, y)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("mode", ["double", "negate", "keep"])
def test_constexpr_if(dtype, mode):
    x = rand(rng(1), BLOCK, dtype, -3, 3)
    z = empty(BLOCK, "float32")
    constexpr_if_kernel[(1,)](to_torch(x), z, IS_FLOAT=dtype == "float32", MODE=mode, BLOCK=BLOCK)
    y = np.exp(x.astype(np.float64)) if dtype == "float32" else (x >> 1).astype(np.float64)
    y = y * 2 if mode == "double" else -y if mode == "negate" else y
    if dtype == "int32" and mode != "double":
        y = y + 0.5
    assert_close(z, y, rtol=4 * 2.0**-23)


@triton.jit
def early_return_kernel(x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, tl.load(x_ptr + offs) + 1)


def test_early_return():
    x = rand(rng(2), 4 * BLOCK, "int32", -100, 100)
    z = empty(4 * BLOCK, "int32", fill=-7)
    early_return_kernel[(4,)](to_torch(x), z, 2 * BLOCK, BLOCK=BLOCK)
    assert_equal(z, np.concatenate([x[:2 * BLOCK] + 1, np.full(2 * BLOCK, -7)]))


@triton.jit
def return_in_constexpr_if_kernel(x_ptr, z_ptr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if MODE == "odd_programs_return":
        # A run-time return nested in a constexpr if: the statements after the
        # outer if do not run for the odd programs.
        if pid % 2 == 1:
            return
        x = x * 2
    tl.store(z_ptr + offs, x + 1)


@pytest.mark.parametrize("mode", ["odd_programs_return", "plain"])
def test_return_inside_a_runtime_if_nested_in_a_constexpr_if(mode):
    x = rand(rng(3), 4 * BLOCK, "int32", -100, 100)
    z = empty(4 * BLOCK, "int32", fill=-7)
    return_in_constexpr_if_kernel[(4,)](to_torch(x), z, MODE=mode, BLOCK=BLOCK)
    expected = x + 1
    if mode == "odd_programs_return":
        programs = np.arange(4 * BLOCK) // BLOCK
        expected = np.where(programs % 2 == 1, -7, x * 2 + 1)
    assert_equal(z, expected)


@triton.jit
def return_in_nested_ifs_kernel(x_ptr, z_ptr, a, b, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if a > 0:
        if b > 0:
            tl.store(z_ptr + offs, x * 3)
            return
        x = x - 1  # only when a > 0 and b <= 0
    else:
        if b < 0:
            return
    tl.store(z_ptr + offs, x + 100)


@pytest.mark.parametrize("a", [-1, 1])
@pytest.mark.parametrize("b", [-1, 0, 1])
def test_return_inside_nested_runtime_ifs(a, b):
    x = rand(rng(4), BLOCK, "int32", -100, 100)
    z = empty(BLOCK, "int32", fill=-7)
    return_in_nested_ifs_kernel[(1,)](to_torch(x), z, a, b, BLOCK=BLOCK)
    if a > 0:
        expected = x * 3 if b > 0 else x - 1 + 100
    else:
        expected = np.full(BLOCK, -7) if b < 0 else x + 100
    assert_equal(z, expected)


@triton.jit
def _piecewise(x, a, b):
    if a > 0:
        if b > 0:
            return x * 3.0
        return x * 2.0
    y = x - 1.0
    if b > 0:
        return y * y
    return y


@triton.jit
def helper_early_returns_kernel(x_ptr, z_ptr, a, b, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, _piecewise(tl.load(x_ptr + offs), a, b))


@pytest.mark.parametrize("a", [-1, 1])
@pytest.mark.parametrize("b", [-1, 1])
def test_helper_returning_values_from_nested_runtime_ifs(a, b):
    x = rand(rng(5), BLOCK, "float32")
    z = empty(BLOCK, "float32")
    helper_early_returns_kernel[(1,)](to_torch(x), z, a, b, BLOCK=BLOCK)
    x64 = x.astype(np.float64)
    if a > 0:
        expected = x64 * 3 if b > 0 else x64 * 2
    else:
        expected = (x64 - 1) ** 2 if b > 0 else x64 - 1
    assert_close(z, expected, rtol=2.0**-22, atol=2.0**-22)


@triton.jit
def rebound_after_return_kernel(x_ptr, z_ptr, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if flag > 0:
        tl.store(z_ptr + offs, x * 0.5)
        return
    # Rebound to another type on the path that did not return.
    x = x.to(tl.int32) * 2
    tl.store(z_ptr + offs, x)


@pytest.mark.parametrize("flag", [0, 1])
def test_a_name_rebound_to_another_type_after_an_early_return(flag):
    x = rand(rng(6), BLOCK, "float32", -50, 50)
    z = empty(BLOCK, "float32")
    rebound_after_return_kernel[(1,)](to_torch(x), z, flag, BLOCK=BLOCK)
    expected = x.astype(np.float64) * 0.5 if flag else np.trunc(x).astype(np.int64) * 2
    assert_equal(z, expected.astype(np.float32))


@triton.jit
def return_in_static_range_kernel(z_ptr, stop, N: tl.constexpr):
    for i in tl.static_range(N):
        if i == stop:
            return
        tl.store(z_ptr + i, i * 10)


@pytest.mark.parametrize("stop", [0, 2, 9])
def test_return_inside_an_unrolled_loop(stop):
    z = empty(4, "int32", fill=-7)
    return_in_static_range_kernel[(1,)](z, stop, N=4)
    assert_equal(z, [i * 10 if i < stop else -7 for i in range(4)])


# --- for loops


@triton.jit
def loops_kernel(z_ptr, lo, hi, step, n):
    # Each loop sums its induction variable into a scalar carried through it.
    s0 = 0
    for i in range(n):
        s0 += i
    s1 = 0
    for i in range(lo, hi):
        s1 += i
    s2 = 0
    for i in range(lo, hi, 3):  # a positive constant step
        s2 += i
    s3 = 0
    for i in range(hi, lo, -2):  # a negative constant step
        s3 += i
    s4 = 0
    for i in range(lo, hi, step):  # a run-time step
        s4 += i
    s5 = 0
    for i in tl.range(lo, hi, 2, num_stages=2):
        s5 += i * i
    s6 = 0
    for i in tl.static_range(4):
        s6 += i * 10
    s7 = 0
    for i in tl.static_range(8, 0, -3):
        s7 += i
    s8 = 0
    for i in range(10, 0, -1):
        s8 = s8 * 2 + i
    tl.store(z_ptr + 0, s0)
    tl.store(z_ptr + 1, s1)
    tl.store(z_ptr + 2, s2)
    tl.store(z_ptr + 3, s3)
    tl.store(z_ptr + 4, s4)
    tl.store(z_ptr + 5, s5)
    tl.store(z_ptr + 6, s6)
    tl.store(z_ptr + 7, s7)
    tl.store(z_ptr + 8, s8)


def loops_reference(lo, hi, step, n):
    s8 = 0
    for i in range(10, 0, -1):
        s8 = s8 * 2 + i
    return [sum(range(n)), sum(range(lo, hi)), sum(range(lo, hi, 3)), sum(range(hi, lo, -2)),
            sum(range(lo, hi, step)), sum(i * i for i in range(lo, hi, 2)), sum(i * 10 for i in range(4)),
            sum(range(8, 0, -3)), s8]


@pytest.mark.parametrize("lo,hi,step,n", [(2, 17, 4, 9), (-5, 6, 3, 0), (7, 7, 2, 3), (10, 3, 5, 4)])
def test_for_loops(lo, hi, step, n):
    z = empty(9, "int32")
    loops_kernel[(1,)](z, lo, hi, step, n)
    assert_equal(z, loops_reference(lo, hi, step, n))


@triton.jit
def negative_runtime_step_kernel(z_ptr, hi, lo, step):
    s = 0
    count = 0
    for i in range(hi, lo, step):  # step < 0 at run time
        s += i
        count += 1
    tl.store(z_ptr + 0, s)
    tl.store(z_ptr + 1, count)


@pytest.mark.parametrize("hi,lo,step", [(20, 3, -4), (5, 5, -1), (0, -9, -2)])
def test_negative_runtime_step(hi, lo, step):
    z = empty(2, "int32")
    negative_runtime_step_kernel[(1,)](z, hi, lo, step)
    assert_equal(z, [sum(range(hi, lo, step)), len(range(hi, lo, step))])


@triton.jit
def carried_values_kernel(x_ptr, z_ptr, n_chunks, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = tl.zeros((BLOCK,), tl.float32)  # a block
    squares = 0.0  # a scalar that starts as a Python float
    biggest = -float("inf")
    pair = (tl.zeros((BLOCK,), tl.float32), 0)  # a tuple of a block and an int
    p = x_ptr  # a pointer
    for c in range(n_chunks):
        x = tl.load(p + offs)
        total += x
        squares += tl.sum(x * x)
        biggest = tl.maximum(biggest, tl.max(x, axis=0))
        pair = (pair[0] + x * c, pair[1] + c)
        p += BLOCK
    tl.store(z_ptr + offs, total)
    tl.store(z_ptr + BLOCK + offs, pair[0])
    tl.store(z_ptr + 2 * BLOCK, squares)
    tl.store(z_ptr + 2 * BLOCK + 1, biggest)
    tl.store(z_ptr + 2 * BLOCK + 2, pair[1].to(tl.float32))


@interpreter_limitation("a Python int carried through a loop stays a Python int, without .to() "
                        "(on a GPU it becomes a loop-carried tensor)")
@pytest.mark.parametrize("n_chunks", [5, 1, 0])
def test_loop_carried_values(n_chunks):
    x = rand(rng(3), (max(n_chunks, 1), BLOCK), "float32")
    z = empty(2 * BLOCK + 3, "float32")
    carried_values_kernel[(1,)](to_torch(x), z, n_chunks, BLOCK=BLOCK)
    x64 = x[:n_chunks].astype(np.float64)
    weights = np.arange(n_chunks)[:, None]
    assert_close(z[:BLOCK], x64.sum(axis=0), rtol=1e-6, atol=1e-6)
    assert_close(z[BLOCK:2 * BLOCK], (x64 * weights).sum(axis=0), rtol=1e-6, atol=1e-5)
    assert_close(z[2 * BLOCK:2 * BLOCK + 1], [(x64 * x64).sum()], rtol=1e-5)
    assert_equal(z[2 * BLOCK + 1:2 * BLOCK + 2], [x64.max() if n_chunks else -np.inf])
    assert_equal(z[2 * BLOCK + 2:], [sum(range(n_chunks))])


@triton.jit
def nested_loops_kernel(x_ptr, z_ptr, R, C, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.int32)
    for r in range(R):
        row = tl.zeros((BLOCK,), tl.int32)
        for c in range(0, C, BLOCK):
            cols = c + offs
            row += tl.load(x_ptr + r * C + cols, mask=cols < C, other=0)
        if r % 2 == 0:
            acc += row
        else:
            acc -= row
    tl.store(z_ptr + offs, acc)


def test_nested_loops():
    R, C = 5, 70
    x = rand(rng(4), (R, C), "int32", -100, 100)
    z = empty(BLOCK, "int32")
    nested_loops_kernel[(1,)](to_torch(x), z, R, C, BLOCK=BLOCK)
    padded = np.zeros((R, 3 * BLOCK), np.int64)
    padded[:, :C] = x
    rows = padded.reshape(R, 3, BLOCK).sum(axis=1)
    signs = np.where(np.arange(R) % 2 == 0, 1, -1)[:, None]
    assert_equal(z, (rows * signs).sum(axis=0))


@triton.jit
def static_range_kernel(x_ptr, z_ptr, BLOCK: tl.constexpr, PARTS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.static_range(PARTS):
        # i is a compile-time int: it may pick a branch or a shape.
        if i % 2 == 0:
            acc += tl.load(x_ptr + i * BLOCK + offs)
        else:
            acc -= tl.load(x_ptr + i * BLOCK + offs)
    for i in tl.static_range(1, 3):
        acc = acc * i
    tl.store(z_ptr + offs, acc)


def test_static_range():
    x = rand(rng(5), (4, BLOCK), "float32")
    z = empty(BLOCK, "float32")
    static_range_kernel[(1,)](to_torch(x), z, BLOCK=BLOCK, PARTS=4)
    assert_close(z, (x[0] - x[1] + x[2] - x[3]).astype(np.float64) * 2, rtol=1e-6, atol=1e-6)


@triton.jit
def while_kernel(z_ptr, n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    tl.store(z_ptr, s)


@pytest.mark.parametrize("n,expected", [(10, 45), (0, 0), (-3, 0), (1, 0)])
def test_while_loop(n, expected):
    z = empty(1, "int32")
    while_kernel[(1,)](z, n)
    assert_equal(z, [expected])


@triton.jit
def binary_search_kernel(sorted_ptr, n, keys_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    key = tl.load(keys_ptr + offs)
    lo = tl.zeros((BLOCK,), tl.int32)
    hi = tl.zeros((BLOCK,), tl.int32) + n
    while tl.max(hi - lo, axis=0) > 0:  # a block carried, the condition a reduction of it
        mid = (lo + hi) // 2
        active = lo < hi
        v = tl.load(sorted_ptr + mid, mask=active & (mid < n), other=0)
        right = active & (v < key)
        lo = tl.where(right, mid + 1, lo)
        hi = tl.where(active & (v >= key), mid, hi)
    tl.store(out_ptr + offs, lo)


@pytest.mark.parametrize("n", [1, 7, 300])
def test_while_binary_search(n):
    gen = rng(11)
    table = np.sort(gen.integers(0, 1000, n)).astype(np.int32)
    keys = gen.integers(-5, 1005, 64).astype(np.int32)
    out = empty(64, "int32")
    binary_search_kernel[(4,)](to_torch(table), n, to_torch(keys), out, BLOCK=16)
    assert_equal(out, np.searchsorted(table, keys).astype(np.int32))


@triton.jit
def persistent_kernel(x_ptr, z_ptr, num_tiles, PROGRAMS: tl.constexpr, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    while tile < num_tiles:  # each program strides over the tiles, as persistent kernels do
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        tl.store(z_ptr + offs, tl.load(x_ptr + offs) * 2 + tile)
        tile += PROGRAMS


def test_while_persistent_kernel():
    tiles, block = 37, 16
    x = rand(rng(12), tiles * block, "float32")
    z = empty(tiles * block, "float32")
    persistent_kernel[(5,)](to_torch(x), z, tiles, PROGRAMS=5, BLOCK=block)
    assert_equal(z, x * 2 + np.repeat(np.arange(tiles), block).astype(np.float32))


@triton.jit
def locked_sum_kernel(lock_ptr, total_ptr, count_ptr, x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    # Tutorial 05's pattern: spin on a compare-and-swap, update without atomics, release.
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(total_ptr, tl.load(total_ptr) + tl.sum(x, axis=0))
    tl.store(count_ptr, tl.load(count_ptr) + 1)
    tl.atomic_xchg(lock_ptr, 0)


def test_while_spin_lock_guards_a_critical_section():
    programs, block = 400, 32
    x = rng(13).integers(-5, 6, programs * block).astype(np.int64)
    lock, total, count = empty(1, "int32"), empty(1, "int64"), empty(1, "int32")
    locked_sum_kernel[(programs,)](lock, total, count, to_torch(x), BLOCK=block)
    assert int(count[0]) == programs and int(lock[0]) == 0
    assert int(total[0]) == x.sum()


@triton.jit
def while_false_kernel(z_ptr, FLAG: tl.constexpr):
    i = 0
    while FLAG and i < 5:  # FLAG is False: the loop never runs
        i += 1
    tl.store(z_ptr, i)


def test_while_with_a_condition_false_at_compile_time():
    z = empty(1, "int32")
    while_false_kernel[(1,)](z, FLAG=False)
    assert_equal(z, [0])


# --- constexprs and defaults


@triton.jit
def defaults_kernel(x_ptr, z_ptr, n, scale=2.0, SHIFT: tl.constexpr = 3, NAME: tl.constexpr = "add",
                    OUT_DTYPE: tl.constexpr = tl.float32, BLOCK: tl.constexpr = 32):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if NAME == "add":
        y = x * scale + SHIFT
    else:
        y = x * scale - SHIFT
    tl.static_assert(BLOCK % 8 == 0, "BLOCK must be a multiple of 8")
    tl.store(z_ptr + offs, y.to(OUT_DTYPE), mask=mask)


def test_defaults_and_constexpr_kinds():
    x = rand(rng(6), BLOCK, "float32", -10, 10)
    z = empty(BLOCK, "float32")
    defaults_kernel[(1,)](to_torch(x), z, 20)  # every default
    assert_equal(z[:20], x[:20] * np.float32(2.0) + np.float32(3))
    z = empty(BLOCK, "float16")
    defaults_kernel[(1,)](to_torch(x), z, 20, 0.5, SHIFT=5, NAME="sub", OUT_DTYPE=tl.float16)
    assert_equal(z[:20], (x[:20] * np.float32(0.5) - np.float32(5)).astype(np.float16))
    z = empty(64, "float32")
    defaults_kernel[(1,)](to_torch(np.repeat(x, 2)), z, 64, scale=-1.0, BLOCK=64)
    assert_equal(z, -np.repeat(x, 2) + np.float32(3))


@triton.jit
def optional_pointer_kernel(x_ptr, bias_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if bias_ptr is not None:  # None is a constexpr: the branch is resolved at compile time
        x += tl.load(bias_ptr + offs)
    tl.store(z_ptr + offs, x)


def test_none_for_an_optional_pointer():
    gen = rng(7)
    x, b = rand(gen, BLOCK, "float32"), rand(gen, BLOCK, "float32")
    z = empty(BLOCK, "float32")
    optional_pointer_kernel[(1,)](to_torch(x), None, z, BLOCK=BLOCK)
    assert_equal(z, x)
    optional_pointer_kernel[(1,)](to_torch(x), to_torch(b), z, BLOCK=BLOCK)
    assert_equal(z, x + b)


@triton.jit
def bool_argument_kernel(x_ptr, z_ptr, negate, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if negate:  # a run-time bool
        x = -x
    tl.store(z_ptr + offs, x)


@interpreter_limitation("a bool scalar argument (an int32 array typed int1 fails its size check)")
def test_bool_argument():
    x = rand(rng(8), BLOCK, "int32", -100, 100)
    for negate in (True, False):
        z = empty(BLOCK, "int32")
        bool_argument_kernel[(1,)](to_torch(x), z, negate, BLOCK=BLOCK)
        assert_equal(z, -x if negate else x)


# --- helpers


@triton.jit
def _affine(x, scale, SHIFT: tl.constexpr):
    return x * scale + SHIFT


@triton.jit
def _stats(x, AXIS: tl.constexpr = 0):
    return tl.sum(x, axis=AXIS), tl.max(x, axis=AXIS), tl.min(x, axis=AXIS)


@triton.jit
def _normalize(x):
    total, hi, lo = _stats(x)  # a helper calling a helper, unpacking its tuple
    return (x - lo) / (hi - lo), total


@triton.jit
def _store_twice(ptr, offs, v):
    # A helper with side effects and no return value.
    tl.store(ptr + offs, v)
    tl.store(ptr + offs + tl.num_programs(0) * 0 + v.shape[0], v * 2)


@triton.jit
def helpers_kernel(x_ptr, z_ptr, s_ptr, t_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = _affine(x, 3.0, 1)
    y2 = _affine(x, scale=0.5, SHIFT=-2)  # keyword arguments
    normalized, total = _normalize(y + y2)
    tl.store(z_ptr + offs, normalized)
    tl.store(s_ptr, total)
    _store_twice(t_ptr, offs, y)


def test_helpers():
    x = rand(rng(9), BLOCK, "float32")
    z, s, t = empty(BLOCK, "float32"), empty(1, "float32"), empty(2 * BLOCK, "float32")
    helpers_kernel[(1,)](to_torch(x), z, s, t, BLOCK=BLOCK)
    x64 = x.astype(np.float64)
    v = (x64 * 3 + 1) + (x64 * 0.5 - 2)
    assert_close(z, (v - v.min()) / (v.max() - v.min()), rtol=1e-5, atol=1e-6)
    assert_close(s, [v.sum()], rtol=1e-5)
    assert_close(t, np.concatenate([x64 * 3 + 1, 2 * (x64 * 3 + 1)]), rtol=1e-6)


@triton.jit
def _reduce_rows(x, KIND: tl.constexpr):
    if KIND == "sum":
        return tl.sum(x, axis=1)
    else:
        return tl.max(x, axis=1)


@triton.jit
def constexpr_helper_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(z_ptr + rows, _reduce_rows(x, "sum"))
    tl.store(z_ptr + M + rows, _reduce_rows(x, KIND="max"))


def test_helper_with_constexpr_and_return_in_branches():
    x = rand(rng(10), (8, 16), "int32", -50, 50)
    z = empty(16, "int32")
    constexpr_helper_kernel[(1,)](to_torch(x), z, M=8, N=16)
    assert_equal(z, np.concatenate([x.sum(axis=1), x.max(axis=1)]))


# --- tuples


@triton.jit
def _swap(t):
    return t[1], t[0]


@triton.jit
def tuples_kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    pair = (tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    a, b = _swap(pair)  # a tuple passed to and returned from a helper
    t = (a, b, 3)
    first, second, k = t
    tl.store(z_ptr + offs, first * k + second)
    tl.store(z_ptr + BLOCK + offs, t[0] - t[1])


def test_tuples():
    gen = rng(11)
    x, y = rand(gen, BLOCK, "int32", -100, 100), rand(gen, BLOCK, "int32", -100, 100)
    z = empty(2 * BLOCK, "int32")
    tuples_kernel[(1,)](to_torch(x), to_torch(y), z, BLOCK=BLOCK)
    assert_equal(z, np.concatenate([y * 3 + x, y - x]))


@triton.jit
def tuple_argument_kernel(ptrs, z_ptr, SCALES: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.static_range(len(SCALES)):
        acc += tl.load(ptrs[i] + offs) * SCALES[i]
    tl.store(z_ptr + offs, acc)


def test_tuple_arguments():
    gen = rng(12)
    x, y = rand(gen, BLOCK, "float32"), rand(gen, BLOCK, "float32")
    z = empty(BLOCK, "float32")
    tuple_argument_kernel[(1,)]((to_torch(x), to_torch(y)), z, SCALES=(2.0, -1.0), BLOCK=BLOCK)
    assert_equal(z, x * np.float32(2.0) - y)


# --- program ids and grids


@triton.jit
def program_ids_kernel(z_ptr):
    x = tl.program_id(0)
    y = tl.program_id(axis=1)
    zz = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(axis=1)
    nz = tl.num_programs(2)
    base = ((zz * ny + y) * nx + x) * 6
    tl.store(z_ptr + base + 0, x)
    tl.store(z_ptr + base + 1, y)
    tl.store(z_ptr + base + 2, zz)
    tl.store(z_ptr + base + 3, nx)
    tl.store(z_ptr + base + 4, ny)
    tl.store(z_ptr + base + 5, nz)


def test_program_ids_on_a_3d_grid():
    gx, gy, gz = 3, 2, 4
    z = empty(gx * gy * gz * 6, "int32", fill=-1)
    program_ids_kernel[(gx, gy, gz)](z)
    k, j, i = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    expected = np.stack([i, j, k, np.full_like(i, gx), np.full_like(i, gy), np.full_like(i, gz)], axis=-1)
    assert_equal(z, expected.reshape(-1))


@triton.jit
def fill_kernel(z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, offs, mask=offs < n)


@pytest.mark.parametrize("form", ["tuple", "subscript", "lambda", "2d-tuple"])
def test_grid_forms(form):
    n = 200
    z = empty(n, "int32", fill=-1)
    if form == "tuple":
        fill_kernel[(triton.cdiv(n, 64),)](z, n, BLOCK=64)
    elif form == "subscript":
        fill_kernel[triton.cdiv(n, 64), ](z, n, BLOCK=64)
    elif form == "lambda":
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
        fill_kernel[grid](z, n, BLOCK=64)
    else:
        fill_kernel[(triton.cdiv(n, 64), 1)](z, n, BLOCK=64)
    assert_equal(z, np.arange(n))


@blockc_only
def test_grid_as_an_int():
    # Triton wants a tuple (it takes len(grid)); blockc also takes an int.
    z = empty(200, "int32", fill=-1)
    fill_kernel[4](z, 200, BLOCK=64)
    assert_equal(z, np.arange(200))


def test_helpers_of_the_triton_module():
    assert triton.cdiv(10, 3) == 4 and triton.cdiv(9, 3) == 3
    assert [triton.next_power_of_2(v) for v in (1, 3, 4, 100, 1024, 1025)] == [1, 4, 4, 128, 1024, 2048]
    assert isinstance(tl.constexpr(3), tl.constexpr)
    assert tl.float16.primitive_bitwidth == 16 and tl.int8.is_int_signed() and tl.float32.is_floating()


# --- globals, annotated constexprs, scalar argument types


SCALE: tl.constexpr = tl.constexpr(3)
OFFSET = tl.constexpr(-2)


@triton.jit
def globals_kernel(x_ptr, z_ptr, BLOCK: tl.constexpr):
    HALF: tl.constexpr = BLOCK // 2  # an annotated local constexpr
    offs = tl.arange(0, HALF)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, x * SCALE + OFFSET)  # module-level constexprs
    tl.store(z_ptr + HALF + offs, tl.full((HALF,), HALF, tl.int32))


def test_global_and_local_constexprs():
    x = rand(rng(13), BLOCK, "int32", -100, 100)
    z = empty(BLOCK, "int32")
    globals_kernel[(1,)](to_torch(x), z, BLOCK=BLOCK)
    assert_equal(z, np.concatenate([x[:BLOCK // 2] * 3 - 2, np.full(BLOCK // 2, BLOCK // 2)]))


@triton.jit
def int_arguments_kernel(x_ptr, z_ptr, big, n, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n  # n == 1 is a constexpr in Triton: the mask must still hold
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(z_ptr + offs, x + big, mask=mask)  # an int beyond int32 is an int64 argument
    fill = tl.full((BLOCK,), value, tl.int64)  # a run-time fill value
    tl.store(z_ptr + BLOCK + offs, fill, mask=offs >= n)


@pytest.mark.parametrize("n", [1, 2, 17])
def test_int_arguments(n):
    x = rand(rng(14), BLOCK, "int64", -1000, 1000)
    z = empty(2 * BLOCK, "int64", fill=-1)
    big = 2**40 + 5
    int_arguments_kernel[(1,)](to_torch(x), z, big, n, -9, BLOCK=BLOCK)
    expected = np.full(2 * BLOCK, -1, np.int64)
    expected[:n] = x[:n] + big
    expected[BLOCK + n:] = -9
    assert_equal(z, expected)


@triton.jit
def select_pointer_kernel(a_ptr, b_ptr, z_ptr, use_a, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    src = tl.where(use_a, a_ptr, b_ptr)  # a scalar pointer chosen at run time
    lanes = tl.where(offs % 2 == 0, a_ptr + offs, b_ptr + offs)  # a block of pointers, lane by lane
    tl.store(z_ptr + offs, tl.load(src + offs) + tl.maximum(tl.load(lanes), 0.0))


@interpreter_limitation("a bool scalar argument (an int32 array typed int1 fails its size check)")
@pytest.mark.parametrize("use_a", [True, False])
def test_select_between_pointers(use_a):
    gen = rng(15)
    a, b = rand(gen, BLOCK, "float32"), rand(gen, BLOCK, "float32")
    z = empty(BLOCK, "float32")
    select_pointer_kernel[(1,)](to_torch(a), to_torch(b), z, use_a, BLOCK=BLOCK)
    lanes = np.where(np.arange(BLOCK) % 2 == 0, a, b)
    assert_equal(z, (a if use_a else b) + np.maximum(lanes, 0))


LOOKBACK_SCRIPT = """
import sys
import torch
import triton
import triton.language as tl

@triton.jit
def chain(flags, out, BLOCK: tl.constexpr):
    # Each program waits for the one before it to publish its flag (the
    # decoupled look-back of single-pass scans), spinning on a volatile load.
    pid = tl.program_id(0)
    prev = 0
    if pid > 0:
        f = tl.load(flags + pid - 1, volatile=True)
        while f == 0:
            f = tl.load(flags + pid - 1, volatile=True)
        prev = f
    tl.store(out + pid, prev)
    tl.store(flags + pid, pid + 1)

n = int(sys.argv[1])
flags, out = torch.zeros(n, dtype=torch.int32), torch.full((n,), -1, dtype=torch.int32)
chain[(n,)](flags, out, BLOCK=16)
assert out.tolist() == list(range(n)) and flags.tolist() == list(range(1, n + 1))
print("ok")
"""


@pytest.mark.parametrize("programs", [2, 500])
def test_spinning_on_a_volatile_load_sees_the_other_programs_store(tmp_path, programs):
    # In a child process with a timeout: a load hoisted out of the spin would hang.
    script = tmp_path / "lookback.py"
    script.write_text(LOOKBACK_SCRIPT)
    result = subprocess.run(python_command() + [str(script), str(programs)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr


# --- assignment: a Python number bound to a name is a run-time scalar (Triton's
# visit_Assign), so it has tensor methods and int32 arithmetic, and is no shape.
# Both checked on compiled Triton 3.6 on a GPU.


@triton.jit
def assigned_number_kernel(z_ptr, BLOCK: tl.constexpr):
    a = -7
    b = a // 2  # int32 division truncates: -3, where Python's // gives -4
    n = BLOCK
    tl.store(z_ptr, b.to(tl.float32))
    tl.store(z_ptr + 1, n.to(tl.float32) / 2)
    c: tl.constexpr = BLOCK * 2  # annotated: stays a constexpr, a shape
    tl.store(z_ptr + 2 + tl.arange(0, c), tl.zeros((c,), tl.float32) + 1)


def test_assigned_numbers_are_run_time_scalars():
    z = empty(2 + 32, "float32")
    assigned_number_kernel[(1,)](z, BLOCK=16)
    assert_equal(z, np.array([-3.0, 8.0] + [1.0] * 32, np.float32))


@triton.jit
def assigned_shape_kernel(z_ptr, BLOCK: tl.constexpr):
    b2 = BLOCK * 2
    tl.store(z_ptr + tl.arange(0, b2), 1.0)  # err:assigned_shape


@blockc_only  # the interpreter runs it as Python; compiled Triton rejects it too
def test_an_assigned_number_is_no_shape():
    from conftest import compile_error_at
    with compile_error_at(__file__, "err:assigned_shape", match="without a `: tl.constexpr`"):
        assigned_shape_kernel[(1,)](empty(32, "float32"), BLOCK=16)
