//===- CodeGen.h - Block IR kernels to LLVM IR ------------------*- C++ -*-===//
//
// KernelCodeGen turns each Block IR operation into strips (StripEmitter.h):
// the kernel's frame and `if` here (CodeGen.cpp), loops (CodeGenLoops.cpp),
// values evaluated a strip at a time (CodeGenEval.cpp) or held in buffers
// (CodeGenBuffers.cpp), stores (CodeGenStores.cpp), atomics
// (CodeGenAtomics.cpp), the strides of pointer strips (CodeGenStrides.cpp)
// and the accesses versioned on them (CodeGenTranspose.cpp), multi-output
// fusion (CodeGenGroups.cpp), reductions (CodeGenReduce.cpp), reductions and
// scans with a combine body (CodeGenCombine.cpp) and dots, through the dot
// cascade (CodeGenDot.cpp). Where a program's scratch lives (Scratch.h) and the
// bounds checks (BoundsChecks.h) are parts of their own.
//
// Virtual values (see FuseElementwise.h) are evaluated per strip by eval(), which
// recurses through their defining ops, so a fused chain is one loop body.
// Materialized values live in 64-byte-aligned scratch buffers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "BoundsChecks.h"
#include "FuseElementwise.h"
#include "Scratch.h"
#include "StripEmitter.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace blockc {

/// The distance in elements between consecutive lanes of a strip along the
/// last dimension: `factor` times the scalar `scale` (1 when null), as the
/// offsets' arithmetic says; a scalar argument such as a row stride is known
/// only when the kernel runs.
struct Stride {
  int64_t factor = 0;
  const Value *scale = nullptr;
  bool isConstant(int64_t c) const { return !scale && factor == c; }
};

/// Reads of `v` in `region`, nested regions and terminators included.
unsigned usesIn(const Region &region, const Value *v);

/// The dot that updates carried value `i` of loop body `body` in place: its
/// accumulator is the carried value, read by nothing else, and its result is
/// yielded as the next value of that same carried value and read by nothing
/// else (CodeGenLoops.cpp). Such a dot accumulates straight into the carried
/// buffer, and a K loop around it may be fused into it (CodeGenKLoops.cpp).
const Value *accumulatingDot(const Region &body, size_t i);

class KernelCodeGen : private StripEmitter {
public:
  KernelCodeGen(const Target &target, const IsaLowering &isa, llvm::Module &module,
                const CompileOptions &options, const llvm::MCSchedModel &schedule);

  /// Emits `void @name(ptr args, i32 pid_x, pid_y, pid_z, grid_x, grid_y, grid_z)`
  /// with `plan` deciding which block values live in scratch, and the constants
  /// `blockc_scratch_bytes_NAME` and `blockc_core_requirements_NAME` that
  /// launchers read.
  llvm::Function *emitKernel(Function &fn, const FusionPlan &plan);

  /// Scratch memory a program of this kernel needs: on its thread's stack up
  /// to kMaxStackScratchBytes, else in the thread's scratch arena.
  uint64_t scratchBytes() const { return scratch_ ? scratch_->bytes() : 0; }
  /// CoreRequirements of the dot strategies the kernel uses.
  CoreRequirements coreRequirements() const { return coreRequirements_; }

private:
  // --- Structure (CodeGen.cpp) ---
  void emitRegion(const Region &region);
  void emitOp(const Operation &op);
  /// An op neither a strip group nor its fusion plan emits.
  void emitOwnOp(const Operation &op);
  void emitFor(const Operation &op);
  void emitWhile(const Operation &op);
  /// A loop's carried values: blocks in buffers, scalars in phis of its
  /// header. Init i is operand firstInit + i; body argument firstArg + i.
  struct Carried {
    std::vector<llvm::Value *> buffers;
    std::vector<llvm::PHINode *> phis;
    size_t firstInit = 0, firstArg = 0;
  };
  Carried carryInBuffers(const Operation &op, size_t firstInit, const Region &body,
                         size_t firstArg);
  /// The scalars' phis, at the insertion point (the header), entered from `pre`
  /// with their inits, or with `starts[i]` where that is set.
  void carryInPhis(Carried &carried, const Operation &op, const Region &body, llvm::BasicBlock *pre,
                   llvm::ArrayRef<llvm::Value *> starts = {});
  /// Makes `values` (the body's arguments, or the loop's results) the carried values.
  void bindCarried(const Carried &carried, llvm::ArrayRef<const Value *> values);
  /// The carried values' next ones, from yield operands firstYielded + i.
  void writeCarried(const Region &body, const Operation *yield, size_t firstYielded,
                    const Carried &carried);
  void emitIf(const Operation &op);

