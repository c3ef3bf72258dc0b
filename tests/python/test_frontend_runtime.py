"""The parts of the Python frontend around a launch: the `triton` alias,
specialisation and its caches, launch options, autotuning and heuristics,
bounds checks, profiling and tracing, and the errors a launch reports.
Results are checked against numpy."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import triton
import triton.language as tl
import blockc
import blockc.triton
from conftest import python_command


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def _data(n=1000, seed=0):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def test_the_alias_and_blockc_triton_are_one_package():
    assert triton is blockc.triton
    assert tl is blockc.triton.language
    from triton.language import constexpr
    assert constexpr is blockc.triton.language.constexpr
    from triton.compiler.errors import CompilationError
    assert CompilationError is triton.CompilationError


def test_a_script_runs_unmodified_with_pythonpath(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import triton
        import triton.language as tl

        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
            offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
            mask = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) +
                     tl.load(y_ptr + offs, mask=mask), mask=mask)

        x = np.arange(3000, dtype=np.float32)
        out = np.empty_like(x)
        grid = lambda meta: (triton.cdiv(x.size, meta["BLOCK_SIZE"]),)
        add_kernel[grid](x, x, out, x.size, BLOCK_SIZE=1024, num_warps=4)
        assert np.array_equal(out, 2 * x)
        print(triton.runtime.driver.active.get_current_target().backend)
    """))
    trace = tmp_path / "trace.json"
    result = subprocess.run([*python_command(), str(script)], capture_output=True, text=True,
                            env=dict(os.environ, BLOCKC_TRACE=str(trace)), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "cpu"
    # BLOCKC_TRACE traces a Python process's launches as any other's.
    assert "add_kernel" in trace.read_text()


def test_one_compile_per_specialisation():
    x, y = _data(), np.empty(1000, np.float32)
    scale_kernel.cache.clear()
    scale_kernel[(8,)](x, y, 1000, 2.0, BLOCK=128)
    scale_kernel[(8,)](x, y, 1000, 3.0, BLOCK=128)
    assert len(scale_kernel.cache) == 1
    np.testing.assert_array_equal(y, x * np.float32(3.0))
    # A new block size and n == 1 (a constexpr, as in Triton) are new
    # specialisations.
    scale_kernel[(4,)](x, y, 1000, 2.0, BLOCK=256)
    scale_kernel[(1,)](x, y, 1, 2.0, BLOCK=256)
    assert len(scale_kernel.cache) == 3
    int_params = [key for key in scale_kernel.cache if ("n", "c", ("int", 1)) in key]
    assert len(int_params) == 1


def test_the_generated_block_ir_is_visible():
    x = _data(16)
    text = scale_kernel.bir(x, x, 16, 2.0, BLOCK=16)
    assert text.startswith("kernel @scale_kernel(%x_ptr: ptr<f32>, %y_ptr: ptr<f32>, %n: i32, "
                           "%factor: f32)")
    assert "arange 0, 16" in text
    compiled = scale_kernel[(1,)](x, np.empty_like(x), 16, 2.0, BLOCK=16)
    assert compiled.asm["bir"] == text


def test_dump_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("BLOCKC_DUMP_BIR", str(tmp_path))

    @triton.jit
    def dumped(x_ptr):
        tl.store(x_ptr, tl.load(x_ptr) + 1)

    x = np.zeros(1, np.int32)
    dumped[(1,)](x)
    files = list(tmp_path.glob("dumped-*.bir"))
    assert len(files) == 1 and "kernel @dumped" in files[0].read_text()
    assert x[0] == 1


def test_num_cpu_threads_and_gpu_options_are_accepted():
    x, y = _data(), np.empty(1000, np.float32)
    scale_kernel[(8,)](x, y, 1000, 0.5, BLOCK=128, num_warps=8, num_stages=3, num_ctas=1,
                       maxnreg=128, num_cpu_threads=2)
    np.testing.assert_array_equal(y, x * np.float32(0.5))


def test_unknown_keyword_is_an_error():
    x = _data(16)
    with pytest.raises(TypeError, match="scale_kernel .*test_frontend_runtime.py:\\d+.*'bogus'"):
        scale_kernel[(1,)](x, x, 16, 1.0, BLOCK=16, bogus=3)


def test_grid_forms():
    x, y = _data(), np.empty(1000, np.float32)
    scale_kernel[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, y, 1000, 2.0, BLOCK=64)
    np.testing.assert_array_equal(y, 2 * x)
    y[:] = 0
    scale_kernel[16](x, y, 1000, 2.0, BLOCK=64)
    np.testing.assert_array_equal(y, 2 * x)
    with pytest.raises(TypeError, match="1 to 3"):
        scale_kernel[(1, 1, 1, 2)](x, y, 1000, 2.0, BLOCK=64)
    # Entries past the third that are 1 change nothing (Triton reads three).
    scale_kernel[(16, 1, 1, 1)](x, y, 1000, 2.0, BLOCK=64)


def test_autotune_picks_a_config_once_per_key(capsys, monkeypatch):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    configs = [triton.Config({"BLOCK": 32}, num_warps=2), triton.Config({"BLOCK": 256}),
               triton.Config({"BLOCK": 1 << 21})]  # too big: 8 MiB per block

    @triton.autotune(configs=configs, key=["n"], warmup=1, rep=2)
    @triton.jit
    def tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + offs, v + 1.0, mask=offs < n)

    x, y = _data(), np.empty(1000, np.float32)
    grid = lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)
    tuned[grid](x, y, 1000)
    np.testing.assert_array_equal(y, x + 1)
    assert tuned.best_config.kwargs["BLOCK"] in (32, 256)
    assert tuned.configs_timings[configs[2]] == float("inf")
    assert "best config selected" in capsys.readouterr().out
    tuned[grid](x, y, 1000)
    assert capsys.readouterr().out == ""
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        tuned[grid](x, y, 1000, BLOCK=64)


