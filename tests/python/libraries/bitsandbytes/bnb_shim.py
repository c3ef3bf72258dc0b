# Stand-ins for what bitsandbytes' Triton files (tests/python/libraries/bitsandbytes/) import
# from outside them or ask of CUDA, so that they run unchanged on CPU tensors under blockc.
# Written for blockc's tests; it is not part of blockc.
#
# - is_triton_available: bitsandbytes/triton/triton_utils.py asks torch.utils._triton, which
#   this torch (1.13) lacks; Triton (blockc's) is available, so it answers True.
# - early_config_prune, estimate_matmul_time: bitsandbytes/triton/matmul_perf_model.py prunes
#   the int8 matmuls' ~200 autotuning configs with a model of an NVIDIA GPU (nvidia-smi clock
#   rates, tensor-core TFLOPS), which a CPU has no answer for. The stand-ins keep the configs
#   whose meta-parameters are in KEEP (one per set of meta-parameters: num_warps and
#   num_stages do not change what runs on a CPU) and rank them as listed, so that a test
#   compiles a few configs, not 200, and chooses which ones (split-K or not).
# - cpu_cuda: while a test runs, torch.cuda.device accepts a CPU device, a tensor's is_cuda
#   answers True (the old wrappers assert it), and torch.empty(..., device="cuda") allocates
#   on the CPU (quantize_global does): this torch has no CUDA.
#
# SPDX-License-Identifier: MIT

import contextlib

import torch

# (BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K) tuples that early_config_prune keeps, best first.
KEEP = [(32, 32, 32, 1)]


def is_triton_available():
    return True


def _meta(config):
    k = config.kwargs
    return (k["BLOCK_M"], k["BLOCK_N"], k["BLOCK_K"], k["SPLIT_K"])


def early_config_prune(configs, named_args, **kwargs):
    kept = {}
    for config in configs:
        meta = _meta(config)
        if meta in KEEP and meta not in kept:
            kept[meta] = config
    return [kept[m] for m in KEEP if m in kept]


def estimate_matmul_time(**kwargs):
    meta = (kwargs["BLOCK_M"], kwargs["BLOCK_N"], kwargs["BLOCK_K"], kwargs["SPLIT_K"])
    return KEEP.index(meta)


@contextlib.contextmanager
def keep(*metas):
    """early_config_prune keeps these (BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K) while the block
    runs."""
    saved = list(KEEP)
    KEEP[:] = list(metas)
    try:
        yield
    finally:
        KEEP[:] = saved


class _Device:
    def __init__(self, device):
        self.device = device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _on_cpu(device):
    if device is not None and torch.device(device).type == "cuda":
        return "cpu"
    return device


@contextlib.contextmanager
def cpu_cuda():
    saved_device = torch.cuda.device
    saved_empty = torch.empty
    had_is_cuda = "is_cuda" in torch.Tensor.__dict__
    saved_is_cuda = torch.Tensor.__dict__.get("is_cuda")

    def empty(*args, device=None, **kwargs):
        return saved_empty(*args, device=_on_cpu(device), **kwargs)

    torch.cuda.device = _Device
    torch.empty = empty
    torch.Tensor.is_cuda = property(lambda self: True)
    try:
        yield
    finally:
        torch.cuda.device = saved_device
        torch.empty = saved_empty
        if had_is_cuda:
            torch.Tensor.is_cuda = saved_is_cuda
        else:
            del torch.Tensor.is_cuda
