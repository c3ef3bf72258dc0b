//===- CodeGenEval.cpp - Strips and elements of block values --------------===//
#include "CodeGen.h"
#include "blockc/frontend/SmallFloat.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc {

llvm::Value *KernelCodeGen::eval(const Value *v, const Coords &coords, bool vector) {
  if (v->type().isScalar()) {
    llvm::Value *s = scalars_.at(v);
    return vector ? splat(s) : s;
  }
  // A select or an arithmetic use of a mask the full version proved whole
  // (layer norm's `select %mask, %centered, 0`) needs no compare either.
  if (fullMasks_.count(v))
    return vector ? allTrueMask() : b_.getTrue();
  auto key = std::make_tuple(v, vector, llvm::SmallVector<llvm::Value *, 3>(coords));
  auto hit = memo_.find(key);
  if (hit != memo_.end())
    return hit->second;
  llvm::Value *result;
  auto buffer = buffers_.find(v);
  if (buffer != buffers_.end())
    result = loadBuffer(buffer->second, v->type(), coords, vector);
  else
    result = evalDef(*v->definingOp(), v, coords, vector);
  memo_[key] = result;
  return result;
}

llvm::Value *KernelCodeGen::evalOperand(const Operation &op, unsigned i, const Coords &coords,
                                        bool vector) {
  const Value *operand = op.operands[i];
  const Shape &shape = operand->type().shape();
  if (shape.empty())
    return eval(operand, {}, vector);
  size_t offset = coords.size() - shape.size();
  Coords mapped;
  for (size_t d = 0; d < shape.size(); ++d)
    mapped.push_back(shape[d] == 1 ? i64(0) : coords[d + offset]);
  // An operand whose last dimension is broadcast has one value per strip.
  if (vector && shape.back() == 1)
    return splat(eval(operand, mapped, false));
  return eval(operand, mapped, vector);
}

llvm::Value *KernelCodeGen::loadVolatile(llvm::Value *ptr, llvm::Type *memTy, llvm::Align align,
                                         llvm::Value *mask, llvm::Value *passthru) {
  auto load = [&]() {
    llvm::LoadInst *value = b_.CreateAlignedLoad(memTy, ptr, align);
    value->setVolatile(true);
    return value;
  };
  if (!mask)
    return load();
  llvm::BasicBlock *from = b_.GetInsertBlock();
  auto *active = llvm::BasicBlock::Create(ctx_, "volatile.load", fn_);
  auto *join = llvm::BasicBlock::Create(ctx_, "volatile.join", fn_);
  b_.CreateCondBr(mask, active, join);
  b_.SetInsertPoint(active);
  llvm::Value *value = load();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  llvm::PHINode *phi = b_.CreatePHI(memTy, 2);
  phi->addIncoming(value, active);
  phi->addIncoming(passthru, from);
  return phi;
}

llvm::Value *KernelCodeGen::evalLoad(const Operation &op, const Coords &coords, bool vector) {
  const Type &resultType = op.result()->type();
  llvm::Type *memTy = memoryType(resultType);
  llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
  llvm::Value *mask = vector ? tailMask_ : nullptr;
  if (op.hasMask && !fullMasks_.count(op.operands[1]))
    mask = andMasks(mask, evalOperand(op, 1, coords, vector));
  llvm::Type *loadTy = vector ? vectorOf(memTy) : memTy;
  llvm::Value *passthru = llvm::Constant::getNullValue(loadTy);
  if (op.hasOther)
    passthru = toMemory(evalOperand(op, 2, coords, vector), resultType);
  if (bounds_)
    bounds_->check(op, evalOperand(op, 0, coords, vector), mask);
  if (op.isVolatile)
    return fromMemory(loadVolatile(evalOperand(op, 0, coords, false), memTy, align, mask, passthru),
                      resultType);
  llvm::Value *value;
  if (!vector) {
    llvm::Value *ptr = evalOperand(op, 0, coords, false);
    if (!mask) {
      value = b_.CreateAlignedLoad(memTy, ptr, align);
    } else {
      // One lane: a masked-off element is never read.
      auto *one = llvm::FixedVectorType::get(memTy, 1);
      llvm::Value *loaded = b_.CreateMaskedLoad(one, ptr, align, b_.CreateVectorSplat(1, mask),
                                                b_.CreateVectorSplat(1, passthru));
      value = b_.CreateExtractElement(loaded, uint64_t(0));
    }
  } else {
    std::optional<Stride> stride = operandStride(op, 0);
    if (stride && stride->scale && stride->scale == knownUnitScale_)
      stride = Stride{stride->factor, nullptr};
    if (stride && stride->isConstant(1)) {
      value = loadStrip(loadTy, evalOperand(op, 0, coords, false), align, mask, passthru);
    } else if (stride && stride->isConstant(0) && !mask) {
      value = splat(b_.CreateAlignedLoad(memTy, evalOperand(op, 0, coords, false), align));
    } else if (stride && stride->scale) {
      llvm::Value *first = evalOperand(op, 0, coords, false);
      llvm::Value *ptrs = isa_.hasStridedAccess() ? nullptr : evalOperand(op, 0, coords, true);
      llvm::Value *elements = runtimeStride(*stride);
      value = whenUnitStride(
          elements, [&] { return loadStrip(loadTy, first, align, mask, passthru); },
          [&] {
            return ptrs ? gatherStrip(loadTy, ptrs, align, mask, passthru)
                        : stridedLoadStrip(loadTy, first, elements, align, mask, passthru);
          });
    } else {
      llvm::Value *ptrs = evalOperand(op, 0, coords, true);
      value = gatherStrip(loadTy, ptrs, align, mask, passthru);
    }
  }
  return fromMemory(value, resultType);
}

