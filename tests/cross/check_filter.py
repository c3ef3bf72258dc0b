#!/usr/bin/env python3
"""Fails when a suite that the QEMU runs name selects no test.

The QEMU suites are chosen by a gtest filter of suite names. A renamed suite
silently drops out of it (gtest runs what matches and is content), so each
name must select at least one test of the codegen binary.

usage: check_filter.py CODEGEN_TESTS SUITE...
"""
import subprocess
import sys


def listed_tests(binary, pattern):
    out = subprocess.run([binary, "--gtest_list_tests", "--gtest_filter=" + pattern],
                         check=True, capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line.startswith("  ")]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, suites = sys.argv[1], sys.argv[2:]
    empty = [suite for suite in suites if not listed_tests(binary, suite)]
    for suite in empty:
        print(f"error: the QEMU filter's '{suite}' selects no test of {binary}: "
              "was the suite renamed? (tests/cross/CMakeLists.txt, BLOCKC_QEMU_SUITES)")
    if empty:
        sys.exit(1)
    print(f"{len(suites)} suites, each selecting at least one test")


if __name__ == "__main__":
    main()
