# Stand-ins that let torchao's Triton files (tests/python/libraries/torchao/) import under the
# torch of blockc's test machine (1.13). Written for blockc's tests; it is not part of blockc.
#
# - torch_library(): int8_mm.py registers its launch wrapper as a torch custom op with
#   torch.library.Library("torchao", "FRAGMENT") and torch.library.impl(lib, name, key), which
#   torch 1.13 does not accept ("FRAGMENT" is newer). While the file is imported, these are
#   stand-ins that define nothing and hand the decorated functions back unchanged, so that
#   test_quantization_libraries.py calls the library's wrapper (scaled_int8_mm_cuda) itself.
#
# SPDX-License-Identifier: BSD-3-Clause

import contextlib

import torch


class _Library:
    def __init__(self, ns, kind, *args, **kwargs):
        self.ns = ns
        self.kind = kind

    def define(self, schema, *args, **kwargs):
        return schema.split("(")[0]


def _impl(lib, name, dispatch_key=""):
    return lambda fn: fn


@contextlib.contextmanager
def torch_library():
    saved = torch.library.Library, torch.library.impl
    torch.library.Library, torch.library.impl = _Library, _impl
    try:
        yield
    finally:
        torch.library.Library, torch.library.impl = saved