def test_autotune_timing_comes_from_the_decorator_then_the_environment(monkeypatch):
    timed = []

    def fake_do_bench(fn, warmup, rep, quantiles):
        fn()
        timed.append((warmup, rep))
        return [float(len(timed))]  # the first config timed is the fastest

    monkeypatch.setattr(blockc.triton.testing, "do_bench", fake_do_bench)
    configs = [triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})]

    def tuned_kernel(**timing):
        @triton.autotune(configs=configs, key=["n"], **timing)
        @triton.jit
        def tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
        return tuned

    x, y = _data(100), np.empty(100, np.float32)
    grid = lambda meta: (triton.cdiv(100, meta["BLOCK"]),)
    monkeypatch.delenv("BLOCKC_AUTOTUNE_REP_MS", raising=False)
    tuned_kernel()[grid](x, y, 100)
    assert timed == [(25, 100)] * 2
    np.testing.assert_array_equal(y, x)

    timed.clear()
    monkeypatch.setenv("BLOCKC_AUTOTUNE_REP_MS", "4")
    tuned = tuned_kernel()
    tuned[grid](x, y, 100)
    assert timed == [(1, 4)] * 2
    assert tuned.best_config is configs[0]
    timed.clear()
    tuned_kernel(warmup=3, rep=7)[grid](x, y, 100)
    assert timed == [(3, 7)] * 2

    for bad in ("fast", "0", "-5", "nan", "inf"):
        monkeypatch.setenv("BLOCKC_AUTOTUNE_REP_MS", bad)
        with pytest.raises(ValueError, match="BLOCKC_AUTOTUNE_REP_MS is '" + bad + "'"):
            tuned_kernel()[grid](x, y, 100)


def test_autotuned_kernel_warmup_compiles_every_config():
    configs = [triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})]

    @triton.autotune(configs=configs, key=["n"], warmup=1, rep=2)
    @triton.jit
    def tuned(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, 1.0, mask=offs < n)

    compiled = tuned.warmup(np.zeros(100, np.float32), 100, grid=(1,))
    assert len(compiled) == 2


