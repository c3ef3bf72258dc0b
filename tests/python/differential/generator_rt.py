"""Seeded random Triton kernels of the third family ("rt"): random numbers, math functions,
division and rounding helpers, casts and atomics returning their old value, for
differential testing like generator.py (df-1) and generator_cf.py (cf-2), which stay as
they are.

`generate(seed)` returns an `RtCase` (a generator_cf.CfCase with its own digest and
comparison): kernel k comes from template `TEMPLATES[k % len(TEMPLATES)]`, its dtypes,
sizes, functions and variants drawn from `random.Random(seed)`. Nothing here imports
torch or triton.

What the templates cover
------------------------
tl.randint / randint4x / rand / rand4x / randn / randn4x and tl.philox / philox_impl
with run-time int32 and int64 seeds (negative and large ones too), offsets of int32,
int64 and uint32 blocks (1-D and 2-D) and n_rounds variants; tl math functions and
triton.language.extra.libdevice functions over wide and special ranges in float32 and
float64; tl.fdiv (both ieee_rounding), tl.div_rn, tl.sqrt_rn, tl.fma, tl.umulhi
(int32, uint32, int64), tl.clamp, tl.cdiv on blocks, integer // and % with negative
operands and literal divisors, float % of exactly divisible values, NaN comparisons;
float -> int casts of in-range values, int -> float of large values, float32 <->
float16/bfloat16 (rounding, overflow, subnormals), float64 -> float32, fp8 (float8e4nv,
float8e5) from and to uint8 storage, bool <-> numbers; atomic add/xchg/cas/max/min/and/
or/xor returning the old value, one lane per address, with masks.

uint32 and uint64 data travel as int32 and int64 storage (bitcast in the kernel), fp8 as
uint8 storage: the torch of the dry run has neither.

Exactness. Integers (Philox is bit-exact by its specification) and exactly rounded
operations (casts, div_rn, sqrt_rn, fma, fmod, remainder, ieee fdiv) compare exactly;
tl.rand within 1 ulp; other floats within `n` ulps of the reference value or an absolute
floor, whichever is larger (an output's tol is ("ulp", n, floor)): the floor covers
results near a zero of the function and the GPU's flush of float32 subnormal results
(Triton links libdevice with flush-to-zero on), which is also why no float32 subnormal is
an input to a float32 math function. The approximate float32 tl.exp (ex2.approx of
x * log2(e)) gets a wider tolerance. NaN and infinities at the same places.

Undefined behaviour is avoided as in the other families: no division by zero or
INT_MIN / -1, no float -> int cast of a value out of range, no NaN through tl.clamp
unless propagate_nan=ALL, masked atomics' returned values are stored under the mask only.

Bump GENERATOR_VERSION whenever the output of generate() changes for any seed.
"""

import hashlib
import random

import numpy as np

import generator as gen
import generator_cf as cf

GENERATOR_VERSION = "rt-2"
COUNT = 150

TL = gen.TL
ints = cf.ints
grid_floats = cf.grid_floats
wide_floats = cf.wide_floats
F32_TINY = 1.1754943508222875e-38
F64_TINY = 2.2250738585072014e-308


class RtCase(cf.CfCase):
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
        h.update(repr((self.grid, sorted(self.constexprs.items()), self.outputs)).encode())
        return h.hexdigest()

    def compare(self, ref_outputs, outputs, limit=8):
        return compare(self, ref_outputs, outputs, limit)


def _f64(arr, dt):
    if dt == "bfloat16":
        return gen.bf16_bits_to_f32(arr).astype(np.float64)
    return np.asarray(arr).astype(np.float64)


