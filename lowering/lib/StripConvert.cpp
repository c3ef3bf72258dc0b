//===- StripConvert.cpp - Casts, and bf16 rounded once --------------------===//
//
// Conversions to bf16 are done in software: the AVX-512 BF16 instruction LLVM
// would pick flushes subnormals to zero, and going through f32 with ordinary
// rounding rounds twice for f64 and wide integer sources. Instead the source
// goes to f32 rounded to odd (f32 has 16 more significand bits than bf16, so a
// second rounding is then exact), and f32 is rounded to nearest even on its
// bit pattern.
//
//===----------------------------------------------------------------------===//
#include "StripEmitter.h"

#include "llvm/IR/Intrinsics.h"

namespace blockc {

llvm::Value *StripEmitter::roundToBF16(llvm::Value *f32) {
  llvm::Type *i32 = sameShape(f32->getType(), b_.getInt32Ty());
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value *bits = b_.CreateBitCast(f32, i32);
  llvm::Value *lsb = b_.CreateAnd(b_.CreateLShr(bits, c(16)), c(1));
  llvm::Value *rounded = b_.CreateLShr(b_.CreateAdd(bits, b_.CreateAdd(lsb, c(0x7fff))), c(16));
  llvm::Value *quietNaN = b_.CreateOr(b_.CreateLShr(bits, c(16)), c(0x40));
  llvm::Value *result = b_.CreateSelect(b_.CreateFCmpUNO(f32, f32), quietNaN, rounded);
  result = b_.CreateTrunc(result, sameShape(f32->getType(), b_.getInt16Ty()));
  return b_.CreateBitCast(result, sameShape(f32->getType(), b_.getBFloatTy()));
}

llvm::Value *StripEmitter::extendBF16(llvm::Value *bf16) {
  llvm::Type *i16 = sameShape(bf16->getType(), b_.getInt16Ty());
  llvm::Type *i32 = sameShape(bf16->getType(), b_.getInt32Ty());
  llvm::Value *wide = b_.CreateZExt(b_.CreateBitCast(bf16, i16), i32);
  return b_.CreateBitCast(b_.CreateShl(wide, llvm::ConstantInt::get(i32, 16)),
                          sameShape(bf16->getType(), b_.getFloatTy()));
}

llvm::Value *StripEmitter::toF32RoundToOdd(llvm::Value *v, const Type &from) {
  llvm::Type *f32 = sameShape(v->getType(), b_.getFloatTy());
  llvm::Type *i32 = sameShape(v->getType(), b_.getInt32Ty());
  llvm::Value *nearest, *inexact, *tooLarge;
  if (from.isFloat()) {
    nearest = b_.CreateFPTrunc(v, f32);
    llvm::Value *back = b_.CreateFPExt(nearest, v->getType());
    // Overflow to infinity stays infinity: no sticky bit on it.
    llvm::Value *finite = b_.CreateFCmpONE(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, nearest),
                                           llvm::ConstantFP::getInfinity(f32));
    inexact = b_.CreateAnd(b_.CreateFCmpONE(back, v), finite);
    tooLarge = b_.CreateFCmpOGT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                                b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v));
  } else {
    nearest = b_.CreateSIToFP(v, f32);
    // Compare in 64 bits; only 2^63 itself does not convert back (it saturates).
    llvm::Type *i64 = sameShape(v->getType(), b_.getInt64Ty());
    llvm::Value *wide = b_.CreateSExt(v, i64);
    llvm::Value *back = b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {i64, f32}, {nearest});
    llvm::Value *twoTo63 = b_.CreateFCmpOGE(nearest, llvm::ConstantFP::get(f32, 0x1p63));
    inexact = b_.CreateOr(b_.CreateICmpNE(back, wide), twoTo63);
    llvm::Value *zero = llvm::Constant::getNullValue(i64);
    llvm::Value *awayFromZero = b_.CreateSelect(
        b_.CreateICmpSGE(wide, zero), b_.CreateICmpSGT(back, wide), b_.CreateICmpSLT(back, wide));
    tooLarge = b_.CreateOr(awayFromZero, twoTo63);
  }
  // Round to odd: truncate toward zero, then set the last bit if inexact.
  llvm::Value *bits = b_.CreateBitCast(nearest, i32);
  bits = b_.CreateSub(bits, b_.CreateZExt(b_.CreateAnd(inexact, tooLarge), i32));
  bits = b_.CreateOr(bits, b_.CreateZExt(inexact, i32));
  return b_.CreateBitCast(bits, f32);
}

