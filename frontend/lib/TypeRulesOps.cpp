//===- TypeRulesOps.cpp - Types of memory, atomics, reductions and regions ===//
#include "TypeRulesImpl.h"

namespace blockc::typerules {

std::optional<TypeError> inferCast(const Operation &op, Types &results) {
  if (auto e = expectOperands(op, 1))
    return e;
  const Type &src = op.operands[0]->type();
  const Type &to = op.targetType;
  if (!to.isScalar())
    return opError("cast target is an element type, got " + quote(to));
  if (op.kind() != OpKind::Bitcast) {
    if (src.isPointer() || to.isPointer())
      return opError("'" + std::string(op.name()) +
                     "' converts numbers; use 'bitcast' between pointer types");
  } else {
    // An address as a number and back (Triton's int_to_ptr and ptr_to_int):
    // tables of pointers, such as a grouped GEMM's, are i64 tensors.
    if (src.isPointer() != to.isPointer()) {
      const Type &number = src.isPointer() ? to : src;
      if (number.kind() != ScalarKind::I64)
        return opError("'bitcast' between a pointer and a number needs i64, got " +
                       number.elementType().str());
    } else if (!src.isPointer() && bitWidth(src.kind()) != bitWidth(to.kind()))
      return opError("'bitcast' needs equal bit widths, got " + src.elementType().str() + " and " +
                     to.str());
  }
  results.push_back(to.withShape(src.shape()));
  return std::nullopt;
}

std::optional<TypeError> inferLoad(const Operation &op, Types &results) {
  size_t expected = 1 + op.hasMask + op.hasOther;
  if (auto e = expectOperands(op, expected))
    return e;
  const Type &ptr = op.operands[0]->type();
  if (!ptr.isPointer())
    return operandError(0, "'load' expects a pointer, got " + quote(ptr));
  int next = 1;
  if (op.hasMask) {
    const Type &mask = op.operands[next]->type();
    if (!mask.isBool())
      return operandError(next, "mask must be i1, got " + quote(mask));
    if (!broadcastsTo(mask.shape(), ptr.shape()))
      return operandError(next, "mask shape " + formatShape(mask.shape()) +
                                    " does not broadcast to pointer shape " +
                                    formatShape(ptr.shape()));
    ++next;
  } else if (op.hasOther) {
    return opError("'other' needs a mask");
  }
  if (op.hasOther) {
    const Type &other = op.operands[next]->type();
    if (other.isPointer() || other.kind() != ptr.kind())
      return operandError(next, "'other' must have element type " +
                                    std::string(scalarKindName(ptr.kind())) + ", got " +
                                    quote(other));
    if (!broadcastsTo(other.shape(), ptr.shape()))
      return operandError(next, "'other' shape " + formatShape(other.shape()) +
                                    " does not broadcast to pointer shape " +
                                    formatShape(ptr.shape()));
  }
  results.push_back(Type::block(ptr.kind(), ptr.shape()));
  return std::nullopt;
}

std::optional<TypeError> inferStore(const Operation &op) {
  if (auto e = expectOperands(op, 2 + op.hasMask))
    return e;
  const Type &ptr = op.operands[0]->type(), &value = op.operands[1]->type();
  if (!ptr.isPointer())
    return operandError(0, "'store' expects a pointer, got " + quote(ptr));
  if (value.isPointer() || value.kind() != ptr.kind())
    return operandError(1, "stored value must have element type " +
                               std::string(scalarKindName(ptr.kind())) + ", got " + quote(value));
  if (!broadcastsTo(value.shape(), ptr.shape()))
    return operandError(1, "value shape " + formatShape(value.shape()) +
                               " does not broadcast to pointer shape " + formatShape(ptr.shape()));
  if (op.hasMask) {
    const Type &mask = op.operands[2]->type();
    if (!mask.isBool())
      return operandError(2, "mask must be i1, got " + quote(mask));
    if (!broadcastsTo(mask.shape(), ptr.shape()))
      return operandError(2, "mask shape " + formatShape(mask.shape()) +
                                 " does not broadcast to pointer shape " +
                                 formatShape(ptr.shape()));
  }
  return std::nullopt;
}

/// Which element types each atomic accepts: what LLVM's atomicrmw and cmpxchg
/// take on every target blockc has (float kinds through a CAS loop where the
/// ISA has no float atomics; `atomic_cas` on floats compares bits).
static bool atomicAccepts(OpKind kind, ScalarKind element) {
  if (element == ScalarKind::I1 || isStorageOnlyKind(element))
    return false;
  switch (kind) {
  case OpKind::AtomicAdd:
  case OpKind::AtomicMax:
  case OpKind::AtomicMin:
  case OpKind::AtomicXchg:
  case OpKind::AtomicCas:
    return true;
  default:
    return isIntegerKind(element);
  }
}

std::optional<TypeError> inferAtomic(const Operation &op, Types &results) {
  bool isCas = op.opClass() == OpClass::AtomicCas;
  if (isCas && op.hasMask)
    return opError("'atomic_cas' takes no mask");
  size_t values = isCas ? 2 : 1;
  if (auto e = expectOperands(op, 1 + values + op.hasMask))
    return e;
  const Type &ptr = op.operands[0]->type();
  if (!ptr.isPointer())
    return operandError(0, "'" + std::string(op.name()) + "' expects a pointer, got " + quote(ptr));
  if (!atomicAccepts(op.kind(), ptr.kind()))
    return operandError(0, "'" + std::string(op.name()) + "' does not take " + quote(ptr) +
                               (isFloatKind(ptr.kind()) ? ": it is for integers" : ""));
  for (size_t i = 1; i <= values; ++i) {
    const Type &value = op.operands[i]->type();
    if (value.isPointer() || value.kind() != ptr.kind())
      return operandError(int(i), "the value must have element type " +
                                      std::string(scalarKindName(ptr.kind())) + ", got " +
                                      quote(value));
    if (!broadcastsTo(value.shape(), ptr.shape()))
      return operandError(int(i), "value shape " + formatShape(value.shape()) +
                                      " does not broadcast to pointer shape " +
                                      formatShape(ptr.shape()));
  }
  if (op.hasMask) {
    const Type &mask = op.operands.back()->type();
    int maskIndex = int(op.operands.size()) - 1;
    if (!mask.isBool())
      return operandError(maskIndex, "mask must be i1, got " + quote(mask));
    if (!broadcastsTo(mask.shape(), ptr.shape()))
      return operandError(maskIndex, "mask shape " + formatShape(mask.shape()) +
                                         " does not broadcast to pointer shape " +
                                         formatShape(ptr.shape()));
  }
  results.push_back(Type::block(ptr.kind(), ptr.shape()));
  return std::nullopt;
}

std::optional<TypeError> inferReduce(const Operation &op, Types &results) {
  if (auto e = expectOperands(op, 1))
    return e;
  const Type &src = op.operands[0]->type();
  if (!src.isBlock() || !isNumber(src))
    return operandError(0, "'" + std::string(op.name()) + "' expects a block of numbers, got " +
                               quote(src));
  if (auto e = checkAxis(op, src.rank()))
    return e;
  Shape shape = src.shape();
  shape.erase(shape.begin() + op.ints[0]);
  bool isArg = op.kind() == OpKind::ArgMax || op.kind() == OpKind::ArgMin;
  results.push_back(Type::block(isArg ? ScalarKind::I32 : src.kind(), shape));
  return std::nullopt;
}

/// Ops a combine region may hold: scalar arithmetic, comparisons, selects,
/// casts and math, which the code generator applies to whole strips.
static bool allowedInCombiner(OpClass c) {
  switch (c) {
  case OpClass::Constant:
  case OpClass::Arith:
  case OpClass::FloatBinary:
  case OpClass::Bitwise:
  case OpClass::ArithUnary:
  case OpClass::BitwiseUnary:
  case OpClass::FloatUnary:
  case OpClass::Fma:
  case OpClass::Cmp:
  case OpClass::Select:
  case OpClass::CastTo:
  case OpClass::Terminator:
    return true;
  default:
    return false;
  }
}

std::optional<TypeError> inferCombining(const Operation &op, Types &results) {
  std::string name(op.name());
  if (op.operands.empty())
    return opError("'" + name + "' needs at least one operand");
  const Type &first = op.operands[0]->type();
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Type &t = op.operands[i]->type();
    if (!t.isBlock() || t.isPointer() || isStorageOnlyKind(t.kind()))
      return operandError(int(i), "'" + name + "' expects blocks of numbers, got " + quote(t));
    if (t.shape() != first.shape())
      return operandError(
          int(i), "'" + name + "' operands must have one shape: " + formatShape(first.shape()) +
                      " and " + formatShape(t.shape()));
  }
  if (auto e = checkAxis(op, first.rank()))
    return e;
  if (op.regions.size() != 1)
    return opError("'" + name + "' needs a combine body");
  const Region &body = *op.regions[0];
  size_t n = op.operands.size();
  if (body.args.size() != 2 * n)
    return opError("'" + name + "' combines two values per operand: its body takes " +
                   std::to_string(2 * n) + " arguments, not " + std::to_string(body.args.size()));
  for (size_t i = 0; i < body.args.size(); ++i)
    if (body.args[i]->type() != op.operands[i % n]->type().elementType())
      return opError("combine argument " + std::to_string(i) + " must be " +
                     quote(op.operands[i % n]->type().elementType()));
  for (const auto &inner : body.ops) {
    if (!allowedInCombiner(inner->opClass()))
      return opError("a combine body holds scalar arithmetic, comparisons, selects, casts "
                     "and math only; '" +
                     std::string(inner->name()) + "' cannot be in it");
    for (const auto &r : inner->results)
      if (!r->type().isScalar())
        return opError("a combine body computes scalars; '" + std::string(inner->name()) +
                       "' gives " + quote(r->type()));
  }
  Shape shape = first.shape();
  if (op.kind() == OpKind::ReduceWith)
    shape.erase(shape.begin() + op.ints[0]);
  for (const Value *v : op.operands)
    results.push_back(v->type().withShape(shape));
  return std::nullopt;
}

