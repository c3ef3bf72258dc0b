//===- ImeDot.cpp - i8 dots on the SpacemiT IME ---------------------------===//
#include "ImeDot.h"

#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace blockc::riscv {

namespace {

// One smt.vmadot at VLEN 256: C[4x4] += A[4x8] . B[8x4].
constexpr int64_t kAtomRows = 4, kAtomCols = 4, kAtomK = 8;
// A register holds 32 bytes: four rows of A, or four columns of B, of 8 k.
constexpr int64_t kRegisterBytes = 32;
// The tile: 3 registers of A by 4 of B, 12 accumulator pairs.
constexpr int64_t kARegisters = 3, kBRegisters = 4;
constexpr int64_t kTileRows = kARegisters * kAtomRows, kTileCols = kBRegisters * kAtomCols;
constexpr int64_t kAccumulators = kARegisters * kBRegisters;
// Elements of one accumulator pair: 4x4 i32, row-major.
constexpr int64_t kAtomElements = kAtomRows * kAtomCols;
// The model's `signs` argument for smt.vmadot (both signed), as
// tests/codegen/ImeModel.h numbers them.
constexpr int kSignedSigned = 0;

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

class ImeEmitter {
public:
  ImeEmitter(const DotOperands &dot, bool model)
      : dot_(dot), b_(dot.builder), model_(model), i8_(b_.getInt8Ty()), i32_(b_.getInt32Ty()),
        registerType_(llvm::ScalableVectorType::get(i8_, 8)),
        accumulatorType_(llvm::ScalableVectorType::get(i32_, 4)), kGroups_(ceilDiv(dot.k, kAtomK)),
        panels_(ceilDiv(dot.n, kTileCols)) {}

  void emit() {
    // Per panel of 16 columns: its 8-k groups, each 16 columns of 8 bytes.
    packedB_ = dot_.allocateScratch(
        llvm::ArrayType::get(i8_, uint64_t(panels_ * kGroups_ * kTileCols * kAtomK)), "ime.b");
    packedA_ = dot_.allocateScratch(
        llvm::ArrayType::get(i8_, uint64_t(kGroups_ * kTileRows * kAtomK)), "ime.a");
    image_ = dot_.allocateScratch(
        llvm::ArrayType::get(i32_, uint64_t(kAccumulators * kAtomElements)), "ime.acc");
    if (model_) {
      aImage_ = dot_.allocateScratch(llvm::ArrayType::get(i8_, kRegisterBytes), "ime.model_a");
      bImage_ = dot_.allocateScratch(llvm::ArrayType::get(i8_, kRegisterBytes), "ime.model_b");
    }
    int64_t fullPanels = dot_.n / kTileCols;
    emitConstantLoop(b_, 0, fullPanels, 1, [&](llvm::Value *p) { packPanelOfB(p, kTileCols); });
    if (int64_t cols = dot_.n % kTileCols)
      packPanelOfB(b_.getInt64(fullPanels), cols);

    int64_t fullRows = dot_.m / kTileRows * kTileRows;
    emitConstantLoop(b_, 0, fullRows, kTileRows,
                     [&](llvm::Value *row0) { emitRowTile(row0, kTileRows); });
    if (int64_t rows = dot_.m - fullRows)
      emitRowTile(b_.getInt64(fullRows), rows);
  }

private:
  /// Columns p*16 .. p*16 + cols of B into packedB_[p]: for each group of 8
  /// k, column c's 8 bytes at c*8 (vs2's layout: B[k][n] is byte 8n + k),
  /// zeros past B's last row and column.
  void packPanelOfB(llvm::Value *p, int64_t cols) {
    auto *rowType = llvm::FixedVectorType::get(i8_, kTileCols);
    llvm::Value *colMask = cols == kTileCols ? nullptr : firstLanesMask(b_, kTileCols, cols);
    llvm::Value *col0 = b_.CreateMul(p, b_.getInt64(kTileCols));
    auto packGroup = [&](llvm::Value *group, int64_t rowsInGroup) {
      llvm::Value *to =
          b_.CreateGEP(i8_, packedB_,
                       b_.CreateMul(b_.CreateAdd(b_.CreateMul(p, b_.getInt64(kGroups_)), group),
                                    b_.getInt64(kTileCols * kAtomK)));
      for (int64_t j = 0; j < kAtomK; ++j) {
        llvm::Value *row = llvm::Constant::getNullValue(rowType);
        if (j < rowsInGroup) {
          llvm::Value *k = b_.CreateAdd(b_.CreateMul(group, b_.getInt64(kAtomK)), b_.getInt64(j));
          llvm::Value *from =
              b_.CreateGEP(i8_, dot_.b, b_.CreateAdd(b_.CreateMul(k, dot_.rowStrideOfB()), col0));
          row = loadBytes(rowType, from, colMask);
        }
        // Byte j of each column's 8: a store 8 bytes apart (vsse8).
        b_.CreateIntrinsic(llvm::Intrinsic::experimental_vp_strided_store,
                           {rowType, b_.getPtrTy(), b_.getInt64Ty()},
                           {row, b_.CreateGEP(i8_, to, b_.getInt64(j)), b_.getInt64(kAtomK),
                            allLanes(kTileCols), b_.getInt32(kTileCols)});
      }
    };
    int64_t fullGroups = dot_.k / kAtomK;
    emitConstantLoop(b_, 0, fullGroups, 1, [&](llvm::Value *g) { packGroup(g, kAtomK); });
    if (int64_t rest = dot_.k % kAtomK)
      packGroup(b_.getInt64(fullGroups), rest);
  }