def compare(case, ref_outputs, outputs, limit=8):
    """Integers exactly; floats: NaN and infinities at the same places, finite values within
    max(n * ulp(reference), floor) for tol ("ulp", n, floor) (tol 0: exactly)."""
    problems = []
    for (name, shape, dt, tol), ref, got in zip(case.outputs, ref_outputs, outputs):
        ref, got = np.asarray(ref), np.asarray(got)
        if ref.shape != got.shape:
            problems.append(f"{name}: shape {got.shape} != reference {ref.shape}")
            continue
        if not gen.is_float(dt):
            bad = ref != got
            r, g = ref, got
            kind = "exact"
        else:
            r, g = _f64(ref, dt), _f64(got, dt)
            rn, gn = np.isnan(r), np.isnan(g)
            bad = rn != gn
            both = ~(rn | gn)
            rinf, ginf = np.isinf(r), np.isinf(g)
            bad |= both & (rinf | ginf) & (r != g)
            finite = both & ~rinf & ~ginf
            n, floor = (0, 0.0) if not tol else (tol[1], tol[2])
            kind = f"{n} ulp, floor {floor:g}" if tol else "exact"
            native = np.float32 if dt in ("float32", "float16", "bfloat16") else np.float64
            with np.errstate(invalid="ignore", over="ignore"):
                ulp = np.spacing(np.abs(np.where(finite, r, 0.0)).astype(native)).astype(np.float64)
                if dt == "float16":
                    ulp = np.spacing(np.abs(np.where(finite, r, 0.0)).astype(np.float16))
                    ulp = ulp.astype(np.float64)
                elif dt == "bfloat16":
                    ulp = ulp * 65536.0
                allowed = np.maximum(n * ulp, floor)
                bad |= finite & (np.abs(r - g) > allowed)
        where = np.argwhere(bad)
        if len(where):
            lines = [f"{name} ({dt}, {kind}): {len(where)} of {ref.size} elements differ"]
            for idx in where[:limit]:
                idx = tuple(idx)
                lines.append(f"  at {idx}: blockc {g[idx]!r}, triton {r[idx]!r}")
            problems.append("\n".join(lines))
    return problems


def ulp(n, floor=0.0):
    return ("ulp", n, floor)


# ---- inputs ---------------------------------------------------------------------------
def uniform(r, n, lo, hi, dt="float32"):
    vals = np.array([r.uniform(lo, hi) for _ in range(n)])
    return vals.astype(np.dtype(dt))


def with_specials(r, arr, specials, frac=8):
    arr = arr.copy()
    for i in range(arr.size):
        if r.randrange(frac) == 0:
            arr.flat[i] = r.choice(specials)
    return arr


SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan]


def domain(r, n, dom, dt):
    """Arguments of a math function: float32 never subnormal, float64 sometimes."""
    f64 = dt == "float64"
    if dom == "wide":
        a = wide_floats(r, (n,), dt, -20, 20)
    elif dom == "pos":
        a = np.abs(wide_floats(r, (n,), dt, -1070 if f64 else -125, 1000 if f64 else 126))
        return with_specials(r, a, SPECIALS + [-1.0, -2.5, 1.0])
    elif dom == "exp":
        a = uniform(r, n, -700, 700, dt) if f64 else uniform(r, n, -87, 87, dt)
    elif dom == "exp2":
        a = uniform(r, n, -1070, 1020, dt) if f64 else uniform(r, n, -140, 127, dt)
    elif dom == "trig":
        a = uniform(r, n, -60, 60, dt)
    elif dom == "unit":
        a = uniform(r, n, -4, 4, dt)
    elif dom == "sigm":
        a = uniform(r, n, -80, 80, dt)
    elif dom == "tan":
        a = uniform(r, n, -10, 10, dt)
    elif dom == "base":  # pow's x
        a = np.abs(wide_floats(r, (n,), dt, -10, 10))
        a = with_specials(r, a, [-2.0, -0.5, -3.0, 1.0, 0.0], 4)
        return with_specials(r, a, SPECIALS, 12)
    elif dom == "expo":  # pow's y
        a = uniform(r, n, -8, 8, dt)
        return with_specials(r, a, [2.0, 3.0, -1.0, 0.5, 0.0, -2.0, np.nan, np.inf], 3)
    else:
        raise ValueError(dom)
    return with_specials(r, a, SPECIALS)


