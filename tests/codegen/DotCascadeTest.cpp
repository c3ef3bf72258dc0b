//===- DotCascadeTest.cpp - The one rule that picks a dot strategy --------===//
//
// selectDotStrategy over a made-up cascade: the order, strategies kept for
// testing, a requested strategy that declines, and name lookups without a dot.
//
//===----------------------------------------------------------------------===//
#include "blockc/lowering/DotCascade.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"

#include <gtest/gtest.h>

using namespace blockc;

namespace {

class FakeStrategy final : public DotStrategy {
public:
  FakeStrategy(std::string name, int64_t largestM, bool onlyWhenNamed)
      : name_(std::move(name)), largestM_(largestM), onlyWhenNamed_(onlyWhenNamed) {}
  std::string_view name() const override { return name_; }
  bool accepts(const DotOperands &dot) const override { return dot.m <= largestM_; }
  void emit(const DotOperands &) const override {}
  bool onlyWhenNamed() const override { return onlyWhenNamed_; }

private:
  std::string name_;
  int64_t largestM_;
  bool onlyWhenNamed_;
};

class FakeIsa final : public IsaLowering {
public:
  explicit FakeIsa(const Target &target) : IsaLowering(target) {
    dots_.push_back(std::make_unique<FakeStrategy>("unit-model", 1000, true));
    dots_.push_back(std::make_unique<FakeStrategy>("unit", 16, false));
    dots_.push_back(std::make_unique<FakeStrategy>("fma", 64, false));
  }
  StripShape stripShape(const StripDemand &) const override {
    return {llvm::ElementCount::getFixed(8), 1};
  }
  TailPredication tailPredication() const override { return TailPredication::LaneMask; }
  const std::vector<std::unique_ptr<DotStrategy>> &dotStrategies() const override { return dots_; }

private:
  std::vector<std::unique_ptr<DotStrategy>> dots_;
};

struct Cascade : testing::Test {
  llvm::LLVMContext context;
  llvm::IRBuilder<> builder{context};
  Target target;
  FakeIsa isa{target};

  DotOperands dotOfRows(int64_t m) {
    return {builder, nullptr, nullptr, nullptr, ScalarKind::F32, ScalarKind::F32, ScalarKind::F32,
            m,       8,       8,       {}};
  }
  std::string_view pick(int64_t m, std::string_view requested) {
    DotOperands dot = dotOfRows(m);
    return selectDotStrategy(&dot, isa, requested)->name();
  }
};

TEST_F(Cascade, FirstAcceptingStrategyWinsAndTestingFormsWaitToBeNamed) {
  EXPECT_EQ(pick(8, ""), "unit");
  EXPECT_EQ(pick(32, ""), "fma");
  EXPECT_EQ(pick(128, ""), "generic");
}

TEST_F(Cascade, ANamedStrategyIsTheOnlyOneTriedBeforeGeneric) {
  EXPECT_EQ(pick(8, "fma"), "fma");
  EXPECT_EQ(pick(32, "unit"), "generic");
  EXPECT_EQ(pick(8, "unit-model"), "unit-model");
  EXPECT_EQ(pick(8, "generic"), "generic");
}

TEST_F(Cascade, NamesResolveWithoutADot) {
  for (std::string_view name : {"unit-model", "unit", "fma", "generic"}) {
    const DotStrategy *strategy = selectDotStrategy(nullptr, isa, name);
    ASSERT_NE(strategy, nullptr) << name;
    EXPECT_EQ(strategy->name(), name);
  }
  EXPECT_EQ(selectDotStrategy(nullptr, isa, "amx"), nullptr);
  std::vector<std::string_view> names = dotCascadeNames(isa);
  EXPECT_EQ(names, (std::vector<std::string_view>{"unit-model", "unit", "fma", "generic"}));
}

} // namespace
