"""Conformance: atomics. Every tl.atomic_* op on the types Triton allows, block and
scalar pointers, masks, every `sem` and `scope`, the old values returned; contention
across programs (histograms, a shared counter whose tickets must each be handed out
once, a float sum of integers, which is exact in any order); and the errors Triton
gives for atomics it does not have. References are numpy's."""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (INTERPRET, assert_equal, blockc_extension, empty, interpreter_limitation, rand, rng,
                      to_numpy, to_torch)

N = 37
BLOCK = 64

OPS = {
    "add": lambda m, v: m + v,
    "max": np.maximum,
    "min": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "xchg": lambda m, v: v,
}


@triton.jit
def lanes_kernel(m_ptr, v_ptr, old_ptr, n, OP: tl.constexpr, SEM: tl.constexpr,
                 BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(v_ptr + offs, mask=mask)
    if OP == "add":
        old = tl.atomic_add(m_ptr + offs, v, mask=mask, sem=SEM)
    elif OP == "max":
        old = tl.atomic_max(m_ptr + offs, v, mask=mask, sem=SEM)
    elif OP == "min":
        old = tl.atomic_min(m_ptr + offs, v, mask=mask, sem=SEM)
    elif OP == "and":
        old = tl.atomic_and(m_ptr + offs, v, mask=mask, sem=SEM)
    elif OP == "or":
        old = tl.atomic_or(m_ptr + offs, v, mask=mask, sem=SEM)
    elif OP == "xor":
        old = tl.atomic_xor(m_ptr + offs, v, mask=mask, sem=SEM)
    else:
        old = tl.atomic_xchg(m_ptr + offs, v, mask=mask, sem=SEM)
    tl.store(old_ptr + offs, old, mask=mask)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", list(OPS))
def test_integer_atomics_per_lane(op, dtype):
    gen = rng(3)
    m = rand(gen, BLOCK, dtype, -1000, 1000)
    v = rand(gen, BLOCK, dtype, -1000, 1000)
    memory = to_torch(m)
    old = empty(BLOCK, dtype)
    lanes_kernel[(1,)](memory, to_torch(v), old, N, OP=op, SEM="acq_rel", BLOCK=BLOCK)
    expected = m.copy()
    expected[:N] = OPS[op](m[:N], v[:N])
    assert_equal(memory, expected)  # masked-off lanes untouched
    assert_equal(old[:N], m[:N])


@interpreter_limitation("atomic_xchg on floats is an unsupported data type",
                        ids=["xchg-float32", "xchg-float64"])
@interpreter_limitation("atomic_min on float64 stores the integer bits of the result as a value",
                        ids=["min-float64"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op", ["add", "max", "min", "xchg"])
def test_float_atomics_per_lane(op, dtype):
    if INTERPRET and dtype == "float16" and op != "add":
        pytest.skip("blockc accepts more than Triton: atomic_max/min/xchg on float16 (Triton 3.6: "
                    "'does not support fp16', on a GPU too)")
    # Multiples of 1/4 below 16: every result is exact in each type.
    gen = rng(4)
    m = (gen.integers(-64, 64, BLOCK) / 4).astype(dtype)
    v = (gen.integers(-64, 64, BLOCK) / 4).astype(dtype)
    memory = to_torch(m)
    old = empty(BLOCK, dtype)
    lanes_kernel[(1,)](memory, to_torch(v), old, N, OP=op, SEM="relaxed", BLOCK=BLOCK)
    expected = m.copy()
    expected[:N] = OPS[op](m[:N], v[:N])
    assert_equal(memory, expected)
    assert_equal(old[:N], m[:N])


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel"])
@pytest.mark.parametrize("scope", ["gpu", "cta", "sys"])
def test_every_sem_and_scope(sem, scope):
    @triton.jit
    def kernel(p, SEM: tl.constexpr, SCOPE: tl.constexpr):
        tl.atomic_add(p, 2, sem=SEM, scope=SCOPE)

    p = to_torch(np.array([5], np.int32))
    kernel[(10,)](p, SEM=sem, SCOPE=scope)
    assert p[0] == 25


@triton.jit
def cas_kernel(m_ptr, cmp_ptr, val_ptr, old_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(m_ptr + offs, tl.load(cmp_ptr + offs), tl.load(val_ptr + offs))
    tl.store(old_ptr + offs, old)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32"])
def test_atomic_cas(dtype):
    gen = rng(5)
    m = rand(gen, BLOCK, dtype, -50, 50)
    cmp = np.where(np.arange(BLOCK) % 3 == 0, m, m + 1).astype(dtype)
    val = rand(gen, BLOCK, dtype, -50, 50)
    memory, old = to_torch(m), empty(BLOCK, dtype)
    cas_kernel[(1,)](memory, to_torch(cmp), to_torch(val), old, BLOCK=BLOCK)
    assert_equal(old, m)
    assert_equal(memory, np.where(cmp == m, val, m))


@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_add(bins_ptr + x, 1, mask=mask)


@pytest.mark.parametrize("n", [1, 1000, 100003])
def test_histogram_under_contention(n):
    x = rng(6).integers(0, 17, n).astype(np.int32)
    bins = empty(17, "int32")
    histogram_kernel[(triton.cdiv(n, 256),)](to_torch(x), bins, n, BLOCK=256)
    assert_equal(bins, np.bincount(x, minlength=17).astype(np.int32))


@triton.jit
def ticket_kernel(counter_ptr, tickets_ptr):
    pid = tl.program_id(0)
    tl.store(tickets_ptr + pid, tl.atomic_add(counter_ptr, 1))


def test_shared_counter_hands_out_every_ticket_once():
    programs = 4000
    counter, tickets = empty(1, "int32"), empty(programs, "int32", fill=-1)
    ticket_kernel[(programs,)](counter, tickets)
    assert counter[0] == programs
    assert_equal(np.sort(to_numpy(tickets)), np.arange(programs, dtype=np.int32))


@triton.jit
def row_sum_into_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def test_float_sum_of_integers_is_exact_in_any_order():
    n = 50000
    x = rng(7).integers(-8, 9, n).astype(np.float32)
    out = empty(1, "float32")
    row_sum_into_kernel[(triton.cdiv(n, 128),)](to_torch(x), out, n, BLOCK=128)
    assert out[0] == x.astype(np.float64).sum()


@triton.jit
def bf16_add_kernel(out_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + offs % 4, tl.load(v_ptr + offs))


@interpreter_limitation("atomic_add on bfloat16 is an unsupported data type")
def test_bfloat16_add_into_few_addresses():
    import torch
    v = torch.tensor(np.arange(BLOCK) % 8 - 4, dtype=torch.bfloat16)
    out = torch.zeros(4, dtype=torch.bfloat16)
    bf16_add_kernel[(1,)](out, v, BLOCK=BLOCK)
    expected = (np.arange(BLOCK) % 8 - 4).reshape(-1, 4).sum(axis=0).astype(np.float32)
    assert_equal(to_numpy(out.float()), expected)


@triton.jit
def value_converted_kernel(p):
    tl.atomic_max(p, 2.75)  # a float value into an int32 pointer converts, as a store does


def test_value_is_converted_to_the_pointee_type():
    p = to_torch(np.array([1], np.int32))
    value_converted_kernel[(1,)](p)
    assert p[0] == 2


@triton.jit
def float_and_kernel(p):
    tl.atomic_and(p, 1.0)


def test_bitwise_atomic_on_floats_is_an_error():
    # Triton's interpreter raises its own error (conftest.py).
    with pytest.raises(Exception, match=None if INTERPRET else "atomic_and"):
        float_and_kernel[(1,)](empty(1, "float32"))
