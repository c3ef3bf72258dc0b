"""Launches that used to go wrong quietly (a wrong answer, a write into memory that
must not change, a crash). Each now does the right thing or stops with an error
that names the kernel, the line that launched it, and the argument or grid entry
at fault."""

import importlib.util
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import triton
import triton.language as tl

HERE = os.path.abspath(__file__)


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def count_programs_kernel(out_ptr):
    tl.store(out_ptr + tl.program_id(0), 1)


def _launch_line():
    """The line of the caller that comes next: the one that launches."""
    return sys._getframe(1).f_lineno + 1


# --- grids ------------------------------------------------------------------------


@pytest.mark.parametrize("grid, shown", [
    ((1000 / 256,), "3.90625"),
    (("4",), "'4'"),
    ((True,), "True"),
    ((np.True_,), "True"),
    ((2, 1.0), "1.0"),
    ((np.float64(2.0),), "2.0"),
    ((np.array([2]),), "array"),
    ("4", "'4'"),
    (4.0, "4.0"),
])
def test_a_grid_entry_must_be_an_integer(grid, shown):
    out = np.zeros(8, np.int32)
    with pytest.raises(TypeError) as error:
        line = _launch_line()
        count_programs_kernel[grid](out)
    message = str(error.value)
    assert f"count_programs_kernel (defined at {HERE}:" in message
    assert f"launched at {HERE}:{line}" in message
    assert "grid" in message and shown in message and "integer" in message
    assert not out.any()


def test_a_grid_function_must_return_integers():
    out = np.zeros(8, np.int32)
    with pytest.raises(TypeError) as error:
        line = _launch_line()
        count_programs_kernel[lambda meta: (8 / 3,)](out)
    assert f"launched at {HERE}:{line}" in str(error.value)
    assert "2.66" in str(error.value)
    assert not out.any()


def test_a_negative_grid_entry_is_an_error():
    out = np.zeros(8, np.int32)
    with pytest.raises(TypeError) as error:
        line = _launch_line()
        count_programs_kernel[(2, -1)](out)
    message = str(error.value)
    assert f"launched at {HERE}:{line}" in message
    assert "grid[1]" in message and "-1" in message


def test_integer_grid_entries_of_every_kind():
    torch = pytest.importorskip("torch")
    for grid in [(3,), 3, (np.int32(3),), (np.array(3),), (torch.tensor(3),), torch.tensor(3),
                 np.int64(3), [3, 1], (3, np.uint8(1), torch.tensor(1, dtype=torch.int8))]:
        out = np.zeros(8, np.int32)
        count_programs_kernel[grid](out)
        assert out.tolist() == [1, 1, 1, 0, 0, 0, 0, 0], grid
    out = np.zeros(8, np.int32)
    count_programs_kernel[(0,)](out)     # an empty grid runs nothing, as in Triton
    assert not out.any()
    with pytest.raises(TypeError, match="grid"):
        count_programs_kernel[(torch.tensor(True),)](out)
    with pytest.raises(TypeError, match="grid"):
        count_programs_kernel[(torch.tensor(3.0),)](out)


# --- int arguments out of range ---------------------------------------------------


@triton.jit
def int_kernel(out_ptr, value):
    tl.store(out_ptr, value)


@pytest.mark.parametrize("value, expected", [
    (-2**63 - 1, "is below the range of a signed 64-bit integer"),
    (-2**70, "is below the range of a signed 64-bit integer"),
    (2**64, "exceeds the range of an unsigned 64-bit integer"),
    (2**63, "fits only an unsigned 64-bit type"),
    (2**64 - 1, "fits only an unsigned 64-bit type"),
])
def test_an_int_argument_out_of_range_says_which_range(value, expected):
    out = np.zeros(1, np.int64)
    with pytest.raises(TypeError) as error:
        line = _launch_line()
        int_kernel[(1,)](out, value)
    message = str(error.value)
    assert f"launched at {HERE}:{line}" in message
    assert f"argument 'value' {value} {expected}" in message
    if value < 0:
        assert "unsigned" not in message


@triton.jit
def pair_kernel(out_ptr, pair):
    tl.store(out_ptr, pair[1])


def test_an_int_in_a_tuple_argument_is_named_as_indexed():
    with pytest.raises(TypeError, match=re.escape("argument 'pair[1]' 18446744073709551616 exceeds "
                                                  "the range of an unsigned 64-bit integer")):
        pair_kernel[(1,)](np.zeros(1, np.int64), (3, 2**64))


@pytest.mark.parametrize("value", [-2**63, 2**63 - 1, -2**31 - 1, 2**31])
def test_int_arguments_at_the_edges_of_int64(value):
    out = np.zeros(1, np.int64)
    int_kernel[(1,)](out, value)
    assert out[0] == value
