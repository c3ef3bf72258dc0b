//===- InlineMath.cpp - exp, exp2, log, tanh, erf as inline vector code ---===//
//
// f32 exp and exp2 (and sigmoid, which is built on exp), log, tanh and erf
// are short enough to emit inline: no call, so a strip stays in registers
// across them and the backend schedules the polynomial with the loop's other
// work. Written as plain LLVM IR on whatever vector type the strip has (fixed
// or scalable), so every ISA gets them; --sleef-math calls SLEEF's 1-ULP
// functions instead.
//
// exp(x) = 2^n * e^r with n = rint(x / ln 2) and r = x - n ln 2, kept as an
// exact part (FMA with ln 2's leading bits) and a tiny one (Cody and Waite's
// reduction); e^r on
// [-ln2/2, ln2/2] is 1 + r + r^2 q(r) with q a degree-4 polynomial (Chebyshev
// fit, relative error 1.4e-7 in q, far below f32's once multiplied by r^2).
// exp2(x) = 2^n * 2^r with r = x - n exact and 2^r = 1 + r p(r), p of degree
// 5 (relative error 1.2e-8). 2^n is applied as two exact powers of two, so
// that results near overflow and subnormal ones round once. Within 1 ULP over
// the whole range; infinities, NaN and underflow to zero are exact. On
// out-of-order cores a strip whose every input has a normal result takes a
// shorter form (one power of two, no clamp) behind a branch; it rounds the
// same way. On the Zen 5, softmax went 1.12x (AVX2) to 1.24x (AVX-512)
// faster with it, GELU 1.07x to 1.13x. An in-order core, which runs a
// strip's exp as one dependent chain, replaces underflowing lanes by zero at
// the end rather than clamping its input at the start: a compare and a merge
// fewer on the chain (the K1's softmax exp loop, llvm-mca's X60 model: 112
// to 106 cycles a strip; GELU 217 to 200).
//
// log, tanh and erf are built the same way; their coefficients are minimax
// fits made for blockc (linear programming on 800 to 1500 Chebyshev nodes,
// scipy's HiGHS, mpmath references at 40 digits), each minimizing the error
// relative to the final result, then rounded to f32. Measured over every f32
// input against double libm (0x0 to 0xffffffff, exhaustively for log, every
// float of |x| < 12 for tanh and |x| < 5 for erf):
//   log  0.89 ULP   tanh  1.05 ULP   erf  1.06 ULP
// (exp 0.89, exp2 0.81 the same way.)
//
//===----------------------------------------------------------------------===//
#include "StripEmitter.h"

#include "llvm/IR/MDBuilder.h"

namespace blockc {

namespace {

/// The coefficients, lowest degree first.
constexpr float kExpQ[] = {0x1p-1f, 0x1.5554dcp-3f, 0x1.5554eap-5f, 0x1.120b66p-7f,
                           0x1.6d431ap-10f};
constexpr float kExp2P[] = {0x1.62e430p-1f, 0x1.ebfbe0p-3f,  0x1.c6af6cp-5f,
                            0x1.3b2a1cp-7f, 0x1.5f0896p-10f, 0x1.444004p-13f};
/// log(1 + f) = f + f^2 q(f) on f in [sqrt(1/2) - 1, sqrt(2) - 1]: degree 8,
/// relative error 4.1e-9 in f + f^2 q(f).
constexpr float kLogQ[] = {-0x1.fffff8p-2f, 0x1.555550p-2f,  -0x1.000426p-2f,
                           0x1.99a3f4p-3f,  -0x1.54276cp-3f, 0x1.22719ap-3f,
                           -0x1.0f3766p-3f, 0x1.08486cp-3f,  -0x1.383032p-4f};
/// tanh(x) = x + x^3 p(x^2) on [0, 0.75]: relative error 1.6e-9.
constexpr float kTanhP[] = {-0x1.55554ap-2f, 0x1.110db8p-3f,  -0x1.b97d3cp-5f,
                            0x1.5f7860p-6f,  -0x1.f5d38ap-8f, 0x1.c7540ep-10f};
/// erf(x) = x + x r(x^2) on [0, 0.921875]: relative error 4.1e-10.
constexpr float kErfR[] = {0x1.06eba8p-3f, -0x1.812744p-2f,  0x1.ce2e20p-4f, -0x1.b8107cp-6f,
                           0x1.54dadap-8f, -0x1.aae99cp-11f, 0x1.5f118ap-14f};
/// log(erfc(x)) = c(x - 0.921875) on [0.921875, 3.9375], degree 7; its
/// error times erfc(x) / erf(x), what reaches erf, is below 4.5e-11.
constexpr float kErfcLog[] = {-0x1.a60826p+0f, -0x1.41068ep+1f, -0x1.aa7d7ep-1f, -0x1.6f368cp-5f,
                              0x1.63a6fep-7f,  -0x1.191abcp-9f, 0x1.38f394p-12f, -0x1.624f90p-16f};

} // namespace

llvm::Value *StripEmitter::polynomial(llvm::Value *x, llvm::ArrayRef<float> coefficients) {
  llvm::Type *type = x->getType();
  llvm::Value *sum = llvm::ConstantFP::get(type, coefficients.back());
  for (size_t i = coefficients.size() - 1; i-- > 0;)
    sum = b_.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                             {sum, x, llvm::ConstantFP::get(type, coefficients[i])});
  return sum;
}

