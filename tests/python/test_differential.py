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

A second family, differential/generator_cf.py ("cf"), covers control flow (for/while/if,
early return, helpers) and the larger language surface (custom reduce/scan combines,
sort, gather, histogram, 3-D shapes, block pointers, atomics, 2-D/3-D grids, integer
wrap-around, float16/bfloat16 rounding); its results are in differential/reference_cf.npz.
A third, differential/generator_rt.py ("rt"), covers random numbers (Philox, bit-exact),
math and libdevice functions over special ranges (within a few ulp), division and
rounding helpers, casts (fp8 too) and atomics' old values; its results are in
differential/reference_rt.npz, compared by generator_rt.compare. A fourth,
differential/generator_md.py ("md"), covers memory access and dots (matmul K loops with
masked edge tiles, operand layouts through strides, f16/bf16/ieee f32/int8/fp8 dots,
batched dots, epilogues, GROUP_M ordering, block pointers, tensor descriptors, masks and
`other=`, negative strides, gathers, scatters, cache keywords); its results are in
differential/reference_md.npz, compared by generator_md.compare (dots within a bound
from sum |a*b|). A fifth, differential/generator_dx.py ("dx"), is the first family's
grammar on 300 more seeds with every f32 dot in full precision (reference_dx.npz).

Without a family's reference file every test of that family fails: make both with
`python3 tests/python/differential/make_reference.py OUTDIR` on a GPU machine (from the
repository root; `--family md` for one family) and copy OUTDIR/reference.npz,
OUTDIR/reference_cf.npz, OUTDIR/reference_rt.npz, OUTDIR/reference_md.npz and
OUTDIR/reference_dx.npz to tests/python/differential/.
"""

import os
import sys
import tempfile

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "differential")
sys.path.insert(0, HERE)

import generator as gen  # noqa: E402
import generator_cf  # noqa: E402
import generator_rt  # noqa: E402
import generator_md  # noqa: E402
import generator_dx  # noqa: E402
import runner  # noqa: E402

# family: (generator module, reference file)
FAMILIES = {"df": (gen, "reference.npz"), "cf": (generator_cf, "reference_cf.npz"),
            "rt": (generator_rt, "reference_rt.npz"), "md": (generator_md, "reference_md.npz"),
            "dx": (generator_dx, "reference_dx.npz")}


# How Triton 3.6 failed on kernels that break no language rule, as the reference records
# it: an MLIR pass manager failure (tl.gather beside tl.histogram), ptxas refusing its own
# PTX (.cg with .evict_last), an assertion with no message inside its dot lowering (some
# int8 dots with an accumulator).
TRITON_INTERNAL_FAILURES = ("PassManager::run failed", "PTXASError", "AssertionError: \n")

def _missing(path):
    return (f"{path} is missing: run `python3 tests/python/differential/make_reference.py OUTDIR` "
            f"on a machine with an NVIDIA GPU and Triton 3.6 (from the repository root), and copy "
            f"OUTDIR/{os.path.basename(path)} there")


REFS = {}
PARAMS = []
for _fam, (_mod, _file) in FAMILIES.items():
    _path = os.path.join(HERE, _file)
    REFS[_fam] = np.load(_path, allow_pickle=False) if os.path.exists(_path) else None
    if REFS[_fam] is not None:
        PARAMS += [pytest.param(_fam, k, id=f"{_fam}-{k}") for k in range(int(REFS[_fam]["count"]))]
    else:
        PARAMS.append(pytest.param(_fam, None, id=f"{_fam}-reference-missing"))


def _str(ref, key):
    return str(ref[key]) if key in ref.files else ""


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="differential_") as d:
        yield d


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_reference_is_for_this_generator(family):
    mod, file = FAMILIES[family]
    ref = REFS[family]
    assert ref is not None, _missing(os.path.join(HERE, file))
    assert str(ref["generator_version"]) == mod.GENERATOR_VERSION, (
        f"{file} was made by generator {ref['generator_version']}, this is "
        f"{mod.GENERATOR_VERSION}: make it again on the GPU")
    assert int(ref["count"]) == mod.COUNT, (
        f"{file} has {int(ref['count'])} kernels, COUNT is {mod.COUNT}")


@pytest.mark.parametrize("family,k", PARAMS)
def test_kernel(family, k, workdir):
    mod, file = FAMILIES[family]
    REF = REFS[family]
    assert REF is not None, _missing(os.path.join(HERE, file))
    import torch
    import triton
    p = f"k{k:04d}_"
    fingerprint = bool(REF["fingerprint"])
    case = mod.generate(k, fingerprint=fingerprint)
    what = case.probe and f", probe {case.probe}" or ""
    if getattr(case, "template", ""):
        what += f", template {case.template}"
    header = f"{family} kernel {k} (seed {k}{what}):\n{case.source}"
    assert str(REF["generator_version"]) == mod.GENERATOR_VERSION, (
        "generator version differs from the reference's")
    assert _str(REF, p + "digest") == case.digest(), (
        f"{header}\nthe generated source or inputs differ from those the reference was made with "
        f"(same generator version {mod.GENERATOR_VERSION}): generation is not deterministic here")
    status = _str(REF, p + "status")
    ref_error = _str(REF, p + "error")
    got = runner.run_case(case, triton, torch, "cpu", workdir, tag=f"{family}{k}")
    if status == "rejected" and any(m in ref_error for m in TRITON_INTERNAL_FAILURES):
        # Triton's own compiler failed on it (an MLIR pass, ptxas, an internal assertion;
        # not a language rule): nothing to compare with; blockc must still compile and run it.
        assert got["status"] == "ok", (
            f"{header}\nTriton's compiler failed on this kernel, and blockc {got['status']}:\n"
            f"{got['error']}")
        return
    if status == "rejected":
        if got["status"] == "rejected":
            return  # both reject it
        if got["status"] == "ok" and case.probe in gen.BLOCKC_EXTENSIONS:
            print(f"kernel {k}: Triton rejects, blockc accepts (documented extension: "
                  f"{gen.BLOCKC_EXTENSIONS[case.probe]})")
            return
        pytest.fail(f"{header}\nTriton rejects this kernel but blockc {got['status']}:\n"
                    f"Triton: {ref_error}\nblockc: {got['error']}")
    assert status == "ok", (
        f"{header}\nthe reference has no result for this kernel ({status}): {ref_error}")
    assert got["status"] == "ok", (
        f"{header}\nTriton runs this kernel, blockc {got['status']}:\n{got['error']}")
    refs = [REF[p + f"out{j}"] for j in range(len(case.outputs))]
    if hasattr(case, "compare"):  # a family's own comparison (generator_rt)
        problems = case.compare(refs, got["outputs"])
    else:
        problems = runner.compare(case, refs, got["outputs"])
    if fingerprint and case.n_meta:
        ref_meta = REF[p + "meta"]
        if not np.array_equal(ref_meta, got["meta"]):
            problems.append(f"result dtype fingerprints (bitwidth*4 + is_floating*2 + "
                            f"is_int_signed, per output): blockc {got['meta'].tolist()}, "
                            f"triton {ref_meta.tolist()}")
    assert not problems, header + "\n" + "\n".join(problems)
