//===- FuseElementwise.h - Which block values live in scratch -*- C++ -*-===//
//
// Elementwise fusion, decided once per kernel. A block value is either
// *virtual*: never stored, its strips recomputed in registers inside each
// consumer's strip loop (so a chain of elementwise ops is one loop), or
// *materialized*: written once to a scratch buffer. Only what fusion cannot
// reach is materialized: results of reductions, dots, trans/reshape, loops and
// ifs; loop-carried values; and loads or costly values that more than one
// consumer reads, unless those consumers can share one strip loop.
//
// Multi-output fusion: the consumers of a costly value (the *sinks* its strips
// end in: stores, last-axis reductions, materialized values, loop-carried
// updates) form a *strip group* emitted as one loop at the position of the
// last of them. Each strip evaluates the shared value once, then every sink
// takes its part. Softmax's exponentials feed both the stored row and the
// running sum this way, without a scratch buffer between them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace blockc {

/// One consumer of a strip group: where a fused strip ends up.
struct StripSink {
  enum class Kind {
    Store,       ///< `op` stores its value strip by strip
    Reduce,      ///< `op` reduces along the last axis, one accumulator per row
    Materialize, ///< `op`'s result is written to its scratch buffer
    Carried,     ///< the loop's yield updates carried value `carriedIndex` in place
  };
  Kind kind;
  const Operation *op; ///< for Carried, the yield
  size_t carriedIndex = 0;
  const Value *carried = nullptr; ///< for Carried, the loop body's argument
};

/// Sinks that one strip loop over `shape` emits together, at `anchor` (the
/// last sink's op in their region; the yield for carried updates).
struct StripGroup {
  Shape shape;
  std::vector<StripSink> sinks;
  const Operation *anchor = nullptr;
};

struct FusionPlan {
  std::unordered_set<const Value *> materialized;
  std::vector<StripGroup> groups;
  /// Ops whose emission a group takes over, and the group each op anchors.
  std::unordered_map<const Operation *, size_t> groupOfSink;
  std::unordered_map<const Operation *, size_t> groupAtAnchor;
  /// Why each block value is materialized or virtual, for the plan's dump.
  std::unordered_map<const Value *, std::string> reasons;

  bool isMaterialized(const Value *v) const { return materialized.count(v) != 0; }
  /// The group that emits `op` in place of its own position, if any.
  const StripGroup *deferredBy(const Operation &op) const {
    auto it = groupOfSink.find(&op);
    return it == groupOfSink.end() ? nullptr : &groups[it->second];
  }
  const StripGroup *anchoredAt(const Operation &op) const {
    auto it = groupAtAnchor.find(&op);
    return it == groupAtAnchor.end() ? nullptr : &groups[it->second];
  }
};

/// The pass FuseElementwise: plans `fn`'s block values.
FusionPlan fuseElementwise(Function &fn);

/// One line per block value: `%x op virtual|materialized (why)`, then one per
/// strip group: its shape, anchor and sinks.
std::string describeFusionPlan(Function &fn, const FusionPlan &plan);

} // namespace blockc
