//===- FuseElementwise.cpp - Which block values live in scratch -----------===//
//
// Two steps. The first decides each value on its own: virtual when its one
// consumer can recompute it, materialized when it must live in memory. Values
// it would keep in scratch only because several consumers read them, or
// because a write stands between a load and its consumer, are *candidates*.
// The second step, from the last candidate back to the first (so that a
// candidate sees the groups of those it feeds), asks StripGroupFinder whether
// the candidate's consumers can share one strip loop; if not, it is
// materialized after all.
//
//===----------------------------------------------------------------------===//
#include "FuseElementwise.h"

#include "StripGroups.h"
#include "blockc/frontend/IRUtils.h"

#include <map>
#include <optional>

namespace blockc {

namespace {

struct Use {
  const Operation *user;
  const Region *region;
  size_t index; // position of the user's top-level op in `region`
};

/// Loads and math library calls are worth keeping rather than recomputing.
bool costly(const Operation &op) {
  return op.opClass() == OpClass::Load || op.opClass() == OpClass::FloatUnary ||
         op.opClass() == OpClass::FloatBinary;
}

/// The most ops a value's virtual expression may hold and still be evaluated
/// again by each of its consumers. Integer ops are cheap one by one, but a
/// chain of them that is itself read twice at every step is evaluated again
/// in full by every later step: FlagGems' randperm, whose ten Philox rounds feed
/// a bitonic sort's 45 exchange steps, compiled every round into every step's
/// loop (360 copies of one multiply, 13 s of LLVM) until a long expression with
/// two consumers was treated like a float op.
constexpr size_t kMaxRecomputedOps = 16;

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

/// Whether every lane of `v` holds the same value: scalars, constants and
/// their broadcasts.
bool isUniform(const Value *v) {
  if (v->type().isScalar())
    return true;
  const Operation *def = v->definingOp();
  if (!def)
    return false;
  switch (def->kind()) {
  case OpKind::Const:
    return true;
  case OpKind::Splat:
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
    return isUniform(def->operands[0]);
  default:
    return false;
  }
}

/// Whether `v` is an affine function of its lanes' coordinates (pointers
/// included): ranges and uniform values under add, sub, multiplication by a
/// uniform value, addptr and shape changes. A load through such pointers
/// reads whole strips, as cheap to repeat as a read of scratch.
bool isAffine(const Value *v) {
  if (isUniform(v))
    return true;
  const Operation *def = v->definingOp();
  if (!def)
    return false;
  switch (def->kind()) {
  case OpKind::Arange:
    return true;
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
    return isAffine(def->operands[0]);
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::AddPtr:
    return isAffine(def->operands[0]) && isAffine(def->operands[1]);
  case OpKind::Mul:
    return (isUniform(def->operands[0]) && isAffine(def->operands[1])) ||
           (isAffine(def->operands[0]) && isUniform(def->operands[1]));
  default:
    return false;
  }
}

struct Candidate {
  const Value *value;
  const Region *region;
  const Operation *loop; // the `for` whose body `region` is, or null
  /// A load through affine pointers with nothing written between it and its
  /// consumers: when they cannot share a strip loop, each may load it again
  /// instead of it being copied to scratch and read back.
  bool reloadable = false;
};

class Planner {
public:
  Planner(FusionPlan &plan, const Function &fn) : plan_(plan) {
    for (const auto &param : fn.body.args)
      parameters_.insert(param.get());
  }

  /// A virtual load runs inside its consumer's strip loop, after the strips
  /// the consumer already stored. A store that may partially overlap memory a
  /// fused load reads would then read its own output: such loads are
  /// materialized first. Pointers from different kernel parameters are taken
  /// not to overlap partially (docs/block-ir.md); the same pointer value is
  /// an in-place update, safe strip by strip.
  ///
  /// An atomic runs lane by lane, and lanes of one atomic may share an
  /// address (a histogram): every load it reads that may alias its pointer
  /// is materialized, the same pointer value included.
  void findStoreHazards(Region &region) {
    walkOps(region, [&](Operation &op) {
      bool atomic = isAtomic(op);
      if ((op.kind() != OpKind::Store && !atomic) || op.operands[0]->type().isScalar())
        return;
      const Value *storePtr = op.operands[0];
      const Value *storeRoot = rootPointer(storePtr);
      std::vector<const Operation *> loads;
      std::unordered_set<const Value *> seen;
      for (size_t i = 1; i < op.operands.size(); ++i)
        collectFusibleLoads(op.operands[i], loads, seen);
      for (const Operation *load : loads) {
        const Value *loadPtr = load->operands[0];
        if (loadPtr == storePtr && !atomic)
          continue;
        const Value *loadRoot = rootPointer(loadPtr);
        if (!loadRoot || !storeRoot || loadRoot == storeRoot)
          forced_.emplace(load->result(), "read strip by strip, " + describeOp(op) +
                                              " could overwrite it before it is read");
      }
    });
  }

