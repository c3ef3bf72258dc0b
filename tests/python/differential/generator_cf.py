"""Seeded random Triton kernels of the second family ("cf"): control flow and the larger
language surface, for differential testing like generator.py (df-1), which stays as it is.

`generate(seed)` returns a `CfCase` (a generator.Case with its own digest and launch):
the source of one `@triton.jit` kernel named `kernel` (with @triton.jit helpers where the
template has them), its inputs, scalar arguments, outputs (zeroed, or initialised from an
array where atomics need a known start), grid and constexprs. Kernel k comes from
template `TEMPLATES[k % len(TEMPLATES)]`, with its dtypes, sizes, bounds and variants
drawn from `random.Random(seed)`. Nothing here imports torch or triton.

What the templates cover
------------------------
scf.for with run-time bounds and steps carrying blocks and scalars of several dtypes,
tl.range, tl.static_range (unrolled, constexpr branches), nested loops (triangular),
while loops with data-dependent scalar conditions (bounded by construction: a step
counter, or a binary search), if/elif/else on run-time scalars with values defined in
both branches, if inside loops, early return inside an if; @triton.jit helpers returning
tuples (called in loops too); tl.reduce with custom combines (argmax-like tuples,
wrapping products, xor, Welford), tl.associative_scan with custom combines (affine
composition, which does not commute; reverse too), tl.cumsum/cumprod, tl.sort (both
orders), tl.flip, tl.gather, tl.histogram, join/split/interleave, 3-D reshape, permute,
ravel, broadcast_to, tl.where with scalar operands; int32/int64/int8 wrap-around of + - *
<<, signed and unsigned comparisons and shifts; float16/bfloat16 arithmetic (one rounding
per op), float32 -> float16/bfloat16 rounding, large int -> float conversions; block
pointers (make_block_ptr, boundary_check, padding_option, tl.advance in a loop, stores
with boundary_check); atomics with deterministic results (int add/and/or/xor, int and
float max/min, float adds of exactly summable values, xchg and cas with one writer per
location, masks); tl.program_id and tl.num_programs on 1-D/2-D/3-D grids.

Undefined behaviour and exactness follow generator.py: no division by zero or INT_MIN /
-1, shift amounts below the width, no float -> int cast of a value out of range, no
inexact float into a comparison, branch or cast to int. Float results are marked exact
(tol 0) only where every implementation rounds alike: loads, one-rounding + - *, casts,
min/max, and sums of values on a 1/128 grid small enough that every partial sum is
representable (so the order of summation cannot matter); otherwise a relative tolerance.

Bump GENERATOR_VERSION whenever the output of generate() changes for any seed.
"""

import hashlib
import random

import numpy as np

import generator as gen

GENERATOR_VERSION = "cf-2"
COUNT = 200

TL = gen.TL
INT_RANGE = gen.INT_RANGE
NP = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64, "float16": np.float16, "float32": np.float32,
      "float64": np.float64, "bool": np.bool_}


class CfCase(gen.Case):
    def digest(self):
        h = hashlib.sha256()
        h.update(GENERATOR_VERSION.encode())
        h.update(self.source.encode())
        for name, arr, dt in self.inputs:
            h.update(f"{name}:{dt}:{arr.shape}".encode())
            h.update(np.ascontiguousarray(arr).tobytes())
        for name, v in self.scalars:
            h.update(f"{name}={v!r}".encode())
        for name in sorted(self.inits):
            h.update(f"init {name}".encode())
            h.update(np.ascontiguousarray(self.inits[name]).tobytes())
        h.update(repr((self.grid, sorted(self.constexprs.items()))).encode())
        return h.hexdigest()

    def launch_args(self, tensor, empty):
        args = [tensor(arr, dt) for _, arr, dt in self.inputs]
        outs = []
        for name, shape, dt, _ in self.outputs:
            if name in self.inits:
                outs.append(tensor(self.inits[name], dt))
            else:
                outs.append(empty(shape, dt))
        meta = empty((1,), "int32")
        args += outs + [v for _, v in self.scalars]
        return args, outs, meta


# ---- inputs ---------------------------------------------------------------------------
def ints(rng, shape, dt, lo=None, hi=None):
    """Uniform integers in [lo, hi] (default: the full range, with the extremes)."""
    n = int(np.prod(shape))
    if lo is None:
        arr = gen._uints(rng, n, gen.BITS[dt] if dt != "uint32" else 32).view(np.dtype(dt)).copy()
        dlo, dhi = INT_RANGE[dt]
        special = np.array([dlo, dhi, 0, 1, dlo + 1, dhi - 1], dtype=np.dtype(dt))
        pick = gen._uints(rng, n) % 8 == 0
        arr[pick] = special[(gen._uints(rng, n) % 6)[pick]]
        return arr.reshape(shape)
    span = hi - lo + 1
    vals = (gen._uints(rng, n, 64) % np.uint64(span)).astype(np.int64) + lo
    return vals.astype(np.dtype(dt)).reshape(shape)


def grid_floats(rng, shape, dt="float32", lim=1024):
    """Multiples of 1/128 in [-lim/128, lim/128] (exact in float16 for lim <= 1024), as
    bfloat16 bits for bfloat16 (rounded there)."""
    n = int(np.prod(shape))
    vals = ((gen._uints(rng, n) % (2 * lim + 1)).astype(np.int64) - lim).astype(np.float64) / 128.0
    return to_dt(vals, dt).reshape(shape)


def wide_floats(rng, shape, dt="float32", emin=-30, emax=30, specials=False):
    n = int(np.prod(shape))
    e = (gen._uints(rng, n) % (emax - emin + 1)).astype(np.int64) + emin
    m = 1.0 + (gen._uints(rng, n) % (1 << 20)).astype(np.float64) / float(1 << 20)
    s = np.where((gen._uints(rng, n) & 1) == 1, -1.0, 1.0)
    vals = np.ldexp(s * m, e)
    if specials:
        sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65520.0, 6e-8, 3.4e38])
        pick = gen._uints(rng, n) % 10 == 0
        vals[pick] = sp[(gen._uints(rng, n) % len(sp))[pick]]
    return to_dt(vals, dt).reshape(shape)


def to_dt(vals, dt):
    if dt == "bfloat16":
        return gen.f32_to_bf16_bits(np.asarray(vals, dtype=np.float32))
    with np.errstate(over="ignore"):  # to inf, as intended
        return np.asarray(vals).astype(np.dtype(dt))


