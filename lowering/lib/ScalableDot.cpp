//===- ScalableDot.cpp - The micro-kernel for scalable vectors ------------===//
//
// RVV and SVE registers hold vscale x (bits per vscale) bits, unknown until
// the kernel runs, so the register-blocked micro-kernel's column panels are
// as wide as the hardware's vectors: the panel loop advances by a length read
// at run time, and its last panel is predicated the ISA's way (RVV's vector
// length, SVE's lane mask). One binary is correct and fast at every vector
// length. Rows are as in the fixed-width kernel: MR broadcasts of A's column k
// times B's row k into MR x NR accumulators, for the whole K extent.
//
//===----------------------------------------------------------------------===//
#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace blockc {

namespace {

/// The accumulator tile of one scalable micro-kernel: `rows` x `vectors`
/// vectors of `group` registers each.
struct ScalableTile {
  int64_t rows;
  int64_t vectors;
  unsigned group;
};

unsigned bitsOf(ScalarKind kind) {
  return kind == ScalarKind::F16 || kind == ScalarKind::BF16 ? 16 : bitWidth(kind);
}

/// Whether the K loop loads step k + 1's operands while step k multiplies
/// (ScalableTileEmitter::emitKLoop): under a vector length, for dots that
/// multiply as loaded. Widened operands carried across the loop lose their
/// widening multiply-adds (f16's scalar of A is then splat by vrgather) and
/// spill: in llvm-mca's X60 model f16 ran several times slower, bf16 took 78
/// cycles a step instead of 54, and i8 gained nothing.
bool pipelinesOperands(TailPredication tail, const DotOperands &dot) {
  return tail == TailPredication::VectorLength && isFloatKind(dot.cKind) &&
         dot.aKind == dot.cKind && dot.bKind == dot.cKind;
}

ScalableTile chooseTile(const ScalableRegisterFile &file, const DotOperands &dot) {
  unsigned accBits = bitWidth(dot.cKind), inBits = bitsOf(dot.bKind);
  int64_t minLanes = int64_t(file.bitsPerVscale * file.minVscale / accBits);
  if (file.tail != TailPredication::VectorLength) {
    // Lane masks cost nothing per vector (SVE): several vectors a row, as
    // on fixed-width ISAs, with one register for A's broadcast.
    MicroTile tile = chooseMicroTile({file.bitsPerVscale * file.minVscale, file.registers},
                                     minLanes, dot.m, dot.n);
    return {tile.rows, tile.vectors, 1};
  }
  // One vector a row, whose vector length is the panel's: every op of the K
  // loop then runs under one vsetvli. The group is the smallest that spans
  // the row at the target's least VLEN, up to IREE's m4.
  unsigned group = 1;
  while (group < file.maxGroup && int64_t(group) * minLanes < dot.n)
    group *= 2;
  // B's row as loaded, and widened where no instruction widens it: f16
  // multiplies as loaded (vfwmacc.vf), i8 as i16 (vwmacc.vx), bf16 is
  // shifted into f32. A comes from scalar registers (.vf, .vx).
  // A pipelined K loop holds two of B's rows: step k's and step k + 1's.
  auto registersOf = [&](unsigned bits) { return std::max(1u, group * bits / accBits); };
  unsigned bRegisters = (pipelinesOperands(file.tail, dot) ? 2 : 1) * registersOf(inBits);
  if (dot.bKind == ScalarKind::I8)
    bRegisters += registersOf(16);
  else if (dot.bKind == ScalarKind::BF16)
    bRegisters += group;
  int64_t rows = std::max<int64_t>(1, (int64_t(file.registers) - bRegisters) / group);
  return {std::min(rows, dot.m), 1, group};
}

/// Where the accumulator rows' last panel ends: a vector length (every op
/// of the panel runs under it) or a lane mask per vector.
struct PanelEdge {
  llvm::Value *evl = nullptr;
  std::vector<llvm::Value *> masks;
};

class ScalableTileEmitter {
public:
  ScalableTileEmitter(const DotOperands &dot, ScalableTile tile, const ScalableRegisterFile &file)
      : dot_(dot), b_(dot.builder), tile_(tile), pipelined_(pipelinesOperands(file.tail, dot)),
        lanesPerVscale_(file.bitsPerVscale / bitWidth(dot.cKind) * tile.group),
        aType_(dotMemoryType(b_.getContext(), dot.aKind)),
        cType_(dotMemoryType(b_.getContext(), dot.cKind)),
        vectorType_(llvm::ScalableVectorType::get(cType_, lanesPerVscale_)),
        inputVectorType_(llvm::ScalableVectorType::get(aType_, lanesPerVscale_)),
        isFloat_(isFloatKind(dot.cKind)) {
    if (file.tail != TailPredication::PredicatedLoop || bitWidth(dot.cKind) != 32)
      return;
    for (const LaneDotProduct &candidate : file.laneDots)
      if (candidate.input == dot.aKind && dot.k >= int64_t(candidate.group))
        laneDot_ = &candidate;
  }

