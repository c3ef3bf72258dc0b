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

} // namespace blockc
