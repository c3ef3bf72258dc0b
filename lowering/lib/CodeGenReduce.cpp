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

void KernelCodeGen::emitReduce(const Operation &op, llvm::Value *buffer) {
  const Value *src = op.operands[0];
  const Shape &shape = src->type().shape();
  size_t axis = op.ints[0];
  ScalarKind kind = src->type().kind();
  bool isFloat = isFloatKind(kind);
  // f16/bf16 accumulate in f32: sums keep their precision over long rows, and
  // every rounding back to 16 bits happens once, in convert().
  ScalarKind accKind = isFloat && bitWidth(kind) < 32 ? ScalarKind::F32 : kind;
  Type accType = Type::scalar(accKind);
  llvm::Type *accElem = scalarType(accKind);

  llvm::Value *identity;
  if (op.kind() == OpKind::ReduceSum) {
    identity = llvm::Constant::getNullValue(accElem);
  } else if (isFloat) {
    // NaN: maxnum/minnum skip it, so NaN elements are ignored and only an
    // all-NaN row (or column) reduces to NaN, as docs/block-ir.md specifies.
    identity = llvm::ConstantFP::getNaN(accElem);
  } else {
    unsigned bits = bitWidth(kind);
    identity =
        llvm::ConstantInt::get(accElem, wantsMax(op.kind()) ? llvm::APInt::getSignedMinValue(bits)
                                                            : llvm::APInt::getSignedMaxValue(bits));
  }
  auto widen = [&](llvm::Value *v) { return convert(v, Type::scalar(kind), accType, false); };
  // Returns (value, index) after folding `x` (with lane indices `idx`) in.
  auto step = [&](llvm::Value *acc, llvm::Value *accIdx, llvm::Value *x,
                  llvm::Value *idx) -> std::pair<llvm::Value *, llvm::Value *> {
    if (op.kind() == OpKind::ReduceSum)
      return {isFloat ? b_.CreateFAdd(acc, x) : b_.CreateAdd(acc, x), nullptr};
    if (!isArg(op.kind())) {
      auto id = isFloat ? (wantsMax(op.kind()) ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum)
                        : (wantsMax(op.kind()) ? llvm::Intrinsic::smax : llvm::Intrinsic::smin);
      return {b_.CreateIntrinsic(id, {acc->getType()}, {acc, x}), nullptr};
    }
    // Strictly better only: the first (lowest) index wins ties. NaN never
    // wins, and any number beats the NaN the accumulator starts as.
    llvm::Value *better =
        isFloat ? (wantsMax(op.kind()) ? b_.CreateFCmpOGT(x, acc) : b_.CreateFCmpOLT(x, acc))
                : (wantsMax(op.kind()) ? b_.CreateICmpSGT(x, acc) : b_.CreateICmpSLT(x, acc));
    if (isFloat)
      better =
          b_.CreateOr(better, b_.CreateAnd(b_.CreateFCmpUNO(acc, acc), b_.CreateFCmpORD(x, x)));
    return {b_.CreateSelect(better, x, acc), b_.CreateSelect(better, idx, accIdx)};
  };

  Shape outer(shape.begin(), shape.end() - 1);
  if (axis + 1 == shape.size()) {
    // Along the last dimension: a vector accumulator per row, folded across
    // lanes at the end. Accumulators live in allocas that SROA promotes.
    int64_t length = shape.back();
    bool vector = length > 1;
    llvm::Type *accTy = vector ? vectorOf(accElem) : accElem;
    llvm::Type *idxTy = vector ? vectorOf(b_.getInt32Ty()) : b_.getInt32Ty();
    llvm::IRBuilder<> entry(allocaBlock_, allocaBlock_->begin());
    llvm::Value *accSlot = entry.CreateAlloca(accTy);
    llvm::Value *idxSlot = entry.CreateAlloca(idxTy);
    auto perRow = [&](const Coords &rowCoords) {
      llvm::Value *init = vector ? splat(identity) : identity;
      b_.CreateStore(init, accSlot);
      b_.CreateStore(llvm::Constant::getNullValue(idxTy), idxSlot);
      forEachStripOfRow(length, [&](llvm::Value *column, bool isVector) {
        Coords coords = rowCoords;
        coords.push_back(column);
        llvm::Value *x = widen(eval(src, coords, isVector));
        if (llvm::Value *active = activeLanes())
          x = b_.CreateSelect(active, x, splat(identity));
        llvm::Value *idx = b_.CreateTrunc(column, b_.getInt32Ty());
        if (isVector)
          idx = b_.CreateAdd(splat(idx), b_.CreateStepVector(idxTy));
        auto [acc, accIdx] =
            step(b_.CreateLoad(accTy, accSlot), b_.CreateLoad(idxTy, idxSlot), x, idx);
        b_.CreateStore(acc, accSlot);
        if (accIdx)
          b_.CreateStore(accIdx, idxSlot);
      });
      llvm::Value *acc = b_.CreateLoad(accTy, accSlot);
      llvm::Value *result = acc;
      if (vector) {
        switch (op.kind()) {
        case OpKind::ReduceSum:
          if (isFloat) {
            // Strips already reassociate the sum; let the final fold do too.
            auto *sum = b_.CreateFAddReduce(llvm::ConstantFP::getNegativeZero(accElem), acc);
            llvm::cast<llvm::Instruction>(sum)->setHasAllowReassoc(true);
            result = sum;
          } else {
            result = b_.CreateAddReduce(acc);
          }
          break;
        default: {
          llvm::Value *best = isFloat ? (wantsMax(op.kind()) ? b_.CreateFPMaxReduce(acc)
                                                             : b_.CreateFPMinReduce(acc))
                                      : (wantsMax(op.kind()) ? b_.CreateIntMaxReduce(acc, true)
                                                             : b_.CreateIntMinReduce(acc, true));
          result = best;
          if (isArg(op.kind())) {
            llvm::Value *isBest =
                isFloat ? b_.CreateFCmpOEQ(acc, splat(best)) : b_.CreateICmpEQ(acc, splat(best));
            llvm::Value *candidates = b_.CreateSelect(isBest, b_.CreateLoad(idxTy, idxSlot),
                                                      splat(b_.getInt32(INT32_MAX)));
            result = b_.CreateIntMinReduce(candidates, false);
            // Every element NaN (or the identity): report index 0.
            result = b_.CreateSelect(b_.CreateICmpEQ(result, b_.getInt32(INT32_MAX)),
                                     b_.getInt32(0), result);
          }
        }
        }
      } else if (isArg(op.kind())) {
        result = b_.CreateLoad(idxTy, idxSlot);
      }
      if (!isArg(op.kind()))
        result = convert(result, accType, op.result()->type().elementType(), false);
      if (!buffer)
        scalars_[op.result()] = result;
      else
        storeBuffer(buffer, op.result()->type(), rowCoords, result, false);
    };
    if (outer.empty())
      perRow({});
    else
      forEachElement(outer, perRow);
    return;
  }

  // Along another dimension: the result keeps the last dimension, so whole
  // strips of the result accumulate in place while the reduced axis is walked.
  const Type &resultType = op.result()->type();
  Type accBufferType = Type::block(accKind, resultType.shape());
  llvm::Value *accBuffer =
      isArg(op.kind()) || accKind != kind ? allocaBuffer(accBufferType, "acc") : buffer;
  forEachStrip(resultType.shape(), [&](const Coords &coords, bool vector) {
    storeBuffer(accBuffer, accBufferType, coords, vector ? splat(identity) : identity, vector);
    if (isArg(op.kind()))
      storeBuffer(buffer, resultType, coords,
                  llvm::Constant::getNullValue(vector ? vectorOf(b_.getInt32Ty())
                                                      : static_cast<llvm::Type *>(b_.getInt32Ty())),
                  vector);
  });
  forEachStrip(shape, [&](const Coords &coords, bool vector) {
    Coords resultCoords = coords;
    resultCoords.erase(resultCoords.begin() + axis);
    llvm::Value *x = widen(eval(src, coords, vector));
    llvm::Value *acc = loadBuffer(accBuffer, accBufferType, resultCoords, vector);
    llvm::Value *idx = b_.CreateTrunc(coords[axis], b_.getInt32Ty());
    llvm::Value *accIdx = nullptr;
    if (isArg(op.kind())) {
      idx = vector ? splat(idx) : idx;
      accIdx = loadBuffer(buffer, resultType, resultCoords, vector);
    }
    auto [next, nextIdx] = step(acc, accIdx, x, idx);
    storeBuffer(accBuffer, accBufferType, resultCoords, next, vector);
    if (nextIdx)
      storeBuffer(buffer, resultType, resultCoords, nextIdx, vector);
  });
  if (accBuffer != buffer && !isArg(op.kind()))
    forEachStrip(resultType.shape(), [&](const Coords &coords, bool vector) {
      llvm::Value *acc = loadBuffer(accBuffer, accBufferType, coords, vector);
      storeBuffer(buffer, resultType, coords,
                  convert(acc, accType, resultType.elementType(), false), vector);
    });
}

