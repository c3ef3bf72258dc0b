"""Seeded random Triton kernels for differential testing (blockc against compiled Triton).

`generate(seed)` returns a `Case`: the Python source of one `@triton.jit` kernel named
`kernel`, its inputs (numpy arrays, deterministic from the seed), its scalar arguments,
its outputs (shape and dtype) and its launch (grid and constexprs). Nothing here
imports torch or triton: the same module feeds `make_reference.py` (compiled Triton on
a GPU, whose results are the truth) and `tests/python/test_differential.py` (blockc).

What a kernel is
----------------
A 1-D or 2-D program over power-of-two blocks (masked loads with `other=` over an
arbitrary `n`, or rows x cols), loading 1 to 3 inputs of random dtypes (int8, int16,
int32, int64, uint8, bool, float16, bfloat16, float32, float64), taking 0 to 2 scalar
arguments (i32, i64, f32), and building a random expression DAG (depth up to 5) of:
+ - * / // %, & | ^ ~, << >>, comparisons, tl.where, tl.minimum/maximum, casts
(`.to`) and bitcasts, tl.abs, unary -, Python literals (weakly typed), math functions
(exp exp2 log log2 sqrt sin cos floor ceil), tl.fma, reductions (sum max min argmax
argmin, with keep_dims / expand_dims / [:, None]), tl.cumsum, broadcast_to, trans,
permute, reshape, join/split, and tl.dot on square 16x16 or 32x32 blocks. Each of 1 to
3 results is stored through an explicit `.to(out_dtype)` into an output the generator
chose, and a fingerprint of each result's own dtype (`dtype.primitive_bitwidth * 4 +
is_floating() * 2 + is_int_signed()`) is stored into `meta` (unless fingerprint=False),
so that the reference also says what type Triton's promotion gave.

What the generator does NOT decide
----------------------------------
The generator keeps a rough model of Triton's types only to pick sensible operations
and to avoid undefined behaviour; it never computes expected values or types. The GPU
run is the truth for both. If the model is wrong somewhere, Triton rejects the kernel
(recorded as such) or the values simply are what Triton computes.

Undefined behaviour avoided by construction
-------------------------------------------
- integer // and % : the divisor goes through `tl.where((d == 0) | (d == -1), 7, d)`
  (so no division by zero and no INT_MIN / -1), literal divisors are 2..9 or -9..-2;
  operands of different signedness are made signed first (Triton refuses % on mixed
  signedness).
- shifts: the amount is `(b & 7)` or a literal 0..7, below every integer width.
- float -> int casts: NaN replaced by 0 and the value clamped into the target's range.
- float -> int bitcasts: NaN replaced by 0 and -0.0 folded into +0.0 first.
- math domains: log(|x| + 0.5), sqrt(|x|), exp/exp2 of a clamped argument, sin/cos of a
  clamped argument.
- float division by an inexact divisor uses |d| + 1 (never near zero).

Exactness and tolerances
------------------------
Each float node carries `tol`: 0 where the value is bit-exact on any IEEE
implementation without FMA contraction (loads, + - * of one rounding, casts, min/max,
where, abs, neg, floor/ceil, fma of f32/f64, max/min reductions), else a relative
tolerance by dtype (`BASE_TOL`) for what differs between implementations: `/` (CUDA's
div.full.f32), math functions, float sums and scans (order), tl.dot (order, TF32).
Inexact floats never flow into discontinuous operations (comparisons, casts to
integers, bitcasts, argmax/argmin, floor/ceil), so a 1-ulp difference cannot turn into
a different branch or integer. make_reference.py launches with enable_fp_fusion=False
so that Triton does not contract a*b+c into an FMA on the GPU.

Inputs are made from `random.Random(seed)` bytes and numpy arithmetic only (no numpy
Generator, whose streams may change between numpy versions), and each case has a
`digest()` over its source and inputs that the reference records, so a change in the
generated kernels or inputs is caught rather than compared against stale results.

Probes: about 1 kernel in 25 also computes a construct whose acceptance by Triton is
the question (math on float16, float //, bitwise on floats, math on ints, tl.dot with
K < 16, % on mixed signedness). `Case.probe` names it; the test accepts blockc running
a kernel Triton rejects only for the probes listed in `BLOCKC_EXTENSIONS` (documented in
docs/python.md, section 7).

Bump GENERATOR_VERSION whenever the output of generate() changes for any seed.
"""

import hashlib
import random
from dataclasses import dataclass, field

import numpy as np

GENERATOR_VERSION = "df-1"
COUNT = 300

INT_TYPES = ["int8", "int16", "int32", "int64", "uint8"]
FLOAT_TYPES = ["float16", "bfloat16", "float32", "float64"]
INPUT_TYPES = INT_TYPES + ["bool"] + FLOAT_TYPES
INPUT_WEIGHTS = [2, 1, 3, 1, 1.5, 1, 2, 1.5, 4, 1.5]

BITS = {"bool": 1, "int8": 8, "uint8": 8, "int16": 16, "int32": 32, "uint32": 32,
        "int64": 64, "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
TL = {name: "tl." + name for name in BITS}
TL["bool"] = "tl.int1"
# relative tolerance (of max(|reference|, 1) over an output) of an inexact result
BASE_TOL = {"float64": 1e-9, "float32": 3e-5, "float16": 4e-3, "bfloat16": 3e-2}
INT_RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767),
             "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1), "uint32": (0, 2**32 - 1)}