  // --- Stores (CodeGenStores.cpp) ---
  void emitStore(const Operation &op);
  /// One strip of a block store, evaluated (prepareStoreStrip) before it is
  /// written (commitStoreStrip), so that a strip group can evaluate all its
  /// sinks before any of them writes.
  struct StoreStrip {
    llvm::Value *value = nullptr;
    llvm::Value *mask = nullptr;
    llvm::Value *first = nullptr;    ///< the first lane's pointer
    llvm::Value *pointers = nullptr; ///< every lane's, where needed
    bool vector = false;
    bool mayStream = false; ///< the store may take a non-temporal strip
  };
  /// `mayStream`: storeMayStream's answer for `op`.
  StoreStrip prepareStoreStrip(const Operation &op, const Coords &coords, bool vector,
                               bool mayStream);
  /// Whether `op`'s strips may stream (findStreamableStores), given whether
  /// they compute math.
  bool storeMayStream(const Operation &op, bool computesMath);
  void commitStoreStrip(const Operation &op, const StoreStrip &strip);
  /// A strip of `op`'s store, contiguous at `ptr`: non-temporal when the
  /// store may stream (CompileOptions::streamingStores, findStreamableStores),
  /// every lane of `mask` is on and, where the ISA asks, `ptr` is aligned to
  /// the vector; a plain (masked) store otherwise.
  void streamOrStoreStrip(const Operation &op, llvm::Value *value, llvm::Value *ptr,
                          llvm::Align align, llvm::Value *mask);
  /// The block stores to pointer arguments the kernel never loads from, on
  /// ISAs with non-temporal vector stores that blockc uses.
  void findStreamableStores(const Function &fn);

  // --- Atomics (CodeGenAtomics.cpp) ---
  /// Runs `op` lane by lane; its old values go to a buffer (or a scalar).
  void emitAtomic(const Operation &op);
  /// One active lane of `op` at `ptr` with its value operands; returns the
  /// value memory held before.
  llvm::Value *emitAtomicElement(const Operation &op, llvm::Value *ptr,
                                 llvm::ArrayRef<llvm::Value *> values);

  // --- Values in buffers (CodeGenBuffers.cpp) ---
  /// A scratch buffer for a value of `type`, in its memory type.
  llvm::Value *allocaBuffer(const Type &type, const std::string &name);
  /// Computes a materialized value into a fresh buffer.
  void materialize(const Operation &op, const Value *v);
  /// Writes `v`'s elements into `buffer` (same shape, row-major); with
  /// `versionMasks`, in a loop versioned on its loads' index masks.
  void writeInto(const Value *v, llvm::Value *buffer, bool versionMasks = true);
  /// A buffer holding `v`, materializing a virtual value on the spot.
  llvm::Value *bufferOf(const Value *v, bool versionMasks = true);
  /// Whether evaluating virtual `v` reads `x` (through other virtual values).
  bool readsValue(const Value *v, const Value *x);

  // --- Multi-output fusion (CodeGenGroups.cpp) ---
  /// Emits every sink of `group` in one loop over its strips.
  void emitStripGroup(const StripGroup &group);

