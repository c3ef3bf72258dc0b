//===- CodeGen.cpp - Kernels, control flow, memory and loops --------------===//
#include "CodeGen.h"

#include "StripDemand.h"
#include "blockc/lowering/Loops.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#include <algorithm>

namespace blockc {

KernelCodeGen::KernelCodeGen(const Target &target, const IsaLowering &isa, llvm::Module &module,
                             const CompileOptions &options)
    : target_(target), isa_(isa), module_(module), ctx_(module.getContext()), options_(options),
      b_(ctx_) {}

llvm::Type *KernelCodeGen::scalarType(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
    return b_.getInt1Ty();
  case ScalarKind::I8:
    return b_.getInt8Ty();
  case ScalarKind::I16:
    return b_.getInt16Ty();
  case ScalarKind::I32:
    return b_.getInt32Ty();
  case ScalarKind::I64:
    return b_.getInt64Ty();
  case ScalarKind::F16:
    return b_.getHalfTy();
  case ScalarKind::BF16:
    return b_.getBFloatTy();
  case ScalarKind::F32:
    return b_.getFloatTy();
  case ScalarKind::F64:
    return b_.getDoubleTy();
  }
  return nullptr;
}

llvm::Type *KernelCodeGen::elementType(const Type &t) {
  return t.isPointer() ? b_.getPtrTy() : scalarType(t.kind());
}

llvm::Type *KernelCodeGen::memoryType(const Type &t) {
  if (t.isPointer())
    return b_.getPtrTy();
  if (t.isBool())
    return b_.getInt8Ty();
  if (t.kind() == ScalarKind::F16 || t.kind() == ScalarKind::BF16)
    return b_.getInt16Ty();
  return elementType(t);
}

llvm::Value *KernelCodeGen::toMemory(llvm::Value *v, const Type &t) {
  llvm::Type *memTy = sameShape(v->getType(), memoryType(t));
  if (v->getType() == memTy)
    return v;
  return t.isBool() ? b_.CreateZExt(v, memTy) : b_.CreateBitCast(v, memTy);
}

llvm::Value *KernelCodeGen::fromMemory(llvm::Value *v, const Type &t) {
  if (t.isBool())
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  llvm::Type *regTy = sameShape(v->getType(), elementType(t));
  return v->getType() == regTy ? v : b_.CreateBitCast(v, regTy);
}

llvm::Type *KernelCodeGen::vectorOf(llvm::Type *element) {
  return llvm::VectorType::get(element, stripCount_);
}

llvm::Value *KernelCodeGen::splat(llvm::Value *scalar) {
  // Splatting the bit pattern needs no bf16 support: RVV without zvfbfmin
  // cannot build a scalable bfloat vector from a scalar.
  if (scalar->getType()->isBFloatTy())
    return b_.CreateBitCast(
        b_.CreateVectorSplat(stripCount_, b_.CreateBitCast(scalar, b_.getInt16Ty())),
        vectorOf(scalar->getType()));
  return b_.CreateVectorSplat(stripCount_, scalar);
}

llvm::Value *KernelCodeGen::andMasks(llvm::Value *a, llvm::Value *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return b_.CreateAnd(a, b);
}

llvm::Value *KernelCodeGen::allTrueMask() {
  return splat(b_.getTrue());
}

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
  if (options_.checkBounds)
    beginBoundsChecks(fn);
  findStreamableStores(fn);
  emitRegion(fn.body);
  if (emittedStreamingStore_)
    isa_.emitNonTemporalStoreFence(b_);
  b_.CreateRetVoid();
  placeScratch(body);
  auto *scratch =
      new llvm::GlobalVariable(module_, b_.getInt64Ty(), true, llvm::GlobalValue::ExternalLinkage,
                               b_.getInt64(scratchBytes_), "blockc_scratch_bytes_" + fn.name);
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

void KernelCodeGen::copyBuffer(llvm::Value *dst, llvm::Value *src, const Type &type) {
  if (dst == src)
    return;
  uint64_t bytes = module_.getDataLayout().getTypeAllocSize(memoryType(type)) * type.numElements();
  b_.CreateMemCpy(dst, llvm::Align(64), src, llvm::Align(64), bytes);
}

void KernelCodeGen::materialize(const Operation &op, const Value *v) {
  auto inPlace = accumulatorBuffers_.find(v);
  llvm::Value *buffer =
      inPlace != accumulatorBuffers_.end() ? inPlace->second : allocaBuffer(v->type(), v->name());
  switch (op.opClass()) {
  case OpClass::Reduce:
    emitReduce(op, buffer);
    break;
  case OpClass::Dot:
    emitDot(op, buffer);
    break;
  default:
    writeInto(v, buffer);
    break;
  }
  buffers_[v] = buffer;
}

