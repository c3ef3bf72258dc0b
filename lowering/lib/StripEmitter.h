//===- StripEmitter.h - Strips of block values as LLVM IR -------*- C++ -*-===//
//
// The layer every part of kernel code generation stands on. A block value is
// computed a register-sized strip of its last dimension at a time; this class
// owns what a strip is on the target (its lane count, the mask or vector
// length of the row's tail), the loops that walk strips and elements, the
// predicated loads and stores of a strip, conversions between element types,
// and math through SLEEF. It knows nothing of Block IR operations: those are
// KernelCodeGen's (CodeGen.h), which builds on it.
//
// The IsaLowering sizes strips from a kernel's widest element and register
// pressure: a constant number of lanes on fixed-width targets, vscale times a
// constant on RVV and SVE. The tail of a row is never scalar code: it runs
// under an active-lane mask, or, on ISAs that strip-mine by vector length,
// every strip sets its own length.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/IsaLowering.h"
#include "blockc/targetinfo/Sleef.h"
#include "blockc/targetinfo/Target.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/MC/MCSchedule.h"

#include <functional>
#include <map>
#include <optional>
#include <tuple>

namespace blockc {

/// Indices (i64) into a value's own shape, one per dimension.
using Coords = llvm::SmallVector<llvm::Value *, 3>;

/// `element`, or a vector of it with as many lanes as `like` when `like` is a
/// vector: the type of a scalar or strip converted element by element.
inline llvm::Type *sameShape(llvm::Type *like, llvm::Type *element) {
  if (auto *vec = llvm::dyn_cast<llvm::VectorType>(like))
    return llvm::VectorType::get(element, vec->getElementCount());
  return element;
}

/// The SLEEF function a float op is, if any (sigmoid is not one, but calls exp).
std::optional<MathFn> sleefFunction(OpKind kind);

class StripEmitter {
public:
  /// `schedule`: the scheduling model of the CPU compiled for (LLVM's).
  StripEmitter(const Target &target, const IsaLowering &isa, llvm::Module &module,
               const CompileOptions &options, const llvm::MCSchedModel &schedule);

  llvm::IRBuilder<> &builder() { return b_; }

  // --- Types and masks (StripEmitter.cpp) ---
  llvm::Type *scalarType(ScalarKind kind);
  /// The element as a register value: pointers are `ptr`.
  llvm::Type *elementType(const Type &t);
  /// The element as stored in memory: i1 is a byte, and f16/bf16 are their
  /// i16 bit patterns. Memory ops never see a 16-bit float type: without
  /// native support LLVM legalizes a masked or gathered bf16 vector through
  /// f32 and back, which calls compiler-rt's __truncsfbf2, a helper that
  /// neither the JIT nor a kernel's users link.
  llvm::Type *memoryType(const Type &t);
  /// Converts a register value (scalar or strip) of element type `t` to its
  /// memory form, and back.
  llvm::Value *toMemory(llvm::Value *v, const Type &t);
  llvm::Value *fromMemory(llvm::Value *v, const Type &t);
  /// A strip of `element`s.
  llvm::Type *vectorOf(llvm::Type *element);
  llvm::Value *splat(llvm::Value *scalar);
  llvm::Value *i64(int64_t v) { return b_.getInt64(v); }
  /// The conjunction of two masks, either of which may be null (every lane).
  llvm::Value *andMasks(llvm::Value *a, llvm::Value *b);
  llvm::Value *allTrueMask();
  /// A builder at the start of the function's entry block, for stack slots
  /// outside every loop that are not scratch (ScratchSpace counts that).
  llvm::IRBuilder<> entryBuilder() {
    return llvm::IRBuilder<>(allocaBlock_, allocaBlock_->begin());
  }

