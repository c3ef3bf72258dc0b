//===- CodeGenAtomics.cpp - Atomics, and the checks of `assert` ------------===//
//
// No ISA blockc targets has a vector atomic, so a block atomic runs lane by
// lane: each active lane is one LLVM atomicrmw or cmpxchg at system scope
// with the op's memory order, and its old value lands in the result's buffer
// (a masked-off lane gives 0 and touches no memory). Lanes run in row-major
// order; lanes of one op with the same address each apply in turn, which is
// what a histogram needs. 16-bit floats go through a compare-and-swap loop on
// their bits, computing in f32, since not every backend has half atomics.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "blockc/frontend/IRUtils.h"

#include "llvm/IR/Module.h"

namespace blockc {

namespace {

llvm::AtomicOrdering toLLVM(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::Relaxed:
    return llvm::AtomicOrdering::Monotonic;
  case MemoryOrder::Acquire:
    return llvm::AtomicOrdering::Acquire;
  case MemoryOrder::Release:
    return llvm::AtomicOrdering::Release;
  case MemoryOrder::AcqRel:
    return llvm::AtomicOrdering::AcquireRelease;
  }
  return llvm::AtomicOrdering::SequentiallyConsistent;
}

/// A failed compare-and-swap only reads, so its ordering drops the release half.
llvm::AtomicOrdering failureOrdering(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::Release:
  case MemoryOrder::Relaxed:
    return llvm::AtomicOrdering::Monotonic;
  default:
    return llvm::AtomicOrdering::Acquire;
  }
}

llvm::AtomicRMWInst::BinOp rmwOperation(OpKind kind, bool isFloat) {
  switch (kind) {
  case OpKind::AtomicAdd:
    return isFloat ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add;
  case OpKind::AtomicMax:
    return isFloat ? llvm::AtomicRMWInst::FMax : llvm::AtomicRMWInst::Max;
  case OpKind::AtomicMin:
    return isFloat ? llvm::AtomicRMWInst::FMin : llvm::AtomicRMWInst::Min;
  case OpKind::AtomicUMax:
    return llvm::AtomicRMWInst::UMax;
  case OpKind::AtomicUMin:
    return llvm::AtomicRMWInst::UMin;
  case OpKind::AtomicAnd:
    return llvm::AtomicRMWInst::And;
  case OpKind::AtomicOr:
    return llvm::AtomicRMWInst::Or;
  case OpKind::AtomicXor:
    return llvm::AtomicRMWInst::Xor;
  default:
    return llvm::AtomicRMWInst::Xchg;
  }
}

} // namespace

