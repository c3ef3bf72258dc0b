//===- MathLowering.cpp - Math ops through SLEEF --------------------------===//
//
// f32 exp, exp2, sigmoid, log, tanh and erf are inline code (InlineMath.cpp)
// unless --sleef-math asks for SLEEF. exp, exp2, log, log2, sin, cos, tanh, erf and pow call
// SLEEF's vector function for the target ISA and strip width (Sleef.h chooses the name). sqrt,
// floor and ceil are single instructions everywhere and stay LLVM intrinsics. f16 and bf16 compute
// in f32. A strip wider than any SLEEF variant is split; a target SLEEF does not cover falls back
// to LLVM's intrinsics, which the backend turns into libm calls.
//
//===----------------------------------------------------------------------===//
#include "StripEmitter.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ErrorHandling.h"

#include <limits>

namespace blockc {

namespace {

llvm::Intrinsic::ID fallbackIntrinsic(MathFn fn) {
  switch (fn) {
  case MathFn::Exp:
    return llvm::Intrinsic::exp;
  case MathFn::Exp2:
    return llvm::Intrinsic::exp2;
  case MathFn::Log:
    return llvm::Intrinsic::log;
  case MathFn::Log2:
    return llvm::Intrinsic::log2;
  case MathFn::Sin:
    return llvm::Intrinsic::sin;
  case MathFn::Cos:
    return llvm::Intrinsic::cos;
  case MathFn::Tanh:
    return llvm::Intrinsic::tanh;
  case MathFn::Pow:
    return llvm::Intrinsic::pow;
  default:
    // The rest are libm calls, one per element.
    return llvm::Intrinsic::not_intrinsic;
  }
}

} // namespace

std::optional<MathFn> sleefFunction(OpKind kind) {
  switch (kind) {
  case OpKind::Exp:
    return MathFn::Exp;
  case OpKind::Exp2:
    return MathFn::Exp2;
  case OpKind::Log:
    return MathFn::Log;
  case OpKind::Log2:
    return MathFn::Log2;
  case OpKind::Sin:
    return MathFn::Sin;
  case OpKind::Cos:
    return MathFn::Cos;
  case OpKind::Tanh:
    return MathFn::Tanh;
  case OpKind::Erf:
    return MathFn::Erf;
  case OpKind::Pow:
    return MathFn::Pow;
  case OpKind::Asin:
    return MathFn::Asin;
  case OpKind::Acos:
    return MathFn::Acos;
  case OpKind::Atan:
    return MathFn::Atan;
  case OpKind::Atan2:
    return MathFn::Atan2;
  case OpKind::Sinh:
    return MathFn::Sinh;
  case OpKind::Cosh:
    return MathFn::Cosh;
  case OpKind::Tan:
    return MathFn::Tan;
  case OpKind::Asinh:
    return MathFn::Asinh;
  case OpKind::Acosh:
    return MathFn::Acosh;
  case OpKind::Atanh:
    return MathFn::Atanh;
  case OpKind::Expm1:
    return MathFn::Expm1;
  case OpKind::Log1p:
    return MathFn::Log1p;
  case OpKind::Log10:
    return MathFn::Log10;
  case OpKind::Exp10:
    return MathFn::Exp10;
  case OpKind::Cbrt:
    return MathFn::Cbrt;
  case OpKind::Lgamma:
    return MathFn::Lgamma;
  case OpKind::Tgamma:
    return MathFn::Tgamma;
  case OpKind::Erfc:
    return MathFn::Erfc;
  default:
    return std::nullopt;
  }
}

llvm::Value *StripEmitter::callSleef(MathFn fn, llvm::ArrayRef<llvm::Value *> args,
                                     ScalarKind elem) {
  llvm::Type *type = args[0]->getType();
  auto *vecTy = llvm::dyn_cast<llvm::VectorType>(type);
  if (vecTy) {
    llvm::ElementCount count = vecTy->getElementCount();
    unsigned lanes = count.getKnownMinValue();
    bool scalable = count.isScalable();
    auto variant = [&](unsigned n) {
      return sleefVectorName(fn, elem, n, scalable, target_, options_.fastMath);
    };
    if (auto name = variant(lanes)) {
      llvm::SmallVector<llvm::Type *, 2> params(args.size(), type);
      auto callee =
          module_.getOrInsertFunction(*name, llvm::FunctionType::get(type, params, false));
      return b_.CreateCall(callee, args);
    }
    bool narrower = false, wider = false;
    for (unsigned n = lanes / 2; n >= 1 && lanes % 2 == 0 && !narrower; n /= 2)
      narrower = variant(n).has_value();
    for (unsigned n = lanes * 2; n <= 64 && !wider; n *= 2)
      wider = variant(n).has_value();
    if (narrower)
      return callSleefOnHalves(fn, args, elem);
    if (wider && scalable) {
      // A strip narrower than any SLEEF variant (f32 in a kernel sized for
      // f64): run it in the low half of a strip twice as wide.
      auto *wideTy = llvm::VectorType::get(vecTy->getElementType(), count * 2);
      llvm::SmallVector<llvm::Value *, 2> wideArgs;
      for (llvm::Value *arg : args)
        wideArgs.push_back(
            b_.CreateInsertVector(wideTy, llvm::PoisonValue::get(wideTy), arg, uint64_t(0)));
      return b_.CreateExtractVector(type, callSleef(fn, wideArgs, elem), uint64_t(0));
    }
  }
  llvm::Intrinsic::ID intrinsic = fallbackIntrinsic(fn);
  if (intrinsic != llvm::Intrinsic::not_intrinsic)
    return b_.CreateIntrinsic(intrinsic, {type}, args);
  // No LLVM intrinsic: libm's function, per element.
  bool isDouble = elem == ScalarKind::F64;
  llvm::Type *scalar = type->getScalarType();
  llvm::SmallVector<llvm::Type *, 2> params(args.size(), scalar);
  auto libm = module_.getOrInsertFunction(std::string(mathFnName(fn)) + (isDouble ? "" : "f"),
                                          llvm::FunctionType::get(scalar, params, false));
  if (!vecTy)
    return b_.CreateCall(libm, args);
  assert(!vecTy->isScalableTy() && "every scalable ISA has SLEEF variants to split or pad to");
  llvm::Value *out = llvm::PoisonValue::get(type);
  unsigned lanes = vecTy->getElementCount().getFixedValue();
  for (unsigned i = 0; i < lanes; ++i) {
    llvm::SmallVector<llvm::Value *, 2> lane;
    for (llvm::Value *arg : args)
      lane.push_back(b_.CreateExtractElement(arg, i));
    out = b_.CreateInsertElement(out, b_.CreateCall(libm, lane), i);
  }
  return out;
}

llvm::Value *StripEmitter::divideByUniform(llvm::Value *x, llvm::Value *d) {
  // A vector division is one of the slowest instructions there is (a zmm
  // vdivps issues once per 16 cycles on Sapphire Rapids); a softmax divides a
  // whole row by one sum. With y = RN(1/d) and q within an ulp of x / d, the
  // residual r = x - d q is exact under an FMA and RN(q + r y) is x / d
  // correctly rounded (Markstein's theorem), provided nothing overflows or
  // underflows: d's reciprocal, x, r and the quotient stay well
  // inside the normal range. Lanes outside it (zeros, infinities, NaN,
  // subnormals, the extremes) are rare; a strip with any takes the division.
  llvm::Type *type = x->getType();
  bool single = type->getScalarType()->isFloatTy();
  auto f = [&](double v) { return llvm::ConstantFP::get(type, v); };
  // Exponent margins: d within 2^±125 (2^±1020 for f64), and dividends whose
  // quotients, like themselves, lie between 2^-100 (2^-960) and that limit,
  // so that the residual is normal too. Bounds on x alone say so, once d's
  // are known (lo = small * max(1, |d|), hi = limit * min(1, |d|)): one
  // pair of compares a lane, the rest loop-invariant.
  double limit = single ? 0x1p125 : 0x1p1020;
  double small = single ? 0x1p-100 : 0x1p-960;
  llvm::Value *one = f(1.0);
  llvm::Value *magnitudeOfD = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d);
  llvm::Value *dInRange = b_.CreateAnd(b_.CreateFCmpOGE(magnitudeOfD, f(1.0 / limit)),
                                       b_.CreateFCmpOLE(magnitudeOfD, f(limit)));
  // A d out of range makes the bounds NaN, which no lane is within: d's test
  // joins the loop-invariant bounds instead of every strip's branch.
  llvm::Value *noLane = f(std::numeric_limits<double>::quiet_NaN());
  llvm::Value *low = b_.CreateSelect(
      dInRange,
      b_.CreateFMul(f(small), b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, magnitudeOfD, one)),
      noLane);
  llvm::Value *high = b_.CreateSelect(
      dInRange,
      b_.CreateFMul(f(limit), b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, magnitudeOfD, one)),
      noLane);
  llvm::Value *magnitudeOfX = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value *lanesInRange =
      b_.CreateAnd(b_.CreateFCmpOGE(magnitudeOfX, low), b_.CreateFCmpOLE(magnitudeOfX, high));
  auto throughReciprocal = [&] {
    llvm::Value *y = b_.CreateFDiv(one, d);
    llvm::Value *q = b_.CreateFMul(x, y);
    auto fma = [&](llvm::Value *a, llvm::Value *m, llvm::Value *c) {
      return b_.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a, m, c});
    };
    // q can be 1.5 ulp off (two roundings); one correction makes it faithful,
    // and from a faithful quotient the second is correctly rounded.
    llvm::Value *negativeD = b_.CreateFNeg(d);
    llvm::Value *faithful = fma(fma(negativeD, q, x), y, q);
    return fma(fma(negativeD, faithful, x), y, faithful);
  };
  return branchOnEveryLane(lanesInRange, "div", true, throughReciprocal,
                           [&] { return b_.CreateFDiv(x, d); });
}

