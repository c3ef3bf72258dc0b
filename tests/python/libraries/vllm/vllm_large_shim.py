# Test data for blockc's Python frontend, written for blockc (not vLLM's text): the few
# names that fused_moe.py and triton_unified_attention.py in this folder import from
# vLLM (https://github.com/vllm-project/vllm), reduced to what a CPU run needs. The
# kernels and wrappers themselves are vLLM's, unchanged; tests/python/test_vllm_large.py
# runs them. It is not part of blockc.

import logging


def init_logger(name):
    """vllm.logger.init_logger: a plain logger."""
    return logging.getLogger(name)


class _Platform:
    """vllm.platforms.current_platform, for a CPU: neither CUDA nor ROCm."""

    def is_cuda(self):
        return False

    def is_rocm(self):
        return False


current_platform = _Platform()


def vllm_is_batch_invariant():
    """vllm.model_executor.layers.batch_invariant.vllm_is_batch_invariant: batch
    invariance (VLLM_BATCH_INVARIANT) off, as by default."""
    return False


class _CustomOps:
    """vllm._custom_ops: vLLM's compiled CUDA ops, absent here. invoke_fused_moe_kernel
    calls ops.moe_wna16_gemm only when should_moe_wna16_use_cuda() holds, which needs
    current_platform.is_cuda()."""

    def __getattr__(self, name):
        raise NotImplementedError(f"vllm._custom_ops.{name} is a CUDA op, not available on the CPU")


ops = _CustomOps()
