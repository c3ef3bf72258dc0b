# Test data for blockc's Python frontend, written for blockc (not LightLLM's text): the one
# name that context_flashattention_nopad.py in this folder imports from LightLLM
# (https://github.com/ModelTC/lightllm), reduced to what a CPU run needs. The kernels and
# wrappers themselves are LightLLM's, unchanged; tests/python/test_lightllm.py runs them.
# It is not part of blockc.
#
# SPDX-License-Identifier: Apache-2.0


def is_tesla():
    """lightllm.utils.device_utils.is_tesla: whether the GPU is a Tesla-class card (the
    wrappers then use smaller blocks); the CPU is not."""
    return False
