//===- CodeGenBounds.cpp - Every active lane checked against its buffer ---===//
//
// With CompileOptions::checkBounds, each load and store first computes, for
// every active lane, the byte offset of its address from the parameter the
// pointer was derived from and compares it with that parameter's extent. A
// pointer whose origin is not one parameter (a select between two, say) must
// lie inside some parameter's buffer. The first bad lane is recorded in the
// blockc_bounds_report and the program returns before the access: the check
// turns a crash or silent corruption into an error naming the op.
//
// Without the option none of this is emitted: the generated code is the same.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "blockc/frontend/IRUtils.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc {

namespace {

/// Field indices of blockc_bounds_report.
enum ReportField { Failed, Line, Column, IsStore, Argument, PidX, PidY, PidZ, Offset, Extent };

llvm::StructType *reportType(llvm::LLVMContext &ctx) {
  auto *i32 = llvm::Type::getInt32Ty(ctx), *i64 = llvm::Type::getInt64Ty(ctx);
  return llvm::StructType::get(ctx, {i32, i32, i32, i32, i32, i32, i32, i32, i64, i64});
}

} // namespace

void KernelCodeGen::beginBoundsChecks(const Function &fn) {
  const auto &params = fn.body.args;
  size_t next = params.size();
  auto slot = [&](size_t i) {
    return b_.CreateLoad(b_.getPtrTy(), b_.CreateConstGEP1_64(b_.getPtrTy(), fn_->getArg(0), i));
  };
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i]->type().isPointer())
      continue;
    pointerOrigin_[params[i].get()] = int(i);
    llvm::Value *extent =
        b_.CreateLoad(b_.getInt64Ty(), slot(next++), params[i]->name() + ".extent");
    checkedParams_.push_back({params[i].get(), int(i), extent});
  }
  boundsReport_ = slot(next);

  // Origins flow forward through the ops in order. A loop-carried pointer
  // starts with its initial value's origin and keeps it while every yield
  // brings the same one (so a loop that walks it off its buffer is reported
  // against the buffer it started in); a yield from elsewhere (buffers swapped
  // between trips) makes it "any argument". Origins only ever move to -1, so
  // repeating the walk until no loop argument changes ends.
  auto originOf = [&](const Value *v) {
    auto it = pointerOrigin_.find(v);
    return it == pointerOrigin_.end() ? -1 : it->second;
  };
  auto meet = [](int a, int b) { return a == b ? a : -1; };
  auto yieldOrigin = [&](const Region &region, size_t i) {
    const Operation *yield = region.terminator();
    return yield && i < yield->operands.size() ? originOf(yield->operands[i]) : -1;
  };
  bool changed = true;
  std::function<void(const Region &)> walk = [&](const Region &region) {
    for (const auto &op : region.ops) {
      bool isFor = op->kind() == OpKind::For;
      if (isFor)
        for (size_t i = 3; i < op->operands.size(); ++i) {
          const Value *arg = op->regions[0]->args[i - 2].get();
          int init = originOf(op->operands[i]);
          pointerOrigin_[arg] = pointerOrigin_.count(arg) ? meet(originOf(arg), init) : init;
        }
      for (const auto &inner : op->regions)
        walk(*inner);
      if (isFor)
        for (size_t i = 0; i + 3 < op->operands.size(); ++i) {
          const Value *arg = op->regions[0]->args[1 + i].get();
          int merged = meet(originOf(arg), yieldOrigin(*op->regions[0], i));
          changed |= merged != originOf(arg);
          pointerOrigin_[arg] = merged;
        }
      for (size_t r = 0; r < op->results.size(); ++r) {
        const Value *result = op->results[r].get();
        if (!result->type().isPointer())
          continue;
        int origin = -1;
        if (keepsPointerBuffer(op->kind()))
          origin = originOf(op->operands[0]);
        else if (op->kind() == OpKind::Select)
          origin = meet(originOf(op->operands[1]), originOf(op->operands[2]));
        else if (isFor)
          origin = originOf(op->regions[0]->args[1 + r].get());
        else if (op->kind() == OpKind::If && op->regions.size() == 2)
          origin = meet(yieldOrigin(*op->regions[0], r), yieldOrigin(*op->regions[1], r));
        pointerOrigin_[result] = origin;
      }
    }
  };
  while (changed) {
    changed = false;
    walk(fn.body);
  }

  // Another program failed: stop without touching memory.
  auto *stop = llvm::BasicBlock::Create(ctx_, "bounds.stopped", fn_);
  auto *go = llvm::BasicBlock::Create(ctx_, "bounds.go", fn_);
  auto *failed = b_.CreateLoad(b_.getInt32Ty(), boundsReport_);
  failed->setAtomic(llvm::AtomicOrdering::Monotonic);
  failed->setAlignment(llvm::Align(4));
  b_.CreateCondBr(b_.CreateICmpNE(failed, b_.getInt32(0)), stop, go);
  b_.SetInsertPoint(stop);
  b_.CreateRetVoid();
  b_.SetInsertPoint(go);
}

