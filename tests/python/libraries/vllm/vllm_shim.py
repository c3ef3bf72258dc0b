# Test data for blockc's Python frontend, written for blockc (not vLLM's text): the few
# names that triton_decode_attention.py, triton_merge_attn_states.py and
# triton_reshape_and_cache_flash.py in this folder import from vLLM
# (https://github.com/vllm-project/vllm), reduced to what a CPU run needs. The kernels
# and wrappers themselves are vLLM's, unchanged; tests/python/test_vllm_attention.py runs
# them. It is not part of blockc.

import torch
import triton

# vllm.triton_utils.HAS_TRITON: Triton (here blockc's frontend) is importable.
HAS_TRITON = True

# vllm.triton_utils.triton_jit_decorator: with HAS_TRITON, vLLM's
# vllm/triton_utils/decorator.py makes it triton.jit itself.
triton_jit_decorator = triton.jit


class _Platform:
    """vllm.platforms.current_platform, for a CPU: neither CUDA, ROCm nor XPU."""

    def is_cuda(self):
        return False

    def is_rocm(self):
        return False

    def is_xpu(self):
        return False

    def fp8_dtype(self):
        """vLLM's Platform.fp8_dtype off ROCm: torch.float8_e4m3fn (absent before torch 2.1)."""
        return getattr(torch, "float8_e4m3fn", None)


current_platform = _Platform()
