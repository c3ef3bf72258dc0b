//===- CanonicalizePointers.cpp - Carry pointer tiles as scalar bases -----===//
//
// The Triton matmul carries its A and B pointer tiles through the K loop and
// advances them by a scalar step:
//
//   %p0 = addptr %a, %offs                      (%a scalar, %offs a block)
//   for ... iter(%p = %p0) { ... load %p ... yield (addptr %p, %step) }
//
// A carried block lives in a buffer, and a load through pointers read from a
// buffer has no known stride: it becomes a gather. This pass carries only the
// scalar base and rebuilds the tile from the loop-invariant offsets where it
// is used, so that the code generator sees `addptr %base, %offs` and can tell
// contiguous and strided accesses apart:
//
//   for ... iter(%p_base = %a) { %p = addptr %p_base, %offs  ...
//                                yield (addptr %p_base, %step) }
//
//===----------------------------------------------------------------------===//
#include "blockc/frontend/IRUtils.h"
#include "blockc/lowering/Passes.h"

namespace blockc {

namespace {

std::unique_ptr<Operation> makeAddPtr(Value *base, Value *offset, const Type &type,
                                      const std::string &name, SourceLoc loc) {
  auto op = std::make_unique<Operation>(OpKind::AddPtr, loc);
  op->operands = {base, offset};
  op->addResult(type, name, loc);
  return op;
}

/// `v` as `addptr BASE, OFFSET` with a scalar BASE and a block OFFSET.
const Operation *scalarBasePlusBlock(const Value *v) {
  const Operation *def = v->definingOp();
  if (!def || def->kind() != OpKind::AddPtr)
    return nullptr;
  if (!def->operands[0]->type().isScalar() || !def->operands[1]->type().isBlock())
    return nullptr;
  return def;
}

/// Rewrites carried value `i` of the `for` at `parent.ops[index]` when it is
/// a pointer tile advanced by a scalar step. Returns whether it did.
bool carryScalarBase(Region &parent, size_t index, size_t i) {
  Operation &loop = *parent.ops[index];
  Region &body = *loop.regions[0];
  Operation *yield = body.terminator();
  Value *init = loop.operands[3 + i];
  Value *arg = body.args[1 + i].get();
  if (!yield || !arg->type().isPointer() || !arg->type().isBlock())
    return false;
  const Operation *start = scalarBasePlusBlock(init);
  const Operation *advance = yield->operands[i]->definingOp();
  if (!start || !advance || advance->kind() != OpKind::AddPtr || advance->operands[0] != arg ||
      !advance->operands[1]->type().isScalar())
    return false;
  Value *base = start->operands[0];
  Value *offsets = start->operands[1];
  Value *step = advance->operands[1];
  Type tile = arg->type();
  Type scalar = tile.elementType();

  // Inside the loop: the tile, rebuilt from the carried base.
  std::unique_ptr<Operation> rebuilt = makeAddPtr(arg, offsets, tile, arg->name(), loop.loc());
  replaceAllUsesWith(body, arg, rebuilt->result());
  body.ops.insert(body.ops.begin(), std::move(rebuilt));
  arg->setType(scalar);
  arg->setName(arg->name() + "_base");
  // The step: the base advances, not the tile.
  std::unique_ptr<Operation> next =
      makeAddPtr(arg, step, scalar, arg->name() + "_next", yield->loc());
  yield->operands[i] = next->result();
  body.ops.insert(body.ops.end() - 1, std::move(next));
  loop.operands[3 + i] = base;
  // After the loop: the final tile, rebuilt the same way.
  Value *result = loop.results[i].get();
  std::unique_ptr<Operation> after = makeAddPtr(result, offsets, tile, result->name(), loop.loc());
  replaceAllUsesWith(parent, result, after->result());
  after->operands[0] = result;
  result->setType(scalar);
  result->setName(result->name() + "_base");
  parent.ops.insert(parent.ops.begin() + index + 1, std::move(after));
  return true;
}

bool rewrite(Region &region) {
  bool changed = false;
  for (size_t index = 0; index < region.ops.size(); ++index) {
    Operation &op = *region.ops[index];
    for (auto &inner : op.regions)
      changed |= rewrite(*inner);
    if (op.kind() != OpKind::For)
      continue;
    for (size_t i = 0; i + 3 < op.operands.size(); ++i)
      changed |= carryScalarBase(region, index, i);
  }
  return changed;
}

} // namespace

bool canonicalizePointers(Module &module) {
  bool changed = false;
  for (auto &fn : module.functions)
    if (rewrite(fn->body)) {
      eraseDeadOps(fn->body);
      changed = true;
    }
  return changed;
}

} // namespace blockc
