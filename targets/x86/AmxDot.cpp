//===- AmxDot.cpp - Dots on Intel AMX tiles -------------------------------===//
//
// Tile registers are named by immediates: tiles 0-3 hold a 2 x 2 block of C,
// 4-5 two tiles of A, 6-7 two tiles of B. Every tile is configured to its
// full size (16 rows of 64 bytes), so one configuration serves every dot and
// edges are handled by padding operands with zeros instead of reconfiguring.
//
//===----------------------------------------------------------------------===//
#include "AmxDot.h"

#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"

namespace blockc::x86 {

namespace {

constexpr int64_t kTileRows = 16;
constexpr int64_t kRowBytes = 64;
constexpr unsigned kFirstA = 4, kFirstB = 6;

int64_t roundUp(int64_t x, int64_t to) {
  return (x + to - 1) / to * to;
}

/// Asks Linux, once per process, to let this process use the AMX tile data
/// state (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)); without it the
/// first tile instruction faults. Raw syscall: kernels link no libc helper.
void requestTilePermissionOnce(llvm::IRBuilderBase &b) {
  llvm::Module &module = *b.GetInsertBlock()->getModule();
  llvm::LLVMContext &ctx = b.getContext();
  auto *flag = llvm::cast<llvm::GlobalVariable>(
      module.getOrInsertGlobal("blockc.amx.permission_requested", b.getInt8Ty()));
  if (!flag->hasInitializer()) {
    flag->setLinkage(llvm::GlobalValue::InternalLinkage);
    flag->setInitializer(b.getInt8(0));
  }
  auto *done = b.CreateAlignedLoad(b.getInt8Ty(), flag, llvm::Align(1));
  done->setAtomic(llvm::AtomicOrdering::Monotonic);
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  auto *ask = llvm::BasicBlock::Create(ctx, "amx.permission", fn);
  auto *ready = llvm::BasicBlock::Create(ctx, "amx.ready", fn);
  b.CreateCondBr(b.CreateICmpEQ(done, b.getInt8(0)), ask, ready);
  b.SetInsertPoint(ask);
  constexpr int64_t kArchPrctl = 158, kReqXcompPerm = 0x1023, kXtileData = 18;
  auto *type = llvm::FunctionType::get(b.getInt64Ty(),
                                       {b.getInt64Ty(), b.getInt64Ty(), b.getInt64Ty()}, false);
  auto *syscall = llvm::InlineAsm::get(
      type, "syscall", "={ax},{ax},{di},{si},~{rcx},~{r11},~{memory},~{dirflag},~{fpsr},~{flags}",
      /*hasSideEffects=*/true);
  b.CreateCall(type, syscall,
               {b.getInt64(kArchPrctl), b.getInt64(kReqXcompPerm), b.getInt64(kXtileData)});
  b.CreateAlignedStore(b.getInt8(1), flag, llvm::Align(1))
      ->setAtomic(llvm::AtomicOrdering::Monotonic);
  b.CreateBr(ready);
  b.SetInsertPoint(ready);
}

class AmxEmitter {
public:
  AmxEmitter(const DotOperands &dot)
      : dot_(dot), b_(dot.builder), bf16_(dot.aKind == ScalarKind::BF16),
        elementBytes_(bf16_ ? 2 : 1), pack_(4 / elementBytes_), tileK_(kRowBytes / elementBytes_),
        mp_(roundUp(dot.m, kTileRows)), np_(roundUp(dot.n, kTileRows)), kp_(roundUp(dot.k, tileK_)),
        kCapacity_(dot.kSteps ? dot.maxKSteps * kp_ : kp_), tilesK_(kCapacity_ / tileK_),
        inType_(dotMemoryType(b_.getContext(), dot.aKind)),
        accType_(dotMemoryType(b_.getContext(), dot.cKind)) {}

  void emit() {
    // Fused K steps (DotOperands::kSteps) come in whole tiles of K: the
    // products run over kTotal / tileK of them, B is packed over kTotal rows.
    kTotal_ = dot_.kSteps ? dot_.kTotal() : b_.getInt64(kp_);
    requestTilePermissionOnce(b_);
    configureTiles();
    llvm::Value *a = operandA();
    llvm::Value *bPacked = packB();
    bool cInPlace = dot_.m == mp_ && dot_.n == np_;
    llvm::Value *c = cInPlace ? dot_.c : copyC(true, nullptr);
    products(a, bPacked, c);
    if (!cInPlace)
      copyC(false, c);
    intrinsic(llvm::Intrinsic::x86_tilerelease, {});
  }

private:
  void configureTiles() {
    // Palette 1; bytes 16-47 are each tile's bytes per row (u16), 48-63 its rows.
    std::vector<llvm::Constant *> bytes(64, b_.getInt8(0));
    bytes[0] = b_.getInt8(1);
    for (unsigned t = 0; t < 8; ++t) {
      bytes[16 + 2 * t] = b_.getInt8(kRowBytes);
      bytes[48 + t] = b_.getInt8(kTileRows);
    }
    auto *config = llvm::ConstantVector::get(bytes);
    llvm::Value *slot = dot_.allocateScratch(config->getType(), "amx.config");
    b_.CreateAlignedStore(config, slot, llvm::Align(64));
    intrinsic(llvm::Intrinsic::x86_ldtilecfg, {slot});
  }

