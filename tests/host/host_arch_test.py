#!/usr/bin/env python3
"""blockc built for a riscv64 or aarch64 Debian 13 machine, run here under QEMU.

    host_arch_test.py build    ARCH SOURCE_DIR BUILD_DIR USERLAND   (ARCH: riscv64, aarch64, x86_64)
    host_arch_test.py targets  ARCH BUILD_DIR USERLAND
    host_arch_test.py examples ARCH BUILD_DIR USERLAND SCRATCH_DIR SOURCE_DIR
    host_arch_test.py ime      BUILD_DIR USERLAND SCRATCH_DIR SOURCE_DIR
    host_arch_test.py aot      ARCH BUILD_DIR USERLAND SCRATCH_DIR SOURCE_DIR HOST_PYTHONPATH

`build` cross-builds `blockc` and the Python module for the userland's Python 3.13
against it (toolchains/debian13-blockc.cmake), and writes BUILD_DIR/userland-python3,
which starts that Python (under QEMU, or for x86_64 through the userland's loader).
The others start that binary as a board would, `--target host` included: `targets`
checks what it detects, `examples` JIT-compiles and runs every example on inputs from
NumPy and compares each output with NumPy's own computation, and `ime` fakes an X60
through BLOCKC_HOST_FEATURES and checks that an i8 dot goes to the IME and that the
kernel asks for an IME core (QEMU cannot run the IME itself), and `aot` compiles a
kernel here for the board with `python -m triton.tools.compile` and launches it on the
board's Python through blockc.aot, which loads the runtime library and no compiler.
"""
import os
import shlex
import subprocess
import sys
import time

import numpy as np

# What each architecture's QEMU runs. QEMU 7.2's riscv64 user mode has no
# riscv_hwprobe and shows the x86 host's /proc/cpuinfo, so the override says what
# the emulated CPU has; aarch64 reports its features through HWCAP like a board.
QEMU = {
    "riscv64": ["qemu-riscv64", "-cpu",
                "rv64,v=true,vlen=256,elen=64,vext_spec=v1.0,zba=true,zbb=true,zbc=true,"
                "zbs=true,Zfh=true,Zfhmin=true"],
    # pauth-impdef: Debian 13 is built with pointer authentication, whose architected
    # algorithm QEMU emulates five times slower (torch's import: 150 s against 30 s).
    "aarch64": ["qemu-aarch64", "-cpu", "max,sve256=on,pauth-impdef=on"],
}
HOST_FEATURES = {
    "riscv64": "+m,+a,+c,+v,+zba,+zbb,+zbs,+zbc,+zfh,+zvfh,+zvl256b",
    "aarch64": "",
}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def blockc_command(arch, build_dir, userland):
    return QEMU[arch] + ["-L", userland, os.path.join(build_dir, "tools", "blockc", "blockc")]


def run_blockc(arch, build_dir, userland, args, extra_env=None):
    env = dict(os.environ, BLOCKC_CACHE_DIR="off")
    if HOST_FEATURES[arch]:
        env["BLOCKC_HOST_FEATURES"] = HOST_FEATURES[arch]
    env.update(extra_env or {})
    started = time.monotonic()
    result = subprocess.run(blockc_command(arch, build_dir, userland) + args, env=env,
                            capture_output=True, text=True, timeout=600)
    print(f"blockc {' '.join(args)}: exit {result.returncode}, "
          f"{time.monotonic() - started:.1f} s")
    return result


def userland_python(userland):
    """The userland's python3 (3.13 in Debian 13), as a path inside it."""
    link = os.readlink(os.path.join(userland, "usr", "bin", "python3"))
    return os.path.join(userland, "usr", "bin", os.path.basename(link))


def write_python_wrapper(arch, build_dir, userland):
    """BUILD_DIR/userland-python3: the userland's Python 3.13, under QEMU for another
    architecture, else through the userland's own loader and libraries (its glibc is
    newer than this system's)."""
    path = os.path.join(build_dir, "userland-python3")
    python = userland_python(userland)
    if arch == "x86_64":
        start = [os.path.join(userland, "lib64", "ld-linux-x86-64.so.2"), "--library-path",
                 os.path.join(userland, "usr", "lib", "x86_64-linux-gnu"), python]
    else:
        start = QEMU[arch] + ["-L", userland, python]
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexec " + " ".join(shlex.quote(word) for word in start) + ' "$@"\n')
    os.chmod(path, 0o755)
    return path