  /// Rows row0 .. row0 + rows of A into packedA_: for each group of 8 k, row
  /// r's 8 bytes at r*8 (vs1's layout: A[m][k] is byte 8m + k), zeros past
  /// A's last row and column.
  void packRowTileOfA(llvm::Value *row0, int64_t rows) {
    auto *chunkType = llvm::FixedVectorType::get(i8_, kAtomK);
    auto packGroup = [&](llvm::Value *group, int64_t bytes) {
      llvm::Value *mask = bytes == kAtomK ? nullptr : firstLanesMask(b_, kAtomK, bytes);
      for (int64_t r = 0; r < kTileRows; ++r) {
        llvm::Value *chunk = llvm::Constant::getNullValue(chunkType);
        if (r < rows) {
          llvm::Value *from = b_.CreateGEP(
              i8_, dot_.a,
              b_.CreateAdd(b_.CreateMul(b_.CreateAdd(row0, b_.getInt64(r)), dot_.rowStrideOfA()),
                           b_.CreateMul(group, b_.getInt64(kAtomK))));
          chunk = loadBytes(chunkType, from, mask);
        }
        llvm::Value *to =
            b_.CreateGEP(i8_, packedA_,
                         b_.CreateAdd(b_.CreateMul(group, b_.getInt64(kTileRows * kAtomK)),
                                      b_.getInt64(r * kAtomK)));
        b_.CreateAlignedStore(chunk, to, llvm::Align(1));
      }
    };
    int64_t fullGroups = dot_.k / kAtomK;
    emitConstantLoop(b_, 0, fullGroups, 1, [&](llvm::Value *g) { packGroup(g, kAtomK); });
    if (int64_t rest = dot_.k % kAtomK)
      packGroup(b_.getInt64(fullGroups), rest);
  }

  void emitRowTile(llvm::Value *row0, int64_t rows) {
    packRowTileOfA(row0, rows);
    int64_t fullPanels = dot_.n / kTileCols;
    emitConstantLoop(b_, 0, fullPanels, 1,
                     [&](llvm::Value *p) { emitTile(row0, rows, p, kTileCols); });
    if (int64_t cols = dot_.n % kTileCols)
      emitTile(row0, rows, b_.getInt64(fullPanels), cols);
  }

  /// The 12 x 16 tile at (row0, panel p) over the whole K extent, then added
  /// to C's `rows` x `cols` corner.
  void emitTile(llvm::Value *row0, int64_t rows, llvm::Value *p, int64_t cols) {
    std::vector<llvm::Value *> acc(size_t(kAccumulators),
                                   llvm::Constant::getNullValue(accumulatorType_));
    llvm::Value *panelB =
        b_.CreateGEP(i8_, packedB_, b_.CreateMul(p, b_.getInt64(kGroups_ * kTileCols * kAtomK)));
    acc = emitCarryingLoop(
        b_, 0, kGroups_, 1, acc, [&](llvm::Value *g, const std::vector<llvm::Value *> &c) {
          llvm::Value *aAt =
              b_.CreateGEP(i8_, packedA_, b_.CreateMul(g, b_.getInt64(kTileRows * kAtomK)));
          llvm::Value *bAt =
              b_.CreateGEP(i8_, panelB, b_.CreateMul(g, b_.getInt64(kTileCols * kAtomK)));
          std::vector<llvm::Value *> a = loadRegisters(aAt, kARegisters);
          std::vector<llvm::Value *> bRegs = loadRegisters(bAt, kBRegisters);
          return model_ ? modelStep(c, a, bRegs) : imeStep(c, a, bRegs);
        });
    for (int64_t i = 0; i < kAccumulators; ++i)
      vpStore(acc[size_t(i)], b_.CreateGEP(i32_, image_, b_.getInt64(i * kAtomElements)),
              kAtomElements);
    addToC(row0, rows, p, cols);
  }

