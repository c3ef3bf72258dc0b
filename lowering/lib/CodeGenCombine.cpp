//===- CodeGenCombine.cpp - Reductions and scans with a combine body ------===//
//
// `reduce` and `scan` apply their combine body, a few scalar ops, to whole
// strips: the body's ops are the elementwise ones, and combine() computes any
// of them on a vector as on a scalar.
//
// - Along an axis other than the last, strips of the result run across the
//   last dimension and the reduced axis is walked one row at a time: every
//   lane is an independent chain, fully vectorized.
// - A reduction along the last axis keeps a strip of partial results per row
//   (lane j combines elements j, j + L, j + 2L, ...), with a mask of the lanes
//   that hold one, so no identity element is needed and any strip may be
//   partial (RVV's vector length may be short mid-row); the lanes are then
//   folded in order. The combine function must be associative and
//   commutative, as Triton requires.
// - A scan along the last axis runs a log-step prefix inside each strip
//   (Hillis-Steele: log2(L) shuffles on fixed-width vectors, a loop of
//   shifts through a stack slot on scalable ones) and carries the strip's
//   last active lane into the next; a reverse scan along the last axis is the
//   same over the row read from its end (gathers and scatters of the strips'
//   mirror images).
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

#include "llvm/IR/Module.h"

namespace blockc {

llvm::SmallVector<llvm::Value *, 4>
KernelCodeGen::applyCombiner(const Operation &op, llvm::ArrayRef<llvm::Value *> left,
                             llvm::ArrayRef<llvm::Value *> right) {
  const Region &body = *op.regions[0];
  bool vector = left[0]->getType()->isVectorTy();
  std::unordered_map<const Value *, llvm::Value *> values;
  for (size_t i = 0; i < left.size(); ++i) {
    values[body.args[i].get()] = left[i];
    values[body.args[left.size() + i].get()] = right[i];
  }
  // A scalar from outside the body (a kernel argument, say) is the same in
  // every lane.
  auto get = [&](const Value *v) {
    auto it = values.find(v);
    if (it != values.end())
      return it->second;
    llvm::Value *outer = eval(v, {}, false);
    return vector ? splat(outer) : outer;
  };
  llvm::SmallVector<llvm::Value *, 4> results;
  for (const auto &inner : body.ops) {
    const Operation &o = *inner;
    if (o.kind() == OpKind::Yield) {
      for (const Value *v : o.operands)
        results.push_back(get(v));
      break;
    }
    llvm::Value *result;
    if (o.kind() == OpKind::Const) {
      result = evalDef(o, o.result(), {}, false);
      result = vector ? splat(result) : result;
    } else if (o.kind() == OpKind::UCast) {
      result =
          convertUnsigned(get(o.operands[0]), o.operands[0]->type().elementType(), o.targetType);
    } else if (o.opClass() == OpClass::CastTo) {
      result = convert(get(o.operands[0]), o.operands[0]->type().elementType(), o.targetType,
                       o.kind() == OpKind::Bitcast);
    } else {
      llvm::SmallVector<llvm::Value *, 3> args;
      for (const Value *v : o.operands)
        args.push_back(get(v));
      result = combine(o, args, o.operands.back()->type());
    }
    values[o.result()] = result;
  }
  return results;
}

namespace {

llvm::SmallVector<llvm::Value *, 4> selectAll(llvm::IRBuilder<> &b, llvm::Value *condition,
                                              llvm::ArrayRef<llvm::Value *> ifTrue,
                                              llvm::ArrayRef<llvm::Value *> ifFalse) {
  llvm::SmallVector<llvm::Value *, 4> out;
  for (size_t i = 0; i < ifTrue.size(); ++i)
    out.push_back(b.CreateSelect(condition, ifTrue[i], ifFalse[i]));
  return out;
}

} // namespace

KernelCodeGen::CombineSlots KernelCodeGen::combineSlots(const Operation &op, bool vector) {
  CombineSlots slots;
  llvm::IRBuilder<> entry = entryBuilder();
  for (const Value *v : op.operands) {
    llvm::Type *element = scalarType(v->type().kind());
    llvm::Type *type = vector ? vectorOf(element) : element;
    slots.types.push_back(type);
    slots.slots.push_back(entry.CreateAlloca(type));
  }
  return slots;
}

llvm::SmallVector<llvm::Value *, 4> KernelCodeGen::CombineSlots::load(llvm::IRBuilder<> &b) {
  llvm::SmallVector<llvm::Value *, 4> values;
  for (size_t i = 0; i < slots.size(); ++i)
    values.push_back(b.CreateLoad(types[i], slots[i]));
  return values;
}

void KernelCodeGen::CombineSlots::store(llvm::IRBuilder<> &b, llvm::ArrayRef<llvm::Value *> v) {
  for (size_t i = 0; i < v.size(); ++i)
    b.CreateStore(v[i], slots[i]);
}

llvm::SmallVector<llvm::Value *, 4> KernelCodeGen::evalOperands(const Operation &op,
                                                                const Coords &coords, bool vector) {
  llvm::SmallVector<llvm::Value *, 4> values;
  for (const Value *v : op.operands)
    values.push_back(eval(v, coords, vector));
  return values;
}

void KernelCodeGen::storeResults(const Operation &op, llvm::ArrayRef<llvm::Value *> buffers,
                                 const Coords &coords, llvm::ArrayRef<llvm::Value *> values,
                                 bool vector) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (buffers[i])
      storeBuffer(buffers[i], op.results[i]->type(), coords, values[i], vector);
    else
      scalars_[op.results[i].get()] = values[i];
  }
}

