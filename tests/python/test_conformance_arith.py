"""Conformance: binary arithmetic, bitwise ops and shifts, comparisons and unary ops,
with Triton's type promotion (tensor/tensor, Python-number literals, run-time scalar
arguments and constexprs).

Results are stored into int64 or float64 buffers, which hold every narrower value
exactly, so the values stored show the type the kernel computed in: `int8 + int8`
wraps at 8 bits, an `f16 + f16` sum is rounded to f16, an `f16 / f16` quotient is not.
"""

import numpy as np
import pytest

import triton
import triton.language as tl

from conftest import (INTERPRET, ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, ULP, assert_close, assert_equal, bf16_round,
                      BF16_REASON, blockc_extension, empty, interpreter_limitation, is_float, is_int, nonzero, rand, rng,
                      round_to, tl_dtype, to_torch, compile_error_at)

BLOCK = 64
HERE = __file__
N = 50  # lanes 50..63 are masked off

INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def promote(a, b, div_or_mod=False):
    """Triton's computation type of a binary op on two tensors of dtypes a and b."""
    if "float64" in (a, b):
        return "float64"
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):
        return "float32" if div_or_mod else "float16"
    if a == b == "bfloat16":
        return "float32" if div_or_mod else "bfloat16"
    if "bfloat16" in (a, b):
        return "float32"
    return a if INT_BITS[a] >= INT_BITS[b] else b


def compute(op, a, b, dtype):
    """`a op b` in `dtype` (both already of that type), as a kernel computes it."""
    if dtype == "bfloat16":
        return bf16_round(compute(op, a.astype(np.float32), b.astype(np.float32), "float32"))
    with np.errstate(all="ignore"):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        if op == "%":
            return np.fmod(a, b)  # C's remainder: the sign of the dividend, ints and floats
        if op == "//":  # ints: the quotient truncated toward zero
            q = a // b
            return np.where((a - q * b != 0) & ((a < 0) != (b < 0)), q + 1, q).astype(a.dtype)
    raise ValueError(op)


def result_type(op, xd, yd):
    if op == "/":
        t = promote(xd, yd, div_or_mod=True)
        return "float32" if is_int(t) else t
    return promote(xd, yd, div_or_mod=op in ("//", "%"))


def wide(dtype):
    """The buffer type that holds every value of `dtype` exactly."""
    return "int64" if is_int(dtype) else "bool" if dtype == "bool" else "float64"


@triton.jit
def apply_binary(x, y, OP: tl.constexpr):
    """The operator OP names: a helper taking a constexpr string, as operator
    libraries write them."""
    if OP == "+":
        z = x + y
    elif OP == "-":
        z = x - y
    elif OP == "*":
        z = x * y
    elif OP == "/":
        z = x / y
    elif OP == "//":
        z = x // y
    elif OP == "%":
        z = x % y
    elif OP == "&":
        z = x & y
    elif OP == "|":
        z = x | y
    elif OP == "^":
        z = x ^ y
    elif OP == "<<":
        z = x << y
    elif OP == ">>":
        z = x >> y
    return z


