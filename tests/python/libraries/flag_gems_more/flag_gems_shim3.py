# The parts of FlagGems' own package that the op files in this folder import, beyond what
# ../flag_gems/flag_gems_shim2.py (and flag_gems_shim.py under it) give: blockc's stand-ins
# for FlagGems' runtime, not FlagGems' text. The folder ../flag_gems is put on sys.path,
# so that the FlagGems utilities copied there (pointwise_dynamic, shape_utils,
# code_cache, code_utils, tensor_wrapper, type_utils) and the ops copied there (topk,
# all, any, conv2d) serve the files here unchanged; neither folder's files are modified.
# The tuned configs below are a few of those that
# src/flag_gems/runtime/backend/_nvidia/tune_configs.yaml (FlagGems commit
# 532ff438c70343d7aec9becdabb76a71225a0553) lists for each op. It is not part of blockc.
#
# Copyright © 2024 BAAI. All rights reserved.
# Licensed under the Apache License, Version 2.0 (LICENSE in this folder):
# you may not use this file except in compliance with the License.
# Unless required by applicable law or agreed to in writing, software distributed under
# the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF
# ANY KIND, either express or implied. See the License for the specific language
# governing permissions and limitations under the License.
# SPDX-License-Identifier: Apache-2.0

import os
import sys
import types

import triton

_FLAG_GEMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "flag_gems")
if _FLAG_GEMS not in sys.path:
    sys.path.append(_FLAG_GEMS)

import flag_gems_shim2  # noqa: E402
from flag_gems_shim2 import (  # noqa: E402,F401
    broadcastable_to, device, dim_compress, get_dtype_max, get_dtype_min, libentry, libtuner,
    tl_extra_shim,
    torch_device_fn, triton_lang_extension)

pointwise_dynamic = flag_gems_shim2.pointwise_dynamic  # registers the flag_gems package

__all__ = ["broadcastable_to", "device", "dim_compress", "get_dtype_max", "get_dtype_min",
           "libentry", "libtuner", "pointwise_dynamic", "runtime", "tl_extra_shim",
           "torch_device_fn", "triton_lang_extension"]


def _config(meta, num_warps=4, num_stages=2):
    return triton.Config(meta, num_warps=num_warps, num_stages=num_stages)


TUNED_CONFIGS = {
    "upsample_nearest2d": [_config({"BLOCK_SIZE": 1024}, 4), _config({"BLOCK_SIZE": 2048}, 8)],
    "batch_norm": [_config({}, 4), _config({}, 8)],
    "vector_norm": [_config({"BLOCK_M": 1, "BLOCK_N": 1024}),
                    _config({"BLOCK_M": 4, "BLOCK_N": 1024})],
    "triu": [_config({"M_BLOCK_SIZE": 1, "N_BLOCK_SIZE": 2048}, 4)],
    "triu_batch": [_config({"BATCH_BLOCK_SIZE": 1, "MN_BLOCK_SIZE": 512}, 4)],
    "kron": [_config({"BLOCK_M": 1, "BLOCK_N": 1024}, 4),
             _config({"BLOCK_M": 4, "BLOCK_N": 1024}, 4)],
    "index_put": [_config({"BLOCK_SIZE0": 1, "BLOCK_SIZE1": 1024}),
                  _config({"BLOCK_SIZE0": 2, "BLOCK_SIZE1": 1024})],
    "index": [_config({"BLOCK_SIZE0": 1, "BLOCK_SIZE1": 1024}),
              _config({"BLOCK_SIZE0": 2, "BLOCK_SIZE1": 1024})],
    "upsample_bicubic2d_aa": [_config({"BLOCK_X": 64, "BLOCK_Y": 2}, 4),
                              _config({"BLOCK_X": 128, "BLOCK_Y": 1}, 8)],
    "conv3d_forward": [_config({"BLOCK_NI_DO_HO_WO": 512, "BLOCK_CO": 16, "BLOCK_CI": 16}, 4, 2),
                       _config({"BLOCK_NI_DO_HO_WO": 256, "BLOCK_CO": 32, "BLOCK_CI": 16}, 2, 1)],
    "vstack": [_config({"BLOCK_SIZE": 512}, 4), _config({"BLOCK_SIZE": 1024}, 8)],
}


def _get_tuned_config3(name):
    """blockc's stand-in for FlagGems' YAML config loader: TUNED_CONFIGS above, else
    flag_gems_shim2's."""
    if name in TUNED_CONFIGS:
        return list(TUNED_CONFIGS[name])
    return flag_gems_shim2.runtime.get_tuned_config(name)


runtime = types.SimpleNamespace(get_heuristic_config=flag_gems_shim2.runtime.get_heuristic_config,
                                get_tuned_config=_get_tuned_config3, device=device)


def _complete_flag_gems_package():
    """blockc's stand-in for more of FlagGems' package layout, as the code that
    scatter, gather, index, index_add, index_put, tile, repeat and pad generate imports
    it: `from flag_gems.utils import libentry` (FlagGems' utils package re-exports the
    libentry function), `from flag_gems import runtime` (with get_tuned_config),
    `import flag_gems`, `from flag_gems.utils.type_utils import type_promotion`, added to
    the stand-in package that flag_gems_shim2 registered."""
    import type_utils

    package = sys.modules["flag_gems"]
    utils = sys.modules["flag_gems.utils"]
    utils.libentry = libentry
    utils.libtuner = libtuner
    utils.type_utils = type_utils
    sys.modules.setdefault("flag_gems.utils.type_utils", type_utils)
    for name in ("get_tuned_config", "get_heuristic_config"):
        if not hasattr(package.runtime, name):
            setattr(package.runtime, name, getattr(runtime, name))


_complete_flag_gems_package()
