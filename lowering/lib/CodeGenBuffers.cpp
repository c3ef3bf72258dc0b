//===- CodeGenBuffers.cpp - Block values held in memory -------------------===//
//
// A materialized value (FuseElementwise.h) lives in a scratch buffer of its
// shape, row-major, in its memory type; strips are read and written there at
// coordinates. A virtual value is computed into a buffer where an operation
// needs one whole (a dot's operand, say).
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

namespace blockc {

llvm::Value *KernelCodeGen::allocaBuffer(const Type &type, const std::string &name) {
  return scratch_->allocate(llvm::ArrayType::get(memoryType(type), type.numElements()), name);
}

void KernelCodeGen::materialize(const Operation &op, const Value *v) {
  auto inPlace = accumulatorBuffers_.find(v);
  llvm::Value *buffer =
      inPlace != accumulatorBuffers_.end() ? inPlace->second : allocaBuffer(v->type(), v->name());
  switch (op.opClass()) {
  case OpClass::Reduce:
    emitReduce(op, buffer);
    break;
  case OpClass::Dot:
    emitDot(op, buffer);
    break;
  default:
    writeInto(v, buffer);
    break;
  }
  buffers_[v] = buffer;
}

void KernelCodeGen::writeInto(const Value *v, llvm::Value *buffer, bool versionMasks) {
  auto it = buffers_.find(v);
  if (it != buffers_.end())
    return copyBuffer(buffer, it->second, v->type());
  const Operation &op = *v->definingOp();
  if (op.kind() == OpKind::Load && isTransposable(op))
    return writeTransposableLoad(op, v, buffer);
  if (op.kind() == OpKind::Trans || op.kind() == OpKind::Reshape || op.isVolatile) {
    // Lanes of a transposed strip are far apart in the source, and a volatile
    // load is one load instruction per element (LLVM has no volatile masked
    // vector load): go element by element (these ops are rare).
    forEachElement(v->type().shape(), [&](const Coords &coords) {
      storeBuffer(buffer, v->type(), coords, evalDef(op, v, coords, false), false);
    });
    return;
  }
  auto strips = [&] {
    forEachStrip(v->type().shape(), [&](const Coords &coords, bool vector) {
      storeBuffer(buffer, v->type(), coords, evalDef(op, v, coords, vector), vector);
    });
  };
  if (!versionMasks)
    return strips();
  std::vector<const Value *> masks;
  std::unordered_set<const Value *> seen;
  collectAccessMasks(op, masks, seen);
  versionOnFullMasks(masks, {}, strips);
}

bool KernelCodeGen::readsValue(const Value *v, const Value *x) {
  if (v == x)
    return true;
  if (buffers_.count(v) || !v->definingOp() || v->type().isScalar())
    return false;
  for (const Value *operand : v->definingOp()->operands)
    if (readsValue(operand, x))
      return true;
  return false;
}

llvm::Value *KernelCodeGen::bufferOf(const Value *v, bool versionMasks) {
  auto it = buffers_.find(v);
  if (it != buffers_.end())
    return it->second;
  llvm::Value *buffer = allocaBuffer(v->type(), v->name() + ".tmp");
  writeInto(v, buffer, versionMasks);
  return buffer;
}

} // namespace blockc
