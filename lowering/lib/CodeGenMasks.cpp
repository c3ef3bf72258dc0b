//===- CodeGenMasks.cpp - Masks whose every lane is on --------------------===//
//
// A load or store under a mask whose lanes are all on needs no mask, and a
// dot whose operand tiles are whole reads them in place. Most masks are index
// masks: `offs < n`, offsets affine in the block's coordinates, and
// conjunctions of such compares broadcast together. Every lane of an affine
// compare is on exactly when its extreme lane is, which a few scalar
// instructions decide once the offsets are shown not to wrap; other masks are
// tested strip by strip.
//
// Strip loops whose loads and stores carry index masks are versioned on
// them: where every lane is on (every chunk of a row but the last, every row
// of a block as wide as the rows), the loop runs with no mask at all, which
// on AVX2 is the difference between vmaskmov and plain moves, and on RVV
// between a mask register per strip and none.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

#include <limits>

namespace blockc {

std::optional<KernelCodeGen::Extremes> KernelCodeGen::extremesOf(const Value *x) {
  const Type &type = x->type();
  ScalarKind kind = type.kind();
  if (!type.isInteger() ||
      (kind != ScalarKind::I8 && kind != ScalarKind::I16 && kind != ScalarKind::I32))
    return std::nullopt;
  if (type.isBlock() && (buffers_.count(x) || !x->definingOp()))
    return std::nullopt;
  Coords origin(type.rank(), i64(0));
  llvm::Value *first = b_.CreateSExt(eval(x, origin, false), b_.getInt64Ty());
  Extremes extremes{first, first, b_.getTrue()};
  for (unsigned axis = 0; axis < type.rank(); ++axis) {
    int64_t length = type.shape()[axis];
    if (length == 1)
      continue;
    std::optional<Stride> stride = strideAlong(x, axis);
    if (!stride)
      return std::nullopt;
    if (stride->isConstant(0))
      continue;
    // The lanes differ from the first by these i64 amounts modulo 2^bits;
    // where the exact sums stay within the type's range, they are the lanes.
    llvm::Value *span = b_.CreateMul(runtimeStride(*stride), i64(length - 1));
    llvm::Value *zero = i64(0);
    extremes.min =
        b_.CreateAdd(extremes.min, b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, span, zero));
    extremes.max =
        b_.CreateAdd(extremes.max, b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, span, zero));
  }
  unsigned bits = bitWidth(kind);
  int64_t lowest = -(int64_t(1) << (bits - 1)), highest = (int64_t(1) << (bits - 1)) - 1;
  extremes.exact = b_.CreateAnd(b_.CreateICmpSGE(extremes.min, i64(lowest)),
                                b_.CreateICmpSLE(extremes.max, i64(highest)));
  return extremes;
}

llvm::Value *KernelCodeGen::exactLaneAsI64(const Operation &op, unsigned i, const Coords &coords) {
  const Value *v = op.operands[i];
  if (!v->type().isBlock() || !exactOffsets_.count(v))
    return nullptr;
  const Shape &shape = v->type().shape();
  size_t offset = coords.size() - shape.size();
  Coords origin(shape.size(), i64(0));
  llvm::Value *lane = b_.CreateSExt(eval(v, origin, false), b_.getInt64Ty());
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] == 1)
      continue;
    std::optional<Stride> stride = strideAlong(v, axis);
    if (!stride)
      return nullptr;
    if (stride->isConstant(0))
      continue;
    llvm::Value *step = b_.CreateMul(coords[axis + offset], runtimeStride(*stride), "",
                                     /*HasNUW=*/false, /*HasNSW=*/true);
    lane = b_.CreateAdd(lane, step, "", /*HasNUW=*/false, /*HasNSW=*/true);
  }
  return lane;
}

std::optional<llvm::Value *>
KernelCodeGen::everyLaneOnAtOnce(const Value *mask, std::vector<const Value *> *compared) {
  if (mask->type().isScalar())
    return eval(mask, {}, false);
  const Operation *op = mask->definingOp();
  if (!op || buffers_.count(mask))
    return std::nullopt;
  switch (op->kind()) {
  case OpKind::And: {
    std::optional<llvm::Value *> left = everyLaneOnAtOnce(op->operands[0], compared);
    std::optional<llvm::Value *> right =
        left ? everyLaneOnAtOnce(op->operands[1], compared) : std::nullopt;
    if (!right)
      return std::nullopt;
    return b_.CreateAnd(*left, *right);
  }
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Reshape:
  case OpKind::Splat:
    return everyLaneOnAtOnce(op->operands[0], compared);
  case OpKind::Const:
    return b_.getInt1(op->constant.intValue != 0);
  case OpKind::Cmp: {
    CmpPredicate predicate = op->predicate;
    if (predicate != CmpPredicate::LT && predicate != CmpPredicate::LE &&
        predicate != CmpPredicate::GT && predicate != CmpPredicate::GE)
      return std::nullopt;
    std::optional<Extremes> left = extremesOf(op->operands[0]);
    std::optional<Extremes> right = left ? extremesOf(op->operands[1]) : std::nullopt;
    if (!right)
      return std::nullopt;
    llvm::Value *holds = nullptr;
    switch (predicate) {
    case CmpPredicate::LT:
      holds = b_.CreateICmpSLT(left->max, right->min);
      break;
    case CmpPredicate::LE:
      holds = b_.CreateICmpSLE(left->max, right->min);
      break;
    case CmpPredicate::GT:
      holds = b_.CreateICmpSGT(left->min, right->max);
      break;
    default:
      holds = b_.CreateICmpSGE(left->min, right->max);
      break;
    }
    if (compared)
      compared->insert(compared->end(), op->operands.begin(), op->operands.end());
    return b_.CreateAnd(holds, b_.CreateAnd(left->exact, right->exact));
  }
  default:
    return std::nullopt;
  }
}

