"""Seeded random Triton kernels of the fourth family ("md"): memory access and dots (the
matmul kernels blockc's users write), for differential testing like generator.py (df-1),
generator_cf.py (cf-2) and generator_rt.py (rt-2), which stay as they are.

`generate(seed)` returns an `MdCase` (a generator_cf.CfCase with its own digest and
comparison): kernel k comes from template `TEMPLATES[k % len(TEMPLATES)]`, its dtypes,
sizes, layouts and variants drawn from `random.Random(seed)`. Nothing here imports torch
or triton (the tensor-descriptor kernels' own source imports torch, to give Triton the
scratch allocator that in-kernel descriptors need on a GPU).

What the templates cover
------------------------
tl.dot in K loops (`for k in range(0, K, BK)`) with masked edge tiles (M, N, K not
multiples of the blocks), blocks of 16..128, `acc +=` and `acc=` forms, out_dtype;
operands float16, bfloat16, float32 with input_precision="ieee", int8 (int32 results),
fp8 e4nv / e5 (uint8 storage bitcast in the kernel); A and B row- or column-major (padded
leading dimensions) through run-time strides, tl.trans of a loaded B^T tile, pointer
increments or recomputed pointers, `% M` clamped rows (the tutorial's form), block
pointers (order (1, 0) and (0, 1)) with tl.advance; batched 3-D dots; epilogues (bias,
relu, cast to float16); GROUP_M swizzled ordering on a 1-D grid, 2-D grids; transposed
(column-major) outputs. Loads and stores: 2-D tiles with run-time strides (negative ones
too, from a base offset) and int64 index arithmetic through values beyond 2^31 (the final
offsets stay in bounds: no tensor here has 2^31 elements), masks of many shapes (bounds,
triangles, checkerboards, loaded bools) with `other=` of several values, cache_modifier /
eviction_policy / volatile keywords, scalar loads and stores, bool stores, broadcast
gathers (many lanes, one address), index-tensor gathers, scatter stores through a
permutation, tl.multiple_of / tl.max_contiguous hints (true ones), make_block_ptr with
boundary_check / padding_option and tl.advance, tl.make_tensor_descriptor loads and
stores (and a descriptor matmul).

Exactness. Integers, loads, stores and casts of loaded values compare exactly. A dot's
float result is compared within rel * sum_k |a_ik * b_kj| (+ two ulps of the output
dtype for the final rounding / bias add): products of f16/bf16/fp8 are exact in f32 and
the sums are f32 (rel = (K + 4) * 2^-21, a few times the rounding bound K * 2^-23);
float32 with input_precision="ieee" likewise; fp8 gets rel = 2^-9 (Hopper's fp8
tensor cores accumulate with fewer bits). No TF32 anywhere.

Undefined behaviour: every lane that a mask switches off may point anywhere, but no lane
whose mask is on (and no unmasked access) leaves its tensor; index arrays are in range;
scatter indices are unique; hints are true; no NaN / inf bytes among the fp8 inputs.

Bump GENERATOR_VERSION whenever the output of generate() changes for any seed.
"""

import hashlib
import random

import numpy as np

import generator as gen
import generator_cf as cf

GENERATOR_VERSION = "md-1"
COUNT = 150

ints = cf.ints
grid_floats = cf.grid_floats
TL = gen.TL


class MdCase(cf.CfCase):
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


def to_f64(arr, dt):
    if dt == "bfloat16":
        return gen.bf16_bits_to_f32(arr).astype(np.float64)
    return np.asarray(arr).astype(np.float64)


def allowed(case, name, tol, dt, r):
    """The allowed |difference| for output `name` with tol ("dot", rel) (0: exact)."""
    if not tol:
        return None
    native = {"float16": np.float16, "bfloat16": np.float32}.get(dt, np.float32)
    if dt == "float64":
        native = np.float64
    with np.errstate(invalid="ignore", over="ignore"):
        ulp = np.spacing(np.abs(np.nan_to_num(r)).astype(native)).astype(np.float64)
    if dt == "bfloat16":
        ulp = ulp * 65536.0
    return tol[1] * case.sumabs[name] + 2.0 * ulp + 1e-30


def compare(case, ref_outputs, outputs, limit=8):
    """Integers and bools exactly; floats: NaN and infinities at the same places, finite
    values bit-exactly (tol 0) or within `allowed` (tol ("dot", rel))."""
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
            r, g = to_f64(ref, dt), to_f64(got, dt)
            rn, gn = np.isnan(r), np.isnan(g)
            bad = rn != gn
            both = ~(rn | gn)
            rinf, ginf = np.isinf(r), np.isinf(g)
            bad |= both & (rinf | ginf) & (r != g)
            finite = both & ~rinf & ~ginf
            lim = allowed(case, name, tol, dt, r)
            kind = f"within {tol[1]:g} x sum|a*b| + 2 ulp" if tol else "exact"
            with np.errstate(invalid="ignore"):
                if lim is None:
                    bad |= finite & (r != g)
                else:
                    bad |= finite & (np.abs(r - g) > lim)
        where = np.argwhere(bad)
        if len(where):
            lines = [f"{name} ({dt}, {kind}): {len(where)} of {ref.size} elements differ"]
            for idx in where[:limit]:
                idx = tuple(idx)
                lines.append(f"  at {idx}: blockc {g[idx]!r}, triton {r[idx]!r}")
            problems.append("\n".join(lines))
    return problems