  // --- Evaluation of strips and elements (CodeGenEval.cpp) ---
  llvm::Value *eval(const Value *v, const Coords &coords, bool vector);
  llvm::Value *evalDef(const Operation &op, const Value *v, const Coords &coords, bool vector);
  /// Evaluates operand `i` of `op` at the result's `coords`, broadcasting.
  llvm::Value *evalOperand(const Operation &op, unsigned i, const Coords &coords, bool vector);
  llvm::Value *evalLoad(const Operation &op, const Coords &coords, bool vector);
  /// One element of a volatile load, under `mask` (null: always) with
  /// `passthru` where it is off.
  llvm::Value *loadVolatile(llvm::Value *ptr, llvm::Type *memTy, llvm::Align align,
                            llvm::Value *mask, llvm::Value *passthru);
  llvm::Value *combine(const Operation &op, llvm::ArrayRef<llvm::Value *> args,
                       const Type &operandType);
  // --- Strides of pointer strips (CodeGenStrides.cpp) ---
  std::optional<Stride> strideOf(const Value *v);
  /// The distance in elements between neighbours of `v` along `axis`.
  std::optional<Stride> strideAlong(const Value *v, size_t axis);
  std::optional<Stride> operandStride(const Operation &op, unsigned i);
  /// The stride's value (i64) in the program.
  llvm::Value *runtimeStride(const Stride &stride);
  /// Emits `unit` where `stride` is 1 when the kernel runs and `other`
  /// elsewhere, and merges their results (null: nothing to merge).
  llvm::Value *whenUnitStride(llvm::Value *stride, const std::function<llvm::Value *()> &unit,
                              const std::function<llvm::Value *()> &other);

  // --- 2D accesses with contiguous columns (CodeGenTranspose.cpp) ---
  /// Row coordinates and active lanes of the rows of one L x L square.
  struct RowMasks {
    llvm::SmallVector<Coords, 16> coords;
    llvm::SmallVector<llvm::Value *, 16> masks;
  };
  /// Whether the 2D load or store `op` is versioned on its strides (rows
  /// contiguous, columns contiguous, neither) rather than gathered or
  /// scattered: its last-axis stride is a scalar argument and the ISA has no
  /// strided access.
  bool isTransposable(const Operation &op);
  void writeTransposableLoad(const Operation &op, const Value *v, llvm::Value *buffer);
  /// `strips`: the store as usual, for the version where rows are contiguous.
  void emitTransposableStore(const Operation &op, const std::function<void()> &strips);
  void versionOnStrides(const Operation &op, const std::function<void()> &rows,
                        const std::function<void()> &columns,
                        const std::function<void()> &elements);
  /// Runs `body` for every L x L square of a 2D shape (L: the strip's lanes).
  void
  forEachSquare(const Shape &shape,
                const std::function<void(llvm::Value *, llvm::Value *, const RowMasks &)> &body);
  /// The transpose of an L x L matrix held as L vectors of L lanes.
  llvm::SmallVector<llvm::Value *, 16> transposeSquare(llvm::ArrayRef<llvm::Value *> rows);

