//===- IRUtils.h - Rewriting helpers for Block IR passes --------*- C++ -*-===//
#pragma once

#include "blockc/frontend/IR.h"

#include <functional>
#include <string>
#include <unordered_map>

namespace blockc {

using ValueMap = std::unordered_map<const Value *, Value *>;

/// Calls `fn` on every op of `region` and of the regions nested in it, parents
/// before children.
void walkOps(Region &region, const std::function<void(Operation &)> &fn);

/// Replaces every use of `from` inside `region` (nested regions included).
void replaceAllUsesWith(Region &region, const Value *from, Value *to);

/// How many operands in `region` (nested regions included) refer to `value`.
unsigned countUses(Region &region, const Value *value);

/// Deep-copies `op`: operands are looked up in `map` (kept as they are when
/// absent), results and region arguments are added to it, and every new
/// value's name gets `suffix`.
std::unique_ptr<Operation> cloneOperation(const Operation &op, ValueMap &map,
                                          const std::string &suffix);

/// Removes ops without side effects whose results are unused, repeatedly.
/// Returns whether anything was removed.
bool eraseDeadOps(Region &region);

/// True for ops that write memory or contain ops that do.
bool hasSideEffects(const Operation &op);

/// True for ops that may write memory (stores, atomics, calls) or contain
/// ops that may.
bool writesMemory(const Operation &op);

/// True for the atomic read-modify-write ops and compare-and-swap: they read
/// and write memory, and their result is the value they found there.
bool isAtomic(const Operation &op);

/// True for ops whose pointer result addresses the same buffer as their first
/// operand (addptr, splat, broadcast, expand_dims, reshape, trans, bitcast).
bool keepsPointerBuffer(OpKind kind);

} // namespace blockc