  void intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value *> args) {
    b_.CreateIntrinsic(id, llvm::ArrayRef<llvm::Type *>(), args);
  }

  /// Lanes of `type` at `ptr`; where `mask` (if any) is off, zero.
  llvm::Value *loadChunk(llvm::FixedVectorType *type, llvm::Value *ptr, llvm::Value *mask) {
    llvm::Align align(type->getScalarSizeInBits() / 8);
    if (!mask)
      return b_.CreateAlignedLoad(type, ptr, align);
    return b_.CreateMaskedLoad(type, ptr, align, mask, llvm::Constant::getNullValue(type));
  }

  llvm::Value *element(llvm::Type *type, llvm::Value *base, llvm::Value *index) {
    return b_.CreateGEP(type, base, index);
  }

  /// Copies `count` elements of a row (fewer than `lanes` of a chunk are
  /// valid at the end) from `from` to `to`, chunk by chunk; the padding of
  /// the destination's chunk is zero.
  void copyRow(llvm::Type *type, llvm::Value *from, llvm::Value *to, int64_t count, int64_t lanes,
               bool maskStore) {
    auto *vector = llvm::FixedVectorType::get(type, unsigned(lanes));
    llvm::Align align(type->getScalarSizeInBits() / 8);
    for (int64_t c = 0; c < count; c += lanes) {
      llvm::Value *src = element(type, from, b_.getInt64(c));
      llvm::Value *dst = element(type, to, b_.getInt64(c));
      int64_t active = std::min(lanes, count - c);
      llvm::Value *mask = active == lanes ? nullptr : firstLanesMask(b_, lanes, active);
      llvm::Value *v = loadChunk(vector, src, mask);
      if (mask && maskStore)
        b_.CreateMaskedStore(v, dst, align, mask);
      else
        b_.CreateAlignedStore(v, dst, align);
    }
  }

  /// A's tiles read straight from where A is (its buffer, or the matrix
  /// itself) when it is whole tiles, else from a zero-padded copy; for fused
  /// K steps, from a copy laid out tile by tile.
  llvm::Value *operandA() {
    if (dot_.kSteps)
      return packATiles();
    if (dot_.m == mp_ && dot_.k == kp_) {
      aRowBytes_ = b_.CreateMul(dot_.rowStrideOfA(), b_.getInt64(elementBytes_));
      return dot_.a;
    }
    aRowBytes_ = b_.getInt64(kp_ * elementBytes_);
    auto *array = llvm::ArrayType::get(inType_, uint64_t(mp_ * kp_));
    llvm::Value *packed = dot_.allocateScratch(array, "amx.a");
    b_.CreateMemSet(packed, b_.getInt8(0), uint64_t(mp_ * kp_ * elementBytes_), llvm::Align(64));
    emitConstantLoop(b_, 0, dot_.m, 1, [&](llvm::Value *row) {
      copyRow(inType_, element(inType_, dot_.a, b_.CreateMul(row, dot_.rowStrideOfA())),
              element(inType_, packed, b_.CreateMul(row, b_.getInt64(kp_))), dot_.k, tileK_, false);
    });
    return packed;
  }

  /// Byte offset of the tile at (tile row or column `index`, K tile `kt`) in
  /// a copy laid out tile by tile: each tile's 16 rows of 64 bytes in a row,
  /// the K tiles of one tile row (or column) after one another.
  llvm::Value *tileOffset(llvm::Value *index, llvm::Value *kt) {
    llvm::Value *tile = b_.CreateAdd(b_.CreateMul(index, b_.getInt64(tilesK_)), kt);
    return b_.CreateMul(tile, b_.getInt64(kTileRows * kRowBytes));
  }