def test_autotune_compiles_its_configs_on_several_threads_first(monkeypatch):
    import threading
    configs = [triton.Config({"BLOCK": b}) for b in (16, 32, 64, 128)] + \
        [triton.Config({"BLOCK": 1 << 21})]  # too big: fails to compile, timed as infinite

    def tuned_kernel():
        @triton.autotune(configs=configs, key=["n"], warmup=1, rep=2)
        @triton.jit
        def tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3.0, mask=offs < n)
        return tuned

    def compiled_where(tuned):
        """(thread name, BLOCK) of each compile, and whether any ran while a config
        was being timed."""
        jit_fn, seen, timing = tuned.fn, [], []
        compile_ = jit_fn._compile

        def recording(params, check_bounds):
            block = next(p.value for p in params if p.name == "BLOCK")
            seen.append((threading.current_thread().name, block, bool(timing)))
            return compile_(params, check_bounds)
        monkeypatch.setattr(jit_fn, "_compile", recording)
        bench = tuned._bench
        monkeypatch.setattr(tuned, "_bench", lambda *a, **k: timing.append(1) or bench(*a, **k))
        return seen

    x, y = _data(300), np.empty(300, np.float32)
    grid = lambda meta: (triton.cdiv(300, meta["BLOCK"]),)
    monkeypatch.setenv("BLOCKC_COMPILE_THREADS", "3")
    tuned = tuned_kernel()
    seen = compiled_where(tuned)
    tuned[grid](x, y, 300)
    np.testing.assert_array_equal(y, x * np.float32(3.0))
    assert tuned.configs_timings[configs[4]] == float("inf")
    # Every config once before any timing, off the launching thread; the one
    # that failed once more when timed, which is how tuning reports it.
    ahead = [(thread, block) for thread, block, timing in seen if not timing]
    assert sorted(block for _, block in ahead) == [16, 32, 64, 128, 1 << 21]
    assert all(thread != threading.current_thread().name for thread, _ in ahead)
    assert [block for _, block, timing in seen if timing] == [1 << 21]

    monkeypatch.setenv("BLOCKC_COMPILE_THREADS", "1")
    tuned = tuned_kernel()
    seen = compiled_where(tuned)
    tuned[grid](x, y, 300)
    assert {thread for thread, _, _ in seen} == {threading.current_thread().name}
    assert all(timing for _, _, timing in seen)

    for bad in ("many", "0", "-1", "1025", "2.5"):
        monkeypatch.setenv("BLOCKC_COMPILE_THREADS", bad)
        with pytest.raises(ValueError, match="BLOCKC_COMPILE_THREADS is '" + bad + "'"):
            tuned_kernel()[grid](x, y, 300)


