//===- CodeGen.h - Block IR kernels to LLVM IR ------------------*- C++ -*-===//
//
// Each block op becomes a loop over register-sized strips of its last
// dimension (nested scalar loops walk the other dimensions). The target's
// IsaLowering sizes a kernel's strips from its widest element and register
// pressure: a constant number of lanes on fixed-width targets, vscale times a
// constant on RVV and SVE. The tail of a row is never scalar code: it runs
// under an active-lane mask, or, on ISAs that strip-mine by vector length,
// every strip sets its own length.
//
// Virtual values (see FuseElementwise.h) are evaluated per strip by eval(), which
// recurses through their defining ops, so a fused chain is one loop body.
// Materialized values live in 64-byte-aligned scratch allocas.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "FuseElementwise.h"
#include "blockc/frontend/IR.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/lowering/IsaLowering.h"
#include "blockc/targetinfo/Sleef.h"
#include "blockc/targetinfo/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

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

/// The distance in elements between consecutive lanes of a strip along the
/// last dimension: `factor` times the scalar `scale` (1 when null), as the
/// offsets' arithmetic says; a scalar argument such as a row stride is known
/// only when the kernel runs.
struct Stride {
  int64_t factor = 0;
  const Value *scale = nullptr;
  bool isConstant(int64_t c) const { return !scale && factor == c; }
};

/// The SLEEF function a float op is, if any (sigmoid is not one, but calls exp).
std::optional<MathFn> sleefFunction(OpKind kind);

class KernelCodeGen {
public:
  KernelCodeGen(const Target &target, const IsaLowering &isa, llvm::Module &module,
                const CompileOptions &options);

  /// Emits `void @name(ptr args, i32 pid_x, pid_y, pid_z, grid_x, grid_y, grid_z)`
  /// with `plan` deciding which block values live in scratch, and the constants
  /// `blockc_scratch_bytes_NAME` and `blockc_core_requirements_NAME` that
  /// launchers read.
  llvm::Function *emitKernel(Function &fn, const FusionPlan &plan);

  /// Scratch memory a program of this kernel needs: on its thread's stack up
  /// to kMaxStackScratchBytes, else in the thread's scratch arena.
  uint64_t scratchBytes() const { return scratchBytes_; }
  /// CoreRequirements of the dot strategies the kernel uses.
  CoreRequirements coreRequirements() const { return coreRequirements_; }

private:
  // Offers the strip machinery below to dot strategies (CodeGenDot.cpp).
  friend class KernelStripLoops;

