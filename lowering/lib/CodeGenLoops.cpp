//===- CodeGenLoops.cpp - for and while loops and their carried values ---===//
//
// Scalars a loop carries are phis; blocks live in buffers that the body's
// yield rewrites in place where it safely can (a dot accumulating into its
// carried accumulator, a value computed lane by lane from its own buffer).
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

#include <algorithm>

namespace blockc {

unsigned usesIn(const Region &region, const Value *v) {
  unsigned uses = 0;
  for (const auto &op : region.ops) {
    uses += unsigned(std::count(op->operands.begin(), op->operands.end(), v));
    for (const auto &nested : op->regions)
      uses += usesIn(*nested, v);
  }
  return uses;
}

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

KernelCodeGen::Carried KernelCodeGen::carryInBuffers(const Operation &op, size_t firstInit,
                                                     const Region &body, size_t firstArg) {
  Carried carried;
  carried.firstInit = firstInit;
  carried.firstArg = firstArg;
  size_t count = op.operands.size() - firstInit;
  carried.buffers.assign(count, nullptr);
  carried.phis.assign(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    const Value *init = op.operands[firstInit + i];
    if (init->type().isBlock()) {
      carried.buffers[i] = allocaBuffer(init->type(), body.args[firstArg + i]->name());
      writeInto(init, carried.buffers[i]);
    }
  }
  return carried;
}

void KernelCodeGen::carryInPhis(Carried &carried, const Operation &op, const Region &body,
                                llvm::BasicBlock *pre, llvm::ArrayRef<llvm::Value *> starts) {
  for (size_t i = 0; i < carried.phis.size(); ++i) {
    const Value *init = op.operands[carried.firstInit + i];
    if (init->type().isBlock())
      continue;
    carried.phis[i] =
        b_.CreatePHI(elementType(init->type()), 2, body.args[carried.firstArg + i]->name());
    llvm::Value *start = i < starts.size() && starts[i] ? starts[i] : eval(init, {}, false);
    carried.phis[i]->addIncoming(start, pre);
  }
}

void KernelCodeGen::bindCarried(const Carried &carried, llvm::ArrayRef<const Value *> values) {
  for (size_t i = 0; i < carried.phis.size(); ++i) {
    if (carried.phis[i])
      scalars_[values[i]] = carried.phis[i];
    else
      buffers_[values[i]] = carried.buffers[i];
  }
}

namespace {

llvm::SmallVector<const Value *, 8> argsFrom(const Region &body, size_t first) {
  llvm::SmallVector<const Value *, 8> args;
  for (size_t i = first; i < body.args.size(); ++i)
    args.push_back(body.args[i].get());
  return args;
}

llvm::SmallVector<const Value *, 8> resultsOf(const Operation &op) {
  llvm::SmallVector<const Value *, 8> results;
  for (const auto &r : op.results)
    results.push_back(r.get());
  return results;
}

} // namespace

void KernelCodeGen::emitFor(const Operation &op) {
  const Region &body = *op.regions[0];
  llvm::Value *lo = eval(op.operands[0], {}, false);
  llvm::Value *hi = eval(op.operands[1], {}, false);
  llvm::Value *step = eval(op.operands[2], {}, false);
  // Block values are carried in buffers; scalars in phis.
  Carried carried = carryInBuffers(op, 3, body, 1);
  for (size_t i = 0; i < carried.buffers.size(); ++i)
    if (carried.buffers[i])
      if (const Value *dot = accumulatingDot(body, i))
        accumulatorBuffers_[dot] = carried.buffers[i];
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
  // A matmul's K loop runs its whole-tile trips as fused dots first; the
  // loop below then starts where they stopped.
  llvm::Value *firstTrip = nullptr;
  std::vector<llvm::Value *> starts;
  std::optional<FusibleKLoop> fusible = matchFusibleKLoop(op);
  if (fusible)
    firstTrip = emitFusedKTrips(op, *fusible, carried, lo, step, trips);
  if (firstTrip) {
    for (size_t i = 0; i < fusible->steps.size(); ++i) {
      const Value *stepOf = fusible->steps[i];
      if (!stepOf) {
        starts.push_back(nullptr);
        continue;
      }
      llvm::Value *elements =
          b_.CreateMul(firstTrip, b_.CreateSExt(scalars_.at(stepOf), b_.getInt64Ty()));
      starts.push_back(b_.CreateGEP(memoryType(Type::scalar(body.args[1 + i]->type().kind())),
                                    eval(op.operands[3 + i], {}, false), elements));
    }
    lo = b_.CreateAdd(lo, b_.CreateMul(b_.CreateTrunc(firstTrip, ivType), step));
  }
  llvm::BasicBlock *pre = b_.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(ctx_, "for.header", fn_);
  auto *loopBody = llvm::BasicBlock::Create(ctx_, "for.body", fn_);
  auto *exit = llvm::BasicBlock::Create(ctx_, "for.exit", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode *trip = b_.CreatePHI(b_.getInt64Ty(), 2, "trip");
  trip->addIncoming(firstTrip ? firstTrip : i64(0), pre);
  llvm::PHINode *iv = b_.CreatePHI(ivType, 2, body.args[0]->name());
  iv->addIncoming(lo, pre);
  carryInPhis(carried, op, body, pre, starts);
  b_.CreateCondBr(b_.CreateICmpULT(trip, trips), loopBody, exit);

  b_.SetInsertPoint(loopBody);
  scalars_[body.args[0].get()] = iv;
  bindCarried(carried, argsFrom(body, 1));
  // Pointers the loop steps by a scalar: dots reading in place prefetch the
  // next trip's tiles.
  std::vector<const Value *> advanced;
  if (const Operation *yield = body.terminator())
    for (size_t i = 0; i + 1 < body.args.size() && i < yield->operands.size(); ++i) {
      const Value *arg = body.args[i + 1].get(), *next = yield->operands[i];
      const Operation *def = next->definingOp();
      if (arg->type().isScalar() && arg->type().isPointer() && def &&
          def->kind() == OpKind::AddPtr && def->operands[0] == arg &&
          def->operands[1]->type().isScalar()) {
        loopAdvances_[arg] = def->operands[1];
        advanced.push_back(arg);
      }
    }
  emitRegion(body);
  for (const Value *arg : advanced)
    loopAdvances_.erase(arg);
  if (const Operation *yield = body.terminator())
    writeCarried(body, yield, 0, carried);
  // The last trip's increment may wrap; its value is never used.
  iv->addIncoming(b_.CreateAdd(iv, step), b_.GetInsertBlock());
  trip->addIncoming(b_.CreateAdd(trip, i64(1)), b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
  bindCarried(carried, resultsOf(op));
}

void KernelCodeGen::writeCarried(const Region &body, const Operation *yield, size_t firstYielded,
                                 const Carried &values) {
  const std::vector<llvm::Value *> &carriedBuffers = values.buffers;
  const std::vector<llvm::PHINode *> &phis = values.phis;
  size_t firstArg = values.firstArg;
  size_t carried = carriedBuffers.size();
  auto yielded = [&](size_t i) { return yield->operands[firstYielded + i]; };
  // A yielded value may read any carried value, so no carried buffer may
  // change while another yield still reads it. A virtual value that only
  // its own carried buffer feeds (max_next = max(max_run, x)) is computed
  // in place, strip by strip: its lanes read exactly the lanes they replace.
  // Everything else is staged in a temporary first.
  auto readByOthers = [&](size_t i) {
    for (size_t j = 0; j < carried; ++j)
      if (j != i && readsValue(yielded(j), body.args[firstArg + i].get()))
        return true;
    return false;
  };
  std::vector<llvm::Value *> staged(carried, nullptr);
  std::vector<size_t> inPlace;
  for (size_t i = 0; i < carried; ++i) {
    const Value *v = yielded(i);
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
    writeInto(yielded(i), carriedBuffers[i]);
  for (size_t i = 0; i < carried; ++i)
    if (staged[i])
      copyBuffer(carriedBuffers[i], staged[i], yielded(i)->type());
  for (size_t i = 0; i < carried; ++i)
    if (phis[i])
      phis[i]->addIncoming(eval(yielded(i), {}, false), b_.GetInsertBlock());
}

void KernelCodeGen::emitWhile(const Operation &op) {
  const Region &body = *op.regions[0];
  Carried carried = carryInBuffers(op, 1, body, 0);
  llvm::Value *first = eval(op.operands[0], {}, false);
  llvm::BasicBlock *pre = b_.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(ctx_, "while.header", fn_);
  auto *loopBody = llvm::BasicBlock::Create(ctx_, "while.body", fn_);
  auto *exit = llvm::BasicBlock::Create(ctx_, "while.exit", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode *cond = b_.CreatePHI(b_.getInt1Ty(), 2, "while.cond");
  cond->addIncoming(first, pre);
  carryInPhis(carried, op, body, pre);
  b_.CreateCondBr(cond, loopBody, exit);

  b_.SetInsertPoint(loopBody);
  bindCarried(carried, argsFrom(body, 0));
  emitRegion(body);
  const Operation *yield = body.terminator();
  llvm::Value *next = eval(yield->operands[0], {}, false);
  writeCarried(body, yield, 1, carried);
  cond->addIncoming(next, b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
  bindCarried(carried, resultsOf(op));
}

} // namespace blockc
