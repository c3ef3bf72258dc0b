//===- SimplifyMasks.cpp - Drop masks that are true in every lane ---------===//
//
// An interval analysis over integer values: constants, aranges, program ids,
// loop induction variables with constant bounds, and +, -, * of those. A
// comparison whose operand intervals decide it for every lane becomes a
// constant; a load or store mask that is a true constant is dropped, which lets
// code generation emit plain vector loads and stores.
//
//===----------------------------------------------------------------------===//
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/Passes.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace blockc {

namespace {

struct Range {
  int64_t lo, hi;
};

class RangeAnalysis {
public:
  std::optional<Range> of(const Value *v) const {
    auto it = ranges_.find(v);
    if (it == ranges_.end())
      return std::nullopt;
    return it->second;
  }

  void visit(Region &region) {
    for (auto &opPtr : region.ops) {
      Operation &op = *opPtr;
      if (op.kind() == OpKind::For)
        visitFor(op);
      else
        for (auto &inner : op.regions)
          visit(*inner);
      if (op.results.size() == 1)
        if (std::optional<Range> r = compute(op))
          ranges_[op.result()] = *r;
    }
  }

private:
  void visitFor(Operation &op) {
    std::optional<Range> lo = of(op.operands[0]), hi = of(op.operands[1]),
                         step = of(op.operands[2]);
    // The induction variable takes lo, lo + step, ... up to the last value
    // below hi: with constexpr bounds that last value is a multiple of the
    // step, which is what proves `offs_k < K - k` for every lane.
    if (lo && hi && step && lo->lo == lo->hi && hi->lo == hi->hi && step->lo == step->hi &&
        step->lo > 0 && hi->hi > lo->lo) {
      int64_t last = lo->lo + (hi->hi - 1 - lo->lo) / step->lo * step->lo;
      ranges_[op.regions[0]->args[0].get()] = {lo->lo, last};
    }
    visit(*op.regions[0]);
  }

  std::optional<Range> compute(const Operation &op) const {
    auto get = [&](int i) { return of(op.operands[i]); };
    // Arithmetic wraps at the result type's width: a range that leaves the
    // type says nothing about the wrapped values, so it is dropped.
    unsigned bits = op.results.empty() ? 64 : bitWidth(op.result()->type().kind());
    __int128 typeMin = bits >= 64 ? INT64_MIN : -(__int128(1) << (bits - 1));
    __int128 typeMax = bits >= 64 ? INT64_MAX : (__int128(1) << (bits - 1)) - 1;
    auto checked = [&](__int128 lo, __int128 hi) -> std::optional<Range> {
      if (lo < typeMin || hi > typeMax)
        return std::nullopt;
      return Range{int64_t(lo), int64_t(hi)};
    };
    switch (op.kind()) {
    case OpKind::Const:
      if (op.constant.isFloat || !op.targetType.isInteger())
        return std::nullopt;
      return Range{op.constant.intValue, op.constant.intValue};
    case OpKind::Arange:
      return Range{op.ints[0], op.ints[1] - 1};
    case OpKind::ProgramId:
      return Range{0, INT32_MAX - 1};
    case OpKind::NumPrograms:
      return Range{1, INT32_MAX};
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::Trans:
      return get(0);
    case OpKind::Add: {
      auto a = get(0), b = get(1);
      if (!a || !b)
        return std::nullopt;
      return checked(__int128(a->lo) + b->lo, __int128(a->hi) + b->hi);
    }
    case OpKind::Sub: {
      auto a = get(0), b = get(1);
      if (!a || !b)
        return std::nullopt;
      return checked(__int128(a->lo) - b->hi, __int128(a->hi) - b->lo);
    }
    case OpKind::Mul: {
      auto a = get(0), b = get(1);
      if (!a || !b)
        return std::nullopt;
      __int128 c[] = {__int128(a->lo) * b->lo, __int128(a->lo) * b->hi, __int128(a->hi) * b->lo,
                      __int128(a->hi) * b->hi};
      return checked(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
    }
    default:
      return std::nullopt;
    }
  }

  std::unordered_map<const Value *, Range> ranges_;
};

/// The value of `cmp pred a, b` when the ranges decide it for every lane.
std::optional<bool> decide(CmpPredicate pred, Range a, Range b) {
  switch (pred) {
  case CmpPredicate::LT:
    if (a.hi < b.lo)
      return true;
    if (a.lo >= b.hi)
      return false;
    break;
  case CmpPredicate::LE:
    if (a.hi <= b.lo)
      return true;
    if (a.lo > b.hi)
      return false;
    break;
  case CmpPredicate::GT:
    return decide(CmpPredicate::LT, b, a);
  case CmpPredicate::GE:
    return decide(CmpPredicate::LE, b, a);
  case CmpPredicate::ULT:
  case CmpPredicate::ULE:
  case CmpPredicate::UGT:
  case CmpPredicate::UGE:
    // Unsigned and signed order agree where both sides are non-negative.
    if (a.lo < 0 || b.lo < 0)
      return std::nullopt;
    return decide(
        CmpPredicate(unsigned(pred) - unsigned(CmpPredicate::ULT) + unsigned(CmpPredicate::LT)), a,
        b);
  default:
    break;
  }
  return std::nullopt;
}

bool isTrueConstant(const Value *v) {
  const Operation *def = v->definingOp();
  return def && def->kind() == OpKind::Const && !def->constant.isFloat &&
         def->targetType.isBool() && def->constant.intValue == 1;
}

bool rewrite(Region &region, Region &root, const RangeAnalysis &ranges) {
  bool changed = false;
  for (auto &opPtr : region.ops) {
    Operation &op = *opPtr;
    for (auto &inner : op.regions)
      changed |= rewrite(*inner, root, ranges);
    if (op.kind() == OpKind::Cmp) {
      auto a = ranges.of(op.operands[0]), b = ranges.of(op.operands[1]);
      if (!a || !b || !op.operands[0]->type().isInteger())
        continue;
      std::optional<bool> known = decide(op.predicate, *a, *b);
      if (!known)
        continue;
      auto constant = std::make_unique<Operation>(OpKind::Const, op.loc());
      constant->targetType = op.result()->type();
      constant->constant = ConstantValue::ofInt(*known);
      Value *result = constant->addResult(op.result()->type(), op.result()->name(), op.loc());
      replaceAllUsesWith(root, op.result(), result);
      opPtr = std::move(constant);
      changed = true;
    } else if (op.kind() == OpKind::And) {
      // and %m, %true -> %m, when the shapes agree
      for (int i = 0; i < 2; ++i)
        if (isTrueConstant(op.operands[i]) && op.operands[1 - i]->type() == op.result()->type()) {
          replaceAllUsesWith(root, op.result(), op.operands[1 - i]);
          changed = true;
          break;
        }
    } else if ((op.kind() == OpKind::Load || op.kind() == OpKind::Store) && op.hasMask &&
               isTrueConstant(op.mask())) {
      size_t maskIndex = op.kind() == OpKind::Load ? 1 : 2;
      op.operands.erase(op.operands.begin() + maskIndex);
      if (!op.operandLocs.empty())
        op.operandLocs.erase(op.operandLocs.begin() + maskIndex);
      op.hasMask = false;
      if (op.hasOther) { // `other` is never read without a mask
        op.operands.pop_back();
        if (!op.operandLocs.empty())
          op.operandLocs.pop_back();
        op.hasOther = false;
      }
      changed = true;
    }
  }
  return changed;
}

} // namespace

bool simplifyMasks(Module &module) {
  bool changed = false;
  for (auto &fn : module.functions) {
    RangeAnalysis ranges;
    ranges.visit(fn->body);
    if (rewrite(fn->body, fn->body, ranges)) {
      changed = true;
      eraseDeadOps(fn->body);
    }
  }
  return changed;
}

} // namespace blockc
