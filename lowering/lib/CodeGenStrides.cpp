//===- CodeGenStrides.cpp - How far apart the lanes of a pointer strip are ===//
//
// A load or store whose lanes are one element apart is one vector access; any
// other distance needs a gather or a scatter. The distance comes from the
// arithmetic of the offsets (aranges, constants, scalar arguments), so it is
// known either when compiling or, for a stride passed as an argument (the
// matmul's stride_ak), when the kernel runs: such accesses are versioned, a
// vector access where the stride turns out to be 1 and a gather elsewhere.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

namespace blockc {

namespace {

Stride zero() {
  return {};
}

/// a + sign * b, when the two scale alike.
std::optional<Stride> addStrides(std::optional<Stride> a, std::optional<Stride> b, int sign) {
  if (!a || !b)
    return std::nullopt;
  if (b->isConstant(0))
    return a;
  if (a->isConstant(0))
    return Stride{sign * b->factor, b->scale};
  if (a->scale != b->scale)
    return std::nullopt;
  Stride sum{a->factor + sign * b->factor, a->scale};
  return sum.factor == 0 ? zero() : sum;
}

} // namespace

std::optional<Stride> KernelCodeGen::operandStride(const Operation &op, unsigned i) {
  const Shape &shape = op.operands[i]->type().shape();
  if (shape.empty() || shape.back() == 1)
    return zero();
  return strideOf(op.operands[i]);
}

std::optional<Stride> KernelCodeGen::strideOf(const Value *v) {
  if (v->type().isScalar())
    return zero();
  return strideAlong(v, v->type().shape().size() - 1);
}

std::optional<Stride> KernelCodeGen::strideAlong(const Value *v, size_t axis) {
  if (v->type().isScalar() || v->type().shape()[axis] == 1)
    return zero();
  if (buffers_.count(v) || !v->definingOp())
    return std::nullopt;
  const Operation &op = *v->definingOp();
  // Operands of elementwise ops have the result's rank (size 1 where they
  // broadcast, which strideAlong answers with zero) or are scalars.
  auto operandStride = [&](const Operation &op, unsigned i) -> std::optional<Stride> {
    return strideAlong(op.operands[i], axis);
  };
  switch (op.kind()) {
  case OpKind::Arange:
    return Stride{1, nullptr};
  case OpKind::Const:
  case OpKind::Splat:
    return zero();
  case OpKind::Broadcast:
    return operandStride(op, 0);
  case OpKind::ExpandDims: {
    auto inserted = size_t(op.ints[0]);
    if (axis == inserted)
      return zero();
    return strideAlong(op.operands[0], axis > inserted ? axis - 1 : axis);
  }
  case OpKind::Add:
  case OpKind::AddPtr:
    return addStrides(operandStride(op, 0), operandStride(op, 1), 1);
  case OpKind::Sub:
    return addStrides(operandStride(op, 0), operandStride(op, 1), -1);
  case OpKind::Mul:
    for (unsigned i = 0; i < 2; ++i) {
      std::optional<Stride> s = operandStride(op, i), other = operandStride(op, 1 - i);
      if (!s || !other || !other->isConstant(0))
        continue;
      if (s->isConstant(0))
        return zero();
      const Value *factor = op.operands[1 - i];
      const Operation *def = factor->definingOp();
      if (def && def->kind() == OpKind::Const && !def->constant.isFloat)
        return Stride{s->factor * def->constant.intValue, s->scale};
      if (factor->type().isScalar() && !s->scale)
        return Stride{s->factor, factor};
    }
    return std::nullopt;
  case OpKind::Cast:
    if (op.operands[0]->type().isInteger() && op.targetType.isInteger() &&
        bitWidth(op.targetType.kind()) >= bitWidth(op.operands[0]->type().kind()))
      return operandStride(op, 0);
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

llvm::Value *KernelCodeGen::runtimeStride(const Stride &stride) {
  llvm::Value *scale = stride.scale ? eval(stride.scale, {}, false) : i64(1);
  scale = b_.CreateSExtOrTrunc(scale, b_.getInt64Ty());
  return b_.CreateMul(scale, i64(stride.factor));
}

llvm::Value *KernelCodeGen::whenUnitStride(llvm::Value *stride,
                                           const std::function<llvm::Value *()> &unit,
                                           const std::function<llvm::Value *()> &other) {
  return branchAndJoin(b_.CreateICmpEQ(stride, i64(1)), "stride.unit", nullptr, unit, other);
}

} // namespace blockc
