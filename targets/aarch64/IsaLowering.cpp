//===- IsaLowering.cpp - AArch64: NEON and SVE ----------------------------===//
#include "IsaLowering.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"

namespace blockc::aarch64 {

namespace {

// SVE's architectural limit: 2048-bit registers, 16 granules of 128 bits.
constexpr unsigned kMaxVscale = 16;

class AArch64Lowering final : public IsaLowering {
public:
  using IsaLowering::IsaLowering;

  StripShape stripShape(const StripDemand &demand) const override {
    unsigned lanes = target_.vectorBits / demand.widestElementBits;
    return {llvm::ElementCount::get(lanes, target_.scalable), 1};
  }

  // SVE predicates every instruction for free: each strip of a loop runs
  // under its whilelo. NEON has no predication: only the tail is masked.
  TailPredication tailPredication() const override {
    return target_.scalable ? TailPredication::PredicatedLoop : TailPredication::LaneMask;
  }

  void addFunctionAttributes(llvm::Function &fn) const override {
    if (!target_.scalable)
      return;
    unsigned min = target_.fixedVscale ? target_.fixedVscale : 1;
    unsigned max = target_.fixedVscale ? target_.fixedVscale : kMaxVscale;
    fn.addFnAttr(llvm::Attribute::getWithVScaleRangeArgs(fn.getContext(), min, max));
  }
};

} // namespace

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  return std::make_unique<AArch64Lowering>(target);
}

} // namespace blockc::aarch64