def test_heuristics_set_meta_parameters():
    @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @triton.jit
    def maybe_masked(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(x_ptr + offs, 1)
        else:
            tl.store(x_ptr + offs, 2, mask=offs < n)

    even, odd = np.zeros(64, np.int32), np.zeros(60, np.int32)
    maybe_masked[(2,)](even, 64, BLOCK=32)
    maybe_masked[(2,)](odd, 60, BLOCK=32)
    assert (even == 1).all() and (odd == 2).all()


def test_triton_debug_checks_bounds_with_the_python_line(monkeypatch):
    @triton.jit
    def overrun(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)

    monkeypatch.setenv("TRITON_DEBUG", "1")
    x = np.zeros(10, np.float32)
    with pytest.raises(IndexError) as error:
        overrun[(1,)](x, BLOCK=16)
    message = str(error.value)
    load_line = overrun.fn.__code__.co_firstlineno + 3
    assert f"test_frontend_runtime.py:{load_line}: out-of-bounds load" in message
    assert "element 10 of 'x_ptr', whose buffer has 10 elements" in message
    assert (x == 0).all()
    overrun[(1,)](x, BLOCK=8)
    assert (x[:8] == 1).all()


def test_profiler_shows_kernels_by_name():
    torch = pytest.importorskip("torch")
    from torch.profiler import profile, ProfilerActivity
    x = torch.from_numpy(_data())
    y = torch.empty_like(x)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        scale_kernel[(8,)](x, y, 1000, 2.0, BLOCK=128)
    names = [event.key for event in prof.key_averages()]
    assert "scale_kernel" in names
    np.testing.assert_array_equal(y.numpy(), 2 * x.numpy())


def test_trace_from_python(tmp_path):
    path = tmp_path / "trace.json"
    x, y = _data(), np.empty(1000, np.float32)
    blockc.trace_start(str(path))
    scale_kernel[(8,)](x, y, 1000, 2.0, BLOCK=128)
    blockc.trace_stop()
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    assert any("scale_kernel" in json.dumps(e) for e in events)


def test_torch_tensors_on_another_device_are_rejected():
    torch = pytest.importorskip("torch")
    x = torch.empty(16, device="meta")
    with pytest.raises(TypeError, match="argument 'x_ptr' is a tensor on 'meta'; blockc runs "
                       "kernels on the CPU"):
        scale_kernel[(1,)](x, x, 16, 1.0, BLOCK=16)


def test_wrong_argument_count_names_the_kernel():
    x = _data(16)
    with pytest.raises(TypeError) as error:
        scale_kernel[(1,)](x, x, 16, BLOCK=16)
    launch_line = sys._getframe().f_lineno - 1
    def_line = scale_kernel.fn.__code__.co_firstlineno + 1
    assert str(error.value) == (
        f"scale_kernel (defined at {__file__}:{def_line}, launched at {__file__}:{launch_line}): "
        "missing a required argument: 'factor'")


def test_calling_a_kernel_directly_explains_itself():
    with pytest.raises(RuntimeError, match=r"launch it with scale_kernel\[grid\]"):
        scale_kernel(1, 2, 3, 4)


def test_do_bench_and_assert_close():
    calls = []
    ms = triton.testing.do_bench(lambda: calls.append(1), warmup=1, rep=2)
    assert ms >= 0 and len(calls) > 2
    median, low = triton.testing.do_bench(lambda: None, warmup=1, rep=2, quantiles=[0.5, 0.2])
    assert low <= median
    triton.testing.assert_close(np.ones(3), np.ones(3) + 1e-3)
    with pytest.raises(AssertionError):
        triton.testing.assert_close(np.ones(3), np.ones(3) + 1e-1)


# --- device assertions


def _nonnegative_body(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "x must be non-negative")
    assert tl.max(x, axis=0) < 1000, "x must stay below 1000"


checked_kernel = triton.jit(debug=True)(_nonnegative_body)
unchecked_kernel = triton.jit(_nonnegative_body)


@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"),
                    reason="blockc's DeviceAssertionError; the interpreter raises its own")
def test_device_assert_is_checked_in_debug_builds_only():
    good = np.arange(100, dtype=np.int32)
    checked_kernel[(4,)](good, 100, BLOCK=32)  # every lane holds: nothing raised
    bad = good.copy()
    bad[70] = -1
    unchecked_kernel[(4,)](bad, 100, BLOCK=32)  # as Triton: not checked without debug
    with pytest.raises(triton.DeviceAssertionError,
                       match=r"(?s)test_frontend_runtime\.py:\d+: device assertion failed in "
                             r"kernel _nonnegative_body, program \(2, 0, 0\): x must be "
                             r"non-negative.*tl\.device_assert"):
        checked_kernel[(4,)](bad, 100, BLOCK=32)
    big = good.copy()
    big[5] = 5000
    with pytest.raises(AssertionError, match="x must stay below 1000"):
        checked_kernel[(4,)](big, 100, BLOCK=32)


# --- the launch's fast path: typed once per argument kinds, then reused