  // --- Reductions (CodeGenReduce.cpp) ---
  void emitReduce(const Operation &op, llvm::Value *buffer);
  /// Whether evaluating `v` strip by strip computes math (exp, erf, pow, ...)
  /// through its virtual operands.
  bool evaluatesMath(const Value *v);
  /// Strips a loop that computes math (an inline exp) takes at a time: one.
  /// The math's own independent work hides a reduction accumulator's
  /// latency, and a second copy of the exp only adds registers: on AVX2's
  /// 16 it spilled (fused softmax 4096^2 on one Zen 5 core at x86-64-v3:
  /// 14.6 ms with two, 13.8 with one; the loop form and x86-64-v4 the same
  /// within 2%), and on the K1 two interleaved m2 strips spilled the
  /// polynomial's constants and ran no faster per element in llvm-mca's X60
  /// model (232 cycles for two strips, 113 for one).
  unsigned mathStripWays() const { return 1; }
  /// Strips a loop of stores and no reduction takes at a time: on an
  /// in-order core two, whose loads issue under each other's arithmetic,
  /// unless they compute math (mathStripWays); one elsewhere.
  unsigned storeStripWays(bool computesMath) const {
    return !outOfOrder_ && !computesMath ? kInOrderStoreWays : 1;
  }
  static constexpr unsigned kInOrderStoreWays = 2;
  /// The arithmetic of reduction `op`, and its accumulation along the last
  /// axis one row at a time: beginRow() before the row's strips,
  /// prepareStrip() and accumulateStrip() in each, finishRow() after them.
  class Reduction {
  public:
    Reduction(KernelCodeGen &cg, const Operation &op);
    const Type &accType() const { return accType_; }
    llvm::Value *identity() const { return identity_; }
    /// The source element converted to the accumulator's type.
    llvm::Value *widen(llvm::Value *x);
    /// (acc, index) after folding `x`, whose elements are at `idx`, in.
    std::pair<llvm::Value *, llvm::Value *> step(llvm::Value *acc, llvm::Value *accIdx,
                                                 llvm::Value *x, llvm::Value *idx);
    /// Independent accumulators a row may use: several break the chain of
    /// dependent steps through a long row; an argmax/argmin takes one, since
    /// its ties go to the first index.
    unsigned maxWays() const;
    void beginRow(int64_t length, unsigned ways);
    /// The strip of the source at `coords`, widened, inactive lanes neutral.
    llvm::Value *prepareStrip(const Coords &coords, bool vector);
    void accumulateStrip(llvm::Value *x, llvm::Value *column, bool vector, unsigned way);
    /// The row's result: a scalar when `buffer` is null, else stored at
    /// `rowCoords` of it.
    void finishRow(const Coords &rowCoords, llvm::Value *buffer);

  private:
    /// The running value of a float min/max strip, where the ISA's min and
    /// max are not IEEE minNum/maxNum (IsaLowering::hasNumericMinMax): it
    /// starts at the infinity every number beats and takes `x` only where
    /// `x` is better, so a NaN element never enters it, and x86 does the step
    /// in one vmaxps instead of a max, a compare and a blend in a chain.
    /// `seen` tells an all-NaN lane, which must give NaN, from one of
    /// infinities.
    std::pair<llvm::Value *, llvm::Value *> stepOrdered(llvm::Value *acc, llvm::Value *seen,
                                                        llvm::Value *x);
    /// An integer lane as wide as the accumulator's per lane of a strip.
    llvm::Type *seenType(bool vector) const;

    KernelCodeGen &cg_;
    const Operation &op_;
    bool isFloat_ = false;
    bool vector_ = false;
    /// Whether rows accumulate through stepOrdered.
    bool ordered_ = false;
    Type accType_;
    llvm::Value *identity_ = nullptr;
    unsigned ways_ = 1;
    llvm::SmallVector<llvm::Value *, 4> accSlots_;
    /// Per way, the lanes that saw a number (ordered_ only).
    llvm::SmallVector<llvm::Value *, 4> seenSlots_;
    llvm::Value *idxSlot_ = nullptr;
  };

  // --- Reductions and scans with a combine body (CodeGenCombine.cpp) ---
  void emitCombining(const Operation &op);
  /// `assert`: checked where bounds checks give failures a report, a no-op
  /// elsewhere (docs/block-ir.md, section 10.15).
  void emitAssert(const Operation &op);

