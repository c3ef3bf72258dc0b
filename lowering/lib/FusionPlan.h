//===- FusionPlan.h - Which block values live in scratch memory -*- C++ -*-===//
//
// Elementwise fusion, decided once per kernel. A block value is either
// *virtual*: never stored, its strips recomputed in registers inside each
// consumer's strip loop (so a chain of elementwise ops is one loop), or
// *materialized*: written once to a scratch buffer. Only what fusion cannot
// reach is materialized: results of reductions, dots, trans/reshape, loops and
// ifs; loop-carried values; and loads or costly values that more than one
// consumer reads, or whose consumer is not right after them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"

#include <string>
#include <unordered_set>

namespace blockc {

struct FusionPlan {
  std::unordered_set<const Value *> materialized;
  bool isMaterialized(const Value *v) const { return materialized.count(v) != 0; }
};

/// The pass FuseElementwise: plans `fn`'s block values.
FusionPlan fuseElementwise(Function &fn);

/// One line per block value: `%x virtual` or `%x materialized (reason)`.
std::string describeFusionPlan(Function &fn, const FusionPlan &plan);

} // namespace blockc