llvm::Value *KernelCodeGen::emitAtomicElement(const Operation &op, llvm::Value *ptr,
                                              llvm::ArrayRef<llvm::Value *> values) {
  const Type element = Type::scalar(op.operands[0]->type().kind());
  ScalarKind kind = element.kind();
  llvm::Type *memTy = memoryType(element);
  llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
  llvm::AtomicOrdering order = toLLVM(op.order);
  bool isFloat = isFloatKind(kind);

  if (op.opClass() == OpClass::AtomicCas) {
    // Floats are compared by their bits, as the hardware compares them.
    llvm::Type *bitsTy = b_.getIntNTy(bitWidth(kind));
    llvm::Value *expected = b_.CreateBitCast(toMemory(values[0], element), bitsTy);
    llvm::Value *desired = b_.CreateBitCast(toMemory(values[1], element), bitsTy);
    auto *cas =
        b_.CreateAtomicCmpXchg(ptr, expected, desired, align, order, failureOrdering(op.order));
    return fromMemory(b_.CreateBitCast(b_.CreateExtractValue(cas, 0), memTy), element);
  }

  llvm::AtomicRMWInst::BinOp operation = rmwOperation(op.kind(), isFloat);
  if (!isFloat || bitWidth(kind) >= 32 || operation == llvm::AtomicRMWInst::Xchg) {
    llvm::Value *operand = toMemory(values[0], element);
    auto *rmw = b_.CreateAtomicRMW(operation, ptr, operand, align, order);
    return fromMemory(rmw, element);
  }

  // f16 and bf16: the new value is computed in f32 and rounded once, as
  // `add`, `max` and `min` of these types are, then swapped in if the
  // memory still holds what it was computed from.
  const Type wide = Type::scalar(ScalarKind::F32);
  llvm::Value *operand = convert(values[0], element, wide, false);
  llvm::BasicBlock *before = b_.GetInsertBlock();
  llvm::BasicBlock *retry = llvm::BasicBlock::Create(b_.getContext(), "atomic.retry", fn_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(b_.getContext(), "atomic.done", fn_);
  llvm::Value *initial = b_.CreateAlignedLoad(memTy, ptr, align);
  llvm::cast<llvm::LoadInst>(initial)->setAtomic(llvm::AtomicOrdering::Monotonic);
  b_.CreateBr(retry);
  b_.SetInsertPoint(retry);
  llvm::PHINode *seen = b_.CreatePHI(memTy, 2);
  seen->addIncoming(initial, before);
  llvm::Value *old = convert(fromMemory(seen, element), element, wide, false);
  llvm::Value *updated;
  switch (operation) {
  case llvm::AtomicRMWInst::FAdd:
    updated = b_.CreateFAdd(old, operand);
    break;
  case llvm::AtomicRMWInst::FMax:
    updated = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, old, operand);
    break;
  default:
    updated = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, old, operand);
    break;
  }
  llvm::Value *desired = toMemory(convert(updated, wide, element, false), element);
  auto *cas = b_.CreateAtomicCmpXchg(ptr, seen, desired, align, order, failureOrdering(op.order));
  llvm::Value *found = b_.CreateExtractValue(cas, 0);
  seen->addIncoming(found, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateExtractValue(cas, 1), done, retry);
  b_.SetInsertPoint(done);
  return fromMemory(found, element);
}

void KernelCodeGen::emitAtomic(const Operation &op) {
  const Value *result = op.result();
  const Type &type = result->type();
  size_t valueCount = op.opClass() == OpClass::AtomicCas ? 2 : 1;
  llvm::Value *buffer = nullptr;
  if (type.isBlock()) {
    buffer = allocaBuffer(type, result->name());
    buffers_[result] = buffer;
  }

  auto lane = [&](const Coords &coords) -> llvm::Value * {
    llvm::Value *ptr = evalOperand(op, 0, coords, false);
    llvm::SmallVector<llvm::Value *, 2> values;
    for (size_t i = 1; i <= valueCount; ++i)
      values.push_back(evalOperand(op, unsigned(i), coords, false));
    llvm::Value *mask =
        op.hasMask ? evalOperand(op, unsigned(op.operands.size() - 1), coords, false) : nullptr;
    if (bounds_)
      bounds_->check(op, ptr, mask);
    if (!mask)
      return emitAtomicElement(op, ptr, values);
    llvm::BasicBlock *from = b_.GetInsertBlock();
    llvm::BasicBlock *active = llvm::BasicBlock::Create(b_.getContext(), "atomic.lane", fn_);
    llvm::BasicBlock *join = llvm::BasicBlock::Create(b_.getContext(), "atomic.join", fn_);
    b_.CreateCondBr(mask, active, join);
    b_.SetInsertPoint(active);
    llvm::Value *old = emitAtomicElement(op, ptr, values);
    llvm::BasicBlock *activeEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode *phi = b_.CreatePHI(old->getType(), 2);
    phi->addIncoming(old, activeEnd);
    phi->addIncoming(llvm::Constant::getNullValue(old->getType()), from);
    return phi;
  };

  if (!buffer) {
    scalars_[result] = lane({});
    return;
  }
  forEachElement(type.shape(), [&](const Coords &coords) {
    storeBuffer(buffer, type, coords, lane(coords), false);
  });
}

void KernelCodeGen::emitAssert(const Operation &op) {
  if (!bounds_)
    return;
  const Value *condition = op.operands[0];
  if (condition->type().isScalar()) {
    bounds_->failUnless(op, eval(condition, {}, false));
    return;
  }
  forEachStrip(condition->type().shape(), [&](const Coords &coords, bool vector) {
    bounds_->failUnless(op, eval(condition, coords, vector));
  });
}

} // namespace blockc
