//===- CodeGenMemory.cpp - Predicated loads and stores of strips ----------===//
//
// Every vector memory access of a strip goes through these four functions,
// so that how a strip is predicated is decided in one place: under the
// caller's lane mask, and, when the ISA strip-mines by vector length (RVV),
// only for the strip's first `tailEvl_` lanes. Vector-predicated (llvm.vp.*)
// accesses become one vsetvli and unmasked loads and stores on RVV.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "StripGroups.h"
#include "blockc/frontend/IRUtils.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc {

namespace {

void setPointerAlignment(llvm::CallInst *call, unsigned operand, llvm::Align align) {
  call->addParamAttr(operand, llvm::Attribute::getWithAlignment(call->getContext(), align));
}

} // namespace

llvm::Value *KernelCodeGen::activeLanes() {
  if (tailMask_ || !tailEvl_)
    return tailMask_;
  llvm::Type *i32 = b_.getInt32Ty();
  return b_.CreateICmpULT(b_.CreateStepVector(vectorOf(i32)), splat(tailEvl_));
}

llvm::Value *KernelCodeGen::loadStrip(llvm::Type *type, llvm::Value *ptr, llvm::Align align,
                                      llvm::Value *mask, llvm::Value *passthru) {
  if (tailEvl_) {
    llvm::CallInst *load = b_.CreateIntrinsic(llvm::Intrinsic::vp_load, {type, ptr->getType()},
                                              {ptr, mask ? mask : allTrueMask(), tailEvl_});
    setPointerAlignment(load, 0, align);
    return mask && passthru ? b_.CreateSelect(mask, load, passthru) : load;
  }
  if (!mask)
    return b_.CreateAlignedLoad(type, ptr, align);
  return b_.CreateMaskedLoad(type, ptr, align, mask, passthru);
}

void KernelCodeGen::storeStrip(llvm::Value *value, llvm::Value *ptr, llvm::Align align,
                               llvm::Value *mask) {
  if (tailEvl_) {
    llvm::CallInst *store =
        b_.CreateIntrinsic(llvm::Intrinsic::vp_store, {value->getType(), ptr->getType()},
                           {value, ptr, mask ? mask : allTrueMask(), tailEvl_});
    setPointerAlignment(store, 1, align);
    return;
  }
  if (!mask)
    b_.CreateAlignedStore(value, ptr, align);
  else
    b_.CreateMaskedStore(value, ptr, align, mask);
}

llvm::Value *KernelCodeGen::gatherStrip(llvm::Type *type, llvm::Value *ptrs, llvm::Align align,
                                        llvm::Value *mask, llvm::Value *passthru) {
  if (tailEvl_) {
    llvm::CallInst *gather = b_.CreateIntrinsic(llvm::Intrinsic::vp_gather, {type, ptrs->getType()},
                                                {ptrs, mask ? mask : allTrueMask(), tailEvl_});
    setPointerAlignment(gather, 0, align);
    return mask && passthru ? b_.CreateSelect(mask, gather, passthru) : gather;
  }
  return b_.CreateMaskedGather(type, ptrs, align, mask ? mask : allTrueMask(), passthru);
}

void KernelCodeGen::scatterStrip(llvm::Value *value, llvm::Value *ptrs, llvm::Align align,
                                 llvm::Value *mask) {
  if (tailEvl_) {
    llvm::CallInst *scatter =
        b_.CreateIntrinsic(llvm::Intrinsic::vp_scatter, {value->getType(), ptrs->getType()},
                           {value, ptrs, mask ? mask : allTrueMask(), tailEvl_});
    setPointerAlignment(scatter, 1, align);
    return;
  }
  b_.CreateMaskedScatter(value, ptrs, align, mask ? mask : allTrueMask());
}

llvm::Value *KernelCodeGen::vectorLength() {
  if (tailEvl_)
    return tailEvl_;
  return b_.CreateTrunc(b_.CreateElementCount(b_.getInt64Ty(), stripCount_), b_.getInt32Ty());
}

llvm::Value *KernelCodeGen::stridedLoadStrip(llvm::Type *type, llvm::Value *first,
                                             llvm::Value *stride, llvm::Align align,
                                             llvm::Value *mask, llvm::Value *passthru) {
  llvm::Value *bytes = b_.CreateMul(
      stride, i64(int64_t(module_.getDataLayout().getTypeAllocSize(type->getScalarType()))));
  llvm::CallInst *load = b_.CreateIntrinsic(
      llvm::Intrinsic::experimental_vp_strided_load, {type, first->getType(), b_.getInt64Ty()},
      {first, bytes, mask ? mask : allTrueMask(), vectorLength()});
  setPointerAlignment(load, 0, align);
  return mask && passthru ? b_.CreateSelect(mask, load, passthru) : load;
}