def build(arch, source_dir, build_dir, userland):
    userland = os.path.abspath(userland)
    os.makedirs(build_dir, exist_ok=True)
    configure = ["cmake", "-S", source_dir, "-B", build_dir, "-G", "Ninja",
                 "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(source_dir, "toolchains",
                                                          "debian13-blockc.cmake"),
                 "-DBLOCKC_HOST_ARCH=" + arch, "-DBLOCKC_USERLAND=" + userland,
                 "-DCMAKE_BUILD_TYPE=Release", "-DBLOCKC_WERROR=ON",
                 "-DBLOCKC_BUILD_TESTS=OFF", "-DBLOCKC_BUILD_BENCHMARKS=OFF",
                 # A third of the build's time, as each source no longer parses LLVM's
                 # headers on its own; the main build still compiles file by file.
                 "-DCMAKE_UNITY_BUILD=ON"]
    # The Python module for Debian 13's Python, whose headers lie in the userland
    # (FindPython would look for them under the sysroot a second time).
    version = os.path.basename(userland_python(userland))
    configure += ["-DBLOCKC_BUILD_PYTHON=ON",
                  "-DBLOCKC_PYTHON=" + write_python_wrapper(arch, build_dir, userland),
                  "-DPython_INCLUDE_DIR=" + os.path.join(userland, "usr", "include", version)]
    targets = ["blockc", "blockc_python_core", "blockc_python_sources", "blockc_runtime_shared"]
    for command in (configure, ["cmake", "--build", build_dir, "--target", *targets]):
        if subprocess.run(command).returncode != 0:
            fail("'" + " ".join(command) + "' failed")
    tag = "_core.cpython-" + version[len("python"):].replace(".", "")
    if not any(name.startswith(tag)
               for name in os.listdir(os.path.join(build_dir, "python", "blockc"))):
        fail(f"no {tag} module for the userland's {version} was built")


def targets(arch, build_dir, userland):
    result = run_blockc(arch, build_dir, userland, ["targets"])
    if result.returncode != 0:
        fail(result.stderr)
    host = result.stdout[result.stdout.index("\nhost\n"):]
    print(host)
    expected = {
        "riscv64": ["features m a c v zvfh zfh zba zbb zbs zbc zvl256b",
                    "detected: BLOCKC_HOST_FEATURES=" + HOST_FEATURES["riscv64"] + " applied last",
                    "dot strategies ime-model (when named) rvv-fma generic"],
        "aarch64": ["triple aarch64", "neon sve sve2 bf16 dotprod i8mm fullfp16",
                    "detected: features from the auxiliary vector's HWCAP bits",
                    "detected: SVE vector length 256 bits",
                    "dot strategies sve-fma generic"],
    }[arch]
    for line in expected:
        if line not in host:
            fail(f"'{line}' is not in blockc targets' host entry")