std::optional<TypeError> inferDot(const Operation &op, Types &results) {
  if (auto e = expectOperands(op, 3))
    return e;
  const Type &a = op.operands[0]->type(), &b = op.operands[1]->type(),
             &acc = op.operands[2]->type();
  for (int i = 0; i < 3; ++i)
    if (op.operands[i]->type().rank() != 2 || op.operands[i]->type().isPointer())
      return operandError(i, "'dot' expects 2D blocks of numbers, got " +
                                 quote(op.operands[i]->type()));
  if (a.shape()[1] != b.shape()[0])
    return operandError(1, "inner dimensions differ: " + quote(a) + " times " + quote(b));
  if (acc.shape() != Shape{a.shape()[0], b.shape()[1]})
    return operandError(2, "accumulator " + quote(acc) + " must be [" +
                               std::to_string(a.shape()[0]) + ", " + std::to_string(b.shape()[1]) +
                               "]");
  if (a.kind() != b.kind())
    return operandError(1, "operand element types differ: " + a.elementType().str() + " and " +
                               b.elementType().str());
  ScalarKind want;
  switch (a.kind()) {
  case ScalarKind::F32:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    want = ScalarKind::F32;
    break;
  case ScalarKind::F64:
    want = ScalarKind::F64;
    break;
  case ScalarKind::I8:
    want = ScalarKind::I32;
    break;
  default:
    return operandError(0, "'dot' supports f32, f16, bf16, f64 and i8 operands, got " +
                               a.elementType().str());
  }
  if (acc.kind() != want)
    return operandError(2, "a dot of " + a.elementType().str() + " accumulates in " +
                               std::string(scalarKindName(want)) + ", got " +
                               acc.elementType().str());
  results.push_back(acc);
  return std::nullopt;
}

