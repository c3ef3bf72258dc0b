"""`triton.language.standard`: Triton's standard library, built from the
builtins in core.py. Each function is a builtin, so an error in a call points
at the kernel's line; the ones blockc cannot express yet (bitonic_merge) are
errors naming themselves.
"""

import builtins

from ...frontend.values import builtin, tensor
from . import core
from .core import (_c, cdiv, sigmoid, zeros, zeros_like, ravel, max, min, argmax, argmin,  # noqa: F401
                   sum, maximum, minimum, umulhi, cumsum, cumprod, sort, xor_sum, interleave)
from .core import int1, int8, int16, int32, int64


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False, _builder=None):
    # Triton's definition, broadcasting included: without keep_dims the
    # reduced value broadcasts from the right, as x - max(x, dim) does there.
    dim = 0 if _c(dim) is None else _c(dim)
    keep_dims = _c(keep_dims)
    z = _builder.sub(x, _builder.max(x, dim, keep_dims=keep_dims))
    numerator = _builder.math("exp", z, "tl.softmax")
    denominator = _builder.sum(numerator, dim, keep_dims)
    return _builder.truediv(numerator, denominator)


@builtin
def swizzle2d(i, j, size_i, size_j, size_g, _builder=None):
    """Triton's grouped ordering of the indices of a size_i x size_j matrix:
    column-major within each group of size_g rows."""
    b = _builder
    i, j, size_i, size_j, size_g = (_c(v) for v in (i, j, size_i, size_j, size_g))
    if not any(isinstance(v, tensor) for v in (i, j, size_i, size_j, size_g)):
        ij = i * size_j + j
        size_gj = size_g * size_j
        off_i = ij // size_gj * size_g
        size_g = builtins.min(size_i - off_i, size_g)
        return off_i + ij % size_g, ij % size_gj // size_g
    ij = b.add(b.mul(i, size_j), j)
    size_gj = b.mul(size_g, size_j)
    group_id = b.floordiv(ij, size_gj)
    off_i = b.mul(group_id, size_g)
    size_g = b.minimum(b.sub(size_i, off_i), size_g)
    new_i = b.add(off_i, b.mod(ij, size_g))
    new_j = b.floordiv(b.mod(ij, size_gj), size_g)
    return new_i, new_j


@builtin
def flip(x, dim=None, _builder=None):
    """x reversed along its last dimension (Triton flips only that one).
    Block IR has no reverse: each output lane sums the one input lane whose
    index mirrors it, over the values' bits as integers (exact for every
    value, -0.0 and NaNs included). It costs n * n lanes per row."""
    b = _builder
    x = b.to_tensor(x)
    rank = len(x.shape)
    dim = rank - 1 if _c(dim) is None else _c(dim)
    if rank == 0:
        raise ValueError("tl.flip needs a block, not a scalar")
    if dim % rank != rank - 1:
        raise ValueError("tl.flip flips the last dimension only (as in Triton)")
    if rank > 2:
        raise ValueError(f"tl.flip of a rank-{rank} block: blockc flips blocks of rank 1 and 2 "
                         "(its reversal needs one more dimension, and Block IR has three)")
    n = x.shape[-1]
    if x.dtype.is_floating():
        bits_ty = {16: int16, 32: int32, 64: int64}[x.dtype.primitive_bitwidth]
        bits = b.cast(x, bits_ty, bitcast=True)
    elif x.dtype.is_int1():
        bits = b.cast(x, int8)
    else:
        bits = x
    index = b.arange(0, n)
    mirror = b.compare("eq", b.add(b.expand_dims(index, 1), b.expand_dims(index, 0)), n - 1)
    # [.., out, in]: the input row seen from every output lane.
    lanes = b.where(mirror if rank == 1 else b.expand_dims(mirror, 0),
                    b.expand_dims(bits, rank - 1), 0)
    picked = b.reduce("reduce_sum", lanes, rank, False)
    if x.dtype.is_floating():
        return b.cast(picked, x.dtype, bitcast=True)
    return b.cast(picked, x.dtype) if x.dtype.is_int1() else picked


@builtin
def reduce_or(input, axis, keep_dims=False, _builder=None):
    x = _builder.to_tensor(input)
    if not x.dtype.is_int():
        raise TypeError(f"tl.reduce_or needs integers, got {x.dtype}")
    return _builder.combining("reduce", x, core._axis(axis),
                              lambda a, b: _builder.bitwise("or", a, b), _c(keep_dims))


def _log2(i):
    """log2 of a power-of-two constexpr, as a constexpr (Triton's helper, which
    libraries import for their own bitonic sorts)."""
    value = _c(i)
    if not isinstance(value, int) or value < 1 or value & (value - 1):
        raise ValueError(f"_log2 needs a power-of-two integer, got {value!r}")
    return core.constexpr(value.bit_length() - 1)


@builtin
def topk(x, k, dim=None, _builder=None):
    return _builder.topk(x, _c(k), _c(dim))


@builtin
def bitonic_merge(x, dim=None, descending=0, _builder=None):
    return _builder.bitonic_merge(x, _c(dim), bool(_c(descending)))

core.flip = flip
core.softmax = softmax
core.swizzle2d = swizzle2d
core.reduce_or = reduce_or
for _fn in (softmax, flip):
    setattr(tensor, _fn.__name__, _fn)
setattr(tensor, "reduce_or", reduce_or)

__all__ = ["cdiv", "sigmoid", "softmax", "ravel", "swizzle2d", "zeros", "zeros_like", "max",
           "argmax", "min", "argmin", "sum", "xor_sum", "reduce_or", "cumsum", "cumprod", "sort",
           "topk", "bitonic_merge", "flip", "interleave", "maximum", "minimum", "umulhi"]
