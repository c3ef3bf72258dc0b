# Stand-ins for what Mamba's Triton files (tests/python/libraries/mamba/) import from outside
# mamba_ssm/ops/triton/, so that they run unchanged on CPU tensors under blockc. Written for
# blockc's tests except where marked; it is not part of blockc.
#
# - rearrange, repeat: a small subset of einops (not installed here), enough for the
#   patterns the files use: named axes, parenthesized groups, "1" and "...".
# - custom_fwd, custom_bwd: Mamba's mamba_ssm/utils/torch.py, and alloc_tile_workspace,
#   finalize_tile_workspace, use_deterministic_mode, set_deterministic_mode and
#   autotune_configs: Mamba's mamba_ssm/utils/determinism.py, both copied from
#   https://github.com/state-spaces/mamba commit e9594ce1c732d97440f0332fdc43170a2294dbfa
#   (Apache-2.0, LICENSE in this folder; Copyright (c) 2024, Tri Dao, Albert Gu), unchanged.
# - cpu_cuda: CPU stand-ins for torch.cuda.device and torch.cuda.get_device_properties,
#   which the wrappers call and this torch (no CUDA) cannot answer; tests/python/test_mamba.py
#   swaps them into torch.cuda while a test runs.
#
# SPDX-License-Identifier: Apache-2.0

import contextlib
import os
import re
import types
import warnings
from functools import partial
from typing import Callable

import torch
from packaging import version


# ---------------------------------------------------------------------------------------
# einops subset (blockc's)
# ---------------------------------------------------------------------------------------