# ---- values ---------------------------------------------------------------------------
def fp8_decode(b, fmt):
    b = np.asarray(b).astype(np.int64)
    s = np.where(b >> 7 == 1, -1.0, 1.0)
    if fmt == "e4":
        e, m = (b >> 3) & 15, b & 7
        return s * np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7))
    e, m = (b >> 2) & 31, b & 3
    return s * np.where(e == 0, m / 4.0 * 2.0 ** -14, (1 + m / 4.0) * 2.0 ** (e - 15))


def fp8_bytes(r, shape, fmt):
    """Finite fp8 bytes of magnitudes about 2^-4 .. 2^3 (a few zeros and subnormals)."""
    n = int(np.prod(shape))
    out = np.empty(n, dtype=np.uint8)
    for i in range(n):
        c = r.random()
        if fmt == "e4":
            e = 0 if c < 0.05 else r.randint(3, 10)
            out[i] = (r.randint(0, 1) << 7) | (e << 3) | r.randint(0, 7)
        else:
            e = 0 if c < 0.05 else r.randint(11, 18)
            out[i] = (r.randint(0, 1) << 7) | (e << 2) | r.randint(0, 3)
    return out.reshape(shape)


def dot_values(r, shape, dt):
    """(stored array, float64 values) of a dot operand."""
    n = int(np.prod(shape))
    if dt == "int8":
        a = ints(r, shape, "int8")
        return a, a.astype(np.float64)
    if dt in ("fp8e4", "fp8e5"):
        a = fp8_bytes(r, shape, dt[3:])
        return a, fp8_decode(a, dt[3:])
    v = np.array([r.uniform(-2.0, 2.0) for _ in range(n)]).reshape(shape)
    if dt == "bfloat16":
        bits = gen.f32_to_bf16_bits(v.astype(np.float32))
        return bits, gen.bf16_bits_to_f32(bits).astype(np.float64)
    a = v.astype(np.dtype(dt))
    return a, a.astype(np.float64)


STORE_DT = {"fp8e4": "uint8", "fp8e5": "uint8"}
FP8 = {"fp8e4": "tl.float8e4nv", "fp8e5": "tl.float8e5"}


def rel_tol(dt, K):
    if dt == "int8":
        return 0.0
    if dt in FP8:
        return ("dot", 2.0 ** -9)
    return ("dot", (K + 4) * 2.0 ** -21)


def store_operand(r, k, name, logical_vals, dt, col_major, pad_value):
    """Store a logical (R, C) operand row- or column-major with a padded leading
    dimension; returns (stride_r, stride_c)."""
    R, C = logical_vals.shape
    sdt = STORE_DT.get(dt, dt)
    if col_major:
        ld = R + r.choice([0, 0, 3, 16])
        arr = np.full((C, ld), pad_value, dtype=logical_vals.dtype)
        arr[:, :R] = logical_vals.T
        strides = (1, ld)
    else:
        ld = C + r.choice([0, 0, 5, 16])
        arr = np.full((R, ld), pad_value, dtype=logical_vals.dtype)
        arr[:, :C] = logical_vals
        strides = (ld, 1)
    k.inp(name, arr, sdt)
    return strides


def pad_of(dt):
    return {"int8": 77, "fp8e4": 0x5C, "fp8e5": 0x5A, "bfloat16": 0x4700}.get(dt, 999.0)


def dims(r, B):
    return r.choice([r.randint(1, B - 1), r.randint(B + 1, 3 * B - 1), B + r.randint(1, 7)])


