"""Differential test against compiled Triton 3.6 on an NVIDIA GPU.

differential/generator.py makes, from each seed, a random @triton.jit kernel (an
expression DAG over masked loads of random dtypes: arithmetic, integer division,
bitwise ops, shifts, comparisons, where, casts and bitcasts, weak literals, scalar
arguments, math functions, reductions, scans, shape ops, dot) with its inputs.
differential/make_reference.py ran them all through real Triton on a GPU and saved
what each stored (and the dtype Triton's promotion gave each result) in
differential/reference.npz. Here each kernel is generated again, run through blockc on
CPU tensors with the same inputs, and compared: integers and bools exactly; floats
bit-for-bit where the generator marks the result exact (no operation whose rounding
differs between implementations), else within a relative tolerance by dtype and
operation (differential/runner.py, `compare`); NaN and infinities at the same places.

A kernel Triton rejected must be rejected by blockc too, unless the generator's probe
is one of blockc's documented extensions (generator.BLOCKC_EXTENSIONS).

Without reference.npz every test here fails: make it on a GPU machine with
`python3 tests/python/differential/make_reference.py OUTDIR` (from the repository
root) and copy OUTDIR/reference.npz to tests/python/differential/.
"""

import os
import sys
import tempfile

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "differential")
sys.path.insert(0, HERE)

import generator as gen  # noqa: E402
import runner  # noqa: E402

REFERENCE = os.path.join(HERE, "reference.npz")
MISSING = (f"{REFERENCE} is missing: run `python3 tests/python/differential/make_reference.py OUTDIR` "
           f"on a machine with an NVIDIA GPU and Triton 3.6 (from the repository root), and copy "
           f"OUTDIR/reference.npz there")

REF = np.load(REFERENCE, allow_pickle=False) if os.path.exists(REFERENCE) else None
IDS = list(range(int(REF["count"]))) if REF is not None else ["reference-missing"]


def _str(key):
    return str(REF[key]) if key in REF.files else ""


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="differential_") as d:
        yield d


def test_the_reference_is_for_this_generator():
    assert REF is not None, MISSING
    assert str(REF["generator_version"]) == gen.GENERATOR_VERSION, (
        f"reference.npz was made by generator {REF['generator_version']}, this is "
        f"{gen.GENERATOR_VERSION}: make it again on the GPU")
    assert int(REF["count"]) == gen.COUNT, f"reference has {int(REF['count'])} kernels, generator.COUNT is {gen.COUNT}"


@pytest.mark.parametrize("k", IDS)
def test_kernel(k, workdir):
    assert REF is not None, MISSING
    import torch
    import triton
    p = f"k{k:04d}_"
    fingerprint = bool(REF["fingerprint"])
    case = gen.generate(k, fingerprint=fingerprint)
    header = f"kernel {k} (seed {k}{', probe ' + case.probe if case.probe else ''}):\n{case.source}"
    assert str(REF["generator_version"]) == gen.GENERATOR_VERSION, "generator version differs from the reference's"
    assert _str(p + "digest") == case.digest(), (
        f"{header}\nthe generated source or inputs differ from those the reference was made with "
        f"(same generator version {gen.GENERATOR_VERSION}): generation is not deterministic here")
    status = _str(p + "status")
    ref_error = _str(p + "error")
    got = runner.run_case(case, triton, torch, "cpu", workdir)
    if status == "rejected":
        if got["status"] == "rejected":
            return  # both reject it
        if got["status"] == "ok" and case.probe in gen.BLOCKC_EXTENSIONS:
            print(f"kernel {k}: Triton rejects, blockc accepts (documented extension: "
                  f"{gen.BLOCKC_EXTENSIONS[case.probe]})")
            return
        pytest.fail(f"{header}\nTriton rejects this kernel but blockc {got['status']}:\n"
                    f"Triton: {ref_error}\nblockc: {got['error']}")
    assert status == "ok", f"{header}\nthe reference has no result for this kernel ({status}): {ref_error}"
    assert got["status"] == "ok", f"{header}\nTriton runs this kernel, blockc {got['status']}:\n{got['error']}"
    refs = [REF[p + f"out{j}"] for j in range(len(case.outputs))]
    problems = runner.compare(case, refs, got["outputs"])
    if fingerprint:
        ref_meta = REF[p + "meta"]
        if not np.array_equal(ref_meta, got["meta"]):
            problems.append(f"result dtype fingerprints (bitwidth*4 + is_floating*2 + is_int_signed, per "
                            f"output): blockc {got['meta'].tolist()}, triton {ref_meta.tolist()}")
    assert not problems, header + "\n" + "\n".join(problems)
