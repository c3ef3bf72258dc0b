//===- DotKernels.cpp - Dot strategies shared between ISAs ----------------===//
#include "blockc/lowering/DotKernels.h"

#include "blockc/lowering/Compiler.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"

#include <limits>
#include <optional>

namespace blockc {

llvm::Type *dotMemoryType(llvm::LLVMContext &ctx, ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
  case ScalarKind::I8:
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
    return llvm::Type::getInt8Ty(ctx);
  case ScalarKind::I16:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return llvm::Type::getInt16Ty(ctx);
  case ScalarKind::I32:
    return llvm::Type::getInt32Ty(ctx);
  case ScalarKind::I64:
    return llvm::Type::getInt64Ty(ctx);
  case ScalarKind::F32:
    return llvm::Type::getFloatTy(ctx);
  case ScalarKind::F64:
    return llvm::Type::getDoubleTy(ctx);
  }
  return nullptr;
}

llvm::Value *widenForDot(llvm::IRBuilderBase &b, llvm::Value *v, ScalarKind from, ScalarKind to) {
  auto shaped = [&](llvm::Type *element) -> llvm::Type * {
    if (auto *vec = llvm::dyn_cast<llvm::VectorType>(v->getType()))
      return llvm::VectorType::get(element, vec->getElementCount());
    return element;
  };
  switch (from) {
  case ScalarKind::F16:
    return b.CreateFPExt(b.CreateBitCast(v, shaped(b.getHalfTy())), shaped(b.getFloatTy()));
  case ScalarKind::BF16:
    // bf16 is the high half of an f32: widening is a shift, exact for every value.
    return b.CreateBitCast(b.CreateShl(b.CreateZExt(v, shaped(b.getInt32Ty())), 16),
                           shaped(b.getFloatTy()));
  case ScalarKind::I8:
    return b.CreateSExt(v, shaped(dotMemoryType(b.getContext(), to)));
  default:
    return v;
  }
}

llvm::Constant *firstLanesMask(llvm::IRBuilderBase &b, int64_t lanes, int64_t active) {
  std::vector<llvm::Constant *> bits;
  for (int64_t i = 0; i < lanes; ++i)
    bits.push_back(b.getInt1(i < active));
  return llvm::ConstantVector::get(bits);
}

namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/// The packed panel of B a fused K loop may fill (RegisterBlockedDot): every
/// row tile streams it once per K, so it should stay in L1. Shallow K steps
/// gain (C is loaded and stored once per step); a step that fills the panel
/// on its own is left alone: it prefetches the next step's tiles, which a
/// fused run does not. f32 1024^3 and 2048^3 in 64 x 128 x 64 tiles (16 KiB
/// steps) fused two at a time, on the Xeon in one call: 2048^3 19% slower on
/// one thread and 15-22% slower on 16, 1024^3 8% faster on one thread; on
/// Zen 5 as fast.
constexpr int64_t kFusedPanelBytes = 16 * 1024;

} // namespace

void prefetchLine(llvm::IRBuilderBase &b, llvm::Value *ptr) {
  // read, locality 2 (prefetcht1: the tile is needed a whole K step later),
  // data cache.
  b.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr->getType()},
                    {ptr, b.getInt32(0), b.getInt32(2), b.getInt32(1)});
}

void prefetchNextRowsOfA(const DotOperands &dot, llvm::Value *step, int64_t steps) {
  if (!dot.aNext)
    return;
  llvm::IRBuilderBase &b = dot.builder;
  llvm::Type *element = dotMemoryType(b.getContext(), dot.aKind);
  int64_t rowBytes = dot.k * int64_t(element->getPrimitiveSizeInBits() / 8);
  for (int64_t first = 0; first < dot.m; first += steps) {
    // Rows past the tile's last repeat it: a hint, not worth a branch.
    llvm::Value *row = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, b.CreateAdd(step, b.getInt64(first)), b.getInt64(dot.m - 1));
    llvm::Value *start = b.CreateGEP(element, dot.aNext, b.CreateMul(row, dot.rowStrideOfA()));
    for (int64_t offset = 0; offset < rowBytes; offset += kCacheLineBytes)
      prefetchLine(b, b.CreateGEP(b.getInt8Ty(), start, b.getInt64(offset)));
  }
}