class K:
    """One kernel under construction."""

    def __init__(self, rng):
        self.rng = rng
        self.helpers = []
        self.inputs = []
        self.outputs = []
        self.inits = {}
        self.scalars = []
        self.constexprs = {}
        self.body = []
        self.grid = (1,)

    def inp(self, name, arr, dt):
        self.inputs.append((name, arr, dt))

    def out(self, name, shape, dt, tol=0.0, init=None):
        self.outputs.append((name, tuple(shape), dt, tol))
        if init is not None:
            self.inits[name] = init

    def scalar(self, name, v):
        self.scalars.append((name, v))

    def const(self, name, v):
        self.constexprs[name] = v

    def line(self, *lines):
        self.body.extend(lines)

    def std1d(self, block, n, nprog=None):
        self.const("BLOCK", block)
        self.scalar("n", n)
        self.grid = ((n + block - 1) // block if nprog is None else nprog,)
        self.line("pid = tl.program_id(0)",
                  "offs = pid * BLOCK + tl.arange(0, BLOCK)",
                  "mask = offs < n")


def pick_int(rng):
    return rng.choice(["int8", "int16", "int32", "int32", "int64", "uint8"])


# ---- templates ------------------------------------------------------------------------
def t_for_runtime(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 2 * B + 5)
    rows = r.randint(2, 9)
    k.std1d(B, n)
    xdt = pick_int(r)
    adt = r.choice(["int32", "int64", "uint32"])
    k.inp("x_ptr", ints(r, (rows, n), xdt), xdt)
    k.inp("f_ptr", grid_floats(r, (rows, n), "float32"), "float32")
    start = r.randint(0, 2)
    stop = r.randint(start - 1, rows)
    step = r.choice([1, 2, 3])
    k.scalar("start", start)
    k.scalar("stop", stop)
    k.scalar("step", step)
    mul = r.choice([3, 31, 65599, 1000003])
    hdt = r.choice(["float16", "bfloat16"])
    k.line(f"acc = tl.zeros((BLOCK,), dtype={TL[adt]})",
           "facc = tl.zeros((BLOCK,), dtype=tl.float32)",
           f"h = tl.full((BLOCK,), 1.5, dtype={TL[hdt]})",
           "cnt = pid * 0",
           "for i in range(start, stop, step):",
           "    x = tl.load(x_ptr + i * n + offs, mask=mask, other=0)",
           "    f = tl.load(f_ptr + i * n + offs, mask=mask, other=0.0)",
           f"    acc = acc * {mul} + x.to({TL[adt]})",
           "    facc += f",
           f"    h = h * 0.5 + f.to({TL[hdt]})",
           "    cnt += i",
           "tl.store(out0_ptr + offs, acc, mask=mask)",
           "tl.store(out1_ptr + offs, facc, mask=mask)",
           "tl.store(out2_ptr + offs, h, mask=mask)",
           "tl.store(out3_ptr + pid, cnt)")
    k.out("out0_ptr", (n,), "int64" if adt == "uint32" else adt)
    k.out("out1_ptr", (n,), "float32")
    k.out("out2_ptr", (n,), hdt)
    k.out("out3_ptr", (k.grid[0],), "int32")


def t_range_static(k, r):
    B = r.choice([16, 32, 64, 128])
    n = r.randint(1, 2 * B + 5)
    rows = r.randint(3, 8)
    k.std1d(B, n)
    xdt = r.choice(["int32", "int16", "int64"])
    k.inp("x_ptr", ints(r, (rows, n), xdt, -1000, 1000), xdt)
    k.scalar("m", r.randint(0, rows))
    KS = r.randint(1, rows)
    k.const("KS", KS)
    opt = r.choice(["", ", num_stages=2", ", loop_unroll_factor=2", ", num_stages=1"])
    st = r.choice(["tl.static_range(KS)", "tl.static_range(KS - 1, -1, -1)",
                   "tl.static_range(0, KS, 2)"])
    k.line("acc = tl.zeros((BLOCK,), dtype=tl.int64)",
           f"for i in tl.range(0, m{opt}):",
           "    x = tl.load(x_ptr + i * n + offs, mask=mask, other=0)",
           "    acc = acc * 7 - x",
           "st = tl.zeros((BLOCK,), dtype=tl.int32)",
           f"for j in {st}:",
           "    y = tl.load(x_ptr + j * n + offs, mask=mask, other=1)",
           "    if j % 2 == 0:",
           "        st = st + y.to(tl.int32) * (j + 1)",
           "    else:",
           "        st = st ^ y.to(tl.int32)",
           "tl.store(out0_ptr + offs, acc, mask=mask)",
           "tl.store(out1_ptr + offs, st, mask=mask)")
    k.out("out0_ptr", (n,), "int64")
    k.out("out1_ptr", (n,), "int32")


def t_nested(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 2 * B)
    R = r.randint(2, 6)
    k.std1d(B, n)
    k.inp("x_ptr", ints(r, (R, n), "int32"), "int32")
    k.inp("f_ptr", grid_floats(r, (R, n), "float32"), "float32")
    a, b = r.randint(0, 4), r.randint(0, 5)
    k.scalar("a", a)
    k.scalar("b", b)
    k.scalar("R", R)
    inner = r.choice(["range(i, b)", "range(0, b, 2)", "range(b - 1, i - 1, -1)" if False
                      else "range(i + 1, b + 1)"])
    k.line("acc = tl.zeros((BLOCK,), dtype=tl.int32)",
           "facc = tl.zeros((BLOCK,), dtype=tl.float32)",
           "tot = tl.zeros((1,), dtype=tl.int64)",
           "for i in range(0, a):",
           f"    for j in {inner}:",
           "        row = (i + j) % R",
           "        x = tl.load(x_ptr + row * n + offs, mask=mask, other=0)",
           "        acc = acc * 3 + (x ^ (i - j))",
           "        facc = facc + tl.load(f_ptr + row * n + offs, mask=mask, other=0.0)",
           "        tot += i * 10 + j",
           "tl.store(out0_ptr + offs, acc, mask=mask)",
           "tl.store(out1_ptr + offs, facc, mask=mask)",
           "tl.store(out2_ptr + pid + tl.arange(0, 1), tot)")
    k.out("out0_ptr", (n,), "int32")
    k.out("out1_ptr", (n,), "float32")
    k.out("out2_ptr", (k.grid[0],), "int64")


def t_while_collatz(k, r):
    P = r.randint(1, 12)
    B = r.choice([8, 16])
    k.const("BLOCK", B)
    k.const("LIMIT", r.choice([20, 60, 150]))
    k.grid = (P,)
    k.inp("v_ptr", ints(r, (P,), "int32", 1, 1000), "int32")
    k.line("pid = tl.program_id(0)",
           "v = tl.load(v_ptr + pid)",
           "steps = pid * 0",
           "blk = tl.arange(0, BLOCK)",
           "while (v != 1) & (steps < LIMIT):")
    if r.random() < 0.5:
        k.line("    if v % 2 == 0:",
               "        v = v // 2",
               "    else:",
               "        v = 3 * v + 1")
    else:
        k.line("    v = tl.where(v % 2 == 0, v // 2, 3 * v + 1)")
    k.line("    steps += 1",
           "    blk = blk * 5 + v",
           "tl.store(out0_ptr + pid, v)",
           "tl.store(out1_ptr + pid, steps)",
           "tl.store(out2_ptr + pid * BLOCK + tl.arange(0, BLOCK), blk)")
    k.out("out0_ptr", (P,), "int32")
    k.out("out1_ptr", (P,), "int32")
    k.out("out2_ptr", (P * B,), "int32")


def t_while_float(k, r):
    B = r.choice([16, 32])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    k.inp("x_ptr", grid_floats(r, (n,), "float32"), "float32")
    thr = r.choice([3.0, 10.5, 40.0, -1.0])
    k.scalar("thr", thr)
    k.line("x = tl.abs(tl.load(x_ptr + offs, mask=mask, other=0.0)) + 0.25",
           "s = tl.sum(x, axis=0) * 0.0",
           "it = pid * 0",
           "acc = tl.zeros((BLOCK,), dtype=tl.float32)",
           "while (s < thr) & (it < 64):",
           "    s += tl.max(x, axis=0)",
           "    acc = acc + x",
           "    it += 1",
           "tl.store(out0_ptr + pid, s)",
           "tl.store(out1_ptr + pid, it)",
           "tl.store(out2_ptr + offs, acc, mask=mask)")
    k.out("out0_ptr", (k.grid[0],), "float32")
    k.out("out1_ptr", (k.grid[0],), "int32")
    k.out("out2_ptr", (n,), "float32")


def t_binsearch(k, r):
    n = r.randint(1, 300)
    P = r.randint(1, 16)
    k.grid = (P,)
    data = np.sort(ints(r, (n,), "int32", -500, 500))
    k.inp("s_ptr", data, "int32")
    k.inp("q_ptr", ints(r, (P,), "int32", -520, 520), "int32")
    k.scalar("n", n)
    k.line("pid = tl.program_id(0)",
           "key = tl.load(q_ptr + pid)",
           "lo = pid * 0",
           "hi = lo + n",
           "it = pid * 0",
           "while lo < hi:",
           "    mid = (lo + hi) // 2",
           "    v = tl.load(s_ptr + mid)",
           "    if v < key:",
           "        lo = mid + 1",
           "    else:",
           "        hi = mid",
           "    it += 1",
           "tl.store(out0_ptr + pid, lo)",
           "tl.store(out1_ptr + pid, it)")
    k.out("out0_ptr", (P,), "int32")
    k.out("out1_ptr", (P,), "int32")


def t_if_else(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    xdt = r.choice(["int32", "int16", "int64", "float32", "float16"])
    isf = gen.is_float(xdt)
    k.inp("x_ptr", grid_floats(r, (n,), xdt) if isf else ints(r, (n,), xdt, -3000, 3000), xdt)
    k.inp("flag_ptr", ints(r, (k.grid[0],), "int32", -2, 2), "int32")
    s = r.randint(-3, 3)
    k.scalar("s", s)
    cond = r.choice(["s > 0", "pid % 2 == 0", "tl.load(flag_ptr + pid) > 0", "(s > 0) & (pid > 0)"])
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0)",
           "w = x * 2",
           f"if {cond}:",
           "    y = x * 2 + 1",
           "    z = x.to(tl.float32) * 0.5",
           "    w = w - 3",
           "elif tl.load(flag_ptr + pid) == 0:",
           "    y = (x - s).to(x.dtype)",
           "    z = -x.to(tl.float32)",
           "else:",
           "    y = tl.where(x > 0, x, 7)",
           "    z = x.to(tl.float32) + s",
           "tl.store(out0_ptr + offs, y, mask=mask)",
           "tl.store(out1_ptr + offs, z, mask=mask)",
           "tl.store(out2_ptr + offs, w, mask=mask)")
    k.out("out0_ptr", (n,), "float32" if isf else "int64")
    k.out("out1_ptr", (n,), "float32")
    k.out("out2_ptr", (n,), "float32" if isf else "int64")