/// e^r (or 2^r) and n of exp(x) = 2^n e^r, for x within [-104, 89]
/// ([-151, 128.5] for exp2); `n` is an i32 strip.
std::pair<llvm::Value *, llvm::Value *> StripEmitter::expParts(llvm::Value *x, bool base2) {
  llvm::Type *type = x->getType();
  llvm::Type *i32 = sameShape(type, b_.getInt32Ty());
  auto f = [&](float v) { return llvm::ConstantFP::get(type, v); };
  auto fma = [&](llvm::Value *a, llvm::Value *m, llvm::Value *c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a, m, c});
  };
  // n = rint(t) by the float adder: adding 1.5 * 2^23 leaves the integer in
  // the low significand bits, rounded to nearest even.
  llvm::Value *t = base2 ? x : b_.CreateFMul(x, f(0x1.715476p0f));
  llvm::Value *shifted = b_.CreateFAdd(t, f(0x1.8p23f));
  llvm::Value *n =
      b_.CreateSub(b_.CreateBitCast(shifted, i32), llvm::ConstantInt::get(i32, 0x4b400000));
  llvm::Value *nf = b_.CreateFSub(shifted, f(0x1.8p23f));
  if (base2) {
    llvm::Value *r = b_.CreateFSub(x, nf); // exact
    return {fma(r, polynomial(r, kExp2P), f(1.0f)), n};
  }
  // r = rHi + rLo: rHi exact, rLo = -n * (ln 2 - ln2Hi) tiny. Rounding r
  // whole would cost a quarter ULP where e^r < 1; rLo joins the small
  // terms instead, and the rounded r serves only the polynomial.
  llvm::Value *minusN = b_.CreateFNeg(nf);
  llvm::Value *rHi = fma(minusN, f(0x1.62e430p-1f), x); // exact
  llvm::Value *rLo = b_.CreateFMul(minusN, f(-0x1.05c610p-29f));
  llvm::Value *r = b_.CreateFAdd(rHi, rLo);
  llvm::Value *small = fma(b_.CreateFMul(r, r), polynomial(r, kExpQ), rLo);
  return {b_.CreateFAdd(f(1.0f), b_.CreateFAdd(rHi, small)), n};
}

llvm::Value *StripEmitter::branchAndJoin(llvm::Value *condition, llvm::StringRef name,
                                         llvm::MDNode *weights,
                                         llvm::function_ref<llvm::Value *()> then,
                                         llvm::function_ref<llvm::Value *()> otherwise) {
  auto *thenBlock = llvm::BasicBlock::Create(ctx_, name + ".then", fn_);
  auto *elseBlock = llvm::BasicBlock::Create(ctx_, name + ".else", fn_);
  auto *join = llvm::BasicBlock::Create(ctx_, name + ".join", fn_);
  b_.CreateCondBr(condition, thenBlock, elseBlock, weights);
  b_.SetInsertPoint(thenBlock);
  llvm::Value *thenValue = then();
  llvm::BasicBlock *thenEnd = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(elseBlock);
  llvm::Value *elseValue = otherwise();
  llvm::BasicBlock *elseEnd = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  if (!thenValue)
    return nullptr;
  llvm::PHINode *result = b_.CreatePHI(thenValue->getType(), 2, name);
  result->addIncoming(thenValue, thenEnd);
  result->addIncoming(elseValue, elseEnd);
  return result;
}