void KernelCodeGen::stridedStoreStrip(llvm::Value *value, llvm::Value *first, llvm::Value *stride,
                                      llvm::Align align, llvm::Value *mask) {
  llvm::Value *bytes = b_.CreateMul(
      stride,
      i64(int64_t(module_.getDataLayout().getTypeAllocSize(value->getType()->getScalarType()))));
  llvm::CallInst *store =
      b_.CreateIntrinsic(llvm::Intrinsic::experimental_vp_strided_store,
                         {value->getType(), first->getType(), b_.getInt64Ty()},
                         {value, first, bytes, mask ? mask : allTrueMask(), vectorLength()});
  setPointerAlignment(store, 1, align);
}

void KernelCodeGen::findStreamableStores(const Function &fn) {
  streamableStores_.clear();
  // A streaming store writes a whole strip at once: fixed-width strips only.
  if (options_.streamingStores == CompileOptions::StreamingStores::Never ||
      stripCount_.isScalable() || !isa_.nonTemporalStores().available)
    return;
  std::unordered_set<const Value *> loadedRoots;
  bool loadsUnknown = false;
  std::vector<const Operation *> stores;
  walkOps(const_cast<Region &>(fn.body), [&](Operation &op) {
    if (op.kind() == OpKind::Load) {
      const Value *root = rootPointer(op.operands[0]);
      loadsUnknown |= !root;
      loadedRoots.insert(root);
    } else if (op.kind() == OpKind::Store && op.operands[0]->type().isBlock()) {
      stores.push_back(&op);
    }
  });
  if (loadsUnknown)
    return; // a load from a computed pointer could read any output back
  for (const Operation *store : stores) {
    const Value *root = rootPointer(store->operands[0]);
    if (root && !loadedRoots.count(root))
      streamableStores_.insert(store);
  }
}

void KernelCodeGen::streamOrStoreStrip(const Operation &op, llvm::Value *value, llvm::Value *ptr,
                                       llvm::Align align, llvm::Value *mask) {
  const llvm::DataLayout &layout = module_.getDataLayout();
  uint64_t vectorBytes = layout.getTypeStoreSize(value->getType()).getFixedValue();
  llvm::Value *stream = b_.getTrue();
  if (options_.streamingStores == CompileOptions::StreamingStores::Auto) {
    // Bytes this store writes over the launch: one block per program.
    const Type &type = op.operands[0]->type();
    uint64_t blockBytes =
        uint64_t(type.numElements()) * layout.getTypeAllocSize(memoryType(op.operands[1]->type()));
    llvm::Value *programs =
        b_.CreateMul(b_.CreateMul(b_.CreateZExt(gridSizes_[0], b_.getInt64Ty()),
                                  b_.CreateZExt(gridSizes_[1], b_.getInt64Ty())),
                     b_.CreateZExt(gridSizes_[2], b_.getInt64Ty()));
    stream = b_.CreateICmpUGE(programs, i64(int64_t(kStreamingStoreBytes / blockBytes)));
  }
  if (isa_.nonTemporalStores().needStripAlignment) {
    llvm::Value *misaligned =
        b_.CreateAnd(b_.CreatePtrToInt(ptr, b_.getInt64Ty()), i64(int64_t(vectorBytes) - 1));
    stream = b_.CreateAnd(stream, b_.CreateICmpEQ(misaligned, i64(0)));
  }
  // A block's mask is usually on for every strip but the last program's:
  // those strips stream, the partial ones take the masked store.
  if (mask)
    stream = b_.CreateAnd(stream, b_.CreateAndReduce(mask));
  auto *streaming = llvm::BasicBlock::Create(ctx_, "store.stream", fn_);
  auto *plain = llvm::BasicBlock::Create(ctx_, "store.plain", fn_);
  auto *done = llvm::BasicBlock::Create(ctx_, "store.done", fn_);
  b_.CreateCondBr(stream, streaming, plain);
  b_.SetInsertPoint(streaming);
  llvm::StoreInst *store = b_.CreateAlignedStore(value, ptr, llvm::Align(vectorBytes));
  store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                     llvm::MDNode::get(ctx_, llvm::ConstantAsMetadata::get(b_.getInt32(1))));
  b_.CreateBr(done);
  b_.SetInsertPoint(plain);
  storeStrip(value, ptr, align, mask);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  emittedStreamingStore_ = true;
}

} // namespace blockc
