//===- TypeRules.cpp ------------------------------------------------------===//
#include "TypeRulesImpl.h"

#include <algorithm>

namespace blockc {

std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  const Shape &longer = a.size() >= b.size() ? a : b;
  const Shape &shorter = a.size() >= b.size() ? b : a;
  Shape out = longer;
  size_t offset = longer.size() - shorter.size();
  for (size_t i = 0; i < shorter.size(); ++i) {
    int64_t x = longer[offset + i], y = shorter[i];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    out[offset + i] = std::max(x, y);
  }
  return out;
}

bool broadcastsTo(const Shape &from, const Shape &to) {
  std::optional<Shape> joined = broadcastShapes(from, to);
  return joined && *joined == to;
}

std::optional<std::string> checkBlockShape(const Shape &shape) {
  if (shape.empty() || shape.size() > kMaxBlockRank)
    return "a block has rank 1 to " + std::to_string(kMaxBlockRank) + ", not " +
           std::to_string(shape.size());
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 1)
      return "block dimension must be positive, got " + std::to_string(d);
    if (d > kMaxBlockElements || (n *= d) > kMaxBlockElements)
      return "block " + formatShape(shape) + " has more than " + std::to_string(kMaxBlockElements) +
             " elements";
  }
  return std::nullopt;
}

std::optional<std::string> checkConstantFits(const ConstantValue &value, ScalarKind kind) {
  std::string typeName(scalarKindName(kind));
  if (isFloatKind(kind))
    return std::nullopt;
  if (value.isFloat)
    return "a float constant cannot have integer type " + typeName;
  unsigned bits = bitWidth(kind);
  if (bits == 1) {
    if (value.intValue != 0 && value.intValue != 1)
      return "an i1 constant is true, false, 0 or 1";
    return std::nullopt;
  }
  if (bits == 64)
    return std::nullopt;
  // Accept both the signed and the unsigned reading, as C does for 0xFF in i8.
  int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << bits) - 1;
  if (value.intValue < lo || value.intValue > hi)
    return std::to_string(value.intValue) + " does not fit in " + typeName;
  return std::nullopt;
}

ConstantValue canonicalConstant(const ConstantValue &value, ScalarKind kind) {
  unsigned bits = bitWidth(kind);
  if (value.isFloat || isFloatKind(kind) || bits == 1 || bits >= 64)
    return value;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t low = uint64_t(value.intValue) & mask;
  if (low >> (bits - 1))
    low |= ~mask;
  return ConstantValue::ofInt(int64_t(low));
}