namespace {

/// FNV-1a: a layout number that stays the same from one compiler run to the
/// next, so that two dots of a kernel that pack the same way share.
uint64_t layoutNumber(const PackedLayout &layout) {
  uint64_t hash = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t word) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= (word >> (8 * byte)) & 0xff;
      hash *= 0x100000001b3ull;
    }
  };
  for (const char *c = layout.packing; *c; ++c)
    mix(uint64_t(uint8_t(*c)));
  mix(uint64_t(layout.element));
  for (int64_t extent : layout.shape)
    mix(uint64_t(extent));
  return hash;
}

} // namespace

SharedOperand acquireSharedB(const DotOperands &dot, llvm::Value *scratch, uint64_t bytes,
                             llvm::Value *rows, const PackedLayout &layout) {
  llvm::IRBuilderBase &b = dot.builder;
  if (!dot.bShareable)
    return {scratch, b.getFalse()};
  llvm::LLVMContext &ctx = b.getContext();
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::Module &module = *fn->getParent();
  auto *i64 = b.getInt64Ty();
  llvm::FunctionCallee lookup = module.getOrInsertFunction(
      kPackedOperandFunction,
      llvm::FunctionType::get(b.getPtrTy(), {b.getPtrTy(), i64, i64, i64, i64, b.getPtrTy()},
                              false));
  if (auto *callee = llvm::dyn_cast<llvm::Function>(lookup.getCallee()))
    callee->setDoesNotThrow();
  llvm::Value *filledSlot = dot.allocateScratch(b.getInt32Ty(), "dot.b_packed_before");
  int64_t elementBytes = int64_t(dotMemoryType(ctx, dot.bKind)->getPrimitiveSizeInBits() / 8);

  auto *ask = llvm::BasicBlock::Create(ctx, "dot.b_shared", fn);
  auto *decided = llvm::BasicBlock::Create(ctx, "dot.b_destination", fn);
  llvm::BasicBlock *entry = b.GetInsertBlock();
  b.CreateCondBr(dot.bShareable, ask, decided);

  b.SetInsertPoint(ask);
  llvm::Value *shared =
      b.CreateCall(lookup, {dot.b, b.CreateMul(dot.rowStrideOfB(), b.getInt64(elementBytes)), rows,
                            b.getInt64(layoutNumber(layout)), b.getInt64(bytes), filledSlot});
  llvm::Value *hasShared = b.CreateIsNotNull(shared);
  llvm::Value *wasPacked = b.CreateAnd(
      hasShared, b.CreateICmpNE(b.CreateLoad(b.getInt32Ty(), filledSlot), b.getInt32(0)));
  llvm::Value *sharedOrScratch = b.CreateSelect(hasShared, shared, scratch);
  llvm::BasicBlock *askEnd = b.GetInsertBlock();
  b.CreateBr(decided);

  b.SetInsertPoint(decided);
  llvm::PHINode *destination = b.CreatePHI(b.getPtrTy(), 2, "dot.b_packed_at");
  destination->addIncoming(scratch, entry);
  destination->addIncoming(sharedOrScratch, askEnd);
  llvm::PHINode *alreadyPacked = b.CreatePHI(b.getInt1Ty(), 2, "dot.b_already_packed");
  alreadyPacked->addIncoming(b.getFalse(), entry);
  alreadyPacked->addIncoming(wasPacked, askEnd);
  return {destination, alreadyPacked};
}

void unlessAlreadyPacked(llvm::IRBuilderBase &b, const SharedOperand &operand,
                         const std::function<void()> &pack) {
  if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(operand.alreadyPacked)) {
    if (constant->isZero())
      pack();
    return;
  }
  llvm::LLVMContext &ctx = b.getContext();
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  auto *packing = llvm::BasicBlock::Create(ctx, "dot.b_pack", fn);
  auto *packed = llvm::BasicBlock::Create(ctx, "dot.b_packed", fn);
  b.CreateCondBr(operand.alreadyPacked, packed, packing);
  b.SetInsertPoint(packing);
  pack();
  b.CreateBr(packed);
  b.SetInsertPoint(packed);
}