@triton.jit
def binary_kernel(x_ptr, y_ptr, z_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(z_ptr + offs, apply_binary(x, y, OP), mask=mask)


def operands(op, xd, yd, seed):
    """Inputs for `op`: whole-range ints for + - *, divisors that are not zero,
    dividends above the type's minimum (no MIN // -1), specials for float + - * /."""
    gen = rng(seed)
    mixed = is_int(xd) != is_int(yd)

    def one(dtype, divisor):
        if is_int(dtype):
            if mixed:  # small enough for f16 and exact in f32
                return rand(gen, N, dtype, -1000, 1000)
            if divisor:
                return nonzero(rand(gen, N, dtype, -9, 9))
            if op in ("/", "//", "%"):
                info = np.iinfo(dtype)
                hi = min(info.max, 2**24)  # int / int converts to f32: keep it exact
                return rand(gen, N, dtype, -hi, hi)
            return rand(gen, N, dtype)
        if divisor:
            magnitude = rand(gen, N, dtype, 0.25, 4.0)
            return np.where(gen.random(N) < 0.5, -magnitude, magnitude).astype(magnitude.dtype)
        return rand(gen, N, dtype)

    x, y = one(xd, False), one(yd, op in ("/", "//", "%"))
    if op in ("+", "-", "*", "/"):
        if is_float(xd):
            x[:4] = [np.inf, -np.inf, np.nan, -0.0]
        if is_float(yd):
            y[4:8] = [np.inf, np.nan, -0.0, 0.0] if op == "/" else [np.inf, np.nan, -0.0, 2.0]
    return x, y


def run_binary(op, xd, yd, seed=0):
    x, y = operands(op, xd, yd, seed)
    rt = result_type(op, xd, yd)
    z = empty(BLOCK, wide(rt))
    binary_kernel[(1,)](to_torch(x, xd), to_torch(y, yd), z, N, OP=op, BLOCK=BLOCK)
    expected = compute(op, round_to(x, rt), round_to(y, rt), rt)
    return z[:N], expected, rt


def check(z, expected, rt, op):
    if op == "/" and is_float(rt):
        # Triton's float division is allowed an ulp or two (GPUs divide approximately).
        assert_close(z, expected, rtol=2 * ULP[rt])
    else:
        assert_equal(z, expected)


ARITH_CASES = [(d, op) for d in ALL_DTYPES for op in ("+", "-", "*", "/", "%")] + \
              [(d, "//") for d in INT_DTYPES]


@interpreter_limitation(BF16_REASON, ids=["bfloat16+", "bfloat16-", "bfloat16*"])
@pytest.mark.parametrize("dtype,op", ARITH_CASES, ids=[f"{d}{op}" for d, op in ARITH_CASES])
def test_binary_same_dtype(dtype, op):
    z, expected, rt = run_binary(op, dtype, dtype)
    check(z, expected, rt, op)


MIXED_PAIRS = [
    ("int8", "int16"), ("int16", "int64"), ("int32", "int64"), ("int64", "int8"),
    ("int32", "float16"), ("int64", "float32"), ("int8", "bfloat16"), ("int16", "float64"),
    ("float16", "float32"), ("float16", "bfloat16"), ("bfloat16", "float32"),
    ("float32", "float64"), ("bfloat16", "float64"),
]
MIXED_CASES = [(xd, yd, op) for xd, yd in MIXED_PAIRS for op in ("+", "*", "/")] + \
              [(xd, yd, op) for xd, yd in MIXED_PAIRS if is_int(xd) and is_int(yd) for op in ("//", "%")]


@pytest.mark.parametrize("xd,yd,op", MIXED_CASES, ids=[f"{x}{op}{y}" for x, y, op in MIXED_CASES])
def test_binary_mixed_dtypes(xd, yd, op):
    z, expected, rt = run_binary(op, xd, yd)
    check(z, expected, rt, op)


# Triton's promotion table, spelled out (the tests above compute it with promote()).
PROMOTION_TABLE = [
    ("int8", "int8", "+", "int8"), ("int8", "int16", "+", "int16"), ("int32", "int64", "*", "int64"),
    ("int8", "int8", "/", "float32"), ("int64", "int64", "/", "float32"), ("int16", "int16", "//", "int16"),
    ("float16", "float16", "+", "float16"), ("float16", "float16", "/", "float32"),
    ("float16", "float16", "%", "float32"), ("bfloat16", "bfloat16", "*", "bfloat16"),
    ("bfloat16", "bfloat16", "/", "float32"), ("float16", "bfloat16", "+", "float16"),
    ("bfloat16", "int32", "+", "float32"), ("int64", "float16", "+", "float16"),
    ("float16", "float32", "+", "float32"), ("float32", "float64", "-", "float64"),
    ("int64", "float32", "*", "float32"),
]


@triton.jit
def result_dtype_kernel(x_ptr, y_ptr, z_ptr, OP: tl.constexpr, EXPECTED: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.load(y_ptr + tl.arange(0, 16))
    z = apply_binary(x, y, OP)
    tl.static_assert(z.dtype == EXPECTED)
    tl.store(z_ptr + tl.arange(0, 16), z)


@interpreter_limitation(BF16_REASON, ids=["bfloat16*bfloat16"])
@pytest.mark.parametrize("xd,yd,op,expected", PROMOTION_TABLE,
                         ids=[f"{x}{op}{y}" for x, y, op, _ in PROMOTION_TABLE])
def test_result_dtype(xd, yd, op, expected):
    assert result_type(op, xd, yd) == expected
    x, y = np.full(16, 3), np.full(16, 2)
    z = empty(16, wide(expected))
    result_dtype_kernel[(1,)](to_torch(x, xd), to_torch(y, yd), z, OP=op, EXPECTED=tl_dtype(expected))
    assert_close(z, compute(op, round_to(x, expected), round_to(y, expected), expected), rtol=1e-7)


# --- Python numbers are weak: they do not widen a tensor of the same or a higher kind


@triton.jit
def literal_kernel(x_ptr, z_ptr, n, EXPR: tl.constexpr, RESULT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    if EXPR == "x+100":
        z = x + 100
    elif EXPR == "100-x":
        z = 100 - x
    elif EXPR == "x*3":
        z = x * 3
    elif EXPR == "3*x":
        z = 3 * x
    elif EXPR == "x+1.5":
        z = x + 1.5
    elif EXPR == "x/2":
        z = x / 2
    elif EXPR == "x/3.0":
        z = x / 3.0
    elif EXPR == "7/x":
        z = 7 / x
    elif EXPR == "x//3":
        z = x // 3
    elif EXPR == "x%3":
        z = x % 3
    elif EXPR == "-7//x":
        z = -7 // x
    elif EXPR == "x&15":
        z = x & 15
    elif EXPR == "x|64":
        z = x | 64
    elif EXPR == "x^-1":
        z = x ^ -1
    elif EXPR == "x<<3":
        z = x << 3
    elif EXPR == "x>>2":
        z = x >> 2
    elif EXPR == "x<<40":
        z = x << 40
    tl.static_assert(z.dtype == RESULT)
    tl.store(z_ptr + offs, z, mask=mask)


def literal_reference(expr, x, rt):
    with np.errstate(all="ignore"):
        a = round_to(x, rt)
        k = lambda v: round_to(np.full(a.shape, v), rt)  # the literal, in the result type
        table = {
            "x+100": lambda: compute("+", a, k(100), rt),
            "100-x": lambda: compute("-", k(100), a, rt),
            "x*3": lambda: compute("*", a, k(3), rt),
            "3*x": lambda: compute("*", k(3), a, rt),
            "x+1.5": lambda: compute("+", a, k(1.5), rt),
            "x/2": lambda: compute("/", a, k(2), rt),
            "x/3.0": lambda: compute("/", a, k(3.0), rt),
            "7/x": lambda: compute("/", k(7), a, rt),
            "x//3": lambda: compute("//", a, k(3), rt),
            "x%3": lambda: compute("%", a, k(3), rt),
            "-7//x": lambda: compute("//", k(-7), a, rt),
            "x&15": lambda: a & k(15),
            "x|64": lambda: a | k(64),
            "x^-1": lambda: a ^ k(-1),
            "x<<3": lambda: a << k(3),
            "x>>2": lambda: a >> k(2),
            "x<<40": lambda: a << k(40),
        }
        return table[expr]()


LITERAL_CASES = [
    # (dtype of x, expression, Triton's result type)
    ("int8", "x+100", "int8"), ("int8", "100-x", "int8"), ("int16", "x*3", "int16"),
    ("int32", "3*x", "int32"), ("int64", "x*3", "int64"),
    ("int8", "x+1.5", "float32"), ("int8", "x/2", "float32"), ("int32", "7/x", "float32"),
    ("int8", "x//3", "int8"), ("int16", "x%3", "int16"), ("int32", "-7//x", "int32"),
    ("int8", "x&15", "int8"), ("int16", "x|64", "int16"), ("int32", "x^-1", "int32"),
    ("int8", "x<<3", "int8"), ("int16", "x>>2", "int16"), ("int64", "x<<40", "int64"),
    ("float16", "x+1.5", "float16"), ("float16", "x*3", "float16"), ("float16", "100-x", "float16"),
    ("float16", "x/3.0", "float32"), ("float16", "x%3", "float32"),
    ("bfloat16", "x+1.5", "bfloat16"), ("bfloat16", "x/3.0", "float32"),
    ("float32", "x+1.5", "float32"), ("float32", "x%3", "float32"), ("float64", "x/3.0", "float64"),
    ("float64", "7/x", "float64"),
]


@interpreter_limitation("a Python float operand of a bfloat16 tensor (its builder has no get_bf16)",
                        ids=["bfloat16:x+1.5"])
@pytest.mark.parametrize("dtype,expr,rt", LITERAL_CASES, ids=[f"{d}:{e}" for d, e, _ in LITERAL_CASES])
def test_python_number_operand(dtype, expr, rt):
    gen = rng(1)
    if is_int(dtype):
        x = rand(gen, N, dtype) if expr in ("x+100", "100-x", "x*3", "3*x", "x^-1", "x<<3", "x<<40") \
            else nonzero(rand(gen, N, dtype, -100, 100))
    else:
        x = nonzero(rand(gen, N, dtype, -8.0, 8.0))
    z = empty(BLOCK, wide(rt))
    literal_kernel[(1,)](to_torch(x, dtype), z, N, EXPR=expr, RESULT=tl_dtype(rt), BLOCK=BLOCK)
    expected = literal_reference(expr, x, rt)
    if "/" in expr and "//" not in expr:
        assert_close(z[:N], expected, rtol=2 * ULP[rt])
    else:
        assert_equal(z[:N], expected)


# --- scalar arguments are tensors (not weak); constexprs are Python numbers (weak)


@triton.jit
def add_scalar_kernel(x_ptr, z_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) + s, mask=mask)


@triton.jit
def add_constexpr_kernel(x_ptr, z_ptr, n, S: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) + S, mask=mask)


def test_int_scalar_argument_is_int32():
    x = np.full(N, 100, np.int8)
    z = empty(BLOCK, "int64")
    add_scalar_kernel[(1,)](to_torch(x), z, 100, N, BLOCK=BLOCK)
    assert_equal(z[:N], np.full(N, 200))  # int8 + int32 is int32: no wrap


def test_int_constexpr_is_weak():
    x = np.full(N, 100, np.int8)
    z = empty(BLOCK, "int64")
    add_constexpr_kernel[(1,)](to_torch(x), z, N, S=100, BLOCK=BLOCK)
    assert_equal(z[:N], np.full(N, -56))  # int8 + literal stays int8 and wraps


@pytest.mark.skipif(INTERPRET, reason="Triton's interpreter passes float arguments as Python floats, which are "
                    "weak, where compiled Triton passes an fp32 scalar")
def test_float_scalar_argument_is_float32():
    x = rand(rng(2), N, "float16", 0.0, 1.0)
    z = empty(BLOCK, "float64")
    add_scalar_kernel[(1,)](to_torch(x), z, 0.1, N, BLOCK=BLOCK)
    assert_equal(z[:N], x.astype(np.float32) + np.float32(0.1))


def test_float_constexpr_is_weak():
    x = rand(rng(2), N, "float16", 0.0, 1.0)
    z = empty(BLOCK, "float64")
    add_constexpr_kernel[(1,)](to_torch(x), z, N, S=0.1, BLOCK=BLOCK)
    assert_equal(z[:N], x + np.float16(0.1))


# --- bitwise ops and shifts on signed ints


BITWISE_CASES = [(d, op) for d in INT_DTYPES for op in ("&", "|", "^", "<<", ">>")] + \
                [("int8", "&", "int32"), ("int16", "|", "int64"), ("int64", "^", "int8")]


@pytest.mark.parametrize("case", BITWISE_CASES, ids=["".join(c) for c in BITWISE_CASES])
def test_bitwise(case):
    xd, op = case[0], case[1]
    yd = case[2] if len(case) > 2 else xd
    gen = rng(3)
    x = rand(gen, N, xd)
    if op in ("<<", ">>"):
        y = rand(gen, N, yd, 0, INT_BITS[yd] - 1)  # shifts by less than the width
    else:
        y = rand(gen, N, yd)
    rt = promote(xd, yd)
    z = empty(BLOCK, "int64")
    binary_kernel[(1,)](to_torch(x, xd), to_torch(y, yd), z, N, OP=op, BLOCK=BLOCK)
    a, b = round_to(x, rt), round_to(y, rt)
    with np.errstate(all="ignore"):
        expected = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor,
                    "<<": np.left_shift, ">>": np.right_shift}[op](a, b)
    assert_equal(z[:N], expected.astype(rt))


