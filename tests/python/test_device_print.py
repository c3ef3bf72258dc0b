"""tl.device_print and `print` in a kernel: one line per element and program on stdout,
"pid (X, Y, Z) idx (I, J) PREFIX: v0, v1", each line whole whichever thread prints it.
The format is blockc's (Triton's interpreter prints whole numpy arrays), so these run
against blockc only; the values are checked against the arguments."""

import re

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import blockc_only

pytestmark = blockc_only


def to_torch(a):
    import torch
    return torch.from_numpy(np.ascontiguousarray(a))


@triton.jit
def print_kernel(x_ptr, n, BLOCK: tl.constexpr):
    rows = tl.arange(0, 2)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + rows * BLOCK + cols)
    tl.device_print("x", x, rows + cols)
    print("n", n)
    tl.device_print("bits ", x, hex=True)
    tl.device_print("u:", x.to(tl.uint8), x > 1)


def test_each_element_prints_its_index_and_values(capfd):
    x = np.float32([[1.5, -2.0, 300.0], [0.25, 1e10, -0.0]])
    x = np.concatenate([x, np.zeros((2, 1), np.float32)], axis=1)  # BLOCK = 4
    print_kernel[(1,)](to_torch(x), 5, BLOCK=4)
    lines = capfd.readouterr().out.splitlines()
    assert "pid (0, 0, 0) idx (0, 0) x: 1.5, 0" in lines
    assert "pid (0, 0, 0) idx (1, 1) x: 1e+10, 2" in lines
    assert "pid (0, 0, 0) idx (1, 2) x: -0, 3" in lines
    assert "pid (0, 0, 0) n: 5" in lines
    assert "pid (0, 0, 0) idx (0, 0) bits: 0x3fc00000" in lines
    assert "pid (0, 0, 0) idx (0, 2) u: 255, 1" in lines  # saturated, and True as 1
    assert "pid (0, 0, 0) idx (0, 1) u: 0, 0" in lines
    assert len(lines) == 8 * 3 + 1


@triton.jit
def many_programs_kernel(x_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    tl.device_print("row", x)


def test_lines_of_concurrent_programs_stay_whole(capfd):
    programs, block = 64, 16
    x = np.arange(programs * block, dtype=np.int32)
    many_programs_kernel[(programs,)](to_torch(x), BLOCK=block)
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) == programs * block
    seen = set()
    for line in lines:
        match = re.fullmatch(r"pid \((\d+), 0, 0\) idx \((\d+)\) row: (-?\d+)", line)
        assert match, line
        pid, i, value = map(int, match.groups())
        assert value == pid * block + i
        seen.add((pid, i))
    assert len(seen) == programs * block


@triton.jit
def bad_prefix_kernel(x_ptr):
    tl.device_print(x_ptr, 1)  # err:prefix


def test_a_prefix_that_is_not_a_string_is_an_error_at_the_line():
    from conftest import compile_error_at
    with compile_error_at(__file__, "err:prefix", match="prefix must be a string"):
        bad_prefix_kernel[(1,)](to_torch(np.zeros(4, np.float32)))