def t_early_return(k, r):
    B = r.choice([16, 32])
    n = r.randint(1, 5 * B)
    k.std1d(B, n)
    k.inp("x_ptr", ints(r, (n,), "int32", -100, 100), "int32")
    k.inp("flag_ptr", ints(r, (k.grid[0],), "int32", 0, 2), "int32")
    cond = r.choice(["tl.load(flag_ptr + pid) == 1", "s < 0", "tl.load(flag_ptr + pid) + s > 1"])
    k.scalar("s", r.randint(-2, 2))
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0)",
           f"if {cond}:",
           "    tl.store(out0_ptr + offs, x * 2, mask=mask)",
           "    return",
           "tl.store(out0_ptr + offs, x + 1, mask=mask)",
           "tl.store(out1_ptr + offs, x * x - s, mask=mask)")
    k.out("out0_ptr", (n,), "int32")
    k.out("out1_ptr", (n,), "int32")


HELPERS = '''@triton.jit
def _pair(a, b, K: tl.constexpr):
    return a + b * K, a * b - K


@triton.jit
def _mix(a, s, SHIFT: tl.constexpr = 3):
    u, v = _pair(a, s, 5)
    return tl.where(u > v, u, v) ^ (a << SHIFT)


@triton.jit
def _step(acc, lo, x):
    return acc * 3 + x, tl.minimum(lo, x)
'''


def t_helpers(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 3 * B)
    rows = r.randint(1, 5)
    k.std1d(B, n)
    xdt = r.choice(["int32", "int64", "int16"])
    k.inp("x_ptr", ints(r, (rows, n), xdt), xdt)
    k.scalar("s", r.randint(-9, 9))
    k.scalar("m", r.randint(0, rows))
    k.helpers.append(HELPERS)
    sh = r.choice(["", ", 2", ", SHIFT=7"])
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0)",
           "p, q = _pair(x, s, 3)",
           f"y = _mix(x, s{sh})",
           "acc = tl.zeros((BLOCK,), dtype=tl.int32)",
           "lo = tl.full((BLOCK,), 2147483647, dtype=tl.int32)",
           "for i in range(0, m):",
           "    xi = tl.load(x_ptr + i * n + offs, mask=mask, other=0).to(tl.int32)",
           "    acc, lo = _step(acc, lo, xi)",
           "tl.store(out0_ptr + offs, p, mask=mask)",
           "tl.store(out1_ptr + offs, q, mask=mask)",
           "tl.store(out2_ptr + offs, y, mask=mask)",
           "tl.store(out3_ptr + offs, acc, mask=mask)",
           "tl.store(out4_ptr + offs, lo, mask=mask)")
    for j in range(3):
        k.out(f"out{j}_ptr", (n,), "int64")
    k.out("out3_ptr", (n,), "int32")
    k.out("out4_ptr", (n,), "int32")


COMBINES = '''@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    pick = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(pick, v1, v2), tl.where(pick, i1, i2)


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _xor_combine(a, b):
    return a ^ b


@triton.jit
def _welford_combine(m1, s1, n1, m2, s2, n2):
    n = n1 + n2
    w = tl.where(n == 0, 0.0, n2 / tl.where(n == 0, 1.0, n))
    d = m2 - m1
    return m1 + d * w, s1 + s2 + d * d * n1 * w, n


@triton.jit
def _affine_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)
'''