# clamp bounds before a float -> int cast (representable in float16 where needed)
CLAMP = {"int8": (-120.0, 120.0), "uint8": (0.0, 250.0), "int16": (-30000.0, 30000.0),
         "int32": (-1.0e9, 1.0e9), "int64": (-1.0e18, 1.0e18), "uint32": (0.0, 4.0e9),
         "bool": None}
BITCAST = {8: ["int8", "uint8"], 16: ["int16", "float16", "bfloat16"],
           32: ["int32", "uint32", "float32"], 64: ["int64", "float64"]}

# Probes whose Triton rejection blockc is documented to accept (docs/python.md, 7).
BLOCKC_EXTENSIONS = {
    "math_f16": "f16 and bf16 operands are accepted where Triton asks for f32 or f64",
    "dot_small": "tl.dot has no minimum of 16",
}
PROBES = ["math_f16", "float_floordiv", "float_bitwise", "math_int", "dot_small", "mod_mixed_sign"]


def kind(dt):
    if dt == "bool":
        return 0
    if dt.startswith("uint"):
        return 1
    if dt.startswith("int"):
        return 2
    return 3


def is_float(dt):
    return kind(dt) == 3


def is_int(dt):  # integers, not bool
    return kind(dt) in (1, 2)


def int_promote(a, b):
    if a == "bool":
        a = "int1"
    if b == "bool":
        b = "int1"
    wa = 1 if a == "int1" else BITS[a]
    wb = 1 if b == "int1" else BITS[b]
    ua, ub = a.startswith("uint"), b.startswith("uint")
    if ua == ub:
        r = a if wa > wb else b
    elif ua:
        r = a if wa >= wb else b
    else:
        r = b if wb >= wa else a
    return "bool" if r == "int1" else r


def promote(a, b):
    """Triton's type of a + b for two tensors (a model, see the module docstring)."""
    if is_float(a) or is_float(b):
        for t in ("float64", "float32", "float16"):
            if t in (a, b):
                return t
        return "bfloat16" if a == b else "float32"
    return int_promote(a, b)


def literal_type(v):
    if isinstance(v, float):
        return "float32"
    if -2**31 <= v < 2**31:
        return "int32"
    if 2**31 <= v < 2**32:
        return "uint32"
    return "int64"


def promote_lit(t, v):
    """tensor t with the Python literal v (weakly typed: it takes t's type unless of a
    higher kind, bool < uint < int < float)."""
    lt = literal_type(v)
    if kind(lt) <= kind(t):
        return t
    return promote(lt, t)


def literal_fits(t, v):
    """Triton rejects an int literal outside the computation type's range, and a
    negative one with an unsigned computation type."""
    if is_float(t) or isinstance(v, float):
        return True
    lo, hi = INT_RANGE.get(t, (0, 1))
    return lo <= v <= hi


def double_rounding_risk(src, dst):
    """Conversions a GPU may make in two roundings (through float32) where a CPU rounds
    once: float64 to float16/bfloat16, integers over 16 bits to bfloat16. Their results
    count as inexact (one ulp of dst)."""
    if dst in ("float16", "bfloat16") and src == "float64":
        return True
    return dst == "bfloat16" and is_int(src) and BITS[src] > 16


def bcast(*shapes):
    s = set(shapes) - {"scalar"}
    if not s:
        return "scalar"
    if "full" in s or ("row" in s and "col" in s):
        return "full"
    return s.pop()


@dataclass
class Node:
    name: str
    dt: str
    shape: str
    tol: float = 0.0
    depth: int = 0
    uses: int = 0


@dataclass
class Case:
    seed: int
    source: str
    inputs: list          # [(name, numpy array, dtype name)]; bfloat16 as uint16 bits
    scalars: list         # [(name, python value)]
    outputs: list         # [(name, shape tuple, dtype name, tol, exact)]
    grid: tuple
    constexprs: dict
    probe: str = ""
    notes: list = field(default_factory=list)

    def digest(self):
        h = hashlib.sha256()
        h.update(GENERATOR_VERSION.encode())
        h.update(self.source.encode())
        for name, arr, dt in self.inputs:
            h.update(f"{name}:{dt}:{arr.shape}".encode())
            h.update(np.ascontiguousarray(arr).tobytes())
        for name, v in self.scalars:
            h.update(f"{name}={v!r}".encode())
        h.update(repr((self.grid, sorted(self.constexprs.items()), self.sizes)).encode())
        return h.hexdigest()


