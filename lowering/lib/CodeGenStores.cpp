//===- CodeGenStores.cpp - Block and scalar stores, streamed where they pay -===//
//
// A store of a block writes it strip by strip: contiguous strips as
// predicated vector stores, others as scatters, strided stores where the ISA
// has them. A store to an output the kernel never reads may stream past the
// cache (CompileOptions::streamingStores), on ISAs whose IsaLowering offers
// non-temporal stores.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "StripGroups.h"
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/Compiler.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc {

void KernelCodeGen::emitStore(const Operation &op) {
  const Type &ptrType = op.operands[0]->type();
  if (ptrType.isScalar()) {
    llvm::Value *ptr = eval(op.operands[0], {}, false);
    llvm::Value *value = toMemory(eval(op.operands[1], {}, false), op.operands[1]->type());
    if (bounds_)
      bounds_->check(op, ptr, op.hasMask ? eval(op.mask(), {}, false) : nullptr);
    llvm::Type *memTy = value->getType();
    if (!op.hasMask) {
      b_.CreateStore(value, ptr);
      return;
    }
    // A scalar masked store: a one-lane masked store touches nothing when off.
    auto *one = llvm::FixedVectorType::get(memTy, 1);
    llvm::Value *vec = b_.CreateInsertElement(llvm::PoisonValue::get(one), value, uint64_t(0));
    llvm::Value *mask = b_.CreateVectorSplat(1, eval(op.mask(), {}, false));
    b_.CreateMaskedStore(vec, ptr, llvm::Align(1), mask);
    return;
  }
  bool computesMath = evaluatesMath(op.operands[1]);
  bool mayStream = storeMayStream(op, computesMath);
  unsigned ways = storeStripWays(computesMath);
  std::vector<NextProgramFetch> fetches =
      planNextProgramFetches({op.operands[0], op.operands[1]}, ptrType.shape());
  auto strips = [&] {
    std::vector<StoreStrip> pending(ways);
    forEachStrip(
        ptrType.shape(), ways,
        [&](const Coords &coords, bool vector, unsigned way) {
          fetchForNextProgram(fetches, coords, vector);
          pending[way] = prepareStoreStrip(op, coords, vector, mayStream);
        },
        [&](const Coords &, bool, unsigned way) { commitStoreStrip(op, pending[way]); });
  };
  if (isTransposable(op))
    return emitTransposableStore(op, strips);
  std::vector<const Value *> masks;
  std::unordered_set<const Value *> seen;
  collectAccessMasks(op, masks, seen);
  versionOnFullMasks(masks, {}, strips);
}

KernelCodeGen::StoreStrip KernelCodeGen::prepareStoreStrip(const Operation &op,
                                                           const Coords &coords, bool vector,
                                                           bool mayStream) {
  StoreStrip strip;
  strip.vector = vector;
  strip.mayStream = mayStream;
  strip.value = toMemory(evalOperand(op, 1, coords, vector), op.operands[1]->type());
  strip.mask = vector ? tailMask_ : nullptr;
  if (op.hasMask && !fullMasks_.count(op.operands[2]))
    strip.mask = andMasks(strip.mask, evalOperand(op, 2, coords, vector));
  strip.first = evalOperand(op, 0, coords, false);
  std::optional<Stride> stride = vector ? operandStride(op, 0) : std::nullopt;
  // As commitStoreStrip reads the stride: a scale known to be one is gone,
  // and what is left is contiguous, strided, or a scatter that needs every
  // lane's pointer (a constant stride of 2 included).
  if (stride && stride->scale && stride->scale == knownUnitScale_)
    stride = Stride{stride->factor, nullptr};
  bool contiguous = stride && (stride->isConstant(1) || (stride->scale && isa_.hasStridedAccess()));
  if (vector && (!contiguous || options_.checkBounds))
    strip.pointers = evalOperand(op, 0, coords, true);
  return strip;
}

void KernelCodeGen::commitStoreStrip(const Operation &op, const StoreStrip &strip) {
  llvm::Align align(module_.getDataLayout().getABITypeAlign(memoryType(op.operands[1]->type())));
  llvm::Value *value = strip.value, *mask = strip.mask;
  if (bounds_)
    bounds_->check(op, strip.vector ? strip.pointers : strip.first, mask);
  if (!strip.vector) {
    if (!mask)
      b_.CreateStore(value, strip.first);
    else
      b_.CreateMaskedStore(b_.CreateVectorSplat(1, value), strip.first, align,
                           b_.CreateVectorSplat(1, mask));
    return;
  }
  std::optional<Stride> stride = operandStride(op, 0);
  if (stride && stride->scale && stride->scale == knownUnitScale_)
    stride = Stride{stride->factor, nullptr};
  if (stride && stride->isConstant(1)) {
    if (!tailEvl_ && strip.mayStream)
      streamOrStoreStrip(op, value, strip.first, align, mask);
    else
      storeStrip(value, strip.first, align, mask);
  } else if (stride && stride->scale) {
    llvm::Value *elements = runtimeStride(*stride);
    whenUnitStride(
        elements,
        [&]() -> llvm::Value * {
          storeStrip(value, strip.first, align, mask);
          return nullptr;
        },
        [&]() -> llvm::Value * {
          if (isa_.hasStridedAccess())
            stridedStoreStrip(value, strip.first, elements, align, mask);
          else
            scatterStrip(value, strip.pointers, align, mask);
          return nullptr;
        });
  } else {
    scatterStrip(value, strip.pointers, align, mask);
  }
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

bool KernelCodeGen::storeMayStream(const Operation &op, bool computesMath) {
  if (!streamableStores_.count(&op))
    return false;
  if (options_.streamingStores == CompileOptions::StreamingStores::Always)
    return true;
  // A cache line leaves the write-combining buffer whole only once all its
  // bytes are stored. A strip that computes math (an inline exp, erf: tens of
  // instructions) and fills less than a line keeps the line waiting that long
  // for the next strip, and a line flushed in parts costs more than the cached
  // store it replaced: AVX2 gelu ran 1.1-1.3x faster with cached stores on a
  // Zen 5 and a Sapphire Rapids, where its AVX-512 strips (a line each) still
  // gained about 8% from streaming (docs/lowering.md, "Streaming stores").
  const llvm::DataLayout &layout = module_.getDataLayout();
  uint64_t stripBytes =
      stripCount_.getFixedValue() * layout.getTypeStoreSize(memoryType(op.operands[1]->type()));
  return !(computesMath && stripBytes < uint64_t(kCacheLineBytes));
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
