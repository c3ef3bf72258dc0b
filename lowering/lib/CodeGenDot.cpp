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
  // The two versions of a dot below run one or the other: the second reuses
  // the scratch the first allocated, request by request.
  std::vector<std::pair<llvm::Type *, llvm::Value *>> scratch;
  size_t nextScratch = 0;
  auto allocate = [&](llvm::Type *type, const std::string &name) {
    if (nextScratch < scratch.size() && scratch[nextScratch].first == type)
      return scratch[nextScratch++].second;
    llvm::Value *slot = scratch_->allocate(type, name);
    scratch.emplace_back(type, slot);
    nextScratch = scratch.size();
    return slot;
  };
  DotOperands operands = dotOperandsOf(op, buffer, allocate, &strips);
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
  llvm::Value *aBuffer = inPlaceA ? nullptr : bufferOf(a, false);
  llvm::Value *bBuffer = inPlaceB ? nullptr : bufferOf(bv, false);
  llvm::Value *usable = b_.getTrue();
  for (const auto &operand : {inPlaceA, inPlaceB})
    if (operand)
      usable = b_.CreateAnd(usable, operand->usable);
  auto *inPlace = llvm::BasicBlock::Create(ctx_, "dot.in_place", fn_);
  auto *copied = llvm::BasicBlock::Create(ctx_, "dot.copied", fn_);
  auto *done = llvm::BasicBlock::Create(ctx_, "dot.done", fn_);
  b_.CreateCondBr(usable, inPlace, copied);

  b_.SetInsertPoint(inPlace);
  operands.a = inPlaceA ? inPlaceA->first : aBuffer;
  operands.aRowStride = inPlaceA ? inPlaceA->rowStride : nullptr;
  operands.b = inPlaceB ? inPlaceB->first : bBuffer;
  operands.bRowStride = inPlaceB ? inPlaceB->rowStride : nullptr;
  operands.aNext = inPlaceA ? inPlaceA->next : nullptr;
  operands.bNext = inPlaceB ? inPlaceB->next : nullptr;
  strategy.emit(operands);
  b_.CreateBr(done);

  memo_.clear();
  nextScratch = 0;
  b_.SetInsertPoint(copied);
  operands.a = aBuffer ? aBuffer : bufferOf(a, false);
  operands.b = bBuffer ? bBuffer : bufferOf(bv, false);
  operands.aRowStride = operands.bRowStride = nullptr;
  operands.aNext = operands.bNext = nullptr;
  strategy.emit(operands);
  b_.CreateBr(done);

  memo_.clear();
  b_.SetInsertPoint(done);
}

} // namespace blockc