def cdiv(a, b):
    return -(-a // b)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def examples(arch, build_dir, userland, scratch, source_dir):
    """Each example on small shapes whose edges are ragged, against NumPy in f64."""
    rng = np.random.default_rng(7)
    rand = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float32)
    M, N, K = 37, 300, 45
    x, w, bias = rand(M, N), rand(N), rand(N)
    a, b = rand(M, K), rand(K, N)
    va, vb = rand(1000), rand(1000)
    eps = 1e-5
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    rstd_ln = 1 / np.sqrt(((x64 - mean[:, None]) ** 2).mean(axis=1) + eps)
    rstd_rms = 1 / np.sqrt((x64 ** 2).mean(axis=1) + eps)
    erf = np.vectorize(__import__("math").erf)
    cases = [
        ("vector_add", {"BLOCK": 256}, cdiv(1000, 256),
         {"a": va, "b": vb, "c": np.zeros(1000, np.float32), "n": 1000},
         {"c": va.astype(np.float64) + vb}),
        ("gelu", {"BLOCK": 256}, cdiv(1000, 256),
         {"y": np.zeros(1000, np.float32), "x": va, "n": 1000},
         {"y": va / 2.0 * (1 + erf(va.astype(np.float64) / np.sqrt(2)))}),
        ("gelu_erf", {"BLOCK": 256}, cdiv(1000, 256),
         {"y": np.zeros(1000, np.float32), "x": va, "n": 1000},
         {"y": va / 2.0 * (1 + erf(va.astype(np.float64) / np.sqrt(2)))}),
        ("softmax", {"BLOCK": 128}, M,
         {"out": np.zeros((M, N), np.float32), "in": x, "in_row_stride": N,
          "out_row_stride": N, "n_cols": N},
         {"out": softmax(x64)}),
        ("fused_softmax", {"BLOCK": 512}, M,
         {"out": np.zeros((M, N), np.float32), "in": x, "in_row_stride": N,
          "out_row_stride": N, "n_cols": N},
         {"out": softmax(x64)}),
        ("layer_norm", {"BLOCK": 128}, M,
         {"x": x, "y": np.zeros((M, N), np.float32), "w": w, "b": bias,
          "mean": np.zeros(M, np.float32), "rstd": np.zeros(M, np.float32), "stride": N,
          "n": N, "eps": eps},
         {"y": (x64 - mean[:, None]) * rstd_ln[:, None] * w + bias, "mean": mean,
          "rstd": rstd_ln}),
        ("rms_norm", {"BLOCK": 512}, M,
         {"y": np.zeros((M, N), np.float32), "x": x, "w": w,
          "rstd": np.zeros(M, np.float32), "stride": N, "n": N, "eps": eps},
         {"y": x64 * rstd_rms[:, None] * w, "rstd": rstd_rms}),
        ("matmul", {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 16, "GROUP_M": 2},
         cdiv(M, 32) * cdiv(N, 64),
         {"a": a, "b": b, "c": np.zeros((M, N), np.float32), "M": M, "N": N, "K": K,
          "stride_am": K, "stride_ak": 1, "stride_bk": N, "stride_bn": 1, "stride_cm": N,
          "stride_cn": 1},
         {"c": a.astype(np.float64) @ b}),
        ("matmul_softmax", {"BLOCK_M": 16, "BLOCK_N": 512, "BLOCK_K": 16}, cdiv(M, 16),
         {"a": a, "b": b, "c": np.zeros((M, N), np.float32), "M": M, "N": N, "K": K,
          "stride_am": K, "stride_ak": 1, "stride_bk": N, "stride_bn": 1, "stride_cm": N,
          "stride_cn": 1},
         {"c": softmax(a.astype(np.float64) @ b)}),
    ]
    os.makedirs(scratch, exist_ok=True)
    failures = []
    for name, constexprs, grid, args, expected in cases:
        command = ["run", os.path.join(source_dir, "examples", name + ".bir"),
                   "--target", "host", "--grid", str(grid)]
        for key, value in constexprs.items():
            command += ["-D", f"{key}={value}"]
        for key, value in args.items():
            if isinstance(value, np.ndarray):
                path = os.path.join(scratch, f"{name}.{key}.npy")
                np.save(path, value)
                command += ["--arg", f"{key}=@{path}"]
            else:
                command += ["--arg", f"{key}={value}"]
        for key in expected:
            command += ["--output", f"{key}=@" + os.path.join(scratch, f"{name}.{key}.out.npy")]
        result = run_blockc(arch, build_dir, userland, command)
        if result.returncode != 0:
            failures.append(f"{name}: exit {result.returncode}: {result.stderr.strip()}")
            continue
        for key, want in expected.items():
            got = np.load(os.path.join(scratch, f"{name}.{key}.out.npy"))
            error = np.abs(got - want).max()
            # f32 arithmetic against f64: a few ulps of the values, more for long sums.
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-5):
                failures.append(f"{name}: {key} differs from NumPy by up to {error:.3g}")
            else:
                print(f"  {name}.{key}: max |error| {error:.2g}")
    if failures:
        fail("; ".join(failures))


