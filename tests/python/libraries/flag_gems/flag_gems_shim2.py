# The parts of FlagGems' own package that the compute kernel files in this folder (mm,
# mm_streamk, bmm, addmm, mv, attention, flash_api, flash_kernel, softmax, log_softmax,
# layernorm, rms_norm, weightnorm, weight_norm, cross_entropy_loss, rotary_embedding,
# skip_layernorm, fused_add_rms_norm, conv2d, groupnorm, gelu_and_mul, silu_and_mul) and
# the FlagGems utilities copied beside them for pointwise_dynamic (pointwise_dynamic,
# code_cache, code_utils, codegen_config_utils, shape_utils, tensor_wrapper, type_utils)
# import, beyond what flag_gems_shim.py gives.
# Everything of flag_gems_shim.py is re-exported unchanged (that module is not modified:
# the kernel files of test_libraries.py use it); this module adds to it.
# Copied unchanged from FlagGems (https://github.com/FlagOpen/FlagGems, commit
# 532ff438c70343d7aec9becdabb76a71225a0553): broadcastable_to (and its Shape alias) of
# src/flag_gems/utils/shape_utils.py, use_c_extension's default of
# src/flag_gems/config.py, and softmax_heur_tile_k of
# src/flag_gems/runtime/backend/_nvidia/heuristics_config_utils.py (with the SM count
# asked of the stand-in device below, not of torch.cuda). The rest, marked "blockc's
# stand-in", replaces FlagGems' runtime (its YAML config loader, the device module, the
# package's device and vendor names, the package layout that pointwise_dynamic's generated
# code imports) with what a CPU needs. vendors is copied unchanged from
# src/flag_gems/runtime/commom_utils.py. It is not part of blockc.
#
# Copyright © 2024 BAAI. All rights reserved.
# Licensed under the Apache License, Version 2.0 (LICENSE in this folder):
# you may not use this file except in compliance with the License.
# Unless required by applicable law or agreed to in writing, software distributed under
# the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF
# ANY KIND, either express or implied. See the License for the specific language
# governing permissions and limitations under the License.

import contextlib
import types

import triton

from flag_gems_shim import *  # noqa: F401,F403 - everything flag_gems_shim gives
from flag_gems_shim import (  # noqa: F401
    HEURISTICS_CONFIGS, _get_tuned_config, bracket_next_power_of_2, broadcastable,
    dim_compress, get_dtype_max, get_dtype_min, libentry, libtuner,
    philox_backend_seed_offset, triton_lang_extension, uniform, volume)

# --- src/flag_gems/utils/shape_utils.py ------------------------------------------------
from typing import Tuple

Shape = Tuple[int]


def broadcastable_to(s1: Shape, s2: Shape) -> bool:
    r1 = len(s1)
    if r1 == 0:
        return True
    r2 = len(s2)
    if r2 == 0:  # r1 > 0
        return False

    if r1 > r2:
        return False

    d = r2 - r1
    for i in range(r1):
        if s1[i] == 1 or s1[i] == s2[d + i]:
            continue
        return False
    return True


# --- src/flag_gems/config.py (no C extension: its default) -------------------------------
use_c_extension = False


# --- src/flag_gems/utils/triton_lang_helper.py --------------------------------------------
# FlagGems selects triton.language.extra.<vendor>.libdevice; NVIDIA's is `cuda`.
from triton.language.extra.cuda import libdevice as tl_extra_shim  # noqa: E402


# --- src/flag_gems/runtime/commom_utils.py ------------------------------------------------
from enum import Enum  # noqa: E402


class vendors(Enum):
    NVIDIA = 0
    CAMBRICON = 1
    METAX = 2
    ILUVATAR = 3
    MTHREADS = 4
    KUNLUNXIN = 5
    HYGON = 6
    AMD = 7
    AIPU = 8
    ASCEND = 9

    @classmethod
    def get_all_vendors(cls) -> dict:
        vendorDict = {}
        for member in cls:
            vendorDict[member.name.lower()] = member
        return vendorDict


# --- blockc's stand-ins --------------------------------------------------------------------
class _Device(str):
    """blockc's stand-in for both of FlagGems' devices: the package's `flag_gems.device`,
    the device type name that flash_api.py checks inputs against (`import flag_gems`
    there reads `import flag_gems_shim2 as flag_gems`), here "cpu"; and the runtime's
    DeviceDetector (`from flag_gems.runtime import device`, as codegen_config_utils.py
    imports it), with its name and its vendor, NVIDIA, whose configs and code paths the
    rest of this module follows."""


