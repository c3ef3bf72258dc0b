//===- CodeGenKLoops.cpp - K loops fused into one dot ---------------------===//
//
// A matmul's K loop loads a tile of A and one of B per trip, adds their dot
// to a carried accumulator and steps both tiles' pointers by BLOCK_K. Emitted
// trip by trip, every micro-kernel loads and stores its block of C, and the
// dot packs B, once per BLOCK_K: on AMX the C tile traffic alone is a quarter
// of the products' time. A strategy that sums several K steps in one call
// (DotStrategy::fusedKSteps) keeps C in registers, and packs B, across them.
//
// The trips whose tiles are whole run first, as dots of up to that many K
// steps; a trip is whole when every lane of its loads' masks is on, the
// tiles' columns are contiguous and each pointer steps by exactly one tile.
// What is left, typically a partial last K tile, runs as the loop it is.
//
// Which trips are whole is decided from two of them. The masks are index
// masks whose offsets are affine in the induction variable, so each lane is
// on over an interval of trips and every lane over the intersection of those
// intervals: whole at the first and the last trip means whole at every trip
// between, provided no offset wraps on the way, which is checked at both
// ends (the offsets are affine in the trip, so they fit between if they fit
// at both ends). Else the last trip alone is left out, which covers a K that
// is not a multiple of BLOCK_K.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "KernelStripLoops.h"
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/DotCascade.h"

#include <algorithm>

namespace blockc {

namespace {

/// Whether `v` depends on any of `args`, through the ops that define it.
class Dependence {
public:
  explicit Dependence(std::unordered_set<const Value *> args) : args_(std::move(args)) {}