  // --- Printing (CodeGenPrint.cpp) ---
  void emitPrint(const Operation &op);
  /// A value of element type `t` as the 64 bits blockc_print reads.
  llvm::Value *printBits(llvm::Value *v, const Type &t, bool hex);
  /// The combine body of `op` applied to (left, right), one value per
  /// operand, all scalars or all strips; returns what the body yields.
  llvm::SmallVector<llvm::Value *, 4> applyCombiner(const Operation &op,
                                                    llvm::ArrayRef<llvm::Value *> left,
                                                    llvm::ArrayRef<llvm::Value *> right);
  /// One stack slot per operand of a combining op: its scalar or strip type.
  struct CombineSlots {
    llvm::SmallVector<llvm::Value *, 4> slots;
    llvm::SmallVector<llvm::Type *, 4> types;
    llvm::SmallVector<llvm::Value *, 4> load(llvm::IRBuilder<> &b);
    void store(llvm::IRBuilder<> &b, llvm::ArrayRef<llvm::Value *> values);
  };
  CombineSlots combineSlots(const Operation &op, bool vector);
  llvm::SmallVector<llvm::Value *, 4> evalOperands(const Operation &op, const Coords &coords,
                                                   bool vector);
  llvm::SmallVector<llvm::Value *, 4> extractAll(llvm::ArrayRef<llvm::Value *> vectors,
                                                 llvm::Value *lane);
  /// Result i at `coords` of its buffer (null: a scalar result).
  void storeResults(const Operation &op, llvm::ArrayRef<llvm::Value *> buffers,
                    const Coords &coords, llvm::ArrayRef<llvm::Value *> values, bool vector);
  void emitCombiningAcrossRows(const Operation &op, llvm::ArrayRef<llvm::Value *> buffers,
                               bool reverse);
  void emitReduceAlongRows(const Operation &op, llvm::ArrayRef<llvm::Value *> buffers);
  void emitScanAlongRowsLogStep(const Operation &op, llvm::ArrayRef<llvm::Value *> buffers,
                                bool reverse);
  /// Pointers to the mirror images along the last axis of the strip (or
  /// element) at `coords` of a buffer of `type`: column length - 1 - c for
  /// each of its columns c.
  llvm::Value *mirroredPointers(llvm::Value *buffer, const Type &type, const Coords &coords,
                                bool vector);
  /// The inclusive prefix of `op`'s combine body inside one strip of each operand.
  llvm::SmallVector<llvm::Value *, 4> stripPrefix(const Operation &op,
                                                  llvm::SmallVector<llvm::Value *, 4> y);
  // --- Dots, through the dot cascade (CodeGenDot.cpp) ---
  void emitDot(const Operation &op, llvm::Value *buffer);
  /// The DotOperands of `dot` accumulating in `c`; A and B still unset.
  DotOperands
  dotOperandsOf(const Operation &dot, llvm::Value *c,
                std::function<llvm::Value *(llvm::Type *, const std::string &)> allocate,
                StripLoops *strips);
  /// A dot operand that can be read where it is in memory: a load whose
  /// pointers are first + row * rowStride + column.
  struct InPlaceOperand {
    llvm::Value *first = nullptr;
    llvm::Value *rowStride = nullptr; ///< i64, in elements
    /// i1: every lane of the load's mask is on and its columns are contiguous.
    llvm::Value *usable = nullptr;
    /// The next K step's `first`, where the loop around advances the
    /// pointers' base by a known step (loopAdvances_); else null.
    llvm::Value *next = nullptr;
  };
  /// `v` as an InPlaceOperand when it is a virtual, non-volatile 2D load
  /// whose pointers' strides are known (the column one 1, or a scalar).
  std::optional<InPlaceOperand> inPlaceOperand(const Value *v);

