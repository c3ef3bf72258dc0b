//===- DotKernels.h - Dot strategies shared between ISAs --------*- C++ -*-===//
//
// The building blocks of the dot strategies that ISA folders offer: the
// element conversions every strategy needs on DotOperands' buffers and the
// register-blocked FMA micro-kernel, which is
// the same algorithm on every ISA with fixed-width vectors and differs only
// in the size of the register file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/lowering/IsaLowering.h"
#include "blockc/lowering/Loops.h"

#include <functional>
#include <vector>

namespace blockc {

/// How a buffer of DotOperands stores `kind`: f16 and bf16 as their i16 bit
/// patterns (memory never holds a 16-bit float type, see CodeGen.h).
llvm::Type *dotMemoryType(llvm::LLVMContext &ctx, ScalarKind kind);

/// Converts `v` (scalar or vector, in its memory type) of element `from` to
/// the accumulator element `to`: f16 and bf16 widen exactly to f32, i8 sign
/// extends to i32.
llvm::Value *widenForDot(llvm::IRBuilderBase &b, llvm::Value *v, ScalarKind from, ScalarKind to);

/// A constant mask of `lanes` lanes whose first `active` are on: the edge of
/// a row of constant length.
llvm::Constant *firstLanesMask(llvm::IRBuilderBase &b, int64_t lanes, int64_t active);

/// Prefetches, into the second-level cache, the rows of the next K step's
/// tile of A (DotOperands::aNext) that a loop running `steps` iterations
/// fetches at iteration `step`: rows step, step + steps, ..., a cache line
/// at a time, so that the whole tile is asked for over the loop. Nothing
/// without aNext.
void prefetchNextRowsOfA(const DotOperands &dot, llvm::Value *step, int64_t steps);

/// Prefetches the cache line at `ptr` into the second-level cache (a hint:
/// it never faults, wherever `ptr` points).
void prefetchLine(llvm::IRBuilderBase &b, llvm::Value *ptr);

/// How many rows of B ahead a dot of fused K steps prefetches while it packs
/// B: rows a power of two KiB apart cross a page every row or two, where the
/// hardware prefetchers stop, and packing then waits on L3 for every line.
constexpr int64_t kPackPrefetchRows = 16;

/// What a packed copy of B holds besides which rows of the matrix it came
/// from: the parts of blockc_packed_operand's `layout`.
struct PackedLayout {
  const char *packing; // the strategy's name for its layout, "amx-vnni" say
  ScalarKind element;
  std::vector<int64_t> shape; // whatever else decides where each element goes
};

/// Where a dot's packed B is, and whether a program before this one on the
/// thread already packed it there (i1).
struct SharedOperand {
  llvm::Value *destination;
  llvm::Value *alreadyPacked;
};

/// The memory of packSharedB without the packing: the launch's shared copy
/// when DotOperands::bShareable says B's address names its contents and the
/// runtime has room, else `scratch`. The caller packs what is not already
/// packed (unlessAlreadyPacked), in pieces if it likes.
SharedOperand acquireSharedB(const DotOperands &dot, llvm::Value *scratch, uint64_t bytes,
                             llvm::Value *rows, const PackedLayout &layout);
/// Emits `pack()` on the path where `operand` is not already packed.
void unlessAlreadyPacked(llvm::IRBuilderBase &b, const SharedOperand &operand,
                         const std::function<void()> &pack);

/// Packs B into memory the launch's programs on this thread share
/// (blockc_packed_operand) when DotOperands::bShareable says its address
/// names its contents and the runtime has room, else into `scratch`, its
/// `bytes` in this program's scratch. Emits `pack(destination)` only on the
/// path where no program before this one packed the same rows the same way;
/// returns the destination, and continues after the packing.
llvm::Value *packSharedB(const DotOperands &dot, llvm::Value *scratch, uint64_t bytes,
                         llvm::Value *rows, const PackedLayout &layout,
                         const std::function<void(llvm::Value *destination)> &pack);

/// A vector register file as a micro-kernel sees it.
struct RegisterFile {
  unsigned vectorBits;
  unsigned registers;
};

/// The rows (MR) and vector columns (NR / lanes) of the accumulator tile.
struct MicroTile {
  int64_t rows;
  int64_t vectors;
};

/// The MR x NR accumulator tile that needs the fewest loads per FMA while
/// the accumulators, one row of B and one broadcast of A fit in `registers`.
MicroTile chooseMicroTile(RegisterFile file, int64_t lanes, int64_t m, int64_t n);

/// Whether an FMA micro-kernel computes the dot: f32, f16 and bf16 operands
/// accumulating in f32, f64 in f64, i8 in i32 (multiply and add).
bool acceptsWidenedFma(const DotOperands &dot);

/// C += A * B with an MR x NR block of C in registers across the whole K
/// extent of the dot: per k, NR/lanes vectors of B's row k and MR broadcasts
/// of A's column k feed MR * NR/lanes independent FMAs. Column edges run
/// under a lane mask, row edges as a smaller tile; no element is computed
/// twice. A panel of B that several row tiles read is first packed, widened,
/// into a k x NR scratch panel. Fused K steps (fusedKSteps) keep the block of
/// C in registers across all of them, as long as their packed panel stays
/// near L1. Accepts f32, f16 and bf16 operands accumulating in f32, f64 in
/// f64, and i8 accumulating in i32 (multiply and add).
class RegisterBlockedDot final : public DotStrategy {
public:
  RegisterBlockedDot(std::string name, RegisterFile file) : name_(std::move(name)), file_(file) {}
  std::string_view name() const override { return name_; }
  bool accepts(const DotOperands &dot) const override;
  void emit(const DotOperands &dot) const override;
  int64_t fusedKSteps(const DotOperands &dot) const override;

private:
  std::string name_;
  RegisterFile file_;
};

/// An instruction that adds to each 32-bit lane of an accumulator the dot
/// product of `group` consecutive narrow elements of two vectors (SVE's sdot
/// for i8, bfdot for bf16): acc[j] += sum over i < group of
/// x[group j + i] * y[group j + i].
struct LaneDotProduct {
  ScalarKind input;
  unsigned group;
  /// Emits it: `acc` has 32-bit lanes, `x` and `y` `group` times as many
  /// elements of `input`'s type (bfloat for bf16).
  std::function<llvm::Value *(llvm::IRBuilderBase &b, llvm::Value *acc, llvm::Value *x,
                              llvm::Value *y)>
      emit;
};

/// A register file of scalable vectors (RVV, SVE), as a micro-kernel sees it.
struct ScalableRegisterFile {
  /// Bits of a register per unit of vscale: 64 on RVV, 128 on SVE.
  unsigned bitsPerVscale;
  /// The least vscale the target allows (RVV's zvl*b, SVE's 128 bits).
  unsigned minVscale;
  unsigned registers;
  /// Registers one vector of accumulators may span: RVV's LMUL, 1 on SVE.
  unsigned maxGroup;
  /// How a panel's last columns are cut: a vector length (every op of the
  /// panel runs under it) or a lane mask per vector.
  TailPredication tail;
  /// Dot-product instructions the micro-kernel uses for their input types
  /// (under lane masks only).
  std::vector<LaneDotProduct> laneDots = {};
  /// Whether A may be read in the matrix rather than from a dense copy. A
  /// tile's rows of A are then one address each per k, which LLVM derives
  /// from one another: a chain of adds that a core issuing in order waits
  /// on every k, where a copy's rows are immediate offsets.
  bool readsAInPlace = true;
};

/// The register-blocked micro-kernel for vector-length-agnostic ISAs: a
/// panel of C is `vectors` hardware vectors wide, whatever their length when
/// the kernel runs, and the panel loop advances by that length; the last
/// panel runs under the ISA's predication. Under a vector length there is one
/// vector a row, a register group as wide as the row needs up to `maxGroup`
/// (IREE's RVV tiles: 7 rows of m4), with A broadcast from scalar registers
/// (vfmacc.vf, vwmacc.vx); under lane masks the tile is chosen as the fixed
/// kernel's is. B is read in place: rows of a dot's operand buffer are
/// contiguous, and a panel's width is only known at run time. Where a
/// LaneDotProduct takes the dot's inputs, B is first packed into groups of
/// that many k per column (VNNI's layout), and each group of k is one
/// instruction per accumulator with A's group broadcast as one 32-bit word;
/// the k left over after the last whole group take the FMA step. Accepts
/// what acceptsWidenedFma accepts.
class ScalableDot final : public DotStrategy {
public:
  ScalableDot(std::string name, ScalableRegisterFile file) : name_(std::move(name)), file_(file) {}
  std::string_view name() const override { return name_; }
  bool accepts(const DotOperands &dot) const override;
  void emit(const DotOperands &dot) const override;
  InPlaceReads inPlaceReads() const override { return {file_.readsAInPlace, true}; }

private:
  std::string name_;
  ScalableRegisterFile file_;
};

} // namespace blockc
