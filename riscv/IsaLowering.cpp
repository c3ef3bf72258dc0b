//===- IsaLowering.cpp - RISC-V: RVV 1.0 ----------------------------------===//
#include "blockc/riscv/IsaLowering.h"

#include "ImeDot.h"
#include "blockc/lowering/DotKernels.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"

namespace blockc::riscv {

namespace {

// A vscale unit is 64 bits: VLEN = 64 x vscale, from the 128 bits every V
// implementation has (zvl128b) up to RVV's limit of 65536.
constexpr unsigned kBitsPerVscale = 64;
constexpr unsigned kMaxVlen = 65536;
// Registers a kernel's live strips may fill: 32 minus v0, which holds masks,
// and room for the temporaries LLVM's register allocator needs besides.
constexpr unsigned kRegisterBudget = 24;
constexpr unsigned kMaxRegisterGroup = 8;
// SLEEF's widest RVV variants (rvvm2) take groups of two: wider strips would
// be split for every call, and spilled around it.
constexpr unsigned kMaxRegisterGroupWithMath = 2;

// IREE's RVV mmt4d tiles: 7 rows of m4 accumulators and one m4 row of B.
constexpr unsigned kMaxDotRegisterGroup = 4;

class RiscvLowering final : public IsaLowering {
public:
  explicit RiscvLowering(const Target &target) : IsaLowering(target) {
    // The IME's code is written for VLEN 256: the X60's, and the least a
    // zvl256b target may have; its model runs wherever that can be tested.
    if (target.has(Feature::XSMTVDot))
      dots_.push_back(std::make_unique<ImeDot>(false));
    else if (target.has(Feature::Zvl256b))
      dots_.push_back(std::make_unique<ImeDot>(true));
    // A from a dense copy: the RVV cores blockc targets (the K1's X60) issue
    // in order (ScalableRegisterFile::readsAInPlace).
    dots_.push_back(
        std::make_unique<ScalableDot>("rvv-fma", ScalableRegisterFile{kBitsPerVscale,
                                                                      minVlen() / kBitsPerVscale,
                                                                      32,
                                                                      kMaxDotRegisterGroup,
                                                                      TailPredication::VectorLength,
                                                                      {},
                                                                      false}));
  }

  StripShape stripShape(const StripDemand &demand) const override {
    // The widest group whose live strips still fit: a vector add streams
    // with m8, an expression needing six strips at once stays at m2.
    unsigned group = demand.callsMath ? kMaxRegisterGroupWithMath : kMaxRegisterGroup;
    // Index strips wider than the data (i32 offsets of i8 data) take groups
    // that many times larger, and no group exceeds eight registers.
    unsigned indexScale = demand.widestIndexBits / demand.widestElementBits;
    while (group > 1 &&
           (demand.liveStrips * group > kRegisterBudget || group * indexScale > kMaxRegisterGroup))
      group /= 2;
    unsigned lanes = kBitsPerVscale / demand.widestElementBits * group;
    return {llvm::ElementCount::getScalable(lanes), group};
  }

  TailPredication tailPredication() const override { return TailPredication::VectorLength; }

  bool hasStridedAccess() const override { return true; }

  std::optional<std::string> unsupportedTarget() const override {
    if (target_.has(Feature::RVV))
      return std::nullopt;
    return "blockc generates RVV code on RISC-V, and target '" + target_.name +
           "' has no vector extension (v)" +
           (target_.name == "host" ? ": 'blockc targets' says what was detected; if this CPU "
                                     "has V, say so with BLOCKC_HOST_FEATURES=+v"
                                   : "");
  }

  std::optional<std::string> unsupportedElement(ScalarKind kind) const override {
    if (kind == ScalarKind::F16 && !target_.has(Feature::Zvfh))
      return "f16 vectors need the zvfh extension, which target '" + target_.name +
             "' lacks (spacemit-k1 has it)";
    return std::nullopt;
  }

  void addFunctionAttributes(llvm::Function &fn) const override {
    fn.addFnAttr(llvm::Attribute::getWithVScaleRangeArgs(
        fn.getContext(), minVlen() / kBitsPerVscale, kMaxVlen / kBitsPerVscale));
  }

  // The IME's testing form calls the instruction's software model.
  std::vector<std::string_view> processProvidedFunctions() const override {
    return {kImeModelFunction};
  }

  const std::vector<std::unique_ptr<DotStrategy>> &dotStrategies() const override { return dots_; }

private:
  unsigned minVlen() const { return target_.has(Feature::Zvl256b) ? 256 : 128; }

  std::vector<std::unique_ptr<DotStrategy>> dots_;
};

} // namespace

std::unique_ptr<IsaLowering> makeIsaLowering(const Target &target) {
  return std::make_unique<RiscvLowering>(target);
}

} // namespace blockc::riscv
