//===- StripConvert.cpp - Casts, and bf16 and fp8 rounded once ------------===//
//
// Conversions to bf16 are done in software: the AVX-512 BF16 instruction LLVM
// would pick flushes subnormals to zero, and going through f32 with ordinary
// rounding rounds twice for f64 and wide integer sources. Instead the source
// goes to f32 rounded to odd (f32 has 16 more significand bits than bf16, so a
// second rounding is then exact), and f32 is rounded to nearest even on its
// bit pattern. The 8-bit floats are storage types held as i8 bit patterns;
// they convert through f32 the same way, decoded and rounded in integer and
// f32 arithmetic that every vector ISA has.
//
//===----------------------------------------------------------------------===//
#include "StripEmitter.h"

#include "llvm/IR/Intrinsics.h"

#include <cmath>

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

namespace {
/// The two OCP 8-bit formats, as f32 bit-level constants.
struct Float8Layout {
  unsigned mantissaBits;
  int bias;
  uint32_t maxFiniteF32Bits; // 448 and 57344
};
Float8Layout float8Layout(ScalarKind kind) {
  return kind == ScalarKind::F8E4M3 ? Float8Layout{3, 7, 0x43e00000}
                                    : Float8Layout{2, 15, 0x47600000};
}
} // namespace

llvm::Value *StripEmitter::roundToFloat8(llvm::Value *f32, ScalarKind kind) {
  const Float8Layout layout = float8Layout(kind);
  llvm::Type *i32 = sameShape(f32->getType(), b_.getInt32Ty());
  llvm::Type *f32Type = f32->getType();
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value *bits = b_.CreateBitCast(f32, i32);
  llvm::Value *sign = b_.CreateAnd(b_.CreateLShr(bits, c(24)), c(0x80));
  // Saturate first: the largest finite value is representable, so rounding
  // cannot then carry past it. As unsigned integers, non-NaN magnitudes order
  // as their values, infinity above every finite one.
  llvm::Value *magnitude = b_.CreateAnd(bits, c(0x7fffffff));
  llvm::Value *clamped =
      b_.CreateIntrinsic(llvm::Intrinsic::umin, {i32}, {magnitude, c(layout.maxFiniteF32Bits)});
  const unsigned shift = 23 - layout.mantissaBits;
  // Normal results: round to nearest even on the bit pattern, then rebias.
  llvm::Value *odd = b_.CreateAnd(b_.CreateLShr(clamped, c(shift)), c(1));
  llvm::Value *rounded = b_.CreateAdd(clamped, b_.CreateAdd(odd, c((1u << (shift - 1)) - 1)));
  llvm::Value *normal = b_.CreateSub(b_.CreateLShr(rounded, c(shift)),
                                     c(uint32_t(127 - layout.bias) << layout.mantissaBits));
  // Subnormal results: adding a float whose last significand bit is worth
  // the target's smallest subnormal rounds (to nearest even, in hardware) at
  // exactly that bit; what the addition left above the magic number's own bits
  // is the encoded value, the smallest normal included when it rounds up.
  const uint32_t magicBits = uint32_t(127 - layout.bias + 1 + shift) << 23;
  llvm::Value *magic = b_.CreateBitCast(c(magicBits), f32Type);
  llvm::Value *sum = b_.CreateFAdd(b_.CreateBitCast(clamped, f32Type), magic);
  llvm::Value *subnormal = b_.CreateSub(b_.CreateBitCast(sum, i32), c(magicBits));
  const uint32_t smallestNormalBits = uint32_t(127 + 1 - layout.bias) << 23;
  llvm::Value *encoded =
      b_.CreateSelect(b_.CreateICmpULT(clamped, c(smallestNormalBits)), subnormal, normal);
  llvm::Value *isNaN = b_.CreateICmpUGT(magnitude, c(0x7f800000));
  encoded = b_.CreateSelect(isNaN, c(0x7f), encoded);
  return b_.CreateTrunc(b_.CreateOr(encoded, sign), sameShape(f32Type, b_.getInt8Ty()));
}

