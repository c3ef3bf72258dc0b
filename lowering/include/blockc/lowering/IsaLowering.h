//===- IsaLowering.h - The questions lowering asks an ISA -------*- C++ -*-===//
//
// The generic code generator is the same for every target. Where ISAs really
// differ it asks the target's IsaLowering: how wide a strip is (fixed lanes,
// or vscale and RVV's register group), how the last strip of a row is
// predicated, which element types the vector unit can carry, and which dot
// strategies it offers, best first. Each ISA folder (targets/x86,
// targets/aarch64, riscv) implements this interface and sits above lowering;
// the ISA layer registers each implementation under its Target::arch
// (blockc::registerIsaLowerings), the way LLVM's targets register themselves.
// Generic lowering names no ISA, intrinsic or feature.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Types.h"
#include "blockc/targetinfo/Target.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/TypeSize.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockc {

/// What a kernel asks of its strips, measured before code is generated.
struct StripDemand {
  /// Bits of the widest data element a strip carries (loaded, computed from
  /// loads, or stored). f16 and bf16 count as 32: their arithmetic is in f32.
  unsigned widestElementBits = 32;
  /// Bits of the widest element of any strip, index arithmetic included (i32
  /// offsets in an i8 kernel): such strips span several registers.
  unsigned widestIndexBits = 32;
  /// An estimate of the strips live at once in the busiest fused loop body.
  unsigned liveStrips = 1;
  /// Whether strips are passed to SLEEF: each call clobbers every vector
  /// register, and SLEEF's variants take strips of one width only.
  bool callsMath = false;
};

/// The strip every block op of one kernel is cut into.
struct StripShape {
  /// Lanes of a strip: fixed, or a multiple of vscale.
  llvm::ElementCount lanes;
  /// Registers a strip of the widest element occupies (RVV's LMUL); 1 on
  /// ISAs without register groups.
  unsigned registerGroup = 1;
};

enum class TailPredication {
  /// Full strips run unmasked; the last strip of a row runs under an
  /// active-lane mask (AVX-512 k-registers, AVX2 blends, NEON selects).
  LaneMask,
  /// Every strip runs under the active-lane mask of its position (SVE's
  /// whilelo): one loop, where predication costs nothing.
  PredicatedLoop,
  /// Every strip sets the vector length to the elements that remain (RVV's
  /// vsetvli): one loop, full strips and the tail alike.
  VectorLength,
};

class StripLoops;

/// A dot C[m, n] = A[m, k] · B[k, n] + C whose operands are row-major; C
/// holds the accumulator on entry and the result on exit. C is a dense
/// buffer; A and B are dense buffers too unless their row strides say
/// otherwise: a dot that reads its operands where they are in memory (a
/// matrix's rows, whole and unmasked) passes those rows' distance.
struct DotOperands {
  llvm::IRBuilderBase &builder;
  llvm::Value *a, *b, *c;
  ScalarKind aKind, bKind, cKind;
  int64_t m, n, k;
  /// A 64-byte-aligned scratch buffer of `type` for the program, counted in
  /// the kernel's scratch memory (packed operands).
  std::function<llvm::Value *(llvm::Type *type, const std::string &name)> allocateScratch;
  /// The kernel's own strips (DotCascade.h), for strategies that compute in
  /// them.
  StripLoops *strips = nullptr;
  /// Elements (i64) from one row of A, and of B, to the next; null for a
  /// dense buffer (k, and n).
  llvm::Value *aRowStride = nullptr, *bRowStride = nullptr;
  /// Where the next K step's tiles of A and B begin, with the same row
  /// strides, when the dot reads in place inside a loop that advances its
  /// pointers by a known step; null otherwise. For prefetching only: they
  /// may lie past the matrices' ends, so they must never be loaded.
  llvm::Value *aNext = nullptr, *bNext = nullptr;
  /// The number of consecutive K steps (i64, at least 1) the dot sums, when
  /// code generation fuses a K loop into it (DotStrategy::fusedKSteps): A and
  /// B are then read in place, step s in columns s*k .. s*k+k-1 of A's rows
  /// and rows s*k .. s*k+k-1 of B, so the dot is one of K = kSteps * k. At
  /// most maxKSteps, which sizes scratch. Null: one step of k.
  llvm::Value *kSteps = nullptr;
  int64_t maxKSteps = 1;
  /// True (i1) when B is read in place and nothing the program wrote can
  /// have changed it since the launch began: B's address and row stride then
  /// name its contents, and a packed copy may be shared with the launch's
  /// other programs (blockc_packed_operand). Null: never.
  llvm::Value *bShareable = nullptr;

  /// The dot's whole K (i64): kSteps * k.
  llvm::Value *kTotal() const {
    return kSteps ? builder.CreateMul(kSteps, builder.getInt64(k), "", true, true)
                  : builder.getInt64(k);
  }
  llvm::Value *rowStrideOfA() const { return aRowStride ? aRowStride : builder.getInt64(k); }
  llvm::Value *rowStrideOfB() const { return bRowStride ? bRowStride : builder.getInt64(n); }
};

