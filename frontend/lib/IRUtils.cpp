//===- IRUtils.cpp --------------------------------------------------------===//
#include "blockc/frontend/IRUtils.h"

#include <unordered_set>

namespace blockc {

void walkOps(Region &region, const std::function<void(Operation &)> &fn) {
  for (auto &op : region.ops) {
    fn(*op);
    for (auto &r : op->regions)
      walkOps(*r, fn);
  }
}

void replaceAllUsesWith(Region &region, const Value *from, Value *to) {
  walkOps(region, [&](Operation &op) {
    for (Value *&v : op.operands)
      if (v == from)
        v = to;
  });
}

unsigned countUses(Region &region, const Value *value) {
  unsigned n = 0;
  walkOps(region, [&](Operation &op) {
    for (Value *v : op.operands)
      n += v == value;
  });
  return n;
}

std::unique_ptr<Operation> cloneOperation(const Operation &op, ValueMap &map,
                                          const std::string &suffix) {
  auto copy = std::make_unique<Operation>(op.kind(), op.loc());
  for (Value *v : op.operands) {
    auto it = map.find(v);
    copy->operands.push_back(it == map.end() ? v : it->second);
  }
  copy->operandLocs = op.operandLocs;
  copy->ints = op.ints;
  copy->targetType = op.targetType;
  copy->shape = op.shape;
  copy->predicate = op.predicate;
  copy->constant = op.constant;
  copy->callee = op.callee;
  copy->hasMask = op.hasMask;
  copy->hasOther = op.hasOther;
  copy->isVolatile = op.isVolatile;
  copy->text = op.text;
  copy->hex = op.hex;
  copy->order = op.order;
  for (const auto &region : op.regions) {
    Region &newRegion = copy->addRegion();
    for (const auto &arg : region->args)
      map[arg.get()] = newRegion.addArg(arg->type(), arg->name() + suffix, arg->loc());
    for (const auto &inner : region->ops)
      newRegion.ops.push_back(cloneOperation(*inner, map, suffix));
  }
  for (const auto &r : op.results)
    map[r.get()] = copy->addResult(r->type(), r->name() + suffix, r->loc());
  return copy;
}

bool hasSideEffects(const Operation &op) {
  if (op.kind() == OpKind::Store || isAtomic(op) || op.kind() == OpKind::Assert ||
      op.kind() == OpKind::Print || op.isVolatile || op.kind() == OpKind::Call ||
      op.opClass() == OpClass::Terminator)
    return true;
  for (const auto &region : op.regions)
    for (const auto &inner : region->ops)
      if (hasSideEffects(*inner))
        return true;
  return false;
}

bool writesMemory(const Operation &op) {
  if (op.kind() == OpKind::Store || isAtomic(op) || op.kind() == OpKind::Call)
    return true;
  for (const auto &region : op.regions)
    for (const auto &inner : region->ops)
      if (writesMemory(*inner))
        return true;
  return false;
}

bool isAtomic(const Operation &op) {
  return op.opClass() == OpClass::AtomicRMW || op.opClass() == OpClass::AtomicCas;
}

bool keepsPointerBuffer(OpKind kind) {
  switch (kind) {
  case OpKind::AddPtr:
  case OpKind::Splat:
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Reshape:
  case OpKind::Trans:
  case OpKind::Bitcast:
    return true;
  default:
    return false;
  }
}

bool eraseDeadOps(Region &region) {
  bool changedAny = false;
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_set<const Value *> used;
    walkOps(region, [&](Operation &op) {
      for (Value *v : op.operands)
        used.insert(v);
    });
    std::function<void(Region &)> sweep = [&](Region &r) {
      for (size_t i = r.ops.size(); i-- > 0;) {
        Operation &op = *r.ops[i];
        for (auto &inner : op.regions)
          sweep(*inner);
        if (hasSideEffects(op))
          continue;
        bool dead = true;
        for (auto &res : op.results)
          dead &= !used.count(res.get());
        if (dead) {
          r.ops.erase(r.ops.begin() + i);
          changed = true;
        }
      }
    };
    sweep(region);
    changedAny |= changed;
  }
  return changedAny;
}

} // namespace blockc