@triton.jit
def fast_path_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def test_fast_path_keeps_each_specialisation_apart():
    import numpy as np
    import torch
    x = torch.arange(8, dtype=torch.float32)
    out = torch.zeros(8)
    # factor == 1 specialises into a constexpr; 5 and np.int64(5) must not reuse it.
    for factor in (1, 5, np.int64(5), np.int64(1), 1, 2.5, True):
        out.zero_()
        fast_path_kernel[(1,)](x, out, 8, factor, BLOCK=8)
        assert torch.equal(out, x * float(factor)), factor
    # Another dtype, another kernel; a numpy array where a tensor was.
    xd = torch.arange(8, dtype=torch.float64)
    outd = torch.zeros(8, dtype=torch.float64)
    fast_path_kernel[(1,)](xd, outd, 8, 3, BLOCK=8)
    assert torch.equal(outd, xd * 3)
    arr = np.zeros(8, np.float32)
    fast_path_kernel[(1,)](x.numpy(), arr, 8, 3, BLOCK=8)
    assert np.array_equal(arr, x.numpy() * 3)
    # A read-only output is refused on every launch, cached or not.
    frozen = np.zeros(8, np.float32)
    frozen.flags.writeable = False
    for _ in range(2):
        with pytest.raises(Exception, match="read-only"):
            fast_path_kernel[(1,)](x.numpy(), frozen, 8, 3, BLOCK=8)


def test_repeated_launches_skip_the_full_path(monkeypatch):
    # After a specialisation's first launch, the generated binder and key
    # (blockc/triton/runtime/launcher.py) find it: the full path (_run:
    # binding by inspect, typing each argument) is not taken again, whatever
    # changes that leaves the specialisation as it is.
    @triton.jit
    def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr = 64):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, alpha * x + tl.load(y_ptr + offs, mask=mask), mask=mask)

    import torch
    full = []
    run = axpy._run
    monkeypatch.setattr(axpy, "_run", lambda *a, **k: full.append(1) or run(*a, **k))
    x, y = _data(300, 1), _data(300, 2)
    out = np.empty_like(x)
    axpy[(5,)](x, y, out, 300, 2.0)
    assert len(full) == 1
    for n, alpha in ((300, 0.5), (17, -3.0), (64, 1.0)):
        out[:] = 0
        axpy[(triton.cdiv(n, 64),)](x, y, out, n, alpha, num_warps=4)
        np.testing.assert_allclose(out[:n], np.float32(alpha) * x[:n] + y[:n], rtol=1e-6)
        assert not out[n:].any()
    # Keywords in any order, the default given, a grid function, threads.
    out[:] = 0
    axpy[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](
        alpha=4.0, n=300, out_ptr=out, y_ptr=y, x_ptr=x, BLOCK=64, num_cpu_threads=2)
    np.testing.assert_allclose(out, np.float32(4.0) * x + y, rtol=1e-6)
    # Tensors are a specialisation of their own; then they too go the fast way.
    xt, yt, outt = torch.from_numpy(x), torch.from_numpy(y), torch.zeros(300)
    for _ in range(2):
        axpy[(5,)](xt, yt, outt, 300, 2.0)
    assert torch.allclose(outt, 2 * xt + yt)
    assert len(full) == 2
    # What changes the specialisation goes the full way once: another block
    # size, n == 1 (a constexpr), an int past i32, a float64 array.
    axpy[(3,)](x, y, out, 300, 2.0, BLOCK=128)
    axpy[(1,)](x, y, out, 1, 2.0)
    assert out[0] == np.float32(2.0) * x[0] + y[0]
    out[:] = 0
    axpy[(4,)](x, y, out, 2**33, 2.0)
    np.testing.assert_allclose(out[:256], np.float32(2.0) * x[:256] + y[:256], rtol=1e-6)
    assert len(full) == 5
    x64 = x.astype(np.float64)
    out64 = np.zeros(300)
    axpy[(5,)](x64, x64, out64, 300, 1.0)
    axpy[(5,)](x64, x64, out64, 300, 1.0)
    np.testing.assert_array_equal(out64, 2 * x64)
    assert len(full) == 6
    # warmup=True compiles and returns the kernel without launching it.
    out[:] = 0
    compiled = axpy[(5,)](x, y, out, 300, 0.25, warmup=True)
    assert compiled.name == "axpy" and not out.any()
    # Errors go the full way, which names them.
    with pytest.raises(TypeError, match="axpy .*missing a required argument: 'alpha'"):
        axpy[(5,)](x, y, out, 300)
    with pytest.raises(TypeError, match="'bogus'"):
        axpy[(5,)](x, y, out, 300, 2.0, bogus=1)
    frozen = np.zeros(300, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="'out_ptr' is a read-only array"):
        axpy[(5,)](x, y, frozen, 300, 2.0)


