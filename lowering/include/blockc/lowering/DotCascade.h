//===- DotCascade.h - Which strategy computes a dot -------------*- C++ -*-===//
//
// A dot goes to the first strategy of its ISA's cascade that accepts it, best
// first (a matrix unit, then register-blocked micro-kernels), and otherwise to
// the generic strategy, which accepts every dot and is always last. The one
// rule lives in selectDotStrategy: the pipeline asks it whether
// --dot-strategy names a strategy at all, code generation which strategy
// computes each dot.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/lowering/IsaLowering.h"

#include <functional>
#include <string_view>
#include <vector>

namespace blockc {

/// The generic code generator's strips, for a dot strategy that computes in
/// them (the generic one): the ISA's strip shape and tail handling, and 2-D
/// buffers of any Block IR element type. Within forEachStripOfRow's body a
/// vector load or store is predicated on the strip's tail.
class StripLoops {
public:
  virtual ~StripLoops() = default;
  /// `body(column, vector)` for each strip of a row of `length` elements;
  /// `vector` false for a strip of one element (a row of one).
  virtual void forEachStripOfRow(int64_t length,
                                 const std::function<void(llvm::Value *, bool)> &body) = 0;
  /// `for (iv = begin; iv < end; ++iv) body(iv)`, i64, not unrolled.
  virtual void countedLoop(int64_t begin, int64_t end,
                           const std::function<void(llvm::Value *)> &body) = 0;
  /// The strip (`vector`) or element of the row-major `buffer` of `type` at
  /// (row, column), converted to the element `to`.
  virtual llvm::Value *load(llvm::Value *buffer, const Type &type, llvm::Value *row,
                            llvm::Value *column, bool vector, const Type &to) = 0;
  /// Stores `value`, of `type`'s element, as load reads it.
  virtual void store(llvm::Value *buffer, const Type &type, llvm::Value *row, llvm::Value *column,
                     llvm::Value *value, bool vector) = 0;
  /// The LLVM type of one element of `element`, and of a strip of them.
  virtual llvm::Type *scalarType(const Type &element) = 0;
  virtual llvm::Type *stripType(const Type &element) = 0;
  /// `scalar` in every lane of a strip.
  virtual llvm::Value *splat(llvm::Value *scalar) = 0;
  /// A slot of `type` in the kernel's entry block.
  virtual llvm::Value *entrySlot(llvm::Type *type) = 0;
};

/// The strategy every dot can take, the last of every cascade: one strip of C
/// in a register across the whole K extent (C[m, :] += A[m, k] * B[k, :]).
/// Needs DotOperands::strips.
const DotStrategy &genericDotStrategy();

/// The cascade's one rule, with `requested` the --dot-strategy name (empty:
/// choose). For a `dot`: the requested strategy if it accepts the dot, or
/// else the generic one; unrequested, the first of `isa`'s strategies that
/// accepts it and is not only for testing, or else the generic one. Without
/// a dot (nullptr): the strategy `requested` names, or nullptr when the
/// cascade has none of that name.
const DotStrategy *selectDotStrategy(const DotOperands *dot, const IsaLowering &isa,
                                     std::string_view requested);

/// The names of `isa`'s cascade, best first, "generic" last.
std::vector<std::string_view> dotCascadeNames(const IsaLowering &isa);

} // namespace blockc