llvm::Value *StripEmitter::saturatingFloatToInt(llvm::Value *v, const Type &to) {
  // Saturating: out-of-range and NaN inputs give defined values, not poison.
  // Narrower integers are reached by saturating at the float's own width and
  // clamping: the same result, without RVV's narrowing vfncvt.rtz.x.f.w, on
  // which QEMU 7.2 aborts, so that this code can be tested under emulation.
  llvm::Type *toType = sameShape(v->getType(), elementType(to));
  unsigned floatBits = v->getType()->getScalarSizeInBits();
  unsigned intBits = toType->getScalarSizeInBits();
  if (floatBits == 16 && intBits > 32) {
    // Every f16 fits in i32: one widening conversion and a sign extension,
    // where QEMU 7.2 also aborts on the f16-to-i64 pair of widenings.
    Type i32 = Type::scalar(ScalarKind::I32);
    return b_.CreateSExt(saturatingFloatToInt(v, i32), toType);
  }
  if (intBits >= floatBits)
    return b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {toType, v->getType()}, {v});
  llvm::Type *sameWidth = sameShape(v->getType(), b_.getIntNTy(floatBits));
  llvm::Value *wide =
      b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {sameWidth, v->getType()}, {v});
  auto bound = [&](const llvm::APInt &value) {
    return llvm::ConstantInt::get(sameWidth, value.sext(floatBits));
  };
  wide = b_.CreateIntrinsic(llvm::Intrinsic::smax, {sameWidth},
                            {wide, bound(llvm::APInt::getSignedMinValue(intBits))});
  wide = b_.CreateIntrinsic(llvm::Intrinsic::smin, {sameWidth},
                            {wide, bound(llvm::APInt::getSignedMaxValue(intBits))});
  return b_.CreateTrunc(wide, toType);
}

llvm::Value *StripEmitter::convertUnsigned(llvm::Value *v, const Type &from, const Type &to) {
  llvm::Type *toType = sameShape(v->getType(), elementType(to));
  if (to.isBool() || from == to)
    return convert(v, from, to, false);
  const Type i64 = Type::scalar(ScalarKind::I64);
  llvm::Type *i64Type = sameShape(v->getType(), b_.getInt64Ty());
  if (from.isInteger() && to.isInteger())
    return b_.CreateZExtOrTrunc(v, toType);
  if (from.isInteger()) {
    if (bitWidth(from.kind()) < 64) // below 2^63: exact as a signed i64
      return convert(b_.CreateZExt(v, i64Type), i64, to, false);
    // A u64 at or above 2^63 is halved, its lost bit kept as a sticky bit so
    // that the one rounding is still to nearest, converted and doubled.
    llvm::Value *zero = llvm::Constant::getNullValue(v->getType());
    llvm::Value *one = llvm::ConstantInt::get(v->getType(), 1);
    llvm::Value *half = b_.CreateOr(b_.CreateLShr(v, one), b_.CreateAnd(v, one));
    llvm::Value *small = convert(v, i64, to, false);
    llvm::Value *halved = convert(half, i64, to, false);
    llvm::Value *large =
        to.kind() == ScalarKind::BF16 || to.kind() == ScalarKind::F16
            ? convert(b_.CreateFAdd(convert(halved, to, Type::scalar(ScalarKind::F32), false),
                                    convert(halved, to, Type::scalar(ScalarKind::F32), false)),
                      Type::scalar(ScalarKind::F32), to, false)
            : b_.CreateFAdd(halved, halved);
    return b_.CreateSelect(b_.CreateICmpSLT(v, zero), large, small);
  }
  // A float to an unsigned integer: negative values and NaN give 0, values
  // past the type's maximum the maximum.
  if (from.kind() == ScalarKind::F16 || from.kind() == ScalarKind::BF16)
    v = convert(v, from, Type::scalar(ScalarKind::F32), false);
  unsigned bits = bitWidth(to.kind());
  if (bits == 64)
    return b_.CreateIntrinsic(llvm::Intrinsic::fptoui_sat, {toType, v->getType()}, {v});
  llvm::Value *wide = saturatingFloatToInt(v, i64);
  wide = b_.CreateIntrinsic(llvm::Intrinsic::smax, {i64Type},
                            {wide, llvm::Constant::getNullValue(i64Type)});
  wide = b_.CreateIntrinsic(llvm::Intrinsic::smin, {i64Type},
                            {wide, llvm::ConstantInt::get(i64Type, (uint64_t(1) << bits) - 1)});
  return b_.CreateTrunc(wide, toType);
}

