//===- DotCascade.cpp - The dot cascade and its generic strategy ----------===//
#include "blockc/lowering/DotCascade.h"

#include "llvm/IR/Intrinsics.h"

namespace blockc {

namespace {

class GenericDot final : public DotStrategy {
public:
  std::string_view name() const override { return "generic"; }
  bool accepts(const DotOperands &) const override { return true; }
  void emit(const DotOperands &dot) const override;
  // It reads its operands through the kernel's strips, as buffers.
  InPlaceReads inPlaceReads() const override { return {false, false}; }
};

void GenericDot::emit(const DotOperands &dot) const {
  StripLoops &strips = *dot.strips;
  llvm::IRBuilderBase &b = dot.builder;
  Type aType = Type::block(dot.aKind, {dot.m, dot.k});
  Type bType = Type::block(dot.bKind, {dot.k, dot.n});
  Type cType = Type::block(dot.cKind, {dot.m, dot.n});
  Type accElem = cType.elementType();
  bool isFloat = cType.isFloat();
  llvm::Value *stripSlot = strips.entrySlot(strips.stripType(accElem));
  llvm::Value *scalarSlot = strips.entrySlot(strips.scalarType(accElem));
  strips.countedLoop(0, dot.m, [&](llvm::Value *row) {
    strips.forEachStripOfRow(dot.n, [&](llvm::Value *column, bool vector) {
      // N == 1 runs the same loop on scalars.
      llvm::Type *type = vector ? strips.stripType(accElem) : strips.scalarType(accElem);
      llvm::Value *slot = vector ? stripSlot : scalarSlot;
      b.CreateStore(strips.load(dot.c, cType, row, column, vector, accElem), slot);
      strips.countedLoop(0, dot.k, [&](llvm::Value *kk) {
        llvm::Value *x = strips.load(dot.a, aType, row, kk, false, accElem);
        if (vector)
          x = strips.splat(x);
        llvm::Value *y = strips.load(dot.b, bType, kk, column, vector, accElem);
        llvm::Value *c = b.CreateLoad(type, slot);
        c = isFloat ? b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {x, y, c})
                    : b.CreateAdd(c, b.CreateMul(x, y));
        b.CreateStore(c, slot);
      });
      strips.store(dot.c, cType, row, column, b.CreateLoad(type, slot), vector);
    });
  });
}

} // namespace

const DotStrategy &genericDotStrategy() {
  static const GenericDot generic;
  return generic;
}

const DotStrategy *selectDotStrategy(const DotOperands *dot, const IsaLowering &isa,
                                     std::string_view requested) {
  const DotStrategy &generic = genericDotStrategy();
  if (!dot) {
    if (requested == generic.name())
      return &generic;
    for (const auto &strategy : isa.dotStrategies())
      if (strategy->name() == requested)
        return strategy.get();
    return nullptr;
  }
  for (const auto &strategy : isa.dotStrategies()) {
    bool named = requested == strategy->name();
    bool allowed = named || (requested.empty() && !strategy->onlyWhenNamed());
    if (allowed && strategy->accepts(*dot))
      return strategy.get();
  }
  return &generic;
}

std::vector<std::string_view> dotCascadeNames(const IsaLowering &isa) {
  std::vector<std::string_view> names;
  for (const auto &strategy : isa.dotStrategies())
    names.push_back(strategy->name());
  names.push_back(genericDotStrategy().name());
  return names;
}

} // namespace blockc