llvm::Value *packSharedB(const DotOperands &dot, llvm::Value *scratch, uint64_t bytes,
                         llvm::Value *rows, const PackedLayout &layout,
                         const std::function<void(llvm::Value *destination)> &pack) {
  SharedOperand operand = acquireSharedB(dot, scratch, bytes, rows, layout);
  unlessAlreadyPacked(dot.builder, operand, [&] { pack(operand.destination); });
  return operand.destination;
}

namespace {

/// Loads of A and B a dot of `m` rows and `vectors` vector columns issues per
/// k with `tile`: each tile loads its rows of A and its vectors of B.
int64_t loadsPerK(MicroTile tile, int64_t m, int64_t vectors) {
  int64_t total = 0;
  for (int64_t panel = 0; panel < vectors; panel += tile.vectors) {
    int64_t width = std::min(tile.vectors, vectors - panel);
    int64_t fullRows = m / tile.rows, restRows = m % tile.rows;
    total += fullRows * (tile.rows + width) + (restRows ? restRows + width : 0);
  }
  return total;
}

} // namespace

MicroTile chooseMicroTile(RegisterFile file, int64_t lanes, int64_t m, int64_t n) {
  int64_t vectors = ceilDiv(n, lanes);
  MicroTile best{1, 1};
  int64_t bestLoads = std::numeric_limits<int64_t>::max();
  // Registers: rows * width accumulators, `width` of B's row, one broadcast.
  for (int64_t width = 1; width <= vectors; ++width) {
    int64_t rows = std::min<int64_t>(m, (int64_t(file.registers) - width - 1) / width);
    if (rows < 1)
      break;
    MicroTile tile{rows, width};
    int64_t loads = loadsPerK(tile, m, vectors);
    if (loads < bestLoads) {
      best = tile;
      bestLoads = loads;
    }
  }
  return best;
}

bool RegisterBlockedDot::accepts(const DotOperands &dot) const {
  return acceptsWidenedFma(dot);
}

bool acceptsWidenedFma(const DotOperands &dot) {
  switch (dot.aKind) {
  case ScalarKind::F32:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return dot.cKind == ScalarKind::F32;
  case ScalarKind::F64:
    return dot.cKind == ScalarKind::F64;
  case ScalarKind::I8:
    return dot.cKind == ScalarKind::I32;
  default:
    return false;
  }
}

namespace {

/// One micro-kernel: the buffers, the element types and the lanes of a vector.
class TileEmitter {
public:
  TileEmitter(const DotOperands &dot, int64_t lanes, llvm::Value *kTotal)
      : dot_(dot), b_(dot.builder), lanes_(lanes), kTotal_(kTotal),
        aType_(dotMemoryType(b_.getContext(), dot.aKind)),
        cType_(dotMemoryType(b_.getContext(), dot.cKind)),
        vectorType_(llvm::FixedVectorType::get(cType_, unsigned(lanes))),
        inputVectorType_(llvm::FixedVectorType::get(aType_, unsigned(lanes))),
        isFloat_(isFloatKind(dot.cKind)), aRowStride_(dot.rowStrideOfA()),
        bRowStride_(dot.rowStrideOfB()) {}

  /// Where a micro-kernel reads B: the dot's own buffer, or a panel packed by
  /// packPanel (already widened, zero past the last column, rows `width`
  /// elements apart).
  struct PanelSource {
    llvm::Value *base = nullptr;
    int64_t width = 0;
  };