  bool operator()(const Value *v) {
    if (args_.count(v))
      return true;
    auto known = memo_.find(v);
    if (known != memo_.end())
      return known->second;
    bool depends = false;
    if (const Operation *def = v->definingOp())
      for (const Value *operand : def->operands)
        if ((depends = (*this)(operand)))
          break;
    memo_[v] = depends;
    return depends;
  }

private:
  std::unordered_set<const Value *> args_;
  std::unordered_map<const Value *, bool> memo_;
};

bool isNarrowInteger(const Type &type) {
  return type.isInteger() && bitWidth(type.kind()) <= 32;
}

/// Whether every lane of integer `v` is an affine function of the induction
/// variable, which `onInduction` tells `v` depends on; the add, sub and mul
/// on the way are appended to `arithmetic`.
bool affineInInduction(const Value *v, const Value *induction, Dependence &onInduction,
                       std::vector<const Value *> &arithmetic) {
  if (!onInduction(v) || v == induction)
    return true;
  const Operation *op = v->definingOp();
  if (!op || !isNarrowInteger(v->type()))
    return false;
  auto affine = [&](const Value *x) {
    return affineInInduction(x, induction, onInduction, arithmetic);
  };
  switch (op->kind()) {
  case OpKind::Add:
  case OpKind::Sub:
    arithmetic.push_back(v);
    return affine(op->operands[0]) && affine(op->operands[1]);
  case OpKind::Mul: {
    arithmetic.push_back(v);
    const Value *left = op->operands[0], *right = op->operands[1];
    return (!onInduction(left) && affine(right)) || (!onInduction(right) && affine(left));
  }
  case OpKind::Splat:
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Reshape:
    return affine(op->operands[0]);
  case OpKind::Cast: {
    // Sign extension keeps an affine value affine; truncation does not.
    const Type &from = op->operands[0]->type();
    return isNarrowInteger(from) && bitWidth(from.kind()) <= bitWidth(v->type().kind()) &&
           affine(op->operands[0]);
  }
  default:
    return false;
  }
}

/// Whether index mask `mask` is a conjunction of signed compares whose sides
/// are affine in the induction variable (or does not depend on it).
bool affineMask(const Value *mask, const Value *induction, Dependence &onInduction,
                std::vector<const Value *> &arithmetic) {
  if (!onInduction(mask))
    return true;
  const Operation *op = mask->definingOp();
  if (!op)
    return false;
  switch (op->kind()) {
  case OpKind::And:
    return affineMask(op->operands[0], induction, onInduction, arithmetic) &&
           affineMask(op->operands[1], induction, onInduction, arithmetic);
  case OpKind::Splat:
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Reshape:
    return affineMask(op->operands[0], induction, onInduction, arithmetic);
  case OpKind::Cmp:
    switch (op->predicate) {
    case CmpPredicate::LT:
    case CmpPredicate::LE:
    case CmpPredicate::GT:
    case CmpPredicate::GE:
      return affineInInduction(op->operands[0], induction, onInduction, arithmetic) &&
             affineInInduction(op->operands[1], induction, onInduction, arithmetic);
    default:
      return false;
    }
  default:
    return false;
  }
}

bool definedIn(const Region &region, const Operation *op) {
  return std::any_of(region.ops.begin(), region.ops.end(),
                     [&](const auto &candidate) { return candidate.get() == op; });
}

} // namespace

std::optional<KernelCodeGen::FusibleKLoop>
KernelCodeGen::matchFusibleKLoop(const Operation &forOp) {
  const Region &body = *forOp.regions[0];
  const Operation *yield = body.terminator();
  size_t carried = forOp.operands.size() - 3;
  if (bounds_ || !yield || yield->operands.size() != carried)
    return std::nullopt;
  std::unordered_set<const Value *> allArgs, carriedArgs;
  for (const auto &arg : body.args)
    allArgs.insert(arg.get());
  carriedArgs = allArgs;
  carriedArgs.erase(body.args[0].get());
  Dependence onBody(allArgs), onCarried(carriedArgs);

  FusibleKLoop loop;
  loop.steps.assign(carried, nullptr);
  for (size_t i = 0; i < carried; ++i) {
    const Value *arg = body.args[1 + i].get(), *next = yield->operands[i];
    const Operation *def = next->definingOp();
    if (!loop.dot && arg->type().isBlock() && accumulatingDot(body, i)) {
      loop.dot = def;
      loop.accumulator = i;
      continue;
    }
    if (arg->type().isScalar() && arg->type().isPointer() && def && def->kind() == OpKind::AddPtr &&
        def->operands[0] == arg && def->operands[1]->type().isScalar() &&
        !onBody(def->operands[1])) {
      loop.steps[i] = def->operands[1];
      continue;
    }
    return std::nullopt;
  }
  if (!loop.dot)
    return std::nullopt;

  Dependence onInduction({body.args[0].get()});
  for (unsigned i = 0; i < 2; ++i) {
    const Value *tile = loop.dot->operands[i];
    const Operation *load = tile->definingOp();
    if (!load || load->kind() != OpKind::Load || load->isVolatile || tile->type().rank() != 2 ||
        !definedIn(body, load) || usesIn(body, tile) != 1 || plan_.isMaterialized(tile))
      return std::nullopt;
    // first + offsets, first a stepped pointer, the offsets the same each trip.
    const Operation *pointers = load->operands[0]->definingOp();
    if (!pointers || pointers->kind() != OpKind::AddPtr || onBody(pointers->operands[1]))
      return std::nullopt;
    auto base = std::find_if(body.args.begin() + 1, body.args.end(),
                             [&](const auto &arg) { return arg.get() == pointers->operands[0]; });
    if (base == body.args.end() || !loop.steps[size_t(base - body.args.begin()) - 1])
      return std::nullopt;
    if (load->hasMask &&
        (onCarried(load->operands[1]) ||
         !affineMask(load->operands[1], body.args[0].get(), onInduction, loop.inductionArithmetic)))
      return std::nullopt;
    loop.loads[i] = load;
  }
  // Nothing else may happen in a trip: a fused run evaluates only the masks.
  for (const auto &op : body.ops) {
    const Operation *o = op.get();
    if (o == yield || o == loop.dot || o == loop.loads[0] || o == loop.loads[1])
      continue;
    if (!o->regions.empty() || hasSideEffects(*o) || o->opClass() == OpClass::Load ||
        o->opClass() == OpClass::Dot || o->opClass() == OpClass::Reduce ||
        o->opClass() == OpClass::Combining || plan_.anchoredAt(*o) || plan_.deferredBy(*o))
      return std::nullopt;
    for (const auto &result : o->results)
      if (result->type().isBlock() && plan_.isMaterialized(result.get()))
        return std::nullopt;
  }
  return loop;
}

llvm::Value *KernelCodeGen::bindTrip(const Operation &forOp, const FusibleKLoop &loop,
                                     llvm::Value *lo, llvm::Value *step, llvm::Value *trip) {
  const Region &body = *forOp.regions[0];
  memo_.clear();
  llvm::Type *ivType = lo->getType();
  scalars_[body.args[0].get()] = b_.CreateAdd(lo, b_.CreateMul(b_.CreateTrunc(trip, ivType), step));
  Dependence onInduction({body.args[0].get()});
  std::unordered_set<const Value *> carriedArgs;
  for (size_t i = 1; i < body.args.size(); ++i)
    carriedArgs.insert(body.args[i].get());
  Dependence onCarried(carriedArgs);
  for (const auto &op : body.ops) {
    if (op->kind() == OpKind::Yield || op->results.size() != 1)
      continue;
    const Value *result = op->results[0].get();
    if (result->type().isScalar() && onInduction(result) && !onCarried(result))
      scalars_[result] = evalDef(*op, result, {}, false);
  }
  for (size_t i = 0; i < loop.steps.size(); ++i)
    if (const Value *stepOf = loop.steps[i]) {
      llvm::Value *elements =
          b_.CreateMul(trip, b_.CreateSExt(scalars_.at(stepOf), b_.getInt64Ty()));
      scalars_[body.args[1 + i].get()] =
          b_.CreateGEP(memoryType(Type::scalar(body.args[1 + i]->type().kind())),
                       eval(forOp.operands[3 + i], {}, false), elements);
    }
  // Each add, sub and mul between the induction variable and the masks, at
  // the origin lane, computed again in 64 bits.
  llvm::Value *exact = b_.getTrue();
  for (const Value *v : loop.inductionArithmetic) {
    const Operation &op = *v->definingOp();
    Coords origin(v->type().rank(), i64(0));
    auto wide = [&](llvm::Value *x) { return b_.CreateSExt(x, b_.getInt64Ty()); };
    llvm::Value *left = wide(evalOperand(op, 0, origin, false));
    llvm::Value *right = wide(evalOperand(op, 1, origin, false));
    llvm::Value *exactValue = op.kind() == OpKind::Add   ? b_.CreateAdd(left, right)
                              : op.kind() == OpKind::Sub ? b_.CreateSub(left, right)
                                                         : b_.CreateMul(left, right);
    exact = b_.CreateAnd(exact, b_.CreateICmpEQ(wide(eval(v, origin, false)), exactValue));
  }
  return exact;
}

llvm::Value *KernelCodeGen::emitFusedKTrips(const Operation &forOp, const FusibleKLoop &loop,
                                            const Carried &carried, llvm::Value *lo,
                                            llvm::Value *step, llvm::Value *trips) {
  const Region &body = *forOp.regions[0];
  const Operation &dot = *loop.dot;
  KernelStripLoops strips(*this);
  DotOperands operands = dotOperandsOf(
      dot, carried.buffers[loop.accumulator],
      [&](llvm::Type *type, const std::string &name) { return scratch_->allocate(type, name); },
      &strips);
  const DotStrategy &strategy = *selectDotStrategy(&operands, isa_, options_.dotStrategy);
  int64_t maxSteps = strategy.fusedKSteps(operands);
  DotStrategy::InPlaceReads reads = strategy.inPlaceReads();
  if (maxSteps <= 1 || !reads.a || !reads.b)
    return nullptr;
  coreRequirements_ |= strategy.coreRequirements();

  // The body's loop-invariant scalars (the pointers' steps among them), once.
  std::unordered_set<const Value *> args;
  for (const auto &arg : body.args)
    args.insert(arg.get());
  Dependence onBody(args);
  for (const auto &op : body.ops)
    if (op->kind() != OpKind::Yield && op->results.size() == 1 &&
        op->results[0]->type().isScalar() && !onBody(op->results[0].get()))
      scalars_[op->results[0].get()] = evalDef(*op, op->results[0].get(), {}, false);

  const Value *tiles[2] = {dot.operands[0], dot.operands[1]};
  auto wholeAt = [&](llvm::Value *trip) {
    llvm::Value *whole = bindTrip(forOp, loop, lo, step, trip);
    std::optional<InPlaceOperand> a = inPlaceOperand(tiles[0]);
    std::optional<InPlaceOperand> b = a ? inPlaceOperand(tiles[1]) : std::nullopt;
    if (!b)
      return static_cast<llvm::Value *>(b_.getFalse());
    // Step s of the fused dot reads columns s*k.. of A's rows, rows s*k.. of B.
    auto stepOfTile = [&](const Operation *load) {
      const Value *base = load->operands[0]->definingOp()->operands[0];
      size_t index = size_t(std::find_if(body.args.begin(), body.args.end(),
                                         [&](const auto &arg) { return arg.get() == base; }) -
                            body.args.begin()) -
                     1;
      return b_.CreateSExt(scalars_.at(loop.steps[index]), b_.getInt64Ty());
    };
    llvm::Value *k = i64(operands.k);
    whole = b_.CreateAnd(whole, b_.CreateAnd(a->usable, b->usable));
    whole = b_.CreateAnd(whole, b_.CreateICmpEQ(stepOfTile(loop.loads[0]), k));
    return b_.CreateAnd(whole,
                        b_.CreateICmpEQ(stepOfTile(loop.loads[1]), b_.CreateMul(k, b->rowStride)));
  };

  // fused = whole(0) && whole(trips-1) ? trips
  //       : whole(0) && trips >= 2 && whole(trips-2) ? trips - 1 : 0
  auto block = [&](const char *name) { return llvm::BasicBlock::Create(ctx_, name, fn_); };
  llvm::BasicBlock *checkFirst = block("kloop.first"), *checkLast = block("kloop.last"),
                   *checkBeforeLast = block("kloop.before_last"), *decided = block("kloop.decided");
  std::vector<std::pair<llvm::Value *, llvm::BasicBlock *>> outcomes;
  outcomes.emplace_back(i64(0), b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpUGE(trips, i64(1)), checkFirst, decided);

  b_.SetInsertPoint(checkFirst);
  llvm::Value *firstWhole = wholeAt(i64(0));
  outcomes.emplace_back(i64(0), b_.GetInsertBlock());
  b_.CreateCondBr(firstWhole, checkLast, decided);

  b_.SetInsertPoint(checkLast);
  llvm::Value *lastWhole = wholeAt(b_.CreateSub(trips, i64(1)));
  llvm::BasicBlock *lastEnd = b_.GetInsertBlock();
  outcomes.emplace_back(trips, lastEnd);
  llvm::BasicBlock *beforeLastTrip = block("kloop.before_last_trip");
  b_.CreateCondBr(lastWhole, decided, beforeLastTrip);
  b_.SetInsertPoint(beforeLastTrip);
  outcomes.emplace_back(i64(0), beforeLastTrip);
  b_.CreateCondBr(b_.CreateICmpUGE(trips, i64(2)), checkBeforeLast, decided);

  b_.SetInsertPoint(checkBeforeLast);
  llvm::Value *beforeLastWhole = wholeAt(b_.CreateSub(trips, i64(2)));
  outcomes.emplace_back(b_.CreateSelect(beforeLastWhole, b_.CreateSub(trips, i64(1)), i64(0)),
                        b_.GetInsertBlock());
  b_.CreateBr(decided);

  b_.SetInsertPoint(decided);
  llvm::PHINode *fused = b_.CreatePHI(b_.getInt64Ty(), unsigned(outcomes.size()), "kloop.fused");
  for (auto [value, from] : outcomes)
    fused->addIncoming(value, from);

  // Runs of up to maxSteps whole trips, each one dot.
  llvm::BasicBlock *header = block("kloop.header"), *run = block("kloop.run"),
                   *exit = block("kloop.exit");
  llvm::BasicBlock *entry = b_.GetInsertBlock();
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode *first = b_.CreatePHI(b_.getInt64Ty(), 2, "kloop.first_trip");
  first->addIncoming(i64(0), entry);
  b_.CreateCondBr(b_.CreateICmpULT(first, fused), run, exit);

  b_.SetInsertPoint(run);
  llvm::Value *count =
      b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b_.CreateSub(fused, first), i64(maxSteps));
  bindTrip(forOp, loop, lo, step, first);
  std::optional<InPlaceOperand> a = inPlaceOperand(tiles[0]);
  std::optional<InPlaceOperand> b = inPlaceOperand(tiles[1]);
  if (a && b) {
    operands.a = a->first;
    operands.aRowStride = a->rowStride;
    operands.b = b->first;
    operands.bRowStride = b->rowStride;
    operands.kSteps = count;
    if (!memoryMayBeWritten_)
      operands.bShareable = b_.getTrue();
    operands.maxKSteps = maxSteps;
    strategy.emit(operands);
  }
  first->addIncoming(b_.CreateAdd(first, count), b_.GetInsertBlock());
  b_.CreateBr(header);

  b_.SetInsertPoint(exit);
  memo_.clear();
  return fused;
}

} // namespace blockc