# (expression, domains of x[, y], float32 tol, float64 tol or None when not for float64)
ACC32, ACC64 = ulp(4, 2e-38), ulp(4, 1e-300)
MATH = [
    ("tl.exp(x)", ["exp"], ulp(160, 2e-38), ACC64),
    ("tl.exp2(x)", ["exp2"], ulp(8, 2e-38), None),
    ("libdevice.exp(x)", ["exp"], ACC32, ACC64),
    ("libdevice.exp2(x)", ["exp2"], ACC32, ACC64),
    ("tl.log(x)", ["pos"], ulp(8, 1e-6), ACC64),
    ("tl.log2(x)", ["pos"], ulp(8, 1e-6), None),
    ("libdevice.log(x)", ["pos"], ulp(4, 1e-7), ACC64),
    ("libdevice.log2(x)", ["pos"], ulp(4, 1e-7), ACC64),
    ("libdevice.log1p(x)", ["wide"], ACC32, ACC64),
    ("libdevice.expm1(x)", ["unit"], ACC32, ACC64),
    ("tl.sqrt(x)", ["pos"], ACC32, ACC64),
    ("tl.rsqrt(x)", ["pos"], ulp(6, 2e-38), ACC64),
    ("tl.sin(x)", ["trig"], ulp(8, 4e-6), ACC64),
    ("tl.cos(x)", ["trig"], ulp(8, 4e-6), ACC64),
    ("libdevice.sin(x)", ["trig"], ulp(4, 1e-7), ACC64),
    ("libdevice.tan(x)", ["tan"], ulp(8, 1e-6), ACC64),
    ("libdevice.tanh(x)", ["unit"], ulp(8, 2e-38), ACC64),
    ("1.0 / (1.0 + tl.exp(-x))", ["sigm"], ulp(160, 2e-38), ACC64),
    ("tl.erf(x)", ["unit"], ulp(8, 2e-38), ACC64),
    ("libdevice.pow(x, y)", ["base", "expo"], ulp(8, 2e-38), ACC64),
    ("libdevice.atan2(x, y)", ["wide", "wide"], ulp(8, 2e-38), ACC64),
    ("libdevice.fmod(x, y)", ["wide", "wide"], 0.0, 0.0),
    ("libdevice.remainder(x, y)", ["wide", "wide"], 0.0, 0.0),
]


# ---- templates ------------------------------------------------------------------------
def seed_value(r):
    kind = r.choice(["small", "neg", "i32", "i64", "i64neg", "i64max"])
    if kind == "small":
        v = r.randint(2, 1000)
    elif kind == "neg":
        v = -r.randint(2, 2**31)
    elif kind == "i32":
        v = r.randint(2**30, 2**31 - 1)
    elif kind == "i64":
        v = r.randint(2**31, 2**62)
    elif kind == "i64neg":
        v = -r.randint(2**32, 2**63)
    else:
        v = 2**63 - 1 - r.randint(0, 5)
    return v


def offsets(k, r, two_d):
    """Lines defining `o` (the Philox offsets) and its shape."""
    odt = r.choice(["int32", "int64", "uint32"])
    if odt == "int64":
        base = r.randint(2**31, 2**40)
    elif odt == "uint32":
        base = -r.randint(2, 2**31 - 5000)
    else:
        base = r.randint(2, 2**31 - 2**28)
    k.scalar("seed", seed_value(r))
    k.scalar("base", base)
    if two_d:
        M, N = r.choice([(4, 8), (8, 16), (2, 32), (16, 4)])
        k.const("M", M)
        k.const("N", N)
        shape = (M, N)
        k.line("i = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]",
               "idx = i")
    else:
        B = r.choice([16, 32, 64, 128])
        k.const("B", B)
        shape = (B,)
        k.line("i = tl.arange(0, B)", "idx = i")
    stride = r.choice([1, 1, 3, 1000003])
    if odt == "uint32":
        k.line(f"o = (base + i * {stride}).to(tl.uint32, bitcast=True)")
    else:
        k.line(f"o = base + i * {stride}")
    return shape, odt


