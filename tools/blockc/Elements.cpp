//===- Elements.cpp - Element values for `blockc run` ---------------------===//
#include "Elements.h"

#include "blockc/frontend/SmallFloat.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace blockc::driver {

std::string quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

namespace {

/// "an i32", "an f32", "a bf16".
std::string withArticle(ScalarKind kind) {
  std::string_view name = scalarKindName(kind);
  return (name[0] == 'i' || name[0] == 'f' ? "an " : "a ") + std::string(name);
}

/// All of `text` as a decimal floating-point number, `inf` or `nan`.
/// Returns false with `outOfRange` set for a number beyond double.
bool parseReal(std::string_view text, double &value, bool &outOfRange) {
  outOfRange = false;
  if (text.size() > 1 && text[0] == '+' && text[1] != '-')
    text.remove_prefix(1);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || end != text.data() + text.size())
    return false;
  outOfRange = ec == std::errc::result_out_of_range;
  return ec == std::errc();
}

bool isBoolWord(std::string_view text) {
  return text == "true" || text == "false";
}

void storeInteger(ScalarKind kind, int64_t value, void *out) {
  switch (kind) {
  case ScalarKind::I1:
  case ScalarKind::I8: {
    int8_t v = int8_t(value);
    std::memcpy(out, &v, 1);
    break;
  }
  case ScalarKind::I16: {
    int16_t v = int16_t(value);
    std::memcpy(out, &v, 2);
    break;
  }
  case ScalarKind::I32: {
    int32_t v = int32_t(value);
    std::memcpy(out, &v, 4);
    break;
  }
  default:
    std::memcpy(out, &value, 8);
  }
}

void storeFloat(ScalarKind kind, double value, void *out) {
  switch (kind) {
  case ScalarKind::F16: {
    uint16_t v = toHalfBits(value);
    std::memcpy(out, &v, 2);
    break;
  }
  case ScalarKind::BF16: {
    uint16_t v = toBFloat16Bits(value);
    std::memcpy(out, &v, 2);
    break;
  }
  case ScalarKind::F32: {
    float v = float(value);
    std::memcpy(out, &v, 4);
    break;
  }
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2: {
    uint8_t v = toFloat8Bits(value, kind);
    std::memcpy(out, &v, 1);
    break;
  }
  default:
    std::memcpy(out, &value, 8);
  }
}

/// `value` as the float `kind` stores it.
double roundedTo(ScalarKind kind, double value) {
  switch (kind) {
  case ScalarKind::F16:
    return fromHalfBits(toHalfBits(value));
  case ScalarKind::BF16:
    return fromBFloat16Bits(toBFloat16Bits(value));
  case ScalarKind::F32:
    return double(float(value));
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
    return fromFloat8Bits(toFloat8Bits(value, kind), kind);
  default:
    return value;
  }
}

double largestFinite(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    return fromHalfBits(0x7bff);
  case ScalarKind::BF16:
    return fromBFloat16Bits(0x7f7f);
  case ScalarKind::F32:
    return std::numeric_limits<float>::max();
  case ScalarKind::F8E4M3:
    return 448.0;
  case ScalarKind::F8E5M2:
    return 57344.0;
  default:
    return std::numeric_limits<double>::max();
  }
}

/// splitmix64: tiny, fast, and the same on every platform, which the
/// standard library's distributions are not.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }
};

uint64_t hashName(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325; // FNV-1a
  for (char c : name)
    hash = (hash ^ uint8_t(c)) * 0x100000001b3;
  return hash;
}

/// Significand bits of a float kind, implicit one included.
int precision(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    return 11;
  case ScalarKind::BF16:
    return 8;
  case ScalarKind::F32:
    return 24;
  case ScalarKind::F8E4M3:
    return 4;
  case ScalarKind::F8E5M2:
    return 3;
  default:
    return 53;
  }
}

} // namespace

unsigned elementBytes(ScalarKind kind) {
  return kind == ScalarKind::I1 ? 1 : bitWidth(kind) / 8;
}

std::optional<uint64_t> byteSize(const Shape &shape, unsigned elementSize) {
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  uint64_t bytes = elementSize;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && bytes > kLimit / uint64_t(d))
      return std::nullopt;
    bytes *= uint64_t(d);
  }
  return bytes;
}

bool looksLikeNumber(std::string_view text) {
  double ignored;
  bool outOfRange;
  return isBoolWord(text) || parseReal(text, ignored, outOfRange) || outOfRange;
}

bool encodeNumber(ScalarKind kind, std::string_view text, void *out, std::string &error) {
  std::string what = quoted(text) + " is not " + withArticle(kind) + ": expected ";
  if (kind == ScalarKind::I1) {
    int64_t value;
    if (isBoolWord(text))
      value = text == "true";
    else if (!parseWhole(text, value) || (value != 0 && value != 1)) {
      error = what + "0, 1, true or false";
      return false;
    }
    storeInteger(kind, value, out);
    return true;
  }
  if (isIntegerKind(kind)) {
    unsigned bits = bitWidth(kind);
    int64_t max = bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1, min = -max - 1;
    int64_t value;
    if (!parseWhole(text, value) || value < min || value > max) {
      error = what + "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
      return false;
    }
    storeInteger(kind, value, out);
    return true;
  }
  double value;
  bool outOfRange;
  if (!parseReal(text, value, outOfRange) && !outOfRange) {
    error = what + "a number such as 1.5, -2e-3, inf or nan";
    return false;
  }
  // A finite number that becomes infinity is a typo, not a wish for inf; the
  // 8-bit floats saturate instead, so their limit is checked before rounding.
  bool tooLarge =
      std::isfinite(value) && (isStorageOnlyKind(kind) ? std::fabs(value) > largestFinite(kind)
                                                       : std::isinf(roundedTo(kind, value)));
  if (outOfRange || tooLarge) {
    char largest[32];
    std::snprintf(largest, sizeof largest, "%g", largestFinite(kind));
    error = quoted(text) + " is out of range for " + std::string(scalarKindName(kind)) +
            " (largest finite value " + largest + ")";
    return false;
  }
  storeFloat(kind, value, out);
  return true;
}

void fillRandom(ScalarKind kind, std::string_view name, uint64_t seed, void *out, uint64_t count) {
  SplitMix64 random{hashName(name) ^ (seed * 0xd1342543de82ef95)};
  auto *data = static_cast<unsigned char *>(out);
  unsigned size = elementBytes(kind);
  if (kind == ScalarKind::I1) {
    for (uint64_t i = 0; i < count; ++i)
      data[i] = uint8_t(random.next() >> 63);
  } else if (isIntegerKind(kind)) {
    // Small values: the product of two fits even i8, and long sums of
    // products fit i32, as an i8 dot accumulates.
    for (uint64_t i = 0; i < count; ++i)
      storeInteger(kind, int64_t(random.next() >> 60) - 8, data + i * size);
  } else {
    // k / 2^(p-1) - 1 with p the significand bits: uniform on a grid of the
    // type, every value exact, so that no rounding reaches 1.0.
    int p = precision(kind);
    double scale = std::ldexp(1.0, 1 - p);
    for (uint64_t i = 0; i < count; ++i)
      storeFloat(kind, double(random.next() >> (64 - p)) * scale - 1.0, data + i * size);
  }
}

} // namespace blockc::driver
