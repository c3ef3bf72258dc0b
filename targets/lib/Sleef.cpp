//===- Sleef.cpp - The SLEEF name table -----------------------------------===//
#include "blockc/targets/Sleef.h"

namespace blockc {

namespace {

struct FnInfo {
  MathFn fn;
  std::string_view name;
  unsigned arity;
  bool hasU35; // SLEEF ships a 3.5-ULP variant
};

constexpr FnInfo kFunctions[] = {
    {MathFn::Exp, "exp", 1, false},  {MathFn::Exp2, "exp2", 1, true},
    {MathFn::Log, "log", 1, true},   {MathFn::Log2, "log2", 1, true},
    {MathFn::Sin, "sin", 1, true},   {MathFn::Cos, "cos", 1, true},
    {MathFn::Tanh, "tanh", 1, true}, {MathFn::Erf, "erf", 1, false},
    {MathFn::Pow, "pow", 2, false},
};

const FnInfo &info(MathFn fn) {
  return kFunctions[static_cast<unsigned>(fn)];
}

/// One row per SLEEF ISA variant: usable when the target has `feature` and
/// the strip is `bits` wide (0: scalable, lanes written as `x`).
struct IsaInfo {
  Arch arch;
  Feature feature;
  unsigned bits;
  std::string_view suffix;
};

constexpr IsaInfo kIsas[] = {
    {Arch::X86_64, Feature::AVX512F, 512, "avx512f"},
    {Arch::X86_64, Feature::AVX2, 256, "avx2"},
    {Arch::X86_64, Feature::SSE42, 128, "sse4"},
    {Arch::AArch64, Feature::SVE, 0, "sve"},
    {Arch::AArch64, Feature::NEON, 128, "advsimd"},
    // RVV register groups: m1 holds 64 bits per vscale unit, m2 twice that.
    {Arch::RISCV64, Feature::RVV, 64, "rvvm1"},
    {Arch::RISCV64, Feature::RVV, 128, "rvvm2"},
};

} // namespace

std::string_view mathFnName(MathFn fn) {
  return info(fn).name;
}
unsigned mathFnArity(MathFn fn) {
  return info(fn).arity;
}

double sleefUlpBound(MathFn fn, bool fastMath) {
  return fastMath && info(fn).hasU35 ? 3.5 : 1.0;
}

std::optional<std::string> sleefVectorName(MathFn fn, ScalarKind kind, unsigned lanes,
                                           const Target &target, bool fastMath) {
  if (kind != ScalarKind::F32 && kind != ScalarKind::F64)
    return std::nullopt;
  unsigned bits = lanes * bitWidth(kind);
  for (const IsaInfo &isa : kIsas) {
    if (isa.arch != target.arch || !target.has(isa.feature))
      continue;
    bool scalableRow = isa.bits == 0 || target.arch == Arch::RISCV64;
    if (scalableRow != target.scalable)
      continue;
    if (isa.bits != 0 && isa.bits != bits)
      continue;
    std::string name = "Sleef_" + std::string(info(fn).name);
    name += kind == ScalarKind::F32 ? "f" : "d";
    name += target.scalable ? "x" : std::to_string(lanes);
    name += fastMath && info(fn).hasU35 ? "_u35" : "_u10";
    return name + std::string(isa.suffix);
  }
  return std::nullopt;
}

} // namespace blockc