def t_rand(k, r):
    shape, odt = offsets(k, r, r.random() < 0.4)
    nr = r.choice(["", "", ", 10", ", 7", ", n_rounds=3", ", 1"])
    fns = r.sample(["randint", "rand", "randn", "randint4x", "rand4x", "randn4x"], 3)
    j = 0
    for fn in fns:
        if fn.endswith("4x"):
            k.line(f"a, b, c, d = tl.{fn}(seed, o{nr})")
            names = ["a", "b", "c", "d"]
        else:
            k.line(f"a = tl.{fn}(seed, o{nr})")
            names = ["a"]
        for v in names:
            if fn.startswith("randint"):
                k.line(f"tl.store(out{j}_ptr + idx, {v}.to(tl.int32, bitcast=True))")
                k.out(f"out{j}_ptr", shape, "int32")
            else:
                k.line(f"tl.store(out{j}_ptr + idx, {v})")
                tol = ulp(1) if fn.startswith("rand4") or fn == "rand" else ulp(64, 2e-5)
                k.out(f"out{j}_ptr", shape, "float32", tol)
            j += 1


def t_philox(k, r):
    wide = r.random() < 0.35
    B = r.choice([16, 32, 64])
    k.const("B", B)
    dt = "int64" if wide else "int32"
    k.line("i = tl.arange(0, B)")
    for c in range(4):
        k.inp(f"c{c}_ptr", ints(r, (B,), dt), dt)
        k.line(f"c{c} = tl.load(c{c}_ptr + i)")
    nr = r.choice(["", ", 10", ", 7", ", n_rounds=4", ", 1"])
    k.scalar("seed", seed_value(r))
    if wide or r.random() < 0.5:
        k.line(f"r0, r1, r2, r3 = tl.philox(seed, c0, c1, c2, c3{nr})")
    else:
        udt = "tl.uint32"
        k.inp("k_ptr", ints(r, (2, B), "int32"), "int32")
        k.line(f"k0 = tl.load(k_ptr + i).to({udt}, bitcast=True)",
               f"k1 = tl.load(k_ptr + B + i).to({udt}, bitcast=True)")
        for c in range(4):
            k.line(f"u{c} = c{c}.to({udt}, bitcast=True)")
        k.line(f"r0, r1, r2, r3 = tl.philox_impl(u0, u1, u2, u3, k0, k1{nr})")
    for c in range(4):
        k.line(f"tl.store(out{c}_ptr + i, r{c}.to(tl.{dt}, bitcast=True))")
        k.out(f"out{c}_ptr", (B,), dt)
    if not wide:
        k.line("tl.store(out4_ptr + i, tl.uint_to_uniform_float(r0))",
               "n1, n2 = tl.pair_uniform_to_normal(tl.uint_to_uniform_float(r1), "
               "tl.uint_to_uniform_float(r2))",
               "tl.store(out5_ptr + i, n1)",
               "tl.store(out6_ptr + i, n2)")
        k.out("out4_ptr", (B,), "float32", ulp(1))
        k.out("out5_ptr", (B,), "float32", ulp(64, 2e-5))
        k.out("out6_ptr", (B,), "float32", ulp(64, 2e-5))


