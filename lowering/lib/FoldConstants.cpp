//===- FoldConstants.cpp - Fold scalar integer constants ------------------===//
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/Passes.h"

#include <optional>

namespace blockc {

namespace {

std::optional<int64_t> constantInt(const Value *v) {
  const Operation *def = v->definingOp();
  if (!def || def->kind() != OpKind::Const || def->constant.isFloat)
    return std::nullopt;
  return def->constant.intValue;
}

/// Wraps `v` to the width of `kind`, as the generated code would.
int64_t wrap(int64_t v, ScalarKind kind) {
  unsigned bits = bitWidth(kind);
  if (bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (bits > 1 && (u >> (bits - 1)))
    u |= ~mask;
  return int64_t(u);
}

std::optional<int64_t> fold(const Operation &op, int64_t a, int64_t b, ScalarKind kind) {
  // Wrapping arithmetic in 64 bits, then truncated to the type by the caller.
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  // The operands read as unsigned numbers of the type's width.
  unsigned bits = bitWidth(kind);
  uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  uint64_t na = ua & mask, nb = ub & mask;
  switch (op.kind()) {
  case OpKind::Add:
    return int64_t(ua + ub);
  case OpKind::Sub:
    return int64_t(ua - ub);
  case OpKind::Mul:
    return int64_t(ua * ub);
  case OpKind::Div:
    if (b == 0 || (a == INT64_MIN && b == -1))
      return std::nullopt; // left to run time, which defines it
    return a / b;
  case OpKind::Rem:
    if (b == 0 || (a == INT64_MIN && b == -1))
      return std::nullopt;
    return a % b;
  case OpKind::Min:
    return std::min(a, b);
  case OpKind::Max:
    return std::max(a, b);
  case OpKind::UDiv:
    return nb == 0 ? std::nullopt : std::optional<int64_t>(int64_t(na / nb));
  case OpKind::URem:
    return nb == 0 ? std::nullopt : std::optional<int64_t>(int64_t(na % nb));
  case OpKind::UMin:
    return int64_t(std::min(na, nb));
  case OpKind::UMax:
    return int64_t(std::max(na, nb));
  case OpKind::Cmp:
    switch (op.predicate) {
    case CmpPredicate::EQ:
      return a == b;
    case CmpPredicate::NE:
      return a != b;
    case CmpPredicate::LT:
      return a < b;
    case CmpPredicate::LE:
      return a <= b;
    case CmpPredicate::GT:
      return a > b;
    case CmpPredicate::GE:
      return a >= b;
    case CmpPredicate::ULT:
      return na < nb;
    case CmpPredicate::ULE:
      return na <= nb;
    case CmpPredicate::UGT:
      return na > nb;
    case CmpPredicate::UGE:
      return na >= nb;
    }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

bool foldRegion(Region &region, Region &root) {
  bool changed = false;
  for (auto &opPtr : region.ops) {
    Operation &op = *opPtr;
    for (auto &inner : op.regions)
      changed |= foldRegion(*inner, root);
    if (op.results.size() != 1 || op.operands.size() != 2 || !op.result()->type().isScalar())
      continue;
    const Type &operandType = op.operands[0]->type();
    if (!operandType.isInteger() || operandType.isBool())
      continue;
    std::optional<int64_t> a = constantInt(op.operands[0]), b = constantInt(op.operands[1]);
    if (!a || !b)
      continue;
    std::optional<int64_t> folded = fold(op, *a, *b, operandType.kind());
    if (!folded)
      continue;
    // Rewrite in place: the op becomes a constant of its own result type.
    auto constant = std::make_unique<Operation>(OpKind::Const, op.loc());
    constant->targetType = op.result()->type();
    constant->constant = ConstantValue::ofInt(wrap(*folded, constant->targetType.kind()));
    Value *result = constant->addResult(op.result()->type(), op.result()->name(), op.loc());
    replaceAllUsesWith(root, op.result(), result);
    opPtr = std::move(constant);
    changed = true;
  }
  return changed;
}

} // namespace

bool foldConstants(Module &module) {
  bool changed = false;
  for (auto &fn : module.functions) {
    while (foldRegion(fn->body, fn->body))
      changed = true;
    changed |= eraseDeadOps(fn->body);
  }
  return changed;
}

} // namespace blockc
