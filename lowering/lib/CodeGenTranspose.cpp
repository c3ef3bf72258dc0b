//===- CodeGenTranspose.cpp - 2D accesses whose columns are contiguous ----===//
//
// On ISAs without strided vector accesses (x86, NEON), a 2D load or store
// whose last-axis stride is a scalar argument (a matmul operand's stride_ak)
// is versioned three ways when the kernel runs instead of gathering:
// - rows contiguous (that stride is 1): the strip path, vector accesses;
// - columns contiguous (the other axis has stride 1: a transposed operand):
//   blocks of L x L elements are read or written column by column with
//   vector accesses and transposed in registers, masks included;
// - neither: element by element.
// No gather or scatter is left, and no masked-off element is touched.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc {

bool KernelCodeGen::isTransposable(const Operation &op) {
  const Value *ptrs = op.operands[0];
  if (isa_.hasStridedAccess() || stripCount_.isScalable() || options_.checkBounds ||
      ptrs->type().isScalar() || ptrs->type().shape().size() != 2 || ptrs->type().shape()[1] == 1)
    return false;
  std::optional<Stride> last = strideOf(ptrs);
  return last && last->scale && last->factor == 1 && knownUnitScale_ != last->scale &&
         strideAlong(ptrs, 0);
}

llvm::SmallVector<llvm::Value *, 16>
KernelCodeGen::transposeSquare(llvm::ArrayRef<llvm::Value *> rows) {
  // Swaps the off-diagonal h x h blocks of every 2h x 2h block, for h = 1, 2,
  // 4, ...: each level exchanges bit h of the row and column numbers.
  llvm::SmallVector<llvm::Value *, 16> v(rows.begin(), rows.end());
  int lanes = int(v.size());
  for (int h = 1; h < lanes; h *= 2) {
    llvm::SmallVector<int, 16> low(lanes), high(lanes);
    for (int j = 0; j < lanes; ++j) {
      low[j] = (j & h) ? lanes + j - h : j;
      high[j] = (j & h) ? lanes + j : j + h;
    }
    for (int i = 0; i < lanes; ++i)
      if (!(i & h)) {
        llvm::Value *a = v[i], *b = v[i + h];
        v[i] = b_.CreateShuffleVector(a, b, low);
        v[i + h] = b_.CreateShuffleVector(a, b, high);
      }
  }
  return v;
}

void KernelCodeGen::versionOnStrides(const Operation &op, const std::function<void()> &rows,
                                     const std::function<void()> &columns,
                                     const std::function<void()> &elements) {
  const Value *ptrs = op.operands[0];
  Stride last = *strideOf(ptrs), first = *strideAlong(ptrs, 0);
  whenUnitStride(
      runtimeStride(last),
      [&]() -> llvm::Value * {
        // Every stride scaled by this argument is now its constant factor.
        const Value *saved = knownUnitScale_;
        knownUnitScale_ = last.scale;
        rows();
        knownUnitScale_ = saved;
        return nullptr;
      },
      [&]() -> llvm::Value * {
        whenUnitStride(
            runtimeStride(first),
            [&]() -> llvm::Value * {
              columns();
              return nullptr;
            },
            [&]() -> llvm::Value * {
              elements();
              return nullptr;
            });
        return nullptr;
      });
}

void KernelCodeGen::forEachSquare(
    const Shape &shape,
    const std::function<void(llvm::Value *, llvm::Value *, const RowMasks &)> &body) {
  int64_t lanes = int64_t(stripCount_.getFixedValue());
  emitCountedLoop(i64(0), i64(shape[0]), i64(lanes), [&](llvm::Value *row0) {
    emitCountedLoop(i64(0), i64(shape[1]), i64(lanes), [&](llvm::Value *col0) {
      memo_.clear();
      llvm::Value *columnsIn =
          b_.CreateIntrinsic(llvm::Intrinsic::get_active_lane_mask,
                             {vectorOf(b_.getInt1Ty()), b_.getInt64Ty()}, {col0, i64(shape[1])});
      RowMasks rows;
      for (int64_t i = 0; i < lanes; ++i) {
        llvm::Value *row = b_.CreateAdd(row0, i64(i));
        llvm::Value *inside = b_.CreateICmpSLT(row, i64(shape[0]));
        // Rows past the block still evaluate their (unused, masked-off)
        // lanes: at the last row, so that no coordinate leaves the shape.
        rows.coords.push_back({b_.CreateSelect(inside, row, i64(shape[0] - 1)), col0});
        rows.masks.push_back(b_.CreateAnd(columnsIn, splat(inside)));
      }
      body(row0, col0, rows);
    });
  });
}

