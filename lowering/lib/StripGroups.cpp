//===- StripGroups.cpp - Multi-output fusion of shared values -------------===//
//
// A shared value stays virtual when every consumer it reaches through virtual
// elementwise ops is a sink that one strip loop can emit, and moving the
// earlier sinks to the last one's position changes nothing a program could
// observe. Each strip of the loop evaluates every sink's operands before any
// sink writes, so sinks read the state from before the strip, exactly as the
// unfused ops read the state from before their own loop.
//
//===----------------------------------------------------------------------===//
#include "StripGroups.h"

#include "blockc/frontend/IRUtils.h"

#include <algorithm>

namespace blockc {

bool alwaysMaterialized(const Operation &op) {
  switch (op.opClass()) {
  case OpClass::Reduce:
  case OpClass::Combining:
  case OpClass::Dot:
  case OpClass::Trans:
  case OpClass::For:
  case OpClass::While:
  case OpClass::If:
  case OpClass::Call:
  case OpClass::AtomicRMW:
  case OpClass::AtomicCas:
    return true;
  case OpClass::ShapeTo:
    return op.kind() == OpKind::Reshape;
  case OpClass::Load:
    return op.isVolatile; // read where it is written, every time

  default:
    return false;
  }
}

const Value *rootPointer(const Value *v) {
  while (const Operation *def = v->definingOp()) {
    if (!keepsPointerBuffer(def->kind()))
      return nullptr;
    v = def->operands[0];
  }
  return v->type().isPointer() ? v : nullptr;
}

std::string describeOp(const Operation &op) {
  std::string text = op.results.empty() || op.opClass() == OpClass::Terminator
                         ? std::string(op.name())
                         : "%" + op.result()->name() + " = " + std::string(op.name());
  if (op.loc().isValid())
    text += " (line " + std::to_string(op.loc().line) + ")";
  return text;
}

namespace {

bool sameSink(const StripSink &a, const StripSink &b) {
  return a.kind == b.kind && a.op == b.op && a.carriedIndex == b.carriedIndex;
}

bool usedInside(const Operation &op, const Value *v) {
  for (const auto &region : op.regions)
    for (const auto &inner : region->ops)
      if (std::count(inner->operands.begin(), inner->operands.end(), v) || usedInside(*inner, v))
        return true;
  return false;
}

bool containsLoad(const Operation &op) {
  for (const auto &region : op.regions)
    for (const auto &inner : region->ops)
      if (inner->kind() == OpKind::Load || isAtomic(*inner) || containsLoad(*inner))
        return true;
  return false;
}

/// Different kernel parameters never partially overlap (docs/block-ir.md).
bool mayAlias(const Value *a, const Value *b) {
  const Value *rootA = rootPointer(a), *rootB = rootPointer(b);
  return !rootA || !rootB || rootA == rootB;
}

} // namespace

struct StripGroupFinder::Walk {
  std::vector<StripSink> sinks;
  std::unordered_set<const Value *> visited;