void KernelCodeGen::emitCombining(const Operation &op) {
  llvm::SmallVector<llvm::Value *, 4> buffers;
  for (const auto &r : op.results) {
    llvm::Value *buffer = nullptr;
    if (r->type().isBlock()) {
      buffer = allocaBuffer(r->type(), r->name());
      buffers_[r.get()] = buffer;
    }
    buffers.push_back(buffer);
  }
  const Shape &shape = op.operands[0]->type().shape();
  size_t axis = size_t(op.ints[0]);
  bool scan = op.kind() == OpKind::Scan;
  bool reverse = scan && op.ints[1];
  if (axis + 1 != shape.size())
    return emitCombiningAcrossRows(op, buffers, reverse);
  if (!scan)
    return emitReduceAlongRows(op, buffers);
  emitScanAlongRowsLogStep(op, buffers, reverse);
}

void KernelCodeGen::emitCombiningAcrossRows(const Operation &op,
                                            llvm::ArrayRef<llvm::Value *> buffers, bool reverse) {
  const Shape &shape = op.operands[0]->type().shape();
  size_t axis = size_t(op.ints[0]);
  int64_t extent = shape[axis];
  bool scan = op.kind() == OpKind::Scan;
  Shape outer = shape;
  outer.erase(outer.begin() + axis);
  forEachStrip(outer, [&](const Coords &outerCoords, bool vector) {
    auto at = [&](llvm::Value *k) {
      Coords coords = outerCoords;
      coords.insert(coords.begin() + axis, k);
      return coords;
    };
    llvm::Value *first = i64(reverse ? extent - 1 : 0);
    llvm::SmallVector<llvm::Value *, 4> acc = evalOperands(op, at(first), vector);
    if (scan)
      storeResults(op, buffers, at(first), acc, vector);
    CombineSlots slots = combineSlots(op, vector);
    slots.store(b_, acc);
    // Row k of the walk (k from 1): index k, or extent - 1 - k backwards.
    emitCountedLoop(i64(1), i64(extent), i64(1), [&](llvm::Value *k) {
      llvm::Value *index = reverse ? b_.CreateSub(i64(extent - 1), k) : k;
      llvm::SmallVector<llvm::Value *, 4> next =
          applyCombiner(op, slots.load(b_), evalOperands(op, at(index), vector));
      slots.store(b_, next);
      if (scan)
        storeResults(op, buffers, at(index), next, vector);
    });
    if (!scan)
      storeResults(op, buffers, outerCoords, slots.load(b_), vector);
  });
}

