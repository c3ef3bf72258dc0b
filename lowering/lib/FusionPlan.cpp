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

/// The kernel parameter a pointer value is derived from, or null when that is
/// not known at compile time (a loop-carried or selected pointer).
const Value *rootPointer(const Value *v) {
  while (const Operation *def = v->definingOp()) {
    if (!keepsPointerBuffer(def->kind()))
      return nullptr;
    v = def->operands[0];
  }
  return v->type().isPointer() ? v : nullptr;
}

/// Loads a store would read strip by strip if everything in between stayed
/// virtual: the loads reachable from its operands through fusible ops.
void collectFusibleLoads(const Value *v, std::vector<const Operation *> &loads,
                         std::unordered_set<const Value *> &seen) {
  if (!seen.insert(v).second || v->type().isScalar())
    return;
  const Operation *def = v->definingOp();
  if (!def || alwaysMaterialized(*def))
    return;
  if (def->kind() == OpKind::Load)
    loads.push_back(def);
  for (const Value *operand : def->operands)
    collectFusibleLoads(operand, loads, seen);
}

class Planner {
public:
  explicit Planner(FusionPlan &plan) : plan_(plan) {}

  /// A virtual load runs inside its consumer's strip loop, after the strips
  /// the consumer already stored. A store that may partially overlap memory a
  /// fused load reads would then read its own output: such loads are
  /// materialized first. Pointers from different kernel parameters are taken
  /// not to overlap partially (docs/block-ir.md); the same pointer value is
  /// an in-place update, safe strip by strip.
  void findStoreHazards(Region &region) {
    walkOps(region, [&](Operation &op) {
      if (op.kind() != OpKind::Store || op.operands[0]->type().isScalar())
        return;
      const Value *storePtr = op.operands[0];
      const Value *storeRoot = rootPointer(storePtr);
      std::vector<const Operation *> loads;
      std::unordered_set<const Value *> seen;
      for (size_t i = 1; i < op.operands.size(); ++i)
        collectFusibleLoads(op.operands[i], loads, seen);
      for (const Operation *load : loads) {
        const Value *loadPtr = load->operands[0];
        if (loadPtr == storePtr)
          continue;
        const Value *loadRoot = rootPointer(loadPtr);
        if (!loadRoot || !storeRoot || loadRoot == storeRoot)
          forced_.insert(load->result());
      }
    });
  }

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

  /// Whether evaluating `v` where it is used reads memory: it is a virtual
  /// load, or is computed from one.
  bool readsMemory(const Value *v) {
    if (v->type().isScalar() || plan_.isMaterialized(v) || !v->definingOp())
      return false;
    auto it = readsMemory_.find(v);
    if (it != readsMemory_.end())
      return it->second;
    bool reads = v->definingOp()->kind() == OpKind::Load;
    for (const Value *operand : v->definingOp()->operands)
      reads = reads || readsMemory(operand);
    return readsMemory_[v] = reads;
  }

  bool needsMemory(const Operation &op, const Value *v, const Region &region, size_t index) {
    if (alwaysMaterialized(op) || forced_.count(v))
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
    for (const Value *operand : op.operands)
      loadLike = loadLike || readsMemory(operand);
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
  std::unordered_set<const Value *> forced_;
  std::unordered_map<const Value *, bool> readsMemory_;
};

} // namespace

FusionPlan fuseElementwise(Function &fn) {
  FusionPlan plan;
  Planner planner(plan);
  planner.findStoreHazards(fn.body);
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
