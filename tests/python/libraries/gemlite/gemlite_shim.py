# Stand-ins for what gemlite's Triton files (tests/python/libraries/gemlite/) import from
# outside gemlite/triton_kernels/ or ask of CUDA, so that they run unchanged on CPU tensors under
# blockc. Written for blockc's tests except where marked; it is not part of blockc.
#
# - DType, DTYPE_TO_TORCH, TORCH_TO_DTYPE, TORCH_DTYPE_TO_TRITON, DTYPE_TO_TRITON,
#   PACKING_BITWIDTH_TO_TORCH_DTYPE, the *_DTYPES lists and is_mx_dtype: gemlite's
#   gemlite/dtypes.py (https://github.com/mobiusml/gemlite, commit
#   1a6815d06373ed3a276d6726026a6ce15ea4ed71; Apache-2.0, LICENSE in this folder; written by
#   Dr. Hicham Badri @Mobius Labs GmbH - 2025), with the entries for torch dtypes that this
#   torch (1.13) lacks (float8_*, uint16/uint32) left out of the tables.
# - GEMLITE_TRITON_CONFIG_CACHE: gemlite/core.py's cache of tuned configs, empty (core.py
#   needs CUDA to import).
# - cpu_cuda(): torch.cuda.get_device_properties answers for a CPU while utils.py is imported.
#
# SPDX-License-Identifier: Apache-2.0

import contextlib
import types
from enum import Enum

import torch
import triton.language as tl

GEMLITE_TRITON_CONFIG_CACHE = {}


class DType(Enum):
    FP32 = 0
    FP16 = 1
    BF16 = 2
    FP8 = 3
    FP8e4 = 3  # alias for FP8
    INT8 = 4
    UINT8 = 5
    INT32 = 6
    UINT32 = 7
    FP8e5 = 8
    INT16 = 9
    UINT16 = 10
    INT64 = 11
    FP8e4nuz = 12
    FP8e5nuz = 13
    MXFP16 = 14
    MXBF16 = 15
    MXFP8 = 16
    MXFP4 = 17
    NVFP4 = 18
    E8M0 = 19


DTYPE_TO_TORCH = {
    0: torch.float32,
    1: torch.float16,
    2: torch.bfloat16,
    4: torch.int8,
    5: torch.uint8,
    6: torch.int32,
    9: torch.int16,
    11: torch.int64,
    14: torch.float16,
    15: torch.bfloat16,
    17: torch.uint8,
    18: torch.uint8,
}

TORCH_TO_DTYPE = {
    torch.float32: DType.FP32,
    torch.float16: DType.FP16,
    torch.bfloat16: DType.BF16,
    torch.int8: DType.INT8,
    torch.uint8: DType.UINT8,
    torch.int32: DType.INT32,
    torch.int16: DType.INT16,
    torch.int64: DType.INT64,
}

TORCH_DTYPE_TO_TRITON = {
    torch.float16: tl.float16,
    torch.float32: tl.float32,
    torch.bfloat16: tl.bfloat16,
    torch.int8: tl.int8,
    torch.uint8: tl.uint8,
    torch.int16: tl.int16,
    torch.int32: tl.int32,
    torch.int64: tl.int64,
}

DTYPE_TO_TRITON = {k: TORCH_DTYPE_TO_TRITON[d] for k, d in DTYPE_TO_TORCH.items()}

PACKING_BITWIDTH_TO_TORCH_DTYPE = {
    8: torch.uint8,
    16: torch.int16,
    32: torch.int32,
    64: torch.int64,
}

FP8_DTYPES = [DType.FP8, DType.FP8e4, DType.FP8e5, DType.FP8e4nuz, DType.FP8e5nuz]
FP8_INT8_DTYPES = [DType.INT8] + FP8_DTYPES
MX_DTYPES = [DType.MXFP16, DType.MXBF16, DType.MXFP8, DType.MXFP4, DType.NVFP4]
MX_DTYPES_val = [dtype.value for dtype in MX_DTYPES]


def is_mx_dtype(input_dtype):
    if (type(input_dtype) == int):
        return input_dtype in MX_DTYPES_val
    elif (type(input_dtype) == DType):
        return input_dtype in MX_DTYPES


@contextlib.contextmanager
def cpu_cuda():
    saved = torch.cuda.get_device_properties
    torch.cuda.get_device_properties = lambda device=None: types.SimpleNamespace(
        name="cpu", multi_processor_count=1, total_memory=0)
    try:
        yield
    finally:
        torch.cuda.get_device_properties = saved