  /// A tile by tile (fused K steps, whole tiles only). Rows of a matrix a
  /// power of two KiB long fall into a few L1 sets, so that the 32 rows of a
  /// 2 x 2 block's A tiles evict each other: a tile loaded from there comes
  /// from L2 every time. The copy is read once per K tile and row, in order.
  llvm::Value *packATiles() {
    auto *array = llvm::ArrayType::get(inType_, uint64_t(mp_ * kCapacity_));
    llvm::Value *packed = dot_.allocateScratch(array, "amx.a_tiles");
    auto *chunk = llvm::FixedVectorType::get(inType_, unsigned(tileK_));
    llvm::Align align(elementBytes_);
    emitConstantLoop(b_, 0, dot_.m, 1, [&](llvm::Value *row) {
      llvm::Value *from = element(inType_, dot_.a, b_.CreateMul(row, dot_.rowStrideOfA()));
      llvm::Value *tileRow = b_.CreateLShr(row, 4), *rowInTile = b_.CreateAnd(row, 15);
      emitLoopTo(b_, b_.CreateUDiv(kTotal_, b_.getInt64(tileK_)), 1, [&](llvm::Value *kt) {
        llvm::Value *v = b_.CreateAlignedLoad(
            chunk, element(inType_, from, b_.CreateMul(kt, b_.getInt64(tileK_))), align);
        llvm::Value *at =
            b_.CreateAdd(tileOffset(tileRow, kt), b_.CreateMul(rowInTile, b_.getInt64(kRowBytes)));
        b_.CreateAlignedStore(v, byteOffset(packed, at), llvm::Align(kRowBytes));
      });
    });
    aRowBytes_ = nullptr;
    return packed;
  }

  /// B in AMX's VNNI layout, tile by tile (tileOffset): row q of a tile
  /// holds K rows q*pack .. q*pack+pack-1 of its 16 columns interleaved
  /// element by element, [b(qp, 0), b(qp+1, 0), ..., b(qp, 1), ...].
  /// Packed once per launch and thread where B's panel is shared by the
  /// programs of a grid column (packSharedB): every M / BLOCK_M of them used
  /// to pack it again, a third of a bf16 matmul's time on one core.
  llvm::Value *packB() {
    int64_t rows = kCapacity_ / pack_, rowElements = np_ * pack_;
    auto *array = llvm::ArrayType::get(inType_, uint64_t(rows * rowElements));
    llvm::Value *scratch = dot_.allocateScratch(array, "amx.b");
    uint64_t bytes = uint64_t(rows * rowElements * elementBytes_);
    PackedLayout layout{"amx-vnni", dot_.bKind, {dot_.k, dot_.n, np_, kCapacity_}};
    return packSharedB(dot_, scratch, bytes, kTotal_, layout,
                       [&](llvm::Value *packed) { packBInto(packed, bytes); });
  }

  void packBInto(llvm::Value *packed, uint64_t bytes) {
    if (dot_.k != kp_ || dot_.n != np_)
      b_.CreateMemSet(packed, b_.getInt8(0), bytes, llvm::Align(64));
    auto *chunk = llvm::FixedVectorType::get(inType_, unsigned(kTileRows));
    llvm::Align align(elementBytes_);
    // Chunks of 16 columns from `pack` rows become one 64-byte packed row piece.
    std::vector<int> interleave(size_t(kTileRows * pack_));
    for (int64_t j = 0; j < kTileRows; ++j)
      for (int64_t p = 0; p < pack_; ++p)
        interleave[size_t(j * pack_ + p)] = int(p * kTileRows + j);
    auto packGroup = [&](llvm::Value *q, int64_t validRows) {
      for (int64_t j0 = 0; j0 < dot_.n; j0 += kTileRows) {
        int64_t active = std::min(kTileRows, dot_.n - j0);
        llvm::Value *mask = active == kTileRows ? nullptr : firstLanesMask(b_, kTileRows, active);
        std::vector<llvm::Value *> rowsOfGroup;
        for (int64_t p = 0; p < pack_; ++p) {
          if (p >= validRows) {
            rowsOfGroup.push_back(llvm::Constant::getNullValue(chunk));
            continue;
          }
          llvm::Value *k = b_.CreateAdd(b_.CreateMul(q, b_.getInt64(pack_)), b_.getInt64(p));
          llvm::Value *at = b_.CreateAdd(b_.CreateMul(k, dot_.rowStrideOfB()), b_.getInt64(j0));
          llvm::Value *src = element(inType_, dot_.b, at);
          rowsOfGroup.push_back(loadChunk(chunk, src, mask));
          // The next K step's row, or this one's rows further on, while
          // this one is packed.
          bool lineStart = j0 % (kCacheLineBytes / elementBytes_) == 0;
          if (dot_.bNext && lineStart)
            prefetchLine(b_, element(inType_, dot_.bNext, at));
          if (dot_.kSteps && lineStart)
            prefetchLine(
                b_, element(inType_, src,
                            b_.CreateMul(b_.getInt64(kPackPrefetchRows), dot_.rowStrideOfB())));
        }
        llvm::Value *joined = rowsOfGroup[0];
        if (pack_ == 2) {
          joined = b_.CreateShuffleVector(rowsOfGroup[0], rowsOfGroup[1], interleave);
        } else {
          std::vector<int> concat(2 * kTileRows);
          for (int i = 0; i < 2 * kTileRows; ++i)
            concat[size_t(i)] = i;
          llvm::Value *low = b_.CreateShuffleVector(rowsOfGroup[0], rowsOfGroup[1], concat);
          llvm::Value *high = b_.CreateShuffleVector(rowsOfGroup[2], rowsOfGroup[3], concat);
          joined = b_.CreateShuffleVector(low, high, interleave);
        }
        llvm::Value *at = b_.CreateAdd(tileOffset(b_.getInt64(j0 / kTileRows), b_.CreateLShr(q, 4)),
                                       b_.CreateMul(b_.CreateAnd(q, 15), b_.getInt64(kRowBytes)));
        b_.CreateAlignedStore(joined, byteOffset(packed, at), align);
      }
    };
    int64_t groups = dot_.k / pack_;
    llvm::Value *allGroups =
        dot_.kSteps ? b_.CreateUDiv(kTotal_, b_.getInt64(pack_)) : b_.getInt64(groups);
    emitLoopTo(b_, allGroups, 1, [&](llvm::Value *q) {
      prefetchNextRowsOfA(dot_, q, groups);
      packGroup(q, pack_);
    });
    // Fused steps have whole groups (k is a multiple of the tiles' K).
    if (int64_t rest = dot_.k % pack_)
      packGroup(b_.getInt64(dot_.k / pack_), rest);
  }