  void add(StripSink sink) {
    if (std::none_of(sinks.begin(), sinks.end(),
                     [&](const StripSink &s) { return sameSink(s, sink); }))
      sinks.push_back(sink);
  }
};

StripGroupFinder::StripGroupFinder(FusionPlan &plan, const Region &region, const Operation *loop)
    : plan_(plan), region_(region), loop_(loop) {
  for (size_t i = 0; i < region.ops.size(); ++i)
    index_[region.ops[i].get()] = i;
}

size_t StripGroupFinder::positionOf(const StripSink &sink) const {
  return index_.at(sink.op);
}

void StripGroupFinder::collectChain(const Value *v,
                                    std::unordered_set<const Value *> &chain) const {
  if (!chain.insert(v).second || v->type().isScalar() || plan_.isMaterialized(v) ||
      !v->definingOp())
    return;
  for (const Value *operand : v->definingOp()->operands)
    collectChain(operand, chain);
}

void StripGroupFinder::collectChain(const Operation &op,
                                    std::unordered_set<const Value *> &chain) const {
  for (const Value *operand : op.operands)
    collectChain(operand, chain);
  for (const auto &region : op.regions)
    for (const auto &inner : region->ops)
      collectChain(*inner, chain);
}

std::string StripGroupFinder::collectSinks(const Value *v, const Shape &shape, Walk &walk) {
  if (!walk.visited.insert(v).second)
    return "";
  for (const auto &owned : region_.ops) {
    const Operation &user = *owned;
    if (usedInside(user, v))
      return "read inside the body of " + describeOp(user);
    if (!std::count(user.operands.begin(), user.operands.end(), v))
      continue;
    switch (user.opClass()) {
    case OpClass::Store:
      if (user.operands[0]->type().shape() != shape)
        return "stored by " + describeOp(user) + " at another shape";
      walk.add({StripSink::Kind::Store, &user});
      continue;
    case OpClass::Reduce:
      if (size_t(user.ints[0]) + 1 != shape.size())
        return "reduced by " + describeOp(user) + " along an axis other than the last";
      walk.add({StripSink::Kind::Reduce, &user});
      continue;
    case OpClass::Terminator:
      if (!loop_)
        return "yielded by " + describeOp(user) + " of an if";
      for (size_t i = 0; i < user.operands.size(); ++i)
        if (user.operands[i] == v)
          walk.add({StripSink::Kind::Carried, &user, i, loop_->regions[0]->args[1 + i].get()});
      continue;
    default:
      break;
    }
    if (alwaysMaterialized(user) || user.results.size() != 1 || !user.result()->type().isBlock())
      return "read by " + describeOp(user);
    const Value *result = user.result();
    if (result->type().shape() != shape)
      return "read by " + describeOp(user) + " at another shape";
    if (!plan_.isMaterialized(result)) {
      if (std::string why = collectSinks(result, shape, walk); !why.empty())
        return why;
    } else if (user.kind() == OpKind::Load) {
      return "read by " + describeOp(user) + ", a load kept in scratch";
    } else {
      walk.add({StripSink::Kind::Materialize, &user});
    }
  }
  return "";
}

std::string StripGroupFinder::share(const Value *shared) {
  Walk walk;
  const Shape &shape = shared->type().shape();
  if (std::string why = collectSinks(shared, shape, walk); !why.empty())
    return why;
  return formGroup(walk, shape);
}

std::string StripGroupFinder::formGroup(const Walk &walk, const Shape &shape) {
  StripGroup merged{shape, walk.sinks, nullptr};
  std::vector<size_t> absorbed;
  for (size_t g = 0; g < plan_.groups.size(); ++g) {
    const StripGroup &group = plan_.groups[g];
    bool overlaps = std::any_of(group.sinks.begin(), group.sinks.end(), [&](const StripSink &s) {
      return std::any_of(walk.sinks.begin(), walk.sinks.end(),
                         [&](const StripSink &t) { return sameSink(s, t); });
    });
    if (!overlaps)
      continue;
    if (group.shape != shape)
      return "shares a consumer with a strip loop of another shape";
    for (const StripSink &sink : group.sinks)
      if (std::none_of(merged.sinks.begin(), merged.sinks.end(),
                       [&](const StripSink &s) { return sameSink(s, sink); }))
        merged.sinks.push_back(sink);
    absorbed.push_back(g);
  }
  if (merged.sinks.empty())
    return "";
  size_t anchor = 0;
  for (const StripSink &sink : merged.sinks)
    anchor = std::max(anchor, positionOf(sink));
  merged.anchor = region_.ops[anchor].get();
  std::sort(merged.sinks.begin(), merged.sinks.end(), [&](const StripSink &a, const StripSink &b) {
    return std::make_pair(positionOf(a), a.carriedIndex) <
           std::make_pair(positionOf(b), b.carriedIndex);
  });
  if (std::string why = check(merged); !why.empty())
    return why;
  // One sink at its own place needs no group: the consumer's own loop
  // evaluates the value once per strip already.
  if (merged.sinks.size() == 1 && absorbed.empty())
    return "";
  std::vector<StripGroup> groups;
  for (size_t g = 0; g < plan_.groups.size(); ++g)
    if (std::find(absorbed.begin(), absorbed.end(), g) == absorbed.end())
      groups.push_back(std::move(plan_.groups[g]));
  groups.push_back(std::move(merged));
  plan_.groups = std::move(groups);
  plan_.groupOfSink.clear();
  plan_.groupAtAnchor.clear();
  for (size_t g = 0; g < plan_.groups.size(); ++g) {
    for (const StripSink &sink : plan_.groups[g].sinks)
      plan_.groupOfSink[sink.op] = g;
    plan_.groupAtAnchor[plan_.groups[g].anchor] = g;
  }
  return "";
}

std::string StripGroupFinder::shareMaterialized(const Value *v) {
  const Operation &def = *v->definingOp();
  // 2D loads keep their own copy loop: it reads transposed tiles without
  // gathers (CodeGenTranspose.cpp).
  if (alwaysMaterialized(def) || (def.kind() == OpKind::Load && v->type().rank() > 1))
    return "";
  Walk walk;
  walk.add({StripSink::Kind::Materialize, &def});
  const Shape &shape = v->type().shape();
  collectReductions(v, shape, walk);
  if (walk.sinks.size() < 2)
    return "";
  return formGroup(walk, shape);
}

void StripGroupFinder::collectReductions(const Value *v, const Shape &shape, Walk &walk) {
  if (!walk.visited.insert(v).second)
    return;
  for (const auto &user : region_.ops) {
    if (!std::count(user->operands.begin(), user->operands.end(), v))
      continue;
    if (user->opClass() == OpClass::Reduce && size_t(user->ints[0]) + 1 == shape.size())
      walk.add({StripSink::Kind::Reduce, user.get()});
    else if (!alwaysMaterialized(*user) && user->results.size() == 1 &&
             user->result()->type().isBlock() && user->result()->type().shape() == shape &&
             !plan_.isMaterialized(user->result()))
      collectReductions(user->result(), shape, walk);
  }
}

std::string StripGroupFinder::check(const StripGroup &group) {
  size_t anchor = index_.at(group.anchor);
  std::unordered_set<const Operation *> sinkOps;
  std::unordered_set<const Value *> chain;
  std::vector<std::pair<const Value *, const StripSink *>> produced;
  for (const StripSink &sink : group.sinks) {
    sinkOps.insert(sink.op);
    if (sink.kind == StripSink::Kind::Carried)
      collectChain(sink.op->operands[sink.carriedIndex], chain);
    else
      collectChain(*sink.op, chain);
    if (sink.kind == StripSink::Kind::Reduce || sink.kind == StripSink::Kind::Materialize)
      produced.push_back({sink.op->result(), &sink});
  }
  // A materialized sink's strip is read by the others in the same strip, as
  // it is computed; a reduction's result exists only after the last strip.
  for (const auto &[value, sink] : produced)
    if (sink->kind == StripSink::Kind::Reduce && chain.count(value))
      return "%" + value->name() + ", which " + describeOp(*sink->op) +
             " computes, is read by another of its consumers";

  // Loads the loop evaluates at the anchor, wherever they were written; one
  // of an enclosing region counts as written before this region's first op.
  std::vector<std::pair<int64_t, const Operation *>> loads;
  for (const Value *v : chain)
    if (v->definingOp() && v->definingOp()->kind() == OpKind::Load && !plan_.isMaterialized(v)) {
      auto it = index_.find(v->definingOp());
      loads.push_back({it == index_.end() ? -1 : int64_t(it->second), v->definingOp()});
    }
  int64_t first = int64_t(anchor);
  for (const auto &load : loads)
    first = std::min(first, load.first);
  for (const StripSink &sink : group.sinks)
    first = std::min(first, int64_t(positionOf(sink)));

  for (size_t p = size_t(first + 1); p < anchor; ++p) {
    const Operation &op = *region_.ops[p];
    bool virtualOp = !op.results.empty() && op.regions.empty() &&
                     std::all_of(op.results.begin(), op.results.end(), [&](const auto &r) {
                       return r->type().isBlock() && !plan_.isMaterialized(r.get());
                     });
    if (sinkOps.count(&op) || virtualOp)
      continue;
    bool storeBefore = false, loadBefore = false;
    for (const StripSink &sink : group.sinks)
      storeBefore |= sink.kind == StripSink::Kind::Store && positionOf(sink) < p;
    for (const auto &load : loads)
      loadBefore |= load.first < int64_t(p);
    std::unordered_set<const Value *> reads;
    collectChain(op, reads);
    for (const auto &[value, sink] : produced)
      if (positionOf(*sink) < p && reads.count(value))
        return describeOp(op) + " reads %" + value->name() +
               " between the consumers, before their loop could compute it";
    if (hasSideEffects(op) && (storeBefore || loadBefore))
      return describeOp(op) + " may write memory between its consumers";
    bool readsMemory = op.kind() == OpKind::Load || isAtomic(op) || containsLoad(op) ||
                       std::any_of(reads.begin(), reads.end(), [&](const Value *v) {
                         return v->definingOp() && v->definingOp()->kind() == OpKind::Load &&
                                !plan_.isMaterialized(v);
                       });
    if (readsMemory && storeBefore)
      return describeOp(op) + " reads memory that a store among its consumers would write later";
  }

  // A strip's loads run before its stores: a store may overwrite only the
  // elements that earlier loads of the same strip read, and only for loads
  // that came before it in the program.
  for (const StripSink &store : group.sinks) {
    if (store.kind != StripSink::Kind::Store)
      continue;
    for (const auto &[position, load] : loads) {
      const Value *loadPtr = load->operands[0], *storePtr = store.op->operands[0];
      bool before = position < int64_t(positionOf(store));
      if (mayAlias(loadPtr, storePtr) && !(before && loadPtr == storePtr))
        return describeOp(*store.op) + " may overwrite what " + describeOp(*load) +
               " reads in the same loop";
    }
  }

  // Carried values updated in place: a yield outside the group runs after
  // the loop and must not read their old values.
  if (loop_) {
    const Operation *yield = region_.terminator();
    for (const StripSink &sink : group.sinks) {
      if (sink.kind != StripSink::Kind::Carried)
        continue;
      const Value *carried = sink.carried;
      for (size_t j = 0; j < yield->operands.size(); ++j) {
        bool inGroup = std::any_of(group.sinks.begin(), group.sinks.end(), [&](const auto &s) {
          return s.kind == StripSink::Kind::Carried && s.carriedIndex == j;
        });
        std::unordered_set<const Value *> reads;
        collectChain(yield->operands[j], reads);
        if (!inGroup && reads.count(carried))
          return "the loop updates %" + carried->name() + " in place, but the yield of %" +
                 yield->operands[j]->name() + " reads its old value";
      }
    }
  }
  return "";
}

} // namespace blockc