def t_reduce_custom(k, r):
    BM, BN = r.choice([(4, 16), (8, 8), (16, 32), (2, 64), (32, 4)])
    R, C = r.randint(1, 2 * BM), r.randint(1, BN)
    k.const("BM", BM)
    k.const("BN", BN)
    k.scalar("R", R)
    k.scalar("C", C)
    k.grid = ((R + BM - 1) // BM,)
    k.helpers.append(COMBINES)
    vdt = r.choice(["int32", "int8", "float32", "float16", "uint8"])
    isf = gen.is_float(vdt)
    if isf:
        xarr = grid_floats(r, (R, C), vdt, 40)
    elif r.random() < 0.5:
        xarr = ints(r, (R, C), vdt)
    else:
        xarr = ints(r, (R, C), vdt, 0, 9)
    k.inp("x_ptr", xarr, vdt)
    axis = r.choice([0, 1])
    keep = r.random() < 0.3
    kd = ", keep_dims=True" if keep else ""
    other = "-1000.0" if isf else "0"
    k.line("pid = tl.program_id(0)",
           "rows = pid * BM + tl.arange(0, BM)",
           "cols = tl.arange(0, BN)",
           "mask = (rows[:, None] < R) & (cols[None, :] < C)",
           f"x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=mask, other={other})",
           "idx = tl.broadcast_to("
           + ("rows[:, None]" if axis == 0 else "cols[None, :]") + ", (BM, BN))",
           f"v, i = tl.reduce((x, idx), {axis}, _argmax_combine{kd})",
           "p = tl.reduce(tl.where(mask, x.to(tl.int32) | 1, 1), "
           f"{axis}, _mul_combine{kd})" if not isf else
           f"p = tl.reduce(tl.where(mask, x, 1.0), {axis}, _max_combine{kd})",
           f"q = tl.reduce(x.to(tl.int32), {axis}, _xor_combine{kd})" if not isf else
           f"q = tl.reduce(x, {axis}, _max_combine{kd})",
           "xf = tl.where(mask, x.to(tl.float32), 0.0)",
           "ones = tl.where(mask, 1.0, 0.0)",
           f"mean, m2, cnt = tl.reduce((xf, xf * 0.0, ones), {axis}, _welford_combine{kd})")
    L = BN if axis == 0 else BM
    ar = "tl.arange(0, BN)" if axis == 0 else "rows"
    if keep:
        k.line("v = tl.reshape(v, (%s,))" % ("BN" if axis == 0 else "BM"),
               "i = tl.reshape(i, (%s,))" % ("BN" if axis == 0 else "BM"),
               "p = tl.reshape(p, (%s,))" % ("BN" if axis == 0 else "BM"),
               "q = tl.reshape(q, (%s,))" % ("BN" if axis == 0 else "BM"),
               "mean = tl.reshape(mean, (%s,))" % ("BN" if axis == 0 else "BM"),
               "m2 = tl.reshape(m2, (%s,))" % ("BN" if axis == 0 else "BM"))
    P = k.grid[0]
    base = "pid * BN + " if axis == 0 else ""
    k.line(f"o = {base}{ar}")
    for j, nm in enumerate(["v", "i", "p", "q", "mean", "m2"]):
        k.line(f"tl.store(out{j}_ptr + o, {nm})")
    total = P * BN if axis == 0 else P * BM
    del L
    vout = "float32" if isf else "int32"
    k.out("out0_ptr", (total,), vout)
    k.out("out1_ptr", (total,), "int32")
    k.out("out2_ptr", (total,), vout)
    k.out("out3_ptr", (total,), vout)
    k.out("out4_ptr", (total,), "float32", 1e-4)
    k.out("out5_ptr", (total,), "float32", 1e-4)


def t_scan_custom(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 2 * B)
    k.std1d(B, n)
    k.helpers.append(COMBINES)
    k.inp("a_ptr", ints(r, (n,), "int32"), "int32")
    k.inp("b_ptr", ints(r, (n,), "int32"), "int32")
    vals = np.array([-1.0, 1.0, 2.0, 0.5], dtype=np.float32)
    k.inp("f_ptr", vals[ints(r, (n,), "int32", 0, 3)], "float32")
    rev = r.choice(["", ", reverse=True"])
    rev2 = r.choice(["", ", reverse=True"])
    k.line("a = tl.load(a_ptr + offs, mask=mask, other=1)",
           "b = tl.load(b_ptr + offs, mask=mask, other=0)",
           "f = tl.load(f_ptr + offs, mask=mask, other=1.0)",
           f"sa, sb = tl.associative_scan((a, b), 0, _affine_combine{rev})",
           f"cp = tl.cumprod(f, 0{rev2})",
           f"cpi = tl.cumprod(a | 1, axis=0{rev})",
           f"cm = tl.associative_scan(b, 0, _max_combine{rev2})",
           f"cs = tl.cumsum(b, 0{rev})",
           "tl.store(out0_ptr + offs, sa, mask=mask)",
           "tl.store(out1_ptr + offs, sb, mask=mask)",
           "tl.store(out2_ptr + offs, cp, mask=mask)",
           "tl.store(out3_ptr + offs, cpi, mask=mask)",
           "tl.store(out4_ptr + offs, cm, mask=mask)",
           "tl.store(out5_ptr + offs, cs, mask=mask)")
    for j, dt in enumerate(["int32", "int32", "float32", "int32", "int32", "int32"]):
        k.out(f"out{j}_ptr", (n,), dt)


def t_scan_2d(k, r):
    BM, BN = r.choice([(4, 16), (8, 8), (16, 4), (2, 32)])
    k.const("BM", BM)
    k.const("BN", BN)
    k.grid = (1,)
    k.helpers.append(COMBINES)
    k.inp("a_ptr", ints(r, (BM, BN), "int64"), "int64")
    k.inp("b_ptr", ints(r, (BM, BN), "int64"), "int64")
    k.inp("g_ptr", grid_floats(r, (BM, BN), "float32"), "float32")
    axis = r.choice([0, 1])
    rev = r.choice(["", ", reverse=True"])
    k.line("o = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]",
           "a = tl.load(a_ptr + o)",
           "b = tl.load(b_ptr + o)",
           "g = tl.load(g_ptr + o)",
           f"sa, sb = tl.associative_scan((a, b), {axis}, _affine_combine{rev})",
           f"cg = tl.cumsum(g, axis={axis}{rev})",
           f"mg = tl.associative_scan(g, {axis}, _max_combine{rev})",
           "tl.store(out0_ptr + o, sa)",
           "tl.store(out1_ptr + o, sb)",
           "tl.store(out2_ptr + o, cg)",
           "tl.store(out3_ptr + o, mg)")
    for j, dt in enumerate(["int64", "int64", "float32", "float32"]):
        k.out(f"out{j}_ptr", (BM, BN), dt)


def t_sort_flip(k, r):
    two = r.random() < 0.5
    dt = r.choice(["int32", "float32", "int16", "uint8", "float16", "int64"])
    isf = gen.is_float(dt)
    desc = r.choice(["", ", descending=True", ", descending=False"])
    if two:
        BM, BN = r.choice([(4, 16), (8, 8), (2, 32)])
        k.const("BM", BM)
        k.const("BN", BN)
        shape = (BM, BN)
        k.line("o = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]")
        d = r.choice(["None", "1"])
        fd = "1"
    else:
        B = r.choice([16, 32, 64, 128])
        k.const("BM", B)
        shape = (B,)
        k.line("o = tl.arange(0, BM)")
        d, fd = r.choice(["None", "0"]), "0"
    x = grid_floats(r, shape, dt, 300) if isf else ints(r, shape, dt)
    k.inp("x_ptr", x, dt)
    k.line("x = tl.load(x_ptr + o)",
           f"s = tl.sort(x, {d}{desc})" if d != "None" else f"s = tl.sort(x{desc})",
           f"f = tl.flip(x, {fd})",
           f"sf = tl.flip(tl.sort(x{desc}), {fd})",
           "tl.store(out0_ptr + o, s)",
           "tl.store(out1_ptr + o, f)",
           "tl.store(out2_ptr + o, sf)")
    for j in range(3):
        k.out(f"out{j}_ptr", shape, dt)


def t_gather_hist(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    NB = r.choice([4, 8, 16, 32])
    k.const("NB", NB)
    xdt = r.choice(["int32", "int64", "int8"])
    k.inp("x_ptr", ints(r, (n,), xdt), xdt)
    k.inp("v_ptr", grid_floats(r, (n,), "float32"), "float32")
    hm = r.choice(["", ", mask=mask"])
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0)",
           "v = tl.load(v_ptr + offs, mask=mask, other=0.0)",
           "idx = (x & (BLOCK - 1)).to(tl.int32)",
           "g = tl.gather(v, idx, 0)",
           "bins = (x & (NB - 1)).to(tl.int32)",
           f"h = tl.histogram(bins, NB{hm})",
           "tl.store(out0_ptr + offs, g, mask=mask)",
           "tl.store(out1_ptr + pid * NB + tl.arange(0, NB), h)")
    k.out("out0_ptr", (n,), "float32")
    k.out("out1_ptr", (k.grid[0] * NB,), "int32")
    if r.random() < 0.6:
        BM, BN = r.choice([(4, 8), (8, 4), (2, 16)])
        k.const("BM", BM)
        k.const("BN", BN)
        k.inp("m_ptr", ints(r, (BM, BN), "int32", -50, 50), "int32")
        k.inp("j_ptr", ints(r, (BM, 2 * BN), "int32", 0, BN - 1), "int32")
        k.line("o2 = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]",
               "oj = tl.arange(0, BM)[:, None] * (2 * BN) + tl.arange(0, 2 * BN)[None, :]",
               "m2 = tl.load(m_ptr + o2)",
               "j2 = tl.load(j_ptr + oj)",
               "g2 = tl.gather(m2, j2, 1)",
               "tl.store(out2_ptr + oj, g2, mask=pid == 0)")
        k.out("out2_ptr", (BM, 2 * BN), "int32")


