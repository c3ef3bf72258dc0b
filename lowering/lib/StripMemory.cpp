//===- StripMemory.cpp - Predicated loads and stores of strips ------------===//
//
// Every vector memory access of a strip goes through these four functions,
// so that how a strip is predicated is decided in one place: under the
// caller's lane mask, and, when the ISA strip-mines by vector length (RVV),
// only for the strip's first `tailEvl_` lanes. Vector-predicated (llvm.vp.*)
// accesses become one vsetvli and unmasked loads and stores on RVV.
//
//===----------------------------------------------------------------------===//
#include "StripEmitter.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc {

namespace {

void setPointerAlignment(llvm::CallInst *call, unsigned operand, llvm::Align align) {
  call->addParamAttr(operand, llvm::Attribute::getWithAlignment(call->getContext(), align));
}

} // namespace

llvm::Value *StripEmitter::activeLanes() {
  if (tailMask_ || !tailEvl_ || evlCoversStrip_)
    return tailMask_;
  llvm::Type *i32 = b_.getInt32Ty();
  return b_.CreateICmpULT(b_.CreateStepVector(vectorOf(i32)), splat(tailEvl_));
}

llvm::Value *StripEmitter::keepInactiveLanes(llvm::Value *updated, llvm::Value *old) {
  if (!updated->getType()->isVectorTy() || !tailKeptByVectorLength())
    return updated;
  return b_.CreateIntrinsic(llvm::Intrinsic::vp_merge, {updated->getType()},
                            {allTrueMask(), updated, old, tailEvl_});
}

llvm::Value *StripEmitter::loadStrip(llvm::Type *type, llvm::Value *ptr, llvm::Align align,
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

void StripEmitter::storeStrip(llvm::Value *value, llvm::Value *ptr, llvm::Align align,
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

llvm::Value *StripEmitter::gatherStrip(llvm::Type *type, llvm::Value *ptrs, llvm::Align align,
                                       llvm::Value *mask, llvm::Value *passthru) {
  if (tailEvl_) {
    llvm::CallInst *gather = b_.CreateIntrinsic(llvm::Intrinsic::vp_gather, {type, ptrs->getType()},
                                                {ptrs, mask ? mask : allTrueMask(), tailEvl_});
    setPointerAlignment(gather, 0, align);
    return mask && passthru ? b_.CreateSelect(mask, gather, passthru) : gather;
  }
  return b_.CreateMaskedGather(type, ptrs, align, mask ? mask : allTrueMask(), passthru);
}

void StripEmitter::scatterStrip(llvm::Value *value, llvm::Value *ptrs, llvm::Align align,
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

llvm::Value *StripEmitter::vectorLength() {
  if (tailEvl_)
    return tailEvl_;
  return b_.CreateTrunc(b_.CreateElementCount(b_.getInt64Ty(), stripCount_), b_.getInt32Ty());
}

llvm::Value *StripEmitter::stridedLoadStrip(llvm::Type *type, llvm::Value *first,
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

void StripEmitter::stridedStoreStrip(llvm::Value *value, llvm::Value *first, llvm::Value *stride,
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

llvm::Value *StripEmitter::linearIndex(const Shape &shape, const Coords &coords) {
  llvm::Value *index = i64(0);
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1)
      index = b_.CreateAdd(index, b_.CreateMul(coords[d], i64(stride)));
    stride *= shape[d];
  }
  return index;
}

llvm::Value *StripEmitter::loadBuffer(llvm::Value *buffer, const Type &type, const Coords &coords,
                                      bool vector) {
  llvm::Type *memTy = memoryType(type);
  llvm::Value *ptr = b_.CreateGEP(memTy, buffer, linearIndex(type.shape(), coords));
  llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
  llvm::Value *value = vector ? loadStrip(vectorOf(memTy), ptr, align, tailMask_, nullptr)
                              : b_.CreateAlignedLoad(memTy, ptr, align);
  return fromMemory(value, type);
}

void StripEmitter::storeBuffer(llvm::Value *buffer, const Type &type, const Coords &coords,
                               llvm::Value *value, bool vector) {
  llvm::Type *memTy = memoryType(type);
  value = toMemory(value, type);
  llvm::Value *ptr = b_.CreateGEP(memTy, buffer, linearIndex(type.shape(), coords));
  llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
  if (vector)
    storeStrip(value, ptr, align, tailMask_);
  else
    b_.CreateAlignedStore(value, ptr, align);
}

void StripEmitter::copyBuffer(llvm::Value *dst, llvm::Value *src, const Type &type) {
  if (dst == src)
    return;
  uint64_t bytes = module_.getDataLayout().getTypeAllocSize(memoryType(type)) * type.numElements();
  b_.CreateMemCpy(dst, llvm::Align(64), src, llvm::Align(64), bytes);
}

} // namespace blockc
