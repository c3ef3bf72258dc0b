#!/usr/bin/env python3
"""Summarises the busiest innermost loop of an assembly listing (stdin).

A loop is a label with a later branch back to it and no other label in
between. Prints the loop whose instructions matching --busy write the most
registers as `loop: N <busy> into R registers; gathers G; scatters S; calls C`,
so that a FileCheck test can state how many independent accumulators a
micro-kernel keeps and that nothing slow sits in its K loop. With --body, it
prints the loop's instructions instead, for llvm-mca; on RISC-V preceded by
llvm-mca's instrument comments for the vtype the last vsetvli before the loop
set, since a loop that never changes it has no vsetvli of its own.

x86 listings are in AT&T syntax (the destination is the last operand); RISC-V
and AArch64 name the destination first.
"""
import argparse
import re
import sys

# Per ISA: what a branch to a label looks like, and which mnemonics gather,
# scatter or call.
ISAS = {
    "x86": {
        "branch": r"^\s+j\w+\s+(\.?\w+)\s*$",
        "gather": lambda m, ops: "gather" in m,
        "scatter": lambda m, ops: "scatter" in m,
        "call": lambda m, ops: m.startswith("call"),
        "destination": -1,
    },
    "riscv": {
        "branch": r"^\s+(?:b\w*|j)\s+(?:[\w.]+,\s*)*(\.?\w+)\s*$",
        "gather": lambda m, ops: m.startswith(("vluxei", "vloxei")),
        "scatter": lambda m, ops: m.startswith(("vsuxei", "vsoxei")),
        "call": lambda m, ops: m in ("call", "jal", "jalr", "tail"),
        "destination": 1,
    },
    "aarch64": {
        "branch": r"^\s+(?:b(?:\.\w+)?|cbn?z|tbn?z)\s+(?:[\w.]+,\s*)*(\.?\w+)\s*$",
        # SVE's gathers and scatters address through a vector of offsets.
        "gather": lambda m, ops: m.startswith("ld1") and re.search(r"\[\w+, z\d+", ops),
        "scatter": lambda m, ops: m.startswith("st1") and re.search(r"\[\w+, z\d+", ops),
        "call": lambda m, ops: m in ("bl", "blr"),
        "destination": 1,
    },
}


def loops(lines, branch):
    labels = {}
    for index, line in enumerate(lines):
        match = re.match(r"^(\.?\w+):", line)
        if match:
            labels[match.group(1)] = index
        jump = re.match(branch, line)
        if jump and jump.group(1) in labels:
            start = labels[jump.group(1)]
            body = lines[start + 1:index + 1]
            if not any(re.match(r"^\.?\w+:", b) for b in body):
                yield start, body


def instructions(body):
    return [b.strip() for b in body if b.strip() and not b.strip().startswith(("#", ".", "//"))]


def split(instruction):
    """The mnemonic and the operands' text."""
    parts = instruction.split(None, 1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def destination(instruction, isa):
    text = split(instruction)[1]
    operands = [o.strip() for o in text.split(",") if o.strip()]
    if not operands:
        return ""
    return operands[-1] if ISAS[isa]["destination"] == -1 else operands[0]


def vtype_instruments(before):
    """llvm-mca's comments for the SEW and LMUL of the last vsetvli in `before`."""
    for line in reversed(before):
        match = re.match(r"^\s+vseti?vli\s+[^,]+,\s*[^,]+,\s*e(\d+),\s*(mf?\d)", line)
        if match:
            return [f"# LLVM-MCA-RISCV-LMUL {match.group(2).upper()}",
                    f"# LLVM-MCA-RISCV-SEW E{match.group(1)}"]
    return []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--busy", required=True, help="mnemonic prefix, e.g. vfmadd")
    parser.add_argument("--isa", choices=sorted(ISAS), default="x86")
    parser.add_argument("--body", action="store_true", help="print the loop's instructions")
    args = parser.parse_args()
    isa = ISAS[args.isa]
    lines = sys.stdin.read().splitlines()
    best = None
    for start, body in loops(lines, isa["branch"]):
        ops = instructions(body)
        busy = [op for op in ops if op.split()[0].startswith(args.busy)]
        if best is None or len({destination(op, args.isa) for op in busy}) > len(
                {destination(op, args.isa) for op in best[1]}):
            best = (ops, busy, start)
    if best is None:
        print("no loop")
        return
    ops, busy, start = best
    if args.body:
        if args.isa == "riscv":
            print("\n".join(vtype_instruments(lines[:start])))
        print("\n".join(ops))
        return
    destinations = {destination(op, args.isa) for op in busy}

    def count(kind):
        return sum(bool(isa[kind](*split(op))) for op in ops)

    print(f"loop: {len(busy)} {args.busy} into {len(destinations)} registers; "
          f"gathers {count('gather')}; scatters {count('scatter')}; calls {count('call')}")


if __name__ == "__main__":
    main()
