//===- IsaLowering.cpp - AArch64: NEON and SVE ----------------------------===//
#include "blockc/aarch64/IsaLowering.h"

#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicsAArch64.h"

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
                                          TailPredication::PredicatedLoop, laneDots()}));
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

  // NEON's stnp writes a pair of registers past the cache; SVE's strips are
  // scalable, which streaming stores do not take.
  NonTemporalStores nonTemporalStores() const override {
    return {/*available=*/!target_.scalable, /*needStripAlignment=*/false};
  }

  const std::vector<std::unique_ptr<DotStrategy>> &dotStrategies() const override { return dots_; }

private:
  // SVE's sdot (every SVE core) and bfdot (BF16): four i8 or two bf16
  // products into each 32-bit lane. bfdot rounds its pair sum to odd and
  // flushes denormals (the Arm ARM's BFDotAdd), unlike fmla on widened
  // values; AMX's tdpbf16ps makes the same trade.
  std::vector<LaneDotProduct> laneDots() const {
    auto call = [](llvm::Intrinsic::ID id, bool overloaded) {
      return [id, overloaded](llvm::IRBuilderBase &b, llvm::Value *acc, llvm::Value *x,
                              llvm::Value *y) -> llvm::Value * {
        return overloaded ? b.CreateIntrinsic(id, {acc->getType()}, {acc, x, y})
                          : b.CreateIntrinsic(id, {}, {acc, x, y});
      };
    };
    std::vector<LaneDotProduct> dots{
        {ScalarKind::I8, 4, call(llvm::Intrinsic::aarch64_sve_sdot, true)}};
    if (target_.has(Feature::BF16))
      dots.push_back({ScalarKind::BF16, 2, call(llvm::Intrinsic::aarch64_sve_bfdot, false)});
    return dots;
  }

  unsigned minVscale() const { return target_.fixedVscale ? target_.fixedVscale : 1; }

  std::vector<std::unique_ptr<DotStrategy>> dots_;
};

} // namespace

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  return std::make_unique<AArch64Lowering>(target);
}

} // namespace blockc::aarch64