def ime(build_dir, userland, scratch, source_dir):
    """An X60 faked through the override: i8 dots take the IME, the kernel needs it."""
    os.makedirs(scratch, exist_ok=True)
    # The i8 form of the RISC-V dot cascade's lit test, as its RUN lines make it.
    with open(os.path.join(source_dir, "tests", "lit", "codegen", "dot-riscv.bir")) as f:
        text = f.read().replace("<T>", "<i8>").replace("ACC", "i32")
    source = os.path.join(scratch, "dot_i8.bir")
    with open(source, "w") as f:
        f.write(text)
    asm = os.path.join(scratch, "dot_i8.s")
    env = {"BLOCKC_HOST_FEATURES": HOST_FEATURES["riscv64"] + ",cpu=spacemit-x60"}
    result = run_blockc("riscv64", build_dir, userland,
                        ["compile", source, "--target", "host", "--emit=asm", "-o", asm], env)
    if result.returncode != 0:
        fail(result.stderr)
    text = open(asm).read()
    if "smt.vmadot" not in text:
        fail("the i8 dot compiled for a host X60 uses no smt.vmadot")
    requirement = text.split("blockc_core_requirements_mm:", 1)[-1].split("\n")[1].split()
    if requirement != [".quad", "1"]:
        fail(f"the kernel does not ask for an IME core: {requirement}")
    print(f"{text.count('smt.vmadot')} smt.vmadot in the host X60's code")


# What the workstation compiles for each board when it runs under this QEMU.
AOT_TARGETS = {"riscv64": "spacemit-k1-qemu", "aarch64": "armv8.2-a+sve"}


def aot(arch, build_dir, userland, scratch, source_dir, host_package):
    """A kernel compiled here by `python -m triton.tools.compile` for the board, then
    launched on the board's Python by blockc.aot: the runtime library, no compiler."""
    sys.path.insert(0, os.path.join(source_dir, "tests", "python"))
    import test_aot_compile as case  # the kernel and loader script of the native test
    os.makedirs(scratch, exist_ok=True)
    kernel = os.path.join(scratch, "kernels.py")
    with open(kernel, "w") as f:
        f.write(case.KERNEL)
    compile_command = [sys.executable, "-m", "triton.tools.compile", kernel, "-n", "scaled_add",
                       "-s", "*fp32, *fp32, *fp32, i32, fp32, 256", "--out-name", "scaled_add_256",
                       "--target", AOT_TARGETS[arch], "-o", scratch]
    result = subprocess.run(compile_command, env=dict(os.environ, PYTHONPATH=host_package),
                            capture_output=True, text=True)
    if result.returncode != 0:
        fail("compiling ahead of time failed: " + result.stderr)
    loader = os.path.join(scratch, "loader.py")
    with open(loader, "w") as f:
        f.write(case.LOADER_SCRIPT)
    output = os.path.join(scratch, "result.npy")
    env = dict(os.environ, PYTHONPATH=os.path.join(build_dir, "python"),
               PYTHONDONTWRITEBYTECODE="1")
    started = time.monotonic()
    result = subprocess.run([os.path.join(build_dir, "userland-python3"), loader,
                             os.path.join(scratch, "scaled_add_256.json"), output],
                            env=env, capture_output=True, text=True, timeout=600)
    print(f"the board's Python launched the {AOT_TARGETS[arch]} kernel: exit "
          f"{result.returncode}, {time.monotonic() - started:.1f} s")
    if result.returncode != 0:
        fail(result.stderr)
    i = np.arange(1000, dtype=np.float32)
    expected = np.float32(3) * (i * np.float32(0.25)) + (np.float32(1) - i)
    if not np.array_equal(np.load(output), expected):
        fail("the ahead-of-time kernel's output differs from NumPy's")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "build" and len(args) == 4:
        build(*args)
    elif command == "targets" and len(args) == 3:
        targets(*args)
    elif command == "examples" and len(args) == 5:
        examples(*args)
    elif command == "ime" and len(args) == 4:
        ime(*args)
    elif command == "aot" and len(args) == 6:
        aot(*args)
    else:
        sys.exit(__doc__)
    print("PASS")


if __name__ == "__main__":
    main()