  // --- Loops (StripEmitter.cpp) ---
  void emitCountedLoop(llvm::Value *begin, llvm::Value *end, llvm::Value *step,
                       const std::function<void(llvm::Value *)> &body);
  /// A loop from `begin` while below `end` whose body returns the next value
  /// of the induction variable.
  void emitLoop(llvm::Value *begin, llvm::Value *end,
                const std::function<llvm::Value *(llvm::Value *)> &body);
  /// Runs `body` for every strip of `shape`: coords[rank-1] is the strip's
  /// first column; `vector` is false when the last dimension is 1 (one
  /// element per call). Sets the tail mask for the tail strip.
  void forEachStrip(const Shape &shape, const std::function<void(const Coords &, bool)> &body);
  using CoordsBody = std::function<void(const Coords &, bool, unsigned)>;
  /// As above, `ways` strips of a row at a time (forEachStripOfRow).
  void forEachStrip(const Shape &shape, unsigned ways, const CoordsBody &evaluate,
                    const CoordsBody &commit);
  void forEachStripOfRow(int64_t length, const std::function<void(llvm::Value *, bool)> &body);
  /// A strip's first column, whether it is a vector, and its `way`.
  using StripBody = std::function<void(llvm::Value *, bool, unsigned)>;
  /// As above, with the full strips of a row taken `ways` at a time and
  /// numbered round-robin (`way`, 0 to ways - 1), so that a loop carrying one
  /// accumulator per way has `ways` independent chains. `evaluate` runs for
  /// every strip of a chunk before `commit` (if any) runs for one: a chunk's
  /// reads are not held behind its first strip's writes, which memory
  /// dependences would otherwise keep in order.
  void forEachStripOfRow(int64_t length, unsigned ways, const StripBody &evaluate,
                         const StripBody &commit);
  /// One strip of a row: where it starts, its tail mask and vector length
  /// (null: every lane), and its way.
  struct StripAt {
    llvm::Value *column;
    bool vector;
    llvm::Value *mask, *evl;
    unsigned way;
    /// `evl` is every lane of the strip.
    bool whole = false;
  };
  /// `evaluate` for each of `strips` in turn, then `commit` for each.
  void runStrips(const std::vector<StripAt> &strips, const StripBody &evaluate,
                 const StripBody &commit);
  /// The most registers the widest strips of one trip of a vector-length row
  /// span together: four RVV m2 strips, two m4, one m8. An i32 to f16 cast
  /// in m8 strips two ways spilled on every strip.
  static constexpr unsigned kMaxRegistersInFlight = 8;
  /// How many ways a row of `length` elements takes at most `ways` in.
  unsigned waysFor(int64_t length, unsigned ways) const;
  void forEachElement(const Shape &shape, const std::function<void(const Coords &)> &body);

  // --- Predicated memory access of strips (StripMemory.cpp) ---
  /// Under `mask` (null: every lane) and, when the strip sets its vector
  /// length, only its first tailEvl_ lanes. Masked-off lanes of a load are
  /// `passthru` (null: undefined).
  llvm::Value *loadStrip(llvm::Type *type, llvm::Value *ptr, llvm::Align align, llvm::Value *mask,
                         llvm::Value *passthru);
  void storeStrip(llvm::Value *value, llvm::Value *ptr, llvm::Align align, llvm::Value *mask);
  llvm::Value *gatherStrip(llvm::Type *type, llvm::Value *ptrs, llvm::Align align,
                           llvm::Value *mask, llvm::Value *passthru);
  void scatterStrip(llvm::Value *value, llvm::Value *ptrs, llvm::Align align, llvm::Value *mask);
  /// Lanes `stride` elements apart from `first`, where the ISA has such
  /// accesses (IsaLowering::hasStridedAccess).
  llvm::Value *stridedLoadStrip(llvm::Type *type, llvm::Value *first, llvm::Value *stride,
                                llvm::Align align, llvm::Value *mask, llvm::Value *passthru);
  void stridedStoreStrip(llvm::Value *value, llvm::Value *first, llvm::Value *stride,
                         llvm::Align align, llvm::Value *mask);
  /// The current strip's vector length (i32): tailEvl_, or all its lanes.
  llvm::Value *vectorLength();
  /// The lanes of the current strip inside its row, or null when all are.
  llvm::Value *activeLanes();
  /// `updated` in the current vector-length strip's lanes inside its row,
  /// `old` in the others (`updated` itself for any other strip): an
  /// accumulator that the row's tail must leave as it was. The update itself
  /// keeps them, tail undisturbed (`llvm.vp.merge`), where neutralizing the
  /// input first would cost RVV a `vid`, a compare and a `vmerge` a strip.
  llvm::Value *keepInactiveLanes(llvm::Value *updated, llvm::Value *old);
  /// Whether keepInactiveLanes alone keeps the current strip's tail: its
  /// lanes past the row need not be neutralized before they are combined.
  bool tailKeptByVectorLength() const { return tailEvl_ && !tailMask_ && !evlCoversStrip_; }
  /// A strip (or element) at `coords` of a row-major buffer of `type`, in
  /// its memory type, under the current strip's tail.
  llvm::Value *loadBuffer(llvm::Value *buffer, const Type &type, const Coords &coords, bool vector);
  void storeBuffer(llvm::Value *buffer, const Type &type, const Coords &coords, llvm::Value *value,
                   bool vector);
  void copyBuffer(llvm::Value *dst, llvm::Value *src, const Type &type);
  llvm::Value *linearIndex(const Shape &shape, const Coords &coords);
  /// The tail mask of the strip being emitted (null: every lane, or the
  /// vector length says which). Dot strategies save and restore it around
  /// loads that must not take it.
  llvm::Value *tailMask() const { return tailMask_; }
  void setTailMask(llvm::Value *mask) { tailMask_ = mask; }