llvm::Value *KernelCodeGen::evalDef(const Operation &op, const Value *v, const Coords &coords,
                                    bool vector) {
  const Type &type = v->type();
  switch (op.kind()) {
  case OpKind::Const: {
    llvm::Type *elem = elementType(type);
    if (isStorageOnlyKind(type.kind())) {
      double value = op.constant.isFloat ? op.constant.floatValue : double(op.constant.intValue);
      llvm::Value *c = llvm::ConstantInt::get(elem, toFloat8Bits(value, type.kind()));
      return vector ? splat(c) : c;
    }
    llvm::Value *c = op.constant.isFloat
                         ? llvm::ConstantFP::get(elem, op.constant.floatValue)
                         : llvm::ConstantInt::get(elem, uint64_t(op.constant.intValue), true);
    return vector ? splat(c) : c;
  }
  case OpKind::Arange: {
    llvm::Value *first =
        b_.CreateTrunc(b_.CreateAdd(coords.back(), i64(op.ints[0])), b_.getInt32Ty());
    if (!vector)
      return first;
    return b_.CreateAdd(splat(first), b_.CreateStepVector(vectorOf(b_.getInt32Ty())));
  }
  case OpKind::Splat:
  case OpKind::Broadcast:
    return evalOperand(op, 0, coords, vector);
  case OpKind::ExpandDims: {
    Coords inner = coords;
    inner.erase(inner.begin() + op.ints[0]);
    return eval(op.operands[0], inner, vector);
  }
  case OpKind::Trans: {
    std::vector<int64_t> perm = op.ints.empty() ? std::vector<int64_t>{1, 0} : op.ints;
    Coords source(perm.size());
    for (size_t d = 0; d < perm.size(); ++d)
      source[perm[d]] = coords[d];
    return eval(op.operands[0], source, false);
  }
  case OpKind::Reshape: {
    const Shape &from = op.operands[0]->type().shape();
    llvm::Value *linear = linearIndex(type.shape(), coords);
    Coords source(from.size());
    for (size_t d = from.size(); d-- > 0;) {
      source[d] = b_.CreateURem(linear, i64(from[d]));
      linear = b_.CreateUDiv(linear, i64(from[d]));
    }
    return eval(op.operands[0], source, false);
  }
  case OpKind::Load:
    return evalLoad(op, coords, vector);
  case OpKind::AddPtr: {
    llvm::Value *base = evalOperand(op, 0, coords, vector);
    llvm::Value *offset = vector ? nullptr : exactLaneAsI64(op, 1, coords);
    if (!offset)
      offset = b_.CreateSExtOrTrunc(evalOperand(op, 1, coords, vector),
                                    vector ? vectorOf(b_.getInt64Ty()) : b_.getInt64Ty());
    return b_.CreateGEP(memoryType(Type::scalar(type.kind())), base, offset);
  }
  case OpKind::Cast:
  case OpKind::Bitcast:
    return convert(evalOperand(op, 0, coords, vector), op.operands[0]->type().elementType(),
                   op.targetType, op.kind() == OpKind::Bitcast);
  case OpKind::UCast:
    return convertUnsigned(evalOperand(op, 0, coords, vector), op.operands[0]->type().elementType(),
                           op.targetType);
  default:
    break;
  }
  llvm::SmallVector<llvm::Value *, 3> args;
  for (unsigned i = 0; i < op.operands.size(); ++i)
    args.push_back(evalOperand(op, i, coords, vector));
  return combine(op, args, op.operands.back()->type());
}

