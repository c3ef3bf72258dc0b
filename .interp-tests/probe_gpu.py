"""Run on the device with compiled Triton on the GPU (no TRITON_INTERPRET): which
constructs Triton 3.6 itself accepts, and a few values."""
import math, traceback
import numpy as np, torch, triton, triton.language as tl
from triton.language.extra import libdevice
dev = "cuda"

def probe(name, fn):
    try:
        print(name, "->", fn())
    except Exception as e:
        msg = str(e).strip().splitlines()
        print(name, "-> ERROR", type(e).__name__, (msg[-1] if msg else "")[:200])

@triton.jit
def k_pos(x, z): tl.store(z + tl.arange(0, 4), +tl.load(x + tl.arange(0, 4)))
@triton.jit
def k_not(x, z):
    m = tl.load(x + tl.arange(0, 4)) > 0
    tl.store(z + tl.arange(0, 4), (not m).to(tl.int32))
@triton.jit
def k_dtcall(x, z):
    y = tl.float16(tl.load(x))
    m = tl.float32(-float("inf"))
    tl.store(z, tl.maximum(m, y.to(tl.float32)))
@triton.jit
def k_flip1(x, z): tl.store(z + tl.arange(0, 4), tl.load(x + tl.arange(0, 4)).flip())
@triton.jit
def k_flipm1(x, z): tl.store(z + tl.arange(0, 4), tl.flip(tl.load(x + tl.arange(0, 4)), -1))
@triton.jit
def k_stdmax(x, z): tl.store(z + tl.arange(0, 4), tl.standard.maximum(tl.load(x + tl.arange(0, 4)), 0.0))
@triton.jit
def k_cvalue(z, BLOCK: tl.constexpr):
    HALF = tl.constexpr(BLOCK // 2)
    tl.store(z + tl.arange(0, BLOCK), tl.arange(0, BLOCK) * 0 + HALF.value + BLOCK.value)
@triton.jit
def k_min(x, y, z):
    o = tl.arange(0, 4)
    tl.store(z + o, tl.minimum(tl.load(x + o), tl.load(y + o)))
@triton.jit
def k_umulhi(a, b, z):
    o = tl.arange(0, 4)
    tl.store(z + o, tl.umulhi(tl.load(a + o), tl.load(b + o)))
@triton.jit
def k_bf16(x, z):
    o = tl.arange(0, 4)
    tl.store(z + o, tl.load(x + o).to(tl.bfloat16))
@triton.jit
def k_bool(x, z, FLAG):
    o = tl.arange(0, 4)
    v = tl.load(x + o)
    if FLAG:
        v = -v
    tl.store(z + o, v)
@triton.jit
def k_methods(x, z):
    o = tl.arange(0, 4)
    tl.store(z + o, tl.load(x + o).exp() + tl.math.exp(tl.load(x + o)))
@triton.jit
def k_ld(x, z, FN: tl.constexpr):
    o = tl.arange(0, 4)
    tl.store(z + o, FN(tl.load(x + o)))

f = lambda *v: torch.tensor(v, dtype=torch.float32, device=dev)
def run(k, *args, **kw):
    k[(1,)](*args, **kw); torch.cuda.synchronize()
    return [a.cpu().tolist() for a in args if isinstance(a, torch.Tensor)][-1]

print(triton.__version__, torch.cuda.get_device_name())
probe("unary plus", lambda: run(k_pos, f(1, -2, 3, 4), f(0, 0, 0, 0)))
probe("not mask", lambda: run(k_not, f(1, -2, 3, -4), torch.zeros(4, dtype=torch.int32, device=dev)))
probe("tl.float16(x) call", lambda: run(k_dtcall, f(1 / 3), f(0)))
probe("x.flip() no dim", lambda: run(k_flip1, f(1, 2, 3, 4), f(0, 0, 0, 0)))
probe("tl.flip(x, -1)", lambda: run(k_flipm1, f(1, 2, 3, 4), f(0, 0, 0, 0)))
probe("tl.standard.maximum", lambda: run(k_stdmax, f(1, -2, 3, -4), f(0, 0, 0, 0)))
probe("constexpr .value", lambda: run(k_cvalue, torch.zeros(8, dtype=torch.int32, device=dev), BLOCK=8))
probe("minimum nan", lambda: run(k_min, f(math.nan, 1, math.nan, -1), f(3, math.nan, math.nan, 2), f(0, 0, 0, 0)))
i32 = lambda *v: torch.tensor(v, dtype=torch.int32, device=dev)
probe("umulhi int32 (-1*-1, 0*-1, min*-1, max*max): expect [-2, 0, 2147483647, 1073741823]",
      lambda: run(k_umulhi, i32(-1, 0, -2**31, 2**31 - 1), i32(-1, -1, -1, 2**31 - 1), i32(0, 0, 0, 0)))
probe("f32->bf16 (100 after rounding? inputs 99.75, 1.01171875, -103.25, 3)",
      lambda: run(k_bf16, f(99.75, 1.01171875, -103.25, 3), torch.zeros(4, dtype=torch.bfloat16, device=dev)))
probe("bool scalar arg", lambda: run(k_bool, f(1, 2, 3, 4), f(0, 0, 0, 0), True))
probe("x.exp() + tl.math.exp", lambda: run(k_methods, f(0, 1, 2, 3), f(0, 0, 0, 0)))
probe("libdevice FN constexpr (tanh)", lambda: run(k_ld, f(0, 1, 2, 3), f(0, 0, 0, 0), FN=libdevice.tanh))
probe("libdevice has umulhi/uhadd/urhadd", lambda: [hasattr(libdevice, n) for n in ("umulhi", "uhadd", "urhadd")])
probe("fast_expf is exp", lambda: libdevice.fast_expf is libdevice.exp)
probe("pointer_type hashable", lambda: hash(tl.pointer_type(tl.float32)))
probe("tensor has __pos__/__not__", lambda: (hasattr(tl.tensor, "__pos__"), hasattr(tl.tensor, "__not__")))