  /// Into padded scratch (`in`), or back into the dot's C.
  llvm::Value *copyC(bool in, llvm::Value *padded) {
    if (in) {
      auto *array = llvm::ArrayType::get(accType_, uint64_t(mp_ * np_));
      padded = dot_.allocateScratch(array, "amx.c");
    }
    emitConstantLoop(b_, 0, dot_.m, 1, [&](llvm::Value *row) {
      llvm::Value *original = element(accType_, dot_.c, b_.CreateMul(row, b_.getInt64(dot_.n)));
      llvm::Value *copy = element(accType_, padded, b_.CreateMul(row, b_.getInt64(np_)));
      if (in)
        copyRow(accType_, original, copy, dot_.n, kTileRows, false);
      else
        copyRow(accType_, copy, original, dot_.n, kTileRows, true);
    });
    return padded;
  }

  llvm::Value *byteOffset(llvm::Value *base, llvm::Value *bytes) {
    return b_.CreateGEP(b_.getInt8Ty(), base, bytes);
  }

  void tileLoad(unsigned tile, llvm::Value *ptr, llvm::Value *strideBytes) {
    intrinsic(llvm::Intrinsic::x86_tileloadd64, {b_.getInt8(uint8_t(tile)), ptr, strideBytes});
  }
  void tileLoad(unsigned tile, llvm::Value *ptr, int64_t strideBytes) {
    tileLoad(tile, ptr, b_.getInt64(strideBytes));
  }

