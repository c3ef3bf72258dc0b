#!/usr/bin/python3
"""scripts/test-summary on a made-up ctest log: entries that pass, skip and fail, and
a codegen batch whose cases pass, skip (grouped by reason), fail, and die."""

import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(sys.argv[1], "scripts", "test-summary")


def entry(number, name, output, verdict):
    return (f"{number}/9 Testing: {name}\n{number}/9 Test: {name}\nCommand: \"x\"\n"
            f"Output:\n----------------------------------------------------------\n"
            f"{output}<end of output>\nTest time =   1.00 sec\n"
            f"----------------------------------------------------------\n{verdict}\n")


BATCH_OUTPUT = """Note: This is test shard 1 of 2.
[ RUN      ] Smoke.VectorAdd
[       OK ] Smoke.VectorAdd (52 ms)
[ RUN      ] Dot.Amx
/src/DotTest.cpp:10: Skipped
needs CPU features this machine lacks: amx-tile; the test target is host
[  SKIPPED ] Dot.Amx (0 ms)
[ RUN      ] Dot.Amx2
/src/DotTest.cpp:10: Skipped
needs CPU features this machine lacks: amx-tile; the test target is host
[  SKIPPED ] Dot.Amx2 (0 ms)
[ RUN      ] Math.Exp
/src/MathTest.cpp:20: Failure
Expected equality
[  FAILED  ] Math.Exp (3 ms)
[ RUN      ] Math.Log
AddressSanitizer: heap-use-after-free
"""

GTEST_SKIP = """[ RUN      ] Host.NoAvx512
/src/HostTest.cpp:5: Skipped
no AVX-512 here
[  SKIPPED ] Host.NoAvx512 (0 ms)
"""


def main():
    with tempfile.TemporaryDirectory() as build:
        os.makedirs(os.path.join(build, "Testing", "Temporary"))
        with open(os.path.join(build, "Testing", "Temporary", "LastTest.log"), "w") as f:
            f.write("Start testing\n")
            f.write(entry(1, "runtime.Launch.Ok", "[       OK ] Launch.Ok (1 ms)\n",
                          "Test Passed."))
            f.write(entry(2, "runtime.Host.NoAvx512", GTEST_SKIP,
                          "Skip regular expression found in output."))
            f.write(entry(3, "codegen.batch.1of2", BATCH_OUTPUT, "Test Failed."))
            f.write(entry(4, "driver.Broken", "boom\n", "Test Failed."))
            f.write(entry(5, "scripts.drawing", "SKIPPED: drawing needs matplotlib\n",
                          "Skip regular expression found in output."))
        result = subprocess.run([SCRIPT, build], capture_output=True, text=True)
    out = result.stdout
    expected = [
        "5 ctest entries: 1 passed, 2 skipped, 2 failed",
        "skipped    1: drawing needs matplotlib",
        "skipped    2: CPU features missing: amx-tile",
        "skipped    1: no AVX-512 here",
        "FAILED: codegen.batch.1of2\n",
        "FAILED: codegen.batch.1of2: Math.Exp\n",
        "FAILED: codegen.batch.1of2: Math.Log (the process died in it)",
        "FAILED: driver.Broken",
    ]
    missing = [line for line in expected if line not in out]
    if result.returncode != 0 or missing:
        sys.exit(f"test-summary gave exit {result.returncode}; missing {missing} in:\n"
                 f"{out}{result.stderr}")
    if "Smoke.VectorAdd" in out or "Dot.Amx" in out:
        sys.exit(f"test-summary names a case that passed or skipped:\n{out}")
    print("test-summary: counts, skip reasons and failed cases as expected")


if __name__ == "__main__":
    main()