llvm::Value *StripEmitter::branchOnEveryLane(llvm::Value *everyLane, llvm::StringRef name,
                                             bool otherwiseRare,
                                             llvm::function_ref<llvm::Value *()> usual,
                                             llvm::function_ref<llvm::Value *()> otherwise) {
  if (everyLane->getType()->isVectorTy())
    everyLane = b_.CreateAndReduce(everyLane);
  llvm::MDBuilder weights(ctx_);
  return branchAndJoin(everyLane, name,
                       otherwiseRare ? weights.createLikelyBranchWeights()
                                     : weights.createBranchWeights(1, 1),
                       usual, otherwise);
}

llvm::Value *StripEmitter::inlineExp(llvm::Value *x, bool base2) {
  if (!outOfOrder_)
    return wholeRangeExp(x, base2);
  // Inputs whose result is a normal float, 2^n one too (n in [-125, 127]),
  // take one scaling and no clamp: about a third fewer instructions, which
  // is what a softmax strip on AVX2 is made of. A strip with any other lane
  // (infinities, NaN, softmax's masked -inf, underflow) takes the whole
  // range. An in-order core keeps the whole range branch-free: the branch
  // would split the block its scheduler interleaves strips in.
  llvm::Type *type = x->getType();
  auto f = [&](float v) { return llvm::ConstantFP::get(type, v); };
  float low = base2 ? -125.0f : -86.0f, high = base2 ? 127.0f : 88.0f;
  llvm::Value *inRange = b_.CreateAnd(b_.CreateFCmpOGE(x, f(low)), b_.CreateFCmpOLE(x, f(high)));
  return branchOnEveryLane(
      inRange, "exp", true, [&] { return normalRangeExp(x, base2); },
      [&] { return wholeRangeExp(x, base2); });
}

llvm::Value *StripEmitter::normalRangeExp(llvm::Value *x, bool base2) {
  auto [y, n] = expParts(x, base2);
  llvm::Value *scale = b_.CreateBitCast(
      b_.CreateShl(b_.CreateAdd(n, llvm::ConstantInt::get(n->getType(), 127)), 23), x->getType());
  return b_.CreateFMul(y, scale);
}

llvm::Value *StripEmitter::wholeRangeExp(llvm::Value *x, bool base2) {
  llvm::Type *type = x->getType();
  llvm::Type *i32 = sameShape(type, b_.getInt32Ty());
  auto f = [&](float v) { return llvm::ConstantFP::get(type, v); };
  auto i = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  // Past these the result is infinity or rounds to zero: clamping keeps n in
  // range and the result exact. Compares and selects keep NaN a NaN.
  float high = base2 ? 128.5f : 89.0f, low = base2 ? -151.0f : -104.0f;
  llvm::Value *clamped = b_.CreateSelect(b_.CreateFCmpOGT(x, f(high)), f(high), x);
  auto powerOfTwo = [&](llvm::Value *e) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(e, i(127)), i(23)), type);
  };
  llvm::Value *underflows = b_.CreateFCmpOLE(x, f(low));
  llvm::Value *zero = llvm::Constant::getNullValue(type);
  if (!outOfOrder_) {
    // An in-order core runs a strip's exp as one chain: below `low` the
    // result is replaced by zero at the end instead of the input being
    // clamped first, which takes a compare and a merge off the chain (the
    // lanes replaced may compute NaN; no Intel assist to fear here).
    auto [y, n] = expParts(clamped, base2);
    llvm::Value *half = b_.CreateAShr(n, i(1));
    llvm::Value *scaled =
        b_.CreateFMul(b_.CreateFMul(y, powerOfTwo(half)), powerOfTwo(b_.CreateSub(n, half)));
    return b_.CreateSelect(underflows, zero, scaled);
  }
  clamped = b_.CreateSelect(b_.CreateFCmpOLT(clamped, f(low)), f(low), clamped);
  auto [y, n] = expParts(clamped, base2);
  // 2^n = 2^(n/2) * 2^(n - n/2), each a normal float for n in [-151, 129].
  llvm::Value *half = b_.CreateAShr(n, i(1));
  // Where the result rounds to zero (masked-off lanes of -inf among them),
  // the last factor is zero: a multiplication that produced a subnormal on
  // the way would cost a microcode assist per instruction on Intel cores.
  llvm::Value *last = b_.CreateSelect(underflows, zero, powerOfTwo(b_.CreateSub(n, half)));
  return b_.CreateFMul(b_.CreateFMul(y, powerOfTwo(half)), last);
}

