"""Make the reference results of the differential test with compiled Triton on a GPU.

    python3 tests/python/differential/make_reference.py OUTDIR

(from the repository root, with torch (CUDA) and triton importable; nothing else is
needed) runs the kernels of every family through Triton on cuda tensors: family "df"
(generator.py, generator.COUNT kernels) into OUTDIR/reference.npz and
OUTDIR/summary.txt, family "cf" (generator_cf.py: control flow and the larger language
surface, generator_cf.COUNT kernels) into OUTDIR/reference_cf.npz and
OUTDIR/summary_cf.txt, family "rt" (generator_rt.py: random numbers, math and libdevice
functions, division and rounding helpers, casts incl. fp8, atomics' old values,
generator_rt.COUNT kernels) into OUTDIR/reference_rt.npz and OUTDIR/summary_rt.txt,
family "md" (generator_md.py: memory access and dots: matmul K loops with masked edges,
layouts, fp8/int8/f16/bf16/ieee f32, block pointers, tensor descriptors, gathers and
scatters, generator_md.COUNT kernels) into OUTDIR/reference_md.npz and
OUTDIR/summary_md.txt (all compressed), and prints the summaries: how many kernels ran,
how many Triton rejected (with the first lines of each rejection), and any other
failure. Copy the npz files to tests/python/differential/, where
tests/python/test_differential.py reads them.

Each kernel is launched with enable_fp_fusion=False (no a*b+c contraction into FMA, so
that + - * are IEEE on the GPU as on a CPU). Triton's default input_precision (TF32)
stays where the generator does not ask for "ieee"; the test's tolerance allows for it.

Robustness: the kernels run in a worker subprocess that appends each result to a file
as soon as it has it; a kernel that raises is recorded with its error (status
'rejected' when the launch raised, which is where Triton's compile errors surface,
'runtime_error' when synchronising or reading back failed); a kernel taking over
KERNEL_TIMEOUT seconds is abandoned ('timeout'); if the worker dies (a CUDA error that
poisons the context, a crash in the compiler) the kernel it was on is recorded as
'crashed' and a new worker goes on with the next one. After TIME_BUDGET seconds the
remaining kernels are recorded as 'not_run' (the test then fails for them: rerun).

Before the kernels, a canary kernel checks that this Triton evaluates the dtype
fingerprint the generator stores (`x.dtype.primitive_bitwidth * 4 + ...`); if it does
not, the kernels are generated without it and the npz says so (fingerprint=False).

Options (for dry runs; the GPU run needs none):
  --device cpu --triton-module triton   run on CPU tensors with whatever `triton` is
                                        importable (blockc's: PYTHONPATH=build/python)
  --family F     only family F ("df", "cf", "rt", "md" or "dx"; default: all, one npz each)
  --count N      run only the first N kernels (of each family)
  --budget S     the time budget in seconds, for all families together (default
                 TIME_BUDGET), shared among them by their kernel counts

The npz holds, for kernel k (keys prefixed kNNNN_): status, error (the exception's
type and text), digest (of the generated source and inputs; the test checks it), probe,
out0.. (the outputs, bfloat16 as uint16 bits), meta (int32 fingerprints); and globally:
generator_version, count, fingerprint, triton_version, torch_version, device,
launch_options.
"""

import argparse
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import generator as gen  # noqa: E402
import generator_cf  # noqa: E402
import generator_rt  # noqa: E402
import generator_md  # noqa: E402
import generator_dx  # noqa: E402

# family: (generator module, npz file, summary file)
FAMILIES = {"df": (gen, "reference.npz", "summary.txt"),
            "cf": (generator_cf, "reference_cf.npz", "summary_cf.txt"),
            "rt": (generator_rt, "reference_rt.npz", "summary_rt.txt"),
            "md": (generator_md, "reference_md.npz", "summary_md.txt"),
            "dx": (generator_dx, "reference_dx.npz", "summary_dx.txt")}

TIME_BUDGET = 170.0
KERNEL_TIMEOUT = 60
STALL_TIMEOUT = 90.0

CANARY = '''import triton
import triton.language as tl


@triton.jit
def kernel(out_ptr, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK).to(tl.float32)
    b = tl.arange(0, BLOCK).to(tl.int8)
    tl.store(out_ptr + 0, a.dtype.primitive_bitwidth * 4 + a.dtype.is_floating() * 2 + a.dtype.is_int_signed())
    tl.store(out_ptr + 1, b.dtype.primitive_bitwidth * 4 + b.dtype.is_floating() * 2 + b.dtype.is_int_signed())
'''


class KernelTimeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise KernelTimeout()