def t_join_split(k, r):
    B = r.choice([8, 16, 32])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    dt = r.choice(["int32", "float16", "int8", "float32", "bfloat16"])
    isf = gen.is_float(dt)
    for nm in ("a", "b"):
        k.inp(f"{nm}_ptr", grid_floats(r, (n,), dt) if isf else ints(r, (n,), dt), dt)
    k.line("a = tl.load(a_ptr + offs, mask=mask, other=0)",
           "b = tl.load(b_ptr + offs, mask=mask, other=0)",
           "j = tl.join(a, b)",
           "p, q = tl.split(tl.permute(tl.join(j, j * 2), (0, 2, 1)).reshape(BLOCK * 2, 2))",
           "il = tl.interleave(a, b)",
           "o2 = pid * 2 * BLOCK + tl.arange(0, 2 * BLOCK)",
           "m2 = o2 < 2 * n",
           "tl.store(out0_ptr + o2, il, mask=m2)",
           "tl.store(out1_ptr + o2, p, mask=m2)",
           "tl.store(out2_ptr + o2, q, mask=m2)",
           "u, w = tl.split(j)",
           "tl.store(out3_ptr + offs, u - w, mask=mask)")
    for j in range(4):
        k.out(f"out{j}_ptr", (2 * n,) if j < 3 else (n,), dt)


def t_3d(k, r):
    A, Bb, C = r.choice([(2, 4, 8), (4, 4, 4), (8, 2, 4), (2, 8, 2), (4, 2, 8)])
    B = A * Bb * C
    n = r.randint(1, 2 * B)
    k.std1d(B, n)
    k.const("A", A)
    k.const("BB", Bb)
    k.const("C", C)
    dt = r.choice(["int32", "float32", "int16"])
    isf = gen.is_float(dt)
    k.inp("x_ptr", grid_floats(r, (n,), dt) if isf else ints(r, (n,), dt, -1000, 1000), dt)
    perm = r.choice([(2, 0, 1), (1, 2, 0), (0, 2, 1), (2, 1, 0)])
    shp = tuple(["A", "BB", "C"][p] for p in perm)
    ax = r.choice([0, 1, 2])
    red = r.choice(["sum", "max", "min"])
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0)",
           "x3 = tl.reshape(x, (A, BB, C))",
           f"y = tl.permute(x3, {perm})",
           "z = tl.ravel(y)",
           f"back = tl.reshape(tl.permute(tl.reshape(z, ({', '.join(shp)})), "
           f"{tuple(perm.index(i) for i in range(3))}), (BLOCK,))",
           "w = tl.broadcast_to(tl.reshape(tl.arange(0, BB), (1, BB, 1)), (A, BB, C))",
           f"t = tl.{red}(x3 + w.to(x3.dtype), axis={ax})",
           "tl.store(out0_ptr + offs, z, mask=mask)",
           "tl.store(out1_ptr + offs, back - x, mask=mask)",
           "tl.store(out2_ptr + pid * BLOCK + tl.arange(0, BLOCK), "
           "tl.ravel(tl.trans(x3, 2, 0, 1)))")
    dims = [A, Bb, C]
    rest = [d for i, d in enumerate(dims) if i != ax]
    names = [nm for i, nm in enumerate(["A", "BB", "C"]) if i != ax]
    k.line(f"tl.store(out3_ptr + pid * {rest[0] * rest[1]} + tl.arange(0, {names[0]})[:, None] * "
           f"{names[1]} + tl.arange(0, {names[1]})[None, :], t)")
    k.out("out0_ptr", (n,), dt)
    k.out("out1_ptr", (n,), dt)
    k.out("out2_ptr", (k.grid[0] * B,), dt)
    tdt = dt if red != "sum" and isf else ("float32" if isf else "int32")
    if red != "sum" and not isf:
        tdt = "int32"
    k.out("out3_ptr", (k.grid[0] * rest[0] * rest[1],), tdt)