  /// Copies the `vectors`-wide panel of B at col0 into `packed`, row after
  /// row, widened to the accumulator type: the micro-kernels of every row
  /// tile then stream it from L1 in order, whatever B's row length (a row
  /// length of a power of two times 1 KiB maps a panel onto a few L1 sets),
  /// and convert nothing.
  PanelSource packPanel(llvm::Value *packed, llvm::Value *col0, int64_t vectors,
                        int64_t lastLanes) const {
    llvm::Value *lastMask = lastLanes == lanes_ ? nullptr : laneMask(lastLanes);
    int64_t width = vectors * lanes_;
    emitLoopTo(b_, kTotal_, 1, [&](llvm::Value *kk) {
      // The next K step's rows, while this one's are packed: they arrive
      // while the micro-kernels run.
      prefetchNextRowsOfA(dot_, kk, dot_.k);
      if (dot_.kSteps)
        for (int64_t v = 0; v < vectors; ++v)
          prefetchLine(
              b_, b_.CreateGEP(
                      aType_, dot_.b,
                      b_.CreateAdd(b_.CreateMul(b_.CreateAdd(kk, b_.getInt64(kPackPrefetchRows)),
                                                bRowStride_),
                                   b_.CreateAdd(col0, b_.getInt64(v * lanes_)))));
      if (dot_.bNext)
        for (int64_t v = 0; v < vectors; ++v)
          prefetchLine(b_, b_.CreateGEP(aType_, dot_.bNext,
                                        b_.CreateAdd(b_.CreateMul(kk, bRowStride_),
                                                     b_.CreateAdd(col0, b_.getInt64(v * lanes_)))));
      for (int64_t v = 0; v < vectors; ++v) {
        llvm::Value *at = b_.CreateAdd(b_.CreateMul(kk, bRowStride_),
                                       b_.CreateAdd(col0, b_.getInt64(v * lanes_)));
        llvm::Value *raw = load(inputVectorType_, b_.CreateGEP(aType_, dot_.b, at),
                                v == vectors - 1 ? lastMask : nullptr);
        llvm::Value *to =
            b_.CreateAdd(b_.CreateMul(kk, b_.getInt64(width)), b_.getInt64(v * lanes_));
        store(widenForDot(b_, raw, dot_.bKind, dot_.cKind), b_.CreateGEP(cType_, packed, to),
              nullptr);
      }
    });
    return {packed, width};
  }

  /// The `rows` x `vectors` tile of C at (row0, col0); its last vector has
  /// `lastLanes` columns. B comes from `panel` when it is packed.
  void emit(llvm::Value *row0, llvm::Value *col0, int64_t rows, int64_t vectors, int64_t lastLanes,
            PanelSource panel) const {
    llvm::Value *lastMask = lastLanes == lanes_ ? nullptr : laneMask(lastLanes);
    auto maskOf = [&](int64_t v) { return v == vectors - 1 ? lastMask : nullptr; };
    std::vector<llvm::Value *> acc(size_t(rows * vectors));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        acc[size_t(r * vectors + v)] = load(vectorType_, cAddress(row0, r, col0, v), maskOf(v));

    // Each row of A from its own pointer, set before the K loop (an address
    // computed from the row stride in the loop becomes a chain of adds).
    std::vector<llvm::Value *> aRows;
    for (int64_t r = 0; r < rows; ++r)
      aRows.push_back(b_.CreateGEP(aType_, dot_.a,
                                   b_.CreateMul(b_.CreateAdd(row0, b_.getInt64(r)), aRowStride_)));
    acc = emitCarryingLoopTo(b_, kTotal_, 1, acc,
                             [&](llvm::Value *kk, const std::vector<llvm::Value *> &c) {
                               return step(kk, c, aRows, col0, vectors, maskOf, panel);
                             });
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        store(acc[size_t(r * vectors + v)], cAddress(row0, r, col0, v), maskOf(v));
  }

private:
  /// One k of the micro-kernel: the accumulators `c` plus A's column k times
  /// B's row k.
  std::vector<llvm::Value *> step(llvm::Value *kk, const std::vector<llvm::Value *> &c,
                                  const std::vector<llvm::Value *> &aRows, llvm::Value *col0,
                                  int64_t vectors,
                                  const std::function<llvm::Value *(int64_t)> &maskOf,
                                  PanelSource panel) const {
    std::vector<llvm::Value *> acc(c.size());
    std::vector<llvm::Value *> bRow;
    for (int64_t v = 0; v < vectors; ++v) {
      if (panel.base) {
        llvm::Value *at =
            b_.CreateAdd(b_.CreateMul(kk, b_.getInt64(panel.width)), b_.getInt64(v * lanes_));
        bRow.push_back(load(vectorType_, b_.CreateGEP(cType_, panel.base, at), nullptr));
        continue;
      }
      llvm::Value *at =
          b_.CreateAdd(b_.CreateMul(kk, bRowStride_), b_.CreateAdd(col0, b_.getInt64(v * lanes_)));
      llvm::Value *raw = load(inputVectorType_, b_.CreateGEP(aType_, dot_.b, at), maskOf(v));
      bRow.push_back(widenForDot(b_, raw, dot_.bKind, dot_.cKind));
    }
    for (size_t r = 0; r < aRows.size(); ++r) {
      llvm::Value *x = b_.CreateLoad(aType_, b_.CreateGEP(aType_, aRows[r], kk));
      x = b_.CreateVectorSplat(unsigned(lanes_), widenForDot(b_, x, dot_.aKind, dot_.cKind));
      for (int64_t v = 0; v < vectors; ++v) {
        size_t i = r * size_t(vectors) + size_t(v);
        acc[i] = isFloat_
                     ? b_.CreateIntrinsic(llvm::Intrinsic::fma, {vectorType_}, {x, bRow[v], c[i]})
                     : b_.CreateAdd(c[i], b_.CreateMul(x, bRow[v]));
      }
    }
    return acc;
  }