def canary(triton, torch, device, workdir):
    """Whether this Triton stores the dtype fingerprint as the generator writes it."""
    import importlib.util
    path = os.path.join(workdir, "df_canary.py")
    with open(path, "w") as f:
        f.write(CANARY)
    try:
        spec = importlib.util.spec_from_file_location("df_canary", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["df_canary"] = module
        spec.loader.exec_module(module)
        out = torch.zeros(2, dtype=torch.int32, device=device)
        module.kernel[(1,)](out, BLOCK=16)
        got = out.cpu().tolist()
        return got == [32 * 4 + 2, 8 * 4 + 1], f"canary stored {got}"
    except Exception as e:
        return False, f"canary raised {type(e).__name__}: {str(e)[:500]}"


def worker(args):
    import importlib
    import torch
    triton = importlib.import_module(args.triton_module)
    import runner
    fam = FAMILIES[args.family][0]
    workdir = tempfile.mkdtemp(prefix="df_ref_")
    signal.signal(signal.SIGALRM, _on_alarm)
    with open(args.records, "ab") as rec:
        fingerprint = args.fingerprint
        if fingerprint == "auto":
            ok, why = canary(triton, torch, args.device, workdir)
            fingerprint = "1" if ok else "0"
            pickle.dump({"kind": "canary", "fingerprint": ok, "why": why,
                         "triton_version": getattr(triton, "__version__", "?"),
                         "torch_version": torch.__version__,
                         "device": (torch.cuda.get_device_name(0) if args.device != "cpu" else "cpu")}, rec)
            rec.flush()
        for k in [int(x) for x in args.ids.split(",") if x]:
            if time.time() > args.deadline:
                break
            with open(args.progress, "w") as p:
                p.write(f"{k} {time.time()}\n")
            case = fam.generate(k, fingerprint=fingerprint == "1")
            t0 = time.time()
            signal.alarm(KERNEL_TIMEOUT)
            try:
                r = runner.run_case(case, triton, torch, args.device, workdir)
            except KernelTimeout:
                r = {"status": "timeout", "outputs": [], "meta": None,
                     "error": f"over {KERNEL_TIMEOUT} s"}
            finally:
                signal.alarm(0)
            r.update(kind="kernel", k=k, digest=case.digest(), probe=case.probe, seconds=time.time() - t0)
            pickle.dump(r, rec)
            rec.flush()
            if r["status"] == "timeout" and args.device != "cpu":
                return 3  # the device may still be busy with it: start afresh
    return 0


def read_records(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, "rb") as f:
        while True:
            try:
                out.append(pickle.load(f))
            except EOFError:
                break
            except Exception:  # a record cut short by a crash
                break
    return out


def _spawn(args, tmp, slot, ids, fingerprint, deadline, attempt):
    records = os.path.join(tmp, f"records{slot}.pkl")
    progress = os.path.join(tmp, f"progress{slot}.txt")
    if os.path.exists(progress):
        os.remove(progress)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--ids", ",".join(map(str, ids)),
           "--records", records, "--progress", progress, "--device", args.device,
           "--triton-module", args.triton_module, "--fingerprint", fingerprint,
           "--family", args.family,
           "--deadline", repr(deadline), args.outdir]
    log = open(os.path.join(tmp, f"worker{slot}.{attempt}.log"), "w+")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    return {"proc": proc, "log": log, "records": records, "progress": progress, "ids": ids,
            "last": (None, time.time()), "killed": None}


