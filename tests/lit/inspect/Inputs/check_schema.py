#!/usr/bin/env python3
"""Checks `blockc inspect --json` output (stdin) against the schema that
docs/inspect.md documents: every key, its type, and the invariants between
counts. Prints `schema ok: F files, N functions, L loops` or exits 1 naming
the first violation."""
import json
import sys

CATEGORIES = {"vector load", "strided load", "gather", "vector store", "strided store",
              "scatter", "fma", "vector arithmetic", "reduction", "permute", "mask",
              "vector configuration", "matrix", "scalar", "call", "branch"}


def fail(where, message):
    sys.exit(f"schema: {where}: {message}")


def expect(where, obj, key, kind):
    if key not in obj:
        fail(where, f"missing '{key}'")
    if not isinstance(obj[key], kind) or (kind is int and isinstance(obj[key], bool)):
        fail(where, f"'{key}' is {type(obj[key]).__name__}, expected {kind.__name__}")
    return obj[key]


def check_code(where, code):
    total = expect(where, code, "instructions", int)
    vector = expect(where, code, "vector_or_matrix", int)
    mix = expect(where, code, "mix", dict)
    if set(mix) != CATEGORIES:
        fail(where, f"mix categories {sorted(mix)}")
    if sum(mix.values()) != total:
        fail(where, f"mix sums to {sum(mix.values())}, not {total}")
    scalarish = mix["scalar"] + mix["call"] + mix["branch"]
    if vector != total - scalarish:
        fail(where, "vector_or_matrix disagrees with the mix")
    for key in ("widths", "calls"):
        for name, count in expect(where, code, key, dict).items():
            if not isinstance(count, int) or count < 1:
                fail(where, f"{key}[{name}] = {count}")
    expect(where, code, "vector_spills", int)
    expect(where, code, "vector_reloads", int)
    return total


def check_document(doc, name="top"):
    """Checks one report; returns (files, functions, loops)."""
    if expect(name, doc, "blockc_inspect", int) != 1:
        fail("top", "unknown schema version")
    functions = loops = 0
    for f_index, file in enumerate(expect(name, doc, "files", list)):
        where = f"{name}: files[{f_index}]"
        for key in ("source", "architecture", "cpu"):
            expect(where, file, key, str)
        for function in expect(where, file, "functions", list):
            functions += 1
            fwhere = where + "." + expect(where, function, "name", str)
            expect(fwhere, function, "address", int)
            total = check_code(fwhere, expect(fwhere, function, "code", dict))
            for w in expect(fwhere, function, "warnings", list):
                if not isinstance(w, str):
                    fail(fwhere, "a warning is not a string")
            for loop in expect(fwhere, function, "loops", list):
                loops += 1
                lwhere = f"{fwhere}.loop{expect(fwhere, loop, 'index', int)}"
                expect(lwhere, loop, "header", int)
                if expect(lwhere, loop, "depth", int) < 1:
                    fail(lwhere, "depth below 1")
                innermost = expect(lwhere, loop, "innermost", bool)
                if check_code(lwhere, expect(lwhere, loop, "code", dict)) > total:
                    fail(lwhere, "more instructions than its function")
                if "estimate" in loop:
                    if not innermost:
                        fail(lwhere, "an estimate for a loop that is not innermost")
                    check_estimate(lwhere + ".estimate", loop["estimate"])
                if "paths" in loop:
                    check_paths(lwhere, loop)
    return len(doc["files"]), functions, loops


def check_estimate(where, e):
    for key in ("cycles_per_iteration", "busy_cycles", "busy_share"):
        if not isinstance(e.get(key), (int, float)) or e[key] < 0:
            fail(where, f"{key} = {e.get(key)}")
    for key in ("busiest_unit", "bound"):
        expect(where, e, key, str)
    expect(where, e, "unmodelled_instructions", int)


def check_paths(where, loop):
    """A loop that branches inside: its estimate is its fastest path's, and
    no path is longer than the loop or faster than the fastest."""
    paths = loop["paths"]
    if expect(where, paths, "count", int) < 2:
        fail(where, "paths for a loop with fewer than two")
    cycles = {}
    for side in ("fastest", "slowest"):
        path = expect(where, paths, side, dict)
        if not 0 < expect(where, path, "instructions", int) <= loop["code"]["instructions"]:
            fail(where, f"the {side} path has {path['instructions']} instructions")
        check_estimate(f"{where}.paths.{side}", expect(where, path, "estimate", dict))
        cycles[side] = path["estimate"]["cycles_per_iteration"]
    if cycles["fastest"] > cycles["slowest"]:
        fail(where, "the fastest path is slower than the slowest")
    if loop.get("estimate") != paths["fastest"]["estimate"]:
        fail(where, "the estimate is not the fastest path's")


def main():
    files, functions, loops = check_document(json.load(sys.stdin))
    print(f"schema ok: {files} files, {functions} functions, {loops} loops")


if __name__ == "__main__":
    main()
