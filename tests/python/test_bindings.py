"""blockc._core on its own: Block IR text written by hand, compiled by the JIT,
launched on numpy arrays. The Triton frontend's tests build on what these pin
down: argument conversion, errors as exceptions, bounds reports, tracing, and
a launch that lets other Python threads run."""

import json
import subprocess
import threading
import time
import warnings

import numpy as np
import pytest

from blockc import _core
from conftest import python_command

VECTOR_ADD = """\
// c = a + b over n elements; grid (cdiv(n, BLOCK), 1, 1).
constexpr BLOCK: i32 = 256

kernel @vector_add(%a: ptr<f32>, %b: ptr<f32>, %c: ptr<f32>, %n: i32) {
  %pid = program_id 0
  %bs = const BLOCK : i32
  %start = mul %pid, %bs
  %r = arange 0, BLOCK
  %offs = add %start, %r
  %m = cmp lt %offs, %n
  %pa = addptr %a, %offs
  %x = load %pa, mask=%m
  %pb = addptr %b, %offs
  %y = load %pb, mask=%m
  %s = add %x, %y
  %pc = addptr %c, %offs
  store %pc, %s, mask=%m
}
"""

# One scalar parameter of each kind the launcher converts: out[0] = x (f16),
# out[1] = y (bf16), out[2] = z (f64 narrowed), out[3] = 1.0 if flag.
SCALARS = """\
kernel @scalars(%out: ptr<f32>, %x: f16, %y: bf16, %z: f64, %flag: i1, %k: i8) {
  %zero = const 0 : i32
  %one = const 1 : i32
  %two = const 2 : i32
  %three = const 3 : i32
  %four = const 4 : i32
  %xf = cast %x to f32
  %yf = cast %y to f32
  %zf = cast %z to f32
  %ff = cast %flag to f32
  %kf = cast %k to f32
  %p0 = addptr %out, %zero
  store %p0, %xf
  %p1 = addptr %out, %one
  store %p1, %yf
  %p2 = addptr %out, %two
  store %p2, %zf
  %p3 = addptr %out, %three
  store %p3, %ff
  %p4 = addptr %out, %four
  store %p4, %kf
}
"""

# Each program reads 64 elements from BLOCK * pid without a mask: the last
# program of a grid that covers more than n reads past the end of %a.
UNMASKED_COPY = """\
kernel @unmasked_copy(%a: ptr<f32>, %b: ptr<f32>, %n: i32) {
  %pid = program_id 0
  %bs = const 64 : i32
  %start = mul %pid, %bs
  %r = arange 0, 64
  %offs = add %start, %r
  %pa = addptr %a, %offs
  %x = load %pa
  %pb = addptr %b, %offs
  %m = cmp lt %offs, %n
  store %pb, %x, mask=%m
}
"""
# Where the report puts the load: its line, and the column of the op's name.
UNMASKED_LOAD_LINE = UNMASKED_COPY.splitlines().index("  %x = load %pa") + 1
UNMASKED_LOAD_COLUMN = len("  %x = ") + 1

# A loop whose trip count is an argument: each trip a chain of multiply-adds
# over a block, so a launch takes as long as asked.
SPIN = """\
kernel @spin(%out: ptr<f32>, %iters: i32) {
  %zero = const 0 : i32
  %one = const 1 : i32
  %init = const 1.0 : f32[256]
  %scale = const 0.999 : f32[256]
  %bias = const 0.001 : f32[256]
  %acc = for %i = %zero to %iters step %one iter(%a = %init) {
    %m = mul %a, %scale
    %next = add %m, %bias
    yield %next
  }
  %r = arange 0, 256
  %p = addptr %out, %r
  store %p, %acc
}
"""


@pytest.fixture(scope="module")
def vector_add():
    return _core.compile(VECTOR_ADD, "vector_add", file_name="vector_add.bir")


def cdiv(a, b):
    return (a + b - 1) // b


def add_arrays(kernel, a, b, **launch_options):
    c = np.zeros_like(a)
    n = a.size
    result = kernel.launch((cdiv(n, 256), 1, 1),
                           [a.ctypes.data, b.ctypes.data, c.ctypes.data, n],
                           **launch_options)
    assert result is None
    return c


def test_vector_add_matches_numpy(vector_add):
    rng = np.random.default_rng(0)
    for n in (1, 255, 256, 1000, 100003):
        a = rng.standard_normal(n, dtype=np.float32)
        b = rng.standard_normal(n, dtype=np.float32)
        np.testing.assert_array_equal(add_arrays(vector_add, a, b), a + b)


