#!/usr/bin/python3
"""bench/ratio_charts.py: the ratios it reads from Google Benchmark JSON (medians of
repetitions, baseline time / blockc time per baseline and parameter set), its table,
and clear errors for files it cannot use. Drawing is checked where matplotlib is
installed (--draw), and skipped (exit 77, a ctest skip) with a message naming it
where not."""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(sys.argv[1], "bench", "ratio_charts.py")
DRAW = "--draw" in sys.argv[2:]
spec = importlib.util.spec_from_file_location("ratio_charts", SCRIPT)
charts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(charts)


def bench(name, ms, aggregate=None):
    entry = {"name": name + ("_" + aggregate if aggregate else ""), "run_name": name,
             "real_time": ms, "time_unit": "ms"}
    if aggregate:
        entry["aggregate_name"] = aggregate
    return entry


def main():
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "r.json")
        with open(results, "w") as f:
            json.dump({"benchmarks": [
                bench("soft/blockc/n:4096/threads:16/real_time", 1.0, "median"),
                bench("soft/blockc/n:4096/threads:16/real_time", 9.0, "mean"),  # ignored
                bench("soft/baseline/n:4096/threads:16/real_time", 8.0, "median"),
                bench("soft/baseline_xsimd/n:4096/threads:16/real_time", 0.5, "median"),
                bench("soft/blockc/n:4096/threads:2/real_time", 4.0),
                bench("soft/baseline_xsimd/n:4096/threads:2/real_time", 6.0),
                bench("lonely/baseline/threads:1", 1.0),  # no blockc side: no chart
            ]}, f)
        table = charts.ratios(charts.load_times([results]))
        assert list(table) == ["soft"], table
        assert table["soft"] == [("n:4096/threads:2", {"baseline_xsimd": 1.5}),
                                 ("n:4096/threads:16", {"baseline": 8.0,
                                                        "baseline_xsimd": 0.5})], table
        text = subprocess.run([sys.executable, SCRIPT, results, "--table"], capture_output=True,
                              text=True, check=True).stdout
        assert "| n:4096/threads:16 | 8.00x | 0.50x |" in text, text
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        run = subprocess.run([sys.executable, SCRIPT, bad, "--table"], capture_output=True,
                             text=True)
        assert run.returncode == 1 and "cannot read the results" in run.stderr, run.stderr
        if DRAW:
            if importlib.util.find_spec("matplotlib") is None:
                print("SKIPPED: drawing needs matplotlib (python3-matplotlib)")
                sys.exit(77)
            out = os.path.join(tmp, "charts")
            subprocess.run([sys.executable, SCRIPT, results, "--out", out], check=True,
                           capture_output=True)
            with open(os.path.join(out, "soft.png"), "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    print("ratio_charts ok")


if __name__ == "__main__":
    main()
