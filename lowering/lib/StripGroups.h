//===- StripGroups.h - Multi-output fusion of shared values -----*- C++ -*-===//
#pragma once

#include "FuseElementwise.h"

#include <string>

namespace blockc {

/// Ops whose results must live in memory whatever their uses.
bool alwaysMaterialized(const Operation &op);

/// The kernel parameter a pointer value is derived from, or null when that is
/// not known at compile time (a loop-carried or selected pointer).
const Value *rootPointer(const Value *v);

/// `%x = op (line N)`, for the plan's reasons.
std::string describeOp(const Operation &op);

/// Finds the strip groups of one region. `plan` holds the decisions so far:
/// the values `share` is asked about are still virtual there.
class StripGroupFinder {
public:
  /// `loop` is the `for` whose body `region` is, or null.
  StripGroupFinder(FusionPlan &plan, const Region &region, const Operation *loop);

  /// Lets `shared`, a costly value of the region read by several consumers,
  /// stay virtual by emitting all the sinks it reaches in one strip loop,
  /// merged with the groups already formed that share a sink with them.
  /// Returns the empty string on success, else why the consumers cannot share
  /// a loop (the plan is then unchanged).
  std::string share(const Value *shared);

  /// For `v`, materialized after all: computes it in one loop with the
  /// last-axis reductions that it feeds, when they can move there. Returns
  /// why not, or the empty string.
  std::string shareMaterialized(const Value *v);

private:
  struct Walk;
  std::string formGroup(const Walk &walk, const Shape &shape);
  /// Adds the last-axis reductions `v` reaches through virtual elementwise ops.
  void collectReductions(const Value *v, const Shape &shape, Walk &walk);
  std::string collectSinks(const Value *v, const Shape &shape, Walk &walk);
  std::string check(const StripGroup &group);
  size_t positionOf(const StripSink &sink) const;
  /// Values evaluating `v` in a strip reads: `v` and, through virtual block
  /// values, their operands (scalars and materialized values are leaves).
  void collectChain(const Value *v, std::unordered_set<const Value *> &chain) const;
  void collectChain(const Operation &op, std::unordered_set<const Value *> &chain) const;

  FusionPlan &plan_;
  const Region &region_;
  const Operation *loop_;
  std::unordered_map<const Operation *, size_t> index_;
};

} // namespace blockc
