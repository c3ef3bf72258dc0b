//===- CodeGen.cpp - The kernel's frame, and control flow ----------------===//
#include "CodeGen.h"

#include "StripDemand.h"
#include "blockc/lowering/Loops.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#include <algorithm>

namespace blockc {

KernelCodeGen::KernelCodeGen(const Target &target, const IsaLowering &isa, llvm::Module &module,
                             const CompileOptions &options)
    : StripEmitter(target, isa, module, options) {}

llvm::Function *KernelCodeGen::emitKernel(Function &fn, const FusionPlan &plan) {
  plan_ = plan;
  stripCount_ = isa_.stripShape(measureStripDemand(fn, plan)).lanes;
  auto *i32 = b_.getInt32Ty();
  auto *type =
      llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), i32, i32, i32, i32, i32, i32}, false);
  fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, fn.name, module_);
  fn_->getArg(0)->setName("args");
  const char *names[] = {"pid_x", "pid_y", "pid_z", "grid_x", "grid_y", "grid_z"};
  for (unsigned i = 0; i < 6; ++i)
    fn_->getArg(i + 1)->setName(names[i]);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  fn_->addFnAttr("target-cpu", target_.cpu);
  if (!target_.tuneCpu.empty())
    fn_->addFnAttr("tune-cpu", target_.tuneCpu);
  if (!target_.llvmFeatures.empty())
    fn_->addFnAttr("target-features", target_.llvmFeatures);
  isa_.addFunctionAttributes(*fn_);
  // Scratch makes frames of up to kMaxStackScratchBytes: probing each page as
  // the frame grows turns an overflow into a fault on the guard page, where an
  // unprobed frame could jump over it into another thread's stack.
  fn_->addFnAttr("probe-stack", "inline-asm");

  allocaBlock_ = llvm::BasicBlock::Create(ctx_, "allocas", fn_);
  scratch_.emplace(allocaBlock_);
  auto *body = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(body);
  for (unsigned i = 0; i < 3; ++i) {
    programIds_[i] = fn_->getArg(1 + i);
    gridSizes_[i] = fn_->getArg(4 + i);
  }
  stripLanes_ = b_.CreateElementCount(b_.getInt64Ty(), stripCount_);
  // Parameters arrive as an array of pointers to their storage.
  for (size_t i = 0; i < fn.body.args.size(); ++i) {
    const Value &param = *fn.body.args[i];
    llvm::Value *slot =
        b_.CreateLoad(b_.getPtrTy(), b_.CreateConstGEP1_64(b_.getPtrTy(), fn_->getArg(0), i));
    llvm::Value *value = b_.CreateLoad(memoryType(param.type()), slot);
    value = fromMemory(value, param.type());
    value->setName(param.name());
    scalars_[&param] = value;
  }
  if (options_.checkBounds) {
    llvm::SmallVector<llvm::Value *, 8> params;
    for (const auto &param : fn.body.args)
      params.push_back(scalars_.at(param.get()));
    bounds_.emplace(static_cast<StripEmitter &>(*this));
    bounds_->begin(fn, fn_->getArg(0), params, programIds_);
  }
  findStreamableStores(fn);
  emitRegion(fn.body);
  if (emittedStreamingStore_)
    isa_.emitNonTemporalStoreFence(b_);
  b_.CreateRetVoid();
  scratch_->place(body);
  auto *scratch =
      new llvm::GlobalVariable(module_, b_.getInt64Ty(), true, llvm::GlobalValue::ExternalLinkage,
                               b_.getInt64(scratch_->bytes()), "blockc_scratch_bytes_" + fn.name);
  scratch->setAlignment(llvm::Align(8));
  auto *requirements = new llvm::GlobalVariable(
      module_, b_.getInt64Ty(), true, llvm::GlobalValue::ExternalLinkage,
      b_.getInt64(coreRequirements_), "blockc_core_requirements_" + fn.name);
  requirements->setAlignment(llvm::Align(8));
  return fn_;
}

void KernelCodeGen::emitRegion(const Region &region) {
  for (const auto &op : region.ops)
    emitOp(*op);
}

void KernelCodeGen::emitOp(const Operation &op) {
  if (const StripGroup *group = plan_.anchoredAt(op))
    return emitStripGroup(*group);
  if (plan_.deferredBy(op))
    return;
  switch (op.kind()) {
  case OpKind::For:
    return emitFor(op);
  case OpKind::If:
    return emitIf(op);
  case OpKind::Store:
    return emitStore(op);
  case OpKind::AtomicAdd:
  case OpKind::AtomicMax:
  case OpKind::AtomicMin:
  case OpKind::AtomicUMax:
  case OpKind::AtomicUMin:
  case OpKind::AtomicAnd:
  case OpKind::AtomicOr:
  case OpKind::AtomicXor:
  case OpKind::AtomicXchg:
  case OpKind::AtomicCas:
    return emitAtomic(op);
  case OpKind::ReduceWith:
  case OpKind::Scan:
    return emitCombining(op);
  case OpKind::Yield:
  case OpKind::Return:
    return; // handled by the enclosing for/if
  case OpKind::ProgramId:
    scalars_[op.result()] = programIds_[op.ints[0]];
    return;
  case OpKind::NumPrograms:
    scalars_[op.result()] = gridSizes_[op.ints[0]];
    return;
  default:
    break;
  }
  for (const auto &r : op.results) {
    if (r->type().isScalar()) {
      if (op.opClass() == OpClass::Reduce)
        emitReduce(op, nullptr);
      else
        scalars_[r.get()] = evalDef(op, r.get(), {}, false);
    } else if (plan_.isMaterialized(r.get())) {
      materialize(op, r.get());
    }
  }
}