llvm::Value *StripEmitter::convert(llvm::Value *v, const Type &from, const Type &to, bool bitcast) {
  llvm::Type *toType = sameShape(v->getType(), elementType(to));
  if (bitcast || from.isPointer())
    return from.isPointer() ? v : b_.CreateBitCast(v, toType);
  if (from == to)
    return v;
  if (from.isInteger() && to.isInteger()) {
    if (to.isBool())
      return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    return from.isBool() ? b_.CreateZExt(v, toType) : b_.CreateSExtOrTrunc(v, toType);
  }
  if (to.kind() == ScalarKind::BF16) {
    llvm::Type *f32 = sameShape(v->getType(), b_.getFloatTy());
    llvm::Value *single;
    if (from.isBool())
      single = b_.CreateUIToFP(v, f32);
    else if (from.isInteger() && bitWidth(from.kind()) <= 16)
      single = b_.CreateSIToFP(v, f32); // exact in f32
    else if (from.kind() == ScalarKind::F64 || from.isInteger())
      single = toF32RoundToOdd(v, from);
    else
      single = from.kind() == ScalarKind::F32 ? v : b_.CreateFPExt(v, f32);
    return roundToBF16(single);
  }
  // f64 and wide integers reach f16 through f32 rounded to odd: f32's 24
  // significand bits are enough for the second rounding to be exact, and
  // direct conversions would call compiler-rt (__truncdfhf2, __floatdihf) on
  // targets without native f16 arithmetic.
  bool wideToF16 = to.kind() == ScalarKind::F16 &&
                   (from.kind() == ScalarKind::F64 ||
                    (from.isInteger() && !from.isBool() && bitWidth(from.kind()) > 16));
  if (wideToF16)
    return b_.CreateFPTrunc(toF32RoundToOdd(v, from), toType);
  if (from.isInteger())
    return from.isBool() ? b_.CreateUIToFP(v, toType) : b_.CreateSIToFP(v, toType);
  if (to.isBool())
    return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
  if (to.isInteger())
    return saturatingFloatToInt(from.kind() == ScalarKind::BF16 ? extendBF16(v) : v, to);
  if (from.kind() == ScalarKind::BF16) {
    // bf16 widens exactly to f32 (and from there to f64, or rounds once to f16).
    llvm::Value *single = extendBF16(v);
    return to.kind() == ScalarKind::F32   ? single
           : to.kind() == ScalarKind::F64 ? b_.CreateFPExt(single, toType)
                                          : b_.CreateFPTrunc(single, toType);
  }
  return bitWidth(from.kind()) < bitWidth(to.kind()) ? b_.CreateFPExt(v, toType)
                                                     : b_.CreateFPTrunc(v, toType);
}

} // namespace blockc