  // --- Conversions (StripConvert.cpp) ---
  llvm::Value *convert(llvm::Value *v, const Type &from, const Type &to, bool bitcast);
  /// As convert(), reading integers as unsigned (`ucast`): zero extension,
  /// unsigned to float, and float to unsigned saturating at 0 and the maximum.
  llvm::Value *convertUnsigned(llvm::Value *v, const Type &from, const Type &to);
  /// f32 to bf16, rounded to nearest even in integer arithmetic: subnormals
  /// survive, NaNs stay quiet NaNs.
  llvm::Value *roundToBF16(llvm::Value *f32);
  /// bf16 to f32, exactly, in integer arithmetic: no ISA needs bf16
  /// instructions for it (RVV has none without zvfbfmin).
  llvm::Value *extendBF16(llvm::Value *bf16);
  /// f32 to an 8-bit float's bits (i8), rounded to nearest even, saturating
  /// at the largest finite value as Triton's `cvt.rn.satfinite` does.
  llvm::Value *roundToFloat8(llvm::Value *f32, ScalarKind kind);
  /// An 8-bit float's bits (i8) to f32, exactly.
  llvm::Value *extendFloat8(llvm::Value *bits, ScalarKind kind);
  /// A float (scalar or strip, not bf16) to the integer type `to`, saturating.
  llvm::Value *saturatingFloatToInt(llvm::Value *v, const Type &to);
  /// f64, i32 or i64 to f32 rounded to odd, so that a second rounding to bf16
  /// gives the correctly rounded result of the whole conversion.
  llvm::Value *toF32RoundToOdd(llvm::Value *v, const Type &from);

