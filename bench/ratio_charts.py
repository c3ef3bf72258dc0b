#!/usr/bin/python3
"""Ratio charts of blockc's benchmarks: blockc against each baseline, per thread count.

    bench/ratio_charts.py RESULTS.json [RESULTS.json ...] --out DIR [--title TEXT]

RESULTS.json are Google Benchmark JSON files (a bench binary run with
--benchmark_out=FILE --benchmark_out_format=json; with --benchmark_repetitions the
medians are used). Benchmarks are named FAMILY/SIDE/PARAMS, SIDE being `blockc`,
`baseline` or `baseline_NAME` (bench/RatioReporter.h); each family gets one chart,
DIR/FAMILY.png: for every parameter set (`n:4096/threads:16`), one bar per baseline
giving baseline time / blockc time, so a bar above the line at 1 is blockc ahead.
`--table` prints the same ratios as a Markdown table instead of drawing (no matplotlib
needed). Drawing needs matplotlib (Debian: python3-matplotlib).
"""

import argparse
import json
import sys
from collections import defaultdict


def load_times(paths):
    """{family: {params: {side: seconds}}} from Google Benchmark JSON files: the
    median of repetitions where there are some, else the single run."""
    runs = defaultdict(dict)
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for bench in data.get("benchmarks", []):
            aggregate = bench.get("aggregate_name")
            if bench.get("error_occurred") or aggregate not in (None, "median"):
                continue
            name = bench.get("run_name", bench["name"]).replace("/real_time", "")
            parts = name.split("/")
            if len(parts) < 2:
                continue
            family, side, params = parts[0], parts[1], "/".join(parts[2:])
            if side != "blockc" and side != "baseline" and not side.startswith("baseline_"):
                continue
            scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[bench.get("time_unit", "ns")]
            key = (family, params, side)
            # A median beats a single run of the same benchmark.
            if aggregate == "median" or key not in runs:
                runs[key] = bench["real_time"] * scale
    times = defaultdict(lambda: defaultdict(dict))
    for (family, params, side), seconds in runs.items():
        times[family][params][side] = seconds
    return times


def ratios(times):
    """{family: [(params, {baseline: ratio})]}: baseline time / blockc time."""
    out = {}
    for family, by_params in sorted(times.items()):
        rows = []
        for params, sides in sorted(by_params.items(), key=lambda item: _order(item[0])):
            if "blockc" not in sides:
                continue
            row = {side: t / sides["blockc"] for side, t in sides.items() if side != "blockc"}
            if row:
                rows.append((params, row))
        if rows:
            out[family] = rows
    return out


def _order(params):
    """Parameters sorted by their numbers (threads:2 before threads:16)."""
    key = []
    for part in params.split("/"):
        name, _, value = part.partition(":")
        key.append((name, int(value) if value.isdigit() else 0, value))
    return key


def markdown(table):
    lines = []
    for family, rows in table.items():
        baselines = sorted({b for _, row in rows for b in row})
        lines.append(f"| {family} | " + " | ".join(f"vs {b}" for b in baselines) + " |")
        lines.append("| --- |" + " --- |" * len(baselines))
        for params, row in rows:
            cells = [f"{row[b]:.2f}x" if b in row else "" for b in baselines]
            lines.append(f"| {params or '-'} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def draw(table, out_dir, title):
    import os
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for family, rows in table.items():
        baselines = sorted({b for _, row in rows for b in row})
        width = 0.8 / len(baselines)
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(rows) + 2), 3.2))
        for i, baseline in enumerate(baselines):
            xs = [j + (i - (len(baselines) - 1) / 2) * width for j in range(len(rows))]
            ys = [row.get(baseline, 0.0) for _, row in rows]
            bars = ax.bar(xs, ys, width, label=f"vs {baseline}")
            for bar, y in zip(bars, ys):
                if y:
                    ax.annotate(f"{y:.2f}", (bar.get_x() + bar.get_width() / 2, y),
                                ha="center", va="bottom", fontsize=7)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([params.replace("/", "\n") or "-" for params, _ in rows], fontsize=8)
        ax.set_ylabel("baseline time / blockc time")
        ax.set_title(f"{family}" + (f" ({title})" if title else ""), fontsize=10)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, f"{family}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="Google Benchmark JSON files")
    parser.add_argument("--out", help="directory for the charts (FAMILY.png)")
    parser.add_argument("--title", default="", help="added to each chart's title (the machine)")
    parser.add_argument("--table", action="store_true", help="print a Markdown table instead")
    args = parser.parse_args(argv)
    try:
        table = ratios(load_times(args.results))
    except (OSError, ValueError, KeyError) as e:
        print(f"ratio_charts.py: cannot read the results: {e}", file=sys.stderr)
        return 1
    if not table:
        print("ratio_charts.py: no blockc benchmark with a baseline in the results",
              file=sys.stderr)
        return 1
    if args.table:
        print(markdown(table))
        return 0
    if not args.out:
        print("ratio_charts.py: --out DIR is needed to draw (or --table)", file=sys.stderr)
        return 1
    try:
        written = draw(table, args.out, args.title)
    except ImportError:
        print("ratio_charts.py: drawing needs matplotlib (Debian: python3-matplotlib); "
              "--table prints the ratios without it", file=sys.stderr)
        return 1
    print("\n".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
