//===- BoundsChecks.cpp - Every active lane checked against its buffer ----===//
#include "BoundsChecks.h"

#include "blockc/frontend/IRUtils.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc {

namespace {

/// A pointer's origin besides an argument's index.
constexpr int kAnyArgument = -1; // some pointer argument's buffer, which one unknown
constexpr int kUnchecked = -2;   // made from an integer: not checked

/// Field indices of blockc_bounds_report.
enum ReportField { Failed, Line, Column, IsStore, Argument, PidX, PidY, PidZ, Offset, Extent };

llvm::StructType *reportType(llvm::LLVMContext &ctx) {
  auto *i32 = llvm::Type::getInt32Ty(ctx), *i64 = llvm::Type::getInt64Ty(ctx);
  return llvm::StructType::get(ctx, {i32, i32, i32, i32, i32, i32, i32, i32, i64, i64});
}

} // namespace

void BoundsChecks::begin(const Function &fn, llvm::Value *args,
                         llvm::ArrayRef<llvm::Value *> paramValues,
                         llvm::ArrayRef<llvm::Value *> programIds) {
  llvm::IRBuilder<> &b = strips_.builder();
  programIds_.assign(programIds.begin(), programIds.end());
  const auto &params = fn.body.args;
  size_t next = params.size();
  auto slot = [&](size_t i) {
    return b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), args, i));
  };
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i]->type().isPointer())
      continue;
    pointerOrigin_[params[i].get()] = int(i);
    llvm::Value *extent = b.CreateLoad(b.getInt64Ty(), slot(next++), params[i]->name() + ".extent");
    checkedParams_.push_back({paramValues[i], int(i), extent});
  }
  report_ = slot(next);

  // Origins flow forward through the ops in order. A loop-carried pointer
  // starts with its initial value's origin and keeps it while every yield
  // brings the same one (so a loop that walks it off its buffer is reported
  // against the buffer it started in); a yield from elsewhere (buffers swapped
  // between trips) makes it "any argument". A pointer made from an integer
  // (a table of addresses) may point anywhere the caller owns: it, and what
  // may be it, is not checked. Origins only ever move from an argument to
  // "any argument" to "unchecked", so repeating the walk until no loop
  // argument changes ends.
  auto originOf = [&](const Value *v) {
    auto it = pointerOrigin_.find(v);
    return it == pointerOrigin_.end() ? kAnyArgument : it->second;
  };
  auto meet = [](int a, int b) {
    return a == b ? a : a == kUnchecked || b == kUnchecked ? kUnchecked : kAnyArgument;
  };
  auto yieldOrigin = [&](const Region &region, size_t i) {
    const Operation *yield = region.terminator();
    return yield && i < yield->operands.size() ? originOf(yield->operands[i]) : kAnyArgument;
  };
  bool changed = true;
  std::function<void(const Region &)> walk = [&](const Region &region) {
    for (const auto &op : region.ops) {
      // Where a loop's carried values are among its operands, its body's
      // arguments and its yield: `for` has bounds and an induction
      // variable first, `while` a condition (and yields the next one).
      bool isLoop = op->kind() == OpKind::For || op->kind() == OpKind::While;
      size_t firstInit = op->kind() == OpKind::For ? 3 : 1;
      size_t argOffset = op->kind() == OpKind::For ? 1 : 0;
      size_t yieldOffset = op->kind() == OpKind::For ? 0 : 1;
      if (isLoop)
        for (size_t i = firstInit; i < op->operands.size(); ++i) {
          const Value *arg = op->regions[0]->args[argOffset + i - firstInit].get();
          int init = originOf(op->operands[i]);
          pointerOrigin_[arg] = pointerOrigin_.count(arg) ? meet(originOf(arg), init) : init;
        }
      for (const auto &inner : op->regions)
        walk(*inner);
      if (isLoop)
        for (size_t i = 0; i + firstInit < op->operands.size(); ++i) {
          const Value *arg = op->regions[0]->args[argOffset + i].get();
          int merged = meet(originOf(arg), yieldOrigin(*op->regions[0], yieldOffset + i));
          changed |= merged != originOf(arg);
          pointerOrigin_[arg] = merged;
        }
      for (size_t r = 0; r < op->results.size(); ++r) {
        const Value *result = op->results[r].get();
        if (!result->type().isPointer())
          continue;
        int origin = kAnyArgument;
        if (op->kind() == OpKind::Bitcast && !op->operands[0]->type().isPointer())
          origin = kUnchecked;
        else if (keepsPointerBuffer(op->kind()))
          origin = originOf(op->operands[0]);
        else if (op->kind() == OpKind::Select)
          origin = meet(originOf(op->operands[1]), originOf(op->operands[2]));
        else if (isLoop)
          origin = originOf(op->regions[0]->args[argOffset + r].get());
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
  llvm::Function *kernel = b.GetInsertBlock()->getParent();
  auto *stop = llvm::BasicBlock::Create(b.getContext(), "bounds.stopped", kernel);
  auto *go = llvm::BasicBlock::Create(b.getContext(), "bounds.go", kernel);
  auto *failed = b.CreateLoad(b.getInt32Ty(), report_);
  failed->setAtomic(llvm::AtomicOrdering::Monotonic);
  failed->setAlignment(llvm::Align(4));
  b.CreateCondBr(b.CreateICmpNE(failed, b.getInt32(0)), stop, go);
  b.SetInsertPoint(stop);
  b.CreateRetVoid();
  b.SetInsertPoint(go);
}

void BoundsChecks::check(const Operation &op, llvm::Value *pointers, llvm::Value *mask) {
  llvm::IRBuilder<> &b = strips_.builder();
  llvm::Function *kernel = b.GetInsertBlock()->getParent();
  const Value *pointer = op.operands[0];
  llvm::Type *memTy = strips_.memoryType(Type::scalar(pointer->type().kind()));
  int64_t elementBytes = int64_t(kernel->getDataLayout().getTypeAllocSize(memTy));
  bool vector = pointers->getType()->isVectorTy();
  if (vector)
    mask = strips_.andMasks(mask, strips_.activeLanes());
  llvm::Type *i64 = vector ? strips_.vectorOf(b.getInt64Ty()) : b.getInt64Ty();
  auto constant = [&](int64_t v) { return llvm::ConstantInt::get(i64, v, true); };
  auto broadcast = [&](llvm::Value *s) { return vector ? strips_.splat(s) : s; };
  llvm::Value *address = b.CreatePtrToInt(pointers, i64);

  auto offsetFrom = [&](const CheckedParam &p) {
    llvm::Value *base = b.CreatePtrToInt(p.base, b.getInt64Ty());
    return b.CreateSub(address, broadcast(base));
  };
  // Every byte of the lane's element in [0, extent): signed, so that an
  // extent smaller than one element admits nothing.
  auto inside = [&](llvm::Value *offset, llvm::Value *extent) {
    llvm::Value *last = broadcast(b.CreateSub(extent, b.getInt64(elementBytes)));
    return b.CreateAnd(b.CreateICmpSGE(offset, constant(0)), b.CreateICmpSLE(offset, last));
  };
  auto origin = pointerOrigin_.find(pointer);
  if (origin != pointerOrigin_.end() && origin->second == kUnchecked)
    return;
  const CheckedParam *from = nullptr;
  for (const CheckedParam &p : checkedParams_)
    if (origin != pointerOrigin_.end() && p.index == origin->second)
      from = &p;
  llvm::Value *offset = address, *extent = b.getInt64(0), *ok = nullptr;
  if (from) {
    offset = offsetFrom(*from);
    extent = from->extent;
    ok = inside(offset, extent);
  } else {
    ok = llvm::Constant::getNullValue(vector ? strips_.vectorOf(b.getInt1Ty()) : b.getInt1Ty());
    for (const CheckedParam &p : checkedParams_)
      ok = b.CreateOr(ok, inside(offsetFrom(p), p.extent));
  }
  llvm::Value *bad = b.CreateNot(ok);
  if (mask)
    bad = b.CreateAnd(bad, mask);
  llvm::Value *any = vector ? b.CreateOrReduce(bad) : bad;
  reportIf(op, any, [&]() -> Failure {
    llvm::Value *laneOffset = offset;
    if (vector) {
      llvm::Value *lane = b.CreateIntrinsic(llvm::Intrinsic::experimental_cttz_elts,
                                            {b.getInt64Ty(), bad->getType()}, {bad, b.getTrue()});
      laneOffset = b.CreateExtractElement(offset, lane);
    }
    return {op.kind() == OpKind::Load ? kLoadFailed : kWriteFailed, from ? from->index : -1,
            from ? b.CreateSDiv(laneOffset, b.getInt64(elementBytes)) : laneOffset,
            b.CreateSDiv(extent, b.getInt64(elementBytes))};
  });
}

void BoundsChecks::failUnless(const Operation &op, llvm::Value *condition) {
  llvm::IRBuilder<> &b = strips_.builder();
  llvm::Value *bad = b.CreateNot(condition);
  bool vector = condition->getType()->isVectorTy();
  if (vector)
    if (llvm::Value *active = strips_.activeLanes())
      bad = b.CreateAnd(bad, active);
  reportIf(op, vector ? b.CreateOrReduce(bad) : bad,
           [&]() -> Failure { return {kAssertFailed, -1, b.getInt64(0), b.getInt64(0)}; });
}

void BoundsChecks::reportIf(const Operation &op, llvm::Value *failed,
                            const std::function<Failure()> &describe) {
  llvm::IRBuilder<> &b = strips_.builder();
  llvm::LLVMContext &ctx = b.getContext();
  llvm::Function *kernel = b.GetInsertBlock()->getParent();
  auto *fail = llvm::BasicBlock::Create(ctx, "bounds.fail", kernel);
  auto *record = llvm::BasicBlock::Create(ctx, "bounds.record", kernel);
  auto *stop = llvm::BasicBlock::Create(ctx, "bounds.stop", kernel);
  auto *pass = llvm::BasicBlock::Create(ctx, "bounds.ok", kernel);
  b.CreateCondBr(failed, fail, pass);

  b.SetInsertPoint(fail);
  Failure failure = describe();
  llvm::StructType *report = reportType(ctx);
  auto field = [&](ReportField f) { return b.CreateStructGEP(report, report_, f); };
  // The first program to fail records; the others only stop.
  auto *claim =
      b.CreateAtomicCmpXchg(field(Failed), b.getInt32(0), b.getInt32(1), llvm::MaybeAlign(4),
                            llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  b.CreateCondBr(b.CreateExtractValue(claim, 1), record, stop);

  b.SetInsertPoint(record);
  SourceLoc loc = op.loc();
  b.CreateStore(b.getInt32(loc.line), field(Line));
  b.CreateStore(b.getInt32(loc.col), field(Column));
  b.CreateStore(b.getInt32(failure.kind), field(IsStore));
  b.CreateStore(b.getInt32(failure.argument), field(Argument));
  for (unsigned axis = 0; axis < 3; ++axis)
    b.CreateStore(programIds_[axis], field(ReportField(PidX + axis)));
  b.CreateStore(failure.offset, field(Offset));
  b.CreateStore(failure.extent, field(Extent));
  b.CreateBr(stop);

  b.SetInsertPoint(stop);
  b.CreateRetVoid();
  b.SetInsertPoint(pass);
}

} // namespace blockc
