//===- CodeGenReduce.cpp - Reductions and the generic dot -----------------===//
#include "CodeGen.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#include <limits>

namespace blockc {

namespace {

bool isArg(OpKind k) {
  return k == OpKind::ArgMax || k == OpKind::ArgMin;
}
bool wantsMax(OpKind k) {
  return k == OpKind::ReduceMax || k == OpKind::ArgMax;
}

} // namespace

KernelCodeGen::Reduction::Reduction(KernelCodeGen &cg, const Operation &op) : cg_(cg), op_(op) {
  ScalarKind kind = op.operands[0]->type().kind();
  isFloat_ = isFloatKind(kind);
  // f16/bf16 accumulate in f32: sums keep their precision over long rows, and
  // every rounding back to 16 bits happens once, in convert().
  accType_ = Type::scalar(isFloat_ && bitWidth(kind) < 32 ? ScalarKind::F32 : kind);
  llvm::Type *accElem = cg.scalarType(accType_.kind());
  if (op.kind() == OpKind::ReduceSum) {
    identity_ = llvm::Constant::getNullValue(accElem);
  } else if (isFloat_) {
    // NaN: maxnum/minnum skip it, so NaN elements are ignored and only an
    // all-NaN row (or column) reduces to NaN, as docs/block-ir.md specifies.
    identity_ = llvm::ConstantFP::getNaN(accElem);
    ordered_ = !isArg(op.kind()) && !cg.isa_.hasNumericMinMax();
  } else {
    unsigned bits = bitWidth(kind);
    identity_ =
        llvm::ConstantInt::get(accElem, wantsMax(op.kind()) ? llvm::APInt::getSignedMinValue(bits)
                                                            : llvm::APInt::getSignedMaxValue(bits));
  }
}

llvm::Value *KernelCodeGen::Reduction::widen(llvm::Value *x) {
  return cg_.convert(x, op_.operands[0]->type().elementType(), accType_, false);
}

std::pair<llvm::Value *, llvm::Value *> KernelCodeGen::Reduction::step(llvm::Value *acc,
                                                                       llvm::Value *accIdx,
                                                                       llvm::Value *x,
                                                                       llvm::Value *idx) {
  llvm::IRBuilder<> &b = cg_.b_;
  OpKind kind = op_.kind();
  if (kind == OpKind::ReduceSum)
    return {isFloat_ ? b.CreateFAdd(acc, x) : b.CreateAdd(acc, x), nullptr};
  if (!isArg(kind)) {
    auto id = isFloat_ ? (wantsMax(kind) ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum)
                       : (wantsMax(kind) ? llvm::Intrinsic::smax : llvm::Intrinsic::smin);
    return {b.CreateIntrinsic(id, {acc->getType()}, {acc, x}), nullptr};
  }
  // Strictly better only: the first (lowest) index wins ties. NaN never
  // wins, and any number beats the NaN the accumulator starts as.
  llvm::Value *better = isFloat_
                            ? (wantsMax(kind) ? b.CreateFCmpOGT(x, acc) : b.CreateFCmpOLT(x, acc))
                            : (wantsMax(kind) ? b.CreateICmpSGT(x, acc) : b.CreateICmpSLT(x, acc));
  if (isFloat_)
    better = b.CreateOr(better, b.CreateAnd(b.CreateFCmpUNO(acc, acc), b.CreateFCmpORD(x, x)));
  return {b.CreateSelect(better, x, acc), b.CreateSelect(better, idx, accIdx)};
}

std::pair<llvm::Value *, llvm::Value *>
KernelCodeGen::Reduction::stepOrdered(llvm::Value *acc, llvm::Value *seen, llvm::Value *x) {
  llvm::IRBuilder<> &b = cg_.b_;
  llvm::Value *better = wantsMax(op_.kind()) ? b.CreateFCmpOGT(x, acc) : b.CreateFCmpOLT(x, acc);
  // The flag is as wide as the element, all ones where seen: a compare's
  // result as x86 leaves it in a vector register, so an OR keeps it.
  llvm::Value *number = b.CreateSExt(b.CreateFCmpORD(x, x), seen->getType());
  return {b.CreateSelect(better, x, acc), b.CreateOr(seen, number)};
}

llvm::Type *KernelCodeGen::Reduction::seenType(bool vector) const {
  llvm::Type *flag = cg_.b_.getIntNTy(identity_->getType()->getScalarSizeInBits());
  return vector ? cg_.vectorOf(flag) : flag;
}

unsigned KernelCodeGen::Reduction::maxWays() const {
  if (isArg(op_.kind()))
    return 1;
  return cg_.evaluatesMath(op_.operands[0]) ? cg_.mathStripWays() : 4;
}

bool KernelCodeGen::evaluatesMath(const Value *v) {
  std::vector<const Value *> pending{v};
  std::unordered_set<const Value *> seen;
  while (!pending.empty()) {
    const Value *x = pending.back();
    pending.pop_back();
    const Operation *def = x->definingOp();
    if (!seen.insert(x).second || x->type().isScalar() || buffers_.count(x) || !def ||
        plan_.isMaterialized(x))
      continue;
    if (def->opClass() == OpClass::FloatUnary || def->opClass() == OpClass::FloatBinary)
      return true;
    pending.insert(pending.end(), def->operands.begin(), def->operands.end());
  }
  return false;
}

void KernelCodeGen::Reduction::beginRow(int64_t length, unsigned ways) {
  llvm::IRBuilder<> &b = cg_.b_;
  vector_ = length > 1;
  ways_ = std::min(ways, maxWays());
  llvm::Type *accElem = identity_->getType();
  llvm::Type *accTy = vector_ ? cg_.vectorOf(accElem) : accElem;
  llvm::Type *idxTy = vector_ ? cg_.vectorOf(b.getInt32Ty()) : b.getInt32Ty();
  // Accumulators live in allocas that SROA promotes.
  llvm::IRBuilder<> entry = cg_.entryBuilder();
  while (accSlots_.size() < ways_)
    accSlots_.push_back(entry.CreateAlloca(accTy));
  if (!idxSlot_)
    idxSlot_ = entry.CreateAlloca(idxTy);
  llvm::Value *start = identity_;
  if (ordered_) {
    start = llvm::ConstantFP::getInfinity(accElem, /*Negative=*/wantsMax(op_.kind()));
    llvm::Type *seenTy = seenType(vector_);
    while (seenSlots_.size() < ways_)
      seenSlots_.push_back(entry.CreateAlloca(seenTy));
    for (unsigned way = 0; way < ways_; ++way)
      b.CreateStore(llvm::Constant::getNullValue(seenTy), seenSlots_[way]);
  }
  for (unsigned way = 0; way < ways_; ++way)
    b.CreateStore(vector_ ? cg_.splat(start) : start, accSlots_[way]);
  b.CreateStore(llvm::Constant::getNullValue(idxTy), idxSlot_);
}

llvm::Value *KernelCodeGen::Reduction::prepareStrip(const Coords &coords, bool vector) {
  llvm::Value *x = widen(cg_.eval(op_.operands[0], coords, vector));
  // Past a vector length, accumulateStrip keeps the accumulator's lanes.
  if (vector && cg_.tailKeptByVectorLength())
    return x;
  if (llvm::Value *active = cg_.activeLanes())
    x = cg_.b_.CreateSelect(active, x, cg_.splat(identity_));
  return x;
}

void KernelCodeGen::Reduction::accumulateStrip(llvm::Value *x, llvm::Value *column, bool vector,
                                               unsigned way) {
  llvm::Value *accSlot = accSlots_[way % ways_];
  llvm::IRBuilder<> &b = cg_.b_;
  llvm::Type *accTy = x->getType();
  if (ordered_) {
    // Inactive lanes hold the NaN identity: neither better nor a number.
    llvm::Value *seenSlot = seenSlots_[way % ways_];
    llvm::Type *seenTy = seenType(vector);
    llvm::Value *oldAcc = b.CreateLoad(accTy, accSlot);
    llvm::Value *oldSeen = b.CreateLoad(seenTy, seenSlot);
    auto [acc, seen] = stepOrdered(oldAcc, oldSeen, x);
    b.CreateStore(cg_.keepInactiveLanes(acc, oldAcc), accSlot);
    b.CreateStore(cg_.keepInactiveLanes(seen, oldSeen), seenSlot);
    return;
  }
  llvm::Type *idxTy = vector ? cg_.vectorOf(b.getInt32Ty()) : b.getInt32Ty();
  llvm::Value *idx = b.CreateTrunc(column, b.getInt32Ty());
  if (vector)
    idx = b.CreateAdd(cg_.splat(idx), b.CreateStepVector(idxTy));
  llvm::Value *oldAcc = b.CreateLoad(accTy, accSlot);
  llvm::Value *oldIdx = b.CreateLoad(idxTy, idxSlot_);
  auto [acc, accIdx] = step(oldAcc, oldIdx, x, idx);
  b.CreateStore(cg_.keepInactiveLanes(acc, oldAcc), accSlot);
  if (accIdx)
    b.CreateStore(cg_.keepInactiveLanes(accIdx, oldIdx), idxSlot_);
}

void KernelCodeGen::Reduction::finishRow(const Coords &rowCoords, llvm::Value *buffer) {
  llvm::IRBuilder<> &b = cg_.b_;
  llvm::Type *accElem = identity_->getType();
  llvm::Type *accTy = vector_ ? cg_.vectorOf(accElem) : accElem;
  llvm::Type *idxTy = vector_ ? cg_.vectorOf(b.getInt32Ty()) : b.getInt32Ty();
  OpKind kind = op_.kind();
  // A lane that saw no number holds NaN again, which maxnum/minnum skip.
  auto wayResult = [&](unsigned way) -> llvm::Value * {
    llvm::Value *acc = b.CreateLoad(accTy, accSlots_[way]);
    if (!ordered_)
      return acc;
    llvm::Value *seen = b.CreateLoad(seenType(vector_), seenSlots_[way]);
    return b.CreateSelect(b.CreateIsNotNull(seen), acc, vector_ ? cg_.splat(identity_) : identity_);
  };
  llvm::Value *acc = wayResult(0);
  for (unsigned way = 1; way < ways_; ++way)
    acc = step(acc, nullptr, wayResult(way), nullptr).first;
  llvm::Value *result = acc;
  if (vector_) {
    switch (kind) {
    case OpKind::ReduceSum:
      if (isFloat_) {
        // Strips already reassociate the sum; let the final fold do too.
        auto *sum = b.CreateFAddReduce(llvm::ConstantFP::getNegativeZero(accElem), acc);
        llvm::cast<llvm::Instruction>(sum)->setHasAllowReassoc(true);
        result = sum;
      } else {
        result = b.CreateAddReduce(acc);
      }
      break;
    default: {
      llvm::Value *best =
          isFloat_ ? (wantsMax(kind) ? b.CreateFPMaxReduce(acc) : b.CreateFPMinReduce(acc))
                   : (wantsMax(kind) ? b.CreateIntMaxReduce(acc, true)
                                     : b.CreateIntMinReduce(acc, true));
      result = best;
      if (isArg(kind)) {
        llvm::Value *isBest =
            isFloat_ ? b.CreateFCmpOEQ(acc, cg_.splat(best)) : b.CreateICmpEQ(acc, cg_.splat(best));
        llvm::Value *candidates =
            b.CreateSelect(isBest, b.CreateLoad(idxTy, idxSlot_), cg_.splat(b.getInt32(INT32_MAX)));
        result = b.CreateIntMinReduce(candidates, false);
        // Every element NaN (or the identity): report index 0.
        result =
            b.CreateSelect(b.CreateICmpEQ(result, b.getInt32(INT32_MAX)), b.getInt32(0), result);
      }
    }
    }
  } else if (isArg(kind)) {
    result = b.CreateLoad(idxTy, idxSlot_);
  }
  if (!isArg(kind))
    result = cg_.convert(result, accType_, op_.result()->type().elementType(), false);
  if (!buffer)
    cg_.scalars_[op_.result()] = result;
  else
    cg_.storeBuffer(buffer, op_.result()->type(), rowCoords, result, false);
}

void KernelCodeGen::emitReduce(const Operation &op, llvm::Value *buffer) {
  const Value *src = op.operands[0];
  const Shape &shape = src->type().shape();
  size_t axis = op.ints[0];
  Reduction reduction(*this, op);
  Shape outer(shape.begin(), shape.end() - 1);
  if (axis + 1 == shape.size()) {
    // Along the last dimension: a vector accumulator per row, folded across
    // lanes at the end.
    std::vector<NextProgramFetch> fetches = planNextProgramFetches({src}, shape);
    auto perRow = [&](const Coords &rowCoords) {
      unsigned ways = waysFor(shape.back(), reduction.maxWays());
      reduction.beginRow(shape.back(), ways);
      forEachStripOfRow(shape.back(), ways,
                        [&](llvm::Value *column, bool vector, unsigned way) {
                          Coords coords = rowCoords;
                          coords.push_back(column);
                          fetchForNextProgram(fetches, coords, vector);
                          reduction.accumulateStrip(reduction.prepareStrip(coords, vector), column,
                                                    vector, way);
                        },
                        {});
      reduction.finishRow(rowCoords, buffer);
    };
    std::vector<const Value *> masks, scalarResults;
    std::unordered_set<const Value *> seen;
    collectAccessMasks(src, masks, seen);
    if (!buffer)
      scalarResults.push_back(op.result());
    versionOnFullMasks(masks, scalarResults, [&] {
      if (outer.empty())
        perRow({});
      else
        forEachElement(outer, perRow);
    });
    return;
  }

  // Along another dimension: the result keeps the last dimension, so whole
  // strips of the result accumulate in place while the reduced axis is walked.
  const Type &resultType = op.result()->type();
  const Type &accType = reduction.accType();
  llvm::Value *identity = reduction.identity();
  bool argReduction = isArg(op.kind());
  Type accBufferType = Type::block(accType.kind(), resultType.shape());
  llvm::Value *accBuffer = argReduction || accType.kind() != src->type().kind()
                               ? allocaBuffer(accBufferType, "acc")
                               : buffer;
  forEachStrip(resultType.shape(), [&](const Coords &coords, bool vector) {
    storeBuffer(accBuffer, accBufferType, coords, vector ? splat(identity) : identity, vector);
    if (argReduction)
      storeBuffer(buffer, resultType, coords,
                  llvm::Constant::getNullValue(vector ? vectorOf(b_.getInt32Ty())
                                                      : static_cast<llvm::Type *>(b_.getInt32Ty())),
                  vector);
  });
  forEachStrip(shape, [&](const Coords &coords, bool vector) {
    Coords resultCoords = coords;
    resultCoords.erase(resultCoords.begin() + axis);
    llvm::Value *x = reduction.widen(eval(src, coords, vector));
    llvm::Value *acc = loadBuffer(accBuffer, accBufferType, resultCoords, vector);
    llvm::Value *idx = b_.CreateTrunc(coords[axis], b_.getInt32Ty());
    llvm::Value *accIdx = nullptr;
    if (argReduction) {
      idx = vector ? splat(idx) : idx;
      accIdx = loadBuffer(buffer, resultType, resultCoords, vector);
    }
    auto [next, nextIdx] = reduction.step(acc, accIdx, x, idx);
    storeBuffer(accBuffer, accBufferType, resultCoords, next, vector);
    if (nextIdx)
      storeBuffer(buffer, resultType, resultCoords, nextIdx, vector);
  });
  if (accBuffer != buffer && !argReduction)
    forEachStrip(resultType.shape(), [&](const Coords &coords, bool vector) {
      llvm::Value *acc = loadBuffer(accBuffer, accBufferType, coords, vector);
      storeBuffer(buffer, resultType, coords,
                  convert(acc, accType, resultType.elementType(), false), vector);
    });
}

} // namespace blockc