  /// Records each use once per enclosing region, attributed in that region to
  /// the top-level op holding it; decide() reads the defining region's.
  void collectUses(const Region &region) {
    for (size_t i = 0; i < region.ops.size(); ++i) {
      collectUsesIn(*region.ops[i], region, i);
      for (const auto &inner : region.ops[i]->regions)
        collectUses(*inner);
    }
  }

  void plan(const Region &region, const Operation *loop) {
    for (size_t i = 0; i < region.ops.size(); ++i) {
      const Operation &op = *region.ops[i];
      for (const auto &inner : op.regions) {
        for (const auto &arg : inner->args)
          if (arg->type().isBlock())
            plan_.materialized.insert(arg.get()); // loop-carried
        plan(*inner, op.kind() == OpKind::For ? &op : nullptr);
      }
      for (const auto &r : op.results)
        if (r->type().isBlock())
          decide(op, r.get(), region, i, loop);
    }
  }

  /// The second step: the last candidate first.
  void shareCandidates() {
    for (auto it = candidates_.rbegin(); it != candidates_.rend(); ++it) {
      StripGroupFinder finder(plan_, *it->region, it->loop);
      std::string why = finder.share(it->value);
      if (why.empty()) {
        plan_.reasons[it->value] = "virtual: its consumers share one strip loop";
        continue;
      }
      if (it->reloadable) {
        plan_.reasons[it->value] =
            "virtual: loaded again by each of its consumers (" + why +
            "; its pointers are affine and nothing writes memory in between)";
        continue;
      }
      materialize(it->value, why);
      if (finder.shareMaterialized(it->value).empty() &&
          plan_.groupOfSink.count(it->value->definingOp()))
        plan_.reasons[it->value] += "; written in one loop with the reductions of it";
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

  void materialize(const Value *v, std::string why) {
    plan_.materialized.insert(v);
    plan_.reasons[v] = "materialized: " + std::move(why);
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

  void decide(const Operation &op, const Value *v, const Region &region, size_t index,
              const Operation *loop) {
    if (alwaysMaterialized(op))
      return materialize(v, "`" + std::string(op.name()) + "` results always are");
    if (auto forced = forced_.find(v); forced != forced_.end())
      return materialize(v, forced->second);
    std::vector<Use> uses;
    for (const Use &u : uses_[v])
      if (u.region == &region)
        uses.push_back(u);
    // A value read inside a loop or if body is recomputed on every trip
    // through that body: fine for arithmetic, not for loads (memory may have
    // changed) or library calls.
    const Operation *nestedUser = nullptr;
    for (const Use &u : uses)
      if (u.user != region.ops[u.index].get())
        nestedUser = region.ops[u.index].get();
    bool loadLike = op.opClass() == OpClass::Load;
    for (const Value *operand : op.operands)
      loadLike = loadLike || readsMemory(operand);
    bool heavy = costly(op) || ((uses.size() > 1 || nestedUser) &&
                                virtualOps(v, kMaxRecomputedOps) > kMaxRecomputedOps);
    if (heavy && nestedUser)
      return materialize(v, "read inside " + describeOp(*nestedUser) +
                                ", which would recompute it on every trip");
    if (loadLike && nestedUser && hasSideEffects(*nestedUser))
      return materialize(v, "read inside " + describeOp(*nestedUser) + ", which writes memory");
    // A virtual load runs where its consumer runs: a write between them
    // would change what it reads, unless the consumers' loop can move.
    bool writeBetween = false;
    if (loadLike) {
      std::optional<std::vector<const Value *>> readRoots = argumentsRead(v);
      for (const Use &u : uses)
        for (size_t k = index + 1; k < u.index && !writeBetween; ++k)
          writeBetween = hasSideEffects(*region.ops[k]) &&
                         (!readRoots || mayWriteThrough(*region.ops[k], *readRoots));
    }
    if ((heavy && uses.size() > 1) || writeBetween) {
      bool reloadable =
          op.kind() == OpKind::Load && !op.isVolatile && !writeBetween && isAffine(op.operands[0]);
      candidates_.push_back({v, &region, loop, reloadable});
      candidateValues_.insert(v);
      return;
    }
    plan_.reasons[v] = uses.size() > 1 ? "virtual: recomputed by each of its " +
                                             std::to_string(uses.size()) + " consumers"
                                       : "virtual: fused into its consumer";
  }

  /// How many ops a consumer evaluating `v` runs per element, counted up to
  /// just past `limit`: `v`'s expression down to what is materialized, scalar,
  /// uniform or still a candidate for sharing, each op once (one strip loop
  /// evaluates an operand it reads twice once).
  size_t virtualOps(const Value *v, size_t limit) {
    std::unordered_set<const Value *> seen;
    std::vector<const Value *> pending = {v};
    size_t count = 0;
    while (!pending.empty() && count <= limit) {
      const Value *x = pending.back();
      pending.pop_back();
      const Operation *def = x->definingOp();
      if (!def || !seen.insert(x).second || x->type().isScalar() || isUniform(x) ||
          (x != v && (plan_.isMaterialized(x) || candidateValues_.count(x))))
        continue;
      ++count;
      pending.insert(pending.end(), def->operands.begin(), def->operands.end());
    }
    return count;
  }

  /// The kernel arguments `v`'s loads read through, for telling which
  /// writes between `v`'s definition and a consumer that would evaluate it
  /// again may change what they read; none where a load's pointer has no
  /// argument as its root, or reads one element. A scalar store or atomic
  /// through another argument cannot change a block: blocks of different
  /// arguments overlap only at identical addresses (docs/block-ir.md), and
  /// one address is not a block's. So a row's statistic stored between the
  /// passes that read the row (rms_norm's rstd) leaves the row to be loaded
  /// again rather than kept in scratch.
  std::optional<std::vector<const Value *>> argumentsRead(const Value *v) {
    std::vector<const Operation *> loads;
    std::unordered_set<const Value *> seen;
    collectFusibleLoads(v, loads, seen);
    std::vector<const Value *> roots;
    for (const Operation *load : loads) {
      const Value *root = rootPointer(load->operands[0]);
      if (!root || !parameters_.count(root) || load->result()->type().numElements() < 2)
        return std::nullopt;
      roots.push_back(root);
    }
    return roots;
  }

  /// Whether `op` (or an op nested in it) may write memory reached from
  /// `roots`: a call, a block store or atomic, or a scalar one through one of
  /// them or through a pointer of unknown origin.
  bool mayWriteThrough(const Operation &op, const std::vector<const Value *> &roots) {
    if (op.kind() == OpKind::Call)
      return true;
    if (op.kind() == OpKind::Store || isAtomic(op)) {
      const Value *pointer = op.operands[0];
      const Value *root = rootPointer(pointer);
      return !pointer->type().isScalar() || !root || !parameters_.count(root) ||
             std::count(roots.begin(), roots.end(), root);
    }
    for (const auto &region : op.regions)
      for (const auto &inner : region->ops)
        if (mayWriteThrough(*inner, roots))
          return true;
    return false;
  }

  FusionPlan &plan_;
  std::unordered_set<const Value *> parameters_;
  std::unordered_map<const Value *, std::vector<Use>> uses_;
  std::unordered_map<const Value *, std::string> forced_;
  std::unordered_map<const Value *, bool> readsMemory_;
  std::vector<Candidate> candidates_;
  std::unordered_set<const Value *> candidateValues_;
};

std::string describeSink(const StripSink &sink) {
  switch (sink.kind) {
  case StripSink::Kind::Store:
    return describeOp(*sink.op);
  case StripSink::Kind::Reduce:
    return describeOp(*sink.op);
  case StripSink::Kind::Materialize:
    return describeOp(*sink.op) + " into scratch";
  case StripSink::Kind::Carried:
    return "%" + sink.op->operands[sink.carriedIndex]->name() + " carried in place";
  }
  return "";
}

} // namespace

FusionPlan fuseElementwise(Function &fn) {
  FusionPlan plan;
  Planner planner(plan, fn);
  planner.findStoreHazards(fn.body);
  planner.collectUses(fn.body);
  planner.plan(fn.body, nullptr);
  planner.shareCandidates();
  return plan;
}

std::string describeFusionPlan(Function &fn, const FusionPlan &plan) {
  std::string out = "fusion plan of @" + fn.name + ":\n";
  walkOps(fn.body, [&](Operation &op) {
    for (auto &r : op.results) {
      if (!r->type().isBlock())
        continue;
      auto reason = plan.reasons.find(r.get());
      out += "  %" + r->name() + " " + std::string(op.name()) + " " +
             (reason != plan.reasons.end()   ? reason->second
              : plan.isMaterialized(r.get()) ? "materialized"
                                             : "virtual") +
             "\n";
    }
  });
  for (const StripGroup &group : plan.groups) {
    out += "  strip loop at " + describeOp(*group.anchor) + ":";
    for (size_t i = 0; i < group.sinks.size(); ++i)
      out += (i ? ", " : " ") + describeSink(group.sinks[i]);
    out += "\n";
  }
  return out;
}

} // namespace blockc
