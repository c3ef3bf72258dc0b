# Test data for blockc's Python frontend: FlagGems' src/flag_gems/ops/eye.py
# (https://github.com/FlagOpen/FlagGems, commit 532ff438c70343d7aec9becdabb76a71225a0553),
# copied whole and unchanged except for the imports named below: `from flag_gems.ops.eye_m
# import eye_kernel` reads `from eye_m import eye_kernel` (that file in this folder);
# `from flag_gems.runtime import device, torch_device_fn` reads `from flag_gems_shim3
# import device, torch_device_fn` (flag_gems_shim3.py in this folder).
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

from eye_m import eye_kernel
from flag_gems_shim3 import device, torch_device_fn

logger = logging.getLogger(__name__)
device_ = device


def eye(size, *, dtype=None, layout=torch.strided, device=None, pin_memory=None):
    """
    Triton-based implementation of torch.eye(n, n), using 2D tiles to split the matrix into blocks.
    """
    logger.debug("GEMS EYE")

    if dtype is None:
        dtype = torch.get_default_dtype()
    if device is None:
        device = torch.device(device_.name)
    if layout != torch.strided:
        raise ValueError("Currently only strided layout is supported for eye.")

    out = torch.empty(
        (size, size), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
    )
    BLOCK_SIZE = 32
    grid = (triton.cdiv(size, BLOCK_SIZE), triton.cdiv(size, BLOCK_SIZE))

    with torch_device_fn.device(device):
        eye_kernel[grid](
            out,
            size,
            size,
            BLOCK_SIZE,
            BLOCK_SIZE,
        )
    return out
