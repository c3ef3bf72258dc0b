"""Running one generated case through whichever `triton` is imported (compiled Triton on
a GPU in make_reference.py, blockc in test_differential.py), and comparing results.

`run_case(case, triton, torch, device, workdir)` writes the kernel's source to a file
(so that `@triton.jit` can read it), imports it, launches it on tensors of `device` and
returns a dict: status ('ok', 'rejected': the launch raised, which is where a compile
error surfaces; 'runtime_error': the launch returned but synchronising or reading back
failed), outputs (numpy; bfloat16 as uint16 bits), meta (int32 dtype fingerprints) and
error (the exception's type and text).

`compare(case, ref_outputs, outputs)` returns a list of mismatch descriptions (empty
when the results agree): integers and bools exactly; floats bit-for-bit up to the
smallest normal of the dtype where the generator marks the result exact, otherwise
|a - b| <= tol * max(max|ref|, 1) with tol from the generator; NaN and infinity at the
same places either way.
"""

import importlib.util
import os
import sys
import traceback

import numpy as np

import generator as gen

LAUNCH_OPTIONS = {"enable_fp_fusion": False}


def load_kernel(case, workdir, tag):
    path = os.path.join(workdir, f"df_kernel_{tag}.py")
    with open(path, "w") as f:
        f.write(case.source)
    name = f"df_kernel_{tag}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.kernel


def _error_text(e):
    """The exception and what caused it: Triton's CompilationError shows the source line,
    and the reason is in its cause."""
    text = f"{type(e).__name__}: {e}"
    cause = e.__cause__ or e.__context__
    if cause is not None:
        text = f"{type(cause).__name__}: {cause}\n{text}"
    return text[:4000]


def run_case(case, triton, torch, device, workdir, tag=None):
    tag = tag if tag is not None else str(case.seed)
    result = {"status": "ok", "outputs": [], "meta": None, "error": ""}
    try:
        kernel = load_kernel(case, workdir, tag)
        launch = getattr(case, "launch_args", None)  # a family's own (generator_cf)
        if launch is None:
            def launch(tensor, empty):
                return gen.launch_args(case, tensor, empty)
        args, outs, meta = launch(
            lambda arr, dt: gen.to_torch(torch, arr, dt, device),
            lambda shape, dt: gen.torch_empty(torch, shape, dt, device))
    except Exception as e:  # the harness itself failed: not Triton's verdict
        result.update(status="harness_error", error=_error_text(e) + "\n" + traceback.format_exc()[-2000:])
        return result
    try:
        kernel[case.grid](*args, **case.constexprs, **LAUNCH_OPTIONS)
    except Exception as e:
        result.update(status="rejected", error=_error_text(e))
        return result
    try:
        if device != "cpu":
            torch.cuda.synchronize()
        result["outputs"] = [gen.from_torch(torch, t, dt) for t, (_, _, dt, _) in zip(outs, case.outputs)]
        result["meta"] = gen.from_torch(torch, meta, "int32")[:case.n_meta]
    except Exception as e:
        result.update(status="runtime_error", error=_error_text(e))
    return result


FINFO_TINY = {"float16": 6.103515625e-05, "bfloat16": 1.1754943508222875e-38,
              "float32": 1.1754943508222875e-38, "float64": 2.2250738585072014e-308}


def as_float64(arr, dt):
    if dt == "bfloat16":
        return gen.bf16_bits_to_f32(arr).astype(np.float64)
    return np.asarray(arr).astype(np.float64)


def compare(case, ref_outputs, outputs, limit=8):
    problems = []
    for j, ((name, shape, dt, tol), ref, got) in enumerate(zip(case.outputs, ref_outputs, outputs)):
        ref = np.asarray(ref)
        got = np.asarray(got)
        if ref.shape != got.shape:
            problems.append(f"{name}: shape {got.shape} != reference {ref.shape}")
            continue
        if not gen.is_float(dt):
            bad = np.argwhere(ref != got)
            if len(bad):
                lines = [f"{name} ({dt}, exact): {len(bad)} of {ref.size} elements differ"]
                for idx in bad[:limit]:
                    idx = tuple(idx)
                    lines.append(f"  at {idx}: blockc {got[idx]!r}, triton {ref[idx]!r}")
                problems.append("\n".join(lines))
            continue
        r = as_float64(ref, dt)
        g = as_float64(got, dt)
        rn, gn = np.isnan(r), np.isnan(g)
        bad = rn != gn
        both = ~(rn | gn)
        rinf, ginf = np.isinf(r), np.isinf(g)
        bad |= both & (rinf | ginf) & (r != g)
        finite = both & ~rinf & ~ginf
        if tol == 0:
            allowed = FINFO_TINY[dt]
            kind = "exact"
        else:
            scale = max(float(np.max(np.abs(r[finite]), initial=0.0)), 1.0)
            allowed = tol * scale
            kind = f"tol {tol:g} x {scale:g}"
        with np.errstate(invalid="ignore"):
            bad |= finite & (np.abs(r - g) > allowed)
        where = np.argwhere(bad)
        if len(where):
            lines = [f"{name} ({dt}, {kind}): {len(where)} of {r.size} elements differ"]
            for idx in where[:limit]:
                idx = tuple(idx)
                lines.append(f"  at {idx}: blockc {g[idx]!r}, triton {r[idx]!r}")
            problems.append("\n".join(lines))
    return problems