  /// The panels of C, each `vectors` hardware vectors wide, and in each the
  /// row tiles.
  void emit(TailPredication tail) {
    llvm::Value *vectorLanes =
        b_.CreateElementCount(b_.getInt64Ty(), vectorType_->getElementCount());
    llvm::Value *n = b_.getInt64(dot_.n);
    if (laneDot_)
      packGroupsOfB();
    emitSteppingLoop(b_, dot_.n, [&](llvm::Value *col0) {
      PanelEdge edge;
      llvm::Value *width;
      if (tail == TailPredication::VectorLength) {
        edge.evl = b_.CreateIntrinsic(
            llvm::Intrinsic::experimental_get_vector_length, {b_.getInt64Ty()},
            {b_.CreateSub(n, col0), b_.getInt32(lanesPerVscale_), b_.getInt1(true)});
        width = b_.CreateZExt(edge.evl, b_.getInt64Ty());
      } else {
        for (int64_t v = 0; v < tile_.vectors; ++v)
          edge.masks.push_back(b_.CreateIntrinsic(
              llvm::Intrinsic::get_active_lane_mask,
              {llvm::ScalableVectorType::get(b_.getInt1Ty(), lanesPerVscale_), b_.getInt64Ty()},
              {b_.CreateAdd(col0, b_.CreateMul(vectorLanes, b_.getInt64(v))), n}));
        width = b_.CreateMul(vectorLanes, b_.getInt64(tile_.vectors));
      }
      int64_t fullRows = dot_.m / tile_.rows * tile_.rows;
      emitConstantLoop(b_, 0, fullRows, tile_.rows, [&](llvm::Value *row0) {
        emitTile(row0, col0, vectorLanes, tile_.rows, edge);
      });
      if (int64_t rest = dot_.m - fullRows)
        emitTile(b_.getInt64(fullRows), col0, vectorLanes, rest, edge);
      return b_.CreateAdd(col0, width);
    });
  }

private:
  /// The operands of one k, as loaded: B's row vectors and A's column.
  struct KOperands {
    std::vector<llvm::Value *> bRow, aColumn;
  };

  void emitTile(llvm::Value *row0, llvm::Value *col0, llvm::Value *vectorLanes, int64_t rows,
                const PanelEdge &edge) {
    std::vector<llvm::Value *> cAt;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < tile_.vectors; ++v) {
        llvm::Value *row = b_.CreateAdd(row0, b_.getInt64(r));
        llvm::Value *col = b_.CreateAdd(col0, b_.CreateMul(vectorLanes, b_.getInt64(v)));
        cAt.push_back(b_.CreateGEP(cType_, dot_.c,
                                   b_.CreateAdd(b_.CreateMul(row, b_.getInt64(dot_.n)), col)));
      }
    std::vector<llvm::Value *> acc;
    for (size_t i = 0; i < cAt.size(); ++i)
      acc.push_back(load(vectorType_, cAt[i], edge, int64_t(i) % tile_.vectors));
    // Each row of A from its own pointer, set before the K loop: computed in
    // the loop from a row stride, the rows' addresses become a chain of
    // dependent adds that an in-order core (the K1's) waits on every k.
    aRows_.clear();
    for (int64_t r = 0; r < rows; ++r)
      aRows_.push_back(b_.CreateGEP(
          aType_, dot_.a, b_.CreateMul(b_.CreateAdd(row0, b_.getInt64(r)), dot_.rowStrideOfA())));
    int64_t groupedK = 0;
    if (laneDot_) {
      groupedK = dot_.k / laneDot_->group * laneDot_->group;
      acc = emitCarryingLoop(b_, 0, groupedK / laneDot_->group, 1, acc,
                             [&](llvm::Value *g, const std::vector<llvm::Value *> &c) {
                               return accumulateGroup(c, g, col0, vectorLanes, rows, edge);
                             });
    }
    acc = emitKLoop(groupedK, acc, col0, vectorLanes, rows, edge);
    for (size_t i = 0; i < cAt.size(); ++i)
      store(acc[i], cAt[i], edge, int64_t(i) % tile_.vectors);
  }