llvm::Value *StripEmitter::inlineLog(llvm::Value *x) {
  llvm::Type *type = x->getType();
  llvm::Type *i32 = sameShape(type, b_.getInt32Ty());
  auto f = [&](float v) { return llvm::ConstantFP::get(type, v); };
  auto i = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  // Subnormals become normal times 2^-23, so the exponent field tells e.
  llvm::Value *tiny = b_.CreateFCmpOLT(x, f(0x1p-126f));
  llvm::Value *scaled = b_.CreateSelect(tiny, b_.CreateFMul(x, f(0x1p23f)), x);
  // x = 2^e * m with m in [sqrt(1/2), sqrt(2)): subtracting sqrt(1/2)'s bits
  // carries into the exponent field exactly when m would fall below it, so
  // |log m| <= ln2 / 2 and m - 1 is exact (Sterbenz).
  const uint32_t sqrtHalf = 0x3f3504f3;
  llvm::Value *ix = b_.CreateSub(b_.CreateBitCast(scaled, i32), i(sqrtHalf));
  llvm::Value *e = b_.CreateSub(b_.CreateAShr(ix, i(23)),
                                b_.CreateSelect(tiny, i(23), llvm::Constant::getNullValue(i32)));
  llvm::Value *m = b_.CreateBitCast(b_.CreateAdd(b_.CreateAnd(ix, i(0x7fffff)), i(sqrtHalf)), type);
  llvm::Value *fraction = b_.CreateFSub(m, f(1.0f));
  llvm::Value *ef = b_.CreateSIToFP(e, type);
  llvm::Value *tail = b_.CreateFMul(b_.CreateFMul(fraction, fraction), polynomial(fraction, kLogQ));
  // e ln2 + f with the sum's rounding error kept (Fast2Sum: |e ln2Hi| >= |f|
  // whenever e != 0): rounding it away would cost half an ULP where e ln 2
  // and f nearly cancel. ln2Hi has 16 bits, so e * ln2Hi is exact.
  llvm::Value *scaledLn2 = b_.CreateFMul(ef, f(0x1.62e4p-1f));
  llvm::Value *sum = b_.CreateFAdd(scaledLn2, fraction);
  llvm::Value *sumError = b_.CreateFAdd(b_.CreateFSub(scaledLn2, sum), fraction);
  llvm::Value *low = b_.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                                        {ef, f(0x1.7f7d1cp-20f), b_.CreateFAdd(tail, sumError)});
  llvm::Value *result = b_.CreateFAdd(sum, low);
  // log(+inf) = +inf, log(+-0) = -inf, log(negative or NaN) = NaN.
  result = b_.CreateSelect(b_.CreateFCmpOEQ(x, llvm::ConstantFP::getInfinity(type)), x, result);
  result = b_.CreateSelect(b_.CreateFCmpOEQ(x, f(0.0f)),
                           llvm::ConstantFP::getInfinity(type, /*Negative=*/true), result);
  return b_.CreateSelect(b_.CreateFCmpULT(x, f(0.0f)), llvm::ConstantFP::getNaN(type), result);
}