  /// C[row0 + R][p*16 + c] += the tile's element (R, c), for R < rows and
  /// c < cols: the accumulator pair of atom (R / 4, c / 4) holds it at
  /// (R % 4) * 4 + c % 4.
  void addToC(llvm::Value *row0, int64_t rows, llvm::Value *p, int64_t cols) {
    auto *quad = llvm::FixedVectorType::get(i32_, kAtomCols);
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t j = 0; j * kAtomCols < cols; ++j) {
        int64_t active = std::min(kAtomCols, cols - j * kAtomCols);
        int64_t atom = (row / kAtomRows) * kBRegisters + j;
        llvm::Value *sum = b_.CreateAlignedLoad(
            quad,
            b_.CreateGEP(i32_, image_,
                         b_.getInt64(atom * kAtomElements + (row % kAtomRows) * kAtomCols)),
            llvm::Align(4));
        llvm::Value *at = b_.CreateGEP(
            i32_, dot_.c,
            b_.CreateAdd(
                b_.CreateMul(b_.CreateAdd(row0, b_.getInt64(row)), b_.getInt64(dot_.n)),
                b_.CreateAdd(b_.CreateMul(p, b_.getInt64(kTileCols)), b_.getInt64(j * kAtomCols))));
        if (active == kAtomCols) {
          llvm::Value *c = b_.CreateAlignedLoad(quad, at, llvm::Align(4));
          b_.CreateAlignedStore(b_.CreateAdd(c, sum), at, llvm::Align(4));
          continue;
        }
        llvm::Value *mask = firstLanesMask(b_, kAtomCols, active);
        llvm::Value *c =
            b_.CreateMaskedLoad(quad, at, llvm::Align(4), mask, llvm::Constant::getNullValue(quad));
        b_.CreateMaskedStore(b_.CreateAdd(c, sum), at, llvm::Align(4), mask);
      }
  }

  /// One group of 8 k: the twelve atoms of the tile, in one inline assembly
  /// block that sets the vtype smt.vmadot needs (e8, m1, vl 32) and tells
  /// LLVM it did. Accumulators are tied early-clobber pairs: smt.vmadot's vd
  /// must not overlap vs1 or vs2.
  std::vector<llvm::Value *> imeStep(const std::vector<llvm::Value *> &acc,
                                     const std::vector<llvm::Value *> &a,
                                     const std::vector<llvm::Value *> &bRegs) {
    std::string text = "vsetvli zero, $" +
                       std::to_string(kAccumulators + kARegisters + kBRegisters) +
                       ", e8, m1, ta, ma";
    std::string constraints;
    for (int64_t i = 0; i < kAccumulators; ++i)
      constraints += "=&^vr,";
    for (int64_t i = 0; i < kARegisters + kBRegisters; ++i)
      constraints += "^vr,";
    constraints += "r";
    for (int64_t i = 0; i < kAccumulators; ++i)
      constraints += "," + std::to_string(i);
    constraints += ",~{vl},~{vtype}";
    for (int64_t i = 0; i < kARegisters; ++i)
      for (int64_t j = 0; j < kBRegisters; ++j)
        text += "\nsmt.vmadot $" + std::to_string(i * kBRegisters + j) + ", $" +
                std::to_string(kAccumulators + i) + ", $" +
                std::to_string(kAccumulators + kARegisters + j);
    std::vector<llvm::Type *> results(size_t(kAccumulators), accumulatorType_);
    std::vector<llvm::Value *> args(a);
    args.insert(args.end(), bRegs.begin(), bRegs.end());
    args.push_back(b_.getInt64(kRegisterBytes));
    args.insert(args.end(), acc.begin(), acc.end());
    std::vector<llvm::Type *> argTypes;
    for (llvm::Value *v : args)
      argTypes.push_back(v->getType());
    auto *type =
        llvm::FunctionType::get(llvm::StructType::get(b_.getContext(), results), argTypes, false);
    llvm::Value *out = b_.CreateCall(llvm::InlineAsm::get(type, text, constraints, true), args);
    std::vector<llvm::Value *> next;
    for (unsigned i = 0; i < unsigned(kAccumulators); ++i)
      next.push_back(b_.CreateExtractValue(out, {i}));
    return next;
  }