llvm::Value *StripEmitter::extendFloat8(llvm::Value *bits, ScalarKind kind) {
  const Float8Layout layout = float8Layout(kind);
  llvm::Type *i32 = sameShape(bits->getType(), b_.getInt32Ty());
  llvm::Type *f32 = sameShape(bits->getType(), b_.getFloatTy());
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value *wide = b_.CreateZExt(bits, i32);
  llvm::Value *magnitude = b_.CreateAnd(wide, c(0x7f));
  llvm::Value *sign = b_.CreateShl(b_.CreateAnd(wide, c(0x80)), c(24));
  // The magnitude's bits placed at the top of an f32 significand read as the
  // value scaled by 2^(bias - 127), for normals and subnormals alike, so one
  // exact multiplication rebiases both.
  llvm::Value *placed = b_.CreateBitCast(b_.CreateShl(magnitude, c(23 - layout.mantissaBits)), f32);
  llvm::Value *value =
      b_.CreateFMul(placed, llvm::ConstantFP::get(f32, std::ldexp(1.0, 127 - layout.bias)));
  llvm::Value *valueBits = b_.CreateBitCast(value, i32);
  if (kind == ScalarKind::F8E4M3) {
    // No infinities: only S.1111.111 is NaN.
    valueBits = b_.CreateSelect(b_.CreateICmpEQ(magnitude, c(0x7f)), c(0x7fc00000), valueBits);
  } else {
    // An all-ones exponent is infinity or NaN, as in IEEE formats.
    llvm::Value *special = b_.CreateICmpUGE(magnitude, c(0x7c));
    llvm::Value *infOrNaN =
        b_.CreateOr(c(0x7f800000), b_.CreateShl(b_.CreateAnd(magnitude, c(3)), c(21)));
    valueBits = b_.CreateSelect(special, infOrNaN, valueBits);
  }
  return b_.CreateBitCast(b_.CreateOr(valueBits, sign), f32);
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
        bitWidth(to.kind()) < 32
            ? convert(b_.CreateFAdd(convert(halved, to, Type::scalar(ScalarKind::F32), false),
                                    convert(halved, to, Type::scalar(ScalarKind::F32), false)),
                      Type::scalar(ScalarKind::F32), to, false)
            : b_.CreateFAdd(halved, halved);
    return b_.CreateSelect(b_.CreateICmpSLT(v, zero), large, small);
  }
  // A float to an unsigned integer: negative values and NaN give 0, values
  // past the type's maximum the maximum.
  if (bitWidth(from.kind()) < 32) // f16, bf16 and the 8-bit floats: exact in f32
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
  if (from.isPointer() && !to.isPointer())
    return b_.CreatePtrToInt(v, toType);
  if (to.isPointer() && !from.isPointer())
    return b_.CreateIntToPtr(v, toType);
  if (bitcast || from.isPointer())
    return from.isPointer() ? v : b_.CreateBitCast(v, toType);
  if (from == to)
    return v;
  const Type f32 = Type::scalar(ScalarKind::F32);
  if (isStorageOnlyKind(from.kind()))
    return convert(extendFloat8(v, from.kind()), f32, to, false);
  if (isStorageOnlyKind(to.kind())) {
    // One rounding: f32 holds every integer of 16 bits and every f16 and
    // bf16 exactly, and rounding to odd keeps f64 and wider integers exact
    // enough for the second rounding (f32's 24 bits are more than 2 * 4 + 2).
    llvm::Type *f32Type = sameShape(v->getType(), b_.getFloatTy());
    llvm::Value *single;
    if (from.isBool())
      single = b_.CreateUIToFP(v, f32Type);
    else if (from.kind() == ScalarKind::F64 || (from.isInteger() && bitWidth(from.kind()) > 16))
      single = toF32RoundToOdd(v, from);
    else
      single = convert(v, from, f32, false);
    return roundToFloat8(single, to.kind());
  }
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
