//===- Passes.h - Block IR to Block IR passes -------------------*- C++ -*-===//
//
// One pass, one file, one entry function; the function's name is the pass's
// name in Pipeline.cpp, in `--print-after=`, and in its test.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"

namespace blockc {

/// Replaces every `call` with the callee's body and drops the helper
/// functions, leaving only kernels. Callees are defined before their callers,
/// so one walk in module order inlines transitively.
bool inlineCalls(Module &module);

/// Folds scalar integer arithmetic and comparisons whose operands are
/// constants, then removes dead ops:
///   %c = mul %four, %eight   ->   %c = const 32 : i32
bool foldConstants(Module &module);

/// Proves comparisons true for every lane from the value ranges of their
/// operands (constants, arange, and loop bounds fixed by constexprs) and drops
/// masks that are then all true:
///   %m = cmp lt %offs_k, %k_left      (offs_k <= 31 < 32 <= k_left)
///   load %p, mask=%m, other=%z   ->   load %p
bool simplifyMasks(Module &module);

/// Pointer tiles carried through a loop and advanced by a scalar step are
/// carried as their scalar base, and rebuilt from their loop-invariant
/// offsets where they are used, so that loads and stores through them keep a
/// known stride:
///   for ... iter(%p = addptr %a, %offs) { ...; yield (addptr %p, %step) }
///   ->  for ... iter(%p_base = %a) { %p = addptr %p_base, %offs; ...;
///                                    yield (addptr %p_base, %step) }
bool canonicalizePointers(Module &module);
/// A block a loop carries, combines with each trip's block by max, min or add
/// and only reduces (by the matching reduction) after the loop is reduced
/// each trip instead, and the loop carries the reduced value:
///   for ... iter(%run = %init) { %next = max %run, %x }; reduce_max %acc
///   ->  for ... iter(%run = reduce_max %init) {
///         %next = max %run, (reduce_max %x) }
bool reduceCarriedBlocks(Module &module);

} // namespace blockc
