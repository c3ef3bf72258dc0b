//===- ReduceCarriedBlocks.cpp - Reduce a loop's block accumulators each trip -===//
//
// A loop over a row in blocks keeps its running maximum or sum as a block,
// combined lane by lane with each trip's block, and reduces it once after the
// loop (softmax's two first passes, layer norm's mean and variance). Carried
// in scratch, that block costs a load and a store per strip on top of the
// trip's own load. When the carried block is combined by `max`, `min` or
// `add` and only reduced by the matching reduction after the loop, each
// trip's block is reduced instead and the loop carries the reduced value:
//
//   %acc = for ... iter(%run = %init) { ...; %next = max %run, %x; yield %next }
//   %m = reduce_max %acc, axis=0
// ->
//   %init_r = reduce_max %init, axis=0
//   %m = for ... iter(%run = %init_r) { ...; %x_r = reduce_max %x, axis=0;
//                                       %next = max %run, %x_r; yield %next }
//
// The trip's reduction then runs in registers inside the trip's strip loop.
// max and min give the same value either way, NaN and all (both ignore NaN
// unless every value is NaN); integer sums are exact modulo 2^n either way; f32
// and f64 sums are reassociated, which a reduction's unspecified order allows.
// f16 and bf16 blocks are left alone: each lane-wise add rounds to the narrow
// type, and the reduced form would round at different points.
//
//===----------------------------------------------------------------------===//
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/Passes.h"

#include <algorithm>

namespace blockc {

namespace {

/// The reduction that matches an elementwise combination, if any.
std::optional<OpKind> matchingReduction(OpKind combine) {
  switch (combine) {
  case OpKind::Add:
    return OpKind::ReduceSum;
  case OpKind::Max:
    return OpKind::ReduceMax;
  case OpKind::Min:
    return OpKind::ReduceMin;
  default:
    return std::nullopt;
  }
}

bool reassociable(const Type &type, OpKind combine) {
  ScalarKind kind = type.kind();
  if (kind == ScalarKind::F16 || kind == ScalarKind::BF16 || kind == ScalarKind::F8E4M3 ||
      kind == ScalarKind::F8E5M2 || kind == ScalarKind::I1)
    return false;
  return combine != OpKind::Add || type.isInteger() || kind == ScalarKind::F32 ||
         kind == ScalarKind::F64;
}

Type reducedType(const Type &type, size_t axis) {
  Shape shape = type.shape();
  shape.erase(shape.begin() + std::ptrdiff_t(axis));
  return shape.empty() ? Type::scalar(type.kind()) : Type::block(type.kind(), shape);
}

std::unique_ptr<Operation> reduction(OpKind kind, Value *of, size_t axis, const std::string &name,
                                     SourceLoc loc) {
  // The usual init, a splat constant, reduces to that constant (a sum, only
  // of zeros).
  const Operation *def = of->definingOp();
  bool zero = def && !def->constant.isFloat ? def->constant.intValue == 0
                                            : def && def->constant.floatValue == 0.0;
  if (def && def->kind() == OpKind::Const && (kind != OpKind::ReduceSum || zero)) {
    auto constant = std::make_unique<Operation>(OpKind::Const, loc);
    constant->targetType = reducedType(of->type(), axis);
    constant->constant = def->constant;
    constant->addResult(constant->targetType, name, loc);
    return constant;
  }
  auto op = std::make_unique<Operation>(kind, loc);
  op->operands.push_back(of);
  op->ints.push_back(int64_t(axis));
  op->addResult(reducedType(of->type(), axis), name, loc);
  return op;
}

size_t indexIn(const Region &region, const Operation *op) {
  return size_t(std::find_if(region.ops.begin(), region.ops.end(),
                             [&](const auto &candidate) { return candidate.get() == op; }) -
                region.ops.begin());
}

/// The ops of `region` (nested ones included) that read `v`.
std::vector<Operation *> usersOf(Region &region, const Value *v) {
  std::vector<Operation *> users;
  walkOps(region, [&](Operation &op) {
    if (std::find(op.operands.begin(), op.operands.end(), v) != op.operands.end())
      users.push_back(&op);
  });
  return users;
}

/// Rewrites carried value `i` of `loop` (in `region`, reachable from the
/// function body `fnBody`) when it is a combined accumulator; returns whether
/// it did.
bool reduceCarried(Region &fnBody, Region &region, Operation &loop, size_t i) {
  Region &body = *loop.regions[0];
  Operation *yield = body.terminator();
  Value *arg = body.args[1 + i].get();
  Value *result = loop.results[i].get();
  if (!yield || !arg->type().isBlock())
    return false;
  Value *next = yield->operands[i];
  Operation *combine = next->definingOp();
  if (!combine || indexIn(body, combine) == body.ops.size() || combine->operands.size() != 2)
    return false;
  std::optional<OpKind> reduceKind = matchingReduction(combine->kind());
  if (!reduceKind || !reassociable(arg->type(), combine->kind()))
    return false;
  size_t runSide = combine->operands[0] == arg ? 0 : 1;
  Value *trip = combine->operands[1 - runSide];
  if (combine->operands[runSide] != arg || trip == arg || trip->type() != arg->type() ||
      countUses(body, arg) != 1 || countUses(body, next) != 1)
    return false;
  // After the loop: reductions of the same kind along one axis, and nothing else.
  std::vector<Operation *> reductions = usersOf(fnBody, result);
  if (reductions.empty())
    return false;
  int64_t axis = -1;
  for (Operation *user : reductions) {
    if (user->kind() != *reduceKind || user->operands[0] != result ||
        (axis >= 0 && user->ints[0] != axis))
      return false;
    axis = user->ints[0];
  }

  SourceLoc loc = combine->loc();
  Value *init = loop.operands[3 + i];
  size_t loopIndex = indexIn(region, &loop);
  auto initReduced = reduction(*reduceKind, init, size_t(axis), arg->name() + "_init_reduced", loc);
  loop.operands[3 + i] = initReduced->result();
  region.ops.insert(region.ops.begin() + std::ptrdiff_t(loopIndex), std::move(initReduced));

  auto tripReduced = reduction(*reduceKind, trip, size_t(axis), trip->name() + "_reduced", loc);
  combine->operands[1 - runSide] = tripReduced->result();
  body.ops.insert(body.ops.begin() + std::ptrdiff_t(indexIn(body, combine)),
                  std::move(tripReduced));

  Type reduced = reducedType(arg->type(), size_t(axis));
  arg->setType(reduced);
  next->setType(reduced);
  result->setType(reduced);
  for (Operation *user : reductions)
    replaceAllUsesWith(fnBody, user->result(), result);
  return true;
}

bool reduceCarriedIn(Region &fnBody, Region &region) {
  bool changed = false;
  for (size_t k = 0; k < region.ops.size(); ++k) {
    Operation *op = region.ops[k].get();
    for (auto &inner : op->regions)
      changed |= reduceCarriedIn(fnBody, *inner);
    if (op->kind() != OpKind::For)
      continue;
    for (size_t i = 0; i < op->results.size(); ++i)
      if (reduceCarried(fnBody, region, *op, i)) {
        changed = true;
        k = indexIn(region, op); // an op was inserted before it
      }
  }
  return changed;
}

} // namespace

bool reduceCarriedBlocks(Module &module) {
  bool changed = false;
  for (auto &fn : module.functions)
    if (reduceCarriedIn(fn->body, fn->body)) {
      eraseDeadOps(fn->body);
      changed = true;
    }
  return changed;
}

} // namespace blockc