def _random_bytes(rng, n):
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def _uints(rng, n, bits=32):
    dt = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return np.frombuffer(_random_bytes(rng, n * bits // 8), dtype=dt).copy()


def f32_to_bf16_bits(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(a, dtype=np.float32))
    out = rounded.astype(np.uint16)
    out[nan] = 0x7FC0
    return out


def bf16_bits_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def make_input(rng, dt, shape):
    n = int(np.prod(shape))
    if dt == "bool":
        return (_uints(rng, n, 8) & 1).astype(np.bool_).reshape(shape)
    if is_int(dt):
        lo, hi = INT_RANGE[dt]
        mode = rng.choice(["small", "small", "full", "mixed"])
        if mode == "full":
            arr = _uints(rng, n, BITS[dt]).view(np.dtype(dt))
        else:
            span = 41
            base = -20 if dt != "uint8" else 0
            arr = (_uints(rng, n) % span).astype(np.int64) + base
            if mode == "mixed":
                special = np.array([lo, hi, -1 if lo < 0 else 0, 0, 1, lo + 1], dtype=np.int64)
                pick = _uints(rng, n) % 8
                idx = pick < 2
                arr[idx] = special[(_uints(rng, n) % 6)[idx]]
            arr = arr.astype(np.dtype(dt))
        return arr.reshape(shape)
    # floats
    mode = rng.choice(["grid", "grid", "wide"])
    u = _uints(rng, n)
    if mode == "grid":  # multiples of 1/128 in [-8, 8]: exact in float16
        vals = ((u % 2049).astype(np.int64) - 1024).astype(np.float64) / 128.0
    else:
        e = (u % 21).astype(np.int64) - 10
        m = 1.0 + (_uints(rng, n) % 4096).astype(np.float64) / 4096.0
        s = np.where((_uints(rng, n) & 1) == 1, -1.0, 1.0)
        vals = np.ldexp(s * m, e)
    if rng.random() < 0.2:
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], dtype=np.float64)
        pick = _uints(rng, n) % 32
        idx = pick == 0
        vals[idx] = special[(_uints(rng, n) % 6)[idx]]
    if dt == "bfloat16":
        return f32_to_bf16_bits(vals.astype(np.float32)).reshape(shape)
    return vals.astype(np.dtype(dt)).reshape(shape)


INT_LITERALS = [2, 3, 5, 7, -1, -3, 0, 1, 9, -8]
BIG_INT_LITERALS = [100, 1000, 70000, -40000, 3000000000]
FLOAT_LITERALS = [0.5, 1.5, -2.25, 3.0, 0.75, -1.0, 2.0, 0.1]


