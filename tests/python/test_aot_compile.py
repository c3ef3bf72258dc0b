"""Ahead of time from Python: `python -m triton.tools.compile` turns a @triton.jit
kernel into an object and a C header (as Triton's tool does for CUDA), which a C
program links with blockc's runtime alone and launches. The program's output is
compared with NumPy's.
"""
import os
import subprocess
import textwrap

import numpy as np
import pytest

from conftest import python_command

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scaled_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, alpha * x + y, mask=mask)
    """)

PROGRAM = textwrap.dedent("""\
    #include "scaled_add_256.h"
    #include <stdio.h>

    enum { N = 1000 };
    static float x[N], y[N], out[N];

    int main(int argc, char **argv) {
      for (int i = 0; i < N; ++i) {
        x[i] = (float)i * 0.25f;
        y[i] = 1.0f - (float)i;
      }
      blockc_grid grid = {(N + 255) / 256, 1, 1};
      if (scaled_add_256_launch(x, y, out, N, 3.0f, grid, NULL) != 0) {
        fprintf(stderr, "launch failed: %s\\n", blockc_last_error());
        return 1;
      }
      FILE *f = fopen(argv[1], "wb");
      return !f || fwrite(out, sizeof out, 1, f) != 1 || fclose(f) != 0;
    }
    """)


def compile_tool(tmp_path, *arguments):
    kernel = tmp_path / "kernels.py"
    kernel.write_text(KERNEL)
    return subprocess.run([*python_command(), "-m", "triton.tools.compile", str(kernel),
                           *arguments], capture_output=True, text=True, timeout=300)


def test_the_tool_writes_an_object_and_a_header(tmp_path):
    result = compile_tool(tmp_path, "-n", "scaled_add", "-s", "*fp32:16, *fp32, *fp32, i32, fp32, 256",
                          "--out-name", "scaled_add_256", "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    header = (tmp_path / "out" / "scaled_add_256.h").read_text()
    assert ("static inline int scaled_add_256_launch(float *x_ptr, float *y_ptr, float *out_ptr, "
            "int32_t n, float alpha, blockc_grid blockc_grid_") in header, header
    assert b"blockc_scratch_bytes_scaled_add_256" in (tmp_path / "out" / "scaled_add_256.o").read_bytes()
    assert "kernel @scaled_add_256(" in (tmp_path / "out" / "scaled_add_256.bir").read_text()


@pytest.mark.parametrize("signature, message", [
    ("*fp32, *fp32, *fp32, i32, fp32", "the signature has 5 entries, the kernel 6 parameters"),
    ("*fp32, *fp32, *fp32, i32, fp32, i32", "parameter 'BLOCK' is a tl.constexpr: give its value"),
    ("*fp32, *fp32, *fp32, i32, float, 256", "parameter 'alpha': 'float' is neither a type"),
    ("*fp32, *fp8e4b15, *fp32, i32, fp32, 256",
     "parameter 'y_ptr': fp8e4b15: blockc has the OCP 8-bit floats, float8e4nv and float8e5"),
    ("*fp32, *fp9, *fp32, i32, fp32, 256", "parameter 'y_ptr': '*fp9' is neither a type"),
])
def test_bad_signatures_are_errors_naming_the_parameter(tmp_path, signature, message):
    result = compile_tool(tmp_path, "-n", "scaled_add", "-s", signature, "-o", str(tmp_path))
    assert result.returncode == 1
    assert message in result.stderr, result.stderr
    assert not (tmp_path / "scaled_add.o").exists()


def test_a_missing_kernel_is_an_error(tmp_path):
    result = compile_tool(tmp_path, "-n", "nope", "-s", "i32", "-o", str(tmp_path))
    assert result.returncode == 1
    assert "has no @triton.jit function 'nope'" in result.stderr


def test_the_object_links_into_a_c_program_with_the_runtime_alone(tmp_path):
    library = os.environ.get("BLOCKC_TEST_RUNTIME_LIBRARY")
    include = os.environ.get("BLOCKC_TEST_RUNTIME_INCLUDE")
    if not library or not include:
        pytest.skip("BLOCKC_TEST_RUNTIME_LIBRARY and BLOCKC_TEST_RUNTIME_INCLUDE are not set: "
                    "no runtime library built for this Python's system to link with")
    out = tmp_path / "out"
    result = compile_tool(tmp_path, "-n", "scaled_add", "-s", "*fp32, *fp32, *fp32, i32, fp32, 256",
                          "--out-name", "scaled_add_256", "-o", str(out))
    assert result.returncode == 0, result.stderr
    (tmp_path / "main.c").write_text(PROGRAM)
    app = tmp_path / "app"
    build = subprocess.run(
        ["clang-22", "-O2", "-I", include, "-I", str(out), str(tmp_path / "main.c"),
         str(out / "scaled_add_256.o"), library, "-fopenmp=libomp", "-lstdc++", "-lsleef", "-lm",
         "-o", str(app)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(app), str(tmp_path / "result.bin")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    i = np.arange(1000, dtype=np.float32)
    x, y = i * np.float32(0.25), np.float32(1) - i
    expected = np.float32(3) * x + y
    np.testing.assert_array_equal(np.fromfile(tmp_path / "result.bin", dtype=np.float32), expected)


LOADER_SCRIPT = textwrap.dedent("""\
    import sys
    import numpy as np
    import blockc.aot

    kernel = blockc.aot.load(sys.argv[1])
    i = np.arange(1000, dtype=np.float32)
    x, y = i * np.float32(0.25), np.float32(1) - i
    out = np.zeros(1000, np.float32)
    # The JIT's launch line: every parameter, the constexpr by name.
    kernel[(4,)](x, y, out, 1000, 3.0, BLOCK=256)
    assert "blockc._core" not in sys.modules, "the loader imported the compiler"
    np.save(sys.argv[2], out)
    try:
        kernel[(4,)](x, y, out, 1000, 3.0, BLOCK=128)
    except TypeError as e:
        print(e)
    """)


def test_the_library_launches_from_python_without_the_compiler(tmp_path):
    out = tmp_path / "out"
    result = compile_tool(tmp_path, "-n", "scaled_add", "-s", "*fp32, *fp32, *fp32, i32, fp32, 256",
                          "--out-name", "scaled_add_256", "-o", str(out))
    assert result.returncode == 0, result.stderr
    (tmp_path / "loader.py").write_text(LOADER_SCRIPT)
    run = subprocess.run([*python_command(), str(tmp_path / "loader.py"),
                          str(out / "scaled_add_256.json"), str(tmp_path / "result.npy")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "'BLOCK' was compiled as 256; this launch gives 128" in run.stdout, run.stdout
    i = np.arange(1000, dtype=np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "result.npy"),
                                  np.float32(3) * (i * np.float32(0.25)) + (np.float32(1) - i))
