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

from conftest import blockc_only
from conftest import python_command

# blockc's own launch checks and messages; Triton answers some of these
# differently (it raises when a global changes, where blockc recompiles).
pytestmark = blockc_only

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


# --- read-only arrays -------------------------------------------------------------


def _read_only(values):
    return np.frombuffer(np.asarray(values, np.float32).tobytes(), dtype=np.float32)


def test_storing_into_a_read_only_array_is_an_error():
    frozen = bytes(64)
    y = np.frombuffer(frozen, dtype=np.float32)
    x = np.arange(16, dtype=np.float32)
    with pytest.raises(TypeError) as error:
        line = _launch_line()
        copy_kernel[(1,)](x, y, 16, BLOCK=16)
    message = str(error.value)
    assert f"copy_kernel (defined at {HERE}:" in message
    assert f"launched at {HERE}:{line}" in message
    assert "argument 'y_ptr' is a read-only array" in message
    assert "stores through it" in message
    # Nothing was written into the immutable bytes object.
    assert frozen == bytes(64)


def test_read_only_arrays_may_be_loaded_from():
    x = _read_only(np.arange(100))
    y = np.zeros(100, np.float32)
    copy_kernel[(2,)](x, y, 100, BLOCK=64)
    np.testing.assert_array_equal(y, np.arange(100, dtype=np.float32))