device = _Device("cpu")
device.name = "cpu"
device.vendor_name = "nvidia"
device.vendor = vendors.NVIDIA
vendor_name = "nvidia"
# The vendor's backend module (runtime/backend/_nvidia): its vendor_info.
vendor_module = types.SimpleNamespace(
    vendor_info=types.SimpleNamespace(vendor_name="nvidia", device_name="cpu"))


def _flag_gems_package():
    """blockc's stand-in for FlagGems' package layout, as pointwise_dynamic's generated
    code imports it (`from flag_gems.utils.shape_utils import ...`, `from flag_gems.utils
    import triton_lang_extension as tle`, `from flag_gems.runtime import
    torch_device_fn`): those names, registered in sys.modules, are this folder's
    modules and this module's stand-ins."""
    import sys

    import shape_utils
    import tensor_wrapper

    package = types.ModuleType("flag_gems")
    utils = types.ModuleType("flag_gems.utils")
    utils.shape_utils = shape_utils
    utils.tensor_wrapper = tensor_wrapper
    utils.libentry = types.ModuleType("flag_gems.utils.libentry")
    utils.libentry.libentry = libentry
    utils.libentry.libtuner = libtuner
    utils.triton_lang_extension = triton_lang_extension
    runtime_module = types.ModuleType("flag_gems.runtime")
    runtime_module.torch_device_fn = torch_device_fn
    runtime_module.device = device
    package.utils, package.runtime = utils, runtime_module
    package.device, package.vendor_name = device, vendor_name
    for name, module in (("flag_gems", package), ("flag_gems.utils", utils),
                         ("flag_gems.utils.shape_utils", shape_utils),
                         ("flag_gems.utils.tensor_wrapper", tensor_wrapper),
                         ("flag_gems.utils.libentry", utils.libentry),
                         ("flag_gems.runtime", runtime_module)):
        sys.modules.setdefault(name, module)


def __getattr__(name):
    """FlagGems' utils package re-exports pointwise_dynamic (src/flag_gems/utils/
    __init__.py); here pointwise_dynamic.py of this folder, imported when first asked
    for (`from flag_gems_shim2 import pointwise_dynamic`), with the package names its
    generated code imports."""
    if name == "pointwise_dynamic":
        import pointwise_dynamic as module
        _flag_gems_package()
        return module.pointwise_dynamic
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _config(meta, num_warps=4, num_stages=2):
    return triton.Config(meta, num_warps=num_warps, num_stages=num_stages)


