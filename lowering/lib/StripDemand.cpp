//===- StripDemand.cpp - What a kernel asks of its strips -----------------===//
//
// The widest element decides how many lanes a strip has; the register need of
// the fused expressions decides how many registers one strip may take (RVV's
// register groups). The need is the Sethi-Ullman number of each expression a
// strip loop evaluates: a chain of twenty ops needs two registers, a sum of
// eight loads eight.
//
//===----------------------------------------------------------------------===//
#include "StripDemand.h"

#include "CodeGen.h"

#include <algorithm>
#include <unordered_map>

namespace blockc {

namespace {

unsigned stripBits(const Type &type) {
  if (type.isPointer() || type.isBool())
    return 0; // addresses and masks follow the data they belong to
  ScalarKind kind = type.kind();
  return kind == ScalarKind::F16 || kind == ScalarKind::BF16 ? 32 : bitWidth(kind);
}

class DemandWalk {
public:
  explicit DemandWalk(const FusionPlan &plan) : plan_(plan) {}

  void visit(const Region &region) {
    for (const auto &op : region.ops) {
      bool math = sleefFunction(op->kind()) || op->kind() == OpKind::Sigmoid;
      if (math && !op->results.empty() && op->result()->type().isBlock())
        demand.callsMath = true;
      for (const auto &r : op->results)
        if (r->type().isBlock())
          demand.widestElementBits = std::max(demand.widestElementBits, stripBits(r->type()));
      for (const Value *operand : op->operands)
        if (operand->type().isBlock())
          demand.liveStrips = std::max(demand.liveStrips, registersFor(operand));
      for (const auto &inner : op->regions)
        visit(*inner);
    }
  }

  StripDemand demand{0, 1, false};

private:
  /// Registers evaluating `v` in one strip needs: 1 for a value read from
  /// memory or computed elsewhere, the Sethi-Ullman number of its operands'
  /// needs for a fused op.
  unsigned registersFor(const Value *v) {
    if (!v->type().isBlock() || plan_.isMaterialized(v) || !v->definingOp())
      return 1;
    if (auto it = need_.find(v); it != need_.end())
      return it->second;
    std::vector<unsigned> needs;
    for (const Value *operand : v->definingOp()->operands)
      needs.push_back(registersFor(operand));
    std::sort(needs.rbegin(), needs.rend());
    unsigned registers = 1;
    for (size_t i = 0; i < needs.size(); ++i)
      registers = std::max(registers, needs[i] + unsigned(i));
    return need_[v] = registers;
  }

  const FusionPlan &plan_;
  std::unordered_map<const Value *, unsigned> need_;
};

} // namespace

StripDemand measureStripDemand(const Function &fn, const FusionPlan &plan) {
  DemandWalk walk(plan);
  walk.visit(fn.body);
  if (walk.demand.widestElementBits == 0)
    walk.demand.widestElementBits = 32; // only masks and pointers: size as i32
  return walk.demand;
}

} // namespace blockc