def _current(progress):
    try:
        with open(progress) as p:
            return int(p.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def orchestrate(args, deadline):
    fam, npz_name, summary_name = FAMILIES[args.family]
    t_start = time.time()
    os.makedirs(args.outdir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="df_orch_")
    count = args.count if args.count is not None else fam.COUNT
    jobs = max(1, args.jobs if args.jobs else (1 if args.device == "cpu" else 4))
    results = {}
    canaries = {}
    fingerprint = "auto"
    slots = {}
    for w in range(jobs):
        ids = list(range(w, count, jobs))
        if ids:
            slots[w] = _spawn(args, tmp, w, ids, fingerprint, deadline, 0)
    attempts = {w: 0 for w in slots}
    while slots:
        time.sleep(0.2)
        for w in list(slots):
            s = slots[w]
            proc = s["proc"]
            if proc.poll() is None:
                cur = _current(s["progress"])
                if cur != s["last"][0]:
                    s["last"] = (cur, time.time())
                    continue
                if time.time() - s["last"][1] <= STALL_TIMEOUT:
                    continue
                proc.kill()
                proc.wait()
                s["killed"] = "timeout"
            # the worker ended
            for r in read_records(s["records"]):
                if r.get("kind") == "canary":
                    canaries.setdefault(w, r)
                else:
                    results[r["k"]] = r
            s["log"].seek(0)
            tail = s["log"].read()[-3000:]
            s["log"].close()
            pending = [k for k in s["ids"] if k not in results]
            del slots[w]
            if not pending or time.time() >= deadline or (proc.returncode == 0 and not s["killed"]):
                continue
            # it died or gave up on a kernel: that kernel gets the blame, a new worker goes on
            if not canaries:
                canaries[w] = {"fingerprint": False, "why": "the canary killed the worker:\n" + tail}
            fp = "1" if list(canaries.values())[0]["fingerprint"] else "0"
            cur = _current(s["progress"])
            if cur is None:  # it died before its first kernel: another would too
                for k in pending:
                    case = fam.generate(k, fingerprint=fp == "1")
                    results[k] = {"kind": "kernel", "k": k, "status": "worker_failed",
                                  "error": f"the worker exited with {proc.returncode} before its first kernel:\n{tail}",
                                  "outputs": [], "meta": None, "digest": case.digest(), "probe": case.probe}
                continue
            if cur not in results:
                case = fam.generate(cur, fingerprint=fp == "1")
                results[cur] = {"kind": "kernel", "k": cur, "status": s["killed"] or "crashed",
                                "error": f"worker exited with {proc.returncode}:\n{tail}",
                                "outputs": [], "meta": None, "digest": case.digest(), "probe": case.probe}
                pending = [k for k in pending if k != cur]
            attempts[w] += 1
            if pending and attempts[w] < 20:
                slots[w] = _spawn(args, tmp, w, pending, fp, deadline, attempts[w])

    info = canaries[min(canaries)] if canaries else {}
    fingerprint = "1" if info.get("fingerprint") else "0"
    if len({bool(c["fingerprint"]) for c in canaries.values()}) > 1:
        info = dict(info, why=str(info.get("why", "")) + " (WORKERS DISAGREED)")

    arrays = {
        "generator_version": np.array(fam.GENERATOR_VERSION),
        "count": np.array(count),
        "fingerprint": np.array(fingerprint == "1"),
        "fingerprint_check": np.array(str(info.get("why", ""))),
        "triton_version": np.array(str(info.get("triton_version", "?"))),
        "torch_version": np.array(str(info.get("torch_version", "?"))),
        "device": np.array(str(info.get("device", args.device))),
        "launch_options": np.array(repr({"enable_fp_fusion": False})),
    }
    by_status = {}
    for k in range(count):
        r = results.get(k)
        if r is None:
            case = fam.generate(k, fingerprint=fingerprint == "1")
            r = {"status": "not_run", "error": "the time budget ran out", "outputs": [], "meta": None,
                 "digest": case.digest(), "probe": case.probe}
        p = f"k{k:04d}_"
        arrays[p + "status"] = np.array(r["status"])
        arrays[p + "error"] = np.array(r.get("error", ""))
        arrays[p + "digest"] = np.array(r["digest"])
        arrays[p + "probe"] = np.array(r.get("probe", ""))
        for j, o in enumerate(r.get("outputs") or []):
            arrays[p + f"out{j}"] = o
        if r.get("meta") is not None:
            arrays[p + "meta"] = np.asarray(r["meta"], dtype=np.int32)
        by_status.setdefault(r["status"], []).append((k, r))
    path = os.path.join(args.outdir, npz_name)
    np.savez_compressed(path, **arrays)
    elapsed = time.time() - t_start

    lines = [f"differential reference: generator {fam.GENERATOR_VERSION}, {count} kernels, "
             f"triton {arrays['triton_version']}, torch {arrays['torch_version']}, device {arrays['device']}",
             f"dtype fingerprint: {'on' if fingerprint == '1' else 'OFF'} ({info.get('why', '')})",
             f"wrote {path}: {os.path.getsize(path) / 1e6:.2f} MB in {elapsed:.1f} s"]
    for status in sorted(by_status):
        lines.append(f"  {status}: {len(by_status[status])}")
    secs = sorted(((r.get("seconds", 0.0), k) for k, r in by_status.get("ok", [])), reverse=True)
    if secs:
        lines.append("slowest kernels: " + ", ".join(f"{k} ({s:.2f} s)" for s, k in secs[:5]))
    for status in sorted(by_status):
        if status == "ok":
            continue
        lines.append("")
        lines.append(f"== {status} ==")
        for k, r in by_status[status]:
            first = [ln for ln in str(r.get("error", "")).splitlines() if ln.strip()][:6]
            probe = f" (probe {r.get('probe')})" if r.get("probe") else ""
            lines.append(f"kernel {k}{probe}:")
            lines.extend("    " + ln[:200] for ln in first)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.outdir, summary_name), "w") as f:
        f.write(text)
    print(text)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--triton-module", default="triton")
    ap.add_argument("--family", choices=sorted(FAMILIES), default=None,
                    help="only this family (default: all, one npz each)")
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--budget", type=float, default=TIME_BUDGET)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", type=int, default=0,
                    help="worker processes compiling in parallel (default 4 on a GPU, 1 on cpu)")
    ap.add_argument("--ids", default="", help=argparse.SUPPRESS)
    ap.add_argument("--records", help=argparse.SUPPRESS)
    ap.add_argument("--progress", help=argparse.SUPPRESS)
    ap.add_argument("--fingerprint", default="auto", help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, default=0.0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    families = [args.family] if args.family else list(FAMILIES)
    t_end = time.time() + args.budget
    counts = {f: args.count if args.count is not None else FAMILIES[f][0].COUNT for f in families}
    for i, f in enumerate(families):
        left = sum(counts[g] for g in families[i:])
        deadline = time.time() + max(0.0, t_end - time.time()) * counts[f] / max(1, left)
        args.family = f
        orchestrate(args, deadline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
