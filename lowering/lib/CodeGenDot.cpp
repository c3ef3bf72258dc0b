//===- CodeGenDot.cpp - Dots, through the cascade -------------------------===//
#include "CodeGen.h"
#include "KernelStripLoops.h"
#include "blockc/lowering/DotCascade.h"

namespace blockc {

std::optional<KernelCodeGen::InPlaceOperand> KernelCodeGen::inPlaceOperand(const Value *v) {
  if (buffers_.count(v) || !v->definingOp() || v->type().rank() != 2)
    return std::nullopt;
  const Operation &load = *v->definingOp();
  if (load.kind() != OpKind::Load || load.isVolatile)
    return std::nullopt;
  const Value *pointers = load.operands[0];
  std::optional<Stride> rows = strideAlong(pointers, 0), columns = strideAlong(pointers, 1);
  if (!rows || !columns || columns->isConstant(0))
    return std::nullopt;
  if (columns->scale && columns->scale == knownUnitScale_)
    columns = Stride{columns->factor, nullptr};
  if (!columns->scale && !columns->isConstant(1))
    return std::nullopt;
  InPlaceOperand operand;
  operand.first = evalOperand(load, 0, {i64(0), i64(0)}, false);
  operand.rowStride = runtimeStride(*rows);
  operand.usable = columns->scale ? b_.CreateICmpEQ(runtimeStride(*columns), i64(1)) : b_.getTrue();
  if (load.hasMask)
    operand.usable = b_.CreateAnd(operand.usable, everyLaneOn(load.operands[1]));
  // The matmul's `a_ptrs = base + offsets` with `base` stepping each trip.
  if (const Operation *def = pointers->definingOp(); def && def->kind() == OpKind::AddPtr) {
    auto advance = loopAdvances_.find(def->operands[0]);
    if (advance != loopAdvances_.end() && scalars_.count(advance->second)) {
      llvm::Value *step = b_.CreateSExt(scalars_.at(advance->second), b_.getInt64Ty());
      operand.next = b_.CreateGEP(memoryType(v->type()), operand.first, step);
    }
  }
  return operand;
}

DotOperands KernelCodeGen::dotOperandsOf(
    const Operation &dot, llvm::Value *c,
    std::function<llvm::Value *(llvm::Type *, const std::string &)> allocate, StripLoops *strips) {
  const Value *a = dot.operands[0], *b = dot.operands[1];
  return DotOperands{b_,
                     nullptr,
                     nullptr,
                     c,
                     a->type().kind(),
                     b->type().kind(),
                     dot.result()->type().kind(),
                     a->type().shape()[0],
                     b->type().shape()[1],
                     a->type().shape()[1],
                     std::move(allocate),
                     strips};
}

void KernelCodeGen::emitDot(const Operation &op, llvm::Value *buffer) {
  const Value *a = op.operands[0], *bv = op.operands[1], *acc = op.operands[2];
  writeInto(acc, buffer);
  KernelStripLoops strips(*this);
  DotOperands operands = dotOperandsOf(
      op, buffer,
      [&](llvm::Type *type, const std::string &name) { return scratch_->allocate(type, name); },
      &strips);
  const DotStrategy &strategy = *selectDotStrategy(&operands, isa_, options_.dotStrategy);
  coreRequirements_ |= strategy.coreRequirements();

  // A K step whose tiles are whole (every lane of their masks on) and whose
  // rows are contiguous reads A and B where they are; edge tiles, and
  // accesses checked lane by lane, take copies.
  std::optional<InPlaceOperand> inPlaceA, inPlaceB;
  DotStrategy::InPlaceReads reads = strategy.inPlaceReads();
  if (reads.a && !bounds_)
    inPlaceA = inPlaceOperand(a);
  if (reads.b && !bounds_)
    inPlaceB = inPlaceOperand(bv);
  if (!inPlaceA && !inPlaceB) {
    operands.a = bufferOf(a);
    operands.b = bufferOf(bv);
    strategy.emit(operands);
    return;
  }
  // One dot reads its operands through phis: where they are when the tiles
  // are whole, else from copies. Emitting the dot once for each source
  // doubled the kernel's code and its compile time; the copies only differ
  // in the row strides, which the in-place reads take at run time anyway.
  llvm::Value *aBuffer = inPlaceA ? nullptr : bufferOf(a, false);
  llvm::Value *bBuffer = inPlaceB ? nullptr : bufferOf(bv, false);
  llvm::Value *usable = b_.getTrue();
  for (const auto &operand : {inPlaceA, inPlaceB})
    if (operand)
      usable = b_.CreateAnd(usable, operand->usable);
  auto *copied = llvm::BasicBlock::Create(ctx_, "dot.copied", fn_);
  auto *ready = llvm::BasicBlock::Create(ctx_, "dot.operands_ready", fn_);
  llvm::BasicBlock *whole = b_.GetInsertBlock();
  b_.CreateCondBr(usable, ready, copied);

  b_.SetInsertPoint(copied);
  llvm::Value *aCopy = aBuffer ? aBuffer : bufferOf(a, false);
  llvm::Value *bCopy = bBuffer ? bBuffer : bufferOf(bv, false);
  llvm::BasicBlock *copiedEnd = b_.GetInsertBlock();
  b_.CreateBr(ready);

  memo_.clear();
  b_.SetInsertPoint(ready);
  auto choose = [&](llvm::Value *inPlace, llvm::Value *copy, const char *name) {
    llvm::PHINode *phi = b_.CreatePHI(copy->getType(), 2, name);
    phi->addIncoming(inPlace, whole);
    phi->addIncoming(copy, copiedEnd);
    return phi;
  };
  operands.a = choose(inPlaceA ? inPlaceA->first : aBuffer, aCopy, "dot.a");
  operands.b = choose(inPlaceB ? inPlaceB->first : bBuffer, bCopy, "dot.b");
  operands.aRowStride =
      choose(inPlaceA ? inPlaceA->rowStride : i64(operands.k), i64(operands.k), "dot.a_stride");
  operands.bRowStride =
      choose(inPlaceB ? inPlaceB->rowStride : i64(operands.n), i64(operands.n), "dot.b_stride");
  // A copy has no next step: its prefetches read the copy, which is cached.
  if (inPlaceA && inPlaceA->next)
    operands.aNext = choose(inPlaceA->next, aCopy, "dot.a_next");
  if (inPlaceB && inPlaceB->next)
    operands.bNext = choose(inPlaceB->next, bCopy, "dot.b_next");
  // A copy lives in this program's scratch: its address says nothing of
  // what it holds.
  if (inPlaceB && !memoryMayBeWritten_)
    operands.bShareable = choose(b_.getTrue(), b_.getFalse(), "dot.b_shareable");
  strategy.emit(operands);
}

} // namespace blockc