def test_a_read_only_memory_map_is_refused_before_the_kernel_runs(tmp_path):
    # Storing into a PROT_READ mapping kills the process; run it in a child so
    # that a regression fails this test instead of the whole run.
    path = tmp_path / "weights.npy"
    np.save(path, np.arange(64, dtype=np.float32))
    script = tmp_path / "mmap_store.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np
        import triton
        import triton.language as tl

        @triton.jit
        def double(x_ptr, y_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)

        mapped = np.load({str(path)!r}, mmap_mode="r")
        out = np.zeros(64, np.float32)
        double[(1,)](mapped, out, BLOCK=64)          # loads from the map: fine
        assert np.array_equal(out, 2 * np.arange(64, dtype=np.float32))
        try:
            double[(1,)](out, mapped, BLOCK=64)      # stores into it
        except TypeError as e:
            print(e)
        else:
            print("no error")
    """))
    result = subprocess.run([*python_command(), str(script)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "argument 'y_ptr' is a read-only array" in result.stdout, result.stdout
    line = next(i for i, text in enumerate(script.read_text().splitlines(), 1)
                if "# stores into it" in text)
    assert f"launched at {script}:{line}" in result.stdout, result.stdout


@triton.jit
def _store_through(p, offs, v):
    tl.store(p + offs, v)


@triton.jit
def stores_everywhere_kernel(a_ptr, b_ptr, c_ptr, d_ptr, pair, idx_ptr, src_ptr, n,
                             BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(src_ptr + offs)
    # A store through a helper.
    _store_through(a_ptr, offs, v)
    # Through a pointer a loop carries and an `if` chooses.
    p = b_ptr
    for i in range(n):
        if i > 100:
            q = p + 1
        else:
            q = p
        tl.store(q + offs, v)
        p = p + 0
    # Through a block pointer.
    block = tl.make_block_ptr(c_ptr, (BLOCK,), (1,), (0,), (BLOCK,), (0,))
    tl.store(block, v)
    # Through tl.where of two pointers, a bitcast and an indirect offset, whose
    # index array is only loaded from.
    target = tl.where(offs >= 0, d_ptr, c_ptr).to(tl.pointer_type(tl.int32), bitcast=True)
    tl.store(target + tl.load(idx_ptr + offs), v.to(tl.int32, bitcast=True))
    # Through one element of a tuple argument.
    tl.store(pair[1] + offs, v)
    tl.store(pair[0] + offs, tl.load(pair[0] + offs))


def test_every_way_to_reach_a_stored_pointer_is_checked():
    block = 8
    src = np.arange(block, dtype=np.float32) + 1
    idx = np.arange(block, dtype=np.int32)[::-1].copy()
    idx.flags.writeable = False

    def outputs():
        return [np.zeros(block, np.float32) for _ in range(6)]

    a, b, c, d, p0, p1 = outputs()
    stores_everywhere_kernel[(1,)](a, b, c, d, (p0, p1), idx, _read_only(src), 3, BLOCK=block)
    for out in (a, b, c, p1):
        np.testing.assert_array_equal(out, src)
    np.testing.assert_array_equal(d, src[::-1])
    names = ["a_ptr", "b_ptr", "c_ptr", "d_ptr", "pair[0]", "pair[1]"]
    for i, name in enumerate(names):
        arrays = outputs()
        arrays[i].flags.writeable = False
        args = arrays[:4] + [(arrays[4], arrays[5])]
        with pytest.raises(TypeError, match=re.escape(f"argument '{name}' is a read-only array")):
            stores_everywhere_kernel[(1,)](*args, idx, src, 3, BLOCK=block)
    # The kernel names the stored-through parameters in its Block IR's
    # translation too.
    compiled = stores_everywhere_kernel.warmup(a, b, c, d, (p0, p1), idx, src, 3, BLOCK=block)
    stored = {p.name for p in compiled.runtime_params if p.name in compiled.translation.stored_params}
    assert stored == {"a_ptr", "b_ptr", "c_ptr", "d_ptr", "pair.0", "pair.1"}


def test_torch_tensors_are_not_refused():
    # torch has no read-only tensors to check; an inference tensor is writeable
    # memory like any other.
    torch = pytest.importorskip("torch")
    with torch.inference_mode():
        y = torch.zeros(16)
    x = torch.arange(16, dtype=torch.float32)
    copy_kernel[(1,)](x, y, 16, BLOCK=16)
    assert torch.equal(y, x)


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


# --- globals that change ----------------------------------------------------------


MODULE = '''
import types

import triton
import triton.language as tl

SCALE = 2.0
TABLE = [10.0, 20.0]
BLOCK = tl.constexpr(8)
config = types.ModuleType("hardening_config")
config.OFFSET = 1.0


@triton.jit
def helper(x):
    return x + 1.0


@triton.jit
def kernel(out_ptr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, helper(tl.zeros([BLOCK], tl.float32)) * SCALE + TABLE[1])


@triton.jit
def config_kernel(out_ptr):
    tl.store(out_ptr, config.OFFSET)
'''

REDEFINED_HELPER = '''
@triton.jit
def helper(x):
    return x + 100.0
'''


def _module(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(module, size=None):
    out = np.zeros(size or module.BLOCK.value, np.float32)
    module.kernel[(1,)](out)
    return out


def test_a_changed_global_is_seen_by_the_next_launch(tmp_path):
    m = _module(tmp_path, "globals_float")
    assert _run(m)[0] == 1 * 2.0 + 20.0
    m.SCALE = 3.0
    assert _run(m)[0] == 1 * 3.0 + 20.0
    m.SCALE = 2.0
    assert _run(m)[0] == 1 * 2.0 + 20.0
    # Rebinding to an equal value keeps the compiled kernel.
    compiled = m.kernel.cache.copy()
    m.SCALE = float("2.0")
    _run(m)
    assert m.kernel.cache == compiled


def test_a_changed_list_element_is_seen(tmp_path):
    m = _module(tmp_path, "globals_list")
    assert _run(m)[0] == 22.0
    m.TABLE[1] = 30.0
    assert _run(m)[0] == 32.0


def test_a_changed_constexpr_global_is_seen(tmp_path):
    m = _module(tmp_path, "globals_constexpr")
    assert _run(m).tolist() == [22.0] * 8
    m.BLOCK = tl.constexpr(4)
    assert _run(m, 8).tolist() == [22.0] * 4 + [0.0] * 4
    m.BLOCK.value = 2     # the wrapper itself changed, as Triton's test_cache_closure does
    assert _run(m, 8).tolist() == [22.0] * 2 + [0.0] * 6


def test_a_redefined_helper_is_seen(tmp_path):
    m = _module(tmp_path, "globals_helper")
    assert _run(m)[0] == 22.0
    path = tmp_path / "redefined_helper.py"
    path.write_text(REDEFINED_HELPER)
    exec(compile(path.read_text(), str(path), "exec"), m.__dict__)
    assert _run(m)[0] == (0.0 + 100.0) * 2.0 + 20.0


def test_a_changed_global_of_a_helper_is_seen(tmp_path):
    helper_module = _module(tmp_path, "globals_of_helper")
    m = _module(tmp_path, "globals_user")
    path = tmp_path / "helper_reads_a_global.py"
    path.write_text(textwrap.dedent('''
        @triton.jit
        def helper(x):
            return x + OFFSET
    '''))
    helper_module.OFFSET = 5.0
    exec(compile(path.read_text(), str(path), "exec"), helper_module.__dict__)
    m.helper = helper_module.helper
    assert _run(m)[0] == 5.0 * 2.0 + 20.0
    helper_module.OFFSET = 6.0
    assert _run(m)[0] == 6.0 * 2.0 + 20.0


def test_a_changed_attribute_of_a_user_module_is_seen(tmp_path):
    m = _module(tmp_path, "globals_module_attribute")
    out = np.zeros(1, np.float32)
    m.config_kernel[(1,)](out)
    assert out[0] == 1.0
    m.config.OFFSET = 4.0
    m.config_kernel[(1,)](out)
    assert out[0] == 4.0


def test_a_launch_checks_few_values():
    # Each value a kernel read costs every launch an identity test: the
    # triton.language module's attributes (tl.arange, tl.load...) are not among them.
    x = np.zeros(16, np.float32)
    compiled = copy_kernel[(1,)](x, x, 16, BLOCK=16)
    assert [read.name for read in compiled.translation.watched] == ["tl"]


def test_a_changed_closure_value_is_seen():
    def make(value):
        @triton.jit
        def closure_kernel(out_ptr):
            tl.store(out_ptr, value)
        return closure_kernel

    value = tl.constexpr(1.5)
    kernel = make(value)
    out = np.zeros(1, np.float32)
    kernel[(1,)](out)
    assert out[0] == 1.5
    value.value = 2.5
    kernel[(1,)](out)
    assert out[0] == 2.5


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