namespace {

/// Reads of `v` in `region`, nested regions and terminators included.
unsigned usesIn(const Region &region, const Value *v) {
  unsigned uses = 0;
  for (const auto &op : region.ops) {
    uses += unsigned(std::count(op->operands.begin(), op->operands.end(), v));
    for (const auto &nested : op->regions)
      uses += usesIn(*nested, v);
  }
  return uses;
}

/// The dot that updates carried value `i` of loop body `body` in place: its
/// accumulator is the carried value, read by nothing else, and its result is
/// yielded as the next value of that same carried value and read by nothing
/// else. Such a dot accumulates straight into the carried buffer.
const Value *accumulatingDot(const Region &body, size_t i) {
  const Operation *yield = body.terminator();
  if (!yield || i >= yield->operands.size())
    return nullptr;
  const Value *next = yield->operands[i];
  const Operation *dot = next->definingOp();
  const Value *carried = body.args[1 + i].get();
  if (!dot || dot->opClass() != OpClass::Dot || dot->operands[2] != carried ||
      usesIn(body, carried) != 1 || usesIn(body, next) != 1)
    return nullptr;
  bool topLevel = std::any_of(body.ops.begin(), body.ops.end(),
                              [&](const auto &op) { return op.get() == dot; });
  return topLevel ? next : nullptr;
}

} // namespace