class Builder:
    def __init__(self, rng, nd, full_shape, square_dot):
        self.rng = rng
        self.nd = nd
        self.full = full_shape
        self.square_dot = square_dot
        self.lines = []
        self.nodes = []
        self.count = 0

    def fresh(self):
        self.count += 1
        return f"t{self.count}"

    def emit(self, expr, dt, shape, tol, operands, name=None):
        name = name or self.fresh()
        if expr is not None:
            self.lines.append(f"{name} = {expr}")
        depth = 1 + max([o.depth for o in operands] or [0])
        for o in operands:
            o.uses += 1
        node = Node(name, dt, shape, tol, depth)
        self.nodes.append(node)
        return node

    def pick(self, pred=lambda n: True, max_depth=4):
        cands = [n for n in self.nodes if pred(n) and n.depth <= max_depth]
        if not cands:
            return None
        # prefer recent and unused nodes
        weights = [1.0 + i * 0.3 + (1.5 if n.uses == 0 else 0) for i, n in enumerate(cands)]
        return self.rng.choices(cands, weights)[0]

    def shape_expr(self):
        return "(" + ", ".join(self.full) + ("," if len(self.full) == 1 else "") + ")"

    def tol_of(self, dt, *ops, base=False):
        t = max([o.tol for o in ops] or [0.0])
        if base and is_float(dt):
            t = max(t, BASE_TOL[dt])
        if t and is_float(dt):
            t = max(t, BASE_TOL[dt])
        return t

    # ---- operand helpers --------------------------------------------------------------
    def exact(self, n):
        return n.tol == 0

    def literal(self, dt, nonzero=False):
        """A Python literal for an operation with a tensor of type dt: (text, value).
        Mostly one that Triton accepts with dt; now and then any (a probe of the range
        checks)."""
        r = self.rng
        for _ in range(20):
            if is_float(dt) and r.random() < 0.7:
                v = r.choice(FLOAT_LITERALS)
            elif r.random() < 0.06:
                v = r.choice(BIG_INT_LITERALS)
            else:
                v = r.choice([x for x in INT_LITERALS if not (nonzero and x in (0, 1, -1))])
            if r.random() < 0.02 or literal_fits(promote_lit(dt, v), v):
                break
        return repr(v), v

    # ---- operations -------------------------------------------------------------------
    def op_arith(self):
        r = self.rng
        a = self.pick(lambda n: n.dt != "bool")
        if a is None:
            return None
        op = r.choice(["+", "-", "*"])
        if r.random() < 0.3:
            lit, lv = self.literal(a.dt)
            dt = promote_lit(a.dt, lv)
            expr = f"{a.name} {op} {lit}" if r.random() < 0.6 else f"{lit} {op} {a.name}"
            return self.emit(expr, dt, a.shape, self.tol_of(dt, a), [a])
        b = self.pick(lambda n: n.dt != "bool")
        dt = promote(a.dt, b.dt)
        return self.emit(f"{a.name} {op} {b.name}", dt, bcast(a.shape, b.shape), self.tol_of(dt, a, b), [a, b])

    def op_truediv(self):
        r = self.rng
        a = self.pick(lambda n: n.dt != "bool")
        b = self.pick(lambda n: n.dt != "bool")
        if a is None:
            return None
        dt = "float64" if "float64" in (a.dt, b.dt) else "float32"
        if r.random() < 0.3:
            lit = r.choice(["3.0", "0.5", "-7.0", "3", "10"])
            an = a.name
            if kind(a.dt) == 1:
                an = self.signed_operand(a)[0]
            return self.emit(f"{an} / {lit}", "float64" if a.dt == "float64" else "float32",
                             a.shape, self.tol_of(dt, a, base=True), [a])
        an, adt, bn, bdt = a.name, a.dt, b.name, b.dt
        if is_int(adt) and is_int(bdt) and kind(adt) != kind(bdt):
            an, adt = self.signed_operand(a)
            bn, bdt = self.signed_operand(b)
        if is_float(bdt):
            d = f"(tl.abs({bn}) + 1.0)" if not self.exact(b) else f"tl.where({bn} == 0, 1.0, {bn})"
        else:
            d = self.nonzero_divisor(bn, bdt)
        return self.emit(f"{an} / {d}", dt, bcast(a.shape, b.shape), self.tol_of(dt, a, b, base=True), [a, b])

    def signed_operand(self, n):
        if n.dt == "uint8":
            return f"{n.name}.to(tl.int16)", "int16"
        if n.dt == "uint32":
            return f"{n.name}.to(tl.int64)", "int64"
        return n.name, n.dt

    def nonzero_divisor(self, name, dt):
        if dt.startswith("uint"):
            return f"({name} | ({name} == 0))"
        return f"tl.where(({name} == 0) | ({name} == -1), 7, {name})"

    def op_divmod(self):
        r = self.rng
        a = self.pick(lambda n: is_int(n.dt))
        if a is None:
            return None
        op = r.choice(["//", "%"])
        if r.random() < 0.3:
            lit = r.choice([2, 3, 5, 7, 9, -2, -3, -5, -9])
            an, adt = self.signed_operand(a)
            return self.emit(f"{an} {op} {lit}", adt, a.shape, 0.0, [a])
        b = self.pick(lambda n: is_int(n.dt))
        an, adt, bn, bdt = a.name, a.dt, b.name, b.dt
        if kind(a.dt) != kind(b.dt):
            an, adt = self.signed_operand(a)
            bn, bdt = self.signed_operand(b)
        dt = promote(adt, bdt)
        return self.emit(f"{an} {op} {self.nonzero_divisor(bn, bdt)}", dt, bcast(a.shape, b.shape), 0.0, [a, b])

    def op_bitwise(self):
        r = self.rng
        a = self.pick(lambda n: not is_float(n.dt))
        if a is None:
            return None
        op = r.choice(["&", "|", "^"])
        if r.random() < 0.25 and a.dt != "bool":
            lit = r.choice([0x5A, 7, -16, 255, 0x0F0F])
            dt = promote_lit(a.dt, lit)
            if not literal_fits(dt, lit):
                lit, dt = 7, promote_lit(a.dt, 7)
            return self.emit(f"{a.name} {op} {lit!r}", dt, a.shape, 0.0, [a])
        b = self.pick(lambda n: not is_float(n.dt))
        dt = int_promote(a.dt, b.dt)
        return self.emit(f"{a.name} {op} {b.name}", dt, bcast(a.shape, b.shape), 0.0, [a, b])

    def op_invert(self):
        a = self.pick(lambda n: not is_float(n.dt))
        if a is None:
            return None
        return self.emit(f"~{a.name}", a.dt, a.shape, 0.0, [a])

    def op_shift(self):
        r = self.rng
        a = self.pick(lambda n: is_int(n.dt))
        if a is None:
            return None
        op = r.choice(["<<", ">>"])
        if r.random() < 0.4:
            k = r.randint(0, 7)
            return self.emit(f"{a.name} {op} {k}", promote_lit(a.dt, k), a.shape, 0.0, [a])
        b = self.pick(lambda n: is_int(n.dt))
        dt = int_promote(a.dt, promote_lit(b.dt, 7))
        return self.emit(f"{a.name} {op} ({b.name} & 7)", dt, bcast(a.shape, b.shape), 0.0, [a, b])

    def op_compare(self):
        r = self.rng
        a = self.pick(self.exact)
        if a is None:
            return None
        op = r.choice(["<", "<=", ">", ">=", "==", "!="])
        if r.random() < 0.35:
            lit, _ = self.literal(a.dt)
            return self.emit(f"{a.name} {op} {lit}", "bool", a.shape, 0.0, [a])
        b = self.pick(self.exact)
        return self.emit(f"{a.name} {op} {b.name}", "bool", bcast(a.shape, b.shape), 0.0, [a, b])

    def op_logical(self):
        a = self.pick(lambda n: n.dt == "bool")
        b = self.pick(lambda n: n.dt == "bool")
        if a is None or b is None:
            return None
        op = self.rng.choice(["&", "|", "^"])
        return self.emit(f"{a.name} {op} {b.name}", "bool", bcast(a.shape, b.shape), 0.0, [a, b])

    def op_where(self):
        r = self.rng
        c = self.pick(lambda n: n.dt == "bool")
        if c is None:
            return self.op_compare()
        a = self.pick()
        if r.random() < 0.3:
            lit, lv = self.literal(a.dt)
            dt = promote_lit(a.dt, lv)
            args = f"{a.name}, {lit}" if r.random() < 0.5 else f"{lit}, {a.name}"
            return self.emit(f"tl.where({c.name}, {args})", dt, bcast(c.shape, a.shape),
                             self.tol_of(dt, a), [c, a])
        b = self.pick()
        dt = promote(a.dt, b.dt)
        return self.emit(f"tl.where({c.name}, {a.name}, {b.name})", dt, bcast(c.shape, a.shape, b.shape),
                         self.tol_of(dt, a, b), [c, a, b])

    def op_minmax(self):
        r = self.rng
        a = self.pick(lambda n: n.dt != "bool")
        if a is None:
            return None
        fn = r.choice(["tl.minimum", "tl.maximum"])
        if r.random() < 0.3:
            lit, lv = self.literal(a.dt)
            dt = promote_lit(a.dt, lv)
            return self.emit(f"{fn}({a.name}, {lit})", dt, a.shape, self.tol_of(dt, a), [a])
        b = self.pick(lambda n: n.dt != "bool")
        dt = promote(a.dt, b.dt)
        extra = ""
        if is_float(dt) and r.random() < 0.2:
            extra = ", propagate_nan=tl.PropagateNan.ALL"
        return self.emit(f"{fn}({a.name}, {b.name}{extra})", dt, bcast(a.shape, b.shape),
                         self.tol_of(dt, a, b), [a, b])

    def float_to_int(self, name, src, dst):
        if dst == "bool":
            return f"{name}.to(tl.int1)"
        lo, hi = CLAMP[dst]
        if src in ("float16",) and hi > 60000:
            lo, hi = (max(lo, -60000.0), min(hi, 60000.0))
        return f"tl.where({name} == {name}, tl.minimum(tl.maximum({name}, {lo!r}), {hi!r}), 0).to({TL[dst]})"

    def op_cast(self):
        r = self.rng
        a = self.pick()
        targets = INT_TYPES + ["uint32", "bool"] + FLOAT_TYPES
        dst = r.choice([t for t in targets if t != a.dt])
        if is_float(a.dt) and not is_float(dst):
            if not self.exact(a):
                dst = r.choice([t for t in FLOAT_TYPES if t != a.dt])
            else:
                return self.emit(self.float_to_int(a.name, a.dt, dst), dst, a.shape, 0.0, [a])
        tol = a.tol
        if tol and is_float(dst):
            tol = max(tol, BASE_TOL[dst])
        if double_rounding_risk(a.dt, dst):
            tol = max(tol, BASE_TOL[dst])
        return self.emit(f"{a.name}.to({TL[dst]})", dst, a.shape, tol, [a])

    def op_bitcast(self):
        r = self.rng
        a = self.pick(lambda n: n.dt != "bool" and (not is_float(n.dt) or self.exact(n)))
        if a is None:
            return None
        dst = r.choice([t for t in BITCAST[BITS[a.dt]] if t != a.dt])
        src = a.name
        if is_float(a.dt):
            src = f"(tl.where({a.name} == {a.name}, {a.name}, 0.0) + 0.0)"
        expr = f"{src}.to({TL[dst]}, bitcast=True)"
        if is_float(dst):  # a NaN's payload is not portable: replace NaNs
            tmp = self.fresh()
            self.lines.append(f"{tmp} = {expr}")
            expr = f"tl.where({tmp} == {tmp}, {tmp}, 1.0)"
        return self.emit(expr, dst, a.shape, 0.0, [a])

    def op_unary(self):
        r = self.rng
        a = self.pick(lambda n: n.dt != "bool")
        if a is None:
            return None
        if r.random() < 0.5:
            return self.emit(f"-{a.name}", a.dt, a.shape, a.tol, [a])
        return self.emit(f"tl.abs({a.name})", a.dt, a.shape, a.tol, [a])

    def op_math(self):
        r = self.rng
        a = self.pick(lambda n: n.dt in ("float32", "float64"))
        if a is None:
            a = self.pick(lambda n: n.dt != "bool")
            if a is None:
                return None
            conv = r.choice(["float32", "float64"])
            a = self.emit(f"{a.name}.to({TL[conv]})", conv, a.shape,
                          max(a.tol, BASE_TOL[conv]) if a.tol else 0.0, [a])
        x = a.name
        fn = r.choice(["exp", "exp2", "log", "log2", "sqrt", "sin", "cos", "floor", "ceil"])
        if fn in ("floor", "ceil"):
            if not self.exact(a):
                fn = "sqrt"
            else:
                return self.emit(f"tl.{fn}({x})", a.dt, a.shape, 0.0, [a])
        arg = {
            "exp": f"tl.minimum(tl.maximum({x}, -30.0), 30.0)",
            "exp2": f"tl.minimum(tl.maximum({x}, -40.0), 40.0)",
            "log": f"tl.abs({x}) + 0.5",
            "log2": f"tl.abs({x}) + 0.5",
            "sqrt": f"tl.abs({x})",
            "sin": f"tl.minimum(tl.maximum({x}, -50.0), 50.0)",
            "cos": f"tl.minimum(tl.maximum({x}, -50.0), 50.0)",
        }[fn]
        spelled = f"tl.{fn}({arg})" if r.random() < 0.8 else f"({arg}).{fn}()" if fn not in ("sqrt",) else f"tl.math.{fn}({arg})"
        return self.emit(spelled, a.dt, a.shape, self.tol_of(a.dt, a, base=True), [a])

    def op_fma(self):
        a = self.pick(lambda n: is_float(n.dt))
        if a is None:
            return None
        b = self.pick(lambda n: is_float(n.dt))
        c = self.pick(lambda n: is_float(n.dt))
        dt = promote(promote(a.dt, b.dt), c.dt)
        tol = self.tol_of(dt, a, b, c, base=dt in ("float16", "bfloat16"))
        return self.emit(f"tl.fma({a.name}, {b.name}, {c.name})", dt, bcast(a.shape, b.shape, c.shape),
                         tol, [a, b, c])

    def sum_type(self, dt):
        if dt in ("bool", "int8", "int16"):
            return "int32"
        if dt == "uint8":
            return "uint32"
        return dt

    def reduced(self, expr, axis):
        """A reduction along axis of a full block, brought back to a broadcastable shape."""
        r = self.rng
        if self.nd == 1:
            return expr, "scalar"
        shape = "row" if axis == 1 else "col"
        style = r.choice(["keep", "index", "expand"])
        if style == "keep":
            return expr[:-1] + ", keep_dims=True)", shape
        if style == "index":
            return f"{expr}[:, None]" if axis == 1 else f"{expr}[None, :]", shape
        return f"tl.expand_dims({expr}, {axis})", shape

    def op_reduce(self):
        r = self.rng
        fn = r.choice(["sum", "sum", "max", "min", "argmax", "argmin"])
        if fn in ("argmax", "argmin"):
            a = self.pick(lambda n: n.shape == "full" and n.dt != "bool" and self.exact(n))
        elif fn == "sum":
            a = self.pick(lambda n: n.shape == "full")
        else:
            a = self.pick(lambda n: n.shape == "full" and n.dt != "bool")
        if a is None:
            return None
        axis = r.randint(0, self.nd - 1)
        x = a.name
        if fn in ("argmax", "argmin") and is_float(a.dt):
            x = f"tl.where({x} == {x}, {x}, 0)"
        spelled = f"tl.{fn}({x}, axis={axis})" if r.random() < 0.85 else f"{x}.{fn}({axis})" if x == a.name else f"tl.{fn}({x}, {axis})"
        expr, shape = self.reduced(spelled, axis)
        if fn == "sum":
            dt = self.sum_type(a.dt)
            tol = self.tol_of(dt, a, base=is_float(dt))
            if tol:
                tol *= 4
            if dt in ("float16", "bfloat16"):
                expr, dt = f"({expr}).to(tl.float32)", "float32"
        elif fn in ("max", "min"):  # Triton widens types under 32 bits first
            dt, tol = a.dt, a.tol
            if BITS[dt] < 32:
                dt = "float32" if is_float(dt) else "int32"
        else:
            dt, tol = "int32", 0.0
        return self.emit(expr, dt, shape, tol, [a])

    def op_cumsum(self):
        r = self.rng
        a = self.pick(lambda n: n.shape == "full")
        if a is None:
            return None
        axis = r.randint(0, self.nd - 1)
        rev = ", reverse=True" if r.random() < 0.3 else ""
        dt = self.sum_type(a.dt)
        expr = f"tl.cumsum({a.name}, axis={axis}{rev})"
        tol = self.tol_of(dt, a, base=is_float(dt))
        if tol:
            tol *= 4
        if dt in ("float16", "bfloat16"):
            expr, dt = f"({expr}).to(tl.float32)", "float32"
        return self.emit(expr, dt, "full", tol, [a])

    def op_shape(self):
        r = self.rng
        a = self.pick()
        if a is None:
            return None
        if a.shape != "full":
            return self.emit(f"tl.broadcast_to({a.name}, {self.shape_expr()})", a.dt, "full", a.tol, [a])
        if self.nd == 1:
            B = self.full[0]
            if B == "BLOCK" and r.random() < 0.8:
                j, k = self.fresh(), self.fresh()
                self.lines.append(f"{j}, {k} = tl.split(tl.reshape(tl.trans(tl.join({a.name}, {a.name})), (BLOCK, 2)))")
                return self.emit(None, a.dt, "full", a.tol, [a], name=r.choice([j, k]))
            return self.emit(f"tl.reshape(tl.reshape({a.name}, (BLOCK // 2, 2)), (BLOCK,))", a.dt, "full", a.tol, [a])
        choice = r.choice(["trans_reshape", "trans", "permute", "reshape"])
        if choice in ("trans", "permute") and not self.square_dot:
            choice = "trans_reshape"
        if choice == "trans":
            return self.emit(f"tl.trans({a.name})", a.dt, "full", a.tol, [a])
        if choice == "permute":
            return self.emit(f"tl.permute({a.name}, (1, 0))", a.dt, "full", a.tol, [a])
        if choice == "reshape":
            return self.emit(f"tl.reshape(tl.reshape({a.name}, (BM * BN,)), (BM, BN))", a.dt, "full", a.tol, [a])
        return self.emit(f"tl.trans(tl.reshape({a.name}, (BN, BM)))", a.dt, "full", a.tol, [a])

    def op_dot(self):
        r = self.rng
        if not self.square_dot:
            return None
        a = self.pick(lambda n: n.shape == "full")
        b = self.pick(lambda n: n.shape == "full")
        if a is None or b is None:
            return None
        dt = r.choice(["float16", "float32", "float32"])
        ta = a.name if a.dt == dt else f"{a.name}.to({TL[dt]})"
        tb = b.name if b.dt == dt else f"{b.name}.to({TL[dt]})"
        opts, tol = "", 1e-4
        if dt == "float32":
            if r.random() < 0.5 or IEEE_DOTS:
                opts = ', input_precision="ieee"'
            else:
                tol = 5e-3  # TF32 on the GPU
        if max(a.tol, b.tol) and dt == "float16":
            tol = max(tol, 2e-3)
        tol = max(tol, a.tol, b.tol)
        if r.random() < 0.3:
            c = self.pick(lambda n: n.shape == "full")
            if c is not None and (is_float(c.dt) is False or c.tol == 0 or True):
                opts += f", acc={c.name}.to(tl.float32)"
                tol = max(tol, c.tol)
                return self.emit(f"tl.dot({ta}, {tb}{opts})", "float32", "full", tol, [a, b, c])
        return self.emit(f"tl.dot({ta}, {tb}{opts})", "float32", "full", tol, [a, b])


