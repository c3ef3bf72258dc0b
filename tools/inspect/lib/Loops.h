//===- Loops.h - Natural loops of a function's control-flow graph -*- C++ -*-===//
#pragma once

#include "Machine.h"

#include <vector>

namespace blockc::inspect {

/// A natural loop: the instructions (indices into the function's code, in
/// address order, the header's first) of every block its header dominates
/// and that reaches a branch back to the header.
struct Loop {
  std::vector<size_t> body;
  /// 1 for an outermost loop; each enclosing loop adds one.
  unsigned depth = 1;
  /// Whether no other loop lies inside it.
  bool innermost = true;
  /// Where an innermost loop branches inside (a rare path, a choice between
  /// two stores), its paths from the header back to it, each in the order it
  /// runs, where there are at most kMaxLoopPaths. Empty where the body has
  /// one path (`body` is that path) or more than kMaxLoopPaths: the loop is
  /// then estimated whole.
  std::vector<std::vector<size_t>> paths;
};

constexpr size_t kMaxLoopPaths = 16;

/// The loops of `code`, one function's instructions in address order: basic
/// blocks end at branches and returns and begin at branch targets; loops
/// with one header are one loop. Ordered by header address.
std::vector<Loop> findLoops(const std::vector<Decoded> &code);

} // namespace blockc::inspect
