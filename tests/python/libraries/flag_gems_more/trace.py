# Test data for blockc's Python frontend: FlagGems' src/flag_gems/ops/trace.py
# (https://github.com/FlagOpen/FlagGems, commit 532ff438c70343d7aec9becdabb76a71225a0553),
# copied whole and unchanged except for the imports named below: `from flag_gems.runtime
# import torch_device_fn` reads `from flag_gems_shim3 import torch_device_fn`
# (flag_gems_shim3.py in this folder); `from flag_gems.utils import libentry` reads `from
# flag_gems_shim3 import libentry` (flag_gems_shim3.py in this folder).
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

import torch
import triton
import triton.language as tl

from flag_gems_shim3 import torch_device_fn
from flag_gems_shim3 import libentry

logger = logging.getLogger(__name__)


@libentry()
@triton.jit
def trace_kernel(
    inp_ptr,
    out_ptr,
    num_diag,
    stride0,
    stride1,
    BLOCK_SIZE: tl.constexpr,
):
    inp_dtype = inp_ptr.type.element_ty
    if inp_dtype.is_int():
        acc_dtype = tl.int64
        other_val = 0
    elif inp_dtype == tl.float64:
        acc_dtype = tl.float64
        other_val = 0.0
    else:
        acc_dtype = tl.float32
        other_val = 0.0

    acc = tl.zeros((BLOCK_SIZE,), dtype=acc_dtype)

    diag_stride = stride0 + stride1

    for i in range(0, tl.cdiv(num_diag, BLOCK_SIZE)):
        block_start = i * BLOCK_SIZE
        current_indices = block_start + tl.arange(0, BLOCK_SIZE)

        mask = current_indices < num_diag

        ptr_offsets = current_indices * diag_stride
        current_ptrs = inp_ptr + ptr_offsets

        vals = tl.load(current_ptrs, mask=mask, other=other_val)

        acc += vals.to(acc_dtype)

    final_sum = tl.sum(acc, axis=0)
    tl.store(out_ptr, final_sum.to(out_ptr.type.element_ty))


def trace(self):
    logger.debug("GEMS TRACE")

    if self.ndim != 2:
        raise RuntimeError(
            f"trace: expected a 2D tensor, but got a {self.ndim}D tensor"
        )

    M, N = self.shape
    stride0, stride1 = self.stride()
    num_diag = min(M, N)
    if num_diag == 0:
        if self.dtype.is_floating_point:
            return torch.tensor(0.0, dtype=self.dtype, device=self.device)
        else:
            return torch.tensor(0, dtype=torch.int64, device=self.device)

    if self.dtype.is_floating_point:
        output_dtype = self.dtype
    else:
        output_dtype = torch.int64
    out = torch.empty((), dtype=output_dtype, device=self.device)

    grid = (1,)
    BLOCK_SIZE = 1024
    if num_diag < BLOCK_SIZE:
        BLOCK_SIZE = triton.next_power_of_2(num_diag)
        if BLOCK_SIZE == 0:
            BLOCK_SIZE = 1

    with torch_device_fn.device(self.device):
        trace_kernel[grid](
            self,
            out,
            num_diag,
            stride0,
            stride1,
            BLOCK_SIZE=BLOCK_SIZE,
        )

    return out