std::optional<TypeError> inferCall(const Operation &op, const Module &module, Types &results) {
  const Function *callee = module.lookupFunction(op.callee);
  if (!callee)
    return opError("call to undefined function @" + op.callee);
  if (callee->isKernel)
    return opError("cannot call kernel @" + op.callee + "; only 'func' functions are callable");
  const auto &params = callee->body.args;
  if (params.size() != op.operands.size())
    return opError("@" + op.callee + " takes " + std::to_string(params.size()) +
                   " arguments, got " + std::to_string(op.operands.size()));
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i]->type() != op.operands[i]->type())
      return operandError(int(i), "argument " + std::to_string(i) + " of @" + op.callee +
                                      " has type " + quote(params[i]->type()) + ", got " +
                                      quote(op.operands[i]->type()));
  results = callee->resultTypes;
  return std::nullopt;
}

std::optional<TypeError> inferFor(const Operation &op, Types &results) {
  if (op.operands.size() < 3)
    return opError("'for' needs a lower bound, an upper bound and a step");
  const Type &lo = op.operands[0]->type();
  for (int i = 0; i < 3; ++i) {
    const Type &t = op.operands[i]->type();
    if (!t.isScalar() || !isNumber(t) || !t.isInteger())
      return operandError(i, "loop bounds are integer scalars, got " + quote(t));
    if (t != lo)
      return operandError(i, "loop bounds must share one type: " + quote(lo) + " and " + quote(t));
  }
  for (size_t i = 3; i < op.operands.size(); ++i)
    results.push_back(op.operands[i]->type());
  return std::nullopt;
}

std::optional<TypeError> inferWhile(const Operation &op, Types &results) {
  if (op.operands.empty())
    return opError("'while' needs a condition");
  const Type &cond = op.operands[0]->type();
  if (!cond.isBool() || !cond.isScalar())
    return operandError(0, "a 'while' condition is a scalar i1, got " + quote(cond));
  for (size_t i = 1; i < op.operands.size(); ++i)
    results.push_back(op.operands[i]->type());
  return std::nullopt;
}

std::optional<TypeError> inferIf(const Operation &op, Types &results) {
  if (auto e = expectOperands(op, 1))
    return e;
  const Type &cond = op.operands[0]->type();
  if (!cond.isBool() || !cond.isScalar())
    return operandError(0, "'if' condition must be a scalar i1, got " + quote(cond));
  if (op.regions.empty())
    return opError("'if' needs a then-region");
  if (Operation *yield = op.regions[0]->terminator())
    for (Value *v : yield->operands)
      results.push_back(v->type());
  return std::nullopt;
}

} // namespace blockc::typerules