def test_kernel_describes_itself(vector_add):
    assert vector_add.name == "vector_add"
    assert vector_add.params == [("a", "ptr<f32>"), ("b", "ptr<f32>"),
                                 ("c", "ptr<f32>"), ("n", "i32")]
    assert vector_add.checks_bounds is False
    assert isinstance(vector_add.scratch_bytes, int)
    assert vector_add.core_requirements == 0
    assert "@vector_add(%a: ptr<f32>" in repr(vector_add)
    with pytest.raises(AttributeError):
        vector_add.name = "other"


def test_num_threads_and_empty_grid(vector_add):
    a = np.arange(5000, dtype=np.float32)
    np.testing.assert_array_equal(add_arrays(vector_add, a, a, num_threads=1), a + a)
    np.testing.assert_array_equal(add_arrays(vector_add, a, a, num_threads=3), a + a)
    # A grid with no program runs nothing: null pointers are never touched.
    assert vector_add.launch((0, 1, 1), [0, 0, 0, 0]) is None
    # A shorter grid means 1 for the axes left out.
    np.testing.assert_array_equal(
        _launch_with_grid(vector_add, a, (cdiv(a.size, 256),)), a + a)


def _launch_with_grid(kernel, a, grid):
    c = np.zeros_like(a)
    kernel.launch(grid, [a.ctypes.data, a.ctypes.data, c.ctypes.data, a.size])
    return c


def test_scalar_parameters_convert_to_their_types():
    kernel = _core.compile(SCALARS, "scalars")
    out = np.zeros(5, dtype=np.float32)
    kernel.launch((1, 1, 1), [out.ctypes.data, 1.5, 3, 0.1, True, -7])
    np.testing.assert_array_equal(out, np.float32([1.5, 3.0, 0.1, 1.0, -7.0]))
    # numpy scalars are numbers too; f16 and bf16 round to nearest even. Whatever
    # numpy calls its bool (numpy.bool_ in 1.x, numpy.bool in 2.x), it is read without
    # the __index__ that numpy deprecates.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel.launch((1, 1, 1), [out.ctypes.data, np.float32(1 / 3), np.float64(1 / 3),
                                  np.int64(2), np.bool_(False), np.int8(127)])
    assert out[0] == np.float32(np.float16(np.float32(1 / 3)))
    assert out[1] == np.float32(0.333984375)  # bfloat16's nearest to 1/3
    np.testing.assert_array_equal(out[2:], np.float32([2.0, 0.0, 127.0]))


def test_several_python_threads_launch_at_once(vector_add):
    errors = []
    start = threading.Barrier(4)

    def worker(seed):
        try:
            rng = np.random.default_rng(seed)
            start.wait()
            for _ in range(25):
                n = int(rng.integers(1, 50000))
                a = rng.standard_normal(n, dtype=np.float32)
                b = rng.standard_normal(n, dtype=np.float32)
                np.testing.assert_array_equal(add_arrays(vector_add, a, b), a + b)
        except Exception as e:  # pylint: disable=broad-except
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_compile_error_points_at_file_line_column():
    source = VECTOR_ADD.replace("%s = add %x, %y", "%s = add %x, %w")
    with pytest.raises(_core.CompileError) as info:
        _core.compile(source, "vector_add", file_name="broken.bir")
    text = str(info.value)
    line = source.splitlines().index("  %s = add %x, %w") + 1
    column = len("  %s = add %x, ") + 1
    assert text.startswith(f"broken.bir:{line}:{column}: error: ")
    assert "%w" in text
    # The source line, then a caret under the column.
    lines = text.splitlines()
    assert lines[1] == "    %s = add %x, %w"
    assert lines[2] == "  " + " " * (column - 1) + "^"
    assert (info.value.line, info.value.column) == (line, column)
    assert info.value.message in lines[0]


def test_compile_error_without_a_location():
    with pytest.raises(_core.CompileError, match="no kernel 'missing'"):
        _core.compile(VECTOR_ADD, "missing")
    with pytest.raises(_core.CompileError, match="nosuchtarget") as info:
        _core.compile(VECTOR_ADD, "vector_add", target="nosuchtarget")
    assert info.value.line == 0


def test_wrong_argument_count(vector_add):
    a = np.zeros(4, dtype=np.float32)
    with pytest.raises(_core.LaunchError) as info:
        vector_add.launch((1, 1, 1), [a.ctypes.data, a.ctypes.data, 4])
    assert str(info.value) == ("kernel @vector_add takes 4 arguments (%a, %b, %c, %n), "
                               "got 3")


