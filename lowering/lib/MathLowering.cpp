//===- MathLowering.cpp - Math ops through SLEEF --------------------------===//
//
// exp, exp2, log, log2, sin, cos, tanh, erf and pow call SLEEF's vector
// function for the target ISA and strip width (Sleef.h chooses the name).
// sqrt, floor and ceil are single instructions everywhere and stay LLVM
// intrinsics. f16 and bf16 compute in f32. A strip wider than any SLEEF
// variant is split; a target SLEEF does not cover falls back to LLVM's
// intrinsics, which the backend turns into libm calls.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ErrorHandling.h"

namespace blockc {

namespace {

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
  default:
    return std::nullopt;
  }
}

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
  case MathFn::Erf:
    break;
  }
  return llvm::Intrinsic::not_intrinsic;
}

} // namespace

llvm::Value *KernelCodeGen::callSleef(MathFn fn, llvm::ArrayRef<llvm::Value *> args,
                                      ScalarKind elem) {
  llvm::Type *type = args[0]->getType();
  auto *vecTy = llvm::dyn_cast<llvm::VectorType>(type);
  if (vecTy) {
    unsigned lanes = vecTy->getElementCount().getKnownMinValue();
    if (auto name = sleefVectorName(fn, elem, lanes, target_, options_.fastMath)) {
      llvm::SmallVector<llvm::Type *, 2> params(args.size(), type);
      auto callee =
          module_.getOrInsertFunction(*name, llvm::FunctionType::get(type, params, false));
      return b_.CreateCall(callee, args);
    }
    // Split a fixed strip in halves until SLEEF has a variant of that width.
    if (!vecTy->isScalableTy() && lanes > 1 && lanes % 2 == 0) {
      llvm::SmallVector<int, 32> lo, hi, all;
      for (unsigned i = 0; i < lanes / 2; ++i) {
        lo.push_back(i);
        hi.push_back(i + lanes / 2);
      }
      for (unsigned i = 0; i < lanes; ++i)
        all.push_back(i);
      if (sleefVectorName(fn, elem, lanes / 2, target_, options_.fastMath) || lanes > 2) {
        llvm::SmallVector<llvm::Value *, 2> loArgs, hiArgs;
        for (llvm::Value *arg : args) {
          loArgs.push_back(b_.CreateShuffleVector(arg, lo));
          hiArgs.push_back(b_.CreateShuffleVector(arg, hi));
        }
        return b_.CreateShuffleVector(callSleef(fn, loArgs, elem), callSleef(fn, hiArgs, elem),
                                      all);
      }
    }
  }
  if (fn == MathFn::Erf) {
    // No LLVM intrinsic: call libm per element.
    bool isDouble = elem == ScalarKind::F64;
    llvm::Type *scalar = type->getScalarType();
    auto erf = module_.getOrInsertFunction(isDouble ? "erf" : "erff",
                                           llvm::FunctionType::get(scalar, {scalar}, false));
    if (!vecTy)
      return b_.CreateCall(erf, args);
    if (vecTy->isScalableTy())
      return b_.CreateCall(erf, args); // unreachable: RVV and SVE targets have SLEEF erf
    llvm::Value *out = llvm::PoisonValue::get(type);
    unsigned lanes = vecTy->getElementCount().getFixedValue();
    for (unsigned i = 0; i < lanes; ++i)
      out =
          b_.CreateInsertElement(out, b_.CreateCall(erf, {b_.CreateExtractElement(args[0], i)}), i);
    return out;
  }
  return b_.CreateIntrinsic(fallbackIntrinsic(fn), {type}, args);
}

llvm::Value *KernelCodeGen::emitMath(OpKind kind, llvm::ArrayRef<llvm::Value *> args,
                                     ScalarKind elem) {
  llvm::Type *type = args[0]->getType();
  if (elem == ScalarKind::F16 || elem == ScalarKind::BF16) {
    llvm::Type *f32 = type->isVectorTy() ? vectorOf(b_.getFloatTy()) : b_.getFloatTy();
    llvm::SmallVector<llvm::Value *, 2> wide;
    for (llvm::Value *a : args)
      wide.push_back(b_.CreateFPExt(a, f32));
    return convert(emitMath(kind, wide, ScalarKind::F32), Type::scalar(ScalarKind::F32),
                   Type::scalar(elem), false);
  }
  if (std::optional<MathFn> fn = sleefFunction(kind))
    return callSleef(*fn, args, elem);
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
    // 1 / (1 + exp(-x)): exact at both tails (exp overflows to inf -> 0).
    llvm::Value *e = callSleef(MathFn::Exp, {b_.CreateFNeg(args[0])}, elem);
    return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
  }
  default:
    break;
  }
  llvm_unreachable("every float unary and binary op is handled above");
}

} // namespace blockc