llvm::Value *KernelCodeGen::everyLaneOn(const Value *mask) {
  if (std::optional<llvm::Value *> atOnce = everyLaneOnAtOnce(mask))
    return *atOnce;
  if (const Operation *op = mask->definingOp(); op && !buffers_.count(mask)) {
    switch (op->kind()) {
    case OpKind::And:
      // Operands broadcast to the mask's shape: each is whole on its own shape.
      return b_.CreateAnd(everyLaneOn(op->operands[0]), everyLaneOn(op->operands[1]));
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::Splat:
      return everyLaneOn(op->operands[0]);
    default:
      break;
    }
  }
  llvm::Value *slot = entryBuilder().CreateAlloca(b_.getInt1Ty(), nullptr, "every_lane_on");
  b_.CreateStore(b_.getTrue(), slot);
  forEachStrip(mask->type().shape(), [&](const Coords &coords, bool vector) {
    llvm::Value *on = eval(mask, coords, vector);
    if (vector) {
      if (llvm::Value *active = activeLanes())
        on = b_.CreateOr(on, b_.CreateNot(active));
      on = b_.CreateAndReduce(on);
    }
    b_.CreateStore(b_.CreateAnd(b_.CreateLoad(b_.getInt1Ty(), slot), on), slot);
  });
  return b_.CreateLoad(b_.getInt1Ty(), slot);
}

void KernelCodeGen::collectAccessMasks(const Value *v, std::vector<const Value *> &masks,
                                       std::unordered_set<const Value *> &seen) {
  if (!seen.insert(v).second || v->type().isScalar() || buffers_.count(v) || !v->definingOp())
    return;
  collectAccessMasks(*v->definingOp(), masks, seen);
}

void KernelCodeGen::collectAccessMasks(const Operation &op, std::vector<const Value *> &masks,
                                       std::unordered_set<const Value *> &seen) {
  bool accessesMemory = op.kind() == OpKind::Load || op.kind() == OpKind::Store;
  if (accessesMemory && op.hasMask && !op.isVolatile &&
      std::find(masks.begin(), masks.end(), op.mask()) == masks.end())
    masks.push_back(op.mask());
  for (const Value *operand : op.operands)
    collectAccessMasks(operand, masks, seen);
}

void KernelCodeGen::versionOnFullMasks(llvm::ArrayRef<const Value *> masks,
                                       llvm::ArrayRef<const Value *> scalarResults,
                                       const std::function<void()> &body) {
  std::vector<const Value *> whole, compared;
  llvm::Value *allOn = nullptr;
  if (!bounds_)
    for (const Value *mask : masks) {
      if (fullMasks_.count(mask))
        continue;
      // Only a mask the version tests vouches for its offsets: a conjunction
      // whose second part could not be tested leaves its first part's out.
      std::vector<const Value *> maskCompared;
      std::optional<llvm::Value *> on = everyLaneOnAtOnce(mask, &maskCompared);
      if (!on)
        continue;
      compared.insert(compared.end(), maskCompared.begin(), maskCompared.end());
      allOn = allOn ? b_.CreateAnd(allOn, *on) : *on;
      whole.push_back(mask);
    }
  if (whole.empty())
    return body();
  auto *unmasked = llvm::BasicBlock::Create(ctx_, "masks.full", fn_);
  auto *masked = llvm::BasicBlock::Create(ctx_, "masks.partial", fn_);
  auto *merge = llvm::BasicBlock::Create(ctx_, "masks.merge", fn_);
  b_.CreateCondBr(allOn, unmasked, masked);
  // Each version's values live in its own blocks.
  auto version = [&](llvm::BasicBlock *block, bool full) {
    memo_.clear();
    b_.SetInsertPoint(block);
    std::vector<const Value *> newlyExact;
    if (full) {
      fullMasks_.insert(whole.begin(), whole.end());
      for (const Value *offsets : compared)
        if (offsets->type().isBlock() && exactOffsets_.insert(offsets).second)
          newlyExact.push_back(offsets);
    }
    body();
    if (full) {
      for (const Value *mask : whole)
        fullMasks_.erase(mask);
      for (const Value *offsets : newlyExact)
        exactOffsets_.erase(offsets);
    }
    std::vector<llvm::Value *> results;
    for (const Value *v : scalarResults)
      results.push_back(scalars_.at(v));
    llvm::BasicBlock *end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    return std::make_pair(end, results);
  };
  auto [fullEnd, fullResults] = version(unmasked, true);
  auto [maskedEnd, maskedResults] = version(masked, false);
  memo_.clear();
  b_.SetInsertPoint(merge);
  for (size_t i = 0; i < scalarResults.size(); ++i) {
    llvm::PHINode *phi = b_.CreatePHI(fullResults[i]->getType(), 2);
    phi->addIncoming(fullResults[i], fullEnd);
    phi->addIncoming(maskedResults[i], maskedEnd);
    scalars_[scalarResults[i]] = phi;
  }
}

} // namespace blockc