OPS = [
    ("op_arith", 14), ("op_truediv", 4), ("op_divmod", 5), ("op_bitwise", 4), ("op_invert", 2),
    ("op_shift", 4), ("op_compare", 6), ("op_logical", 2), ("op_where", 6), ("op_minmax", 4),
    ("op_cast", 7), ("op_bitcast", 3), ("op_unary", 4), ("op_math", 6), ("op_fma", 2),
    ("op_reduce", 6), ("op_cumsum", 2), ("op_shape", 3), ("op_dot", 3),
]

OTHER = {"bool": ["0", "1", "True"], "float": ["0.0", "1.5", "-2.0", "0"], "int": ["0", "3", "-1"]}


def _out_dtype(rng, n):
    if n.dt == "bool":
        return rng.choice(["bool", "int8", "int64", "float32"])
    if is_float(n.dt):
        return rng.choices(["float64", "float32", "float16", "bfloat16"], [4, 2, 1, 1])[0]
    return rng.choices(["int64", "int32", "int16", "int8", "uint8", "float32", "float64"],
                       [5, 2, 1, 1, 1, 1, 1])[0]


def _probe_lines(rng, b, probe):
    """One extra result whose acceptance by Triton is the question (see the module docs)."""
    x = b.pick(lambda n: n.shape == "full") or b.nodes[0]
    if probe == "math_f16":
        return f"tl.exp({x.name}.to(tl.float16))", "float16"
    if probe == "float_floordiv":
        return f"{x.name}.to(tl.float32) // 2.0", "float32"
    if probe == "float_bitwise":
        return f"{x.name}.to(tl.float32) & 1", "float32"
    if probe == "math_int":
        return f"tl.exp({x.name}.to(tl.int32))", "int32"
    if probe == "mod_mixed_sign":
        return f"{x.name}.to(tl.uint8) % tl.where({x.name}.to(tl.int8) == 0, 3, {x.name}.to(tl.int8))", "int16"
    raise ValueError(probe)