void KernelCodeGen::emitDot(const Operation &op, llvm::Value *buffer) {
  // The ISA's strategies first, best first; then the generic path, which every
  // dot can take: C[m, :] += A[m, k] * B[k, :] with one strip of C in a
  // register across the whole K extent.
  const Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2];
  int64_t m = a->type().shape()[0], k = a->type().shape()[1], n = bv->type().shape()[1];
  llvm::Value *aBuffer = bufferOf(a), *bBuffer = bufferOf(bv);
  const Type &cType = op.result()->type();
  writeInto(acc, buffer);
  DotOperands operands{b_,
                       aBuffer,
                       bBuffer,
                       buffer,
                       a->type().kind(),
                       bv->type().kind(),
                       cType.kind(),
                       m,
                       n,
                       k,
                       [&](llvm::Type *type, const std::string &name) {
                         return allocaScratch(type, name,
                                              name + " (packed operand of %" + op.result()->name() +
                                                  ")");
                       }};
  for (const auto &strategy : isa_.dotStrategies())
    if ((options_.dotStrategy.empty() || options_.dotStrategy == strategy->name()) &&
        strategy->accepts(operands))
      return strategy->emit(operands);
  bool isFloat = cType.isFloat();
  Type accElem = cType.elementType();
  llvm::Type *accTy = vectorOf(elementType(accElem));
  llvm::IRBuilder<> entry(allocaBlock_, allocaBlock_->begin());
  llvm::Value *slot = entry.CreateAlloca(accTy);
  llvm::Value *scalarSlot = entry.CreateAlloca(elementType(accElem));
  emitCountedLoop(i64(0), i64(m), i64(1), [&](llvm::Value *row) {
    forEachStripOfRow(n, [&](llvm::Value *column, bool vector) {
      llvm::Value *mask = tailMask_;
      auto load = [&](llvm::Value *buf, const Type &type, const Coords &coords, bool vec) {
        llvm::Value *saved = tailMask_;
        tailMask_ = vec ? mask : nullptr;
        llvm::Value *v = loadBuffer(buf, type, coords, vec);
        tailMask_ = saved;
        return convert(v, type.elementType(), accElem, false);
      };
      // N == 1 runs the same loop on scalars.
      llvm::Type *ty = vector ? accTy : elementType(accElem);
      llvm::Value *s = vector ? slot : scalarSlot;
      b_.CreateStore(load(buffer, cType, {row, column}, vector), s);
      emitCountedLoop(i64(0), i64(k), i64(1), [&](llvm::Value *kk) {
        llvm::Value *x = load(aBuffer, a->type(), {row, kk}, false);
        if (vector)
          x = splat(x);
        llvm::Value *y = load(bBuffer, bv->type(), {kk, column}, vector);
        llvm::Value *c = b_.CreateLoad(ty, s);
        c = isFloat ? b_.CreateIntrinsic(llvm::Intrinsic::fma, {ty}, {x, y, c})
                    : b_.CreateAdd(c, b_.CreateMul(x, y));
        b_.CreateStore(c, s);
      });
      tailMask_ = mask;
      storeBuffer(buffer, cType, {row, column}, b_.CreateLoad(ty, s), vector);
    });
  });
}

} // namespace blockc
