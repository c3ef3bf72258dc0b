# Test data for blockc's Python frontend: FlagGems' src/flag_gems/ops/logspace.py
# (https://github.com/FlagOpen/FlagGems, commit 532ff438c70343d7aec9becdabb76a71225a0553),
# copied whole and unchanged except for the imports named below: `from ..utils import
# libentry` reads `from flag_gems_shim3 import libentry` (flag_gems_shim3.py in this
# folder); `from ..utils import triton_lang_extension as tle` reads `from flag_gems_shim3
# import triton_lang_extension as tle` (flag_gems_shim3.py in this folder).
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
import math

import torch
import triton
import triton.language as tl

from flag_gems_shim3 import libentry
from flag_gems_shim3 import triton_lang_extension as tle

logger = logging.getLogger(__name__)


@libentry()
@triton.jit
def logspace_kernel(
    out_ptr,
    out_stride0,
    start,
    step_size,
    steps,
    log2_base: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tle.program_id(0)
    idx = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = idx < steps

    exponent = start + idx * step_size
    vals = tl.exp2(log2_base * exponent)

    tl.store(out_ptr + idx * out_stride0, vals, mask=mask)


def logspace(
    start,
    end,
    steps,
    base=10.0,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=None,
) -> torch.Tensor:
    logger.debug("GEMS LOGSPACE")
    assert steps >= 0, "number of steps must be non-negative"
    out_dtype = dtype if dtype is not None else torch.get_default_dtype()
    out = torch.empty(
        steps,
        dtype=out_dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )
    if steps == 0:
        pass
    elif steps == 1:
        if isinstance(start, torch.Tensor):
            start = start.item()
        out = torch.fill(out, base**start)
    else:
        if isinstance(start, torch.Tensor):
            start = start.item()
        if isinstance(end, torch.Tensor):
            end = end.item()
        step_size = (float(end) - float(start)) / (steps - 1)
        BLOCK_SIZE = 256  # according to benchmark, 256 is the best block size
        grid = (triton.cdiv(steps, BLOCK_SIZE),)
        logspace_kernel[grid](
            out,
            out.stride(0),
            start,
            step_size,
            steps,
            log2_base=math.log2(float(base)),  # math.log2 require float input
            BLOCK_SIZE=BLOCK_SIZE,
        )

    return out