  // --- Structure (CodeGen.cpp) ---
  void emitRegion(const Region &region);
  void emitOp(const Operation &op);
  void emitFor(const Operation &op);
  void emitIf(const Operation &op);
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
  };
  StoreStrip prepareStoreStrip(const Operation &op, const Coords &coords, bool vector);
  void commitStoreStrip(const Operation &op, const StoreStrip &strip);

  // --- Multi-output fusion (CodeGenGroups.cpp) ---
  /// Emits every sink of `group` in one loop over its strips.
  void emitStripGroup(const StripGroup &group);
  /// Computes a materialized value into a fresh buffer.
  void materialize(const Operation &op, const Value *v);
  /// Writes `v`'s elements into `buffer` (same shape, row-major).
  void writeInto(const Value *v, llvm::Value *buffer);
  /// A buffer holding `v`, materializing a virtual value on the spot.
  llvm::Value *bufferOf(const Value *v);
  /// Whether evaluating virtual `v` reads `x` (through other virtual values).
  bool readsValue(const Value *v, const Value *x);
  // --- Scratch (CodeGenScratch.cpp) ---
  llvm::Value *allocaBuffer(const Type &type, const std::string &name);
  /// 64-byte-aligned scratch of `type`, counted in the kernel's scratch
  /// memory: a stack slot until placeScratch decides where it lives.
  llvm::Value *allocaScratch(llvm::Type *type, const std::string &name);
  /// Ends the entry block with a branch to `body`, after moving every scratch
  /// buffer into the thread's arena when they do not all fit the stack.
  void placeScratch(llvm::BasicBlock *body);
  void copyBuffer(llvm::Value *dst, llvm::Value *src, const Type &type);

  // --- Loops (CodeGen.cpp) ---
  void emitCountedLoop(llvm::Value *begin, llvm::Value *end, llvm::Value *step,
                       const std::function<void(llvm::Value *)> &body);
  /// A loop from `begin` while below `end` whose body returns the next value
  /// of the induction variable.
  void emitLoop(llvm::Value *begin, llvm::Value *end,
                const std::function<llvm::Value *(llvm::Value *)> &body);
  /// Runs `body` for every strip of `shape`: coords[rank-1] is the strip's
  /// first column; `vector` is false when the last dimension is 1 (one
  /// element per call). Sets tailMask_ for the tail strip.
  void forEachStrip(const Shape &shape, const std::function<void(const Coords &, bool)> &body);
  void forEachStripOfRow(int64_t length, const std::function<void(llvm::Value *, bool)> &body);
  /// As above, with the full strips of a fixed-width row taken `ways` at a
  /// time and numbered round-robin (`way`, 0 to ways - 1), so that a loop
  /// carrying one accumulator per way has `ways` independent chains.
  void forEachStripOfRow(int64_t length, unsigned ways,
                         const std::function<void(llvm::Value *, bool, unsigned)> &body);
  /// How many ways a row of `length` elements takes at most `ways` in.
  unsigned waysFor(int64_t length, unsigned ways) const;
  void forEachElement(const Shape &shape, const std::function<void(const Coords &)> &body);

  // --- Predicated memory access of strips (CodeGenMemory.cpp) ---
  /// Under `mask` (null: every lane) and, when the strip sets its vector
  /// length, only its first tailEvl_ lanes. Masked-off lanes of a load are
  /// `passthru` (null: undefined).
  llvm::Value *loadStrip(llvm::Type *type, llvm::Value *ptr, llvm::Align align, llvm::Value *mask,
                         llvm::Value *passthru);
  void storeStrip(llvm::Value *value, llvm::Value *ptr, llvm::Align align, llvm::Value *mask);
  llvm::Value *gatherStrip(llvm::Type *type, llvm::Value *ptrs, llvm::Align align,
                           llvm::Value *mask, llvm::Value *passthru);
  void scatterStrip(llvm::Value *value, llvm::Value *ptrs, llvm::Align align, llvm::Value *mask);
  /// A strip of `op`'s store, contiguous at `ptr`: non-temporal when the
  /// store may stream (CompileOptions::streamingStores, findStreamableStores),
  /// every lane of `mask` is on and, on x86, `ptr` is aligned to the vector;
  /// a plain (masked) store otherwise.
  void streamOrStoreStrip(const Operation &op, llvm::Value *value, llvm::Value *ptr,
                          llvm::Align align, llvm::Value *mask);
  /// The block stores to pointer arguments the kernel never loads from, on
  /// ISAs with non-temporal vector stores that blockc uses (x86, NEON).
  void findStreamableStores(const Function &fn);
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

  // --- Evaluation of strips and elements (CodeGenEval.cpp) ---
  llvm::Value *eval(const Value *v, const Coords &coords, bool vector);
  llvm::Value *evalDef(const Operation &op, const Value *v, const Coords &coords, bool vector);
  /// Evaluates operand `i` of `op` at the result's `coords`, broadcasting.
  llvm::Value *evalOperand(const Operation &op, unsigned i, const Coords &coords, bool vector);
  llvm::Value *evalLoad(const Operation &op, const Coords &coords, bool vector);
  llvm::Value *combine(const Operation &op, llvm::ArrayRef<llvm::Value *> args,
                       const Type &operandType);
  // --- Conversions (CodeGenConvert.cpp) ---
  llvm::Value *convert(llvm::Value *v, const Type &from, const Type &to, bool bitcast);
  /// f32 to bf16, rounded to nearest even in integer arithmetic: subnormals
  /// survive, NaNs stay quiet NaNs.
  llvm::Value *roundToBF16(llvm::Value *f32);
  /// bf16 to f32, exactly, in integer arithmetic: no ISA needs bf16
  /// instructions for it (RVV has none without zvfbfmin).
  llvm::Value *extendBF16(llvm::Value *bf16);
  /// A float (scalar or strip, not bf16) to the integer type `to`, saturating.
  llvm::Value *saturatingFloatToInt(llvm::Value *v, const Type &to);
  /// f64, i32 or i64 to f32 rounded to odd, so that a second rounding to bf16
  /// gives the correctly rounded result of the whole conversion.
  llvm::Value *toF32RoundToOdd(llvm::Value *v, const Type &from);
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
  llvm::Value *loadBuffer(llvm::Value *buffer, const Type &type, const Coords &coords, bool vector);
  void storeBuffer(llvm::Value *buffer, const Type &type, const Coords &coords, llvm::Value *value,
                   bool vector);
  llvm::Value *linearIndex(const Shape &shape, const Coords &coords);

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

  // --- Reductions and dot (CodeGenReduce.cpp) ---
  void emitReduce(const Operation &op, llvm::Value *buffer);
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
    KernelCodeGen &cg_;
    const Operation &op_;
    bool isFloat_ = false;
    bool vector_ = false;
    Type accType_;
    llvm::Value *identity_ = nullptr;
    unsigned ways_ = 1;
    llvm::SmallVector<llvm::Value *, 4> accSlots_;
    llvm::Value *idxSlot_ = nullptr;
  };
  void emitDot(const Operation &op, llvm::Value *buffer);

  // --- Bounds checks (CodeGenBounds.cpp), with CompileOptions::checkBounds ---
  /// Finds the parameter each pointer value derives from, loads the extents
  /// and the report, and returns early when another program already failed.
  void beginBoundsChecks(const Function &fn);
  /// Before `op` touches `pointers` (scalar or strip) under `mask` (null: all
  /// lanes): records the first lane outside its argument and returns.
  void checkAccess(const Operation &op, llvm::Value *pointers, llvm::Value *mask);

  // --- Math (MathLowering.cpp) ---
  llvm::Value *emitMath(OpKind kind, llvm::ArrayRef<llvm::Value *> args, ScalarKind elem);
  llvm::Value *callSleef(MathFn fn, llvm::ArrayRef<llvm::Value *> args, ScalarKind elem);
  /// x - trunc(x / y) * y exactly, as C's fmod (scalar or strip).
  llvm::Value *floatRemainder(llvm::Value *x, llvm::Value *y);
  /// `fn` on each half of the strips `args`, joined: for strips wider than
  /// any SLEEF variant of the ISA.
  llvm::Value *callSleefOnHalves(MathFn fn, llvm::ArrayRef<llvm::Value *> args, ScalarKind elem);

  // --- Types and small helpers ---
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
  llvm::Type *vectorOf(llvm::Type *element);
  llvm::Value *splat(llvm::Value *scalar);
  llvm::Value *i64(int64_t v) { return b_.getInt64(v); }
  llvm::Value *andMasks(llvm::Value *a, llvm::Value *b);
  llvm::Value *allTrueMask();

  const Target &target_;
  const IsaLowering &isa_;
  llvm::Module &module_;
  llvm::LLVMContext &ctx_;
  const CompileOptions &options_;
  llvm::IRBuilder<> b_;
  llvm::Function *fn_ = nullptr;
  llvm::BasicBlock *allocaBlock_ = nullptr;
  FusionPlan plan_;
  std::unordered_map<const Value *, llvm::Value *> scalars_;
  std::unordered_map<const Value *, llvm::Value *> buffers_;
  /// Dot results computed in the buffer of the loop-carried accumulator they
  /// replace (the K loop of a matmul): no copy in or out each iteration.
  std::unordered_map<const Value *, llvm::Value *> accumulatorBuffers_;
  llvm::Value *programIds_[3] = {};
  llvm::Value *gridSizes_[3] = {};
  /// Lanes per strip: an i64 constant, or vscale times one.
  llvm::Value *stripLanes_ = nullptr;
  llvm::ElementCount stripCount_;
  /// Active lanes of the strip being emitted; null when all are (or when
  /// tailEvl_ says which are).
  llvm::Value *tailMask_ = nullptr;
  /// The vector length (i32) of the strip being emitted when the ISA
  /// strip-mines by vector length; null otherwise.
  llvm::Value *tailEvl_ = nullptr;
  /// Bounds checks: the parameter each pointer value derives from (-1:
  /// several or unknown), each pointer parameter's extent in bytes, the report.
  std::unordered_map<const Value *, int> pointerOrigin_;
  struct CheckedParam {
    const Value *param;
    int index;
    llvm::Value *extent;
  };
  std::vector<CheckedParam> checkedParams_;
  llvm::Value *boundsReport_ = nullptr;
  /// A scalar argument known to be 1 in the code being emitted (inside the
  /// rows-contiguous version of a transposable access).
  const Value *knownUnitScale_ = nullptr;
  std::unordered_set<const Operation *> streamableStores_;
  /// Non-temporal stores are weakly ordered: a kernel that issued one fences
  /// before it returns, so the launcher's barrier publishes its output.
  bool emittedStreamingStore_ = false;
  uint64_t scratchBytes_ = 0;
  std::vector<llvm::AllocaInst *> scratchBuffers_;
  CoreRequirements coreRequirements_ = 0;
  /// Per-strip memo of evaluated values, keyed by value and coordinates.
  std::map<std::tuple<const Value *, bool, llvm::SmallVector<llvm::Value *, 3>>, llvm::Value *>
      memo_;
};

} // namespace blockc