namespace typerules {

TypeError opError(std::string message) {
  return {-1, std::move(message)};
}
TypeError operandError(int index, std::string message) {
  return {index, std::move(message)};
}

std::string quote(const Type &t) {
  return "'" + t.str() + "'";
}

std::optional<TypeError> expectOperands(const Operation &op, size_t n) {
  if (op.operands.size() == n)
    return std::nullopt;
  return opError("'" + std::string(op.name()) + "' takes " + std::to_string(n) + " operands, got " +
                 std::to_string(op.operands.size()));
}

/// Broadcasts the shapes of `indices` operands; all must have element `kind`
/// when `sameKind` is set.
std::optional<TypeError> broadcastOperands(const Operation &op, std::initializer_list<int> indices,
                                           Shape &shape) {
  shape.clear();
  for (int i : indices) {
    const Type &t = op.operands[i]->type();
    std::optional<Shape> joined = broadcastShapes(shape, t.shape());
    if (!joined)
      return operandError(i, "shapes " + formatShape(shape) + " and " + formatShape(t.shape()) +
                                 " do not broadcast");
    shape = *joined;
  }
  return std::nullopt;
}

std::optional<TypeError> sameElement(const Operation &op, int a, int b) {
  const Type &ta = op.operands[a]->type(), &tb = op.operands[b]->type();
  if (ta.elementType() == tb.elementType())
    return std::nullopt;
  return operandError(b, "element type " + tb.elementType().str() + " differs from " +
                             ta.elementType().str() + "; insert a cast");
}

bool isNumber(const Type &t) {
  return !t.isPointer() && t.kind() != ScalarKind::I1 && !isStorageOnlyKind(t.kind());
}
bool isIntegerType(const Type &t) {
  return t.isInteger();
}
bool isShiftable(const Type &t) {
  return t.isInteger() && !t.isBool();
}
bool isFloatType(const Type &t) {
  return t.isFloat() && !isStorageOnlyKind(t.kind());
}

std::optional<TypeError> requireKind(const Operation &op, int i, Predicate ok, const char *what) {
  const Type &t = op.operands[i]->type();
  if (ok(t))
    return std::nullopt;
  std::string message = "'" + std::string(op.name()) + "' expects " + what + ", got " + quote(t);
  if (!t.isPointer() && isStorageOnlyKind(t.kind()))
    message += ": " + std::string(scalarKindName(t.kind())) +
               " is a storage type; cast it to f32 (or f16, bf16) to compute";
  return operandError(i, message);
}

/// Ops whose operands share one element type and broadcast to one shape.
std::optional<TypeError> inferElementwise(const Operation &op, size_t arity, Predicate ok,
                                          const char *what, Types &results) {
  if (auto e = expectOperands(op, arity))
    return e;
  for (size_t i = 0; i < arity; ++i) {
    if (auto e = requireKind(op, int(i), ok, what))
      return e;
    if (i > 0)
      if (auto e = sameElement(op, 0, int(i)))
        return e;
  }
  Shape shape;
  if (arity == 1)
    shape = op.operands[0]->type().shape();
  else if (auto e = arity == 2 ? broadcastOperands(op, {0, 1}, shape)
                               : broadcastOperands(op, {0, 1, 2}, shape))
    return e;
  results.push_back(op.operands[0]->type().withShape(shape));
  return std::nullopt;
}

std::optional<TypeError> checkAxis(const Operation &op, int64_t limit) {
  size_t expected = op.kind() == OpKind::Scan ? 2 : 1; // a scan's second int says reverse
  if (op.ints.size() != expected)
    return opError("'" + std::string(op.name()) + "' needs an axis");
  int64_t axis = op.ints[0];
  if (axis < 0 || axis >= limit)
    return opError("axis " + std::to_string(axis) + " is out of range [0, " +
                   std::to_string(limit) + ")");
  return std::nullopt;
}

std::optional<TypeError> inferShapeTo(const Operation &op, Types &results) {
  if (auto e = expectOperands(op, 1))
    return e;
  if (auto msg = checkBlockShape(op.shape))
    return opError(*msg);
  const Type &src = op.operands[0]->type();
  switch (op.kind()) {
  case OpKind::Splat:
    if (!src.isScalar())
      return operandError(0, "'splat' expects a scalar, got " + quote(src) +
                                 "; use 'broadcast' for blocks");
    break;
  case OpKind::Broadcast:
    if (src.rank() > op.shape.size() || !broadcastsTo(src.shape(), op.shape))
      return operandError(0, "cannot broadcast " + quote(src) + " to " + formatShape(op.shape));
    break;
  default: // Reshape
    if (!src.isBlock())
      return operandError(0, "'reshape' expects a block, got " + quote(src));
    if (src.numElements() != src.withShape(op.shape).numElements())
      return opError("cannot reshape " + quote(src) + " to " + formatShape(op.shape) +
                     ": element counts differ");
    break;
  }
  results.push_back(src.withShape(op.shape));
  return std::nullopt;
}

std::optional<TypeError> inferTrans(const Operation &op, Types &results) {
  if (auto e = expectOperands(op, 1))
    return e;
  const Type &src = op.operands[0]->type();
  if (!src.isBlock())
    return operandError(0, "'trans' expects a block, got " + quote(src));
  std::vector<int64_t> perm = op.ints;
  if (perm.empty()) {
    if (src.rank() != 2)
      return operandError(0, "'trans' without perm expects a 2D block, got " + quote(src));
    perm = {1, 0};
  }
  if (perm.size() != src.rank())
    return opError("perm has " + std::to_string(perm.size()) + " entries for a rank-" +
                   std::to_string(src.rank()) + " block");
  Shape shape(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= int64_t(perm.size()) || seen[p])
      return opError("perm " + formatShape(perm) + " is not a permutation of 0.." +
                     std::to_string(perm.size() - 1));
    seen[p] = true;
    shape[i] = src.shape()[p];
  }
  results.push_back(src.withShape(shape));
  return std::nullopt;
}

} // namespace typerules

using namespace typerules;