def test_arrays_pass_their_first_element(vector_add):
    # A numpy array stands for its first element's address (the buffer
    # protocol), views and negative strides included, as ctypes.data does.
    a = np.arange(8, dtype=np.float32)
    b = np.arange(8, dtype=np.float32)[::-1]
    out = np.zeros(8, dtype=np.float32)
    vector_add.launch((1, 1, 1), [a[2:], b[::-1], out, 4])
    np.testing.assert_array_equal(out[:4], a[2:6] + np.arange(4, dtype=np.float32))
    out[:] = 0
    c = b.copy()
    vector_add.launch((1, 1, 1), [a, c, out, 8])
    np.testing.assert_array_equal(out, a + c)
    readonly = np.frombuffer(bytes(32), dtype=np.float32)
    vector_add.launch((1, 1, 1), [readonly, readonly, out, 8])
    np.testing.assert_array_equal(out, np.zeros(8, dtype=np.float32))


class _InterfaceOnly:
    """An array known only by __array_interface__ (no buffer protocol)."""

    def __init__(self, array, data=None):
        self.array = array
        self.__array_interface__ = dict(array.__array_interface__)
        if data is not None:
            self.__array_interface__["data"] = data


class _DataPtr:
    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


def test_tensors_and_array_interfaces_pass_their_address(vector_add):
    # A launch takes them as they are: the Python launcher passes its
    # arguments through without building a list of addresses.
    import torch
    a = torch.arange(8, dtype=torch.float32)
    b = np.arange(8, dtype=np.float32)
    out = torch.zeros(8)
    vector_add.launch((1, 1, 1), [a[2:], _InterfaceOnly(b[1:]), out, 4])
    np.testing.assert_array_equal(out.numpy()[:4], a.numpy()[2:6] + b[1:5])
    out2 = np.zeros(8, dtype=np.float32)
    vector_add.launch((1, 1, 1), [_DataPtr(b.ctypes.data), b, _DataPtr(out2.ctypes.data), 8])
    np.testing.assert_array_equal(out2, 2 * b)
    with pytest.raises(_core.LaunchError, match=r"argument 0 \(%a: ptr<f32>\): expected "
                                                r"data_ptr\(\) or __array_interface__ to give "
                                                r"an int address, got _DataPtr"):
        vector_add.launch((1, 1, 1), [_DataPtr(1.5), b, out2, 8])
    with pytest.raises(_core.LaunchError, match=r"argument 2 \(%c: ptr<f32>\): -8 is not an "
                                                "address"):
        vector_add.launch((1, 1, 1), [b, b, _InterfaceOnly(b, (-8, False)), 8])
    with pytest.raises(_core.LaunchError, match=r"argument 1 \(%b: ptr<f32>\): expected an "
                                                r"address as an int .*got _InterfaceOnly"):
        vector_add.launch((1, 1, 1), [b, _InterfaceOnly(b, "nonsense"), out2, 8])


def test_out_of_range_and_mistyped_arguments(vector_add):
    a = np.zeros(4, dtype=np.float32)
    p = a.ctypes.data
    with pytest.raises(_core.LaunchError) as info:
        vector_add.launch((1, 1, 1), [p, p, p, 5000000000])
    assert str(info.value) == "argument 3 (%n: i32): 5000000000 does not fit i32"
    with pytest.raises(_core.LaunchError, match=r"argument 3 \(%n: i32\): expected an int, "
                                                r"got float 4.0"):
        vector_add.launch((1, 1, 1), [p, p, p, 4.0])
    with pytest.raises(_core.LaunchError, match=r"argument 0 \(%a: ptr<f32>\): expected an "
                                                r"address as an int .*got str a"):
        vector_add.launch((1, 1, 1), ["a", p, p, 4])
    with pytest.raises(_core.LaunchError, match=r"argument 1 \(%b: ptr<f32>\): -1 is not an "
                                                "address"):
        vector_add.launch((1, 1, 1), [p, -1, p, 4])
    with pytest.raises(_core.LaunchError, match="args: expected a list or tuple, got int"):
        vector_add.launch((1, 1, 1), 4)
    with pytest.raises(_core.LaunchError, match="grid"):
        vector_add.launch((1, 1, 1, 1), [p, p, p, 4])
    with pytest.raises(_core.LaunchError, match="num_threads -1"):
        vector_add.launch((1, 1, 1), [p, p, p, 4], num_threads=-1)
    # An __index__ is Python code, and may change the list being converted.
    args = [p, p, p, 4]

    class Shrinking:
        def __index__(self):
            args.clear()
            return p

    args[0] = Shrinking()
    with pytest.raises(_core.LaunchError, match="args changed size"):
        vector_add.launch((1, 1, 1), args)
    # The launcher's own checks come back as LaunchError too.
    with pytest.raises(_core.LaunchError, match="grid"):
        vector_add.launch((-1, 1, 1), [p, p, p, 4])