void KernelCodeGen::writeTransposableLoad(const Operation &op, const Value *v,
                                          llvm::Value *buffer) {
  const Type &type = v->type();
  const Shape &shape = type.shape();
  auto strips = [&] {
    forEachStrip(shape, [&](const Coords &coords, bool vector) {
      storeBuffer(buffer, type, coords, evalDef(op, v, coords, vector), vector);
    });
  };
  auto columns = [&] {
    llvm::Type *memTy = memoryType(type);
    llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
    forEachSquare(shape, [&](llvm::Value *row0, llvm::Value *col0, const RowMasks &rows) {
      size_t lanes = rows.masks.size();
      llvm::Value *savedTail = tailMask_;
      llvm::SmallVector<llvm::Value *, 16> masks(rows.masks.begin(), rows.masks.end());
      if (op.hasMask)
        for (size_t i = 0; i < lanes; ++i) {
          tailMask_ = rows.masks[i];
          masks[i] = b_.CreateAnd(masks[i], evalOperand(op, 1, rows.coords[i], true));
        }
      llvm::SmallVector<llvm::Value *, 16> columnMasks = transposeSquare(masks), columnData;
      for (size_t j = 0; j < lanes; ++j) {
        llvm::Value *top = evalOperand(op, 0, {row0, b_.CreateAdd(col0, i64(int64_t(j)))}, false);
        columnData.push_back(b_.CreateMaskedLoad(vectorOf(memTy), top, align, columnMasks[j],
                                                 llvm::Constant::getNullValue(vectorOf(memTy))));
      }
      llvm::SmallVector<llvm::Value *, 16> rowData = transposeSquare(columnData);
      for (size_t i = 0; i < lanes; ++i) {
        llvm::Value *value = rowData[i];
        tailMask_ = rows.masks[i];
        if (op.hasOther)
          value = b_.CreateSelect(masks[i], value,
                                  toMemory(evalOperand(op, 2, rows.coords[i], true), type));
        storeBuffer(buffer, type, {b_.CreateAdd(row0, i64(int64_t(i))), col0},
                    fromMemory(value, type), true);
      }
      tailMask_ = savedTail;
    });
  };
  auto elements = [&] {
    forEachElement(shape, [&](const Coords &coords) {
      storeBuffer(buffer, type, coords, evalDef(op, v, coords, false), false);
    });
  };
  versionOnStrides(op, strips, columns, elements);
}

void KernelCodeGen::emitTransposableStore(const Operation &op,
                                          const std::function<void()> &strips) {
  const Type &valueType = op.operands[1]->type();
  const Shape &shape = op.operands[0]->type().shape();
  llvm::Type *memTy = memoryType(valueType);
  llvm::Align align(module_.getDataLayout().getABITypeAlign(memTy));
  auto columns = [&] {
    forEachSquare(shape, [&](llvm::Value *row0, llvm::Value *col0, const RowMasks &rows) {
      size_t lanes = rows.masks.size();
      llvm::SmallVector<llvm::Value *, 16> masks(rows.masks.begin(), rows.masks.end()), values;
      llvm::Value *savedTail = tailMask_;
      for (size_t i = 0; i < lanes; ++i) {
        // The value's own reads (a buffer, a load) stay inside the block.
        tailMask_ = rows.masks[i];
        if (op.hasMask)
          masks[i] = b_.CreateAnd(masks[i], evalOperand(op, 2, rows.coords[i], true));
        values.push_back(toMemory(evalOperand(op, 1, rows.coords[i], true), valueType));
      }
      tailMask_ = savedTail;
      llvm::SmallVector<llvm::Value *, 16> columnMasks = transposeSquare(masks),
                                           columnData = transposeSquare(values);
      for (size_t j = 0; j < lanes; ++j) {
        llvm::Value *top = evalOperand(op, 0, {row0, b_.CreateAdd(col0, i64(int64_t(j)))}, false);
        b_.CreateMaskedStore(columnData[j], top, align, columnMasks[j]);
      }
    });
  };
  auto elements = [&] {
    forEachElement(shape, [&](const Coords &coords) {
      llvm::Value *value = toMemory(evalOperand(op, 1, coords, false), valueType);
      llvm::Value *ptr = evalOperand(op, 0, coords, false);
      if (!op.hasMask) {
        b_.CreateAlignedStore(value, ptr, align);
        return;
      }
      b_.CreateMaskedStore(b_.CreateVectorSplat(1, value), ptr, align,
                           b_.CreateVectorSplat(1, evalOperand(op, 2, coords, false)));
    });
  };
  versionOnStrides(op, strips, columns, elements);
}

} // namespace blockc
