//===- Builder.h - C++ API for building Block IR ----------------*- C++ -*-===//
//
// Builds Block IR from C++ with the same typing rules as the text parser:
//
//   Module m;
//   Builder b(m);
//   Function &f = b.createKernel("scale", {{"x", Type::pointer(ScalarKind::F32)}});
//   Value *offs = b.arange(0, 128);
//   Value *ptrs = b.addPtr(f.body.args[0].get(), offs);
//   b.store(ptrs, b.mul(b.load(ptrs), b.constant(2.0, Type::scalar(ScalarKind::F32))));
//
// An op that breaks a typing rule is not created: the builder records the
// first error in its DiagnosticEngine and returns null, and every later op
// fed a null operand fails the same way, so callers check once at the end.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"
#include "blockc/frontend/TypeRules.h"

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace blockc {

struct Param {
  std::string name;
  Type type;
};

class Builder {
public:
  explicit Builder(Module &module) : module_(module) {}

  Module &module() { return module_; }
  DiagnosticEngine &diagnostics() { return diags_; }

  /// Adds a function to the module and moves the insertion point into its body.
  Function &createKernel(std::string name, const std::vector<Param> &params);
  Function &createFunction(std::string name, const std::vector<Param> &params,
                           std::vector<Type> resultTypes);
  void addConstexpr(std::string name, ScalarKind kind, ConstantValue value);

  Region *insertionRegion() const { return region_; }
  void setInsertionPoint(Region &region) { region_ = &region; }
  /// Location stamped on new ops; the parser sets it per statement.
  void setLoc(SourceLoc loc) { loc_ = loc; }

  /// Types `op`, gives it results and appends it at the insertion point. On a
  /// type error nothing is appended and the error is returned.
  std::variant<Operation *, TypeError> insert(std::unique_ptr<Operation> op);

  Value *programId(int axis) { return gridQuery(OpKind::ProgramId, axis); }
  Value *numPrograms(int axis) { return gridQuery(OpKind::NumPrograms, axis); }
  Value *constant(ConstantValue value, Type type);
  Value *constant(int64_t value, Type type) { return constant(ConstantValue::ofInt(value), type); }
  Value *constant(double value, Type type) { return constant(ConstantValue::ofFloat(value), type); }
  Value *arange(int64_t start, int64_t end);
  Value *splat(Value *scalar, Shape shape) { return shapeTo(OpKind::Splat, scalar, shape); }
  Value *broadcast(Value *v, Shape shape) { return shapeTo(OpKind::Broadcast, v, shape); }
  Value *reshape(Value *v, Shape shape) { return shapeTo(OpKind::Reshape, v, shape); }
  Value *expandDims(Value *v, int64_t axis);
  Value *trans(Value *v, std::vector<int64_t> perm = {});

  /// Any op of class Arith, FloatBinary or Bitwise.
  Value *binary(OpKind kind, Value *a, Value *b);
  Value *add(Value *a, Value *b) { return binary(OpKind::Add, a, b); }
  Value *sub(Value *a, Value *b) { return binary(OpKind::Sub, a, b); }
  Value *mul(Value *a, Value *b) { return binary(OpKind::Mul, a, b); }
  Value *div(Value *a, Value *b) { return binary(OpKind::Div, a, b); }
  Value *max(Value *a, Value *b) { return binary(OpKind::Max, a, b); }
  Value *min(Value *a, Value *b) { return binary(OpKind::Min, a, b); }
  /// Any op of class ArithUnary, BitwiseUnary or FloatUnary.
  Value *unary(OpKind kind, Value *a);
  Value *fma(Value *a, Value *b, Value *c);
  Value *cmp(CmpPredicate pred, Value *a, Value *b);
  Value *select(Value *cond, Value *a, Value *b);
  Value *cast(Value *v, ScalarKind to);
  Value *bitcast(Value *v, Type elementType);
  Value *addPtr(Value *ptr, Value *offsets);
  Value *load(Value *ptr, Value *mask = nullptr, Value *other = nullptr);
  void store(Value *ptr, Value *value, Value *mask = nullptr);
  Value *reduce(OpKind kind, Value *v, int64_t axis);
  Value *dot(Value *a, Value *b, Value *acc);
  std::vector<Value *> call(const Function &callee, std::vector<Value *> args);

  /// `for`: returns the op; its body region's arguments are the induction
  /// variable and then one per init. Build the body with setInsertionPoint and
  /// end it with yield(); the builder's insertion point is left unchanged.
  Operation *createFor(Value *lo, Value *hi, Value *step, std::vector<Value *> inits);
  /// `if`: returns the op with an empty then-region (and else-region when
  /// `withElse`). After both regions end in yield(), call finishIf().
  Operation *createIf(Value *cond, bool withElse);
  void finishIf(Operation *ifOp);
  void yield(std::vector<Value *> values) { terminator(OpKind::Yield, std::move(values)); }
  void ret(std::vector<Value *> values) { terminator(OpKind::Return, std::move(values)); }

private:
  Value *gridQuery(OpKind kind, int axis);
  Value *shapeTo(OpKind kind, Value *v, Shape shape);
  Value *single(std::unique_ptr<Operation> op);
  Operation *make(std::unique_ptr<Operation> op);
  void terminator(OpKind kind, std::vector<Value *> values);
  std::unique_ptr<Operation> newOp(OpKind kind, std::vector<Value *> operands = {});
  std::string freshName();

  Module &module_;
  DiagnosticEngine diags_;
  Region *region_ = nullptr;
  SourceLoc loc_;
  unsigned nextName_ = 0;
};

} // namespace blockc