  /// A block of rows x cols C tiles at tile coordinates (ti, tj).
  void block(llvm::Value *a, llvm::Value *bPacked, llvm::Value *c, llvm::Value *ti, llvm::Value *tj,
             int64_t rows, int64_t cols) {
    int64_t ldc = np_ * 4;
    auto cTile = [&](int64_t r, int64_t s) {
      llvm::Value *row = b_.CreateMul(b_.CreateAdd(ti, b_.getInt64(r)), b_.getInt64(kTileRows));
      llvm::Value *col = b_.CreateMul(b_.CreateAdd(tj, b_.getInt64(s)), b_.getInt64(kRowBytes));
      return byteOffset(c, b_.CreateAdd(b_.CreateMul(row, b_.getInt64(ldc)), col));
    };
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t s = 0; s < cols; ++s)
        tileLoad(unsigned(r * 2 + s), cTile(r, s), ldc);
    emitLoopTo(b_, b_.CreateUDiv(kTotal_, b_.getInt64(tileK_)), 1, [&](llvm::Value *kt) {
      for (int64_t r = 0; r < rows; ++r) {
        llvm::Value *tileRow = b_.CreateAdd(ti, b_.getInt64(r));
        if (!aRowBytes_) {
          tileLoad(kFirstA + unsigned(r), byteOffset(a, tileOffset(tileRow, kt)), kRowBytes);
          continue;
        }
        llvm::Value *row = b_.CreateMul(tileRow, b_.getInt64(kTileRows));
        llvm::Value *at =
            b_.CreateAdd(b_.CreateMul(row, aRowBytes_), b_.CreateMul(kt, b_.getInt64(kRowBytes)));
        tileLoad(kFirstA + unsigned(r), byteOffset(a, at), aRowBytes_);
      }
      for (int64_t s = 0; s < cols; ++s) {
        llvm::Value *at = tileOffset(b_.CreateAdd(tj, b_.getInt64(s)), kt);
        tileLoad(kFirstB + unsigned(s), byteOffset(bPacked, at), kRowBytes);
      }
      auto product = bf16_ ? llvm::Intrinsic::x86_tdpbf16ps : llvm::Intrinsic::x86_tdpbssd;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t s = 0; s < cols; ++s)
          intrinsic(product, {b_.getInt8(uint8_t(r * 2 + s)), b_.getInt8(uint8_t(kFirstA + r)),
                              b_.getInt8(uint8_t(kFirstB + s))});
    });
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t s = 0; s < cols; ++s)
        intrinsic(llvm::Intrinsic::x86_tilestored64,
                  {b_.getInt8(uint8_t(r * 2 + s)), cTile(r, s), b_.getInt64(ldc)});
  }

  void products(llvm::Value *a, llvm::Value *bPacked, llvm::Value *c) {
    int64_t tilesM = mp_ / kTileRows, tilesN = np_ / kTileRows;
    auto columns = [&](llvm::Value *ti, int64_t rows) {
      emitConstantLoop(b_, 0, tilesN / 2 * 2, 2,
                       [&](llvm::Value *tj) { block(a, bPacked, c, ti, tj, rows, 2); });
      if (tilesN % 2)
        block(a, bPacked, c, ti, b_.getInt64(tilesN - 1), rows, 1);
    };
    emitConstantLoop(b_, 0, tilesM / 2 * 2, 2, [&](llvm::Value *ti) { columns(ti, 2); });
    if (tilesM % 2)
      columns(b_.getInt64(tilesM - 1), 1);
  }

  const DotOperands &dot_;
  llvm::IRBuilderBase &b_;
  bool bf16_;
  int64_t elementBytes_, pack_, tileK_;
  int64_t mp_, np_, kp_;
  /// The most K rows B's packed copy holds: kp_, or every fused step's.
  int64_t kCapacity_;
  llvm::Value *kTotal_ = nullptr;
  /// K tiles in a row of a tile-by-tile copy (tileOffset).
  int64_t tilesK_;
  /// Bytes from one row of A's tiles to the next; null when A is copied
  /// tile by tile.
  llvm::Value *aRowBytes_ = nullptr;
  llvm::Type *inType_, *accType_;
};

} // namespace

bool AmxDot::accepts(const DotOperands &dot) const {
  return (bf16_ && dot.aKind == ScalarKind::BF16 && dot.cKind == ScalarKind::F32) ||
         (int8_ && dot.aKind == ScalarKind::I8 && dot.cKind == ScalarKind::I32);
}

int64_t AmxDot::fusedKSteps(const DotOperands &dot) const {
  if (!accepts(dot))
    return 1;
  int64_t elementBytes = dot.aKind == ScalarKind::BF16 ? 2 : 1;
  if (dot.m % kTileRows || dot.n % kTileRows || dot.k % (kRowBytes / elementBytes))
    return 1;
  // B packed for all the steps (a quarter of a Sapphire Rapids core's 2 MiB
  // L2) stays there beside A's rows, and a 2 x 2 block of C stays in tiles
  // across K = 2048 bf16 (4096 int8) with 64 x 128 tiles: its tile loads and
  // stores, once per K step of 64 a quarter of the time the products take,
  // are then a few percent. On the Xeon in one call (three rounds, best of
  // each, 64 x 128 x 64 tiles), against 128 KiB (K = 512 bf16): 2048^3 on
  // one thread 48.5 against 53.5 ms, on 16 threads 3.25 against 3.84 ms;
  // 1024^3 on 16 threads 0.50 against 0.54 ms.
  constexpr int64_t kPackedBBudget = 512 * 1024;
  return std::max<int64_t>(1, kPackedBBudget / (dot.k * dot.n * elementBytes));
}

void AmxDot::emit(const DotOperands &dot) const {
  AmxEmitter(dot).emit();
}

} // namespace blockc::x86