/// What a kernel needs of the core that runs it beyond its target's ISA: a
/// unit only some cores of a chip have. A bit set of runtime.h's
/// BLOCKC_REQUIRES_* values, defined by the ISA that emits such code, recorded
/// in the compiled kernel (CompiledKernel::coreRequirements, the object's
/// constant `blockc_core_requirements_NAME`) and honoured by the launcher.
using CoreRequirements = uint64_t;

/// One way of computing a dot: a matrix unit or a register-blocked vector
/// micro-kernel. Lowering tries an ISA's strategies in order and falls back
/// to the generic strategy, which accepts every dot (DotCascade.h).
class DotStrategy {
public:
  virtual ~DotStrategy() = default;
  virtual std::string_view name() const = 0;
  virtual bool accepts(const DotOperands &dot) const = 0;
  virtual void emit(const DotOperands &dot) const = 0;
  /// The operands code generation may hand emit() where they are in memory
  /// (DotOperands' row strides), when a K step's tiles are whole.
  struct InPlaceReads {
    bool a = true, b = true;
  };
  virtual InPlaceReads inPlaceReads() const { return {}; }
  /// How many K steps one emit() may sum when both operands are read in place
  /// (DotOperands::kSteps): a K loop around the dot then becomes one dot per
  /// run of that many steps, so the micro-kernels keep C in registers, and
  /// pack B, across them. 1: the strategy sums one step at a time.
  virtual int64_t fusedKSteps(const DotOperands &dot) const {
    (void)dot;
    return 1;
  }
  /// The CoreRequirements a kernel using this strategy carries.
  virtual CoreRequirements coreRequirements() const { return 0; }
  /// Whether the strategy is used only when --dot-strategy names it (a
  /// testing form, such as the IME's software model).
  virtual bool onlyWhenNamed() const { return false; }
};

class IsaLowering {
public:
  explicit IsaLowering(const Target &target) : target_(target) {}
  virtual ~IsaLowering() = default;

  virtual StripShape stripShape(const StripDemand &demand) const = 0;
  virtual TailPredication tailPredication() const = 0;
  /// Whether the vector unit loads and stores lanes a run-time stride apart
  /// (RVV's vlse/vsse); elsewhere such accesses are gathers and scatters.
  virtual bool hasStridedAccess() const { return false; }
  /// Why no kernel can be lowered for this target at all (a RISC-V CPU without
  /// the vector extension), or nullopt.
  virtual std::optional<std::string> unsupportedTarget() const { return std::nullopt; }
  /// Why blocks of `kind` cannot be lowered for this target, or nullopt.
  virtual std::optional<std::string> unsupportedElement(ScalarKind kind) const {
    (void)kind;
    return std::nullopt;
  }
  /// Attributes every kernel function carries beyond the target's CPU and
  /// features (the range of vscale on scalable ISAs).
  virtual void addFunctionAttributes(llvm::Function &fn) const { (void)fn; }
  /// Whether the vector unit's min and max skip a NaN operand in one
  /// instruction (IEEE minNum/maxNum: RVV's vfmin/vfmax, NEON's and SVE's
  /// fminnm/fmaxnm). Where they do not (x86's vminps/vmaxps return the second
  /// operand when either is NaN, so minnum is a compare and a blend besides),
  /// a float min/max reduction keeps its running value free of NaN and
  /// tracks separately whether a lane saw a number.
  virtual bool hasNumericMinMax() const { return true; }
  /// Whether kernels may write strips with non-temporal stores, which skip
  /// the cache, and whether such a store needs an address aligned to the
  /// whole strip.
  struct NonTemporalStores {
    bool available = false;
    bool needStripAlignment = false;
  };
  virtual NonTemporalStores nonTemporalStores() const { return {}; }
  /// Orders the kernel's non-temporal stores before it returns, where the
  /// ISA's memory model does not (weakly ordered streaming stores).
  virtual void emitNonTemporalStoreFence(llvm::IRBuilderBase &builder) const { (void)builder; }
  /// Functions the ISA's code may call that the process loading the kernel
  /// provides (a unit's software model), beyond SLEEF and the C library.
  virtual std::vector<std::string_view> processProvidedFunctions() const { return {}; }
  /// The ISA's dot strategies, best first.
  virtual const std::vector<std::unique_ptr<DotStrategy>> &dotStrategies() const {
    return noStrategies_;
  }

protected:
  const Target &target_;

private:
  std::vector<std::unique_ptr<DotStrategy>> noStrategies_;
};

using IsaLoweringFactory = std::unique_ptr<IsaLowering> (*)(const Target &target);

/// Makes `factory` the IsaLowering of `arch`, replacing any before it.
void registerIsaLowering(Arch arch, IsaLoweringFactory factory);

/// The IsaLowering registered for `target`'s architecture, or nullptr where
/// none is (a program that compiles kernels calls registerIsaLowerings()
/// first). `target` must outlive it.
std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target);

} // namespace blockc
