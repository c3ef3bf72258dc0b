//===- Sleef.cpp - The SLEEF name table -----------------------------------===//
#include "blockc/targetinfo/Sleef.h"

#include <iterator>

namespace blockc {

namespace {

struct FnInfo {
  MathFn fn;
  std::string_view name;
  unsigned arity;
  bool hasU35;          // SLEEF ships a 3.5-ULP variant
  unsigned accurateUlp; // the bound, in tenths of an ULP, of its accurate variant: u10, u15
};

// In MathFn's order. SLEEF's documented bounds: 1.0 ULP for all but erfc (1.5).
constexpr FnInfo kFunctions[] = {
    {MathFn::Exp, "exp", 1, false, 10},       {MathFn::Exp2, "exp2", 1, true, 10},
    {MathFn::Log, "log", 1, true, 10},        {MathFn::Log2, "log2", 1, true, 10},
    {MathFn::Sin, "sin", 1, true, 10},        {MathFn::Cos, "cos", 1, true, 10},
    {MathFn::Tanh, "tanh", 1, true, 10},      {MathFn::Erf, "erf", 1, false, 10},
    {MathFn::Pow, "pow", 2, false, 10},       {MathFn::Asin, "asin", 1, true, 10},
    {MathFn::Acos, "acos", 1, true, 10},      {MathFn::Atan, "atan", 1, true, 10},
    {MathFn::Atan2, "atan2", 2, true, 10},    {MathFn::Sinh, "sinh", 1, true, 10},
    {MathFn::Cosh, "cosh", 1, true, 10},      {MathFn::Tan, "tan", 1, true, 10},
    {MathFn::Asinh, "asinh", 1, false, 10},   {MathFn::Acosh, "acosh", 1, false, 10},
    {MathFn::Atanh, "atanh", 1, false, 10},   {MathFn::Expm1, "expm1", 1, false, 10},
    {MathFn::Log1p, "log1p", 1, false, 10},   {MathFn::Log10, "log10", 1, false, 10},
    {MathFn::Exp10, "exp10", 1, true, 10},    {MathFn::Cbrt, "cbrt", 1, true, 10},
    {MathFn::Lgamma, "lgamma", 1, false, 10}, {MathFn::Tgamma, "tgamma", 1, false, 10},
    {MathFn::Erfc, "erfc", 1, false, 15},
};
static_assert(std::size(kFunctions) == unsigned(MathFn::Erfc) + 1, "one row per MathFn, in order");

const FnInfo &info(MathFn fn) {
  return kFunctions[static_cast<unsigned>(fn)];
}

/// One row per SLEEF ISA variant: usable when the target has `feature` and
/// the strip holds `bits` bits, times vscale when `scalable` (SLEEF then
/// writes the lanes as `x`). `registerGroup` is the RVV LMUL the variant
/// takes; 1 elsewhere.
struct IsaVariant {
  Arch arch;
  Feature feature;
  bool scalable;
  unsigned bits;
  unsigned registerGroup;
  std::string_view suffix;
};

constexpr IsaVariant kVariants[] = {
    {Arch::X86_64, Feature::AVX512F, false, 512, 1, "avx512f"},
    {Arch::X86_64, Feature::AVX2, false, 256, 1, "avx2"},
    {Arch::X86_64, Feature::SSE42, false, 128, 1, "sse4"},
    {Arch::AArch64, Feature::SVE, true, 128, 1, "sve"},
    {Arch::AArch64, Feature::NEON, false, 128, 1, "advsimd"},
    {Arch::RISCV64, Feature::RVV, true, 64, 1, "rvvm1"},
    {Arch::RISCV64, Feature::RVV, true, 128, 2, "rvvm2"},
};

} // namespace

std::string_view mathFnName(MathFn fn) {
  return info(fn).name;
}
unsigned mathFnArity(MathFn fn) {
  return info(fn).arity;
}

double sleefUlpBound(MathFn fn, bool fastMath) {
  return fastMath && info(fn).hasU35 ? 3.5 : info(fn).accurateUlp / 10.0;
}

std::optional<std::string> sleefVectorName(MathFn fn, ScalarKind kind, unsigned lanes,
                                           bool scalable, const Target &target, bool fastMath) {
  if (kind != ScalarKind::F32 && kind != ScalarKind::F64)
    return std::nullopt;
  unsigned bits = lanes * bitWidth(kind);
  for (const IsaVariant &isa : kVariants) {
    if (isa.arch != target.arch || !target.has(isa.feature) || isa.scalable != scalable ||
        isa.bits != bits)
      continue;
    std::string name = "Sleef_" + std::string(info(fn).name);
    name += kind == ScalarKind::F32 ? "f" : "d";
    name += scalable ? "x" : std::to_string(lanes);
    name += fastMath && info(fn).hasU35 ? "_u35" : "_u" + std::to_string(info(fn).accurateUlp);
    return name + std::string(isa.suffix);
  }
  return std::nullopt;
}

} // namespace blockc