# A few of the configs that src/flag_gems/runtime/backend/_nvidia/tune_configs.yaml lists
# for each op (every config is compiled when a kernel is first tuned; a CPU test keeps
# two or three of them, of differing sizes, so that tuning still chooses).
TUNED_CONFIGS = {
    "mm": [_config({"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 64}, 2, 5),
           _config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, 4, 5)],
    "bmm": [_config({"TILE_M": 32, "TILE_N": 32, "TILE_K": 32, "GROUP_M": 1}, 4, 2),
            _config({"TILE_M": 64, "TILE_N": 32, "TILE_K": 32, "GROUP_M": 2}, 4, 2)],
    "addmm": [_config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32}, 2, 5),
              _config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, 2, 5)],
    "mv": [_config({"BLOCK_M": 32, "BLOCK_N": 4}, 4, 3),
           _config({"BLOCK_M": 64, "BLOCK_N": 1}, 4, 3)],
    "attention": [_config({"BLOCK_M": 128, "BLOCK_N": 32, "PRE_LOAD_V": True}, 4, 2),
                  _config({"BLOCK_M": 128, "BLOCK_N": 32, "PRE_LOAD_V": False}, 4, 2),
                  _config({"BLOCK_M": 32, "BLOCK_N": 32, "PRE_LOAD_V": True}, 4, 2)],
    "softmax_non_inner": [_config({"TILE_K": 32}), _config({"TILE_K": 256})],
    "softmax_inner": [_config({"TILE_N": 32}), _config({"TILE_N": 256})],
    "log_softmax": [_config({"BLOCK_M": 8, "BLOCK_N": 256}, 8),
                    _config({"BLOCK_M": 16, "BLOCK_N": 512}, 8)],
    "layer_norm_persistent": [_config({}, 4), _config({}, 8)],
    "layer_norm_loop": [_config({"TILE_N": 1024}, 4), _config({"TILE_N": 2048}, 4)],
    "layer_norm_backward": [_config({"BLOCK_ROW_SIZE": 1, "BLOCK_COL_SIZE": 2048}, 4),
                            _config({"BLOCK_ROW_SIZE": 4, "BLOCK_COL_SIZE": 2048}, 4)],
    "weight_bias_backward": [_config({"BLOCK_ROW_SIZE": 128, "BLOCK_COL_SIZE": 1}, 4),
                             _config({"BLOCK_ROW_SIZE": 128, "BLOCK_COL_SIZE": 2}, 4)],
    "weight_norm_kernel_last": [_config({"BLOCK_ROW_SIZE": 512, "BLOCK_COL_SIZE": 4}, 4),
                                _config({"BLOCK_ROW_SIZE": 512, "BLOCK_COL_SIZE": 32}, 4)],
    "weight_norm_kernel_first": [_config({"BLOCK_ROW_SIZE": 1, "BLOCK_COL_SIZE": 512}, 4),
                                 _config({"BLOCK_ROW_SIZE": 8, "BLOCK_COL_SIZE": 512}, 4)],
    "weight_norm_kernel": [_config({"BLOCK_ROW_SIZE": 2, "BLOCK_COL_SIZE": 256}, 4),
                           _config({"BLOCK_ROW_SIZE": 8, "BLOCK_COL_SIZE": 256}, 4)],
    "cross_entropy_loss": [_config({"BLOCK_C": 256, "BLOCK_D": 1}, 4),
                           _config({"BLOCK_C": 256, "BLOCK_D": 4}, 4)],
    "conv2d_forward": [_config({"BLOCK_NI_HO_WO": 32, "BLOCK_CO": 32, "BLOCK_CI": 32}, 4, 2),
                       _config({"BLOCK_NI_HO_WO": 64, "BLOCK_CO": 32, "BLOCK_CI": 32}, 4, 2)],
    "conv2d_backward_weight": [
        _config({"BLOCK_CI_HK_WK": 32, "BLOCK_CO": 32, "BLOCK_NO": 32}, 4, 3),
        _config({"BLOCK_CI_HK_WK": 64, "BLOCK_CO": 32, "BLOCK_NO": 32}, 4, 3)],
}


def _get_tuned_config2(name):
    """blockc's stand-in for FlagGems' YAML config loader: TUNED_CONFIGS above, else
    flag_gems_shim's."""
    if name in TUNED_CONFIGS:
        return list(TUNED_CONFIGS[name])
    return _get_tuned_config(name)


# --- src/flag_gems/runtime/backend/_nvidia/heuristics_config_utils.py ----------------------
def softmax_heur_tile_k(args):
    MAX_TILE_K = 8192
    NUM_SMS = torch_device_fn.get_device_properties(
        torch_device_fn.current_device()
    ).multi_processor_count
    tile_k = 1
    upper_bound = min(args["K"], MAX_TILE_K)
    while tile_k <= upper_bound:
        num_blocks = args["M"] * triton.cdiv(args["K"], tile_k)
        num_waves = num_blocks / NUM_SMS
        if (num_waves > 1) and (tile_k * 2 <= upper_bound):
            tile_k *= 2
        else:
            break
    return tile_k


def _get_heuristic_config2(name):
    """blockc's stand-in for FlagGems' heuristics loader: flag_gems_shim's
    HEURISTICS_CONFIGS, with softmax_non_inner's TILE_K asking the stand-in device
    (torch.cuda, which the original asks, is absent on a CPU)."""
    config = HEURISTICS_CONFIGS[name]
    if name == "softmax_non_inner":
        config = dict(config, TILE_K=softmax_heur_tile_k)
    return config


def get_device_properties(idx=None):
    """blockc's stand-in: a CPU has no streaming multiprocessors; FlagGems sizes its
    grids by their count, here 4 (flag_gems_shim's), and mm asks the L2 size."""
    return types.SimpleNamespace(multi_processor_count=4, L2_cache_size=40 * 1024 * 1024)


runtime = types.SimpleNamespace(get_heuristic_config=_get_heuristic_config2,
                                get_tuned_config=_get_tuned_config2)
# blockc's stand-in for the device module: capability (9, 0) is not the (8, x) for which
# mm.py picks its stream-K path (mm_streamk.py), whose programs spin on each other's locks.
torch_device_fn = types.SimpleNamespace(device=lambda device: contextlib.nullcontext(),
                                        current_device=lambda: 0,
                                        get_device_capability=lambda *args: (9, 0),
                                        get_device_properties=get_device_properties)
