//===- IR.h - Block IR modules, functions, ops and values -------*- C++ -*-===//
//
// Block IR is SSA with nested regions (the bodies of `for` and `if`). A value
// is defined once, by an op result or a region argument, and is visible in the
// rest of its region and in the regions nested there. Ops own their results
// and regions; regions own their arguments and ops; a module owns everything.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace blockc {

enum class OpKind : uint8_t {
#define BLOCKC_OP(Enum, Name, Class) Enum,
#include "blockc/frontend/Ops.def"
};

/// Ops of one class share their syntax and typing rule.
enum class OpClass : uint8_t {
  GridQuery,
  Constant,
  Arange,
  ShapeTo,
  AxisOp,
  Trans,
  Arith,
  FloatBinary,
  Bitwise,
  ArithUnary,
  BitwiseUnary,
  FloatUnary,
  Fma,
  Cmp,
  Select,
  CastTo,
  AddPtr,
  Load,
  Store,
  AtomicRMW,
  AtomicCas,
  Reduce,
  Combining,
  Dot,
  Assert,
  Print,
  Call,
  For,
  While,
  If,
  Terminator,
};

std::string_view opName(OpKind kind);
OpClass opClass(OpKind kind);
std::optional<OpKind> parseOpName(std::string_view name);

/// The U* predicates compare integers as unsigned.
enum class CmpPredicate : uint8_t { EQ, NE, LT, LE, GT, GE, ULT, ULE, UGT, UGE };
inline bool isUnsignedPredicate(CmpPredicate p) {
  return p >= CmpPredicate::ULT;
}
std::string_view cmpPredicateName(CmpPredicate pred);
std::optional<CmpPredicate> parseCmpPredicate(std::string_view name);

/// The ordering an atomic op gives its access, as C++'s memory_order (and
/// Triton's `sem`): relaxed is atomicity alone; acquire, release and acq_rel
/// also order the program's other accesses around it.
enum class MemoryOrder : uint8_t { Relaxed, Acquire, Release, AcqRel };
std::string_view memoryOrderName(MemoryOrder order);
std::optional<MemoryOrder> parseMemoryOrder(std::string_view name);

/// A compile-time number: the value of `const` and of constexprs.
struct ConstantValue {
  bool isFloat = false;
  int64_t intValue = 0;
  double floatValue = 0.0;

  static ConstantValue ofInt(int64_t v) { return {false, v, 0.0}; }
  static ConstantValue ofFloat(double v) { return {true, 0, v}; }
  bool operator==(const ConstantValue &o) const;
};

/// Text of a constant as the printer writes it: shortest round-tripping
/// decimal for floats (`inf`, `-inf`, `nan` for the specials); `true`/`false`
/// for i1.
std::string formatConstant(const ConstantValue &value, ScalarKind kind);

class Operation;

class Value {
public:
  Value(Type type, std::string name, Operation *definingOp, SourceLoc loc)
      : type_(std::move(type)), name_(std::move(name)), definingOp_(definingOp), loc_(loc) {}

  const Type &type() const { return type_; }
  void setType(Type type) { type_ = std::move(type); }
  /// The name without its `%`.
  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  /// The op producing this value; null for region (and function) arguments.
  Operation *definingOp() const { return definingOp_; }
  SourceLoc loc() const { return loc_; }

private:
  Type type_;
  std::string name_;
  Operation *definingOp_;
  SourceLoc loc_;
};

struct Region {
  std::vector<std::unique_ptr<Value>> args;
  std::vector<std::unique_ptr<Operation>> ops;

  Value *addArg(Type type, std::string name, SourceLoc loc = {});
  /// The terminator (`yield`/`return`) or null when the region does not end in one.
  Operation *terminator() const;
};

/// Op attributes are typed fields rather than a string-keyed map: each op class
/// uses a fixed subset, documented on the field.
class Operation {
public:
  Operation(OpKind kind, SourceLoc loc) : kind_(kind), loc_(loc) {}

  OpKind kind() const { return kind_; }
  OpClass opClass() const { return blockc::opClass(kind_); }
  std::string_view name() const { return opName(kind_); }
  SourceLoc loc() const { return loc_; }

  std::vector<Value *> operands;
  /// Where each operand was written, for diagnostics; empty for built IR.
  std::vector<SourceLoc> operandLocs;
  std::vector<std::unique_ptr<Value>> results;
  std::vector<std::unique_ptr<Region>> regions;

  /// GridQuery, AxisOp, Reduce, `reduce`: {axis}. `scan`: {axis, reverse}.
  /// Arange: {start, end}. Trans: the permutation.
  std::vector<int64_t> ints;
  /// Constant: the result type. CastTo: the target element type (`f16`, `ptr<i8>`).
  Type targetType;
  /// ShapeTo: the target shape.
  Shape shape;
  /// Cmp.
  CmpPredicate predicate = CmpPredicate::EQ;
  /// Constant.
  ConstantValue constant;
  /// Call: the callee's name without `@`.
  std::string callee;
  /// Print: the text before the values, and whether they show as their bits
  /// in hexadecimal.
  std::string text;
  bool hex = false;
  /// Load: operands are ptr [, mask] [, other]. Store and AtomicRMW: ptr,
  /// value [, mask]. AtomicCas: ptr, expected, desired.
  bool hasMask = false;
  bool hasOther = false;
  /// Load: `volatile`, read from memory each time it runs, never merged,
  /// moved or dropped (another program may be writing the location).
  bool isVolatile = false;
  /// AtomicRMW, AtomicCas.
  MemoryOrder order = MemoryOrder::AcqRel;

  Value *result(unsigned i = 0) const { return results[i].get(); }
  Value *addResult(Type type, std::string name, SourceLoc loc = {});
  Region &addRegion();

  Value *mask() const;
  Value *other() const;

private:
  OpKind kind_;
  SourceLoc loc_;
};

struct Function {
  std::string name;
  bool isKernel = false;
  SourceLoc loc;
  /// The body; its arguments are the function's parameters.
  Region body;
  /// Results of a helper function; kernels return nothing.
  std::vector<Type> resultTypes;
};

/// A module-scope compile-time constant, bound by `-D NAME=VALUE` or its default.
struct Constexpr {
  std::string name;
  ScalarKind kind = ScalarKind::I32;
  ConstantValue value;
  SourceLoc loc;
};

struct Module {
  std::vector<Constexpr> constexprs;
  std::vector<std::unique_ptr<Function>> functions;

  Function *lookupFunction(std::string_view name) const;
  const Constexpr *lookupConstexpr(std::string_view name) const;
};

} // namespace blockc