  llvm::Value *cAddress(llvm::Value *row0, int64_t r, llvm::Value *col0, int64_t v) const {
    llvm::Value *row = b_.CreateAdd(row0, b_.getInt64(r));
    llvm::Value *col = b_.CreateAdd(col0, b_.getInt64(v * lanes_));
    return b_.CreateGEP(cType_, dot_.c, b_.CreateAdd(b_.CreateMul(row, b_.getInt64(dot_.n)), col));
  }

  llvm::Value *laneMask(int64_t active) const { return firstLanesMask(b_, lanes_, active); }

  llvm::Align alignOf(llvm::Type *vector) const {
    return llvm::Align(vector->getScalarSizeInBits() / 8);
  }

  llvm::Value *load(llvm::Type *type, llvm::Value *ptr, llvm::Value *mask) const {
    if (!mask)
      return b_.CreateAlignedLoad(type, ptr, alignOf(type));
    return b_.CreateMaskedLoad(type, ptr, alignOf(type), mask, llvm::Constant::getNullValue(type));
  }

  void store(llvm::Value *value, llvm::Value *ptr, llvm::Value *mask) const {
    if (!mask)
      b_.CreateAlignedStore(value, ptr, alignOf(value->getType()));
    else
      b_.CreateMaskedStore(value, ptr, alignOf(value->getType()), mask);
  }

  const DotOperands &dot_;
  llvm::IRBuilderBase &b_;
  int64_t lanes_;
  /// K of the whole dot (i64): k, or every fused step's.
  llvm::Value *kTotal_;
  llvm::Type *aType_, *cType_;
  llvm::FixedVectorType *vectorType_, *inputVectorType_;
  bool isFloat_;
  llvm::Value *aRowStride_, *bRowStride_;
};

} // namespace

int64_t RegisterBlockedDot::fusedKSteps(const DotOperands &dot) const {
  int64_t lanes = file_.vectorBits / bitWidth(dot.cKind);
  MicroTile tile = chooseMicroTile(file_, lanes, dot.m, dot.n);
  int64_t panelBytes = dot.k * tile.vectors * lanes * (bitWidth(dot.cKind) / 8);
  return std::max<int64_t>(1, kFusedPanelBytes / panelBytes);
}