  // --- Math (MathLowering.cpp; exp, exp2, log, tanh and erf inline, InlineMath.cpp) ---
  /// f32 exp (or exp2 with `base2`) of a scalar or strip as inline code.
  llvm::Value *inlineExp(llvm::Value *x, bool base2);
  /// exp without the branch to the normal range's shorter code.
  llvm::Value *wholeRangeExp(llvm::Value *x, bool base2);
  /// exp's shorter code alone: right where result and 2^n are normal
  /// floats, x in [-86, 88] ([-125, 127] for exp2), and only there.
  llvm::Value *normalRangeExp(llvm::Value *x, bool base2);
  std::pair<llvm::Value *, llvm::Value *> expParts(llvm::Value *x, bool base2);
  /// f32 natural log, tanh and erf of a scalar or strip as inline code.
  llvm::Value *inlineLog(llvm::Value *x);
  llvm::Value *inlineTanh(llvm::Value *x);
  llvm::Value *inlineErf(llvm::Value *x);
  /// `then()` where `condition` (an i1) holds, else `otherwise()`, each in a
  /// block of its own (NAME.then, NAME.else) joined by a phi of their
  /// values, or by nothing where `then()` gives none. `weights` may be null.
  llvm::Value *branchAndJoin(llvm::Value *condition, llvm::StringRef name, llvm::MDNode *weights,
                             llvm::function_ref<llvm::Value *()> then,
                             llvm::function_ref<llvm::Value *()> otherwise);
  /// `usual()` where `everyLane` holds in every lane of the strip (or for a
  /// scalar), else `otherwise()`, joined by a phi. `otherwiseRare` weights
  /// the branch as likely: LLVM then keeps it a branch (an unweighted one
  /// may be folded into selects, both sides computed for every strip) and
  /// gives the rare side's values the registers last. Where the other side
  /// is common (erf of activations past the polynomial's range), the
  /// branch is weighted even, or the register allocator spills that side's
  /// every temporary to keep the usual side's constants.
  llvm::Value *branchOnEveryLane(llvm::Value *everyLane, llvm::StringRef name, bool otherwiseRare,
                                 llvm::function_ref<llvm::Value *()> usual,
                                 llvm::function_ref<llvm::Value *()> otherwise);
  /// The polynomial with `coefficients` (lowest degree first) at `x`, by Horner's rule with FMA.
  llvm::Value *polynomial(llvm::Value *x, llvm::ArrayRef<float> coefficients);
  llvm::Value *emitMath(OpKind kind, llvm::ArrayRef<llvm::Value *> args, ScalarKind elem);
  llvm::Value *callSleef(MathFn fn, llvm::ArrayRef<llvm::Value *> args, ScalarKind elem);
  /// libm's `name` (with an `f` for f32) on each lane of `args` (scalars or
  /// strips, scalable ones through stack slots); `integerFirst`: the first
  /// argument is an int order (jn, yn), given as an integral float.
  llvm::Value *callLibmPerLane(llvm::StringRef name, llvm::ArrayRef<llvm::Value *> args,
                               bool integerFirst);
  /// x - trunc(x / y) * y exactly, as C's fmod (scalar or strip).
  llvm::Value *floatRemainder(llvm::Value *x, llvm::Value *y);
  /// x / d, correctly rounded, for a strip `x` of f32 or f64 and `d` the same
  /// value in every lane: through d's reciprocal and a Markstein correction,
  /// where every lane is in the range that makes it exact, else a division.
  llvm::Value *divideByUniform(llvm::Value *x, llvm::Value *d);
  /// `fn` on each half of the strips `args`, joined: for strips wider than
  /// any SLEEF variant of the ISA.
  llvm::Value *callSleefOnHalves(MathFn fn, llvm::ArrayRef<llvm::Value *> args, ScalarKind elem);

protected:
  const Target &target_;
  const IsaLowering &isa_;
  llvm::Module &module_;
  llvm::LLVMContext &ctx_;
  const CompileOptions &options_;
  /// Whether the CPU overlaps independent work across branches and loop
  /// trips itself; an in-order core (the K1's X60) has only what the
  /// scheduler interleaves within a basic block.
  bool outOfOrder_;
  llvm::IRBuilder<> b_;
  llvm::Function *fn_ = nullptr;
  llvm::BasicBlock *allocaBlock_ = nullptr;
  /// Lanes per strip: an i64 constant, or vscale times one.
  llvm::Value *stripLanes_ = nullptr;
  llvm::ElementCount stripCount_;
  /// Registers the widest strip of the kernel spans, its index strips
  /// included (an RVV m4 group of i8 data with i32 offsets: 16).
  unsigned stripRegisters_ = 1;
  /// Active lanes of the strip being emitted; null when all are (or when
  /// tailEvl_ says which are).
  llvm::Value *tailMask_ = nullptr;
  /// The vector length (i32) of the strip being emitted when the ISA
  /// strip-mines by vector length; null otherwise.
  llvm::Value *tailEvl_ = nullptr;
  /// Whether tailEvl_ is every lane of the strip (a whole chunk's strips
  /// keep the vector-predicated accesses of the tail, which LLVM lowers for
  /// every element type, but need no lane mask).
  bool evlCoversStrip_ = false;
  /// Per-strip memo of evaluated values, keyed by value and coordinates:
  /// cleared whenever a loop here starts another strip or element.
  std::map<std::tuple<const Value *, bool, llvm::SmallVector<llvm::Value *, 3>>, llvm::Value *>
      memo_;
};

} // namespace blockc
