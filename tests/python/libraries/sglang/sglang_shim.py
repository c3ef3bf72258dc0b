# Test data for blockc's Python frontend, written for blockc (not SGLang's text): the few
# names that the SGLang files in this folder (elementwise.py, int8_kernel.py) import from
# other SGLang modules (https://github.com/sgl-project/sglang), reduced to what a CPU run
# needs. The kernels and launch wrappers themselves are SGLang's, unchanged;
# tests/python/test_sglang.py runs them. It is not part of blockc.
#
# SPDX-License-Identifier: Apache-2.0

import functools

import torch


def is_cuda():
    """sglang.srt.utils.is_cuda: this torch has no CUDA (so int8_kernel.py imports no
    sgl_kernel)."""
    return False


def is_hip():
    """sglang.srt.utils.is_hip: not ROCm."""
    return False


def get_device_name(device_id: int = 0) -> str:
    """sglang.srt.utils.get_device_name: names the device for a tuned-config file name;
    none exists for the CPU, so the wrappers take their default configs."""
    return "CPU"


def is_arch_support_pdl() -> bool:
    """sglang.jit_kernel.utils.is_arch_support_pdl: programmatic dependent launch is a
    Hopper feature; the CPU has none."""
    return False


def register_custom_op(fn=None, **kwargs):
    """sglang.srt.utils.custom_op.register_custom_op: registers a torch custom op for
    torch.compile; here the function itself, undecorated."""
    if fn is not None:
        return fn

    def wrap(f):
        return functools.wraps(f)(f)

    return wrap


def softcap_out(x: torch.Tensor, softcap_const: float, autotune: bool = False):
    """sglang.srt.layers.triton_ops.softcap.softcap_out, which elementwise.py imports (as
    fused_softcap) but no test here calls: tanh(x / c) * c in float32."""
    return torch.tanh(x.float() / softcap_const) * softcap_const
