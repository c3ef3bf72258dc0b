//===- IsaLowering.cpp - x86-64: AVX2 and AVX-512 -------------------------===//
#include "IsaLowering.h"

namespace blockc::x86 {

namespace {

class X86Lowering final : public IsaLowering {
public:
  using IsaLowering::IsaLowering;

  StripShape stripShape(const StripDemand &demand) const override {
    return {llvm::ElementCount::getFixed(target_.vectorBits / demand.widestElementBits), 1};
  }

  // AVX-512 masks loads and stores with k-registers; AVX2 with vmaskmov and
  // blends. Either way the mask is the active lanes of the last strip.
  TailPredication tailPredication() const override { return TailPredication::LaneMask; }
};

} // namespace

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  return std::make_unique<X86Lowering>(target);
}

} // namespace blockc::x86