@triton.jit
def _maybe_descriptor(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@triton.jit
def _copy_through_descriptors(src, dst, N, BLOCK: tl.constexpr):
    d_in = _maybe_descriptor(src, shape=[N], strides=[1], block_shape=[BLOCK])
    d_out = _maybe_descriptor(dst, shape=[N], strides=[1], block_shape=[BLOCK])
    off = tl.program_id(0) * BLOCK
    d_out.store([off], d_in.load([off]) * 2.0)


def test_isinstance_is_decided_when_the_kernel_compiles():
    # Tutorial 06's way of taking either a host TensorDescriptor or a pointer.
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, np.float32)
    _copy_through_descriptors[(4,)](x, y, 100, BLOCK=32)
    np.testing.assert_array_equal(y, 2 * x)
    y[:] = 0
    import torch
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    _copy_through_descriptors[(4,)](TensorDescriptor.from_tensor(xt, [32]),
                                    TensorDescriptor.from_tensor(yt, [32]), 100, BLOCK=32)
    np.testing.assert_array_equal(y, 2 * x)

    @triton.jit
    def kinds(out_ptr, x, n: tl.constexpr):
        v = tl.load(out_ptr + tl.arange(0, 4))
        flags = isinstance(v, tl.tensor) * 1 + isinstance(n, int) * 2 + \
            isinstance(v, (tl.tensor_descriptor, float)) * 4
        tl.store(out_ptr + tl.arange(0, 4), v + flags)

    out = np.zeros(4, np.int32)
    kinds[(1,)](out, 1.5, 3)
    assert (out == 3).all()

    @triton.jit
    def bad(out_ptr):
        tl.store(out_ptr, isinstance(out_ptr))

    with pytest.raises(triton.CompilationError, match="isinstance takes a value and a type"):
        bad[(1,)](out)


def test_set_allocator_and_the_profiler_are_accepted():
    # Tutorials 06, 08 and 09 set an allocator for descriptors' scratch and wrap
    # their benchmarks in proton scopes.
    import warnings
    import triton.profiler as proton
    triton.set_allocator(lambda size, alignment, stream: np.empty(size, np.int8))
    triton.set_allocator(None)
    with pytest.raises(TypeError, match="triton.set_allocator takes a callable"):
        triton.set_allocator(42)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proton.start("profile", hook="triton")
    assert any("records nothing under blockc" in str(w.message) for w in caught)
    proton.activate(0)
    with proton.scope("scaled", {"flops": 1.0}):
        x, y = _data(64), np.empty(64, np.float32)
        scale_kernel[(1,)](x, y, 64, 2.0, BLOCK=64)
    proton.deactivate(0)
    proton.finalize()
    np.testing.assert_array_equal(y, 2 * x)


def test_early_config_prune_gets_named_arguments_and_keywords():
    seen = []

    def prune(configs, named_args, **kwargs):
        seen.append((sorted(named_args), sorted(kwargs)))
        return [c for c in configs if c.kwargs["BLOCK"] <= kwargs["N"]]

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 64})],
                     key=["N"], prune_configs_by={"early_config_prune": prune}, warmup=1, rep=2)
    @triton.jit
    def double(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N) * 2, mask=offs < N)

    x, y = _data(40), np.empty(40, np.float32)
    double[lambda meta: (triton.cdiv(40, meta["BLOCK"]),)](x, y, N=40)
    np.testing.assert_array_equal(y, 2 * x)
    assert seen == [(["x_ptr", "y_ptr"], ["N"])]
    assert double.best_config.kwargs["BLOCK"] == 16