# ---- dots -----------------------------------------------------------------------------
def t_matmul(k, r, style=None):
    dt = r.choice(["float16", "float16", "bfloat16", "float32", "int8", "fp8e4", "fp8e5"])
    BM, BN = r.choice([16, 32, 64]), r.choice([16, 32, 64])
    BK = r.choice([32, 64] if dt in FP8 or dt == "int8" else [16, 32, 64])
    if r.random() < 0.15:
        BM, BN, BK = r.choice([(16, 16, 128), (128, 16, 32), (16, 128, 32), (32, 32, 128)])
    M, N = dims(r, BM), dims(r, BN)
    K = r.choice([r.randint(16, BK + 20), r.randint(BK + 1, 3 * BK)])
    k.const("BM", BM)
    k.const("BN", BN)
    k.const("BK", BK)
    style = style or r.choice(["ptr", "ptr", "incr", "clamp", "trans"])
    a_col, b_col = r.random() < 0.4, r.random() < 0.4
    A, Av = dot_values(r, (M, K), dt)
    Bm, Bv = dot_values(r, (K, N), dt)
    sam, sak = store_operand(r, k, "a_ptr", A, dt, a_col, pad_of(dt))
    sbk, sbn = store_operand(r, k, "b_ptr", Bm, dt, b_col, pad_of(dt))
    isint = dt == "int8"
    ep = r.choice(["none", "none", "bias", "relu", "bias_relu", "f16"] if not isint
                  else ["none", "bias"])
    if ep in ("bias", "bias_relu"):
        bias = ints(r, (N,), "int32", -1000, 1000) if isint else grid_floats(r, (N,), "float32")
        k.inp("bias_ptr", bias, "int32" if isint else "float32")
    out_dt = "int32" if isint else ("float16" if ep == "f16" else "float32")
    c_col = r.random() < 0.25
    k.out("c_ptr", (N, M) if c_col else (M, N), out_dt, rel_tol(dt, K))
    for s, v in [("M", M), ("N", N), ("K", K), ("stride_am", sam), ("stride_ak", sak),
                 ("stride_bk", sbk), ("stride_bn", sbn),
                 ("stride_cm", 1 if c_col else N), ("stride_cn", M if c_col else 1)]:
        k.scalar(s, v)
    nm, nn = -(-M // BM), -(-N // BN)
    if r.random() < 0.5:
        G = r.choice([1, 2, 3, 4])
        k.const("GROUP_M", G)
        k.grid = (nm * nn,)
        k.line("pid = tl.program_id(0)",
               "num_pid_m = tl.cdiv(M, BM)",
               "num_pid_n = tl.cdiv(N, BN)",
               "num_pid_in_group = GROUP_M * num_pid_n",
               "group_id = pid // num_pid_in_group",
               "first_pid_m = group_id * GROUP_M",
               "group_size_m = min(num_pid_m - first_pid_m, GROUP_M)",
               "pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)",
               "pid_n = (pid % num_pid_in_group) // group_size_m")
    else:
        k.grid = (nm, nn)
        k.line("pid_m = tl.program_id(0)", "pid_n = tl.program_id(1)")
    k.line("offs_m = pid_m * BM + tl.arange(0, BM)",
           "offs_n = pid_n * BN + tl.arange(0, BN)",
           "offs_k = tl.arange(0, BK)")
    if r.random() < 0.4:  # true: BM consecutive values from a multiple of BM
        k.line("offs_m = tl.max_contiguous(tl.multiple_of(offs_m, BM), BM)",
               "offs_n = tl.max_contiguous(tl.multiple_of(offs_n, BN), BN)")
    acc_dt = "tl.int32" if isint else "tl.float32"
    k.line(f"acc = tl.zeros((BM, BN), dtype={acc_dt})")
    opts = ""
    if dt == "float32":
        opts = ', input_precision="ieee"'
    if r.random() < 0.4:
        opts += f", out_dtype={acc_dt}"
    form = r.choice(["+=", "acc", "acc="])
    if form == "+=":
        dot = f"acc += tl.dot(a, b{opts})"
    elif form == "acc":
        dot = f"acc = tl.dot(a, b, acc{opts})"
    else:
        dot = f"acc = tl.dot(a, b, acc=acc{opts})"
    other = "0" if isint or dt in FP8 else "0.0"
    conv = []
    if dt in FP8:
        conv = [f"a = a.to({FP8[dt]}, bitcast=True)", f"b = b.to({FP8[dt]}, bitcast=True)"]
    if style == "ptr" or style == "trans":
        k.line("for k in range(0, K, BK):",
               "    kk = k + offs_k",
               "    a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,",
               f"                mask=(offs_m[:, None] < M) & (kk[None, :] < K), other={other})")
        if style == "trans":
            k.line("    bt = tl.load(b_ptr + offs_n[:, None] * stride_bn"
                   " + kk[None, :] * stride_bk,",
                   f"                 mask=(offs_n[:, None] < N) & (kk[None, :] < K), "
                   f"other={other})",
                   "    b = tl.trans(bt)")
        else:
            k.line("    b = tl.load(b_ptr + kk[:, None] * stride_bk"
                   " + offs_n[None, :] * stride_bn,",
                   f"                mask=(kk[:, None] < K) & (offs_n[None, :] < N), "
                   f"other={other})")
        k.line(*["    " + c for c in conv], "    " + dot)
    else:
        if style == "clamp":
            k.line("offs_am = offs_m % M", "offs_bn = offs_n % N")
            am, bm = "", ""
        else:
            k.line("offs_am = offs_m", "offs_bn = offs_n")
            am = "(offs_am[:, None] < M) & "
            bm = " & (offs_bn[None, :] < N)"
        k.line("a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak",
               "b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn",
               "for k in range(0, tl.cdiv(K, BK)):",
               f"    a = tl.load(a_ptrs, mask={am}(offs_k[None, :] < K - k * BK), "
               f"other={other})",
               f"    b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BK){bm}, "
               f"other={other})",
               *["    " + c for c in conv],
               "    " + dot,
               "    a_ptrs += BK * stride_ak",
               "    b_ptrs += BK * stride_bk")
    exp = Av @ Bv
    if ep in ("bias", "bias_relu"):
        k.line("bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0)",
               "acc = acc + bias[None, :]")
        exp = exp + bias.astype(np.float64)[None, :]
    if ep in ("relu", "bias_relu"):
        k.line("acc = tl.maximum(acc, 0.0)")
        exp = np.maximum(exp, 0.0)
    if ep == "f16":
        k.line("acc = acc.to(tl.float16)")
    k.line("tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,",
           "         mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))")
    sa = np.abs(Av) @ np.abs(Bv)
    k.sumabs["c_ptr"] = sa.T if c_col else sa
    k.expected["c_ptr"] = exp.T if c_col else exp


def t_matmul_bp(k, r):
    """The matmul with block pointers (order from each operand's layout) and tl.advance."""
    dt = r.choice(["float16", "bfloat16", "float32", "int8"])
    BM, BN = r.choice([16, 32, 64]), r.choice([16, 32, 64])
    BK = r.choice([32, 64] if dt == "int8" else [16, 32, 64])
    M, N = dims(r, BM), dims(r, BN)
    K = r.randint(16, 3 * BK)
    for c, v in [("BM", BM), ("BN", BN), ("BK", BK)]:
        k.const(c, v)
    a_col, b_col = r.random() < 0.5, r.random() < 0.5
    A, Av = dot_values(r, (M, K), dt)
    Bm, Bv = dot_values(r, (K, N), dt)
    sam, sak = store_operand(r, k, "a_ptr", A, dt, a_col, pad_of(dt))
    sbk, sbn = store_operand(r, k, "b_ptr", Bm, dt, b_col, pad_of(dt))
    isint = dt == "int8"
    out_dt = "int32" if isint else "float32"
    k.out("c_ptr", (M, N), out_dt, rel_tol(dt, K))
    for s, v in [("M", M), ("N", N), ("K", K), ("stride_am", sam), ("stride_ak", sak),
                 ("stride_bk", sbk), ("stride_bn", sbn), ("stride_cm", N)]:
        k.scalar(s, v)
    k.grid = (-(-M // BM), -(-N // BN))
    acc_dt = "tl.int32" if isint else "tl.float32"
    opts = ', input_precision="ieee"' if dt == "float32" else ""
    ao = "(0, 1)" if a_col else "(1, 0)"
    bo = "(0, 1)" if b_col else "(1, 0)"
    pad = ', padding_option="zero"'
    k.line("pid_m = tl.program_id(0)", "pid_n = tl.program_id(1)",
           "a_bp = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),",
           f"                         offsets=(pid_m * BM, 0), block_shape=(BM, BK), order={ao})",
           "b_bp = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),",
           f"                         offsets=(0, pid_n * BN), block_shape=(BK, BN), order={bo})",
           f"acc = tl.zeros((BM, BN), dtype={acc_dt})",
           "for k in range(0, K, BK):",
           f"    a = tl.load(a_bp, boundary_check=(0, 1){pad})",
           f"    b = tl.load(b_bp, boundary_check=(0, 1){pad})",
           f"    acc += tl.dot(a, b{opts})",
           "    a_bp = tl.advance(a_bp, (0, BK))",
           "    b_bp = tl.advance(b_bp, (BK, 0))",
           "c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (pid_m * BM, pid_n * BN),",
           "                         (BM, BN), (1, 0))",
           "tl.store(c_bp, acc, boundary_check=(0, 1))")
    k.sumabs["c_ptr"] = np.abs(Av) @ np.abs(Bv)
    k.expected["c_ptr"] = Av @ Bv


def t_bdot(k, r):
    """Batched 3-D dots: (BB, BM, BK) x (BB, BK, BN) in a K loop, masked in all dims."""
    dt = r.choice(["float16", "bfloat16", "float32", "int8"])
    BB = r.choice([2, 4])
    BM, BN = r.choice([16, 32]), r.choice([16, 32])
    BK = 32 if dt == "int8" else r.choice([16, 32])
    NB = r.randint(1, 2 * BB)
    M, N = dims(r, BM), r.randint(1, BN + 9)
    K = r.randint(16, 2 * BK + 9)
    for c, v in [("BB", BB), ("BM", BM), ("BN", BN), ("BK", BK)]:
        k.const(c, v)
    A, Av = dot_values(r, (NB, M, K), dt)
    Bm, Bv = dot_values(r, (NB, K, N), dt)
    k.inp("a_ptr", A, dt)
    k.inp("b_ptr", Bm, dt)
    isint = dt == "int8"
    k.out("c_ptr", (NB, M, N), "int32" if isint else "float32", rel_tol(dt, K))
    for s, v in [("NB", NB), ("M", M), ("N", N), ("K", K)]:
        k.scalar(s, v)
    k.grid = (-(-NB // BB), -(-M // BM), -(-N // BN))
    acc_dt = "tl.int32" if isint else "tl.float32"
    opts = ', input_precision="ieee"' if dt == "float32" else ""
    other = "0" if isint else "0.0"
    k.line("ob = tl.program_id(0) * BB + tl.arange(0, BB)",
           "om = tl.program_id(1) * BM + tl.arange(0, BM)",
           "on = tl.program_id(2) * BN + tl.arange(0, BN)",
           "ok = tl.arange(0, BK)",
           "b3 = ob[:, None, None]",
           f"acc = tl.zeros((BB, BM, BN), dtype={acc_dt})",
           "for k in range(0, K, BK):",
           "    kk = k + ok",
           "    a = tl.load(a_ptr + b3 * (M * K) + om[None, :, None] * K + kk[None, None, :],",
           "                mask=(b3 < NB) & (om[None, :, None] < M) & (kk[None, None, :] < K),",
           f"                other={other})",
           "    b = tl.load(b_ptr + b3 * (K * N) + kk[None, :, None] * N + on[None, None, :],",
           "                mask=(b3 < NB) & (kk[None, :, None] < K) & (on[None, None, :] < N),",
           f"                other={other})",
           f"    acc = tl.dot(a, b, acc{opts})",
           "tl.store(c_ptr + b3 * (M * N) + om[None, :, None] * N + on[None, None, :], acc,",
           "         mask=(b3 < NB) & (om[None, :, None] < M) & (on[None, None, :] < N))")
    k.sumabs["c_ptr"] = np.abs(Av) @ np.abs(Bv)
    k.expected["c_ptr"] = Av @ Bv


# ---- loads and stores -----------------------------------------------------------------
LOAD_KW = ["", "", ', cache_modifier=".ca"', ', cache_modifier=".cg"', ', cache_modifier=".cv"',
           ', eviction_policy="evict_first"', ', eviction_policy="evict_last"', ", volatile=True",
           ', cache_modifier=".cg", eviction_policy="evict_last"']
STORE_KW = ["", "", ', cache_modifier=".wb"', ', cache_modifier=".cg"', ', cache_modifier=".cs"',
            ', cache_modifier=".wt"', ', eviction_policy="evict_first"']
OTHERS = {"int8": ["0", "-1", "100", "-128"], "uint8": ["0", "255", "7"],
          "int16": ["0", "-3000", "1"], "int32": ["0", "-1", "2147483647", "123456"],
          "int64": ["0", "-1", "-9000000000"],
          "float16": ["0.0", "-2.5", "-inf", "nan", "3"],
          "bfloat16": ["0.0", "-2.5", "inf", "7"],
          "float32": ["0.0", "-1.5", "1e30", "-inf", "nan", "-2"],
          "float64": ["0.0", "nan", "inf", "5"]}
SPECIAL = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}


def values(r, shape, dt):
    if gen.is_float(dt):
        return grid_floats(r, shape, dt, 1000)
    return ints(r, shape, dt)


def other_value(o, dt):
    v = SPECIAL[o] if o in SPECIAL else float(o) if "." in o or "e" in o else int(o)
    if dt == "bfloat16":
        return gen.bf16_bits_to_f32(gen.f32_to_bf16_bits(np.array([v], np.float32)))[0]
    return np.array(v).astype(np.dtype(dt))


def t_tile2d(k, r):
    """A logical (LR, LC) view of a stored (R, C) tensor through run-time (maybe negative)
    strides and a base offset, loaded in 2-D tiles under one of several masks."""
    dt = r.choice(list(OTHERS))
    R, C = r.randint(1, 40), r.randint(1, 40)
    X = values(r, (R, C), dt)
    k.inp("x_ptr", X, dt)
    view = r.choice(["id", "flip_r", "flip_c", "flip_rc", "trans", "trans_flip"])
    if view == "id":
        off, sr, sc, L = 0, C, 1, X
    elif view == "flip_r":
        off, sr, sc, L = (R - 1) * C, -C, 1, X[::-1, :]
    elif view == "flip_c":
        off, sr, sc, L = C - 1, C, -1, X[:, ::-1]
    elif view == "flip_rc":
        off, sr, sc, L = R * C - 1, -C, -1, X[::-1, ::-1]
    elif view == "trans":
        off, sr, sc, L = 0, 1, C, X.T
    else:
        off, sr, sc, L = (R - 1) * C, 1, -C, X[::-1, :].T
    LR, LC = L.shape
    BR, BC = r.choice([(8, 8), (16, 16), (4, 32), (32, 4), (16, 8), (2, 64)])
    GR, GC = -(-LR // BR), -(-LC // BC)
    k.grid = (GR, GC)
    k.const("BR", BR)
    k.const("BC", BC)
    wide = r.random() < 0.4
    for s, v in [("LR", LR), ("LC", LC), ("off", off), ("sr", sr), ("sc", sc)]:
        k.scalar(s, v)
    k.line("i = tl.program_id(0) * BR + tl.arange(0, BR)[:, None]",
           "j = tl.program_id(1) * BC + tl.arange(0, BC)[None, :]")
    if wide:
        big = r.randint(2**31, 2**40)
        k.scalar("big", big)
        k.line("o = (off + big + i.to(tl.int64) * sr + j.to(tl.int64) * sc) - big")
    else:
        k.line("o = off + i * sr + j * sc")
    I, J = np.meshgrid(np.arange(GR * BR), np.arange(GC * BC), indexing="ij")
    inb = (I < LR) & (J < LC)
    mk = r.choice(["bounds", "tri", "tri_up", "checker", "loaded", "rows_only_in"])
    if mk == "bounds":
        k.line("m = (i < LR) & (j < LC)")
        M = inb
    elif mk == "tri":
        k.line("m = (j <= i) & (i < LR) & (j < LC)")
        M = inb & (J <= I)
    elif mk == "tri_up":
        k.line("m = (i < LR) & (j < LC) & (j - i >= 2)")
        M = inb & (J - I >= 2)
    elif mk == "checker":
        k.line("m = ((i + j) % 2 == 0) & (i < LR) & (j < LC)")
        M = inb & ((I + J) % 2 == 0)
    elif mk == "loaded":
        mb = ints(r, (GR * BR, GC * BC), "int8", 0, 1).astype(np.bool_)
        k.inp("mk_ptr", mb, "bool")
        k.line(f"m = tl.load(mk_ptr + i * {GC * BC} + j) & (i < LR) & (j < LC)")
        M = mb & inb
    else:  # rows in bounds by clamping, columns by the mask
        k.line("i = tl.minimum(i, LR - 1)",
               "m = j < LC")
        I = np.minimum(I, LR - 1)
        M = J < LC
        k.line("o = " + ("(off + big + i.to(tl.int64) * sr + j.to(tl.int64) * sc) - big"
                         if wide else "off + i * sr + j * sc"))
    o = r.choice(OTHERS[dt])
    kw = r.choice(LOAD_KW)
    if o in SPECIAL:  # a run-time float32 scalar
        k.scalar("ov", SPECIAL[o])
    k.line(f"t = tl.load(x_ptr + o, mask=m, other={'ov' if o in SPECIAL else o}{kw})")
    skw = r.choice(STORE_KW)
    k.line(f"w = tl.program_id(0) * BR * {GC * BC} + tl.program_id(1) * BC"
           f" + tl.arange(0, BR)[:, None] * {GC * BC} + tl.arange(0, BC)[None, :]",
           f"tl.store(out0_ptr + w, t{skw})",
           "tl.store(out1_ptr + w, m)")
    k.out("out0_ptr", (GR * BR, GC * BC), dt)
    k.out("out1_ptr", (GR * BR, GC * BC), "bool")
    Lf = L
    exp = np.empty((GR * BR, GC * BC), dtype=Lf.dtype)
    ov = other_value(o, dt)
    exp[...] = gen.f32_to_bf16_bits(np.array([ov], np.float32))[0] if dt == "bfloat16" else ov
    Ic, Jc = np.minimum(I, LR - 1), np.minimum(J, LC - 1)
    exp[M] = Lf[Ic, Jc][M]
    k.expected["out0_ptr"] = exp
    k.expected["out1_ptr"] = M


def t_gather(k, r):
    """1-D gathers through an index tensor, broadcast loads, scatter stores through a
    permutation, scalar loads and stores, bool stores, hints."""
    dt = r.choice(["float32", "float16", "int32", "int64", "int8", "bfloat16", "float64"])
    B = r.choice([16, 32, 64, 128])
    n = r.randint(1, 3 * B)
    nprog = -(-n // B)
    S = r.randint(1, 50)
    X = values(r, (S,), dt)
    idx = np.array([r.randrange(S) for _ in range(n)], dtype=r.choice([np.int32, np.int64]))
    perm = np.array(r.sample(range(n), n), dtype=np.int32)
    G = r.choice([1, 2, 4, 7])
    j0 = r.randrange(S)
    k.inp("x_ptr", X, dt)
    k.inp("idx_ptr", idx, str(idx.dtype))
    k.inp("perm_ptr", perm, "int32")
    k.const("B", B)
    k.scalar("n", n)
    k.scalar("S", S)
    k.scalar("j0", j0)
    k.grid = (nprog,)
    hint = r.random() < 0.5
    k.line("pid = tl.program_id(0)", "offs = pid * B + tl.arange(0, B)")
    if hint:
        k.line("offs = tl.max_contiguous(tl.multiple_of(offs, B), B)")
    kw1, kw2 = r.choice(LOAD_KW), r.choice(LOAD_KW)
    k.line("mask = offs < n",
           f"ix = tl.load(idx_ptr + offs, mask=mask, other=0{kw1})",
           f"g = tl.load(x_ptr + ix, mask=mask{kw2})",
           f"bc = tl.load(x_ptr + (offs // {G}) % S)",
           "one = tl.load(x_ptr + offs * 0 + j0)",
           "p = tl.load(perm_ptr + offs, mask=mask, other=0)",
           f"tl.store(out0_ptr + p, g, mask=mask{r.choice(STORE_KW)})",
           "tl.store(out1_ptr + offs, bc, mask=mask)",
           "tl.store(out2_ptr + offs, one, mask=mask)",
           "s = tl.load(x_ptr + j0)",
           "tl.store(out3_ptr + pid, s)",
           "tl.store(out4_ptr + offs, g > one, mask=mask)",
           "tl.store(out5_ptr + pid, tl.sum(mask.to(tl.int32)))")
    if r.random() < 0.5:
        k.line("if pid == 0:",
               "    tl.store(out3_ptr + tl.num_programs(0), tl.load(x_ptr + S - 1))")
    else:
        k.line("tl.store(out3_ptr + tl.num_programs(0), tl.load(x_ptr + S - 1))")
    gv = X[idx]
    out0 = np.zeros(n, X.dtype)
    out0[perm] = gv
    k.out("out0_ptr", (n,), dt)
    k.out("out1_ptr", (n,), dt)
    k.out("out2_ptr", (n,), dt)
    k.out("out3_ptr", (nprog + 1,), dt)
    k.out("out4_ptr", (n,), "bool")
    k.out("out5_ptr", (nprog,), "int32")
    o = np.arange(n)
    k.expected["out0_ptr"] = out0
    k.expected["out1_ptr"] = X[(o // G) % S]
    k.expected["out2_ptr"] = np.full(n, X[j0])
    k.expected["out3_ptr"] = np.array([X[j0]] * nprog + [X[S - 1]], X.dtype)
    xf = to_f64(X, dt)
    k.expected["out4_ptr"] = xf[idx] > xf[j0]
    k.expected["out5_ptr"] = np.array([min(B, n - p * B) for p in range(nprog)], np.int32)


def t_gather2d(k, r):
    """Rows gathered through an index tensor, int64 column offsets, stored to a
    transposed output through run-time strides."""
    dt = r.choice(["float32", "float16", "int16", "uint8", "int32"])
    R, C = r.randint(1, 30), r.randint(1, 40)
    X = values(r, (R, C), dt)
    BR, BC = r.choice([(8, 16), (16, 8), (4, 32), (16, 16)])
    n = r.randint(1, 3 * BR)
    rows = np.array([r.randrange(R) for _ in range(n)], dtype=np.int32)
    k.inp("x_ptr", X, dt)
    k.inp("rows_ptr", rows, "int32")
    k.const("BR", BR)
    k.const("BC", BC)
    for s, v in [("n", n), ("C", C), ("ld", C)]:
        k.scalar(s, v)
    k.grid = (-(-n // BR), -(-C // BC))
    k.line("i = tl.program_id(0) * BR + tl.arange(0, BR)",
           "j = (tl.program_id(1) * BC + tl.arange(0, BC)).to(tl.int64)",
           "ri = tl.load(rows_ptr + i, mask=i < n, other=0)",
           "m = (i[:, None] < n) & (j[None, :] < C)",
           "v = tl.load(x_ptr + ri[:, None].to(tl.int64) * ld + j[None, :], mask=m)",
           "tl.store(out0_ptr + j[None, :] * n + i[:, None], v, mask=m)")
    k.out("out0_ptr", (C, n), dt)
    k.expected["out0_ptr"] = X[rows].T


def t_block_ptr(k, r):
    """make_block_ptr in both orders with boundary_check / padding_option, advanced in a
    loop; stores through a block pointer."""
    dt = r.choice(["float32", "float16", "int32", "int8", "bfloat16"])
    isf = gen.is_float(dt)
    col = r.random() < 0.5
    BR, BC = r.choice([(8, 8), (16, 16), (4, 32), (32, 8)])
    R, C = r.randint(1, 3 * BR), r.randint(1, 4 * BC)
    if dt == "bfloat16":
        X = grid_floats(r, (R, C), "float32", 200)
        Xs = gen.f32_to_bf16_bits(X)
        Xv = X.astype(np.float64)
    else:
        X = grid_floats(r, (R, C), dt, 200) if isf else ints(r, (R, C), dt, -100, 100)
        Xs, Xv = X, X.astype(np.float64)
    if col:
        k.inp("x_ptr", np.ascontiguousarray(Xs.T), dt)
        strides, order = "(1, R)", "(0, 1)"
    else:
        k.inp("x_ptr", Xs, dt)
        strides, order = "(C, 1)", "(1, 0)"
    pad = r.choice([', padding_option="zero"'] + ([', padding_option="nan"'] if isf else []))
    k.const("BR", BR)
    k.const("BC", BC)
    k.scalar("R", R)
    k.scalar("C", C)
    k.grid = (-(-R // BR),)
    adt = "tl.float32" if isf else "tl.int32"
    fill = "0.0" if isf else "0"
    k.line("pid = tl.program_id(0)",
           f"bp = tl.make_block_ptr(base=x_ptr, shape=(R, C), strides={strides},",
           f"                       offsets=(pid * BR, 0), block_shape=(BR, BC), order={order})",
           f"acc = tl.zeros((BR, BC), dtype={adt})",
           f"first = tl.load(bp, boundary_check=(0, 1){pad}).to({adt})",
           "for kk in range(0, tl.cdiv(C, BC)):",
           f"    t = tl.load(bp, boundary_check=(1, 0){pad})",
           f"    acc += tl.where(t == t, t, {fill}).to({adt})",
           "    bp = tl.advance(bp, (0, BC))",
           "ob = tl.make_block_ptr(out0_ptr, shape=(R, BC), strides=(BC, 1), "
           "offsets=(pid * BR, 0),",
           "                       block_shape=(BR, BC), order=(1, 0))",
           "tl.store(ob, acc, boundary_check=(0,))",
           "ob2 = tl.make_block_ptr(out1_ptr, (BC, R), (1, BC), (0, pid * BR), (BC, BR), (0, 1))",
           "tl.store(ob2, tl.trans(first), boundary_check=(1, 0))")
    odt = "float32" if isf else "int32"
    k.out("out0_ptr", (R, BC), odt)
    k.out("out1_ptr", (R, BC), odt)  # (BC, R) with strides (1, BC): row-major (R, BC)
    nb = -(-C // BC)
    P = np.zeros((R, nb * BC))
    P[:, :C] = Xv
    k.expected["out0_ptr"] = P.reshape(R, nb, BC).sum(axis=1)
    first = np.zeros((R, BC))
    first[:, :min(C, BC)] = Xv[:, :BC]
    if "nan" in pad:
        first[:, min(C, BC):] = np.nan
    k.expected["out1_ptr"] = first


ALLOC = ["import torch", "", "",
         "def _alloc(size, alignment, stream):",
         "    dev = \"cuda\" if torch.cuda.is_available() else \"cpu\"",
         "    return torch.empty(size, dtype=torch.int8, device=dev)", "", "",
         "triton.set_allocator(_alloc)"]


def t_desc(k, r):
    """tl.make_tensor_descriptor: a tile load (zero fill beyond the shape) and store
    (clipped), and a descriptor matmul."""
    if r.random() < 0.5:
        dt = r.choice(["float32", "float16", "int32", "int8"])
        es = np.dtype(dt).itemsize
        BR, BC = r.choice([(8, 16), (16, 16), (16, 32), (32, 32), (8, 64)])
        if BC * es < 32:
            BC = 32 // es
        R, C = r.randint(1, 3 * BR), r.randint(1, 3 * BC)
        q = 16 // es
        ld = -(-C // q) * q + q * r.choice([0, 1])
        X = np.zeros((R, ld), dtype=np.dtype(dt))
        X[:, :C] = values(r, (R, C), dt)
        X[:, C:] = values(r, (R, ld - C), dt)
        k.inp("x_ptr", X, dt)
        k.out("out0_ptr", (R, ld), dt)
        k.out("out1_ptr", (-(-R // BR) * BR, -(-C // BC) * BC), dt)
        for s, v in [("R", R), ("C", C), ("ld", ld)]:
            k.scalar(s, v)
        k.const("BR", BR)
        k.const("BC", BC)
        k.grid = (-(-R // BR), -(-C // BC))
        W = -(-C // BC) * BC
        k.line("r0 = tl.program_id(0) * BR", "c0 = tl.program_id(1) * BC",
               "xd = tl.make_tensor_descriptor(x_ptr, shape=[R, C], strides=[ld, 1],",
               "                               block_shape=[BR, BC])",
               "od = tl.make_tensor_descriptor(out0_ptr, shape=[R, C], strides=[ld, 1],",
               "                               block_shape=[BR, BC])",
               "t = xd.load([r0, c0])",
               "od.store([r0, c0], t)",
               "i = r0 + tl.arange(0, BR)[:, None]",
               "j = c0 + tl.arange(0, BC)[None, :]",
               f"tl.store(out1_ptr + i * {W} + j, t)")
        e0 = np.zeros((R, ld), X.dtype)
        e0[:, :C] = X[:, :C]
        e1 = np.zeros((-(-R // BR) * BR, W), X.dtype)
        e1[:R, :C] = X[:, :C]
        k.expected["out0_ptr"] = e0
        k.expected["out1_ptr"] = e1
        return
    dt = r.choice(["float16", "bfloat16", "float32"])
    BM, BN, BK = r.choice([16, 32, 64]), r.choice([16, 32]), r.choice([16, 32])
    M, N, K = dims(r, BM), dims(r, BN), r.randint(16, 3 * BK)
    q = 8 if dt != "float32" else 4
    lda, ldb, ldc = -(-K // q) * q, -(-N // q) * q, -(-N // 4) * 4
    A, Av = dot_values(r, (M, K), dt)
    Bm, Bv = dot_values(r, (K, N), dt)
    As = np.zeros((M, lda), A.dtype)
    As[:, :K] = A
    Bs = np.zeros((K, ldb), Bm.dtype)
    Bs[:, :N] = Bm
    k.inp("a_ptr", As, dt)
    k.inp("b_ptr", Bs, dt)
    k.out("c_ptr", (M, ldc), "float32", rel_tol(dt, K))
    for s, v in [("M", M), ("N", N), ("K", K), ("lda", lda), ("ldb", ldb), ("ldc", ldc)]:
        k.scalar(s, v)
    for c, v in [("BM", BM), ("BN", BN), ("BK", BK)]:
        k.const(c, v)
    k.grid = (-(-M // BM), -(-N // BN))
    opts = ', input_precision="ieee"' if dt == "float32" else ""
    k.line("pm = tl.program_id(0) * BM", "pn = tl.program_id(1) * BN",
           "ad = tl.make_tensor_descriptor(a_ptr, [M, K], [lda, 1], [BM, BK])",
           "bd = tl.make_tensor_descriptor(b_ptr, [K, N], [ldb, 1], [BK, BN])",
           "cd = tl.make_tensor_descriptor(c_ptr, [M, N], [ldc, 1], [BM, BN])",
           "acc = tl.zeros((BM, BN), dtype=tl.float32)",
           "for k in range(0, K, BK):",
           f"    acc = tl.dot(ad.load([pm, k]), bd.load([k, pn]), acc{opts})",
           "cd.store([pm, pn], acc)")
    sa = np.zeros((M, ldc))
    sa[:, :N] = np.abs(Av) @ np.abs(Bv)
    ex = np.zeros((M, ldc))
    ex[:, :N] = Av @ Bv
    k.sumabs["c_ptr"] = sa
    k.expected["c_ptr"] = ex


def t_matmul_trans(k, r):
    t_matmul(k, r, "trans")


TEMPLATES = [t_matmul, t_tile2d, t_matmul, t_gather, t_bdot, t_matmul_bp, t_block_ptr,
             t_matmul, t_desc, t_tile2d, t_gather2d, t_matmul_trans]


def generate(seed, fingerprint=True):
    """Kernel `seed` of the family (fingerprint is accepted for the interface and not
    used)."""
    template = TEMPLATES[seed % len(TEMPLATES)]
    rng = random.Random(seed * 104729 + 29)
    k = cf.K(rng)
    k.sumabs = {}
    k.expected = {}
    template(k, rng)
    params = ([n for n, _, _ in k.inputs] + [o[0] for o in k.outputs]
              + [s for s, _ in k.scalars] + [f"{c}: tl.constexpr" for c in k.constexprs])
    src = ["import triton", "import triton.language as tl"]
    body = "\n".join(k.body)
    if "make_tensor_descriptor" in body:
        src += ALLOC
    src += ["", "", "@triton.jit", f"def kernel({', '.join(params)}):"]
    src += ["    " + ln for ln in k.body]
    case = MdCase(seed=seed, source="\n".join(src) + "\n", inputs=k.inputs, scalars=k.scalars,
                  outputs=k.outputs, grid=k.grid, constexprs=k.constexprs, probe="")
    case.template = template.__name__[2:]
    case.inits = k.inits
    case.sumabs = k.sumabs
    case.expected = k.expected  # float64 / exact values of the mathematics (dry-run checks)
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