// tanh and erf are polynomials near zero, where many activations are (a
// GELU's inputs, scaled by 1/sqrt 2 or sqrt(2/pi)): on out-of-order cores a
// strip all of whose lanes are there branches past the exp and the rest.
// Even weights: activations are as often wide (normal ones fill an 8-lane
// strip with small lanes only 18% of the time, a 16-lane one 3%). On the
// Zen 5 (gelu_erf.bir, 2^24 f32, one thread, medians of three) inputs in
// [-1, 1) took 4.78 ms against 17.8 straight at x86-64-v3 and 3.24 against
// 9.68 at v4; N(0, 1) inputs 19.5 against 18.0 at v3 (the branch goes
// either way there) and 9.79 against 9.80 at v4. An in-order
// core runs the whole form straight: its wide strips seldom take the short
// side, and the branch's other side spilled constants (the K1's GELU by
// `erf` on llvm-mca's X60 model: 104 cycles a strip short, 326 long,
// against 255 straight). Past the polynomial's range the argument is
// clamped where the result rounds to 1, so that exp runs in its normal
// range without a branch of its own.
llvm::Value *StripEmitter::inlineTanh(llvm::Value *x) {
  llvm::Type *type = x->getType();
  auto f = [&](float v) { return llvm::ConstantFP::get(type, v); };
  // Computed on |x|, the sign put back last: tanh is odd and tanh(-0) = -0.
  llvm::Value *a = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  const float split = 0.75f;
  auto small = [&] {
    llvm::Value *a2 = b_.CreateFMul(a, a);
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                              {b_.CreateFMul(a, a2), polynomial(a2, kTanhP), a});
  };
  auto either = [&] {
    // Above 0.75, 1 - 2 / (e^2|x| + 1): the quotient is below 0.36, so exp's
    // error reaches the result shrunk. Past 9.01 the quotient is under half
    // an ULP of 1: |x| clamped to 9.5 gives exactly 1 there and keeps exp in
    // its normal range. NaN takes the polynomial, which keeps it NaN.
    llvm::Value *clamped = b_.CreateSelect(b_.CreateFCmpOLT(a, f(9.5f)), a, f(9.5f));
    llvm::Value *e = normalRangeExp(b_.CreateFAdd(clamped, clamped), false);
    llvm::Value *large = b_.CreateFSub(f(1.0f), b_.CreateFDiv(f(2.0f), b_.CreateFAdd(e, f(1.0f))));
    return b_.CreateSelect(b_.CreateFCmpOGE(a, f(split)), large, small());
  };
  llvm::Value *result =
      outOfOrder_ ? branchOnEveryLane(b_.CreateFCmpOLT(a, f(split)), "tanh", false, small, either)
                  : either();
  return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, result, x);
}

llvm::Value *StripEmitter::inlineErf(llvm::Value *x) {
  llvm::Type *type = x->getType();
  auto f = [&](float v) { return llvm::ConstantFP::get(type, v); };
  // On |x|, the sign put back last: erf is odd and erf(-0) = -0.
  llvm::Value *a = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  const float split = 0.921875f, saturation = 3.9375f;
  auto small = [&] {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                              {a, polynomial(b_.CreateFMul(a, a), kErfR), a});
  };
  auto either = [&] {
    // Above 0.921875, 1 - erfc(x) with erfc = exp(c(x)): log erfc is smooth
    // where erfc itself falls by 10^7, and erfc <= 0.19 there, so its error
    // reaches erf shrunk 4 times or more. Past 3.9375 erfc < 2^-25: |x|
    // clamped there gives exactly 1 and keeps c within its fit and exp in
    // its normal range. NaN takes the polynomial, which keeps it NaN.
    llvm::Value *clamped = b_.CreateSelect(b_.CreateFCmpOLT(a, f(saturation)), a, f(saturation));
    llvm::Value *logErfc = polynomial(b_.CreateFSub(clamped, f(split)), kErfcLog);
    llvm::Value *large = b_.CreateFSub(f(1.0f), normalRangeExp(logErfc, false));
    return b_.CreateSelect(b_.CreateFCmpOGE(a, f(split)), large, small());
  };
  llvm::Value *result =
      outOfOrder_ ? branchOnEveryLane(b_.CreateFCmpOLT(a, f(split)), "erf", false, small, either)
                  : either();
  return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, result, x);
}

} // namespace blockc