void KernelCodeGen::emitReduceAlongRows(const Operation &op,
                                        llvm::ArrayRef<llvm::Value *> buffers) {
  const Shape &shape = op.operands[0]->type().shape();
  Shape outer(shape.begin(), shape.end() - 1);
  int64_t length = shape.back();
  llvm::Type *i8 = b_.getInt8Ty();
  auto perRow = [&](const Coords &rowCoords) {
    if (length == 1) {
      Coords coords = rowCoords;
      coords.push_back(i64(0));
      storeResults(op, buffers, rowCoords, evalOperands(op, coords, false), false);
      return;
    }
    CombineSlots partial = combineSlots(op, true);
    llvm::Type *flagsType = vectorOf(i8);
    llvm::Value *flagsSlot = entryBuilder().CreateAlloca(flagsType);
    b_.CreateStore(llvm::Constant::getNullValue(flagsType), flagsSlot);
    forEachStripOfRow(length, [&](llvm::Value *column, bool vector) {
      Coords coords = rowCoords;
      coords.push_back(column);
      llvm::SmallVector<llvm::Value *, 4> x = evalOperands(op, coords, vector);
      llvm::SmallVector<llvm::Value *, 4> acc = partial.load(b_);
      llvm::Value *flags = b_.CreateLoad(flagsType, flagsSlot);
      llvm::Value *held = b_.CreateICmpNE(flags, llvm::Constant::getNullValue(flagsType));
      llvm::SmallVector<llvm::Value *, 4> next = selectAll(b_, held, applyCombiner(op, acc, x), x);
      llvm::Value *active = activeLanes();
      if (active) {
        next = selectAll(b_, active, next, acc);
        held = b_.CreateOr(held, active);
      } else {
        held = llvm::Constant::getAllOnesValue(held->getType());
      }
      partial.store(b_, next);
      b_.CreateStore(b_.CreateZExt(held, flagsType), flagsSlot);
    });
    // Fold the lanes that hold a partial result, in lane order.
    llvm::SmallVector<llvm::Value *, 4> lanes = partial.load(b_);
    llvm::Value *flags = b_.CreateLoad(flagsType, flagsSlot);
    CombineSlots result = combineSlots(op, false);
    result.store(b_, extractAll(lanes, b_.getInt64(0)));
    llvm::Value *count = b_.CreateElementCount(b_.getInt64Ty(), stripCount_);
    // Lane 0 always holds a partial result (the row is not empty).
    emitCountedLoop(i64(1), count, i64(1), [&](llvm::Value *lane) {
      llvm::Value *holds =
          b_.CreateICmpNE(b_.CreateExtractElement(flags, lane), llvm::ConstantInt::get(i8, 0));
      llvm::SmallVector<llvm::Value *, 4> acc = result.load(b_);
      llvm::SmallVector<llvm::Value *, 4> x = extractAll(lanes, lane);
      result.store(b_, selectAll(b_, holds, applyCombiner(op, acc, x), acc));
    });
    storeResults(op, buffers, rowCoords, result.load(b_), false);
  };
  if (outer.empty())
    perRow({});
  else
    forEachElement(outer, perRow);
}

llvm::SmallVector<llvm::Value *, 4> KernelCodeGen::extractAll(llvm::ArrayRef<llvm::Value *> vectors,
                                                              llvm::Value *lane) {
  llvm::SmallVector<llvm::Value *, 4> out;
  for (llvm::Value *v : vectors)
    out.push_back(b_.CreateExtractElement(v, lane));
  return out;
}

llvm::Value *KernelCodeGen::mirroredPointers(llvm::Value *buffer, const Type &type,
                                             const Coords &coords, bool vector) {
  const Shape &shape = type.shape();
  Coords rowStart = coords;
  rowStart.back() = i64(0);
  llvm::Value *last = b_.CreateAdd(linearIndex(shape, rowStart), i64(shape.back() - 1));
  llvm::Value *index = b_.CreateSub(last, coords.back());
  if (vector)
    index = b_.CreateSub(splat(index), b_.CreateStepVector(vectorOf(b_.getInt64Ty())));
  return b_.CreateGEP(memoryType(type.elementType()), buffer, index);
}

