//===- Scratch.cpp - Where a program's scratch lives ----------------------===//
#include "Scratch.h"

#include "blockc/lowering/Compiler.h"

#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"

namespace blockc {

namespace {

/// The alignment of every buffer: a cache line and the widest vector.
constexpr uint64_t kScratchAlignment = 64;

} // namespace

llvm::Value *ScratchSpace::allocate(llvm::Type *array, const std::string &name) {
  llvm::IRBuilder<> entry(allocas_, allocas_->begin());
  bytes_ += llvm::alignTo(allocas_->getModule()->getDataLayout().getTypeAllocSize(array),
                          kScratchAlignment);
  auto *alloca = entry.CreateAlloca(array, nullptr, name);
  alloca->setAlignment(llvm::Align(kScratchAlignment));
  buffers_.push_back(alloca);
  return alloca;
}

void ScratchSpace::place(llvm::BasicBlock *body) {
  llvm::IRBuilder<> entry(allocas_);
  llvm::Module &module = *allocas_->getModule();
  llvm::LLVMContext &ctx = module.getContext();
  if (bytes_ <= kMaxStackScratchBytes) {
    entry.CreateBr(body);
    return;
  }
  llvm::FunctionCallee arenaFunction = module.getOrInsertFunction(
      kScratchArenaFunction,
      llvm::FunctionType::get(entry.getPtrTy(), {entry.getInt64Ty()}, false));
  llvm::CallInst *arena = entry.CreateCall(arenaFunction, {entry.getInt64(bytes_)}, "arena");
  arena->addFnAttr(llvm::Attribute::NoUnwind);
  // Like malloc's: nothing the kernel can reach points into a program's arena,
  // so its buffers alias no argument, as stack slots do not.
  arena->addRetAttr(llvm::Attribute::NoAlias);
  arena->addRetAttr(llvm::Attribute::getWithAlignment(ctx, llvm::Align(kScratchAlignment)));
  const llvm::DataLayout &layout = module.getDataLayout();
  uint64_t offset = 0;
  for (llvm::AllocaInst *slot : buffers_) {
    std::string name = slot->getName().str();
    llvm::Value *buffer = entry.CreateConstInBoundsGEP1_64(entry.getInt8Ty(), arena, offset, name);
    offset += llvm::alignTo(layout.getTypeAllocSize(slot->getAllocatedType()), kScratchAlignment);
    slot->replaceAllUsesWith(buffer);
    slot->eraseFromParent();
  }
  // Without its scratch a program does nothing: the runtime recorded the
  // failed allocation, and the launch reports it.
  auto *withoutScratch = llvm::BasicBlock::Create(ctx, "without_scratch", allocas_->getParent());
  llvm::IRBuilder<>(withoutScratch).CreateRetVoid();
  entry.CreateCondBr(entry.CreateIsNull(arena), withoutScratch, body,
                     llvm::MDBuilder(ctx).createUnlikelyBranchWeights());
}

} // namespace blockc
