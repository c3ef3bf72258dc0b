//===- SmallFloat.h - f16 and bf16 bit patterns from and to double -*- C++ -*-===//
//
// Block IR's 16-bit floats as the host sees them: bit patterns in uint16_t.
// The driver writes them into buffers and the Python bindings into kernel
// arguments; neither may depend on the host compiler having _Float16.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace blockc {

/// IEEE binary16 and bfloat16 from and to double, correctly rounded (to
/// nearest, ties to even; too large gives infinity).
uint16_t toHalfBits(double value);
uint16_t toBFloat16Bits(double value);
double fromHalfBits(uint16_t bits);
double fromBFloat16Bits(uint16_t bits);

} // namespace blockc