  // --- K loops fused into their dot (CodeGenKLoops.cpp) ---
  /// A `for` whose body loads a tile of A and one of B, adds their dot to a
  /// carried accumulator and steps the tiles' scalar base pointers, and does
  /// nothing else that a fused dot would skip.
  struct FusibleKLoop {
    const Operation *dot = nullptr;
    const Operation *loads[2] = {};
    size_t accumulator = 0; ///< the carried index of the accumulator
    /// Per carried index, the loop-invariant scalar step of a stepped
    /// pointer; null for the accumulator.
    std::vector<const Value *> steps;
    /// Integer add, sub and mul on the way from the induction variable to
    /// the loads' masks, whose origin lanes are checked not to wrap.
    std::vector<const Value *> inductionArithmetic;
  };
  std::optional<FusibleKLoop> matchFusibleKLoop(const Operation &forOp);
  /// Emits the leading trips of the loop whose tiles are whole as dots of
  /// several K steps, into the accumulator's carried buffer; returns how
  /// many trips that was (i64, 0 when the strategy sums one step at a time).
  llvm::Value *emitFusedKTrips(const Operation &forOp, const FusibleKLoop &loop,
                               const Carried &carried, llvm::Value *lo, llvm::Value *step,
                               llvm::Value *trips);
  /// Binds the loop's induction variable and stepped pointers to their
  /// values at `trip` (i64) and evaluates the body's scalars that read no
  /// other carried value; returns i1: the induction arithmetic is exact.
  llvm::Value *bindTrip(const Operation &forOp, const FusibleKLoop &loop, llvm::Value *lo,
                        llvm::Value *step, llvm::Value *trip);

  // --- Masks whose every lane is on (CodeGenMasks.cpp) ---
  /// i1: whether every lane of the i1 block (or scalar) `mask` is on; at once
  /// where everyLaneOnAtOnce can tell, else strip by strip (a conjunction of
  /// broadcast parts part by part, on each part's own shape).
  llvm::Value *everyLaneOn(const Value *mask);
  /// i1, in a few scalar instructions, for index masks: signed compares of
  /// affine integer offsets (extremesOf) and conjunctions and broadcasts of
  /// them; nullopt for any other mask. Where the answer is true, the offsets
  /// it compared (added to `compared`) do not wrap.
  std::optional<llvm::Value *> everyLaneOnAtOnce(const Value *mask,
                                                 std::vector<const Value *> *compared = nullptr);
  /// The least and greatest lane (i64) of an i8/i16/i32 block or scalar
  /// whose strides along every axis are known, and whether they are exact
  /// (i1: the lanes computed in the type's width did not wrap).
  struct Extremes {
    llvm::Value *min, *max, *exact;
  };
  std::optional<Extremes> extremesOf(const Value *x);
  /// Lane `coords` of operand `i` of `op`, sign-extended to i64, computed from
  /// the block's first lane and its strides when its lanes do not wrap
  /// (exactOffsets_); null otherwise. An address then needs no per-strip
  /// 32-bit add and extension, and LLVM can step a pointer from strip to strip.
  llvm::Value *exactLaneAsI64(const Operation &op, unsigned i, const Coords &coords);
  /// The masks of the loads and stores that evaluating `v` (or running `op`)
  /// strip by strip performs, through virtual values.
  void collectAccessMasks(const Value *v, std::vector<const Value *> &masks,
                          std::unordered_set<const Value *> &seen);
  void collectAccessMasks(const Operation &op, std::vector<const Value *> &masks,
                          std::unordered_set<const Value *> &seen);
  /// Emits `body` (a strip loop) twice when some of `masks` can be tested at
  /// once: where every lane of them is on, with them in fullMasks_, and as it
  /// is. `scalarResults`, scalars the body defines, are joined after it.
  void versionOnFullMasks(llvm::ArrayRef<const Value *> masks,
                          llvm::ArrayRef<const Value *> scalarResults,
                          const std::function<void()> &body);