  /// Steps `begin` to K into the accumulators `acc`. Where pipelinesOperands
  /// holds, the operands of step k + 1 are loaded while step k multiplies:
  /// an in-order core (the K1's X60) otherwise waits on B's row and on each
  /// scalar of A before the multiply-adds that read them, every step. In
  /// llvm-mca's X60 model that took the f32 kernel from 37 cycles a step (7
  /// rows, 76% of the vector unit) to 25 (6 rows, 96%). The last step loads
  /// nothing ahead, so no load reads past K.
  std::vector<llvm::Value *> emitKLoop(int64_t begin, std::vector<llvm::Value *> acc,
                                       llvm::Value *col0, llvm::Value *vectorLanes, int64_t rows,
                                       const PanelEdge &edge) {
    if (!pipelined_ || begin >= dot_.k)
      return emitCarryingLoop(
          b_, begin, dot_.k, 1, acc, [&](llvm::Value *kk, const std::vector<llvm::Value *> &c) {
            return accumulate(c, loadOperands(kk, col0, vectorLanes, rows, edge), edge);
          });
    size_t accumulators = acc.size();
    auto withOperands = [&](std::vector<llvm::Value *> carried, const KOperands &k) {
      carried.insert(carried.end(), k.bRow.begin(), k.bRow.end());
      carried.insert(carried.end(), k.aColumn.begin(), k.aColumn.end());
      return carried;
    };
    auto operandsIn = [&](const std::vector<llvm::Value *> &carried) {
      KOperands k;
      auto bEnd = carried.begin() + std::ptrdiff_t(accumulators + size_t(tile_.vectors));
      k.bRow.assign(carried.begin() + std::ptrdiff_t(accumulators), bEnd);
      k.aColumn.assign(bEnd, carried.end());
      return k;
    };
    auto accumulatorsIn = [&](const std::vector<llvm::Value *> &carried) {
      return std::vector<llvm::Value *>(carried.begin(),
                                        carried.begin() + std::ptrdiff_t(accumulators));
    };
    // One step: load step kk + 1's operands, multiply step kk's (carried).
    auto step = [&](llvm::Value *kk, const std::vector<llvm::Value *> &c) {
      KOperands next =
          loadOperands(b_.CreateAdd(kk, b_.getInt64(1)), col0, vectorLanes, rows, edge);
      return withOperands(accumulate(accumulatorsIn(c), operandsIn(c), edge), next);
    };
    std::vector<llvm::Value *> carried =
        withOperands(acc, loadOperands(b_.getInt64(begin), col0, vectorLanes, rows, edge));
    // Two steps a trip, so the two copies of the operands trade places
    // instead of one being copied into the other's registers at the back
    // edge (a vmv4r.v of B's row, every step).
    int64_t pipelined = dot_.k - 1 - begin, paired = begin + pipelined / 2 * 2;
    carried = emitCarryingLoop(b_, begin, paired, 2, carried,
                               [&](llvm::Value *kk, const std::vector<llvm::Value *> &c) {
                                 return step(b_.CreateAdd(kk, b_.getInt64(1)), step(kk, c));
                               });
    if (paired < dot_.k - 1)
      carried = step(b_.getInt64(paired), carried);
    return accumulate(accumulatorsIn(carried), operandsIn(carried), edge);
  }

  KOperands loadOperands(llvm::Value *kk, llvm::Value *col0, llvm::Value *vectorLanes, int64_t rows,
                         const PanelEdge &edge) {
    KOperands k;
    for (int64_t v = 0; v < tile_.vectors; ++v) {
      llvm::Value *at = b_.CreateAdd(b_.CreateMul(kk, dot_.rowStrideOfB()),
                                     b_.CreateAdd(col0, b_.CreateMul(vectorLanes, b_.getInt64(v))));
      k.bRow.push_back(load(inputVectorType_, b_.CreateGEP(aType_, dot_.b, at), edge, v));
    }
    for (int64_t r = 0; r < rows; ++r)
      k.aColumn.push_back(b_.CreateLoad(aType_, b_.CreateGEP(aType_, aRows_[size_t(r)], kk)));
    return k;
  }