def t_math(k, r, dt):
    B = r.choice([32, 64, 128])
    n = r.randint(B // 2, 2 * B)
    k.std1d(B, n)
    table = [m for m in MATH if dt == "float32" or m[3] is not None]
    for j, (expr, doms, t32, t64) in enumerate(r.sample(table, 3)):
        for v, dom in zip("xy", doms):
            k.inp(f"{v}{j}_ptr", domain(r, n, dom, dt), dt)
            k.line(f"{v} = tl.load({v}{j}_ptr + offs, mask=mask, other=1.0)")
        k.line(f"tl.store(out{j}_ptr + offs, {expr}, mask=mask)")
        k.out(f"out{j}_ptr", (n,), dt, t32 if dt == "float32" else t64)


def t_math32(k, r):
    t_math(k, r, "float32")


def t_math64(k, r):
    t_math(k, r, "float64")


def t_div_fma(k, r):
    B = r.choice([32, 64])
    n = r.randint(1, 2 * B)
    k.std1d(B, n)
    dt = r.choice(["float32", "float32", "float64"])
    lo, hi = (-30, 30) if dt == "float32" else (-300, 300)
    for v in "xyz":
        a = with_specials(r, wide_floats(r, (n,), dt, lo, hi), SPECIALS, 10)
        k.inp(f"{v}_ptr", a, dt)
        k.line(f"{v} = tl.load({v}_ptr + offs, mask=mask, other=1.0)")
    sq = "tl.abs(x)" if r.random() < 0.5 else "x"
    # An H100 divides f32 within 2 ulp for `/` and tl.fdiv whatever ieee_rounding says
    # (rt-1's reference); div_rn rounds exactly, and Triton takes it (and sqrt_rn) on
    # fp32 only.
    outs = [("tl.fdiv(x, y, ieee_rounding=True)", ulp(2, 2e-38)),
            ("tl.fdiv(x, y)", ulp(2, 2e-38)),
            ("tl.fma(x, y, z)", 0.0),
            ("x / y", ulp(2, 2e-38))]
    if dt == "float32":
        outs += [("tl.div_rn(x, y)", 0.0), (f"tl.sqrt_rn({sq})", 0.0)]
    for j, (expr, tol) in enumerate(outs):
        k.line(f"tl.store(out{j}_ptr + offs, {expr}, mask=mask)")
        if dt == "float64" and tol:
            tol = ulp(2, 1e-300)
        k.out(f"out{j}_ptr", (n,), dt, tol)


def t_int_ops(k, r):
    B = r.choice([32, 64])
    n = r.randint(1, 2 * B)
    k.std1d(B, n)
    for dt in ("int32", "int64"):
        k.inp(f"a_{dt}", ints(r, (n,), dt), dt)
        k.inp(f"b_{dt}", ints(r, (n,), dt), dt)
    k.inp("p_ptr", ints(r, (n,), "int32", -10**6, 10**6), "int32")
    d = ints(r, (n,), "int32", -100, 100)
    d[d == 0] = 7
    k.inp("d_ptr", d, "int32")
    k.inp("q_ptr", ints(r, (n,), "int64", 0, 10**12), "int64")
    k.line("a = tl.load(a_int32 + offs, mask=mask, other=0)",
           "b = tl.load(b_int32 + offs, mask=mask, other=0)",
           "A = tl.load(a_int64 + offs, mask=mask, other=0)",
           "Bv = tl.load(b_int64 + offs, mask=mask, other=0)",
           "p = tl.load(p_ptr + offs, mask=mask, other=0)",
           "d = tl.load(d_ptr + offs, mask=mask, other=1)",
           "q = tl.load(q_ptr + offs, mask=mask, other=0)",
           "au = a.to(tl.uint32, bitcast=True)",
           "bu = b.to(tl.uint32, bitcast=True)")
    lit = r.choice([3, 7, -5, -1, 1000, -65536, 2])
    lit2 = r.choice([2, 9, -3, -8, 100])
    cd = r.choice([1, 3, 16, 1000])
    exprs = [("tl.umulhi(a, b)", "int32"),
             ("tl.umulhi(au, bu).to(tl.int32, bitcast=True)", "int32"),
             ("tl.umulhi(A, Bv)", "int64"),
             ("p // d", "int32"), ("p % d", "int32"),
             (f"p // {lit}", "int32"), (f"p % {lit2}", "int32"),
             (f"q // {lit2}", "int64"), (f"(-q) % {lit}", "int64"),
             ("tl.cdiv(tl.abs(p), tl.abs(d))", "int32"),
             (f"tl.cdiv(q, {cd})", "int64")]
    for j, (expr, dt) in enumerate(exprs):
        k.line(f"tl.store(out{j}_ptr + offs, {expr}, mask=mask)")
        k.out(f"out{j}_ptr", (n,), dt)


def t_float_misc(k, r):
    B = r.choice([32, 64])
    n = r.randint(1, 2 * B)
    k.std1d(B, n)
    x = with_specials(r, wide_floats(r, (n,), "float32", -10, 10), SPECIALS + [1.0, 2.0], 5)
    y = x.copy()
    for i in range(n):
        if r.random() < 0.6:
            y[i] = r.choice([np.nan, 1.0, -1.0, 0.0, np.inf, float(r.randint(-3, 3))])
    k.inp("x_ptr", x, "float32")
    k.inp("y_ptr", y, "float32")
    k.inp("g_ptr", grid_floats(r, (n,), "float32", 1024), "float32")
    lo = r.choice([-1.0, -0.5, 0.0, -100.0])
    hi = r.choice([1.0, 0.5, 2.0, 100.0])
    div = r.choice([0.5, 2.0, -0.25, 4.0, -1.0])
    k.line("x = tl.load(x_ptr + offs, mask=mask, other=0.0)",
           "y = tl.load(y_ptr + offs, mask=mask, other=0.0)",
           "g = tl.load(g_ptr + offs, mask=mask, other=0.0)",
           "xf = tl.where(x == x, x, 0.5)")
    exprs = [("(x < y).to(tl.int8)", "int8"), ("(x <= y).to(tl.int8)", "int8"),
             ("(x == y).to(tl.int8)", "int8"), ("(x != y).to(tl.int8)", "int8"),
             ("(x > y).to(tl.int8)", "int8"), ("(x >= y).to(tl.int8)", "int8"),
             ("(x != x).to(tl.int8)", "int8"),
             (f"tl.clamp(xf, {lo}, {hi})", "float32"),
             (f"tl.clamp(x, {lo}, {hi}, propagate_nan=tl.PropagateNan.ALL)", "float32"),
             (f"tl.clamp(xf, tl.minimum(g, {lo}), tl.maximum(g, {hi}))", "float32"),
             (f"g % {div}", "float32"),
             ("tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)", "float32"),
             ("tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)", "float32")]
    for j, (expr, dt) in enumerate(exprs):
        k.line(f"tl.store(out{j}_ptr + offs, {expr}, mask=mask)")
        k.out(f"out{j}_ptr", (n,), dt)


def t_casts(k, r):
    B = r.choice([32, 64])
    n = r.randint(1, 2 * B)
    k.std1d(B, n)
    lim = {"int8": 127.9, "uint8": 255.9, "int16": 32767.5, "int32": 2.0e9, "int64": 9.0e18}
    idt = r.choice(list(lim))
    L = lim[idt]
    fsrc = r.choice(["float32", "float64"])
    fv = uniform(r, n, 0 if idt == "uint8" else -L, L, fsrc)
    fv = with_specials(r, fv, [0.5, -0.5, 0.99, -0.99, 0.0], 6)
    if idt == "uint8":
        fv = np.abs(fv)
    k.inp("f_ptr", fv, fsrc)
    k.inp("i_ptr", ints(r, (n,), "int64"), "int64")
    k.inp("j_ptr", ints(r, (n,), "int32"), "int32")
    big = np.array([r.choice([65504.0, 65519.0, 65520.0, 70000.0, -65536.0, 3.4e38, 1e-5,
                              6.1e-5, 6.0e-8, 2.9e-8, 3.0e-8, 1e-45, -1.2e-38,
                              3.3961776e38, 3.3961778e38, 1.0009765625, 1.00048828125])
                    if r.random() < 0.3 else r.uniform(-70000, 70000) for _ in range(n)],
                   dtype=np.float32)
    big = with_specials(r, big, SPECIALS, 10)
    k.inp("w_ptr", big, "float32")
    d = with_specials(r, wide_floats(r, (n,), "float64", -160, 140), SPECIALS, 8)
    k.inp("d_ptr", d, "float64")
    k.line("f = tl.load(f_ptr + offs, mask=mask, other=0.0)",
           "i = tl.load(i_ptr + offs, mask=mask, other=0)",
           "j = tl.load(j_ptr + offs, mask=mask, other=0)",
           "w = tl.load(w_ptr + offs, mask=mask, other=0.0)",
           "d = tl.load(d_ptr + offs, mask=mask, other=0.0)")
    exprs = [(f"f.to({TL[idt]})", idt),
             ("i.to(tl.float32)", "float32"), ("i.to(tl.float64)", "float64"),
             ("i.to(tl.uint64, bitcast=True).to(tl.float32)", "float32"),
             ("j.to(tl.float32)", "float32"), ("j.to(tl.uint32, bitcast=True).to(tl.float64)",
                                              "float64"),
             ("w.to(tl.float16)", "float16"), ("w.to(tl.bfloat16)", "bfloat16"),
             ("w.to(tl.float16).to(tl.float32)", "float32"),
             ("d.to(tl.float32)", "float32"),
             ("(j & 1).to(tl.int1).to(tl.float32)", "float32"),
             ("(w != 0.0).to(tl.int32)", "int32"), ("w.to(tl.int1).to(tl.int8)", "int8"),
             ("(i > 0).to(tl.float16)", "float16")]
    for j, (expr, dt) in enumerate(exprs):
        k.line(f"tl.store(out{j}_ptr + offs, {expr}, mask=mask)")
        k.out(f"out{j}_ptr", (n,), dt)


def fp8_values(r, n, fmt):
    """float32 values inside the range of fp8 format fmt (not all representable)."""
    top, emin = (440.0, -9) if fmt == "e4" else (57000.0, -16)
    out = []
    for _ in range(n):
        c = r.random()
        if c < 0.1:
            out.append(0.0)
        elif c < 0.3:  # exactly halfway cases and small ones
            e = r.randint(emin, 6)
            out.append(r.choice([-1, 1]) * (2.0 ** e) * r.choice([1.0625, 1.1875, 1.5, 1.03]))
        else:
            out.append(r.choice([-1, 1]) * 2.0 ** r.uniform(emin, np.log2(top)))
    return np.array(out, dtype=np.float32)


def t_fp8(k, r):
    B = r.choice([32, 64])
    n = r.randint(1, 2 * B)
    k.std1d(B, n)
    k.inp("b_ptr", ints(r, (n,), "uint8", 0, 255), "uint8")
    k.inp("e4_ptr", fp8_values(r, n, "e4"), "float32")
    k.inp("e5_ptr", fp8_values(r, n, "e5"), "float32")
    k.line("b = tl.load(b_ptr + offs, mask=mask, other=0)",
           "e4 = tl.load(e4_ptr + offs, mask=mask, other=0.0)",
           "e5 = tl.load(e5_ptr + offs, mask=mask, other=0.0)")
    exprs = [("b.to(tl.float8e4nv, bitcast=True).to(tl.float32)", "float32"),
             ("b.to(tl.float8e5, bitcast=True).to(tl.float32)", "float32"),
             ("b.to(tl.float8e5, bitcast=True).to(tl.float16)", "float16"),
             ("e4.to(tl.float8e4nv).to(tl.uint8, bitcast=True)", "uint8"),
             ("e5.to(tl.float8e5).to(tl.uint8, bitcast=True)", "uint8"),
             ("e4.to(tl.float16).to(tl.float8e4nv).to(tl.uint8, bitcast=True)", "uint8"),
             ("e5.to(tl.float16).to(tl.float8e5).to(tl.uint8, bitcast=True)", "uint8")]
    for j, (expr, dt) in enumerate(exprs):
        k.line(f"tl.store(out{j}_ptr + offs, {expr}, mask=mask)")
        k.out(f"out{j}_ptr", (n,), dt)


def t_atomic_old(k, r):
    B = r.choice([16, 32])
    nprog = r.randint(1, 3)
    n = B * nprog
    k.std1d(B, n, nprog)
    perm = np.array(r.sample(range(n), n), dtype=np.int32)
    k.inp("p_ptr", perm, "int32")
    k.inp("m_ptr", ints(r, (n,), "int8", 0, 3), "int8")
    k.line("p = tl.load(p_ptr + offs)",
           "m = tl.load(m_ptr + offs) != 0")
    dt = r.choice(["int32", "int64", "float32"])
    ops = ["add", "xchg", "max", "min", "cas"]
    if dt != "float32":
        ops += ["and", "or", "xor"]
    ops = r.sample(ops, 4)
    for j, op in enumerate(ops):
        if dt == "float32":
            init = wide_floats(r, (n,), dt, -10, 10)
            v = grid_floats(r, (n,), dt, 1024) if op == "add" else wide_floats(r, (n,), dt,
                                                                                -10, 10)
            if op == "add":
                init = grid_floats(r, (n,), dt, 1024)
        else:
            init = ints(r, (n,), dt)
            v = ints(r, (n,), dt)
            if op == "add" or r.random() < 0.5:
                init = ints(r, (n,), dt, -10**6, 10**6)
                v = ints(r, (n,), dt, -10**6, 10**6)
        k.inp(f"v{j}_ptr", v, dt)
        k.line(f"v = tl.load(v{j}_ptr + offs)")
        sem = r.choice(["", ', sem="relaxed"', ', sem="acq_rel"'])
        if op == "cas":
            cmp = init[perm].copy()
            flip = ints(r, (n,), "int8", 0, 1).astype(bool)
            cmp[flip] = v[flip]
            k.inp(f"c{j}_ptr", cmp, dt)
            k.line(f"c = tl.load(c{j}_ptr + offs)",
                   f"old = tl.atomic_cas(out{2 * j}_ptr + p, c, v{sem})",
                   f"tl.store(out{2 * j + 1}_ptr + offs, old)")
        else:
            k.line(f"old = tl.atomic_{op}(out{2 * j}_ptr + p, v, mask=m{sem})",
                   f"tl.store(out{2 * j + 1}_ptr + offs, old, mask=m)")
        k.out(f"out{2 * j}_ptr", (n,), dt, 0.0, init)
        k.out(f"out{2 * j + 1}_ptr", (n,), dt)


TEMPLATES = [t_rand, t_rand, t_philox, t_math32, t_math32, t_math64, t_div_fma, t_int_ops,
             t_float_misc, t_casts, t_fp8, t_atomic_old]


def generate(seed, fingerprint=True):
    """Kernel `seed` of the family (fingerprint is accepted for the interface and not
    used)."""
    template = TEMPLATES[seed % len(TEMPLATES)]
    rng = random.Random(seed * 7919 + 13)
    k = cf.K(rng)
    template(k, rng)
    params = ([n for n, _, _ in k.inputs] + [o[0] for o in k.outputs]
              + [s for s, _ in k.scalars] + [f"{c}: tl.constexpr" for c in k.constexprs])
    src = ["import triton", "import triton.language as tl",
           "from triton.language.extra import libdevice", "", "",
           "@triton.jit", f"def kernel({', '.join(params)}):"]
    if "libdevice" not in "\n".join(k.body):
        src.pop(2)
    src += ["    " + ln for ln in k.body]
    case = RtCase(seed=seed, source="\n".join(src) + "\n", inputs=k.inputs, scalars=k.scalars,
                  outputs=k.outputs, grid=k.grid, constexprs=k.constexprs, probe="")
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
