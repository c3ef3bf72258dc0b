#!/usr/bin/env python3
"""Reads llvm-mca's report (stdin) on one loop body and says what bounds it.

Prints `cycles/iteration C; <unit> busy B cycles (P%)` for the busiest
resource, then `bound by <unit>` when that unit is busy at least --share of
the cycles (the loop runs at its throughput) or `bound by latency` when it is
not (stalls on dependencies dominate). FileCheck tests state the bound;
docs/k1.md quotes the figures.
"""
import argparse
import re
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--share", type=float, default=0.7,
                        help="busy fraction from which a unit bounds the loop")
    args = parser.parse_args()
    text = sys.stdin.read()
    iterations = int(re.search(r"^Iterations:\s+(\d+)", text, re.M).group(1))
    cycles = int(re.search(r"^Total Cycles:\s+(\d+)", text, re.M).group(1))
    names = dict(re.findall(r"^\[([\d.]+)\]\s+-\s+(\S+)", text, re.M))
    table = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n", text)
    if not table:
        sys.exit("mca-summary: no 'Resource pressure per iteration' in llvm-mca's output")
    columns = re.findall(r"\[([\d.]+)\]", table.group(1))
    values = table.group(2).split()
    pressure = {}
    for column, value in zip(columns, values):
        unit = names.get(column, column).split(".")[0]
        busy = 0.0 if value == "-" else float(value)
        # The two halves of a split unit ([3.0], [3.1]) are one unit's ports.
        pressure[unit] = max(pressure.get(unit, 0.0), busy)
    per_iteration = cycles / iterations
    unit, busy = max(pressure.items(), key=lambda item: item[1])
    share = busy / per_iteration
    print(f"cycles/iteration {per_iteration:.1f}; {unit} busy {busy:.1f} cycles ({share:.0%})")
    print(f"bound by {unit}" if share >= args.share else "bound by latency")


if __name__ == "__main__":
    main()