def test_scalar_range_errors():
    kernel = _core.compile(SCALARS, "scalars")
    out = np.zeros(5, dtype=np.float32)
    good = [out.ctypes.data, 1.0, 1.0, 1.0, True, 1]

    def launch_with(index, value):
        args = list(good)
        args[index] = value
        kernel.launch((1, 1, 1), args)

    with pytest.raises(_core.LaunchError, match=r"argument 1 \(%x: f16\): 70000.0 does not "
                                                "fit f16"):
        launch_with(1, 70000.0)
    launch_with(1, float("inf"))  # infinity is an f16 value
    with pytest.raises(_core.LaunchError, match="does not fit f64"):
        launch_with(3, 10**400)
    with pytest.raises(_core.LaunchError, match=r"argument 4 \(%flag: i1\): 2 does not fit i1"):
        launch_with(4, 2)
    with pytest.raises(_core.LaunchError, match=r"argument 5 \(%k: i8\): 128 does not fit i8"):
        launch_with(5, 128)
    with pytest.raises(_core.LaunchError, match="expected a float or an int, got str"):
        launch_with(2, "1.0")


def test_bad_environment_variable_is_a_launch_error(vector_add, monkeypatch):
    a = np.zeros(4, dtype=np.float32)
    p = a.ctypes.data
    monkeypatch.setenv("BLOCKC_SCHEDULE", "sometimes")
    with pytest.raises(_core.LaunchError, match="BLOCKC_SCHEDULE") as info:
        vector_add.launch((1, 1, 1), [p, p, p, 4])
    assert "sometimes" in str(info.value)
    monkeypatch.setenv("BLOCKC_SCHEDULE", "static")
    monkeypatch.setenv("BLOCKC_NUM_THREADS", "lots")
    with pytest.raises(_core.LaunchError, match="BLOCKC_NUM_THREADS"):
        vector_add.launch((1, 1, 1), [p, p, p, 4])
    monkeypatch.delenv("BLOCKC_NUM_THREADS")
    assert vector_add.launch((1, 1, 1), [p, p, p, 4]) is None


def test_bounds_checked_kernel_reports_the_bad_load():
    kernel = _core.compile(UNMASKED_COPY, "unmasked_copy", file_name="copy.bir",
                           check_bounds=True)
    assert kernel.checks_bounds
    n = 100
    a = np.arange(n, dtype=np.float32)
    b = np.zeros(n, dtype=np.float32)
    args = [a.ctypes.data, b.ctypes.data, n]
    # Two programs of 64 cover 128 elements: the second reads past a's 100.
    report = kernel.launch((2, 1, 1), args, extents=[a.nbytes, b.nbytes], num_threads=1)
    assert report == {
        "line": UNMASKED_LOAD_LINE,
        "column": UNMASKED_LOAD_COLUMN,
        "is_store": False, "kind": "load",
        "argument": 0,
        "pid": (1, 0, 0),
        "offset": 100,
        "extent": 100,
    }
    # In bounds: no report, and the copy happened.
    assert kernel.launch((1, 1, 1), args, extents=[a.nbytes, b.nbytes]) is None
    np.testing.assert_array_equal(b[:64], a[:64])

    with pytest.raises(_core.LaunchError, match=r"extents needs 2 byte sizes, one per pointer "
                                                r"argument \(%a, %b\); got None"):
        kernel.launch((1, 1, 1), args)
    with pytest.raises(_core.LaunchError, match="got 1"):
        kernel.launch((1, 1, 1), args, extents=[a.nbytes])
    with pytest.raises(_core.LaunchError, match=r"extents\[1\]"):
        kernel.launch((1, 1, 1), args, extents=[a.nbytes, -4])