def _parse(side):
    """A pattern side as a list of items: "..." or a list of axis names (one for a plain
    axis, several for a parenthesized group, "1" for a unit axis, [] for "()")."""
    items, group = [], None
    for tok in re.findall(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+", side):
        if tok == "(":
            assert group is None, side
            group = []
        elif tok == ")":
            items.append(group)
            group = None
        elif group is not None:
            group.append(tok)
        else:
            items.append("..." if tok == "..." else [tok])
    assert group is None, side
    return items


def _expand_ellipsis(items, n_ell):
    out = []
    for it in items:
        if it == "...":
            out.extend([[f"...{i}"] for i in range(n_ell)])
        else:
            out.append(it)
    return out


def _einops(tensor, pattern, sizes, allow_new):
    left, right = (s.strip() for s in pattern.split("->"))
    litems, ritems = _parse(left), _parse(right)
    n_ell = tensor.dim() - (len(litems) - 1) if "..." in litems else 0
    litems, ritems = _expand_ellipsis(litems, n_ell), _expand_ellipsis(ritems, n_ell)
    assert len(litems) == tensor.dim(), (pattern, tuple(tensor.shape))
    known = dict(sizes)
    for it, dim in zip(litems, tensor.shape):
        names = [n for n in it if n != "1"]
        unknown = [n for n in names if n not in known]
        prod = 1
        for n in names:
            if n in known:
                prod *= known[n]
        assert len(unknown) <= 1, (pattern, it)
        if unknown:
            assert dim % prod == 0, (pattern, it, dim)
            known[unknown[0]] = dim // prod
        else:
            assert prod == dim, (pattern, it, dim, prod)
    lnames = [n for it in litems for n in it if n != "1"]
    rnames = [n for it in ritems for n in it if n != "1"]
    assert len(set(lnames)) == len(lnames) and len(set(rnames)) == len(rnames), pattern
    new = [n for n in rnames if n not in lnames]
    assert not [n for n in lnames if n not in rnames], pattern
    assert allow_new or not new, pattern
    x = tensor.reshape([known[n] for n in lnames])
    x = x.permute([lnames.index(n) for n in rnames if n in lnames])
    if new:
        present = [n for n in rnames if n in lnames]
        view = []
        it_present = iter(range(len(present)))
        for n in rnames:
            view.append(x.shape[next(it_present)] if n in lnames else 1)
        x = x.reshape(view).expand([known[n] for n in rnames])
    shape = []
    for it in ritems:
        prod = 1
        for n in it:
            prod *= 1 if n == "1" else known[n]
        shape.append(prod)
    return x.reshape(shape)


def rearrange(tensor, pattern, **sizes):
    return _einops(tensor, pattern, sizes, allow_new=False)


def repeat(tensor, pattern, **sizes):
    return _einops(tensor, pattern, sizes, allow_new=True)


# ---------------------------------------------------------------------------------------
# Mamba's mamba_ssm/utils/torch.py (unchanged)
# ---------------------------------------------------------------------------------------

def custom_amp_decorator(dec: Callable, cuda_amp_deprecated: bool):
    def decorator(*args, **kwargs):
        if cuda_amp_deprecated:
            kwargs["device_type"] = "cuda"
        return dec(*args, **kwargs)
    return decorator


if hasattr(torch.amp, "custom_fwd"): # type: ignore[attr-defined]
    deprecated = True
    from torch.amp import custom_fwd, custom_bwd # type: ignore[attr-defined]
else:
    deprecated = False
    from torch.cuda.amp import custom_fwd, custom_bwd

custom_fwd = custom_amp_decorator(custom_fwd, deprecated)
custom_bwd = custom_amp_decorator(custom_bwd, deprecated)


# ---------------------------------------------------------------------------------------
# Mamba's mamba_ssm/utils/determinism.py (unchanged)
# ---------------------------------------------------------------------------------------

try:
    import triton
    TRITON_VERSION = version.parse(triton.__version__)
except ImportError:
    TRITON_VERSION = version.parse("0.0.0")

TRITON_HAS_CACHE_RESULTS = TRITON_VERSION >= version.parse("3.4.0")
_autotune_warning_issued = False

_deterministic_override = None


def use_deterministic_mode():
    if _deterministic_override is not None:
        return _deterministic_override
    env = os.environ.get('MAMBA_DETERMINISTIC')
    if env:
        return env[0] == '1'
    return torch.are_deterministic_algorithms_enabled()


def set_deterministic_mode(value):
    global _deterministic_override
    _deterministic_override = value


def _estimate_config_cost(cfg):
    """Estimate shared memory cost of a config. Lower is cheaper."""
    block_product = 1
    for key, val in cfg.kwargs.items():
        if key.startswith('BLOCK_SIZE_'):
            block_product *= val
    return block_product * (getattr(cfg, 'num_stages', 1) or 1)


def _filter_configs_by_block_sizes(configs):
    """Filter configs by TRITON_AUTOTUNE_BLOCK_SIZE_* env vars."""
    env_filters = {}
    for suffix in ('M', 'N', 'K', 'DSTATE'):
        env_val = os.environ.get(f"TRITON_AUTOTUNE_BLOCK_SIZE_{suffix}")
        if env_val is not None:
            env_filters[f'BLOCK_SIZE_{suffix}'] = int(env_val)
    if not env_filters:
        return None
    matching = configs
    for key, target in env_filters.items():
        matching = [c for c in matching if c.kwargs.get(key) == target]
    return matching[:1] if matching else None


def autotune_configs(configs):
    """Select autotune configs for deterministic mode.
    
    Uses cached autotuning (TRITON_CACHE_AUTOTUNING=1) if Triton >= 3.4.0,
    otherwise auto-selects the cheapest config by block size * stages.
    """
    if not configs or not use_deterministic_mode():
        return configs
    if TRITON_HAS_CACHE_RESULTS and os.environ.get("TRITON_CACHE_AUTOTUNING") == "1":
        return configs
    global _autotune_warning_issued
    if not _autotune_warning_issued:
        _autotune_warning_issued = True
        msg = "Deterministic mode: set TRITON_CACHE_AUTOTUNING=1 for cached autotuning." if TRITON_HAS_CACHE_RESULTS else "Deterministic mode: upgrade to Triton >= 3.4.0 for cached autotuning."
        warnings.warn(msg)
    filtered = _filter_configs_by_block_sizes(configs)
    if filtered:
        return filtered
    return [min(configs, key=_estimate_config_cost)]


def alloc_tile_workspace(base_shape, tile_dim, dtype, device, deterministic, *, zero_init=True):
    """Allocate buffer for deterministic per-program reductions."""
    if base_shape is None:
        return None, 0
    if deterministic:
        factory = torch.zeros if zero_init else torch.empty
        tensor = factory(*base_shape, tile_dim, device=device, dtype=dtype)
        return tensor, tensor.stride(-1)
    return torch.empty(*base_shape, device=device, dtype=dtype), 0


def finalize_tile_workspace(tensor, deterministic):
    if tensor is None:
        return None
    if deterministic:
        tensor = tensor.sum(dim=-1)
    return tensor


# ---------------------------------------------------------------------------------------
# CPU stand-ins for torch.cuda (blockc's)
# ---------------------------------------------------------------------------------------

# The wrappers size their partial-sum buffers and grids by the SM count; a small number
# keeps several rows per program (the backward kernels' row loop) on a CPU run.
CPU_MULTI_PROCESSOR_COUNT = 4


def _cpu_device(device):
    """torch.cuda.device(index) as the wrappers use it: `with torch.cuda.device(x.device.index)`,
    where a CPU tensor's index is None. Does nothing."""
    assert device is None or (isinstance(device, torch.device) and device.type == "cpu"), device
    return contextlib.nullcontext()


def _cpu_device_properties(device=None):
    return types.SimpleNamespace(multi_processor_count=CPU_MULTI_PROCESSOR_COUNT, name="cpu")


@contextlib.contextmanager
def cpu_cuda():
    """Swap the stand-ins into torch.cuda for the duration of the with block."""
    saved = torch.cuda.device, torch.cuda.get_device_properties
    torch.cuda.device, torch.cuda.get_device_properties = _cpu_device, _cpu_device_properties
    try:
        yield
    finally:
        torch.cuda.device, torch.cuda.get_device_properties = saved