def t_where_scalar(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    xdt = r.choice(["int32", "int8", "int64", "float32", "float16", "uint8"])
    isf = gen.is_float(xdt)
    k.inp("x_ptr", grid_floats(r, (n,), xdt) if isf else ints(r, (n,), xdt), xdt)
    sv = r.choice([3, -5, 2**33 + 5, 0, 7]) if not isf else r.choice([0.5, -2.25, 3.0])
    k.scalar("s", sv)
    lit = r.choice(["1", "-1", "2.5", "True"]) if not isf else r.choice(["1.5", "0", "-3.0"])
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0)",
           "a = tl.where(x > s, s, x)",
           "b = tl.where(s > 0, x, 0)",
           f"c = tl.where(mask, {lit}, x)",
           f"d = tl.where(offs % 3 == 0, s, {lit})",
           "tl.store(out0_ptr + offs, a, mask=mask)",
           "tl.store(out1_ptr + offs, b, mask=mask)",
           "tl.store(out2_ptr + offs, c, mask=mask)",
           "tl.store(out3_ptr + offs, d, mask=mask)",
           "tl.store(meta_ptr + 0, a.dtype.primitive_bitwidth * 4 + a.dtype.is_floating() * 2)",
           "tl.store(meta_ptr + 1, c.dtype.primitive_bitwidth * 4 + c.dtype.is_floating() * 2)",
           "tl.store(meta_ptr + 2, d.dtype.primitive_bitwidth * 4 + d.dtype.is_floating() * 2)")
    for j in range(4):
        k.out(f"out{j}_ptr", (n,), "float64" if isf or j >= 2 else "int64")
    k.out("meta_ptr", (3,), "int32")


