# Test data for blockc's Python frontend: Mamba's mamba_ssm/ops/triton/softplus.py
# (https://github.com/state-spaces/mamba, commit e9594ce1c732d97440f0332fdc43170a2294dbfa),
# copied whole and unchanged except for the imports named below; every kernel and launch
# wrapper is the library's own text. tests/python/test_mamba.py imports this folder as a
# package (blockc_lib_mamba) and runs the kernels on CPU tensors to prove that unmodified
# library kernels run. It is not part of blockc.
#
# Changed: nothing (this header only).
#
# Mamba is licensed under the Apache License 2.0 (LICENSE in this folder).
# SPDX-License-Identifier: Apache-2.0
#
import triton
import triton.language as tl
from packaging import version

TRITON3 = version.parse(triton.__version__) >= version.parse("3.0.0")


if TRITON3:
    @triton.jit
    def softplus(dt):
        return tl.math.log(tl.math.exp(dt) + 1)
else:
    @triton.jit
    def softplus(dt):
        return tl.math.log1p(tl.exp(dt))