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
};

/// The loops of `code`, one function's instructions in address order: basic
/// blocks end at branches and returns and begin at branch targets; loops
/// with one header are one loop. Ordered by header address.
std::vector<Loop> findLoops(const std::vector<Decoded> &code);

} // namespace blockc::inspect
