"""`triton.testing`: timing and comparison helpers, for the CPU.

`do_bench` times with the monotonic clock on this thread (a launch returns
when every program has finished); unlike Triton on a GPU it does not flush
the cache between runs, so small inputs measure warm-cache speed.
"""

import math
import os
import statistics
import time


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Runs `fn` for about `warmup` ms, then times it for about `rep` ms, and
    returns milliseconds: the `quantiles` asked for, else per `return_mode`
    ("min", "max", "mean", "median" or "all")."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"return_mode must be min, max, mean, median or all, not "
                         f"{return_mode!r}")
    fn()
    start = time.perf_counter()
    estimate_runs = 0
    while estimate_runs < 5 and (time.perf_counter() - start) * 1e3 < 5 or estimate_runs == 0:
        fn()
        estimate_runs += 1
    estimate_ms = (time.perf_counter() - start) * 1e3 / estimate_runs
    n_warmup = max(1, int(warmup / max(estimate_ms, 1e-6)))
    n_repeat = max(1, int(rep / max(estimate_ms, 1e-6)))
    for _ in range(n_warmup):
        fn()
    times = []
    for _ in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    if quantiles is not None:
        result = [_quantile(times, q) for q in quantiles]
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.fmean,
            "median": statistics.median}[return_mode](times)


def _quantile(values, q):
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _to_numpy(x):
    import numpy
    if hasattr(x, "detach"):
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()
        return x.numpy()
    return numpy.asarray(x)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Triton's check: |x - y| <= atol + rtol * |y| elementwise, atol 1e-2
    and rtol 0 by default; tensors, arrays and numbers."""
    import numpy
    atol = 1e-2 if atol is None else atol
    rtol = 0 if rtol is None else rtol
    x, y = _to_numpy(x), _to_numpy(y)
    if x.dtype == numpy.bool_ or y.dtype == numpy.bool_:
        numpy.testing.assert_array_equal(x, y, err_msg=err_msg)
        return
    numpy.testing.assert_allclose(x.astype(numpy.float64), y.astype(numpy.float64), atol=atol,
                                  rtol=rtol, equal_nan=True, err_msg=err_msg)


class Benchmark:
    """One `perf_report` table: `x_names` × `x_vals` rows, a column per
    `line_vals` entry."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args=None,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None, color=None,
                 **unused):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.plot_name = plot_name
        self.args = dict(args or {})
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench, save_path, show_plots, print_data):
        rows = []
        for x in bench.x_vals:
            values = x if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, values))
            row = list(values[:len(bench.x_names)])
            for line in bench.line_vals:
                result = self.fn(**x_args, **{bench.line_arg: line}, **bench.args)
                row.append(result[0] if isinstance(result, (tuple, list)) else result)
            rows.append(row)
        header = bench.x_names + bench.line_names
        if print_data:
            print(f"{bench.plot_name}:")
            print("  ".join(f"{h:>14}" for h in header))
            for row in rows:
                print("  ".join(f"{v:>14.6g}" if isinstance(v, float) else f"{v!s:>14}"
                                for v in row))
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w") as f:
                f.write(",".join(header) + "\n")
                for row in rows:
                    f.write(",".join(str(v) for v in row) + "\n")
        if show_plots or save_path:
            _plot(bench, header, rows, save_path, show_plots)
        return header, rows

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        benchmarks = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        results = [self._run(b, save_path, show_plots, print_data) for b in benchmarks]
        if return_df:
            try:
                import pandas
            except ImportError:
                return results if len(results) > 1 else results[0]
            frames = [pandas.DataFrame(rows, columns=header) for header, rows in results]
            return frames if len(frames) > 1 else frames[0]
        return None


def _plot(bench, header, rows, save_path, show):
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return  # plotting is optional; the table is the result
    fig, ax = plt.subplots()
    xs = [r[0] for r in rows]
    for i, name in enumerate(bench.line_names):
        ax.plot(xs, [r[len(bench.x_names) + i] for r in rows], label=name)
    ax.set_xlabel(bench.xlabel or bench.x_names[0])
    ax.set_ylabel(bench.ylabel)
    if bench.x_log:
        ax.set_xscale("log")
    if bench.y_log:
        ax.set_yscale("log")
    ax.legend()
    if save_path:
        fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
    if show:
        plt.show()
    plt.close(fig)


def perf_report(benchmarks):
    """`@triton.testing.perf_report(Benchmark(...))`: `fn.run(print_data=True)`."""
    return lambda fn: Mark(fn, benchmarks)