def t_int_wrap(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    dt = r.choice(["int32", "int64", "int8", "int16", "uint8"])
    w = gen.BITS[dt]
    k.inp("a_ptr", ints(r, (n,), dt), dt)
    k.inp("b_ptr", ints(r, (n,), dt), dt)
    sh = r.randint(0, w - 1)
    k.line("a = tl.load(a_ptr + offs, mask=mask, other=0)",
           "b = tl.load(b_ptr + offs, mask=mask, other=0)",
           "s1 = a + b",
           "s2 = a * b",
           "s3 = a - b * 3",
           f"s4 = a << {sh}",
           f"s5 = a << (b & {w - 1})",
           f"s6 = a >> (b & {w - 1})",
           "s7 = -a",
           "s8 = (a * b) // 7",
           "s9 = (a * b) % 5")
    outs = ["s%d" % i for i in range(1, 10)]
    if dt in ("int32", "int64"):
        k.line(f"ua = a.to({TL['uint32']})" if dt == "int32" else "ua = a",
               f"ub = b.to({TL['uint32']})" if dt == "int32" else "ub = b",
               "c1 = ((ua < ub).to(tl.int32) * 2 + (a < b).to(tl.int32))",
               f"c2 = ua >> {sh}",
               "c3 = (ua * ub) // 3",
               "c4 = tl.abs(a)")
        outs += ["c1", "c2", "c3", "c4"]
    for j, nm in enumerate(outs):
        k.line(f"tl.store(out{j}_ptr + offs, {nm}, mask=mask)")
        # -a of the type's minimum is stored in its own type: widened at the store, an H100
        # gave 32768 for int16's -(-32768) (the negation is not wrapped there).
        k.out(f"out{j}_ptr", (n,), dt if nm == "s7" else "int64")


def t_f16_arith(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    dt = r.choice(["float16", "bfloat16"])
    sp = r.random() < 0.4
    for nm in "abc":
        if dt == "float16":
            arr = wide_floats(r, (n,), dt, -16, 15, specials=sp)
        else:
            arr = wide_floats(r, (n,), dt, -60, 60, specials=sp)
        k.inp(f"{nm}_ptr", arr, dt)
    k.line("a = tl.load(a_ptr + offs, mask=mask, other=0)",
           "b = tl.load(b_ptr + offs, mask=mask, other=0)",
           "c = tl.load(c_ptr + offs, mask=mask, other=0)",
           "r1 = a * b + c",
           "r2 = a - b * 0.5",
           "r3 = (a + b) * (a - c)",
           "r4 = tl.maximum(a, b) - tl.minimum(b, c)",
           "r5 = (a.to(tl.float32) * b.to(tl.float32) + c.to(tl.float32))" + f".to({TL[dt]})",
           "r6 = a * 3.0 + 1.0")
    for j in range(6):
        k.line(f"tl.store(out{j}_ptr + offs, r{j + 1}, mask=mask)")
        k.out(f"out{j}_ptr", (n,), dt)


def t_convert(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 3 * B)
    k.std1d(B, n)
    k.inp("f_ptr", wide_floats(r, (n,), "float32", -30, 20, specials=True), "float32")
    k.inp("d_ptr", wide_floats(r, (n,), "float64", -40, 40, specials=r.random() < 0.5), "float64")
    k.inp("i_ptr", ints(r, (n,), "int64"), "int64")
    k.inp("j_ptr", ints(r, (n,), "int32"), "int32")
    k.inp("g_ptr", grid_floats(r, (n,), "float32", 1024), "float32")
    k.line("f = tl.load(f_ptr + offs, mask=mask, other=0.0)",
           "d = tl.load(d_ptr + offs, mask=mask, other=0.0)",
           "i = tl.load(i_ptr + offs, mask=mask, other=0)",
           "j = tl.load(j_ptr + offs, mask=mask, other=0)",
           "g = tl.load(g_ptr + offs, mask=mask, other=0.0)",
           "tl.store(out0_ptr + offs, f.to(tl.float16), mask=mask)",
           "tl.store(out1_ptr + offs, f.to(tl.bfloat16), mask=mask)",
           "tl.store(out2_ptr + offs, d.to(tl.float32), mask=mask)",
           "tl.store(out3_ptr + offs, i.to(tl.float32), mask=mask)",
           "tl.store(out4_ptr + offs, i.to(tl.float64), mask=mask)",
           "tl.store(out5_ptr + offs, j.to(tl.float32), mask=mask)",
           "tl.store(out6_ptr + offs, j.to(tl.uint32).to(tl.float32), mask=mask)",
           "tl.store(out7_ptr + offs, (g * 1000.0).to(tl.int32), mask=mask)",
           "tl.store(out8_ptr + offs, (j >> 16).to(tl.int16).to(tl.float16), mask=mask)",
           "tl.store(out9_ptr + offs, i.to(tl.int32).to(tl.int8), mask=mask)")
    for j, dt in enumerate(["float16", "bfloat16", "float32", "float32", "float64", "float32",
                            "float32", "int32", "float16", "int8"]):
        k.out(f"out{j}_ptr", (n,), dt)


def t_block_ptr(k, r):
    BM, BN = r.choice([(4, 8), (8, 16), (16, 4), (2, 32), (16, 16)])
    R, C = r.randint(1, 3 * BM), r.randint(1, 4 * BN)
    k.const("BM", BM)
    k.const("BN", BN)
    k.scalar("R", R)
    k.scalar("C", C)
    k.grid = ((R + BM - 1) // BM,)
    dt = r.choice(["int32", "float32", "float16", "int8"])
    isf = gen.is_float(dt)
    k.inp("x_ptr", grid_floats(r, (R, C), dt, 200) if isf else ints(r, (R, C), dt, -100, 100), dt)
    pad = r.choice(['"zero"', '"nan"']) if isf else '"zero"'
    adt = "tl.float32" if isf else "tl.int32"
    k.line("pid = tl.program_id(0)",
           "bp = tl.make_block_ptr(base=x_ptr, shape=(R, C), strides=(C, 1), "
           "offsets=(pid * BM, 0), block_shape=(BM, BN), order=(1, 0))",
           f"acc = tl.zeros((BM, BN), dtype={adt})",
           f"mx = tl.full((BM, BN), -1000, dtype={adt})",
           "for kk in range(0, tl.cdiv(C, BN)):",
           f"    t = tl.load(bp, boundary_check=(0, 1), padding_option={pad})",
           f"    acc += t.to({adt})",
           f"    mx = tl.maximum(mx, tl.where(t == t, t, 0).to({adt}))",
           "    bp = tl.advance(bp, (0, BN))",
           "ob = tl.make_block_ptr(out0_ptr, (R, BN), (BN, 1), (pid * BM, 0), (BM, BN), (1, 0))",
           "tl.store(ob, acc, boundary_check=(0, 1))",
           "ob2 = tl.make_block_ptr(out1_ptr, shape=(R, BN), strides=(BN, 1), "
           "offsets=(pid * BM, 0), block_shape=(BM, BN), order=(1, 0))",
           "tl.store(ob2, mx, boundary_check=(0,))",
           "tb = tl.make_block_ptr(x_ptr, (C, R), (1, C), (0, pid * BM), (BN, BM), (0, 1))",
           f"tt = tl.load(tb, boundary_check=(0, 1), padding_option={pad})",
           "ob3 = tl.make_block_ptr(out2_ptr, (BN, R), (R, 1), (0, pid * BM), (BN, BM), (1, 0))",
           "tl.store(ob3, tt, boundary_check=(0, 1))")
    odt = "float32" if isf else "int32"
    k.out("out0_ptr", (R, BN), odt)
    k.out("out1_ptr", (R, BN), odt)
    k.out("out2_ptr", (BN, R), dt)


def t_atomics(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 4 * B)
    k.std1d(B, n)
    NB = r.choice([1, 4, 8, 16])
    k.const("NB", NB)
    k.inp("x_ptr", ints(r, (n,), "int32"), "int32")
    k.inp("y_ptr", ints(r, (n,), "int32", -1000000, 10**6), "int32")
    k.inp("g_ptr", grid_floats(r, (n,), "float32"), "float32")
    k.inp("w_ptr", wide_floats(r, (n,), "float32", -20, 20), "float32")
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0)",
           "y = tl.load(y_ptr + offs, mask=mask, other=0)",
           "g = tl.load(g_ptr + offs, mask=mask, other=0.0)",
           "w = tl.load(w_ptr + offs, mask=mask, other=0.0)",
           "bins = x & (NB - 1)",
           "tl.atomic_add(out0_ptr + bins, 1, mask=mask)",
           "tl.atomic_add(out1_ptr + bins, y, mask=mask)",
           "tl.atomic_max(out2_ptr + bins, y, mask=mask)",
           "tl.atomic_min(out3_ptr + bins, y, mask=mask)",
           "tl.atomic_max(out4_ptr + bins, w, mask=mask)",
           "tl.atomic_min(out5_ptr + bins, w, mask=mask)",
           "tl.atomic_add(out6_ptr + bins, g, mask=mask)",
           "tl.atomic_or(out7_ptr + bins, x, mask=mask)",
           "tl.atomic_xor(out8_ptr + bins, y, mask=mask)",
           "tl.atomic_and(out9_ptr + bins, x | 0x10101, mask=mask & (y > 0))",
           "tl.atomic_add(out10_ptr + bins, x.to(tl.int64) * 3, mask=mask)")
    dts = ["int32", "int32", "int32", "int32", "float32", "float32", "float32", "int32",
           "int32", "int32", "int64"]
    for j, dt in enumerate(dts):
        init = None
        if j in (2, 3):
            init = ints(r, (NB,), "int32", -2 * 10**6, 2 * 10**6)
        elif j in (4, 5):
            init = wide_floats(r, (NB,), "float32", -20, 20)
        elif j == 9:
            init = ints(r, (NB,), "int32")
        k.out(f"out{j}_ptr", (NB,), dt, 0.0, init)


def t_atomic_xchg_cas(k, r):
    B = r.choice([16, 32])
    nprog = r.randint(1, 4)
    n = B * nprog
    full = r.random() < 0.5
    nn = n if full else r.randint(1, n)
    k.std1d(B, nn, nprog)
    perm = np.array(r.sample(range(nn), nn) + list(range(nn, n)), dtype=np.int32)
    init = ints(r, (n,), "int32", -50, 50)
    k.inp("p_ptr", perm, "int32")
    k.inp("v_ptr", ints(r, (n,), "int32", -1000, 1000), "int32")
    cmp = init[perm].copy()
    flip = ints(r, (n,), "int32", 0, 1).astype(bool)
    cmp[flip] += 1
    k.inp("c_ptr", cmp, "int32")
    fdt = r.choice(["float32", "int64"])
    farr = grid_floats(r, (n,), "float32") if fdt == "float32" else ints(r, (n,), "int64")
    k.inp("f_ptr", farr, fdt)
    sem = r.choice(["", ', sem="relaxed"', ', sem="acq_rel"'])
    k.line("p = tl.load(p_ptr + offs)",
           "v = tl.load(v_ptr + offs)",
           "c = tl.load(c_ptr + offs)",
           "f = tl.load(f_ptr + offs)",
           f"old = tl.atomic_xchg(out0_ptr + p, v, mask=mask{sem})",
           "tl.store(out1_ptr + offs, old, mask=mask)",
           f"o2 = tl.atomic_cas(out2_ptr + p, c, v{sem})",
           "tl.store(out3_ptr + offs, o2)",
           "o3 = tl.atomic_xchg(out4_ptr + p, f, mask=mask)",
           "tl.store(out5_ptr + offs, o3, mask=mask)")
    k.out("out0_ptr", (n,), "int32", 0.0, init.copy())
    k.out("out1_ptr", (n,), "int32")
    k.out("out2_ptr", (n,), "int32", 0.0, init.copy())
    k.out("out3_ptr", (n,), "int32")
    k.out("out4_ptr", (n,), fdt, 0.0, (init * 2).astype(np.dtype(fdt)))
    k.out("out5_ptr", (n,), fdt)


def t_program_ids(k, r):
    g = r.choice([(2, 3, 1), (1, 2, 4), (3, 1, 2), (2, 2, 2), (4, 3), (5,), (1, 1, 3)])
    g = tuple(g)
    nd = len(g)
    B = r.choice([4, 8, 16])
    k.const("BLOCK", B)
    k.grid = g
    tot = int(np.prod(g))
    k.inp("x_ptr", ints(r, (tot * B,), "int32", -100, 100), "int32")
    for a in range(3):
        if a < nd:
            k.line(f"p{a} = tl.program_id({a})", f"n{a} = tl.num_programs({a})")
        else:
            k.line(f"p{a} = 0", f"n{a} = 1")
    k.line("idx = (p0 * n1 + p1) * n2 + p2",
           "o = idx * BLOCK + tl.arange(0, BLOCK)",
           "x = tl.load(x_ptr + o)",
           "v = x + idx * 1000 + n0 * 100 + n1 * 10 + n2",
           "tl.store(out0_ptr + o, v)",
           "tl.store(out1_ptr + idx, p0 * 10000 + p1 * 100 + p2)")
    if nd >= 2:
        k.line("if p1 == n1 - 1:",
               "    tl.atomic_add(out2_ptr + p0, tl.sum(x, axis=0))")
    k.out("out0_ptr", (tot * B,), "int32")
    k.out("out1_ptr", (tot,), "int32")
    k.out("out2_ptr", (g[0],), "int32")


def t_loop_if(k, r):
    B = r.choice([16, 32, 64])
    n = r.randint(1, 2 * B)
    rows = r.randint(1, 9)
    k.std1d(B, n)
    xdt = r.choice(["int32", "uint8", "int64"])
    k.inp("x_ptr", ints(r, (rows, n), xdt), xdt)
    k.inp("f_ptr", grid_floats(r, (rows, n), "float16"), "float16")
    k.scalar("m", rows)
    k.scalar("t", r.randint(-2, 4))
    k.line(f"acc = tl.zeros((BLOCK,), dtype={TL[xdt]})",
           "h = tl.zeros((BLOCK,), dtype=tl.float16)",
           "b = tl.zeros((BLOCK,), dtype=tl.int1)",
           "tot = tl.program_id(0).to(tl.int64) * 0",
           "for i in range(0, m):",
           "    x = tl.load(x_ptr + i * n + offs, mask=mask, other=0)",
           "    f = tl.load(f_ptr + i * n + offs, mask=mask, other=0.0)",
           "    if i % 3 == 0:",
           "        acc = acc + x",
           "        h = h + f",
           "    elif i < t:",
           "        acc = acc ^ x",
           "        h = h - f * 2.0",
           "    else:",
           "        acc = acc - x * 3",
           "    b = b ^ (x > 0)",
           "    tot += tl.sum(x.to(tl.int64), axis=0)",
           "tl.store(out0_ptr + offs, acc, mask=mask)",
           "tl.store(out1_ptr + offs, h, mask=mask)",
           "tl.store(out2_ptr + offs, b, mask=mask)",
           "tl.store(out3_ptr + pid, tot)")
    k.out("out0_ptr", (n,), xdt)
    k.out("out1_ptr", (n,), "float16")
    k.out("out2_ptr", (n,), "bool")
    k.out("out3_ptr", (k.grid[0],), "int64")


def t_chunked_scan(k, r):
    B = r.choice([8, 16, 32])
    n = r.randint(1, 8 * B)
    k.const("BLOCK", B)
    k.scalar("n", n)
    k.grid = (1,)
    dt = r.choice(["int32", "float32", "int64"])
    isf = gen.is_float(dt)
    k.inp("x_ptr", grid_floats(r, (n,), dt) if isf else ints(r, (n,), dt, -10**5, 10**5), dt)
    zero = "0.0" if isf else "0"
    step = r.choice(["BLOCK", "BLOCK", "2 * BLOCK"])
    k.line(f"carry = tl.zeros((1,), dtype={TL[dt]})",
           f"best = tl.full((1,), -1000000, dtype={TL[dt]})",
           "nchunks = tl.program_id(0) * 0",
           f"for start in range(0, n, {step}):",
           "    offs = start + tl.arange(0, BLOCK)",
           "    mask = offs < n",
           f"    x = tl.load(x_ptr + offs, mask=mask, other={zero})",
           "    cs = tl.cumsum(x, axis=0) + carry",
           "    tl.store(out0_ptr + offs, cs, mask=mask)",
           "    carry += tl.sum(x, axis=0)",
           "    best = tl.maximum(best, tl.max(tl.where(mask, x, -1000000), axis=0))",
           "    nchunks += 1",
           "tl.store(out1_ptr + tl.arange(0, 1), carry)",
           "tl.store(out2_ptr + tl.arange(0, 1), best)",
           "tl.store(out3_ptr, nchunks)")
    k.out("out0_ptr", (n,), dt)
    k.out("out1_ptr", (1,), dt)
    k.out("out2_ptr", (1,), dt)
    k.out("out3_ptr", (1,), "int32")


TEMPLATES = [
    t_for_runtime, t_range_static, t_nested, t_while_collatz, t_while_float, t_binsearch,
    t_if_else, t_early_return, t_helpers, t_reduce_custom, t_scan_custom, t_scan_2d,
    t_sort_flip, t_gather_hist, t_join_split, t_3d, t_where_scalar, t_int_wrap, t_f16_arith,
    t_convert, t_block_ptr, t_atomics, t_atomic_xchg_cas, t_program_ids, t_loop_if,
    t_chunked_scan,
]


def generate(seed, fingerprint=True):
    """Kernel `seed` of the family (fingerprint is accepted for the interface of
    generator.generate and not used: templates store dtype facts themselves)."""
    template = TEMPLATES[seed % len(TEMPLATES)]
    rng = random.Random(seed * 104729 + 7)
    k = K(rng)
    template(k, rng)
    params = ([n for n, _, _ in k.inputs] + [o[0] for o in k.outputs]
              + [s for s, _ in k.scalars] + [f"{c}: tl.constexpr" for c in k.constexprs])
    src = ["import triton", "import triton.language as tl", "", ""]
    for h in k.helpers:
        src += h.rstrip("\n").split("\n") + ["", ""]
    src += ["@triton.jit", f"def kernel({', '.join(params)}):"]
    src += ["    " + ln for ln in k.body]
    case = CfCase(seed=seed, source="\n".join(src) + "\n", inputs=k.inputs, scalars=k.scalars,
                  outputs=k.outputs, grid=k.grid, constexprs=k.constexprs,
                  probe="")
    case.template = template.__name__[2:]
    case.inits = k.inits
    case.sizes = []
    case.size_names = []
    case.n_meta = 0
    return case


if __name__ == "__main__":
    import sys
    for s in (sys.argv[1:] or ["0"]):
        c = generate(int(s))
        print(c.source, c.grid, c.constexprs, [(n, a.dtype, a.shape) for n, a, _ in c.inputs],
              c.outputs, c.scalars)