void KernelCodeGen::emitScanAlongRowsLogStep(const Operation &op,
                                             llvm::ArrayRef<llvm::Value *> buffers, bool reverse) {
  const Shape &shape = op.operands[0]->type().shape();
  Shape outer(shape.begin(), shape.end() - 1);
  int64_t length = shape.back();
  // A reverse scan is the forward one over the row read from its end: strips
  // gather their mirror images from the operands' buffers and scatter their
  // results back there, so the combine runs log-step as forward.
  llvm::SmallVector<llvm::Value *, 4> sources;
  if (reverse)
    for (const Value *v : op.operands)
      sources.push_back(bufferOf(v));
  auto mirroredLoad = [&](size_t i, const Coords &coords, bool vector) {
    const Type &type = op.operands[i]->type();
    llvm::Type *memTy = memoryType(type.elementType());
    llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
    llvm::Value *ptrs = mirroredPointers(sources[i], type, coords, vector);
    return fromMemory(vector ? gatherStrip(vectorOf(memTy), ptrs, align, tailMask(), nullptr)
                             : b_.CreateAlignedLoad(memTy, ptrs, align),
                      type.elementType());
  };
  auto mirroredStore = [&](const Coords &coords, llvm::ArrayRef<llvm::Value *> values,
                           bool vector) {
    for (size_t i = 0; i < values.size(); ++i) {
      const Type &type = op.results[i]->type();
      llvm::Type *memTy = memoryType(type.elementType());
      llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
      llvm::Value *ptrs = mirroredPointers(buffers[i], type, coords, vector);
      llvm::Value *bits = toMemory(values[i], type.elementType());
      if (vector)
        scatterStrip(bits, ptrs, align, tailMask());
      else
        b_.CreateAlignedStore(bits, ptrs, align);
    }
  };
  auto perRow = [&](const Coords &rowCoords) {
    CombineSlots carry = combineSlots(op, false);
    llvm::Value *hasCarrySlot = entryBuilder().CreateAlloca(b_.getInt1Ty());
    b_.CreateStore(b_.getFalse(), hasCarrySlot);
    forEachStripOfRow(length, [&](llvm::Value *column, bool vector) {
      Coords coords = rowCoords;
      coords.push_back(column);
      llvm::SmallVector<llvm::Value *, 4> y;
      if (reverse)
        for (size_t i = 0; i < op.operands.size(); ++i)
          y.push_back(mirroredLoad(i, coords, vector));
      else
        y = evalOperands(op, coords, vector);
      llvm::Value *hasCarry = b_.CreateLoad(b_.getInt1Ty(), hasCarrySlot);
      if (vector)
        y = stripPrefix(op, y);
      llvm::SmallVector<llvm::Value *, 4> carried = carry.load(b_);
      if (vector)
        for (llvm::Value *&c : carried)
          c = splat(c);
      y = selectAll(b_, hasCarry, applyCombiner(op, carried, y), y);
      if (reverse)
        mirroredStore(coords, y, vector);
      else
        storeResults(op, buffers, coords, y, vector);
      // The strip's last active lane carries into the next strip (a strip
      // followed by another is full, except RVV's, whose vector length says).
      llvm::Value *last =
          vector ? b_.CreateSub(b_.CreateZExt(vectorLength(), b_.getInt64Ty()), i64(1)) : nullptr;
      carry.store(b_, vector ? extractAll(y, last) : y);
      b_.CreateStore(b_.getTrue(), hasCarrySlot);
    });
  };
  if (outer.empty())
    perRow({});
  else
    forEachElement(outer, perRow);
}

