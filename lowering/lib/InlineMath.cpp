//===- InlineMath.cpp - exp and exp2 as inline vector code ----------------===//
//
// f32 exp and exp2 (and sigmoid, which is built on exp) are short enough to
// emit inline: no call, so a strip stays in registers across them and the
// backend schedules the polynomial with the loop's other work. Written as
// plain LLVM IR on whatever vector type the strip has (fixed or scalable),
// so every ISA gets them; --sleef-math calls SLEEF's 1-ULP functions instead.
//
// exp(x) = 2^n * e^r with n = rint(x / ln 2) and r = x - n ln 2, kept as an
// exact part (FMA with ln 2's leading bits) and a tiny one (Cody and Waite's
// reduction); e^r on
// [-ln2/2, ln2/2] is 1 + r + r^2 q(r) with q a degree-4 polynomial (Chebyshev
// fit, relative error 1.4e-7 in q, far below f32's once multiplied by r^2).
// exp2(x) = 2^n * 2^r with r = x - n exact and 2^r = 1 + r p(r), p of degree
// 5 (relative error 1.2e-8). 2^n is applied as two exact powers of two, so
// that results near overflow and subnormal ones round once. Within 1 ULP over
// the whole range; infinities, NaN and underflow to zero are exact.
//
//===----------------------------------------------------------------------===//
#include "StripEmitter.h"

namespace blockc {

namespace {

/// The coefficients, lowest degree first.
constexpr float kExpQ[] = {0x1p-1f, 0x1.5554dcp-3f, 0x1.5554eap-5f, 0x1.120b66p-7f,
                           0x1.6d431ap-10f};
constexpr float kExp2P[] = {0x1.62e430p-1f, 0x1.ebfbe0p-3f,  0x1.c6af6cp-5f,
                            0x1.3b2a1cp-7f, 0x1.5f0896p-10f, 0x1.444004p-13f};

} // namespace

llvm::Value *StripEmitter::polynomial(llvm::Value *x, llvm::ArrayRef<float> coefficients) {
  llvm::Type *type = x->getType();
  llvm::Value *sum = llvm::ConstantFP::get(type, coefficients.back());
  for (size_t i = coefficients.size() - 1; i-- > 0;)
    sum = b_.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                             {sum, x, llvm::ConstantFP::get(type, coefficients[i])});
  return sum;
}

llvm::Value *StripEmitter::inlineExp(llvm::Value *x, bool base2) {
  llvm::Type *type = x->getType();
  llvm::Type *i32 = sameShape(type, b_.getInt32Ty());
  auto f = [&](float v) { return llvm::ConstantFP::get(type, v); };
  auto i = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  auto fma = [&](llvm::Value *a, llvm::Value *m, llvm::Value *c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a, m, c});
  };
  // Past these the result is infinity or rounds to zero: clamping keeps n in
  // range and the result exact. Compares and selects keep NaN a NaN.
  float high = base2 ? 128.5f : 89.0f, low = base2 ? -151.0f : -104.0f;
  llvm::Value *clamped = b_.CreateSelect(b_.CreateFCmpOGT(x, f(high)), f(high), x);
  clamped = b_.CreateSelect(b_.CreateFCmpOLT(clamped, f(low)), f(low), clamped);
  // n = rint(t) by the float adder: adding 1.5 * 2^23 leaves the integer in
  // the low significand bits, rounded to nearest even.
  llvm::Value *t = base2 ? clamped : b_.CreateFMul(clamped, f(0x1.715476p0f));
  llvm::Value *shifted = b_.CreateFAdd(t, f(0x1.8p23f));
  llvm::Value *n = b_.CreateSub(b_.CreateBitCast(shifted, i32), i(0x4b400000));
  llvm::Value *nf = b_.CreateFSub(shifted, f(0x1.8p23f));
  llvm::Value *y;
  if (base2) {
    llvm::Value *r = b_.CreateFSub(clamped, nf); // exact
    y = fma(r, polynomial(r, kExp2P), f(1.0f));
  } else {
    // r = rHi + rLo: rHi exact, rLo = -n * (ln 2 - ln2Hi) tiny. Rounding r
    // whole would cost a quarter ULP where e^r < 1; rLo joins the small
    // terms instead, and the rounded r serves only the polynomial.
    llvm::Value *minusN = b_.CreateFNeg(nf);
    llvm::Value *rHi = fma(minusN, f(0x1.62e430p-1f), clamped); // exact
    llvm::Value *rLo = b_.CreateFMul(minusN, f(-0x1.05c610p-29f));
    llvm::Value *r = b_.CreateFAdd(rHi, rLo);
    llvm::Value *small = fma(b_.CreateFMul(r, r), polynomial(r, kExpQ), rLo);
    y = b_.CreateFAdd(f(1.0f), b_.CreateFAdd(rHi, small));
  }
  // 2^n = 2^(n/2) * 2^(n - n/2), each a normal float for n in [-151, 129].
  llvm::Value *half = b_.CreateAShr(n, i(1));
  auto powerOfTwo = [&](llvm::Value *e) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(e, i(127)), i(23)), type);
  };
  // Where the result rounds to zero (masked-off lanes of -inf among them),
  // the last factor is zero: a multiplication that produced a subnormal on
  // the way would cost a microcode assist per instruction on Intel cores.
  llvm::Value *last =
      b_.CreateSelect(b_.CreateFCmpOLE(x, f(low)), llvm::Constant::getNullValue(type),
                      powerOfTwo(b_.CreateSub(n, half)));
  return b_.CreateFMul(b_.CreateFMul(y, powerOfTwo(half)), last);
}

} // namespace blockc