  /// B's rows in groups of laneDot_->group k, each column's group
  /// contiguous: packedB_[g][column][i] = B[g * group + i][column], for the
  /// whole groups of k, with rows paddedColumns_ long (chunks of 16 columns,
  /// interleaved by one shuffle).
  void packGroupsOfB() {
    int64_t group = laneDot_->group, groups = dot_.k / group;
    paddedColumns_ = (dot_.n + kPackColumns - 1) / kPackColumns * kPackColumns;
    packedB_ = dot_.allocateScratch(
        llvm::ArrayType::get(aType_, uint64_t(groups * paddedColumns_ * group)), "dot.b_groups");
    auto *rowType = llvm::FixedVectorType::get(aType_, unsigned(kPackColumns));
    auto packChunk = [&](llvm::Value *g, llvm::Value *col0, int64_t columns) {
      llvm::Value *mask =
          columns == kPackColumns ? nullptr : firstLanesMask(b_, kPackColumns, columns);
      std::vector<llvm::Value *> rows;
      for (int64_t i = 0; i < group; ++i) {
        llvm::Value *k = b_.CreateAdd(b_.CreateMul(g, b_.getInt64(group)), b_.getInt64(i));
        llvm::Value *from =
            b_.CreateGEP(aType_, dot_.b, b_.CreateAdd(b_.CreateMul(k, dot_.rowStrideOfB()), col0));
        if (mask)
          rows.push_back(b_.CreateMaskedLoad(rowType, from, alignOf(rowType), mask,
                                             llvm::Constant::getNullValue(rowType)));
        else
          rows.push_back(b_.CreateAlignedLoad(rowType, from, alignOf(rowType)));
      }
      // Rows side by side, then column c's group at c * group.
      while (rows.size() > 1) {
        std::vector<llvm::Value *> pairs;
        for (size_t i = 0; i < rows.size(); i += 2) {
          auto width = llvm::cast<llvm::FixedVectorType>(rows[i]->getType())->getNumElements();
          std::vector<int> both(width * 2);
          for (unsigned e = 0; e < width * 2; ++e)
            both[e] = int(e);
          pairs.push_back(b_.CreateShuffleVector(rows[i], rows[i + 1], both));
        }
        rows = pairs;
      }
      std::vector<int> interleave;
      for (int64_t c = 0; c < kPackColumns; ++c)
        for (int64_t i = 0; i < group; ++i)
          interleave.push_back(int(i * kPackColumns + c));
      llvm::Value *packed = b_.CreateShuffleVector(rows[0], interleave);
      llvm::Value *to = b_.CreateGEP(
          aType_, packedB_,
          b_.CreateMul(b_.CreateAdd(b_.CreateMul(g, b_.getInt64(paddedColumns_)), col0),
                       b_.getInt64(group)));
      b_.CreateAlignedStore(packed, to, alignOf(rowType));
    };
    int64_t fullColumns = dot_.n / kPackColumns * kPackColumns;
    emitConstantLoop(b_, 0, groups, 1, [&](llvm::Value *g) {
      emitConstantLoop(b_, 0, fullColumns, kPackColumns,
                       [&](llvm::Value *col0) { packChunk(g, col0, kPackColumns); });
      if (int64_t rest = dot_.n - fullColumns)
        packChunk(g, b_.getInt64(fullColumns), rest);
    });
  }