llvm::Value *StripEmitter::floatRemainder(llvm::Value *x, llvm::Value *y) {
  auto *vecTy = llvm::dyn_cast<llvm::VectorType>(x->getType());
  if (!vecTy || !vecTy->isScalableTy())
    return b_.CreateFRem(x, y); // LLVM calls libm's fmod per lane
  // LLVM cannot call a scalar function per lane of a scalable vector, and no
  // vector fmod is exact over the whole range (SLEEF's gives NaN once x / y
  // overflows): call libm's fmod lane by lane.
  return callLibmPerLane("fmod", {x, y}, false);
}

llvm::Value *StripEmitter::callLibmPerLane(llvm::StringRef name, llvm::ArrayRef<llvm::Value *> args,
                                           bool integerFirst) {
  llvm::Type *type = args.back()->getType();
  llvm::Type *elem = type->getScalarType();
  llvm::SmallVector<llvm::Type *, 2> params;
  for (size_t i = 0; i < args.size(); ++i)
    params.push_back(i == 0 && integerFirst ? b_.getInt32Ty() : elem);
  auto fn = module_.getOrInsertFunction((name + (elem->isDoubleTy() ? "" : "f")).str(),
                                        llvm::FunctionType::get(elem, params, false));
  auto call = [&](llvm::ArrayRef<llvm::Value *> lane) {
    llvm::SmallVector<llvm::Value *, 2> operands(lane.begin(), lane.end());
    if (integerFirst) // an order held in a float: an integer by then
      operands[0] = b_.CreateFPToSI(operands[0], b_.getInt32Ty());
    return b_.CreateCall(fn, operands);
  };
  auto *vecTy = llvm::dyn_cast<llvm::VectorType>(type);
  if (!vecTy)
    return call(args);
  if (!vecTy->isScalableTy()) {
    llvm::Value *out = llvm::PoisonValue::get(type);
    for (unsigned i = 0; i < vecTy->getElementCount().getFixedValue(); ++i) {
      llvm::SmallVector<llvm::Value *, 2> lane;
      for (llvm::Value *arg : args)
        lane.push_back(b_.CreateExtractElement(arg, i));
      out = b_.CreateInsertElement(out, call(lane), i);
    }
    return out;
  }
  // Scalable: the lanes go through stack slots, one call per lane in a loop.
  llvm::IRBuilder<> entry = entryBuilder();
  llvm::SmallVector<llvm::Value *, 2> slots;
  for (llvm::Value *arg : args) {
    slots.push_back(entry.CreateAlloca(vecTy));
    b_.CreateStore(arg, slots.back());
  }
  llvm::Value *lanes = b_.CreateElementCount(b_.getInt64Ty(), vecTy->getElementCount());
  emitCountedLoop(i64(0), lanes, i64(1), [&](llvm::Value *i) {
    llvm::SmallVector<llvm::Value *, 2> lane;
    for (llvm::Value *slot : slots)
      lane.push_back(b_.CreateLoad(elem, b_.CreateGEP(elem, slot, i)));
    b_.CreateStore(call(lane), b_.CreateGEP(elem, slots[0], i));
  });
  return b_.CreateLoad(vecTy, slots[0]);
}