void RegisterBlockedDot::emit(const DotOperands &dot) const {
  int64_t lanes = file_.vectorBits / bitWidth(dot.cKind);
  MicroTile tile = chooseMicroTile(file_, lanes, dot.m, dot.n);
  llvm::Value *kTotal = dot.kTotal();
  TileEmitter emitter(dot, lanes, kTotal);
  int64_t panelColumns = tile.vectors * lanes;
  int64_t fullPanels = dot.n / panelColumns;
  llvm::IRBuilderBase &b = dot.builder;
  llvm::Type *accElement = dotMemoryType(b.getContext(), dot.cKind);
  int64_t capacity = dot.kSteps ? dot.maxKSteps * dot.k : dot.k;
  // A panel read by more than one row tile is packed first: one scratch
  // panel, reused by every column panel; or, where the programs of a grid
  // column share B (DotOperands::bShareable), every panel of the dot once per
  // launch and thread, panel p at p * capacity * NR elements (col0 *
  // capacity), so that the other programs of the column only read them.
  llvm::Value *packed = nullptr;
  auto panelColumnsAt = [&](int64_t col0) {
    int64_t rest = std::min(panelColumns, dot.n - col0);
    int64_t vectors = (rest + lanes - 1) / lanes;
    return std::make_pair(vectors, rest - (vectors - 1) * lanes);
  };
  std::optional<SharedOperand> shared;
  if (dot.m > tile.rows && dot.bShareable) {
    int64_t panels = ceilDiv(dot.n, panelColumns);
    uint64_t elements = uint64_t(capacity * panels * panelColumns);
    llvm::Value *scratch =
        dot.allocateScratch(llvm::ArrayType::get(accElement, elements), "dot.b_panels");
    PackedLayout layout{"fma-panels", dot.bKind, {dot.k, dot.n, panelColumns, capacity}};
    uint64_t bytes = elements * (accElement->getPrimitiveSizeInBits() / 8);
    shared = acquireSharedB(dot, scratch, bytes, kTotal, layout);
    // Packing prefetches the next K step's rows of A; a program that finds
    // B packed still wants them.
    emitLoopTo(b, kTotal, 1, [&](llvm::Value *kk) { prefetchNextRowsOfA(dot, kk, dot.k); });
  } else if (dot.m > tile.rows) {
    packed = dot.allocateScratch(
        llvm::ArrayType::get(accElement, uint64_t(capacity * panelColumns)), "dot.b_panel");
  }
  // Column panels outside, rows inside: a panel of B (k x NR) stays in L1
  // while every row tile of A streams past it.
  auto panel = [&](llvm::Value *col0, int64_t vectors, int64_t lastLanes) {
    TileEmitter::PanelSource source;
    if (shared) {
      // Packed just before its row tiles read it, as the unshared panel is,
      // when no program before this one packed it.
      llvm::Value *at =
          b.CreateGEP(accElement, shared->destination, b.CreateMul(col0, b.getInt64(capacity)));
      unlessAlreadyPacked(b, *shared, [&] { emitter.packPanel(at, col0, vectors, lastLanes); });
      source = {at, vectors * lanes};
    } else if (packed)
      source = emitter.packPanel(packed, col0, vectors, lastLanes);
    emitConstantLoop(b, 0, dot.m / tile.rows * tile.rows, tile.rows, [&](llvm::Value *row0) {
      emitter.emit(row0, col0, tile.rows, vectors, lastLanes, source);
    });
    if (int64_t rest = dot.m % tile.rows)
      emitter.emit(b.getInt64(dot.m - rest), col0, rest, vectors, lastLanes, source);
  };
  emitConstantLoop(b, 0, fullPanels * panelColumns, panelColumns,
                   [&](llvm::Value *col0) { panel(col0, tile.vectors, lanes); });
  if (fullPanels * panelColumns < dot.n) {
    auto [vectors, lastLanes] = panelColumnsAt(fullPanels * panelColumns);
    panel(b.getInt64(fullPanels * panelColumns), vectors, lastLanes);
  }
}

} // namespace blockc