  /// imeStep through the C++ model: each register is written to memory as
  /// the instruction would read it, and the accumulator read back.
  std::vector<llvm::Value *> modelStep(const std::vector<llvm::Value *> &acc,
                                       const std::vector<llvm::Value *> &a,
                                       const std::vector<llvm::Value *> &bRegs) {
    llvm::Module &module = *b_.GetInsertBlock()->getModule();
    llvm::FunctionCallee model = module.getOrInsertFunction(
        kImeModelFunction, b_.getVoidTy(), b_.getPtrTy(), b_.getPtrTy(), b_.getPtrTy(), i32_);
    std::vector<llvm::Value *> next(acc);
    for (int64_t i = 0; i < kARegisters; ++i)
      for (int64_t j = 0; j < kBRegisters; ++j) {
        llvm::Value *accImage = b_.CreateGEP(i32_, image_, b_.getInt64(0));
        size_t index = size_t(i * kBRegisters + j);
        vpStore(next[index], accImage, kAtomElements);
        vpStore(a[size_t(i)], aImage_, kRegisterBytes);
        vpStore(bRegs[size_t(j)], bImage_, kRegisterBytes);
        b_.CreateCall(model, {accImage, aImage_, bImage_, b_.getInt32(kSignedSigned)});
        next[index] = vpLoad(accumulatorType_, accImage, kAtomElements);
      }
    return next;
  }

  /// Bytes of A or B, zero where `mask` (if any) is off.
  llvm::Value *loadBytes(llvm::Type *type, llvm::Value *from, llvm::Value *mask) {
    if (!mask)
      return b_.CreateAlignedLoad(type, from, llvm::Align(1));
    return b_.CreateMaskedLoad(type, from, llvm::Align(1), mask,
                               llvm::Constant::getNullValue(type));
  }

  /// `count` consecutive registers' bytes from `ptr`, loaded as register
  /// groups: a vle8 of m2 or m4 costs the X60 2 cycles a register, of m1 3
  /// (LLVM's spacemit-x60 model), and the loads bound the K loop.
  std::vector<llvm::Value *> loadRegisters(llvm::Value *ptr, int64_t count) {
    std::vector<llvm::Value *> registers;
    for (int64_t done = 0; done < count;) {
      int64_t group = 4;
      while (group > count - done)
        group /= 2;
      auto *type = llvm::ScalableVectorType::get(i8_, unsigned(8 * group));
      llvm::Value *loaded = vpLoad(type, b_.CreateGEP(i8_, ptr, b_.getInt64(done * kRegisterBytes)),
                                   group * kRegisterBytes);
      for (int64_t r = 0; r < group; ++r)
        registers.push_back(group == 1 ? loaded
                                       : b_.CreateExtractVector(registerType_, loaded,
                                                                b_.getInt64(uint64_t(8 * r))));
      done += group;
    }
    return registers;
  }

  llvm::Value *vpLoad(llvm::Type *type, llvm::Value *ptr, int64_t elements) {
    return b_.CreateIntrinsic(llvm::Intrinsic::vp_load, {type, ptr->getType()},
                              {ptr, allLanes(type), b_.getInt32(uint32_t(elements))});
  }

  void vpStore(llvm::Value *value, llvm::Value *ptr, int64_t elements) {
    llvm::Type *type = value->getType();
    b_.CreateIntrinsic(llvm::Intrinsic::vp_store, {type, ptr->getType()},
                       {value, ptr, allLanes(type), b_.getInt32(uint32_t(elements))});
  }

  llvm::Constant *allLanes(llvm::Type *vector) const {
    return llvm::ConstantInt::getTrue(llvm::VectorType::get(
        b_.getInt1Ty(), llvm::cast<llvm::VectorType>(vector)->getElementCount()));
  }
  llvm::Constant *allLanes(int64_t lanes) const {
    return llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(b_.getInt1Ty(), unsigned(lanes)));
  }

  const DotOperands &dot_;
  llvm::IRBuilderBase &b_;
  bool model_;
  llvm::Type *i8_, *i32_;
  llvm::ScalableVectorType *registerType_, *accumulatorType_;
  int64_t kGroups_, panels_;
  llvm::Value *packedA_ = nullptr, *packedB_ = nullptr, *image_ = nullptr;
  llvm::Value *aImage_ = nullptr, *bImage_ = nullptr;
};

} // namespace

bool ImeDot::accepts(const DotOperands &dot) const {
  return dot.aKind == ScalarKind::I8 && dot.bKind == ScalarKind::I8 && dot.cKind == ScalarKind::I32;
}

void ImeDot::emit(const DotOperands &dot) const {
  ImeEmitter(dot, model_).emit();
}

} // namespace blockc::riscv