def test_trace_names_the_kernel(vector_add, tmp_path):
    path = tmp_path / "trace.json"
    _core.trace_start(str(path))
    try:
        a = np.arange(1000, dtype=np.float32)
        add_arrays(vector_add, a, a)
        _core.trace_flush()
        assert "vector_add" in path.read_text()
    finally:
        _core.trace_stop()
    trace = json.loads(path.read_text())
    assert "vector_add" in json.dumps(trace)
    # In memory only, then an unwritable file.
    _core.trace_start(None)
    _core.trace_stop()
    with pytest.raises(_core.LaunchError):
        _core.trace_start(str(tmp_path / "no-such-folder" / "trace.json"))


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("BLOCKC_CACHE_DIR", str(tmp_path))
    assert _core.cache_dir() == str(tmp_path)
    monkeypatch.setenv("BLOCKC_CACHE_DIR", "off")
    assert _core.cache_dir() == ""
    monkeypatch.setenv("BLOCKC_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _core.cache_dir() == str(tmp_path / "blockc")


def test_compile_fills_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("BLOCKC_CACHE_DIR", str(tmp_path))
    source = VECTOR_ADD.replace("BLOCK: i32 = 256", "BLOCK: i32 = 128")
    _core.compile(source, "vector_add")
    assert len(list(tmp_path.glob("*.o"))) == 1
    # The second compile loads the object: no new entry.
    kernel = _core.compile(source, "vector_add")
    assert len(list(tmp_path.glob("*.o"))) == 1
    a = np.arange(300, dtype=np.float32)
    c = np.zeros_like(a)
    kernel.launch((3, 1, 1), [a.ctypes.data, a.ctypes.data, c.ctypes.data, a.size])
    np.testing.assert_array_equal(c, a + a)


def test_launch_releases_the_gil():
    kernel = _core.compile(SPIN, "spin")
    out = np.zeros(256, dtype=np.float32)

    def launch(iters):
        start = time.perf_counter()
        kernel.launch((1, 1, 1), [out.ctypes.data, iters], num_threads=1)
        return time.perf_counter() - start

    # A launch of about half a second, whatever this machine's speed.
    iters = 100000
    while launch(iters) < 0.05 and iters < 2**30:
        iters *= 4
    iters = min(int(iters * 0.5 / launch(iters)), 2**31 - 1)

    # A second thread counts, noting the count about every millisecond. While
    # the launch holds the GIL it cannot count at all; while the launch has
    # released it, it counts freely.
    samples = []
    stop = threading.Event()

    def count():
        n, last = 0, 0.0
        while not stop.is_set():
            n += 1
            now = time.perf_counter()
            if now - last > 0.001:
                samples.append((now, n))
                last = now

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.05)
        begin = time.perf_counter()
        kernel.launch((1, 1, 1), [out.ctypes.data, iters], num_threads=1)
        end = time.perf_counter()
    finally:
        stop.set()
        counter.join()
    assert end - begin > 0.1, "the launch was too short to tell"
    # The middle half of the launch: well after the call began, well before
    # it returned, so no switch around the call itself can account for it.
    quarter = (end - begin) / 4
    during = [n for t, n in samples if begin + quarter < t < end - quarter]
    assert len(during) > 20 and during[-1] - during[0] > 1000, (during, end - begin)
    # The launch computed what it was asked: acc -> 1 as 0.999 ** iters -> 0.
    assert np.all(np.abs(out - 1.0) < 1e-3)


def test_import_torch_then_launch(vector_add):
    torch = pytest.importorskip("torch")
    a = torch.arange(20000, dtype=torch.float32)
    b = torch.ones(20000, dtype=torch.float32)
    c = torch.zeros(20000, dtype=torch.float32)
    torch.add(a, b)  # torch's own OpenMP threads start
    vector_add.launch((cdiv(20000, 256), 1, 1),
                      [a.data_ptr(), b.data_ptr(), c.data_ptr(), 20000], num_threads=2)
    assert torch.equal(c, a + b)


def test_torch_imported_first_then_launch():
    """torch brings GNU libgomp, blockc LLVM's libomp: loaded in this order
    too, each must keep its own OpenMP runtime."""
    pytest.importorskip("torch")
    script = f"""
import torch
torch.set_num_threads(2)
torch.add(torch.ones(100000), 1)
from blockc import _core
kernel = _core.compile({VECTOR_ADD!r}, "vector_add")
a = torch.arange(100000, dtype=torch.float32)
c = torch.zeros_like(a)
for threads in (1, 2, 4):
    kernel.launch((391, 1, 1), [a.data_ptr(), a.data_ptr(), c.data_ptr(), 100000],
                  num_threads=threads)
    assert torch.equal(c, a + a)
    c.zero_()
assert torch.equal(torch.add(a, a), a + a)
print("ok")
"""
    result = subprocess.run([*python_command(), "-c", script], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr
