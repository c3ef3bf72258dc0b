# Test data for blockc's Python frontend: FlagGems' src/flag_gems/ops/elu.py
# (https://github.com/FlagOpen/FlagGems, commit 532ff438c70343d7aec9becdabb76a71225a0553),
# copied whole and unchanged except for the imports named below: `from flag_gems.utils
# import pointwise_dynamic` reads `from flag_gems_shim3 import pointwise_dynamic`
# (flag_gems_shim3.py in this folder).
# Every kernel and launch wrapper is the library's own text.
# tests/python/test_flag_gems_more.py runs the kernels on CPU tensors to prove that
# unmodified library kernels run. It is not part of blockc.
#
# Copyright © 2024 BAAI. All rights reserved.
# Licensed under the Apache License, Version 2.0 (LICENSE in this folder):
# you may not use this file except in compliance with the License.
# Unless required by applicable law or agreed to in writing, software distributed under
# the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF
# ANY KIND, either express or implied. See the License for the specific language
# governing permissions and limitations under the License.
# SPDX-License-Identifier: Apache-2.0

import logging

import triton
import triton.language as tl

from flag_gems_shim3 import pointwise_dynamic

logger = logging.getLogger(__name__)


@pointwise_dynamic(
    is_tensor=[True, False, False, False], promotion_methods=[(0, "DEFAULT")]
)
@triton.jit
def elu_forward_kernel(x, alpha, scale, input_scale):
    return tl.where(
        x > 0,
        scale * input_scale * x,
        scale * alpha * (tl.exp(x.to(tl.float32) * input_scale) - 1),
    )


@pointwise_dynamic(
    is_tensor=[True, False, False, False, True], promotion_methods=[(0, 4, "DEFAULT")]
)
@triton.jit
def elu_backward_kernel_with_self(grad_output, alpha, scale, input_scale, x):
    x_fp32 = x.to(tl.float32)
    grad_input = tl.where(
        x > 0,
        grad_output * scale * input_scale,
        grad_output * (scale * alpha * tl.exp(x_fp32 * input_scale) * input_scale),
    )
    return grad_input


@pointwise_dynamic(
    is_tensor=[True, False, False, False, True], promotion_methods=[(0, 4, "DEFAULT")]
)
@triton.jit
def elu_backward_kernel_with_result(grad_output, alpha, scale, input_scale, y):
    grad_input = tl.where(
        y > 0,
        grad_output * scale * input_scale,
        grad_output * ((y + scale * alpha) * input_scale),
    )
    return grad_input


def elu(A, alpha=1.0, scale=1.0, input_scale=1.0):
    logger.debug("GEMS ELU")
    return elu_forward_kernel(A, alpha, scale, input_scale)


def elu_(A, alpha=1.0, scale=1.0, input_scale=1.0):
    logger.debug("GEMS ELU_")
    return elu_forward_kernel(A, alpha, scale, input_scale, out0=A)


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    logger.debug("GEMS ELU BACKWARD")
    if is_result:
        return elu_backward_kernel_with_result(
            grad_output, alpha, scale, input_scale, self_or_result
        )
    else:
        return elu_backward_kernel_with_self(
            grad_output, alpha, scale, input_scale, self_or_result
        )
