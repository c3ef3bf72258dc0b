//===- TypeRules.h - Result types and operand rules of Block IR -*- C++ -*-===//
//
// The single source of Block IR's typing rules. The parser and the Builder use
// it to give each new op its result types; the verifier re-runs it to check IR
// made any other way. Shapes broadcast as in NumPy and Triton: aligned from the
// right, each pair of dims equal or one of them 1, scalars broadcast to all.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"

#include <optional>
#include <string>
#include <vector>

namespace blockc {

/// A broken rule. `operand` is the index of the operand at fault, or -1 when
/// the op as a whole is (a bad attribute, a wrong operand count).
struct TypeError {
  int operand = -1;
  std::string message;
};

/// Computes the result types of `op` from its operands, attributes and (for
/// `for`/`if`) regions. `module` resolves callees.
std::optional<TypeError> inferResultTypes(const Operation &op, const Module &module,
                                          std::vector<Type> &results);

/// NumPy broadcast of two shapes; nullopt when they are incompatible.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b);

/// True when `from` broadcasts to exactly `to` (`to` is not widened).
bool broadcastsTo(const Shape &from, const Shape &to);

/// Checks rank 1..3, positive dims and the element cap; returns the error text.
std::optional<std::string> checkBlockShape(const Shape &shape);

/// Checks that `value` is representable in `kind` (ints in range, i1 is 0 or 1,
/// no floats in integer types); returns the error text.
std::optional<std::string> checkConstantFits(const ConstantValue &value, ScalarKind kind);

/// The canonical form of an integer constant that fits `kind`: the signed
/// reading of its low bits, so `0xff : i8` is -1 everywhere after parsing.
ConstantValue canonicalConstant(const ConstantValue &value, ScalarKind kind);

} // namespace blockc