std::optional<TypeError> inferResultTypes(const Operation &op, const Module &module,
                                          Types &results) {
  results.clear();
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (!op.operands[i])
      return operandError(int(i), "operand " + std::to_string(i) + " is missing");

  switch (op.opClass()) {
  case OpClass::GridQuery:
    if (auto e = expectOperands(op, 0))
      return e;
    if (auto e = checkAxis(op, 3))
      return e;
    results.push_back(Type::scalar(ScalarKind::I32));
    return std::nullopt;
  case OpClass::Constant: {
    if (auto e = expectOperands(op, 0))
      return e;
    const Type &t = op.targetType;
    if (t.isPointer())
      return opError("constants cannot have pointer type " + quote(t));
    if (t.isBlock())
      if (auto msg = checkBlockShape(t.shape()))
        return opError(*msg);
    if (auto msg = checkConstantFits(op.constant, t.kind()))
      return opError(*msg);
    results.push_back(t);
    return std::nullopt;
  }
  case OpClass::Arange: {
    if (auto e = expectOperands(op, 0))
      return e;
    if (op.ints.size() != 2)
      return opError("'arange' needs a start and an end");
    int64_t start = op.ints[0], end = op.ints[1];
    if (start < 0 || end > INT32_MAX || start >= end)
      return opError("arange bounds must satisfy 0 <= start < end <= 2^31-1, got " +
                     std::to_string(start) + ", " + std::to_string(end));
    Shape shape{end - start};
    if (auto msg = checkBlockShape(shape))
      return opError(*msg);
    results.push_back(Type::block(ScalarKind::I32, shape));
    return std::nullopt;
  }
  case OpClass::ShapeTo:
    return inferShapeTo(op, results);
  case OpClass::AxisOp: {
    if (auto e = expectOperands(op, 1))
      return e;
    const Type &src = op.operands[0]->type();
    if (auto e = checkAxis(op, src.rank() + 1))
      return e;
    if (src.rank() == kMaxBlockRank)
      return operandError(0, "cannot expand " + quote(src) + " beyond rank " +
                                 std::to_string(kMaxBlockRank));
    Shape shape = src.shape();
    shape.insert(shape.begin() + op.ints[0], 1);
    results.push_back(src.withShape(shape));
    return std::nullopt;
  }
  case OpClass::Trans:
    return inferTrans(op, results);
  case OpClass::Arith:
    return inferElementwise(op, 2, isNumber, "numbers", results);
  case OpClass::FloatBinary:
  case OpClass::FloatUnary:
    return inferElementwise(op, op.opClass() == OpClass::FloatUnary ? 1 : 2, isFloatType, "floats",
                            results);
  case OpClass::Bitwise: {
    bool isShift =
        op.kind() == OpKind::Shl || op.kind() == OpKind::AShr || op.kind() == OpKind::LShr;
    return isShift ? inferElementwise(op, 2, isShiftable, "integers wider than i1", results)
                   : inferElementwise(op, 2, isIntegerType, "integers", results);
  }
  case OpClass::ArithUnary:
    return inferElementwise(op, 1, isNumber, "numbers", results);
  case OpClass::BitwiseUnary:
    return inferElementwise(op, 1, isIntegerType, "integers", results);
  case OpClass::Fma:
    return inferElementwise(op, 3, isFloatType, "floats", results);
  case OpClass::Cmp:
    if (isUnsignedPredicate(op.predicate)) {
      if (auto e = inferElementwise(op, 2, isIntegerType, "integers", results))
        return e;
    } else if (auto e = inferElementwise(op, 2, isNumber, "numbers", results)) {
      return e;
    }
    results[0] = results[0].withKind(ScalarKind::I1);
    return std::nullopt;
  case OpClass::Select: {
    if (auto e = expectOperands(op, 3))
      return e;
    if (!op.operands[0]->type().isBool())
      return operandError(0, "select condition must be i1, got " + quote(op.operands[0]->type()));
    if (auto e = sameElement(op, 1, 2))
      return e;
    Shape shape;
    if (auto e = broadcastOperands(op, {0, 1, 2}, shape))
      return e;
    results.push_back(op.operands[1]->type().withShape(shape));
    return std::nullopt;
  }
  case OpClass::CastTo:
    return inferCast(op, results);
  case OpClass::AddPtr: {
    if (auto e = expectOperands(op, 2))
      return e;
    if (!op.operands[0]->type().isPointer())
      return operandError(0, "'addptr' expects a pointer, got " + quote(op.operands[0]->type()));
    if (auto e = requireKind(op, 1, isIntegerType, "integer offsets"))
      return e;
    Shape shape;
    if (auto e = broadcastOperands(op, {0, 1}, shape))
      return e;
    results.push_back(op.operands[0]->type().withShape(shape));
    return std::nullopt;
  }
  case OpClass::Load:
    return inferLoad(op, results);
  case OpClass::Store:
    return inferStore(op);
  case OpClass::AtomicRMW:
  case OpClass::AtomicCas:
    return inferAtomic(op, results);
  case OpClass::Reduce:
    return inferReduce(op, results);
  case OpClass::Combining:
    return inferCombining(op, results);
  case OpClass::Assert:
    if (auto e = expectOperands(op, 1))
      return e;
    if (!op.operands[0]->type().isBool())
      return operandError(0,
                          "'assert' checks an i1 condition, got " + quote(op.operands[0]->type()));
    return std::nullopt;
  case OpClass::Print: {
    // Scalars print beside every element; blocks print element by element,
    // so they must share one shape.
    const Type *block = nullptr;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Type &t = op.operands[i]->type();
      if (!t.isBlock())
        continue;
      if (block && t.shape() != block->shape())
        return operandError(int(i),
                            "'print' prints blocks of one shape: " + formatShape(block->shape()) +
                                " and " + formatShape(t.shape()));
      block = &t;
    }
    return std::nullopt;
  }
  case OpClass::Dot:
    return inferDot(op, results);
  case OpClass::Call:
    return inferCall(op, module, results);
  case OpClass::For:
    return inferFor(op, results);
  case OpClass::While:
    return inferWhile(op, results);
  case OpClass::If:
    return inferIf(op, results);
  case OpClass::Terminator:
    return std::nullopt;
  }
  return opError("unknown op");
}

} // namespace blockc
