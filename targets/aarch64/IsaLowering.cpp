//===- IsaLowering.cpp - AArch64: NEON and SVE ----------------------------===//
#include "IsaLowering.h"

#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"

namespace blockc::aarch64 {

namespace {

// SVE's architectural limit: 2048-bit registers, 16 granules of 128 bits.
constexpr unsigned kMaxVscale = 16;

// A vscale unit of SVE is one 128-bit granule.
constexpr unsigned kBitsPerVscale = 128;

class AArch64Lowering final : public IsaLowering {
public:
  explicit AArch64Lowering(const Target &target) : IsaLowering(target) {
    if (target.scalable)
      dots_.push_back(std::make_unique<ScalableDot>(
          "sve-fma", ScalableRegisterFile{kBitsPerVscale, minVscale(), 32, 1,
                                          TailPredication::PredicatedLoop}));
    else
      dots_.push_back(std::make_unique<RegisterBlockedDot>("neon-fma", RegisterFile{128, 32}));
  }

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
    unsigned max = target_.fixedVscale ? target_.fixedVscale : kMaxVscale;
    fn.addFnAttr(llvm::Attribute::getWithVScaleRangeArgs(fn.getContext(), minVscale(), max));
  }

  const std::vector<std::unique_ptr<DotStrategy>> &dotStrategies() const override { return dots_; }

private:
  unsigned minVscale() const { return target_.fixedVscale ? target_.fixedVscale : 1; }

  std::vector<std::unique_ptr<DotStrategy>> dots_;
};

} // namespace

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  return std::make_unique<AArch64Lowering>(target);
}

} // namespace blockc::aarch64