void KernelCodeGen::writeInto(const Value *v, llvm::Value *buffer) {
  auto it = buffers_.find(v);
  if (it != buffers_.end())
    return copyBuffer(buffer, it->second, v->type());
  const Operation &op = *v->definingOp();
  if (op.kind() == OpKind::Load && isTransposable(op))
    return writeTransposableLoad(op, v, buffer);
  if (op.kind() == OpKind::Trans || op.kind() == OpKind::Reshape) {
    // Lanes of a transposed strip are far apart in the source: go element by
    // element (these ops are rare and feed dots, which dominate anyway).
    forEachElement(v->type().shape(), [&](const Coords &coords) {
      storeBuffer(buffer, v->type(), coords, evalDef(op, v, coords, false), false);
    });
    return;
  }
  forEachStrip(v->type().shape(), [&](const Coords &coords, bool vector) {
    storeBuffer(buffer, v->type(), coords, evalDef(op, v, coords, vector), vector);
  });
}

bool KernelCodeGen::readsValue(const Value *v, const Value *x) {
  if (v == x)
    return true;
  if (buffers_.count(v) || !v->definingOp() || v->type().isScalar())
    return false;
  for (const Value *operand : v->definingOp()->operands)
    if (readsValue(operand, x))
      return true;
  return false;
}

llvm::Value *KernelCodeGen::bufferOf(const Value *v) {
  auto it = buffers_.find(v);
  if (it != buffers_.end())
    return it->second;
  llvm::Value *buffer = allocaBuffer(v->type(), v->name() + ".tmp");
  writeInto(v, buffer);
  return buffer;
}

