# Test data for blockc's Python frontend, written for blockc (not vLLM's text): the few
# names that triton_prefill_attention.py and gumbel.py in this folder import from vLLM
# (https://github.com/vllm-project/vllm), reduced to what a CPU run needs. The kernels and
# wrappers themselves are vLLM's, unchanged; tests/python/test_vllm_extra.py runs them. It
# is not part of blockc.
#
# SPDX-License-Identifier: Apache-2.0

import triton
import triton.language as tl
import triton.language.extra.libdevice as tldevice

# vllm.triton_utils: with Triton present (here blockc's frontend), HAS_TRITON is True and
# triton, tl and tldevice are triton, triton.language and triton.language.extra.libdevice
# (vllm/triton_utils/__init__.py).
HAS_TRITON = True

__all__ = ["HAS_TRITON", "triton", "tl", "tldevice", "current_platform"]


class _Platform:
    """vllm.platforms.current_platform, for a CPU: neither CUDA nor ROCm."""

    def is_cuda(self):
        return False

    def is_rocm(self):
        return False

    def is_cuda_alike(self):
        return False

    def get_device_capability(self):
        return None


current_platform = _Platform()
