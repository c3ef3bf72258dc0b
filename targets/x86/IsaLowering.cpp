//===- IsaLowering.cpp - x86-64: AVX2 and AVX-512 -------------------------===//
#include "blockc/x86/IsaLowering.h"

#include "AmxDot.h"
#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/IntrinsicsX86.h"

namespace blockc::x86 {

namespace {

class X86Lowering final : public IsaLowering {
public:
  explicit X86Lowering(const Target &target) : IsaLowering(target) {
    if (target.has(Feature::AMXTile) &&
        (target.has(Feature::AMXBF16) || target.has(Feature::AMXINT8)))
      dots_.push_back(
          std::make_unique<AmxDot>(target.has(Feature::AMXBF16), target.has(Feature::AMXINT8)));
    // The register-blocked micro-kernels fill the register file: 32 zmm, or
    // 16 ymm before AVX-512.
    if (target.has(Feature::AVX512F))
      dots_.push_back(std::make_unique<RegisterBlockedDot>("avx512-fma", RegisterFile{512, 32}));
    if (target.has(Feature::AVX2) && target.has(Feature::FMA))
      dots_.push_back(std::make_unique<RegisterBlockedDot>("avx2-fma", RegisterFile{256, 16}));
  }

  StripShape stripShape(const StripDemand &demand) const override {
    return {llvm::ElementCount::getFixed(target_.vectorBits / demand.widestElementBits), 1};
  }

  // AVX-512 masks loads and stores with k-registers; AVX2 with vmaskmov and
  // blends. Either way the mask is the active lanes of the last strip.
  TailPredication tailPredication() const override { return TailPredication::LaneMask; }

  // vmaxps returns its second operand when either is NaN: one instruction
  // for `x > acc ? x : acc`, three for maxnum.
  bool hasNumericMinMax() const override { return false; }

  // vmovntps and its kin fault on an address not aligned to the vector.
  NonTemporalStores nonTemporalStores() const override {
    return {/*available=*/true, /*needStripAlignment=*/true};
  }

  // Non-temporal stores are weakly ordered: without sfence another thread
  // that sees the launch end could still read stale lines.
  void emitNonTemporalStoreFence(llvm::IRBuilderBase &builder) const override {
    builder.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {});
  }

  const std::vector<std::unique_ptr<DotStrategy>> &dotStrategies() const override { return dots_; }

private:
  std::vector<std::unique_ptr<DotStrategy>> dots_;
};

} // namespace

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  return std::make_unique<X86Lowering>(target);
}

} // namespace blockc::x86
