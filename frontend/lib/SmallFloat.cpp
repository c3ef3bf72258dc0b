//===- SmallFloat.cpp - small float bit patterns from and to double -----===//
#include "blockc/frontend/SmallFloat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace blockc {

namespace {

/// The small float formats: significand bits without the implicit one, and
/// exponent bits.
struct SmallFloat {
  int mantissaBits, exponentBits;
};
constexpr SmallFloat kHalf{10, 5}, kBFloat16{7, 8};

uint16_t toSmallFloatBits(double value, SmallFloat format) {
  const int m = format.mantissaBits;
  const int bias = (1 << (format.exponentBits - 1)) - 1;
  const uint32_t sign = std::signbit(value) ? 1u << (m + format.exponentBits) : 0;
  const uint32_t infinity = ((1u << format.exponentBits) - 1) << m;
  if (std::isnan(value))
    return uint16_t(sign | infinity | (1u << (m - 1))); // a quiet NaN
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude))
    return uint16_t(sign | infinity);
  if (magnitude == 0)
    return uint16_t(sign);
  int e;
  std::frexp(magnitude, &e);
  // magnitude is in [2^exponent, 2^(exponent+1)); below the normal range the
  // scale stays that of the smallest normal, which makes subnormals.
  int exponent = std::max(e - 1, 1 - bias);
  // Scaling by a power of two is exact, so the one rounding is nearbyint's:
  // to nearest, ties to even, in the default rounding mode.
  double significand = std::nearbyint(std::ldexp(magnitude, m - exponent));
  if (significand >= std::ldexp(1.0, m + 1)) { // rounded up to the next binade
    significand /= 2;
    ++exponent;
  }
  if (exponent > bias)
    return uint16_t(sign | infinity);
  uint32_t bits = uint32_t(significand);
  if (bits < (1u << m)) // subnormal: the exponent field is 0
    return uint16_t(sign | bits);
  return uint16_t(sign | (uint32_t(exponent + bias) << m) | (bits - (1u << m)));
}

double fromSmallFloatBits(uint16_t bits, SmallFloat format) {
  const int m = format.mantissaBits;
  const int bias = (1 << (format.exponentBits - 1)) - 1;
  const uint32_t maxField = (1u << format.exponentBits) - 1;
  uint32_t field = (bits >> m) & maxField, fraction = bits & ((1u << m) - 1);
  double sign = (bits >> (m + format.exponentBits)) & 1 ? -1.0 : 1.0;
  if (field == maxField)
    return fraction ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (field == 0)
    return sign * std::ldexp(double(fraction), 1 - bias - m);
  return sign * std::ldexp(double(fraction + (1u << m)), int(field) - bias - m);
}

struct Float8Format {
  int mantissaBits, bias;
  double maxFinite;
};
Float8Format float8Format(ScalarKind kind) {
  return kind == ScalarKind::F8E4M3 ? Float8Format{3, 7, 448.0} : Float8Format{2, 15, 57344.0};
}

} // namespace

uint8_t toFloat8Bits(double value, ScalarKind kind) {
  const Float8Format format = float8Format(kind);
  const int m = format.mantissaBits;
  const uint32_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value))
    return uint8_t(sign | 0x7f); // NaN in both formats
  double magnitude = std::min(std::fabs(value), format.maxFinite);
  if (magnitude == 0)
    return uint8_t(sign);
  int e;
  std::frexp(magnitude, &e);
  int exponent = std::max(e - 1, 1 - format.bias);
  double significand = std::nearbyint(std::ldexp(magnitude, m - exponent));
  if (significand >= std::ldexp(1.0, m + 1)) {
    significand /= 2;
    ++exponent;
  }
  // Clamping before rounding cannot carry past the largest finite value,
  // which is itself representable.
  uint32_t bits = uint32_t(significand);
  if (bits < (1u << m))
    return uint8_t(sign | bits);
  return uint8_t(sign | (uint32_t(exponent + format.bias) << m) | (bits - (1u << m)));
}

double fromFloat8Bits(uint8_t bits, ScalarKind kind) {
  const Float8Format format = float8Format(kind);
  const int m = format.mantissaBits;
  const uint32_t magnitude = bits & 0x7f, field = magnitude >> m, fraction = bits & ((1u << m) - 1);
  const double sign = bits & 0x80 ? -1.0 : 1.0;
  if (kind == ScalarKind::F8E4M3 && magnitude == 0x7f)
    return std::numeric_limits<double>::quiet_NaN(); // E4M3 has no infinity
  if (kind == ScalarKind::F8E5M2 && field == 31)
    return fraction ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (field == 0)
    return sign * std::ldexp(double(fraction), 1 - format.bias - m);
  return sign * std::ldexp(double(fraction + (1u << m)), int(field) - format.bias - m);
}

uint16_t toHalfBits(double value) {
  return toSmallFloatBits(value, kHalf);
}
uint16_t toBFloat16Bits(double value) {
  return toSmallFloatBits(value, kBFloat16);
}
double fromHalfBits(uint16_t bits) {
  return fromSmallFloatBits(bits, kHalf);
}
double fromBFloat16Bits(uint16_t bits) {
  return fromSmallFloatBits(bits, kBFloat16);
}

} // namespace blockc