# Every f32 dot in full precision (family dx): a TF32 dot's error is no fraction of its
# result where its sum cancels, or once cos or an overflow takes it further (dx-1's first
# reference: 3 of 300 kernels). df-1 keeps its half of TF32 dots, as its reference has them.
IEEE_DOTS = False


def generate(seed, fingerprint=True):
    rng = random.Random(seed * 7919 + 17)
    probe = rng.choice(PROBES) if rng.random() < 0.04 else ""
    nd = 1 if rng.random() < 0.55 else 2
    square_dot = False
    if probe == "dot_small":
        nd = 2
    if nd == 2 and probe != "dot_small" and rng.random() < 0.3:
        square_dot = True
    if nd == 1:
        B = rng.choice([16, 32, 64, 128])
        n = rng.randint(1, int(2.5 * B))
        shape = (n,)
        grid = ((n + B - 1) // B,)
        constexprs = {"BLOCK": B}
        sizes = [("n", n)]
        full = ["BLOCK"]
        header = ["pid = tl.program_id(0)",
                  "offs = pid * BLOCK + tl.arange(0, BLOCK)",
                  "mask = offs < n"]
    else:
        if probe == "dot_small":
            BM = BN = 8
        elif square_dot:
            BM = BN = rng.choice([16, 16, 32])
        else:
            while True:
                BM, BN = rng.choice([2, 4, 8, 16, 32]), rng.choice([2, 4, 8, 16, 32])
                if 8 <= BM * BN <= 512:
                    break
        R = rng.randint(1, int(2.5 * BM))
        C = rng.randint(1, int(2.5 * BN))
        if BM * BN >= 512:
            R, C = rng.randint(1, BM + 3), rng.randint(1, BN + 3)
        shape = (R, C)
        grid = ((R + BM - 1) // BM, (C + BN - 1) // BN)
        constexprs = {"BM": BM, "BN": BN}
        sizes = [("R", R), ("C", C)]
        full = ["BM", "BN"]
        header = ["pid_m = tl.program_id(0)",
                  "pid_n = tl.program_id(1)",
                  "rows = pid_m * BM + tl.arange(0, BM)",
                  "cols = pid_n * BN + tl.arange(0, BN)",
                  "offs = rows[:, None] * C + cols[None, :]",
                  "mask = (rows[:, None] < R) & (cols[None, :] < C)"]
    b = Builder(rng, nd, full, square_dot)
    b.lines.extend(header)

    inputs = []
    n_in = rng.randint(1, 3)
    for i in range(n_in):
        dt = rng.choices(INPUT_TYPES, INPUT_WEIGHTS)[0]
        arr = make_input(rng, dt, shape)
        name = f"x{i}_ptr"
        inputs.append((name, arr, dt))
        k = "bool" if dt == "bool" else "float" if is_float(dt) else "int"
        other = rng.choice(OTHER[k])
        b.lines.append(f"x{i} = tl.load({name} + offs, mask=mask, other={other})")
        b.emit(None, dt, "full", 0.0, [], name=f"x{i}")
    scalars = []
    for i in range(rng.choice([0, 0, 1, 1, 2])):
        t = rng.choice(["int32", "int32", "int64", "float32"])
        if t == "int32":
            v = rng.randint(-20, 20)
        elif t == "int64":
            v = rng.choice([1, -1]) * (2**33 + rng.randint(0, 1000))
        else:
            v = rng.choice([0.5, -1.25, 3.0, 1e-3, 2.5e4, -7.75])
        scalars.append((f"s{i}", v))
        if t == "int32" and v == 1:
            t = "int32"  # Triton specialises 1 into a constexpr: the model stays rough
        b.emit(None, t, "scalar", 0.0, [], name=f"s{i}")
    if rng.random() < 0.15:
        b.emit(None, "int32", "full", 0.0, [], name="offs")

    n_ops = rng.randint(3, 10)
    names = [o for o, _ in OPS]
    weights = [w for _, w in OPS]
    done = 0
    tries = 0
    if square_dot:
        if b.op_dot():
            done += 1
    while done < n_ops and tries < 200:
        tries += 1
        op = rng.choices(names, weights)[0]
        before = len(b.nodes)
        try:
            node = getattr(b, op)()
        except (IndexError, ValueError):
            node = None
        if node is not None and len(b.nodes) > before:
            done += 1

    computed = [nd_ for nd_ in b.nodes if nd_.depth >= 1]
    unused = [x for x in computed if x.uses == 0]
    pool = sorted(unused or computed, key=lambda x: -x.depth)
    n_out = min(len(pool), rng.randint(1, 3))
    results = pool[:n_out]
    if not results:
        results = [b.nodes[0]]

    outputs = []
    store_lines = []
    out_shape_expr = b.shape_expr()
    for j, node in enumerate(results):
        odt = _out_dtype(rng, node)
        v = node.name
        if node.shape != "full":
            v = f"tl.broadcast_to({v}, {out_shape_expr})"
        tol = node.tol if is_float(node.dt) else 0.0
        if tol and is_float(odt):
            tol = max(tol, BASE_TOL[odt])
        if double_rounding_risk(node.dt, odt):
            tol = max(tol, BASE_TOL[odt])
        outputs.append((f"out{j}_ptr", shape, odt, tol))
        if fingerprint:
            store_lines.append(f"tl.store(meta_ptr + {j}, {node.name}.dtype.primitive_bitwidth * 4"
                               f" + {node.name}.dtype.is_floating() * 2 + {node.name}.dtype.is_int_signed())")
        store_lines.append(f"tl.store(out{j}_ptr + offs, {v}.to({TL[odt]}), mask=mask)")

    if probe:
        j = len(outputs)
        if probe == "dot_small":
            x = b.pick(lambda n: n.shape == "full") or b.nodes[0]
            ieee = ', input_precision="ieee"' if IEEE_DOTS else ""
            expr, pdt = (f"tl.dot({x.name}.to(tl.float32), {x.name}.to(tl.float32){ieee})",
                         "float32")
        else:
            expr, pdt = _probe_lines(rng, b, probe)
        b.lines.append(f"p{j} = {expr}")
        outputs.append((f"out{j}_ptr", shape, "float64" if is_float(pdt) else "int64", 1e-2))
        store_lines.append(f"tl.store(out{j}_ptr + offs, p{j}, mask=mask)")

    params = ([n for n, _, _ in inputs] + [o[0] for o in outputs] + ["meta_ptr"]
              + [s for s, _ in sizes] + [s for s, _ in scalars]
              + [f"{k}: tl.constexpr" for k in constexprs])
    src = ["import triton", "import triton.language as tl", "", "",
           "@triton.jit", f"def kernel({', '.join(params)}):"]
    src += ["    " + line for line in b.lines + store_lines]
    source = "\n".join(src) + "\n"
    case = Case(seed=seed, source=source, inputs=inputs, scalars=scalars,
                outputs=outputs, grid=grid, constexprs=constexprs, probe=probe)
    case.sizes = sizes
    case.size_names = [s for s, _ in sizes]
    case.n_meta = len(results)
    return case


def launch_args(case, tensor, empty):
    """The positional arguments of a launch: `tensor(array, dtype_name)` makes a device
    tensor of an input, `empty(shape, dtype_name)` a zeroed output; returns (args,
    outputs, meta)."""
    args = [tensor(arr, dt) for _, arr, dt in case.inputs]
    outs = [empty(shape, dt) for _, shape, dt, _ in case.outputs]
    meta = empty((max(1, case.n_meta),), "int32")
    args += outs + [meta] + [v for _, v in case.sizes] + [v for _, v in case.scalars]
    return args, outs, meta


def to_torch(torch, arr, dt, device):
    """A numpy input as a torch tensor of dtype dt (bfloat16 arrives as uint16 bits)."""
    if dt == "bfloat16":
        return torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16).to(device)
    return torch.from_numpy(np.ascontiguousarray(arr).copy()).to(device)


def torch_empty(torch, shape, dt, device):
    return torch.zeros(shape, dtype=getattr(torch, dt), device=device)


def from_torch(torch, t, dt):
    """A result tensor back as numpy (bfloat16 as uint16 bits)."""
    t = t.detach().cpu()
    if dt == "bfloat16":
        return t.view(torch.int16).numpy().view(np.uint16).copy()
    return t.numpy().copy()


if __name__ == "__main__":
    import sys
    for s in (sys.argv[1:] or ["0"]):
        c = generate(int(s))
        print(c.source, c.grid, c.constexprs, [(n, a.dtype, a.shape) for n, a, _ in c.inputs], c.outputs)