llvm::Value *StripEmitter::callSleefOnHalves(MathFn fn, llvm::ArrayRef<llvm::Value *> args,
                                             ScalarKind elem) {
  auto *type = llvm::cast<llvm::VectorType>(args[0]->getType());
  llvm::ElementCount half = type->getElementCount().divideCoefficientBy(2);
  auto *halfTy = llvm::VectorType::get(type->getElementType(), half);
  uint64_t upper = half.getKnownMinValue();
  llvm::SmallVector<llvm::Value *, 2> lo, hi;
  for (llvm::Value *arg : args) {
    lo.push_back(b_.CreateExtractVector(halfTy, arg, uint64_t(0)));
    hi.push_back(b_.CreateExtractVector(halfTy, arg, upper));
  }
  llvm::Value *joined = b_.CreateInsertVector(type, llvm::PoisonValue::get(type),
                                              callSleef(fn, lo, elem), uint64_t(0));
  return b_.CreateInsertVector(type, joined, callSleef(fn, hi, elem), upper);
}

llvm::Value *StripEmitter::emitMath(OpKind kind, llvm::ArrayRef<llvm::Value *> args,
                                    ScalarKind elem) {
  llvm::Type *type = args[0]->getType();
  if (elem == ScalarKind::F16 || elem == ScalarKind::BF16) {
    llvm::SmallVector<llvm::Value *, 2> wide;
    for (llvm::Value *a : args)
      wide.push_back(convert(a, Type::scalar(elem), Type::scalar(ScalarKind::F32), false));
    return convert(emitMath(kind, wide, ScalarKind::F32), Type::scalar(ScalarKind::F32),
                   Type::scalar(elem), false);
  }
  if (kind == OpKind::Asinh || kind == OpKind::Acosh) {
    // SLEEF's are finite only below about 1.8e19 (f32) and 1.3e154 (f64).
    // Past 2^28, x^2 + 1 rounds to x^2 in both types, so asinh and acosh
    // are log(2|x|) = log|x| + log 2 there, exactly as the formula is.
    llvm::Value *x = args[0];
    bool odd = kind == OpKind::Asinh;
    llvm::Value *magnitude = odd ? b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x) : x;
    llvm::Value *big = b_.CreateFCmpOGT(magnitude, llvm::ConstantFP::get(type, 0x1p28));
    llvm::Value *large = b_.CreateFAdd(callSleef(MathFn::Log, {magnitude}, elem),
                                       llvm::ConstantFP::get(type, 0.69314718055994530942));
    if (odd)
      large = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
    return b_.CreateSelect(big, large, callSleef(*sleefFunction(kind), args, elem));
  }
  bool inlineExp = elem == ScalarKind::F32 && !options_.sleefMath;
  if (inlineExp) {
    switch (kind) {
    case OpKind::Exp:
    case OpKind::Exp2:
      return this->inlineExp(args[0], kind == OpKind::Exp2);
    case OpKind::Log:
      return inlineLog(args[0]);
    case OpKind::Tanh:
      return inlineTanh(args[0]);
    case OpKind::Erf:
      return inlineErf(args[0]);
    default:
      break;
    }
  }
  if (std::optional<MathFn> fn = sleefFunction(kind))
    return callSleef(*fn, args, elem);
  switch (kind) { // libm's alone: SLEEF has no Bessel functions
  case OpKind::J0:
    return callLibmPerLane("j0", args, false);
  case OpKind::J1:
    return callLibmPerLane("j1", args, false);
  case OpKind::Y0:
    return callLibmPerLane("y0", args, false);
  case OpKind::Y1:
    return callLibmPerLane("y1", args, false);
  case OpKind::Jn:
    return callLibmPerLane("jn", args, true);
  case OpKind::Yn:
    return callLibmPerLane("yn", args, true);
  default:
    break;
  }
  llvm::Value *one = llvm::ConstantFP::get(type, 1.0);
  switch (kind) {
  case OpKind::Sqrt:
    return b_.CreateIntrinsic(llvm::Intrinsic::sqrt, {type}, args);
  case OpKind::Rsqrt:
    return b_.CreateFDiv(one, b_.CreateIntrinsic(llvm::Intrinsic::sqrt, {type}, args));
  case OpKind::Floor:
    return b_.CreateIntrinsic(llvm::Intrinsic::floor, {type}, args);
  case OpKind::Ceil:
    return b_.CreateIntrinsic(llvm::Intrinsic::ceil, {type}, args);
  case OpKind::Sigmoid: {
    // t = exp(-|x|) never overflows: 1 / (1 + t) for x >= 0 and t / (1 + t)
    // below, which stays accurate where 1 / (1 + exp(-x)) would divide by
    // infinity (x < -88.7 in f32) and lose the subnormal results.
    llvm::Value *x = args[0];
    llvm::Value *minusMagnitude = b_.CreateFNeg(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x));
    llvm::Value *t = inlineExp ? this->inlineExp(minusMagnitude, false)
                               : callSleef(MathFn::Exp, {minusMagnitude}, elem);
    llvm::Value *denominator = b_.CreateFAdd(one, t);
    llvm::Value *negative = b_.CreateFCmpOLT(x, llvm::Constant::getNullValue(type));
    return b_.CreateFDiv(b_.CreateSelect(negative, t, one), denominator);
  }
  default:
    break;
  }
  llvm_unreachable("every float unary and binary op is handled above");
}

} // namespace blockc
