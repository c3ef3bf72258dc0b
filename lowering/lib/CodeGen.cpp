//===- CodeGen.cpp - The kernel's frame, the ops in order, and if ----===//
#include "CodeGen.h"

#include "StripDemand.h"
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/Loops.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#include <algorithm>

namespace blockc {

KernelCodeGen::KernelCodeGen(const Target &target, const IsaLowering &isa, llvm::Module &module,
                             const CompileOptions &options, const llvm::MCSchedModel &schedule)
    : StripEmitter(target, isa, module, options, schedule) {}

llvm::Function *KernelCodeGen::emitKernel(Function &fn, const FusionPlan &plan) {
  plan_ = plan;
  StripDemand demand = measureStripDemand(fn, plan);
  StripShape shape = isa_.stripShape(demand);
  stripCount_ = shape.lanes;
  stripRegisters_ =
      shape.registerGroup * std::max(1u, demand.widestIndexBits / demand.widestElementBits);
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
  beginNextProgramFetches(fn);
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
  if (!memoryMayBeWritten_ && writesMemory(op))
    memoryMayBeWritten_ = true;
  if (const StripGroup *group = plan_.anchoredAt(op))
    return emitStripGroup(*group);
  if (plan_.deferredBy(op))
    return;
  emitOwnOp(op);
  noteLoadsRead(op);
}

void KernelCodeGen::emitOwnOp(const Operation &op) {
  switch (op.kind()) {
  case OpKind::For:
    return emitFor(op);
  case OpKind::While:
    return emitWhile(op);
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
  case OpKind::Assert:
    return emitAssert(op);
  case OpKind::Print:
    return emitPrint(op);
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