def test_bitwise_on_bools():
    gen = rng(4)
    x, y = rand(gen, N, "bool"), rand(gen, N, "bool")
    for op, expected in (("&", x & y), ("|", x | y), ("^", x ^ y)):
        z = empty(BLOCK, "bool")
        binary_kernel[(1,)](to_torch(x), to_torch(y), z, N, OP=op, BLOCK=BLOCK)
        assert_equal(z[:N], expected, err_msg=op)


# --- comparisons


@triton.jit
def compare_kernel(x_ptr, y_ptr, lt_ptr, le_ptr, gt_ptr, ge_ptr, eq_ptr, ne_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(lt_ptr + offs, x < y, mask=mask)
    tl.store(le_ptr + offs, x <= y, mask=mask)
    tl.store(gt_ptr + offs, x > y, mask=mask)
    tl.store(ge_ptr + offs, x >= y, mask=mask)
    tl.store(eq_ptr + offs, x == y, mask=mask)
    tl.store(ne_ptr + offs, x != y, mask=mask)


COMPARE_CASES = [(d, d) for d in ALL_DTYPES] + [("int8", "float32"), ("int16", "int64"), ("float16", "float64")]


@interpreter_limitation(BF16_REASON, ids=["bfloat16-bfloat16"])
@pytest.mark.parametrize("xd,yd", COMPARE_CASES, ids=[f"{x}-{y}" for x, y in COMPARE_CASES])
def test_comparisons(xd, yd):
    gen = rng(5)
    x, y = rand(gen, N, xd, -3, 3), rand(gen, N, yd, -3, 3)
    y[:10] = round_to(x[:10], yd)  # equal pairs
    if is_float(xd):
        x[10:13] = [np.nan, np.inf, -0.0]
    if is_float(yd):
        y[10:14] = [1.0, np.inf, 0.0, np.nan]
    outs = [empty(BLOCK, "bool") for _ in range(6)]
    compare_kernel[(1,)](to_torch(x, xd), to_torch(y, yd), *outs, N, BLOCK=BLOCK)
    a, b = x.astype(np.float64), y.astype(np.float64)
    if is_int(xd) and is_int(yd):
        a, b = x.astype(np.int64), y.astype(np.int64)
    with np.errstate(invalid="ignore"):
        expected = [a < b, a <= b, a > b, a >= b, a == b, a != b]
    for name, out, exp in zip(("<", "<=", ">", ">=", "==", "!="), outs, expected):
        assert_equal(out[:N], exp, err_msg=name)


@triton.jit
def compare_literal_kernel(x_ptr, lt_ptr, eq_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(lt_ptr + offs, x < 0.1, mask=mask)
    tl.store(eq_ptr + offs, x == 0.1, mask=mask)


def test_comparison_with_a_float_literal_is_in_float32():
    # Unlike arithmetic, a comparison converts the literal to an f32 tensor first:
    # f16(0.1) = 0.0999755859375 is below 0.1 and not equal to it.
    x = np.array([0.1, 0.2, -0.1, 0.0999], np.float16)
    lt, eq = empty(16, "bool"), empty(16, "bool")
    compare_literal_kernel[(1,)](to_torch(x), lt, eq, 4, BLOCK=16)
    assert_equal(lt[:4], x.astype(np.float32) < np.float32(0.1))
    assert_equal(eq[:4], [False, False, False, False])


@triton.jit
def logical_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    keep = ((x > 0) & (y > 0)) | ~(x > -2) ^ (y == 3)
    tl.store(z_ptr + offs, keep, mask=mask)


def test_masks_combine_with_bitwise_ops():
    gen = rng(6)
    x, y = rand(gen, N, "int32", -4, 4), rand(gen, N, "int32", -4, 4)
    z = empty(BLOCK, "bool")
    logical_kernel[(1,)](to_torch(x), to_torch(y), z, N, BLOCK=BLOCK)
    assert_equal(z[:N], ((x > 0) & (y > 0)) | (~(x > -2) ^ (y == 3)))


@triton.jit
def mask_product_kernel(x_ptr, z_ptr, m, n, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    # LightLLM's form of a 2-D mask: int1 * int1 stays int1, a logical and.
    mask = (rn < n)[None, :] * (rm < m)[:, None]
    offs = rm[:, None] * N + rn[None, :]
    tl.store(z_ptr + offs, mask)
    x = tl.load(x_ptr + offs, mask=mask, other=-1)
    tl.store(x_ptr + offs, x + 1, mask=mask)


def test_product_of_masks_is_their_and():
    M, N, m, n = 8, 16, 5, 11
    x = np.arange(M * N, dtype=np.int32).reshape(M, N)
    z = empty((M, N), "bool")
    out = to_torch(x.copy())
    mask_product_kernel[(1,)](out, z, m, n, M=M, N=N)
    expected = (np.arange(M)[:, None] < m) & (np.arange(N)[None, :] < n)
    assert_equal(z, expected)
    assert_equal(out, np.where(expected, x + 1, x))


# --- unary ops


@triton.jit
def unary_kernel(x_ptr, z_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if OP == "neg":
        z = -x
    elif OP == "pos":
        z = +x
    elif OP == "abs":
        z = tl.abs(x)
    elif OP == "invert":
        z = ~x
    elif OP == "not":
        z = not x
    tl.store(z_ptr + offs, z, mask=mask)


UNARY_CASES = [(d, op) for d in ALL_DTYPES for op in ("neg", "abs")] + \
              [(d, "invert") for d in INT_DTYPES] + \
    [pytest.param(d, "pos", marks=blockc_extension("unary + (Triton 3.6's tensor has no __pos__)"))
     for d in ("float32", "int16")]


@interpreter_limitation(BF16_REASON, ids=["neg-bfloat16"])
@pytest.mark.parametrize("dtype,op", UNARY_CASES,
                         ids=[f"{c.values[1]}-{c.values[0]}" if hasattr(c, "values") else f"{c[1]}-{c[0]}"
                              for c in UNARY_CASES])
def test_unary(dtype, op):
    x = rand(rng(7), N, dtype)
    if is_int(dtype):
        x[0] = np.iinfo(dtype).min  # -MIN and abs(MIN) wrap to MIN
    else:
        x[:4] = [np.nan, -np.inf, -0.0, 0.0]
    z = empty(BLOCK, wide(dtype))
    unary_kernel[(1,)](to_torch(x, dtype), z, N, OP=op, BLOCK=BLOCK)
    with np.errstate(all="ignore"):
        expected = {"neg": lambda: -x, "pos": lambda: x, "abs": lambda: np.abs(x), "invert": lambda: ~x}[op]()
    assert_equal(z[:N], expected)
    if is_float(dtype) and op == "abs":  # abs clears the sign, of zeros and NaNs too
        assert_equal(np.signbit(z[:4].numpy()), [False, False, False, False])


@interpreter_limitation("`not mask` is Python's truth value of the tensor, not a logical not")
def test_not_on_a_mask():
    x = rand(rng(8), N, "bool")
    z = empty(BLOCK, "bool")
    unary_kernel[(1,)](to_torch(x), z, N, OP="not", BLOCK=BLOCK)
    assert_equal(z[:N], ~x)


@triton.jit
def scalar_arith_kernel(out_ptr, a, b):
    # Arithmetic on scalar (0-d) values: run-time arguments, not blocks.
    tl.store(out_ptr + 0, a + b)
    tl.store(out_ptr + 1, a - b)
    tl.store(out_ptr + 2, a * b)
    tl.store(out_ptr + 3, a // b)
    tl.store(out_ptr + 4, a % b)
    tl.store(out_ptr + 5, -a)
    tl.store(out_ptr + 6, (a > b).to(tl.int32))


def test_scalar_arithmetic():
    out = empty(7, "int32")
    scalar_arith_kernel[(1,)](out, -17, 5)
    assert_equal(out, [-12, -22, -85, -3, -2, 17, 0])


# --- Python numbers beside integer tensors, as compiled Triton 3.6 types them (measured on
# an H100: an int keeps a signed or unsigned tensor's type and must be one of its values)


@triton.jit
def literal_typing_kernel(x_ptr, y_ptr, and_ptr, shr_ptr, min_ptr, meta_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)  # uint8
    y = tl.load(y_ptr + offs)  # int8
    masked = x & 7
    # Arithmetic by the left operand's own sign, on the promoted (uint8) bits.
    shifted = y >> masked
    smallest = tl.minimum(y.to(tl.int16), 2)  # int32: a number is an int32 tensor here
    tl.store(and_ptr + offs, masked)
    tl.store(shr_ptr + offs, shifted)
    tl.store(min_ptr + offs, smallest)
    tl.store(meta_ptr + 0, masked.dtype.primitive_bitwidth * 2 + masked.dtype.is_int_signed())
    tl.store(meta_ptr + 1, shifted.dtype.primitive_bitwidth * 2 + shifted.dtype.is_int_signed())
    tl.store(meta_ptr + 2, smallest.dtype.primitive_bitwidth * 2 +
             smallest.dtype.is_int_signed())


def test_python_ints_keep_an_unsigned_tensors_type():
    import torch
    x = torch.tensor([255, 128, 9, 200, 1, 0, 77, 254], dtype=torch.uint8)
    y = torch.tensor([-1, -128, 7, -3, 5, 0, -100, 127], dtype=torch.int8)
    and_out = torch.zeros(8, dtype=torch.uint8)
    shr_out = torch.zeros(8, dtype=torch.uint8)
    min_out = torch.zeros(8, dtype=torch.int32)
    meta = torch.zeros(3, dtype=torch.int32)
    literal_typing_kernel[(1,)](x, y, and_out, shr_out, min_out, meta, N=8)
    xs, ys = x.numpy().astype(np.int64), y.numpy().astype(np.int64)
    assert_equal(and_out, xs & 7)
    assert_equal(shr_out, (ys >> (xs & 7)) & 0xFF)
    assert_equal(min_out, np.minimum(ys, 2))
    assert meta.tolist() == [8 * 2 + 0, 8 * 2 + 0, 32 * 2 + 1]


@triton.jit
def literal_out_of_range_kernel(x_ptr, N: tl.constexpr, VALUE: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, x + VALUE)  # literal out of range


@pytest.mark.parametrize("value,match", [(300, "Scalar 300 is out of range for type uint8"),
                                         (-1, "unsigned tensor and a negative scalar")])
def test_a_python_int_a_tensors_type_cannot_hold_is_an_error(value, match):
    import torch
    x = torch.zeros(8, dtype=torch.uint8)
    with compile_error_at(HERE, "literal out of range", match):
        literal_out_of_range_kernel[(1,)](x, N=8, VALUE=value)
