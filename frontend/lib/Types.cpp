//===- Types.cpp ----------------------------------------------------------===//
#include "blockc/frontend/Types.h"

namespace blockc {

namespace {
struct ScalarInfo {
  ScalarKind kind;
  std::string_view name;
  unsigned bits;
  bool isFloat;
};
constexpr ScalarInfo kScalars[] = {
    {ScalarKind::I1, "i1", 1, false},        {ScalarKind::I8, "i8", 8, false},
    {ScalarKind::I16, "i16", 16, false},     {ScalarKind::I32, "i32", 32, false},
    {ScalarKind::I64, "i64", 64, false},     {ScalarKind::F16, "f16", 16, true},
    {ScalarKind::BF16, "bf16", 16, true},    {ScalarKind::F32, "f32", 32, true},
    {ScalarKind::F64, "f64", 64, true},      {ScalarKind::F8E4M3, "f8e4m3", 8, true},
    {ScalarKind::F8E5M2, "f8e5m2", 8, true},
};
const ScalarInfo &info(ScalarKind kind) {
  return kScalars[static_cast<unsigned>(kind)];
}
} // namespace

std::string_view scalarKindName(ScalarKind kind) {
  return info(kind).name;
}

std::optional<ScalarKind> parseScalarKind(std::string_view name) {
  for (const ScalarInfo &s : kScalars)
    if (s.name == name)
      return s.kind;
  return std::nullopt;
}

bool isIntegerKind(ScalarKind kind) {
  return !info(kind).isFloat;
}
bool isFloatKind(ScalarKind kind) {
  return info(kind).isFloat;
}
bool isStorageOnlyKind(ScalarKind kind) {
  return kind == ScalarKind::F8E4M3 || kind == ScalarKind::F8E5M2;
}
unsigned bitWidth(ScalarKind kind) {
  return info(kind).bits;
}

std::string formatShape(const Shape &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

std::string Type::str() const {
  std::string out(scalarKindName(kind_));
  if (pointer_)
    out = "ptr<" + out + ">";
  if (!shape_.empty())
    out += formatShape(shape_);
  return out;
}

} // namespace blockc