  /// One group of k through the lane dot product: B's packed groups, and
  /// A's group of each row broadcast as one 32-bit word.
  std::vector<llvm::Value *> accumulateGroup(const std::vector<llvm::Value *> &c, llvm::Value *g,
                                             llvm::Value *col0, llvm::Value *vectorLanes,
                                             int64_t rows, const PanelEdge &edge) {
    int64_t group = laneDot_->group;
    llvm::Type *element = dot_.aKind == ScalarKind::BF16 ? b_.getBFloatTy() : aType_;
    auto *words = llvm::ScalableVectorType::get(b_.getInt32Ty(), lanesPerVscale_);
    auto *narrow = llvm::ScalableVectorType::get(element, unsigned(lanesPerVscale_ * group));
    std::vector<llvm::Value *> bGroups;
    for (int64_t v = 0; v < tile_.vectors; ++v) {
      llvm::Value *column = b_.CreateAdd(col0, b_.CreateMul(vectorLanes, b_.getInt64(v)));
      llvm::Value *at = b_.CreateMul(
          b_.CreateAdd(b_.CreateMul(g, b_.getInt64(paddedColumns_)), column), b_.getInt64(group));
      bGroups.push_back(
          b_.CreateBitCast(load(words, b_.CreateGEP(aType_, packedB_, at), edge, v), narrow));
    }
    std::vector<llvm::Value *> acc(c.size());
    for (int64_t r = 0; r < rows; ++r) {
      llvm::Value *at =
          b_.CreateGEP(aType_, aRows_[size_t(r)], b_.CreateMul(g, b_.getInt64(group)));
      llvm::Value *word =
          b_.CreateAlignedLoad(b_.getInt32Ty(), at, llvm::Align(aType_->getScalarSizeInBits() / 8));
      llvm::Value *x =
          b_.CreateBitCast(b_.CreateVectorSplat(words->getElementCount(), word), narrow);
      for (int64_t v = 0; v < tile_.vectors; ++v) {
        size_t i = size_t(r * tile_.vectors + v);
        acc[i] = laneDot_->emit(b_, c[i], x, bGroups[size_t(v)]);
      }
    }
    return acc;
  }

  /// The accumulators `c` plus A's column times B's row.
  std::vector<llvm::Value *> accumulate(const std::vector<llvm::Value *> &c, const KOperands &k,
                                        const PanelEdge &edge) {
    std::vector<llvm::Value *> bRow;
    for (llvm::Value *row : k.bRow)
      bRow.push_back(widenB(row, edge));
    std::vector<llvm::Value *> acc(c.size());
    for (size_t r = 0; r < k.aColumn.size(); ++r) {
      llvm::Value *x = broadcastA(k.aColumn[r], edge);
      for (size_t v = 0; v < bRow.size(); ++v) {
        size_t i = r * bRow.size() + v;
        acc[i] = multiplyAdd(x, bRow[v], c[i], edge);
      }
    }
    return acc;
  }

  // Under a vector length (RVV), the widening multiply-adds take A from a
  // scalar register and B's row as loaded: vfwmacc.vf (f32 += f16 x f16)
  // and vwmacc.vx (i32 += i16 x i16, so i8 goes through i16). LLVM forms
  // them from vp extensions and vp.fma, even with B's row extended once for
  // all rows; the plain forms would be folded (two sign extensions into one,
  // f16 A's extension into a scalar fcvt) out of the instructions' reach.
  enum class Widening { None, Half, ByteThroughI16 };

  Widening widening(const PanelEdge &edge) const {
    if (!edge.evl)
      return Widening::None;
    if (dot_.aKind == ScalarKind::F16)
      return Widening::Half;
    if (dot_.aKind == ScalarKind::I8 && dot_.cKind == ScalarKind::I32)
      return Widening::ByteThroughI16;
    return Widening::None;
  }

  llvm::Value *widenB(llvm::Value *row, const PanelEdge &edge) {
    switch (widening(edge)) {
    case Widening::None:
      return widenForDot(b_, row, dot_.bKind, dot_.cKind);
    case Widening::Half:
      return vpCast(llvm::Intrinsic::vp_fpext, b_.CreateBitCast(row, halves()), vectorType_, edge);
    case Widening::ByteThroughI16:
      return b_.CreateSExt(vpCast(llvm::Intrinsic::vp_sext, row, shorts(), edge), vectorType_);
    }
    return nullptr;
  }

  llvm::Value *broadcastA(llvm::Value *x, const PanelEdge &edge) {
    llvm::ElementCount lanes = vectorType_->getElementCount();
    switch (widening(edge)) {
    case Widening::None:
      // Under a vector length a bf16 scalar widens as a float, which stays
      // in a float register for vfmacc.vf; widened by an integer shift, it
      // would be splat as an integer vector.
      if (edge.evl && dot_.aKind == ScalarKind::BF16)
        return b_.CreateVectorSplat(
            lanes, b_.CreateFPExt(b_.CreateBitCast(x, b_.getBFloatTy()), b_.getFloatTy()));
      return b_.CreateVectorSplat(lanes, widenForDot(b_, x, dot_.aKind, dot_.cKind));
    case Widening::Half:
      return vpCast(llvm::Intrinsic::vp_fpext,
                    b_.CreateVectorSplat(lanes, b_.CreateBitCast(x, b_.getHalfTy())), vectorType_,
                    edge);
    case Widening::ByteThroughI16:
      return b_.CreateSExt(b_.CreateVectorSplat(lanes, b_.CreateSExt(x, b_.getInt16Ty())),
                           vectorType_);
    }
    return nullptr;
  }

