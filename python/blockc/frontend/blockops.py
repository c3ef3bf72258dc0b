"""The Builder's ops that work on whole blocks along an axis (blockops is
split from semantic.py, whose Builder inherits it): reductions and scans with
a combine function, joining and splitting the last dimension, sorting, the
histogram, and batched dots built from rank-2 ones. Each is built from Block
IR's `reduce`, `scan`, `select` and shape ops; none needs an op of its own.
"""

from .dtypes import bfloat16, float32, int32, int64, uint32
from .blockir import HANDLE as _HANDLE, broadcast_shapes
from .values import tensor


class BlockOps:
    def _batched_dot(self, a, b, acc, out_dtype):
        """tl.dot of [B, M, K] and [B, K, N] blocks: B rank-2 dots, each on
        the batch's matrices taken out by one reduction over the batch axis,
        their products put back in place by selects. Block IR's dot (and the
        matrix units behind it) works on one matrix at a time."""
        batch = a.shape[0]
        if b.shape[0] != batch:
            raise ValueError(f"tl.dot: batch sizes differ: {list(a.shape)} @ {list(b.shape)}")
        if acc is not None:
            acc = self.to_tensor(acc)
            if acc.shape != (batch, a.shape[1], b.shape[2]):
                raise ValueError(f"tl.dot: the accumulator has shape {list(acc.shape)}, the "
                                 f"product {[batch, a.shape[1], b.shape[2]]}")

        def take(x, index):
            ids = self.broadcast_to(self.expand_dims(self.expand_dims(
                self.arange(0, batch), 1), 2), x.shape)
            picked, _ = self.combining(
                "reduce", (x, ids), 0,
                lambda l, li, r, ri: (self.where(self.compare("eq", li, index), l, r),
                                      self.where(self.compare("eq", li, index), li, ri)))
            return picked

        result = None
        which = self.expand_dims(self.expand_dims(self.arange(0, batch), 1), 2)
        for index in range(batch):
            product = self.dot(take(a, index), take(b, index),
                               None if acc is None else take(acc, index), out_dtype)
            placed = self.expand_dims(product, 0)
            result = self.broadcast_to(placed, (batch,) + product.shape) if result is None else \
                self.where(self.compare("eq", which, index), placed, result)
        return result

    def combining(self, what, inputs, axis, combine_fn, keep_dims=False, reverse=False):
        """`tl.reduce` (what="reduce") and `tl.associative_scan` ("scan"):
        `combine_fn` is a @triton.jit function, or a Python callable over
        tensors for the builtins built on these, applied to (left values,
        right values), one per input. Returns a tensor, or a tuple when
        `inputs` is one."""
        name = "tl.reduce" if what == "reduce" else "tl.associative_scan"
        single = isinstance(inputs, tensor)
        inputs = [self.to_tensor(t) for t in ((inputs,) if single else tuple(inputs))]
        if not inputs:
            raise ValueError(f"{name} needs at least one input")
        shape = inputs[0].shape
        for t in inputs:
            if not t.shape:
                raise ValueError(f"{name}: the input is a scalar, not a block")
            if t.dtype.is_ptr():
                raise TypeError(f"{name} of pointers ({t.dtype})")
            if t.shape != shape:
                raise ValueError(f"{name}: the inputs have shapes {list(shape)} and "
                                 f"{list(t.shape)}; they must be the same")
        flattened_rank = None
        if axis is None:
            if what != "reduce":
                raise ValueError(f"{name} needs an axis")
            flattened_rank = len(shape)
            inputs = [self.reshape(t, (t.numel,)) if len(shape) > 1 else t for t in inputs]
            rank, axis = 1, 0
        else:
            rank = len(shape)
            if not -rank <= axis < rank:
                raise ValueError(f"{name}: axis {axis} is out of range for a block of rank {rank}")
            axis %= rank
        left = [tensor(self.emitter.fresh("l"), t.dtype) for t in inputs]
        right = [tensor(self.emitter.fresh("r"), t.dtype) for t in inputs]
        self.emitter.push()
        if getattr(combine_fn, "__blockc_jit__", False):
            returned = self.call_jit(combine_fn, left + right)
        else:
            returned = combine_fn(*left, *right)
        returned = list(returned) if isinstance(returned, (tuple, list)) else [returned]
        if len(returned) != len(inputs):
            self.emitter.pop()
            raise ValueError(f"{name}: the combine function returns {len(returned)} values for "
                             f"{len(inputs)} inputs")
        handles = []
        for value, t in zip(returned, inputs):
            value = self.to_tensor(value, None if isinstance(value, tensor) else t.dtype)
            if value.shape:
                self.emitter.pop()
                raise ValueError(f"{name}: the combine function must return scalars, got a "
                                 f"block of shape {list(value.shape)}")
            handles.append(self.cast(value, t.dtype).handle)
        self.emitter.line(f"yield {', '.join(handles)}", self.loc)
        body = _live_lines(self.emitter.pop())
        out_shape = tuple(d for i, d in enumerate(inputs[0].shape) if what != "reduce" or i != axis)
        results = [tensor(self.emitter.fresh("red" if what == "reduce" else "scan"), t.dtype,
                          out_shape) for t in inputs]
        flags = ", reverse" if reverse else ""
        args = ", ".join(v.handle for v in left + right)
        self.emitter.line(f"{', '.join(r.handle for r in results)} = {what} "
                          f"{', '.join(t.handle for t in inputs)}, axis={axis}{flags} "
                          f"combine({args}) {{", self.loc)
        self.emitter.extend(body)
        self.emitter.line("}", self.loc)
        if keep_dims and what == "reduce":
            if flattened_rank is not None:
                results = [self.broadcast_to(r, (1,) * flattened_rank) for r in results]
            else:
                results = [self.expand_dims(r, axis) if r.shape else self.broadcast_to(r, (1,))
                           for r in results]
        return results[0] if single else tuple(results)

    # --- joining and splitting the last dimension ---------------------------

    def join(self, a, b):
        """`tl.join`: a new last dimension of 2, `a` at index 0 and `b` at 1, as
        one select between the two broadcast along it (no copy loop)."""
        a, b = self.to_tensor(a), self.to_tensor(b)
        if a.dtype != b.dtype:
            raise TypeError(f"tl.join: {a.dtype} and {b.dtype} differ")
        shape = broadcast_shapes(a.shape, b.shape)
        if shape is None:
            raise ValueError(f"tl.join: shapes {list(a.shape)} and {list(b.shape)} do not "
                             "broadcast")
        a = self.expand_dims(self.broadcast_to(a, shape), len(shape))
        b = self.expand_dims(self.broadcast_to(b, shape), len(shape))
        first = self.compare("eq", self.arange(0, 2), 0)
        return self.where(first, a, b)

    def split(self, x):
        """`tl.split`: the two halves of a last dimension of 2. The pair axis
        goes first, and one reduction over it keeps the first element of one
        copy and the last of another, so each half is read strip by strip."""
        x = self.to_tensor(x)
        if not x.shape or x.shape[-1] != 2:
            raise ValueError(f"tl.split needs a last dimension of 2, got shape {list(x.shape)}")
        rank = len(x.shape)
        if rank > 1:
            x = self.permute(x, (rank - 1,) + tuple(range(rank - 1)))
        return self.combining("reduce", (x, x), 0, lambda l0, l1, r0, r1: (l0, r1))

    def interleave(self, a, b):
        joined = self.join(a, b)
        shape = joined.shape[:-2] + (joined.shape[-2] * 2,)
        return self.reshape(joined, shape)

    def cat(self, a, b, can_reorder=False):
        """`tl.cat` along the first dimension. Triton allows it only with
        can_reorder=True (it may reorder); blockc keeps the order."""
        if not can_reorder:
            raise ValueError("tl.cat: the current implementation may reorder elements; pass "
                             "can_reorder=True")
        a, b = self.to_tensor(a), self.to_tensor(b)
        if a.shape[1:] != b.shape[1:] or not a.shape:
            raise ValueError(f"tl.cat: shapes {list(a.shape)} and {list(b.shape)} differ past "
                             "the first dimension")
        if a.shape != b.shape:
            raise ValueError(f"tl.cat: blockc concatenates blocks of one shape, got "
                             f"{list(a.shape)} and {list(b.shape)}")
        joined = self.join(a, b)  # S + [2]
        rank = len(a.shape)
        stacked = self.permute(joined, (rank,) + tuple(range(rank)))  # [2] + S
        return self.reshape(stacked, (2 * a.shape[0],) + a.shape[1:])

    def sort(self, x, dim=None, descending=False):
        """`tl.sort` along the last dimension (as Triton: the only one it
        sorts), a power of two long: a bitonic network. Each compare-exchange
        step views the rows as [rows, n / 2d, 2, d], takes the two halves of
        every pair with one reduction over the pair axis, exchanges them where
        they are out of order for their run's direction, and selects them back
        in place: whole blocks, no per-element loop in the kernel."""
        x = self.to_tensor(x)
        if not x.shape:
            raise ValueError("tl.sort: the input is a scalar, not a block")
        rank = len(x.shape)
        dim = rank - 1 if dim is None else (dim + rank if dim < 0 else dim)
        if dim != rank - 1:
            raise ValueError(f"tl.sort sorts along the last dimension only (as Triton), got "
                             f"dim={dim} for a block of rank {rank}")
        n = x.shape[-1]
        if n & (n - 1):
            raise ValueError(f"tl.sort needs a power-of-two length, got {n}")
        if x.dtype.is_ptr():
            raise TypeError(f"tl.sort of pointers ({x.dtype})")
        rows = x.numel // n
        y = self.reshape(x, (rows, n))
        stages = n.bit_length() - 1
        for stage in range(1, stages + 1):
            for step in range(stage - 1, -1, -1):
                y = self._compare_exchange(y, rows, n, stage, step, descending)
        return self.reshape(y, x.shape)

    def bitonic_merge(self, x, dim=None, descending=False):
        """Triton's `bitonic_merge`: the last stage of the sorting network,
        which sorts a bitonic sequence (one ascending then descending, or the
        reverse) along the last dimension."""
        x = self.to_tensor(x)
        rank = len(x.shape)
        if not rank:
            raise ValueError("bitonic_merge: the input is a scalar, not a block")
        dim = rank - 1 if dim is None else (dim + rank if dim < 0 else dim)
        n = x.shape[-1]
        if dim != rank - 1 or n & (n - 1):
            raise ValueError(f"bitonic_merge merges along the last dimension, a power of two "
                             f"long; got dim={dim} for shape {list(x.shape)}")
        rows = x.numel // n
        y = self.reshape(x, (rows, n))
        stages = n.bit_length() - 1
        for step in range(stages - 1, -1, -1):
            y = self._compare_exchange(y, rows, n, stages, step, descending)
        return self.reshape(y, x.shape)

    def _compare_exchange(self, y, rows, n, stage, step, descending):
        d = 1 << step
        groups = n // (2 * d)
        y4 = self.reshape(y, (rows, groups, 2, d))
        lower, upper = self.combining("reduce", (y4, y4), 2, lambda l0, l1, r0, r1: (l0, r1))
        # The run a pair belongs to sorts downward where bit `stage` of its
        # index is set: bit (stage - step - 1) of its group number.
        group = self.expand_dims(self.expand_dims(self.arange(0, groups), 0), 2)
        bit = self.bitwise("and", self.shift("shr", group, stage - step - 1), 1)
        downward = self.compare("ne", bit, 0)
        if descending:
            downward = self.logical_not(downward)
        out_of_order = self.compare("gt", lower, upper)
        in_reverse = self.compare("lt", lower, upper)
        swap = self.where(downward, in_reverse, out_of_order)
        new_lower = self.where(swap, upper, lower)
        new_upper = self.where(swap, lower, upper)
        half = self.compare("eq", self.expand_dims(self.expand_dims(
            self.expand_dims(self.arange(0, 2), 0), 0), 3), 0)
        placed = self.where(half, self.expand_dims(new_lower, 2), self.expand_dims(new_upper, 2))
        return self.reshape(placed, (rows, n))

    def topk(self, x, k, dim=None):
        """`tl.topk`: the k largest elements along the last dimension, largest
        first: a descending sort, then the first k of every row."""
        x = self.to_tensor(x)
        if not isinstance(k, int) or k < 1 or not x.shape or k > x.shape[-1] or k & (k - 1):
            raise ValueError(f"tl.topk needs a power-of-two constexpr k up to the last "
                             f"dimension, got {k!r} for shape {list(x.shape)}")
        n = x.shape[-1]
        ordered = self.sort(x, dim, descending=True)
        rows = x.numel // n
        chunks = self.reshape(ordered, (rows, n // k, k))
        first, = self.combining("reduce", (chunks,), 1, lambda left, right: (left,))
        return self.reshape(first, x.shape[:-1] + (k,))

    def gather(self, src, index, axis):
        """`tl.gather`: out[..., k, ...] = src[..., index[..., k, ...], ...]
        along `axis`; the other dimensions of `index` match `src`'s. Every
        output element compares its index with every position of the axis
        and a reduction keeps the matching value: whole blocks, O(K * S) per
        row, which the small axes of a block make cheap. An index outside
        [0, S) gives the first position's value."""
        src, index = self.to_tensor(src), self.to_tensor(index)
        rank = len(src.shape)
        if not rank or len(index.shape) != rank:
            raise ValueError(f"tl.gather: src and index must be blocks of one rank, got shapes "
                             f"{list(src.shape)} and {list(index.shape)}")
        if not index.dtype.is_int() or index.dtype.is_int1():
            raise TypeError(f"tl.gather: the index must be integers, got {index.dtype}")
        axis = axis + rank if axis < 0 else axis
        if not 0 <= axis < rank:
            raise ValueError(f"tl.gather: axis {axis} is out of range for rank {rank}")
        for d in range(rank):
            if d != axis and src.shape[d] != index.shape[d]:
                raise ValueError(f"tl.gather: dimension {d} of the index ({index.shape[d]}) "
                                 f"differs from src's ({src.shape[d]})")
        size = src.shape[axis]
        # [..., K, S, ...]: output positions along `axis`, source ones after it.
        wide = index.shape[:axis + 1] + (size,) + index.shape[axis + 1:]
        positions = self.arange(0, size)
        for d in range(rank + 1):
            if d != axis + 1:
                positions = self.expand_dims(positions, d)
        index = self.cast(index, int64 if index.dtype.primitive_bitwidth > 32 else int32)
        hits = self.compare("eq", self.expand_dims(index, axis + 1),
                            self.cast(positions, index.dtype))
        hits = self.broadcast_to(hits, wide)
        values = self.broadcast_to(self.expand_dims(src, axis), wide)
        _, picked = self.combining(
            "reduce", (hits, values), axis + 1,
            lambda hit_a, value_a, hit_b, value_b: (self.logical("or", hit_a, hit_b),
                                                     self.where(hit_b, value_b, value_a)))
        return picked

    def histogram(self, x, num_bins, mask=None):
        """`tl.histogram`: int32 counts of the values 0 .. num_bins - 1 (others
        and masked-off elements count nowhere), as one compare of every
        element with every bin and a sum."""
        x = self.to_tensor(x)
        if len(x.shape) != 1 or not x.dtype.is_int():
            raise ValueError(f"tl.histogram needs a 1-D block of integers, got {x.bir_type}")
        if not isinstance(num_bins, int) or num_bins < 1:
            raise ValueError(f"tl.histogram: num_bins must be a positive constexpr, got "
                             f"{num_bins!r}")
        bins = self.arange(0, num_bins)
        values = self.cast(x, int64 if x.dtype.primitive_bitwidth > 32 else int32)
        hits = self.compare("eq", self.expand_dims(values, 1),
                            self.expand_dims(self.cast(bins, values.dtype), 0))
        if mask is not None:
            hits = self.logical("and", hits, self.expand_dims(self.to_i1(mask), 1))
        return self.sum(self.cast(hits, int32), 0)

    def scan_builtin(self, what, x, axis, reverse, dtype=None):
        """tl.cumsum and tl.cumprod: as Triton's standard library, bf16 adds in
        f32, and a cumsum of integers narrower than 32 bits in int32, or uint32 for
        unsigned ones and int1."""
        x = self.to_tensor(x)
        if dtype is not None:
            x = self.cast(x, dtype)
        elif x.dtype == bfloat16:
            x = self.cast(x, float32)
        elif what == "sum" and x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
            x = self.cast(x, uint32 if x.dtype.is_int_unsigned() else int32)
        combine = self.add if what == "sum" else self.mul
        return self.combining("scan", x, axis, combine, reverse=reverse)


def _live_lines(lines):
    """A combine body without the ops nothing it yields reads. Library combine
    functions compute values only for their dtype (FlagGems builds
    `x + tl.zeros((1,), tl.int1)` to ask whether x is a float); Block IR's
    combine bodies hold scalar ops, and such a dead block op would be refused."""
    live, kept = set(), []
    for depth, text, loc in reversed(lines):
        defined, sep, rest = text.partition(" = ")
        names = [n.strip() for n in defined.split(",")] if sep else []
        if names and all(n.startswith("%") for n in names):
            if not any(n in live for n in names):
                continue
            live.update(_HANDLE.findall(rest))
        else:
            live.update(_HANDLE.findall(text))
        kept.append((depth, text, loc))
    return kept[::-1]


