# Stand-ins for what attorch's files (tests/python/libraries/attorch/) take from a newer,
# CUDA-enabled torch than the one here (1.13, CPU only), so that they run unchanged on CPU
# tensors under blockc. Written for blockc's tests; it is not part of blockc.
#
# - custom_fwd, custom_bwd: torch.amp.custom_fwd/custom_bwd (torch >= 2.4, imported by
#   act_layers, batch_norm_layer, dropout_layer, glu_layer, rms_norm_layer and
#   multi_head_attention_kernels). torch's decorators record the autocast state of the
#   forward and replay it in the backward; with autocast off, as on these CPU runs, they
#   leave the function as it is, and so do these.
# - nn: torch.nn with RMSNorm (torch >= 2.4), the base class of rms_norm_layer.RMSNorm: the
#   attributes torch's RMSNorm.__init__ sets (normalized_shape, eps, elementwise_affine,
#   weight, initialised to ones).
# - cpu_cuda: while a test runs (tests/python/test_attorch.py swaps them in), CPU
#   stand-ins for torch.cuda.get_device_capability (utils.allow_tf32, utils.get_n_stages
#   and the attention Function ask for it; the capability is the test's choice),
#   torch.get_autocast_dtype (torch >= 2.4; utils.get_output_dtype asks for it and uses it
#   only when autocast is on, which it is not here), and torch.empty / torch.full taking
#   device='cuda' (batch_norm_layer's placeholder residual and the pooling layers' kernels
#   are made on 'cuda'): that device is read as the CPU.
#
# SPDX-License-Identifier: MIT

import contextlib
import functools
import types

import torch


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    assert device_type == "cuda" and cast_inputs is None, (device_type, cast_inputs)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type)
    return fwd


def custom_bwd(bwd=None, *, device_type):
    assert device_type == "cuda", device_type
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


class _RMSNorm(torch.nn.Module):
    """The state torch.nn.RMSNorm (torch >= 2.4) keeps; attorch's RMSNorm supplies forward."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = torch.nn.Parameter(
                torch.ones(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)


class _NN(types.ModuleType):
    """torch.nn, with RMSNorm added."""

    RMSNorm = _RMSNorm

    def __getattr__(self, name):
        return getattr(torch.nn, name)


nn = _NN("attorch_shim.nn")


def _cpu_device(device):
    if device == "cuda" or (isinstance(device, torch.device) and device.type == "cuda"):
        return "cpu"
    return device


def _on_cpu(factory):
    @functools.wraps(factory)
    def make(*args, **kwargs):
        if "device" in kwargs:
            kwargs["device"] = _cpu_device(kwargs["device"])
        return factory(*args, **kwargs)
    return make


@contextlib.contextmanager
def cpu_cuda(capability=(8, 0)):
    """Within: the CPU stand-ins above in torch (a GPU of compute capability `capability`)."""
    saved = (torch.cuda.get_device_capability, getattr(torch, "get_autocast_dtype", None),
             torch.empty, torch.full)
    torch.cuda.get_device_capability = lambda device=None: tuple(capability)
    torch.get_autocast_dtype = lambda device_type: torch.float16
    torch.empty, torch.full = _on_cpu(saved[2]), _on_cpu(saved[3])
    try:
        yield
    finally:
        torch.cuda.get_device_capability = saved[0]
        if saved[1] is None:
            del torch.get_autocast_dtype
        else:
            torch.get_autocast_dtype = saved[1]
        torch.empty, torch.full = saved[2], saved[3]
