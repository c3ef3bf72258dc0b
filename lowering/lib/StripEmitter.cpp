//===- StripEmitter.cpp - Types, masks and the loops over strips ----------===//
#include "StripEmitter.h"

#include "blockc/lowering/Loops.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#include <algorithm>

namespace blockc {

StripEmitter::StripEmitter(const Target &target, const IsaLowering &isa, llvm::Module &module,
                           const CompileOptions &options, const llvm::MCSchedModel &schedule)
    : target_(target), isa_(isa), module_(module), ctx_(module.getContext()), options_(options),
      outOfOrder_(schedule.isOutOfOrder()), b_(ctx_) {}

llvm::Type *StripEmitter::scalarType(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
    return b_.getInt1Ty();
  case ScalarKind::I8:
  case ScalarKind::F8E4M3: // bit patterns: no ISA computes in 8-bit floats
  case ScalarKind::F8E5M2:
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

llvm::Type *StripEmitter::elementType(const Type &t) {
  return t.isPointer() ? b_.getPtrTy() : scalarType(t.kind());
}

llvm::Type *StripEmitter::memoryType(const Type &t) {
  if (t.isPointer())
    return b_.getPtrTy();
  if (t.isBool())
    return b_.getInt8Ty();
  if (t.kind() == ScalarKind::F16 || t.kind() == ScalarKind::BF16)
    return b_.getInt16Ty();
  return elementType(t);
}

llvm::Value *StripEmitter::toMemory(llvm::Value *v, const Type &t) {
  llvm::Type *memTy = sameShape(v->getType(), memoryType(t));
  if (v->getType() == memTy)
    return v;
  return t.isBool() ? b_.CreateZExt(v, memTy) : b_.CreateBitCast(v, memTy);
}

llvm::Value *StripEmitter::fromMemory(llvm::Value *v, const Type &t) {
  if (t.isBool())
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  llvm::Type *regTy = sameShape(v->getType(), elementType(t));
  return v->getType() == regTy ? v : b_.CreateBitCast(v, regTy);
}

llvm::Type *StripEmitter::vectorOf(llvm::Type *element) {
  return llvm::VectorType::get(element, stripCount_);
}

llvm::Value *StripEmitter::splat(llvm::Value *scalar) {
  // Splatting the bit pattern needs no bf16 support: RVV without zvfbfmin
  // cannot build a scalable bfloat vector from a scalar.
  if (scalar->getType()->isBFloatTy())
    return b_.CreateBitCast(
        b_.CreateVectorSplat(stripCount_, b_.CreateBitCast(scalar, b_.getInt16Ty())),
        vectorOf(scalar->getType()));
  return b_.CreateVectorSplat(stripCount_, scalar);
}

llvm::Value *StripEmitter::andMasks(llvm::Value *a, llvm::Value *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return b_.CreateAnd(a, b);
}

llvm::Value *StripEmitter::allTrueMask() {
  return splat(b_.getTrue());
}

void StripEmitter::emitCountedLoop(llvm::Value *begin, llvm::Value *end, llvm::Value *step,
                                   const std::function<void(llvm::Value *)> &body) {
  emitLoop(begin, end, [&](llvm::Value *iv) {
    body(iv);
    return b_.CreateAdd(iv, step);
  });
}

void StripEmitter::emitLoop(llvm::Value *begin, llvm::Value *end,
                            const std::function<llvm::Value *(llvm::Value *)> &body) {
  // Emitted rotated, the test at the bottom behind a guard that constant
  // bounds leave out: LLVM's LoopRotate would rotate it anyway, and its cost
  // grows with the loops before this one (ScalarEvolution walks back through
  // every earlier loop's exit while proving the guard), a quarter of the
  // optimiser's time on a kernel of a thousand strip loops.
  auto *constantBegin = llvm::dyn_cast<llvm::ConstantInt>(begin);
  auto *constantEnd = llvm::dyn_cast<llvm::ConstantInt>(end);
  bool constantTrips = constantBegin && constantEnd;
  if (constantTrips && constantBegin->getSExtValue() >= constantEnd->getSExtValue())
    return;
  llvm::BasicBlock *pre = b_.GetInsertBlock();
  auto *loopBody = llvm::BasicBlock::Create(ctx_, "strip.body", fn_);
  auto *exit = llvm::BasicBlock::Create(ctx_, "strip.exit", fn_);
  if (constantTrips)
    b_.CreateBr(loopBody);
  else
    b_.CreateCondBr(b_.CreateICmpSLT(begin, end), loopBody, exit);
  b_.SetInsertPoint(loopBody);
  llvm::PHINode *iv = b_.CreatePHI(begin->getType(), 2, "i");
  iv->addIncoming(begin, pre);
  llvm::Value *next = body(iv);
  iv->addIncoming(next, b_.GetInsertBlock());
  // Unrolling a strip loop fully would make code size, and compile time, grow
  // with the block size (DESIGN.md, principle 1); a strip is already a full
  // register of work.
  setLoopUnroll(b_.CreateCondBr(b_.CreateICmpSLT(next, end), loopBody, exit), 1);
  b_.SetInsertPoint(exit);
}

void StripEmitter::forEachElement(const Shape &shape,
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

void StripEmitter::forEachStripOfRow(int64_t length,
                                     const std::function<void(llvm::Value *, bool)> &body) {
  forEachStripOfRow(length, 1,
                    [&](llvm::Value *column, bool vector, unsigned) { body(column, vector); }, {});
}

unsigned StripEmitter::waysFor(int64_t length, unsigned ways) const {
  // A row of vector-length strips takes its whole chunks `ways` strips at a
  // time (forEachStripOfRow), counted here at the least lanes a strip has.
  unsigned lanes = stripCount_.getKnownMinValue();
  if (isa_.tailPredication() == TailPredication::VectorLength)
    ways = std::min(ways, std::max(1u, kMaxRegistersInFlight / stripRegisters_));
  else if (stripCount_.isScalable() || isa_.tailPredication() != TailPredication::LaneMask)
    return 1;
  int64_t fullStrips = length / int64_t(lanes);
  return unsigned(std::clamp<int64_t>(fullStrips, 1, ways));
}

void StripEmitter::runStrips(const std::vector<StripAt> &strips, const StripBody &evaluate,
                             const StripBody &commit) {
  auto phase = [&](const StripBody &body) {
    for (const StripAt &strip : strips) {
      tailMask_ = strip.mask;
      tailEvl_ = strip.evl;
      evlCoversStrip_ = strip.whole;
      memo_.clear();
      body(strip.column, strip.vector, strip.way);
      memo_.clear();
    }
    tailMask_ = tailEvl_ = nullptr;
    evlCoversStrip_ = false;
  };
  phase(evaluate);
  if (commit)
    phase(commit);
}

void StripEmitter::forEachStripOfRow(int64_t length, unsigned ways, const StripBody &evaluate,
                                     const StripBody &commit) {
  auto run = [&](llvm::Value *column, bool vector, llvm::Value *mask, unsigned way) {
    runStrips({{column, vector, mask, nullptr, way}}, evaluate, commit);
  };
  if (length == 1)
    return run(i64(0), false, nullptr, 0);
  llvm::Value *lengthValue = i64(length);
  if (isa_.tailPredication() == TailPredication::VectorLength) {
    auto vectorLengthAt = [&](llvm::Value *column) {
      return b_.CreateIntrinsic(llvm::Intrinsic::experimental_get_vector_length, {b_.getInt64Ty()},
                                {b_.CreateSub(lengthValue, column),
                                 b_.getInt32(stripCount_.getKnownMinValue()),
                                 b_.getInt1(stripCount_.isScalable())});
    };
    if (ways <= 1) {
      // Strip-mined: each strip covers min(remaining, lanes) elements.
      emitLoop(i64(0), lengthValue, [&](llvm::Value *column) {
        llvm::Value *evl = vectorLengthAt(column);
        runStrips({{column, true, nullptr, evl, 0}}, evaluate, commit);
        return b_.CreateAdd(column, b_.CreateZExt(evl, b_.getInt64Ty()));
      });
      return;
    }
    // Whole chunks first, `ways` strips of every lane each: their chains
    // are independent, which an in-order core (the K1's X60) needs to
    // overlap them, where one strip a trip waits on its own chain. What is
    // left, less than a chunk, is `ways` strips of straight-line code, each
    // of min(remaining, lanes) elements (possibly none: a vector length of 0
    // touches nothing).
    llvm::Value *chunk = b_.CreateMul(stripLanes_, i64(ways));
    llvm::Value *chunked = b_.CreateSub(lengthValue, b_.CreateURem(lengthValue, chunk));
    llvm::Value *everyLane = b_.CreateTrunc(stripLanes_, b_.getInt32Ty());
    emitCountedLoop(i64(0), chunked, chunk, [&](llvm::Value *j) {
      std::vector<StripAt> strips;
      for (unsigned way = 0; way < ways; ++way)
        strips.push_back({way ? b_.CreateAdd(j, b_.CreateMul(stripLanes_, i64(way))) : j, true,
                          nullptr, everyLane, way, true});
      runStrips(strips, evaluate, commit);
    });
    std::vector<StripAt> tail;
    llvm::Value *column = chunked;
    for (unsigned way = 0; way < ways; ++way) {
      llvm::Value *evl = vectorLengthAt(column);
      tail.push_back({column, true, nullptr, evl, way});
      column = b_.CreateAdd(column, b_.CreateZExt(evl, b_.getInt64Ty()));
    }
    runStrips(tail, evaluate, commit);
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
    auto chunkAt = [&](llvm::Value *j) {
      std::vector<StripAt> strips;
      for (unsigned way = 0; way < ways; ++way)
        strips.push_back(
            {way ? b_.CreateAdd(j, i64(way * lanes)) : j, true, nullptr, nullptr, way});
      runStrips(strips, evaluate, commit);
    };
    if (chunked == chunk)
      chunkAt(i64(0));
    else if (chunked > 0)
      emitCountedLoop(i64(0), i64(chunked), i64(chunk), chunkAt);
    // Fewer than `ways` full strips are left: straight-line code.
    std::vector<StripAt> rest;
    unsigned way = 0;
    for (int64_t column = chunked; column < full; column += lanes)
      rest.push_back({i64(column), true, nullptr, nullptr, way++});
    if (full < length)
      rest.push_back({i64(full), true, activeLaneMask(i64(full)), nullptr, way % ways});
    runStrips(rest, evaluate, commit);
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

void StripEmitter::forEachStrip(const Shape &shape,
                                const std::function<void(const Coords &, bool)> &body) {
  forEachStrip(shape, 1, [&](const Coords &coords, bool vector, unsigned) { body(coords, vector); },
               {});
}

void StripEmitter::forEachStrip(const Shape &shape, unsigned ways, const CoordsBody &evaluate,
                                const CoordsBody &commit) {
  std::function<void(size_t, Coords &)> nest = [&](size_t dim, Coords &coords) {
    if (dim + 1 == shape.size()) {
      auto at = [&](const CoordsBody &body) -> StripBody {
        if (!body)
          return {};
        return [&](llvm::Value *column, bool vector, unsigned way) {
          coords.push_back(column);
          body(coords, vector, way);
          coords.pop_back();
        };
      };
      forEachStripOfRow(shape.back(), waysFor(shape.back(), ways), at(evaluate), at(commit));
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
