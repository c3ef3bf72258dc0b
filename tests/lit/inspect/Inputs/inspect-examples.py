#!/usr/bin/env python3
"""Runs `blockc inspect --json` on every example for each target given and
checks each report against the schema (check_schema.py). Prints, per target,
`TARGET: N examples, V% of innermost-loop instructions vector or matrix`, so a
FileCheck test sees every target's code inspected; exits 1 naming the first
example whose report is wrong."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import check_schema  # noqa: E402


def main():
    blockc, examples, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
    names = sorted(f for f in os.listdir(examples) if f.endswith(".bir"))
    for target in targets:
        vector = total = 0
        for name in names:
            path = os.path.join(examples, name)
            run = subprocess.run([blockc, "inspect", path, "--target", target, "--json"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"{name} for {target}: exit {run.returncode}: {run.stderr}")
            report = json.loads(run.stdout)
            check_schema.check_document(report, f"{name} for {target}")
            for function in report["files"][0]["functions"]:
                for loop in function["loops"]:
                    if loop["innermost"]:
                        vector += loop["code"]["vector_or_matrix"]
                        total += loop["code"]["instructions"]
        print(f"{target}: {len(names)} examples, {round(100 * vector / max(total, 1))}% of "
              f"innermost-loop instructions vector or matrix")


if __name__ == "__main__":
    main()