  std::optional<ScratchSpace> scratch_;
  /// Only with CompileOptions::checkBounds.
  std::optional<BoundsChecks> bounds_;
  FusionPlan plan_;
  std::unordered_map<const Value *, llvm::Value *> scalars_;
  std::unordered_map<const Value *, llvm::Value *> buffers_;
  /// Dot results computed in the buffer of the loop-carried accumulator they
  /// replace (the K loop of a matmul): no copy in or out each iteration.
  std::unordered_map<const Value *, llvm::Value *> accumulatorBuffers_;
  llvm::Value *programIds_[3] = {};
  llvm::Value *gridSizes_[3] = {};
  /// Masks every lane of which is on in the code being emitted (inside the
  /// full version of versionOnFullMasks): loads and stores under them take
  /// no mask.
  std::unordered_set<const Value *> fullMasks_;
  /// Integer blocks whose lanes are known not to wrap in the code being
  /// emitted: the offsets the full version of versionOnFullMasks compared.
  std::unordered_set<const Value *> exactOffsets_;
  /// A scalar argument known to be 1 in the code being emitted (inside the
  /// rows-contiguous version of a transposable access).
  const Value *knownUnitScale_ = nullptr;
  std::unordered_set<const Operation *> streamableStores_;
  /// Scalar pointers a `for` being emitted carries and advances by a scalar
  /// step each trip (`yield addptr %p, %step`), and that step.
  std::unordered_map<const Value *, const Value *> loopAdvances_;
  /// Non-temporal stores are weakly ordered: a kernel that issued one fences
  /// before it returns, so the launcher's barrier publishes its output.
  bool emittedStreamingStore_ = false;
  /// Whether a store or atomic may have run before the op being emitted, in
  /// program order (a loop's writes count from its start, for its next
  /// trip): until then, a dot's operands read in place hold what they held
  /// when the launch began, so programs may share their packed copies.
  bool memoryMayBeWritten_ = false;
  CoreRequirements coreRequirements_ = 0;

  // --- The next program's blocks, fetched ahead (CodeGenPrefetch.cpp) ---
  /// A load of the kernel's body whose block the next program (program id 0
  /// plus one) reads at this program's address plus `offset` bytes.
  struct NextProgramFetch {
    const Operation *load;
    llvm::Value *offset;
  };
  /// The loads of `roots` a strip loop of `shape` fetches for the next
  /// program, strip by strip, when an earlier pass read memory (and waited
  /// on it, where this pass finds its rows in cache): the kernel's inputs
  /// whose address depends on the program id.
  std::vector<NextProgramFetch> planNextProgramFetches(llvm::ArrayRef<const Value *> roots,
                                                       const Shape &shape);
  void fetchForNextProgram(const std::vector<NextProgramFetch> &fetches, const Coords &coords,
                           bool vector);
  /// Bytes from element 0 of `pointers` in this program to the same element
  /// in the next; null where the pointers do not depend on the program id or
  /// depend on something other than address arithmetic (a load, a loop).
  llvm::Value *nextProgramOffset(const Value *pointers);
  /// Resets what the fetches of the kernel `fn` depend on: its parameters,
  /// its loops' induction variables and the pointers it stores through.
  void beginNextProgramFetches(const Function &fn);
  /// Records the loads `op` read, once it is emitted.
  void noteLoadsRead(const Operation &op);
  /// Loads `v` reads within a strip, not through scratch; and, into
  /// `copiedToScratch` where given, those an earlier pass read whose blocks
  /// `v` reads back from scratch.
  void collectLoadsReadBy(const Value *v, std::vector<const Operation *> &loads,
                          std::unordered_set<const Value *> &seen,
                          std::vector<const Operation *> *copiedToScratch = nullptr);
  /// The kernel's parameters, and each `for`'s induction variable with its loop.
  std::unordered_set<const Value *> parameters_;
  std::unordered_map<const Value *, const Operation *> inductionVariables_;
  /// The pointer arguments the kernel stores or atomically updates through,
  /// and those whose next program's blocks a strip loop fetches.
  std::unordered_set<const Value *> storedRoots_, fetchedRoots_;
  /// Loads a strip loop already read.
  std::unordered_set<const Operation *> loadsRead_;
};

} // namespace blockc
