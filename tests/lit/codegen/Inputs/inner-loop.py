#!/usr/bin/env python3
"""Summarises the busiest innermost loop of an x86 assembly listing (stdin).

A loop is a label with a later jump back to it and no other label in between.
Prints the loop whose instructions matching --busy write the most registers as
`loop: N <busy> into R registers; gathers G; scatters S; calls C`, so that a
FileCheck test can state how many independent accumulators a micro-kernel
keeps and that nothing slow sits in its K loop.
"""
import argparse
import re
import sys


def loops(lines):
    labels = {}
    for index, line in enumerate(lines):
        match = re.match(r"^(\.?\w+):", line)
        if match:
            labels[match.group(1)] = index
        jump = re.match(r"^\s+j\w+\s+(\.?\w+)\s*$", line)
        if jump and jump.group(1) in labels:
            start = labels[jump.group(1)]
            body = lines[start + 1:index + 1]
            if not any(re.match(r"^\.?\w+:", b) for b in body):
                yield body


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--busy", required=True, help="mnemonic prefix, e.g. vfmadd")
    args = parser.parse_args()
    lines = sys.stdin.read().splitlines()
    best = None
    for body in loops(lines):
        ops = [b.split() for b in body if b.strip() and not b.strip().startswith(("#", "."))]
        busy = [op for op in ops if op[0].startswith(args.busy)]
        if best is None or len({op[-1] for op in busy}) > len({op[-1] for op in best[1]}):
            best = (ops, busy)
    if best is None:
        print("no loop")
        return
    ops, busy = best
    destinations = {op[-1] for op in busy}
    count = lambda word: sum(1 for op in ops if word in op[0])
    print(f"loop: {len(busy)} {args.busy} into {len(destinations)} registers; "
          f"gathers {count('gather')}; scatters {count('scatter')}; calls {count('call')}")


if __name__ == "__main__":
    main()
