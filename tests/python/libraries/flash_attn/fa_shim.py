# Stand-ins for what flash-attention's Triton files (tests/python/libraries/flash_attn/) import
# from outside flash_attn/ops/triton/, so that they run unchanged on CPU tensors under blockc.
# Written for blockc's tests except where marked; it is not part of blockc.
#
# - custom_fwd, custom_bwd: flash-attention's flash_attn/utils/torch.py, copied from
#   https://github.com/Dao-AILab/flash-attention commit 0251105a2fb19d2957484b7f023cd8c115286ced
#   (BSD-3-Clause, LICENSE in this folder; Copyright (c) 2022, the respective contributors),
#   unchanged.
# - triton_op: flash_attn/utils/library.py's triton_op registers the function as a torch
#   custom op (torch.library.custom_op, torch 2.4 and later); torch 1.13 has none, so the
#   stand-in returns the function undecorated (what an eager call runs anyway).
# - early_config_prune, estimate_matmul_time: triton.ops.matmul_perf_model (Triton 2.x;
#   Triton 3 dropped triton.ops), which linear.py's autotuner uses to prune its 98 configs.
#   The real ones read the GPU's shared memory and clock rates; on a CPU the stand-in keeps
#   the one config of the smallest tile (BLOCK_M*BLOCK_N*BLOCK_K, then num_stages), so a test
#   compiles one config instead of 98.
# - cpu_cuda: CPU stand-ins for torch.cuda.device, torch.cuda.get_device_properties,
#   torch.cuda.current_device and torch.library.wrap_triton (torch 2.6), which the wrappers
#   call and this torch (no CUDA) cannot answer; tests/python/test_flash_attn.py swaps them in
#   while a test runs (layer_norm.py calls get_device_properties at import, so it is imported
#   inside too).
# - cuda_tensors: Tensor.is_cuda reading True, for flash_attn_triton.py's wrappers, which
#   assert q.is_cuda (and bias.is_cuda) before launching.
#
# SPDX-License-Identifier: BSD-3-Clause

import contextlib
import types
from typing import Callable

import torch


# ---------------------------------------------------------------------------------------
# flash-attention's flash_attn/utils/torch.py (unchanged)
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
# Stand-ins (blockc's)
# ---------------------------------------------------------------------------------------

def triton_op(name, fn=None, *, mutates_args, schema=None, allow_decomposition=True):
    """flash_attn.utils.library.triton_op without the custom-op registration."""
    def dec(fn):
        return fn
    return dec if fn is None else dec(fn)


def _tile_cost(config):
    kw = config.kwargs
    return (kw["BLOCK_M"] * kw["BLOCK_N"] * kw["BLOCK_K"], config.num_stages or 1)


def early_config_prune(configs, named_args, **kwargs):
    """triton.ops.matmul_perf_model.early_config_prune for a CPU: the smallest tile."""
    return [min(configs, key=_tile_cost)]


def estimate_matmul_time(**kwargs):
    """triton.ops.matmul_perf_model.estimate_matmul_time for a CPU: no model (it only
    ranks configs, and early_config_prune leaves one)."""
    return 0.0


# The backward of layer_norm.py sizes its partial-sum buffers and grid by the SM count
# (times 8); a small number keeps several rows per program on a CPU run.
CPU_MULTI_PROCESSOR_COUNT = 2


def _cpu_device(device):
    """torch.cuda.device(index) as the wrappers use it: `with torch.cuda.device(x.device.index)`,
    where a CPU tensor's index is None. Does nothing."""
    assert device is None or (isinstance(device, torch.device) and device.type == "cpu"), device
    return contextlib.nullcontext()


def _cpu_device_properties(device=None):
    return types.SimpleNamespace(multi_processor_count=CPU_MULTI_PROCESSOR_COUNT, warp_size=32,
                                 name="cpu")


def _cpu_current_device():
    return 0


def _wrap_triton(kernel):
    """torch.library.wrap_triton outside torch.compile: the kernel itself."""
    return kernel


@contextlib.contextmanager
def cpu_cuda():
    """Swap the stand-ins into torch.cuda and torch.library for the with block."""
    cuda, library = torch.cuda, torch.library
    saved = (cuda.device, cuda.get_device_properties, cuda.current_device,
             getattr(library, "wrap_triton", None))
    cuda.device, cuda.get_device_properties = _cpu_device, _cpu_device_properties
    cuda.current_device = _cpu_current_device
    library.wrap_triton = _wrap_triton
    try:
        yield
    finally:
        cuda.device, cuda.get_device_properties, cuda.current_device = saved[:3]
        if saved[3] is None:
            del library.wrap_triton
        else:
            library.wrap_triton = saved[3]


@contextlib.contextmanager
def cuda_tensors():
    """Tensor.is_cuda reads True for the with block (CPU tensors stay CPU tensors)."""
    assert "is_cuda" not in torch.Tensor.__dict__
    torch.Tensor.is_cuda = property(lambda self: True)
    try:
        yield
    finally:
        del torch.Tensor.is_cuda
