"""`@triton.autotune` and `@triton.heuristics`.

The autotuner times every config (after pruning) the first time a kernel is
launched with a new value of its key, with `triton.testing.do_bench` on this
CPU, and launches the fastest from then on. A config that does not compile
is timed as infinitely slow; if none compiles, the first error is raised.

Each config is timed for `rep` ms after `warmup` ms, as the decorator says,
else Triton's 100 and 25, else, where BLOCKC_AUTOTUNE_REP_MS is set, that many
and a quarter of it: a board with many configs to try, or a test suite that
checks what tuning chooses rather than how finely, can tune in less time.

Before any is timed, the configs are compiled on BLOCKC_COMPILE_THREADS threads
(by default one per CPU the process may run on): LLVM runs without the GIL, and
compiling is most of a first tuning's time (a Mamba-2 chunked scan: 115 configs
of 15 kernels, 77 ms each).
"""

import builtins
import concurrent.futures
import math
import os
import time

from ...frontend.errors import CompilationError


class Config:
    """A set of meta-parameters to try. The GPU fields (num_warps,
    num_stages, num_ctas, maxnreg) are kept for printing and ignored;
    `num_cpu_threads` sets the launcher's thread count."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None, num_cpu_threads=None, **ignored):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.num_cpu_threads = num_cpu_threads

    def all_kwargs(self):
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages,
                   "num_ctas": self.num_ctas}
        if self.num_cpu_threads:
            options["num_cpu_threads"] = self.num_cpu_threads
        return {**self.kwargs, **options}

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_stages: {self.num_stages}"]
        if self.num_cpu_threads:
            parts.append(f"num_cpu_threads: {self.num_cpu_threads}")
        return ", ".join(parts)

    __repr__ = __str__


class Autotuner:
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 do_bench=None, cache_results=False, use_cuda_graph=False):
        self.fn = fn
        self.arg_names = arg_names
        self.configs = configs or [Config({})]
        self.key = list(key)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.pre_hook = pre_hook
        self.post_hook = post_hook
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        # Not `self.warmup`: that is the method compiling every config.
        self.warmup_ms = warmup
        self.rep_ms = rep
        self.user_do_bench = do_bench
        self.cache = {}
        self.best_config = None
        self.configs_timings = None
        self.__name__ = getattr(fn, "__name__", "kernel")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def _tuning_key(self, arguments):
        key = [arguments.get(name) for name in self.key]
        key += [str(v.dtype) for v in arguments.values() if hasattr(v, "dtype")]
        return tuple(key)

    def run(self, *args, grid, **kwargs):
        positional = dict(zip(self.arg_names, args))
        arguments = {**positional, **kwargs}
        key = self._tuning_key(arguments)
        if key not in self.cache:
            pruned = self.prune_configs(positional, kwargs)
            if len(pruned) > 1:
                started = time.perf_counter()
                self._compile_ahead(pruned, args, grid, kwargs)
                timings = {config: self._bench(config, args, grid, kwargs) for config in pruned}
                best = builtins.min(timings, key=timings.get)
                if timings[best] == float("inf"):
                    self._bench(best, args, grid, kwargs, raise_errors=True)
                self.configs_timings = timings
                if os.environ.get("TRITON_PRINT_AUTOTUNING") == "1":
                    print(f"Triton autotuning for function {self.__name__} finished after "
                          f"{time.perf_counter() - started:.2f}s; best config selected: {best};")
            else:
                best = pruned[0]
            self.cache[key] = best
        config = self.cache[key]
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**arguments, **config.all_kwargs()})
        result = self.fn.run(*args, grid=grid, **self._merge(config, kwargs))
        return result

    def _merge(self, config, kwargs):
        conflicts = set(config.kwargs) & set(kwargs)
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}. Make "
                             "sure that you don't re-define auto-tuned symbols.")
        return {**kwargs, **config.all_kwargs()}

    def prune_configs(self, positional, kwargs):
        """As Triton's: `early_config_prune(configs, named_args, **kwargs)` gets the
        positional arguments by name and the keyword ones as keywords (tutorials 06
        and 09 read `kwargs["N_CTX"]`)."""
        arguments = {**positional, **kwargs}
        configs = list(self.configs)
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, positional, **kwargs))
        if self.perf_model:
            top_k = self.top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            if len(configs) > top_k:
                estimates = {c: self.perf_model(**arguments, **c.all_kwargs()) for c in configs}
                configs = sorted(estimates, key=estimates.get)[:builtins.max(top_k, 1)]
        return configs

    def _compile_ahead(self, configs, args, grid, kwargs):
        """Compiles the configs about to be timed, several at a time. A config
        that fails here fails again when it is timed, which reports it as
        tuning always has (an infinite time, or the error if none compiles)."""
        threads = builtins.min(_compile_threads(), len(configs))
        if threads <= 1:
            return

        def compile_one(config):
            try:
                self.fn.warmup(*args, grid=grid, **self._merge(config, kwargs))
            except Exception:  # noqa: BLE001 - reported when the config is timed
                pass

        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            for _ in pool.map(compile_one, configs):
                pass

    def _bench(self, config, args, grid, kwargs, raise_errors=False):
        from ..testing import do_bench
        merged = self._merge(config, kwargs)
        arguments = dict(zip(self.arg_names, args))
        arguments.update(kwargs)
        saved = {name: _copy(arguments[name]) for name in self.restore_value
                 if name in arguments}

        def call():
            for name in self.reset_to_zero:
                if name in arguments:
                    arguments[name].zero_() if hasattr(arguments[name], "zero_") else \
                        arguments[name].fill(0)
            if config.pre_hook is not None:
                config.pre_hook({**arguments, **config.all_kwargs()})
            self.fn.run(*args, grid=grid, **merged)

        try:
            warmup, rep = _timing_ms(self.warmup_ms, self.rep_ms)
            bench = self.user_do_bench or (lambda f: do_bench(f, warmup=warmup, rep=rep,
                                                              quantiles=(0.5,)))
            timing = bench(call)
            timing = timing[0] if isinstance(timing, (list, tuple)) else timing
        except CompilationError:
            if raise_errors:
                raise
            timing = float("inf")
        for name, value in saved.items():
            _restore(arguments[name], value)
        return timing

    def warmup(self, *args, **kwargs):
        return [self.fn.warmup(*args, **self._merge(c, kwargs)) for c in self.configs]


def _timing_ms(warmup, rep):
    """(warmup, rep) in ms: the decorator's, else BLOCKC_AUTOTUNE_REP_MS's, else
    Triton's defaults."""
    text = os.environ.get("BLOCKC_AUTOTUNE_REP_MS", "")
    default_rep = 100.0
    if text:
        try:
            default_rep = float(text)
        except ValueError:
            default_rep = math.nan
        if not (math.isfinite(default_rep) and default_rep > 0):
            raise ValueError(f"BLOCKC_AUTOTUNE_REP_MS is {text!r}; expected a positive number "
                             f"of milliseconds")
    return (default_rep / 4 if warmup is None else warmup,
            default_rep if rep is None else rep)


def _compile_threads():
    """BLOCKC_COMPILE_THREADS, else the CPUs this process may run on."""
    text = os.environ.get("BLOCKC_COMPILE_THREADS", "")
    if not text:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            (os.cpu_count() or 1)
    try:
        threads = int(text)
    except ValueError:
        threads = 0
    if not 1 <= threads <= 1024:
        raise ValueError(f"BLOCKC_COMPILE_THREADS is {text!r}; expected a whole number from 1 "
                         "to 1024")
    return threads


def _copy(value):
    return value.clone() if hasattr(value, "clone") else value.copy()


def _restore(target, saved):
    if hasattr(target, "copy_"):
        target.copy_(saved)
    else:
        target[...] = saved


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    """`@triton.autotune(configs=[...], key=[...])`."""
    def decorate(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook,
                         post_hook, prune_configs_by, warmup, rep, do_bench, cache_results)
    return decorate


class Heuristics:
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.arg_names = arg_names
        self.values = values
        self.__name__ = getattr(fn, "__name__", "kernel")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def run(self, *args, **kwargs):
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)

    def warmup(self, *args, **kwargs):
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.warmup(*args, **kwargs)


def heuristics(values):
    """`@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})`."""
    def decorate(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorate
