//===- CodeGenScratch.cpp - Where a program's scratch lives ---------------===//
//
// Scratch is allocated as stack slots while the kernel is generated, since its
// total is known only at the end. A kernel whose scratch fits
// kMaxStackScratchBytes keeps the slots: the stack is the fastest place, with
// nothing to call. A larger one asks the runtime for its thread's arena once
// per program and finds every buffer at a fixed offset in it, so that the
// stack need not grow with block size (docs/launcher.md, "Scratch").
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"

namespace blockc {

namespace {

/// The alignment of every buffer: a cache line and the widest vector.
constexpr uint64_t kScratchAlignment = 64;

} // namespace

llvm::Value *KernelCodeGen::allocaBuffer(const Type &type, const std::string &name) {
  return allocaScratch(llvm::ArrayType::get(memoryType(type), type.numElements()), name);
}

llvm::Value *KernelCodeGen::allocaScratch(llvm::Type *array, const std::string &name) {
  llvm::IRBuilder<> entry(allocaBlock_, allocaBlock_->begin());
  scratchBytes_ +=
      llvm::alignTo(module_.getDataLayout().getTypeAllocSize(array), kScratchAlignment);
  auto *alloca = entry.CreateAlloca(array, nullptr, name);
  alloca->setAlignment(llvm::Align(kScratchAlignment));
  scratchBuffers_.push_back(alloca);
  return alloca;
}

void KernelCodeGen::placeScratch(llvm::BasicBlock *body) {
  llvm::IRBuilder<> entry(allocaBlock_);
  if (scratchBytes_ <= kMaxStackScratchBytes) {
    entry.CreateBr(body);
    return;
  }
  llvm::FunctionCallee arenaFunction = module_.getOrInsertFunction(
      kScratchArenaFunction, llvm::FunctionType::get(b_.getPtrTy(), {b_.getInt64Ty()}, false));
  llvm::CallInst *arena = entry.CreateCall(arenaFunction, {entry.getInt64(scratchBytes_)}, "arena");
  arena->addFnAttr(llvm::Attribute::NoUnwind);
  // Like malloc's: nothing the kernel can reach points into a program's arena,
  // so its buffers alias no argument, as stack slots do not.
  arena->addRetAttr(llvm::Attribute::NoAlias);
  arena->addRetAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(kScratchAlignment)));
  const llvm::DataLayout &layout = module_.getDataLayout();
  uint64_t offset = 0;
  for (llvm::AllocaInst *slot : scratchBuffers_) {
    std::string name = slot->getName().str();
    llvm::Value *buffer = entry.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), arena, offset, name);
    offset += llvm::alignTo(layout.getTypeAllocSize(slot->getAllocatedType()), kScratchAlignment);
    slot->replaceAllUsesWith(buffer);
    slot->eraseFromParent();
  }
  // Without its scratch a program does nothing: the runtime recorded the
  // failed allocation, and the launch reports it.
  auto *withoutScratch = llvm::BasicBlock::Create(ctx_, "without_scratch", fn_);
  llvm::IRBuilder<>(withoutScratch).CreateRetVoid();
  entry.CreateCondBr(entry.CreateIsNull(arena), withoutScratch, body,
                     llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
}

} // namespace blockc