void KernelCodeGen::emitStore(const Operation &op) {
  const Type &ptrType = op.operands[0]->type();
  if (ptrType.isScalar()) {
    llvm::Value *ptr = eval(op.operands[0], {}, false);
    llvm::Value *value = toMemory(eval(op.operands[1], {}, false), op.operands[1]->type());
    if (options_.checkBounds)
      checkAccess(op, ptr, op.hasMask ? eval(op.mask(), {}, false) : nullptr);
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
  auto strips = [&] {
    forEachStrip(ptrType.shape(), [&](const Coords &coords, bool vector) {
      commitStoreStrip(op, prepareStoreStrip(op, coords, vector));
    });
  };
  if (isTransposable(op))
    return emitTransposableStore(op, strips);
  strips();
}

KernelCodeGen::StoreStrip KernelCodeGen::prepareStoreStrip(const Operation &op,
                                                           const Coords &coords, bool vector) {
  StoreStrip strip;
  strip.vector = vector;
  strip.value = toMemory(evalOperand(op, 1, coords, vector), op.operands[1]->type());
  strip.mask = vector ? tailMask_ : nullptr;
  if (op.hasMask)
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
  if (options_.checkBounds)
    checkAccess(op, strip.vector ? strip.pointers : strip.first, mask);
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
    if (!tailEvl_ && streamableStores_.count(&op))
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

void KernelCodeGen::emitCountedLoop(llvm::Value *begin, llvm::Value *end, llvm::Value *step,
                                    const std::function<void(llvm::Value *)> &body) {
  emitLoop(begin, end, [&](llvm::Value *iv) {
    body(iv);
    return b_.CreateAdd(iv, step);
  });
}

void KernelCodeGen::emitLoop(llvm::Value *begin, llvm::Value *end,
                             const std::function<llvm::Value *(llvm::Value *)> &body) {
  llvm::BasicBlock *pre = b_.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(ctx_, "strip.header", fn_);
  auto *loopBody = llvm::BasicBlock::Create(ctx_, "strip.body", fn_);
  auto *exit = llvm::BasicBlock::Create(ctx_, "strip.exit", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode *iv = b_.CreatePHI(begin->getType(), 2, "i");
  iv->addIncoming(begin, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(iv, end), loopBody, exit);
  b_.SetInsertPoint(loopBody);
  llvm::Value *next = body(iv);
  iv->addIncoming(next, b_.GetInsertBlock());
  // Unrolling a strip loop fully would make code size, and compile time, grow
  // with the block size (DESIGN.md, principle 1); a strip is already a full
  // register of work.
  setLoopUnroll(b_.CreateBr(header), 1);
  b_.SetInsertPoint(exit);
}

void KernelCodeGen::forEachElement(const Shape &shape,
                                   const std::function<void(const Coords &)> &body) {
  std::function<void(size_t, Coords &)> nest = [&](size_t dim, Coords &coords) {
    if (dim == shape.size()) {
      memo_.clear();
      body(coords);
      memo_.clear();
      return;
    }
    emitCountedLoop(i64(0), i64(shape[dim]), i64(1), [&](llvm::Value *i) {
      coords.push_back(i);
      nest(dim + 1, coords);
      coords.pop_back();
    });
  };
  Coords coords;
  nest(0, coords);
}

void KernelCodeGen::forEachStripOfRow(int64_t length,
                                      const std::function<void(llvm::Value *, bool)> &body) {
  forEachStripOfRow(length, 1,
                    [&](llvm::Value *column, bool vector, unsigned) { body(column, vector); });
}

unsigned KernelCodeGen::waysFor(int64_t length, unsigned ways) const {
  if (stripCount_.isScalable() || isa_.tailPredication() != TailPredication::LaneMask)
    return 1;
  int64_t fullStrips = length / int64_t(stripCount_.getFixedValue());
  return unsigned(std::clamp<int64_t>(fullStrips, 1, ways));
}

void KernelCodeGen::forEachStripOfRow(
    int64_t length, unsigned ways, const std::function<void(llvm::Value *, bool, unsigned)> &body) {
  auto run = [&](llvm::Value *column, bool vector, llvm::Value *mask, unsigned way) {
    tailMask_ = mask;
    memo_.clear();
    body(column, vector, way);
    memo_.clear();
    tailMask_ = nullptr;
  };
  if (length == 1)
    return run(i64(0), false, nullptr, 0);
  llvm::Value *lengthValue = i64(length);
  if (isa_.tailPredication() == TailPredication::VectorLength) {
    // Strip-mined: each strip covers min(remaining, lanes) elements.
    emitLoop(i64(0), lengthValue, [&](llvm::Value *column) {
      tailEvl_ = b_.CreateIntrinsic(
          llvm::Intrinsic::experimental_get_vector_length, {b_.getInt64Ty()},
          {b_.CreateSub(lengthValue, column), b_.getInt32(stripCount_.getKnownMinValue()),
           b_.getInt1(stripCount_.isScalable())});
      llvm::Value *next = b_.CreateAdd(column, b_.CreateZExt(tailEvl_, b_.getInt64Ty()));
      run(column, true, nullptr, 0);
      tailEvl_ = nullptr;
      return next;
    });
    return;
  }
  auto activeLaneMask = [&](llvm::Value *column) {
    return b_.CreateIntrinsic(llvm::Intrinsic::get_active_lane_mask,
                              {vectorOf(b_.getInt1Ty()), b_.getInt64Ty()}, {column, lengthValue});
  };
  if (isa_.tailPredication() == TailPredication::PredicatedLoop) {
    emitCountedLoop(i64(0), lengthValue, stripLanes_,
                    [&](llvm::Value *column) { run(column, true, activeLaneMask(column), 0); });
    return;
  }
  if (!stripCount_.isScalable()) {
    int64_t lanes = stripCount_.getFixedValue();
    int64_t full = length / lanes * lanes;
    ways = waysFor(length, ways);
    int64_t chunk = lanes * ways;
    int64_t chunked = full / chunk * chunk;
    if (chunked == chunk)
      for (unsigned way = 0; way < ways; ++way)
        run(i64(way * lanes), true, nullptr, way);
    else if (chunked > 0)
      emitCountedLoop(i64(0), i64(chunked), i64(chunk), [&](llvm::Value *j) {
        for (unsigned way = 0; way < ways; ++way)
          run(way ? b_.CreateAdd(j, i64(way * lanes)) : j, true, nullptr, way);
      });
    // Fewer than `ways` full strips are left: straight-line code.
    unsigned way = 0;
    for (int64_t column = chunked; column < full; column += lanes)
      run(i64(column), true, nullptr, way++);
    if (full < length)
      run(i64(full), true, activeLaneMask(i64(full)), way % ways);
    return;
  }
  // Scalable: the strip width is known only at run time.
  llvm::Value *full = b_.CreateSub(lengthValue, b_.CreateURem(lengthValue, stripLanes_));
  emitCountedLoop(i64(0), full, stripLanes_, [&](llvm::Value *j) { run(j, true, nullptr, 0); });
  auto *tail = llvm::BasicBlock::Create(ctx_, "strip.tail", fn_);
  auto *done = llvm::BasicBlock::Create(ctx_, "strip.done", fn_);
  b_.CreateCondBr(b_.CreateICmpSLT(full, lengthValue), tail, done);
  b_.SetInsertPoint(tail);
  run(full, true, activeLaneMask(full), 0);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void KernelCodeGen::forEachStrip(const Shape &shape,
                                 const std::function<void(const Coords &, bool)> &body) {
  std::function<void(size_t, Coords &)> nest = [&](size_t dim, Coords &coords) {
    if (dim + 1 == shape.size()) {
      forEachStripOfRow(shape.back(), [&](llvm::Value *column, bool vector) {
        coords.push_back(column);
        body(coords, vector);
        coords.pop_back();
      });
      return;
    }
    emitCountedLoop(i64(0), i64(shape[dim]), i64(1), [&](llvm::Value *i) {
      coords.push_back(i);
      nest(dim + 1, coords);
      coords.pop_back();
    });
  };
  Coords coords;
  nest(0, coords);
}

} // namespace blockc
