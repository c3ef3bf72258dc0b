//===- FusionPlan.cpp - The FuseElementwise pass --------------------------===//
#include "FusionPlan.h"

#include "blockc/frontend/IRUtils.h"

#include <unordered_map>

namespace blockc {

namespace {

struct Use {
  const Operation *user;
  const Region *region;
  size_t index; // position of the user's top-level op in `region`
};

/// Ops whose results must live in memory whatever their uses.
bool alwaysMaterialized(const Operation &op) {
  switch (op.opClass()) {
  case OpClass::Reduce:
  case OpClass::Dot:
  case OpClass::Trans:
  case OpClass::For:
  case OpClass::If:
  case OpClass::Call:
    return true;
  case OpClass::ShapeTo:
    return op.kind() == OpKind::Reshape;
  default:
    return false;
  }
}

/// Loads and math library calls are worth keeping rather than recomputing.
bool costly(const Operation &op) {
  return op.opClass() == OpClass::Load || op.opClass() == OpClass::FloatUnary ||
         op.opClass() == OpClass::FloatBinary;
}

class Planner {
public:
  explicit Planner(FusionPlan &plan) : plan_(plan) {}

  /// Records each use once per enclosing region, attributed in that region to
  /// the top-level op holding it; needsMemory reads the defining region's.
  void collectUses(const Region &region) {
    for (size_t i = 0; i < region.ops.size(); ++i) {
      collectUsesIn(*region.ops[i], region, i);
      for (const auto &inner : region.ops[i]->regions)
        collectUses(*inner);
    }
  }

  void plan(const Region &region) {
    for (size_t i = 0; i < region.ops.size(); ++i) {
      const Operation &op = *region.ops[i];
      for (const auto &inner : op.regions) {
        for (const auto &arg : inner->args)
          if (arg->type().isBlock())
            plan_.materialized.insert(arg.get()); // loop-carried
        plan(*inner);
      }
      for (const auto &r : op.results)
        if (r->type().isBlock() && needsMemory(op, r.get(), region, i))
          plan_.materialized.insert(r.get());
    }
  }

private:
  void collectUsesIn(const Operation &op, const Region &region, size_t index) {
    for (const Value *v : op.operands)
      uses_[v].push_back({&op, &region, index});
    for (const auto &inner : op.regions)
      for (const auto &innerOp : inner->ops)
        collectUsesIn(*innerOp, region, index); // attributed to the enclosing op
  }

  bool needsMemory(const Operation &op, const Value *v, const Region &region, size_t index) {
    if (alwaysMaterialized(op))
      return true;
    std::vector<Use> uses;
    for (const Use &u : uses_[v])
      if (u.region == &region)
        uses.push_back(u);
    // A value read inside a loop or if body is recomputed on every trip
    // through that body: fine for arithmetic, not for loads (memory may have
    // changed) or library calls.
    bool usedInNestedBody = false;
    for (const Use &u : uses)
      usedInNestedBody |= u.user != region.ops[u.index].get();
    bool loadLike = op.opClass() == OpClass::Load;
    if (costly(op) && (uses.size() > 1 || usedInNestedBody))
      return true;
    if (loadLike) {
      // A virtual load runs where its consumer runs: nothing that may write
      // memory can stand in between.
      for (const Use &u : uses)
        for (size_t k = index + 1; k < u.index; ++k)
          if (hasSideEffects(*region.ops[k]))
            return true;
      for (const Use &u : uses)
        if (u.user != region.ops[u.index].get() && hasSideEffects(*region.ops[u.index]))
          return true;
    }
    return false;
  }

  FusionPlan &plan_;
  std::unordered_map<const Value *, std::vector<Use>> uses_;
};

} // namespace

FusionPlan fuseElementwise(Function &fn) {
  FusionPlan plan;
  Planner planner(plan);
  planner.collectUses(fn.body);
  planner.plan(fn.body);
  return plan;
}

std::string describeFusionPlan(Function &fn, const FusionPlan &plan) {
  std::string out = "fusion plan of @" + fn.name + ":\n";
  walkOps(fn.body, [&](Operation &op) {
    for (auto &r : op.results)
      if (r->type().isBlock())
        out += "  %" + r->name() + " " + std::string(op.name()) + " " +
               (plan.isMaterialized(r.get()) ? "materialized" : "virtual") + "\n";
  });
  return out;
}

} // namespace blockc
