//===- IR.cpp -------------------------------------------------------------===//
#include "blockc/frontend/IR.h"

#include <charconv>
#include <cmath>

namespace blockc {

namespace {
struct OpInfo {
  std::string_view name;
  OpClass cls;
};
constexpr OpInfo kOps[] = {
#define BLOCKC_OP(Enum, Name, Class) {Name, OpClass::Class},
#include "blockc/frontend/Ops.def"
};

constexpr std::string_view kPredicates[] = {"eq", "ne",  "lt",  "le",  "gt",
                                            "ge", "ult", "ule", "ugt", "uge"};
} // namespace

std::string_view opName(OpKind kind) {
  return kOps[static_cast<unsigned>(kind)].name;
}
OpClass opClass(OpKind kind) {
  return kOps[static_cast<unsigned>(kind)].cls;
}

std::optional<OpKind> parseOpName(std::string_view name) {
  for (unsigned i = 0; i < std::size(kOps); ++i)
    if (kOps[i].name == name)
      return static_cast<OpKind>(i);
  return std::nullopt;
}

std::string_view cmpPredicateName(CmpPredicate pred) {
  return kPredicates[static_cast<unsigned>(pred)];
}

std::optional<CmpPredicate> parseCmpPredicate(std::string_view name) {
  for (unsigned i = 0; i < std::size(kPredicates); ++i)
    if (kPredicates[i] == name)
      return static_cast<CmpPredicate>(i);
  return std::nullopt;
}

namespace {
constexpr std::string_view kMemoryOrders[] = {"relaxed", "acquire", "release", "acq_rel"};
} // namespace

std::string_view memoryOrderName(MemoryOrder order) {
  return kMemoryOrders[static_cast<unsigned>(order)];
}

std::optional<MemoryOrder> parseMemoryOrder(std::string_view name) {
  for (unsigned i = 0; i < std::size(kMemoryOrders); ++i)
    if (kMemoryOrders[i] == name)
      return static_cast<MemoryOrder>(i);
  return std::nullopt;
}

bool ConstantValue::operator==(const ConstantValue &o) const {
  if (isFloat != o.isFloat)
    return false;
  if (!isFloat)
    return intValue == o.intValue;
  // Bitwise, so that NaN equals itself and -0.0 differs from 0.0.
  return std::signbit(floatValue) == std::signbit(o.floatValue) &&
         (floatValue == o.floatValue || (std::isnan(floatValue) && std::isnan(o.floatValue)));
}

std::string formatConstant(const ConstantValue &value, ScalarKind kind) {
  if (!value.isFloat) {
    if (kind == ScalarKind::I1)
      return value.intValue ? "true" : "false";
    return std::to_string(value.intValue);
  }
  double v = value.floatValue;
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec; // 64 bytes always hold the shortest form of a double.
  std::string text(buf, end);
  // Keep floats visibly floats: `1.0`, not `1`.
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

Value *Region::addArg(Type type, std::string name, SourceLoc loc) {
  args.push_back(std::make_unique<Value>(std::move(type), std::move(name), nullptr, loc));
  return args.back().get();
}

Operation *Region::terminator() const {
  if (ops.empty() || ops.back()->opClass() != OpClass::Terminator)
    return nullptr;
  return ops.back().get();
}

Value *Operation::addResult(Type type, std::string name, SourceLoc loc) {
  results.push_back(std::make_unique<Value>(std::move(type), std::move(name), this, loc));
  return results.back().get();
}

Region &Operation::addRegion() {
  regions.push_back(std::make_unique<Region>());
  return *regions.back();
}

Value *Operation::mask() const {
  if (!hasMask)
    return nullptr;
  return operands[kind_ == OpKind::Load ? 1 : 2];
}

Value *Operation::other() const {
  return hasOther ? operands.back() : nullptr;
}

Function *Module::lookupFunction(std::string_view name) const {
  for (const auto &f : functions)
    if (f->name == name)
      return f.get();
  return nullptr;
}

const Constexpr *Module::lookupConstexpr(std::string_view name) const {
  for (const Constexpr &c : constexprs)
    if (c.name == name)
      return &c;
  return nullptr;
}

} // namespace blockc