  llvm::Value *multiplyAdd(llvm::Value *x, llvm::Value *y, llvm::Value *acc,
                           const PanelEdge &edge) {
    if (!isFloat_)
      return b_.CreateAdd(acc, b_.CreateMul(x, y));
    if (widening(edge) == Widening::Half)
      return b_.CreateIntrinsic(llvm::Intrinsic::vp_fma, {vectorType_},
                                {x, y, acc, allLanes(vectorType_), edge.evl});
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {vectorType_}, {x, y, acc});
  }

  llvm::Value *vpCast(llvm::Intrinsic::ID id, llvm::Value *v, llvm::Type *to,
                      const PanelEdge &edge) {
    return b_.CreateIntrinsic(id, {to, v->getType()}, {v, allLanes(to), edge.evl});
  }

  llvm::Type *halves() const {
    return llvm::ScalableVectorType::get(b_.getHalfTy(), lanesPerVscale_);
  }
  llvm::Type *shorts() const {
    return llvm::ScalableVectorType::get(b_.getInt16Ty(), lanesPerVscale_);
  }

  llvm::Align alignOf(llvm::Type *vector) const {
    return llvm::Align(vector->getScalarSizeInBits() / 8);
  }

  llvm::Value *load(llvm::Type *type, llvm::Value *ptr, const PanelEdge &edge, int64_t v) {
    if (edge.evl) {
      llvm::CallInst *load = b_.CreateIntrinsic(llvm::Intrinsic::vp_load, {type, ptr->getType()},
                                                {ptr, allLanes(type), edge.evl});
      load->addParamAttr(0, llvm::Attribute::getWithAlignment(b_.getContext(), alignOf(type)));
      return load;
    }
    return b_.CreateMaskedLoad(type, ptr, alignOf(type), edge.masks[size_t(v)],
                               llvm::Constant::getNullValue(type));
  }

  void store(llvm::Value *value, llvm::Value *ptr, const PanelEdge &edge, int64_t v) {
    llvm::Type *type = value->getType();
    if (edge.evl) {
      llvm::CallInst *store = b_.CreateIntrinsic(llvm::Intrinsic::vp_store, {type, ptr->getType()},
                                                 {value, ptr, allLanes(type), edge.evl});
      store->addParamAttr(1, llvm::Attribute::getWithAlignment(b_.getContext(), alignOf(type)));
      return;
    }
    b_.CreateMaskedStore(value, ptr, alignOf(type), edge.masks[size_t(v)]);
  }

  llvm::Constant *allLanes(llvm::Type *vector) const {
    return llvm::ConstantInt::getTrue(llvm::VectorType::get(
        b_.getInt1Ty(), llvm::cast<llvm::VectorType>(vector)->getElementCount()));
  }

  const DotOperands &dot_;
  llvm::IRBuilderBase &b_;
  // Columns of B packed at once: 16 elements of each row in a shuffle.
  static constexpr int64_t kPackColumns = 16;

  ScalableTile tile_;
  bool pipelined_;
  unsigned lanesPerVscale_;
  const LaneDotProduct *laneDot_ = nullptr;
  llvm::Value *packedB_ = nullptr;
  /// The first element of each row of A of the tile being emitted.
  std::vector<llvm::Value *> aRows_;
  int64_t paddedColumns_ = 0;
  llvm::Type *aType_, *cType_;
  llvm::ScalableVectorType *vectorType_, *inputVectorType_;
  bool isFloat_;
};

} // namespace

bool ScalableDot::accepts(const DotOperands &dot) const {
  return acceptsWidenedFma(dot);
}

void ScalableDot::emit(const DotOperands &dot) const {
  ScalableTileEmitter(dot, chooseTile(file_, dot), file_).emit(file_.tail);
}

} // namespace blockc