llvm::SmallVector<llvm::Value *, 4>
KernelCodeGen::stripPrefix(const Operation &op, llvm::SmallVector<llvm::Value *, 4> y) {
  llvm::Type *i32 = b_.getInt32Ty();
  if (!stripCount_.isScalable()) {
    // After the step of distance d, lane i combines lanes i - 2d + 1 .. i.
    unsigned lanes = unsigned(stripCount_.getFixedValue());
    for (unsigned d = 1; d < lanes; d *= 2) {
      llvm::SmallVector<int, 64> shift(lanes);
      llvm::SmallVector<llvm::Constant *, 64> reaches(lanes);
      for (unsigned i = 0; i < lanes; ++i) {
        shift[i] = i >= d ? int(i - d) : int(i);
        reaches[i] = b_.getInt1(i >= d);
      }
      llvm::SmallVector<llvm::Value *, 4> shifted;
      for (llvm::Value *v : y)
        shifted.push_back(b_.CreateShuffleVector(v, shift));
      y = selectAll(b_, llvm::ConstantVector::get(reaches), applyCombiner(op, shifted, y), y);
    }
    return y;
  }
  // Scalable strips: the same steps in a loop while d is below the strip's
  // lanes, known when the kernel runs. A lane shift is a store of the strip
  // at element d of a slot twice its size and a load from the slot's start
  // (no ISA-independent shift by a run-time distance exists).
  llvm::Value *lanes = b_.CreateElementCount(i32, stripCount_);
  // Vectors of i1 are packed bits in memory: they make the trip as bytes.
  llvm::SmallVector<bool, 4> bits;
  for (llvm::Value *&v : y) {
    bits.push_back(v->getType()->getScalarType()->isIntegerTy(1));
    if (bits.back())
      v = b_.CreateZExt(v, vectorOf(b_.getInt8Ty()));
  }
  auto asCombined = [&](llvm::SmallVector<llvm::Value *, 4> values) {
    for (size_t i = 0; i < values.size(); ++i)
      if (bits[i])
        values[i] = b_.CreateTrunc(values[i], vectorOf(b_.getInt1Ty()));
    return values;
  };
  auto asStored = [&](llvm::SmallVector<llvm::Value *, 4> values) {
    for (size_t i = 0; i < values.size(); ++i)
      if (bits[i])
        values[i] = b_.CreateZExt(values[i], vectorOf(b_.getInt8Ty()));
    return values;
  };
  llvm::IRBuilder<> entry = entryBuilder();
  llvm::SmallVector<llvm::Value *, 4> slots, vectorSlots;
  for (llvm::Value *v : y) {
    slots.push_back(entry.CreateAlloca(v->getType(), entry.getInt32(2)));
    vectorSlots.push_back(entry.CreateAlloca(v->getType()));
  }
  for (size_t i = 0; i < y.size(); ++i)
    b_.CreateStore(y[i], vectorSlots[i]);
  llvm::Value *step = b_.CreateStepVector(vectorOf(i32));
  emitLoop(b_.getInt32(1), lanes, [&](llvm::Value *d) {
    llvm::SmallVector<llvm::Value *, 4> current, shifted;
    for (size_t i = 0; i < y.size(); ++i) {
      llvm::Type *type = y[i]->getType();
      llvm::Type *element = llvm::cast<llvm::VectorType>(type)->getElementType();
      llvm::Value *v = b_.CreateLoad(type, vectorSlots[i]);
      current.push_back(v);
      b_.CreateStore(v, b_.CreateGEP(element, slots[i], d));
      shifted.push_back(b_.CreateLoad(type, slots[i]));
    }
    llvm::Value *reaches = b_.CreateICmpUGE(step, splat(d));
    llvm::SmallVector<llvm::Value *, 4> mine = asCombined(current);
    llvm::SmallVector<llvm::Value *, 4> next =
        asStored(selectAll(b_, reaches, applyCombiner(op, asCombined(shifted), mine), mine));
    for (size_t i = 0; i < y.size(); ++i)
      b_.CreateStore(next[i], vectorSlots[i]);
    return b_.CreateShl(d, b_.getInt32(1));
  });
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = b_.CreateLoad(y[i]->getType(), vectorSlots[i]);
  return asCombined(y);
}

} // namespace blockc
