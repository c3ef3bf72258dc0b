# Test data for blockc's Python frontend, written for blockc (not flash-linear-attention's
# text): the names that the fla_*.py files in this folder import from fla's helper modules
# (https://github.com/fla-org/flash-linear-attention, commit
# bc3b101dcb713ddc5bd8924b66754eb68b5ccf89: fla/utils/, fla/ops/utils/cache.py,
# fla/ops/utils/constant.py, fla/ops/backends, fla/ops/common/backends,
# fla/modules/backends; the fla_bp_*.py files, of commit
# fd3b8b9171630765c0d9cb31886411c47c562a46, import the same names, from fla/utils.py
# there), reduced to what a CPU run needs. The kernels and wrappers
# themselves are fla's, unchanged; tests/python/test_fla.py runs them. It is not part of
# blockc.

import functools
import inspect
import types

import torch
import triton
import triton.language as tl

# --- fla/utils/_compat.py and _config.py ---------------------------------------------
# The same tests as fla's, on blockc's version string ("3.6.0+blockc").
_TRITON_VERSION = tuple(int(p) for p in triton.__version__.split("+")[0].split(".")[:3])
TRITON_ABOVE_3_4_0 = _TRITON_VERSION >= (3, 4, 0)
TRITON_ABOVE_3_5_1 = _TRITON_VERSION >= (3, 5, 1)
TRITON_ABOVE_3_7_1 = _TRITON_VERSION >= (3, 7, 1)

# FLA_CACHE_RESULTS defaults to on; fla passes it to triton.autotune when that takes
# cache_results (blockc's does, and ignores it).
FLA_CACHE_RESULTS = True
SUPPORTS_AUTOTUNE_CACHE = "cache_results" in inspect.signature(triton.autotune).parameters
autotune_cache_kwargs = {"cache_results": FLA_CACHE_RESULTS} if SUPPORTS_AUTOTUNE_CACHE else {}

# --- fla/utils/_device.py: a CPU --------------------------------------------------------
# Neither AMD, Intel, NVIDIA (Hopper, Blackwell) nor an NPU.
IS_AMD = False
IS_INTEL = False
IS_INTEL_ALCHEMIST = False
IS_NPU = False
IS_NVIDIA = False
IS_NVIDIA_HOPPER = False
IS_NVIDIA_BLACKWELL = False
IS_GATHER_SUPPORTED = hasattr(tl, "gather")
# fla uses TMA tensor descriptors only on NVIDIA sm90+ with FLA_USE_TMA=1.
IS_TMA_SUPPORTED = False


def check_shared_mem(arch="none", tensor_idx=0):
    """fla's check_shared_mem off a GPU: get_all_max_shared_mem finds no device and
    answers [-1], so no architecture's shared memory is reached."""
    return False


def _identity_decorator(fn):
    return fn


# fla wraps torch.amp.custom_fwd/custom_bwd for its GPU device type: autocast does not
# reach these CPU calls, so the decorators change nothing here.
autocast_custom_fwd = _identity_decorator
autocast_custom_bwd = _identity_decorator

# --- fla/utils/_decorators.py -----------------------------------------------------------


def input_guard(fn=None, *, no_guard_contiguous=False):
    """fla's input_guard: tensor arguments made contiguous (except those named in
    no_guard_contiguous, or all when it is True); fla also enters the first tensor's
    device context, which a CPU tensor does not have."""

    def decorator(fn):
        param_names = list(inspect.signature(fn).parameters.keys())
        skip = set(no_guard_contiguous) if isinstance(no_guard_contiguous, (list, tuple, set)) \
            else set()

        def guard(name, value):
            if isinstance(value, torch.Tensor) and not (no_guard_contiguous is True
                                                        or name in skip):
                return value.contiguous()
            return value

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            args = [guard(param_names[i] if i < len(param_names) else f"__arg_{i}", a)
                    for i, a in enumerate(args)]
            kwargs = {k: guard(k, v) for k, v in kwargs.items()}
            return fn(*args, **kwargs)

        return wrapper

    if fn is not None:
        return decorator(fn)
    return decorator


def tensor_cache(fn):
    """fla's tensor_cache memoizes a helper's last results by argument identity, to
    spare recomputing them; without it the helper computes the same value each call."""
    return fn


# --- fla/ops/backends, fla/ops/common/backends, fla/modules/backends --------------------
def dispatch(operation):
    """fla's dispatch picks a registered backend (TileLang, Triton-Ascend, ...) that is
    available for the call, else calls the Triton function itself: none is available on
    a CPU."""
    return _identity_decorator


# --- fla/ops/utils/cache.py -------------------------------------------------------------
def fla_cache_autotune(configs, key=None, prune_configs_by=None, reset_to_zero=None,
                       restore_value=None, pre_hook=None, post_hook=None, warmup=None,
                       rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """fla's fla_cache_autotune is Triton's autotune that may first read a tuned config
    from fla's per-GPU config files; with FLA_CACHE_MODE unset (fla's default,
    'disabled') it is Triton's autotune."""
    return triton.autotune(configs, key if key is not None else [],
                           prune_configs_by=prune_configs_by, reset_to_zero=reset_to_zero,
                           restore_value=restore_value, pre_hook=pre_hook,
                           post_hook=post_hook, warmup=warmup, rep=rep,
                           use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                           cache_results=cache_results)


# --- fla/ops/utils/constant.py ----------------------------------------------------------
# Approximate value of 1/ln(2), used for log/exp base conversion
RCP_LN2 = 1.4426950216


# --- torch 2's torch.compiler.disable, for torch 1.13 -----------------------------------
def _compiler_disable(fn=None, recursive=True):
    """torch.compiler.disable: keeps torch.compile from tracing fn; outside
    torch.compile it is fn itself."""
    if fn is None:
        return _identity_decorator
    return fn


# `torch`, with `torch.compiler` where this torch lacks it (module attributes are
# torch's own, through the module __getattr__ of PEP 562).
torch_compat = types.ModuleType("torch_compat")
torch_compat.__getattr__ = lambda name: getattr(torch, name)
if not hasattr(torch, "compiler"):
    torch_compat.compiler = types.SimpleNamespace(disable=_compiler_disable)
