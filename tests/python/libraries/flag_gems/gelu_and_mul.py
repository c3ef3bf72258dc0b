# Test data for blockc's Python frontend: FlagGems' src/flag_gems/fused/gelu_and_mul.py
# (https://github.com/FlagOpen/FlagGems, commit 532ff438c70343d7aec9becdabb76a71225a0553), copied unchanged except
# for its imports of FlagGems' own package: `from flag_gems... import X` lines read `from flag_gems_shim2 import X` (flag_gems_shim2.py in this folder).
# Every kernel and launch wrapper is the library's own text. tests/python/test_flag_gems_compute.py
# runs the kernels on CPU tensors to prove that unmodified library kernels run. It is not
# part of blockc.
#
# Copyright © 2024 BAAI. All rights reserved.
# Licensed under the Apache License, Version 2.0 (LICENSE in this folder):
# you may not use this file except in compliance with the License.
# Unless required by applicable law or agreed to in writing, software distributed under
# the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF
# ANY KIND, either express or implied. See the License for the specific language
# governing permissions and limitations under the License.

import logging

import torch
import triton
import triton.language as tl

from flag_gems_shim2 import pointwise_dynamic, tl_extra_shim

erf = tl_extra_shim.erf
pow = tl_extra_shim.pow
tanh = tl_extra_shim.tanh
logger = logging.getLogger(__name__)


@pointwise_dynamic(promotion_methods=[(0, 1, "DEFAULT")])
@triton.jit
def gelu_none_and_mul_kernel(x, y):
    x_fp32 = x.to(tl.float32)
    RCP_SQRT_2: tl.constexpr = 0.7071067811
    x_gelu = 0.5 * x_fp32 * (1 + erf(x_fp32 * RCP_SQRT_2))
    return x_gelu * y


@pointwise_dynamic(
    promotion_methods=[(0, 1, 2, "DEFAULT"), (0, 1, 2, "DEFAULT")], num_outputs=2
)
@triton.jit
def gelu_none_and_mul_grad_kernel(x, y, dgrad):
    RCP_SQRT_2: tl.constexpr = 0.7071067811
    COEFF: tl.constexpr = 0.7978845608028654

    x_fp32 = x.to(tl.float32)
    x_gelu = 0.5 * x_fp32 * (1 + erf(x_fp32 * RCP_SQRT_2))

    d_gelu = dgrad * y
    dx = (
        d_gelu
        * 0.5
        * (
            1.0
            + erf(x_fp32 * RCP_SQRT_2)
            + x_fp32 * COEFF * tl.exp(-0.5 * x_fp32 * x_fp32)
        )
    )

    dy = dgrad * x_gelu

    return dx, dy


@pointwise_dynamic(promotion_methods=[(0, 1, "DEFAULT")])
@triton.jit
def gelu_tanh_and_mul_kernel(x, y):
    x_fp32 = x.to(tl.float32)
    x_gelu = (
        0.5
        * x_fp32
        * (
            1
            + tanh(x_fp32 * 0.79788456 * (1 + 0.044715 * pow(x_fp32.to(tl.float32), 2)))
        )
    )
    return x_gelu * y


@pointwise_dynamic(
    promotion_methods=[(0, 1, 2, "DEFAULT"), (0, 1, 2, "DEFAULT")], num_outputs=2
)
@triton.jit
def gelu_tanh_and_mul_grad_kernel(x, y, dgrad):
    x_fp32 = x.to(tl.float32)
    y_fp32 = y.to(tl.float32)

    sqrt_2_over_pi = 0.7978845608028654  # sqrt(2 / pi)
    a_cubed = x_fp32 * x_fp32 * x_fp32
    tanh_arg = sqrt_2_over_pi * (x_fp32 + 0.044715 * a_cubed)
    tanh_result = tanh(tanh_arg)
    geglu_a = 0.5 * x_fp32 * (1 + tanh_result)
    dy = geglu_a * dgrad

    term1 = 0.5 * (1 + tanh_result)
    tanh_sq = tanh_result * tanh_result
    term2 = (
        0.5
        * x_fp32
        * (1 - tanh_sq)
        * (sqrt_2_over_pi * (1 + 3 * 0.044715 * x_fp32 * x_fp32))
    )
    dx = dgrad * y_fp32 * (term1 + term2)

    return dx, dy


class GeluAndMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, approximate="none"):
        logger.debug("GEMS GELU AND MUL FORWARD")
        ctx.save_for_backward(x, y)
        ctx.approximate = approximate
        if approximate == "none":
            return gelu_none_and_mul_kernel(x, y)
        elif approximate == "tanh":
            return gelu_tanh_and_mul_kernel(x, y)
        else:
            raise ValueError(f"Invalid approximate value: {approximate}")

    @staticmethod
    def backward(ctx, dgrad):
        logger.debug("GEMS GELU AND MUL BACKWARD")
        x, y = ctx.saved_tensors
        if ctx.approximate == "none":
            dx, dy = gelu_none_and_mul_grad_kernel(x, y, dgrad)
        else:
            dx, dy = gelu_tanh_and_mul_grad_kernel(x, y, dgrad)
        return dx, dy, None


def gelu_and_mul(x, y, approximate="none"):
    return GeluAndMul.apply(x, y, approximate)
