//===- Sleef.h - SLEEF vector math function names ---------------*- C++ -*-===//
//
// SLEEF names its functions Sleef_<fn><f|d><lanes>_<ulp><isa>, for example
// Sleef_expf16_u10avx512f or, for scalable vectors, Sleef_expfx_u10rvvm1. The
// name is chosen from a table keyed by (function, element type, lanes, RVV
// register group, ISA feature), so a new ISA variant is one row.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/targetinfo/Target.h"

#include <optional>
#include <string>

namespace blockc {

enum class MathFn : uint8_t {
  Exp,
  Exp2,
  Log,
  Log2,
  Sin,
  Cos,
  Tanh,
  Erf,
  Pow,
  Asin,
  Acos,
  Atan,
  Atan2,
  Sinh,
  Cosh,
  Tan,
  Asinh,
  Acosh,
  Atanh,
  Expm1,
  Log1p,
  Log10,
  Exp10,
  Cbrt,
  Lgamma,
  Tgamma,
  Erfc,
};

std::string_view mathFnName(MathFn fn);
unsigned mathFnArity(MathFn fn);

/// The documented maximum error, in ULP, of the variant sleefVectorName picks.
double sleefUlpBound(MathFn fn, bool fastMath);

/// The SLEEF function computing `fn` on a strip of `lanes` elements of `kind`
/// (F32 or F64; times vscale when `scalable`) for `target`, or nullopt when
/// SLEEF has no variant for that width and ISA (the caller then splits the
/// strip). `fastMath` picks the 3.5-ULP variant where SLEEF has one.
std::optional<std::string> sleefVectorName(MathFn fn, ScalarKind kind, unsigned lanes,
                                           bool scalable, const Target &target, bool fastMath);

} // namespace blockc