llvm::Value *KernelCodeGen::combine(const Operation &op, llvm::ArrayRef<llvm::Value *> a,
                                    const Type &operandType) {
  if (operandType.kind() == ScalarKind::BF16 && !operandType.isPointer() &&
      op.kind() == OpKind::Select) {
    // Selected as bit patterns: RVV has no bf16 vectors to select.
    llvm::Type *bits = sameShape(a[1]->getType(), b_.getInt16Ty());
    return b_.CreateBitCast(
        b_.CreateSelect(a[0], b_.CreateBitCast(a[1], bits), b_.CreateBitCast(a[2], bits)),
        a[1]->getType());
  }
  if (operandType.kind() == ScalarKind::BF16 && !operandType.isPointer()) {
    // Hardware bf16 conversions (vcvtneps2bf16) flush subnormals: compute in
    // f32 and round once, in software, with convert(). Ops whose result is one
    // of their operands work on the bf16 values themselves, since LLVM would
    // otherwise narrow `max(fpext a, fpext b)` back to a bf16 max.
    Type bf16 = Type::scalar(ScalarKind::BF16), f32 = Type::scalar(ScalarKind::F32);
    llvm::Type *bits = a[0]->getType()->isVectorTy() ? vectorOf(b_.getInt16Ty()) : b_.getInt16Ty();
    auto onBits = [&](auto fn) {
      return b_.CreateBitCast(fn(b_.CreateBitCast(a[0], bits)), a[0]->getType());
    };
    switch (op.kind()) {
    case OpKind::Neg:
      return onBits(
          [&](llvm::Value *x) { return b_.CreateXor(x, llvm::ConstantInt::get(bits, 0x8000)); });
    case OpKind::Abs:
      return onBits(
          [&](llvm::Value *x) { return b_.CreateAnd(x, llvm::ConstantInt::get(bits, 0x7fff)); });
    case OpKind::Min:
    case OpKind::Max: {
      // maxnum/minnum: the other operand when one is NaN.
      llvm::Value *x = convert(a[0], bf16, f32, false), *y = convert(a[1], bf16, f32, false);
      llvm::Value *better =
          op.kind() == OpKind::Max ? b_.CreateFCmpOGT(x, y) : b_.CreateFCmpOLT(x, y);
      // Selected as bit patterns: RVV cannot select bf16 vectors.
      llvm::Value *pick = b_.CreateOr(better, b_.CreateFCmpUNO(y, y));
      return b_.CreateBitCast(
          b_.CreateSelect(pick, b_.CreateBitCast(a[0], bits), b_.CreateBitCast(a[1], bits)),
          a[0]->getType());
    }
    default:
      break;
    }
    llvm::SmallVector<llvm::Value *, 3> wide;
    for (llvm::Value *arg : a)
      wide.push_back(arg->getType()->getScalarType()->isBFloatTy() ? convert(arg, bf16, f32, false)
                                                                   : arg);
    llvm::Value *result = combine(op, wide, f32);
    return result->getType()->getScalarType()->isFloatTy() ? convert(result, f32, bf16, false)
                                                           : result;
  }
  bool isFloat = operandType.isFloat();
  llvm::Type *type = a[0]->getType();
  auto intrinsic = [&](llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value *> args) {
    return b_.CreateIntrinsic(id, {args[0]->getType()}, args);
  };
  // Integer division must not trap in lanes that are off or hold garbage:
  // divide by 1 where the divisor is 0, and by 1 for INT_MIN / -1.
  auto safeDivisor = [&](llvm::Value *x, llvm::Value *d) {
    llvm::Value *zero = llvm::Constant::getNullValue(type);
    llvm::Value *one = llvm::ConstantInt::get(type, 1);
    llvm::Value *minusOne = llvm::Constant::getAllOnesValue(type);
    llvm::Value *intMin =
        llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(type->getScalarSizeInBits()));
    llvm::Value *bad =
        b_.CreateOr(b_.CreateICmpEQ(d, zero),
                    b_.CreateAnd(b_.CreateICmpEQ(d, minusOne), b_.CreateICmpEQ(x, intMin)));
    return b_.CreateSelect(bad, one, d);
  };
  // Shifts by the width or more are poison in LLVM; take the amount modulo it.
  auto shiftAmount = [&](llvm::Value *s) {
    return b_.CreateAnd(s, llvm::ConstantInt::get(type, type->getScalarSizeInBits() - 1));
  };
  switch (op.kind()) {
  case OpKind::Add:
    return isFloat ? b_.CreateFAdd(a[0], a[1]) : b_.CreateAdd(a[0], a[1]);
  case OpKind::UDiv:
  case OpKind::URem: {
    // A zero divisor, in a lane that is off or holds garbage, must not trap.
    llvm::Value *zero = llvm::Constant::getNullValue(type);
    llvm::Value *d =
        b_.CreateSelect(b_.CreateICmpEQ(a[1], zero), llvm::ConstantInt::get(type, 1), a[1]);
    return op.kind() == OpKind::UDiv ? b_.CreateUDiv(a[0], d) : b_.CreateURem(a[0], d);
  }
  case OpKind::UMin:
    return intrinsic(llvm::Intrinsic::umin, a);
  case OpKind::UMax:
    return intrinsic(llvm::Intrinsic::umax, a);
  case OpKind::Sub:
    return isFloat ? b_.CreateFSub(a[0], a[1]) : b_.CreateSub(a[0], a[1]);
  case OpKind::Mul:
    return isFloat ? b_.CreateFMul(a[0], a[1]) : b_.CreateMul(a[0], a[1]);
  case OpKind::Div:
    if (isFloat && a[0]->getType()->isVectorTy() && op.operands[1]->type().isScalar() &&
        (operandType.kind() == ScalarKind::F32 || operandType.kind() == ScalarKind::F64))
      return divideByUniform(a[0], a[1]);
    return isFloat ? b_.CreateFDiv(a[0], a[1]) : b_.CreateSDiv(a[0], safeDivisor(a[0], a[1]));
  case OpKind::Rem:
    if (isFloat && operandType.kind() == ScalarKind::F16) {
      // In f32, where libm has fmod; the remainder is exact in f16 again.
      Type f16 = Type::scalar(ScalarKind::F16), f32 = Type::scalar(ScalarKind::F32);
      llvm::Value *x = convert(a[0], f16, f32, false), *y = convert(a[1], f16, f32, false);
      return convert(floatRemainder(x, y), f32, f16, false);
    }
    if (isFloat)
      return floatRemainder(a[0], a[1]);
    return b_.CreateSRem(a[0], safeDivisor(a[0], a[1]));
  case OpKind::Min:
    return intrinsic(isFloat ? llvm::Intrinsic::minnum : llvm::Intrinsic::smin, a);
  case OpKind::Max:
    return intrinsic(isFloat ? llvm::Intrinsic::maxnum : llvm::Intrinsic::smax, a);
  case OpKind::And:
    return b_.CreateAnd(a[0], a[1]);
  case OpKind::Or:
    return b_.CreateOr(a[0], a[1]);
  case OpKind::Xor:
    return b_.CreateXor(a[0], a[1]);
  case OpKind::Shl:
    return b_.CreateShl(a[0], shiftAmount(a[1]));
  case OpKind::AShr:
    return b_.CreateAShr(a[0], shiftAmount(a[1]));
  case OpKind::LShr:
    return b_.CreateLShr(a[0], shiftAmount(a[1]));
  case OpKind::Neg:
    return isFloat ? b_.CreateFNeg(a[0]) : b_.CreateNeg(a[0]);
  case OpKind::Abs:
    return isFloat ? intrinsic(llvm::Intrinsic::fabs, a)
                   : b_.CreateIntrinsic(llvm::Intrinsic::abs, {type}, {a[0], b_.getFalse()});
  case OpKind::Not:
    return b_.CreateNot(a[0]);
  case OpKind::Fma:
    if (operandType.kind() == ScalarKind::F16) {
      // An f16 fma is exact in f64 up to one rounding, which convert() does
      // without the compiler-rt call LLVM would emit (__truncdfhf2).
      Type f16 = Type::scalar(ScalarKind::F16), f64 = Type::scalar(ScalarKind::F64);
      llvm::SmallVector<llvm::Value *, 3> wide;
      for (llvm::Value *arg : a)
        wide.push_back(convert(arg, f16, f64, false));
      return convert(intrinsic(llvm::Intrinsic::fma, wide), f64, f16, false);
    }
    return intrinsic(llvm::Intrinsic::fma, a);
  case OpKind::Select:
    return b_.CreateSelect(a[0], a[1], a[2]);
  case OpKind::Cmp: {
    using P = llvm::CmpInst::Predicate;
    static const P floatPreds[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT,
                                   P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
    static const P intPreds[] = {P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT,
                                 P::ICMP_SGE, P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
    unsigned p = static_cast<unsigned>(op.predicate);
    return isFloat ? b_.CreateFCmp(floatPreds[p], a[0], a[1])
                   : b_.CreateICmp(intPreds[p], a[0], a[1]);
  }
  default:
    return emitMath(op.kind(), a, operandType.kind());
  }
}

} // namespace blockc