void KernelCodeGen::emitFor(const Operation &op) {
  const Region &body = *op.regions[0];
  llvm::Value *lo = eval(op.operands[0], {}, false);
  llvm::Value *hi = eval(op.operands[1], {}, false);
  llvm::Value *step = eval(op.operands[2], {}, false);
  size_t carried = op.operands.size() - 3;

  // Block values are carried in buffers; scalars in phis.
  std::vector<llvm::Value *> carriedBuffers(carried, nullptr);
  for (size_t i = 0; i < carried; ++i) {
    const Value *init = op.operands[3 + i];
    if (init->type().isBlock()) {
      carriedBuffers[i] = allocaBuffer(init->type(), body.args[1 + i]->name());
      writeInto(init, carriedBuffers[i]);
      if (const Value *dot = accumulatingDot(body, i))
        accumulatorBuffers_[dot] = carriedBuffers[i];
    }
  }
  // The trip count is computed up front in 64-bit unsigned arithmetic, so an
  // induction variable that would step past its type's maximum ends the loop
  // instead of wrapping: trips = hi > lo && step > 0 ? (hi - lo - 1) / step + 1 : 0.
  llvm::Type *ivType = lo->getType();
  llvm::Value *runs = b_.CreateAnd(b_.CreateICmpSGT(step, llvm::ConstantInt::get(ivType, 0)),
                                   b_.CreateICmpSGT(hi, lo));
  llvm::Value *span =
      b_.CreateSub(b_.CreateSExt(hi, b_.getInt64Ty()), b_.CreateSExt(lo, b_.getInt64Ty()));
  // A zero step must not reach the division, even when its result is unused.
  llvm::Value *divisor = b_.CreateSelect(runs, b_.CreateSExt(step, b_.getInt64Ty()), i64(1));
  llvm::Value *trips = b_.CreateAdd(b_.CreateUDiv(b_.CreateSub(span, i64(1)), divisor), i64(1));
  trips = b_.CreateSelect(runs, trips, i64(0));
  llvm::BasicBlock *pre = b_.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(ctx_, "for.header", fn_);
  auto *loopBody = llvm::BasicBlock::Create(ctx_, "for.body", fn_);
  auto *exit = llvm::BasicBlock::Create(ctx_, "for.exit", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode *trip = b_.CreatePHI(b_.getInt64Ty(), 2, "trip");
  trip->addIncoming(i64(0), pre);
  llvm::PHINode *iv = b_.CreatePHI(ivType, 2, body.args[0]->name());
  iv->addIncoming(lo, pre);
  std::vector<llvm::PHINode *> phis(carried, nullptr);
  for (size_t i = 0; i < carried; ++i) {
    const Value *init = op.operands[3 + i];
    if (init->type().isBlock())
      continue;
    phis[i] = b_.CreatePHI(elementType(init->type()), 2, body.args[1 + i]->name());
    phis[i]->addIncoming(eval(init, {}, false), pre);
  }
  b_.CreateCondBr(b_.CreateICmpULT(trip, trips), loopBody, exit);

  b_.SetInsertPoint(loopBody);
  scalars_[body.args[0].get()] = iv;
  for (size_t i = 0; i < carried; ++i) {
    if (phis[i])
      scalars_[body.args[1 + i].get()] = phis[i];
    else
      buffers_[body.args[1 + i].get()] = carriedBuffers[i];
  }
  emitRegion(body);
  if (const Operation *yield = body.terminator()) {
    // A yielded value may read any carried value, so no carried buffer may
    // change while another yield still reads it. A virtual value that only
    // its own carried buffer feeds (max_next = max(max_run, x)) is computed
    // in place, strip by strip: its lanes read exactly the lanes they replace.
    // Everything else is staged in a temporary first.
    auto readByOthers = [&](size_t i) {
      for (size_t j = 0; j < carried; ++j)
        if (j != i && readsValue(yield->operands[j], body.args[1 + i].get()))
          return true;
      return false;
    };
    std::vector<llvm::Value *> staged(carried, nullptr);
    std::vector<size_t> inPlace;
    for (size_t i = 0; i < carried; ++i) {
      const Value *v = yield->operands[i];
      if (!v->type().isBlock())
        continue;
      auto it = buffers_.find(v);
      if (it != buffers_.end() && it->second == carriedBuffers[i])
        continue; // a dot accumulated into it
      if (it == buffers_.end() && !readByOthers(i)) {
        inPlace.push_back(i);
      } else if (it != buffers_.end() && std::find(carriedBuffers.begin(), carriedBuffers.end(),
                                                   it->second) == carriedBuffers.end()) {
        staged[i] = it->second;
      } else {
        staged[i] = allocaBuffer(v->type(), v->name() + ".next");
        writeInto(v, staged[i]);
      }
    }
    for (size_t i : inPlace)
      writeInto(yield->operands[i], carriedBuffers[i]);
    for (size_t i = 0; i < carried; ++i)
      if (staged[i])
        copyBuffer(carriedBuffers[i], staged[i], yield->operands[i]->type());
    for (size_t i = 0; i < carried; ++i)
      if (phis[i])
        phis[i]->addIncoming(eval(yield->operands[i], {}, false), b_.GetInsertBlock());
  }
  // The last trip's increment may wrap; its value is never used.
  iv->addIncoming(b_.CreateAdd(iv, step), b_.GetInsertBlock());
  trip->addIncoming(b_.CreateAdd(trip, i64(1)), b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
  for (size_t i = 0; i < carried; ++i) {
    if (phis[i])
      scalars_[op.results[i].get()] = phis[i];
    else
      buffers_[op.results[i].get()] = carriedBuffers[i];
  }
}

void KernelCodeGen::emitIf(const Operation &op) {
  llvm::Value *cond = eval(op.operands[0], {}, false);
  auto *thenBlock = llvm::BasicBlock::Create(ctx_, "if.then", fn_);
  auto *elseBlock = llvm::BasicBlock::Create(ctx_, "if.else", fn_);
  auto *merge = llvm::BasicBlock::Create(ctx_, "if.end", fn_);
  b_.CreateCondBr(cond, thenBlock, elseBlock);
  std::vector<llvm::Value *> resultBuffers;
  for (const auto &r : op.results)
    resultBuffers.push_back(r->type().isBlock() ? allocaBuffer(r->type(), r->name()) : nullptr);
  std::vector<llvm::PHINode *> phis(op.results.size(), nullptr);
  std::vector<std::pair<llvm::BasicBlock *, std::vector<llvm::Value *>>> incoming;
  for (unsigned branch = 0; branch < 2; ++branch) {
    b_.SetInsertPoint(branch == 0 ? thenBlock : elseBlock);
    std::vector<llvm::Value *> values;
    if (branch < op.regions.size()) {
      const Region &region = *op.regions[branch];
      emitRegion(region);
      if (const Operation *yield = region.terminator())
        for (size_t i = 0; i < yield->operands.size(); ++i) {
          const Value *v = yield->operands[i];
          if (resultBuffers[i])
            writeInto(v, resultBuffers[i]);
          values.push_back(resultBuffers[i] ? nullptr : eval(v, {}, false));
        }
    }
    incoming.push_back({b_.GetInsertBlock(), values});
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
  for (size_t i = 0; i < op.results.size(); ++i) {
    const Value *r = op.results[i].get();
    if (resultBuffers[i]) {
      buffers_[r] = resultBuffers[i];
      continue;
    }
    llvm::PHINode *phi = b_.CreatePHI(elementType(r->type()), 2, r->name());
    for (auto &[block, values] : incoming)
      phi->addIncoming(values[i], block);
    scalars_[r] = phi;
  }
}

} // namespace blockc
