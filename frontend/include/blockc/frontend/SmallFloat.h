//===- SmallFloat.h - small float bit patterns from and to double -*- C++ -*-===//
//
// Block IR's 16- and 8-bit floats as the host sees them: bit patterns.
// The driver writes them into buffers and the Python bindings into kernel
// arguments; neither may depend on the host compiler having _Float16.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Types.h"

#include <cstdint>

namespace blockc {

/// IEEE binary16 and bfloat16 from and to double, correctly rounded (to
/// nearest, ties to even; too large gives infinity).
uint16_t toHalfBits(double value);
uint16_t toBFloat16Bits(double value);
double fromHalfBits(uint16_t bits);
double fromBFloat16Bits(uint16_t bits);

/// The 8-bit floats (ScalarKind::F8E4M3, F8E5M2) from and to double, rounded
/// to nearest even and saturating as Triton's conversions on NVIDIA GPUs do
/// (`cvt.rn.satfinite`): a magnitude past the largest finite value, infinity
/// included, gives that value; NaN stays NaN.
uint8_t toFloat8Bits(double value, ScalarKind kind);
double fromFloat8Bits(uint8_t bits, ScalarKind kind);

} // namespace blockc