void KernelCodeGen::checkAccess(const Operation &op, llvm::Value *pointers, llvm::Value *mask) {
  const Value *pointer = op.operands[0];
  llvm::Type *memTy = memoryType(Type::scalar(pointer->type().kind()));
  int64_t elementBytes = int64_t(module_.getDataLayout().getTypeAllocSize(memTy));
  bool vector = pointers->getType()->isVectorTy();
  if (vector)
    mask = andMasks(mask, activeLanes());
  llvm::Type *i64 = vector ? vectorOf(b_.getInt64Ty()) : b_.getInt64Ty();
  auto constant = [&](int64_t v) { return llvm::ConstantInt::get(i64, v, true); };
  auto broadcast = [&](llvm::Value *s) { return vector ? splat(s) : s; };
  llvm::Value *address = b_.CreatePtrToInt(pointers, i64);

  auto offsetFrom = [&](const CheckedParam &p) {
    llvm::Value *base = b_.CreatePtrToInt(scalars_.at(p.param), b_.getInt64Ty());
    return b_.CreateSub(address, broadcast(base));
  };
  // Every byte of the lane's element in [0, extent): signed, so that an
  // extent smaller than one element admits nothing.
  auto inside = [&](llvm::Value *offset, llvm::Value *extent) {
    llvm::Value *last = broadcast(b_.CreateSub(extent, b_.getInt64(elementBytes)));
    return b_.CreateAnd(b_.CreateICmpSGE(offset, constant(0)), b_.CreateICmpSLE(offset, last));
  };
  auto origin = pointerOrigin_.find(pointer);
  const CheckedParam *from = nullptr;
  for (const CheckedParam &p : checkedParams_)
    if (origin != pointerOrigin_.end() && p.index == origin->second)
      from = &p;
  llvm::Value *offset = address, *extent = b_.getInt64(0), *ok = nullptr;
  if (from) {
    offset = offsetFrom(*from);
    extent = from->extent;
    ok = inside(offset, extent);
  } else {
    ok = llvm::Constant::getNullValue(vector ? vectorOf(b_.getInt1Ty()) : b_.getInt1Ty());
    for (const CheckedParam &p : checkedParams_)
      ok = b_.CreateOr(ok, inside(offsetFrom(p), p.extent));
  }
  llvm::Value *bad = b_.CreateNot(ok);
  if (mask)
    bad = b_.CreateAnd(bad, mask);
  llvm::Value *any = vector ? b_.CreateOrReduce(bad) : bad;
  auto *fail = llvm::BasicBlock::Create(ctx_, "bounds.fail", fn_);
  auto *record = llvm::BasicBlock::Create(ctx_, "bounds.record", fn_);
  auto *stop = llvm::BasicBlock::Create(ctx_, "bounds.stop", fn_);
  auto *pass = llvm::BasicBlock::Create(ctx_, "bounds.ok", fn_);
  b_.CreateCondBr(any, fail, pass);

  b_.SetInsertPoint(fail);
  llvm::Value *laneOffset = offset;
  if (vector) {
    llvm::Value *lane = b_.CreateIntrinsic(llvm::Intrinsic::experimental_cttz_elts,
                                           {b_.getInt64Ty(), bad->getType()}, {bad, b_.getTrue()});
    laneOffset = b_.CreateExtractElement(offset, lane);
  }
  llvm::StructType *report = reportType(ctx_);
  auto field = [&](ReportField f) { return b_.CreateStructGEP(report, boundsReport_, f); };
  // The first program to fail records; the others only stop.
  auto *claim =
      b_.CreateAtomicCmpXchg(field(Failed), b_.getInt32(0), b_.getInt32(1), llvm::MaybeAlign(4),
                             llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  b_.CreateCondBr(b_.CreateExtractValue(claim, 1), record, stop);

  b_.SetInsertPoint(record);
  SourceLoc loc = op.loc();
  b_.CreateStore(b_.getInt32(loc.line), field(Line));
  b_.CreateStore(b_.getInt32(loc.col), field(Column));
  b_.CreateStore(b_.getInt32(op.kind() == OpKind::Store), field(IsStore));
  b_.CreateStore(b_.getInt32(from ? from->index : -1), field(Argument));
  for (unsigned axis = 0; axis < 3; ++axis)
    b_.CreateStore(programIds_[axis], field(ReportField(PidX + axis)));
  b_.CreateStore(from ? b_.CreateSDiv(laneOffset, b_.getInt64(elementBytes)) : laneOffset,
                 field(Offset));
  b_.CreateStore(b_.CreateSDiv(extent, b_.getInt64(elementBytes)), field(Extent));
  b_.CreateBr(stop);

  b_.SetInsertPoint(stop);
  b_.CreateRetVoid();
  b_.SetInsertPoint(pass);
}

} // namespace blockc
