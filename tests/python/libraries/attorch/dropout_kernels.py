# Test data for blockc's Python frontend: attorch's attorch/dropout_kernels.py
# (https://github.com/BobMcDear/attorch, commit 67c2772baf33913ef51c2d1064f746ca17b63749),
# copied whole and unchanged except for the imports named below; every kernel and launch
# wrapper is the library's own text. tests/python/test_attorch.py imports this folder as a
# package (blockc_lib_attorch) and runs the kernels on CPU tensors to prove that unmodified
# library kernels run. It is not part of blockc.
#
# Changed (imports only; attorch_shim.py is in this folder):
# - none: the file is the library's text unchanged
#
# Calls into torch's CUDA-only API (torch.cuda.get_device_capability,
# torch.get_autocast_dtype, device='cuda') are left as they are: test_attorch.py swaps
# CPU stand-ins from attorch_shim.py in while a test runs (torch here has no CUDA).
#
# attorch is licensed under the MIT License (LICENSE in this folder).
# SPDX-License-Identifier: MIT
#
# Copyright (c) 2023 Borna Ahmadzadeh

"""
Kernels for dropout.
"""


import triton
import triton.language as tl

from .utils import element_wise_kernel_configs


@triton.jit
def apply_dropout(input, drop_p, seed, offset):
    """
    Randomly zeroes elements in the input.

    Args:
        input: Input. The input must be loaded and cannot be a pointer.
        drop_p: Probability of dropping an element.
        seed: Seed for generating the dropout mask.
        offset: Offset to generate the mask for.

    Returns:
        Input with elements randomly zeroed out.
    """
    random = tl.rand(seed, offset)
    return tl.where(random < drop_p, 0, input / (1 - drop_p))


@triton.jit
def apply_dropout_grad(output_grad, drop_p, seed, offset):
    """
    Calculates the input gradient of dropout.

    Args:
        output_grad: Output gradients. The output gradients must be
            loaded and cannot be a pointer.
        drop_p: Probability of dropping an element.
        seed: Seed for generating the dropout mask.
        offset: Offset to generate the mask for.

    Returns:
        Gradient of dropout.
    """
    random = tl.rand(seed, offset)
    return tl.where(random < drop_p, 0, output_grad / (1 - drop_p))


@triton.autotune(
    configs=element_wise_kernel_configs(),
    key=['size'],
)
@triton.jit
def dropout_forward_kernel(
    input_pointer, output_pointer, size,
    drop_p, seed,
    BLOCK_SIZE: tl.constexpr,
    ):
    """
    Randomly zeroes elements in the input.

    Args:
        input_pointer: Pointer to the input to perform dropout on.
            The input must be of shape [size].
        output_pointer: Pointer to a container the result is written to.
            The container must be of shape [size].
        size: Number of elements in the input.
        drop_p: Probability of dropping an element.
        seed: Seed for generating the dropout mask.
        BLOCK_SIZE: Block size.
    """
    # This program processes BLOCK_SIZE rows.
    pid = tl.program_id(axis=0)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offset < size

    input = tl.load(input_pointer + offset, mask=mask)
    output = apply_dropout(input, drop_p, seed, offset)
    tl.store(output_pointer + offset, output, mask=mask)


@triton.autotune(
    configs=element_wise_kernel_configs(),
    key=['size'],
)
@triton.jit
def dropout_backward_kernel(
    output_grad_pointer, input_grad_pointer, size,
    drop_p, seed,
    BLOCK_SIZE: tl.constexpr,
    ):
    """
    Calculates the input gradient of dropout.

    Args:
        output_grad_pointer: Pointer to dropout's output gradients.
            The output gradients must be of shape [size].
        input_grad_pointer: Pointer to a container the input's gradients are written to.
            The container must be of shape [size].
        size: Number of elements in the input.
        drop_p: Probability of dropping an element used in dropout.
        seed: Seed for generating the dropout mask.
        BLOCK_SIZE: Block size.
    """
    # This program processes BLOCK_SIZE rows.
    pid = tl.program_id(axis=0)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offset < size

    output_grad = tl.load(output_grad_pointer + offset, mask=mask)
    input_grad = apply_dropout_grad(output_grad, drop_p, seed, offset)
    tl.store(input_grad_pointer + offset, input_grad, mask=mask)
