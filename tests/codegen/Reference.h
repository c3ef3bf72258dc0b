//===- Reference.h - Element types, buffers and launches for tests -*- C++ -*-===//
//
// The codegen tests compare generated code with plain C++ references. This header
// holds what they share: the element types of Block IR as data, an f16/bf16
// encoder written here (not taken from the compiler or LLVM, so a rounding bug there
// cannot hide behind the same bug in the reference), and typed byte buffers, which
// launch takes as arguments.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "KernelHarness.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace blockc::test {

enum class DType { I1, I8, I16, I32, I64, F16, BF16, F32, F64 };

inline const std::vector<DType> &allTypes() {
  static const std::vector<DType> all = {DType::I1,   DType::I8,  DType::I16,
                                         DType::I32,  DType::I64, DType::F16,
                                         DType::BF16, DType::F32, DType::F64};
  return all;
}

inline const char *typeName(DType t) {
  static const char *names[] = {"i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
  return names[static_cast<int>(t)];
}
inline bool isFloat(DType t) {
  return t >= DType::F16;
}
inline bool isBool(DType t) {
  return t == DType::I1;
}
inline bool isInt(DType t) {
  return !isFloat(t) && !isBool(t);
}
/// Bits of the value; i1 occupies a whole byte in memory.
inline int bitsOf(DType t) {
  static const int bits[] = {1, 8, 16, 32, 64, 16, 16, 32, 64};
  return bits[static_cast<int>(t)];
}
inline size_t bytesOf(DType t) {
  return t == DType::I1 ? 1 : size_t(bitsOf(t)) / 8;
}

/// Two's complement wrap of `v` to `bits` (i1 keeps 0 and 1).
inline int64_t wrapInt(uint64_t v, int bits) {
  if (bits == 1)
    return int64_t(v & 1);
  if (bits == 64)
    return int64_t(v);
  uint64_t mask = (uint64_t(1) << bits) - 1;
  v &= mask;
  return (v >> (bits - 1)) ? int64_t(v | ~mask) : int64_t(v);
}

// --- Binary floating point with `exp` exponent and `man` fraction bits -------

struct FloatFormat {
  int exp, man;
};
inline FloatFormat formatOf(DType t) {
  switch (t) {
  case DType::F16:
    return {5, 10};
  case DType::BF16:
    return {8, 7};
  case DType::F32:
    return {8, 23};
  default:
    return {11, 52};
  }
}

inline double decodeFloat(uint64_t bits, FloatFormat f) {
  int bias = (1 << (f.exp - 1)) - 1;
  bool sign = (bits >> (f.exp + f.man)) & 1;
  int e = int((bits >> f.man) & ((1u << f.exp) - 1));
  uint64_t m = bits & ((uint64_t(1) << f.man) - 1);
  double v;
  if (e == (1 << f.exp) - 1)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(double(m), 1 - bias - f.man);
  else
    v = std::ldexp(double(m | (uint64_t(1) << f.man)), e - bias - f.man);
  return sign ? -v : v;
}

/// `x` rounded once to nearest even in format `f` (f16 or bf16), overflowing to
/// infinity; NaN becomes a quiet NaN.
inline uint64_t encodeFloat(double x, FloatFormat f) {
  uint64_t sign = std::signbit(x) ? uint64_t(1) << (f.exp + f.man) : 0;
  uint64_t expMask = ((uint64_t(1) << f.exp) - 1) << f.man;
  if (std::isnan(x))
    return sign | expMask | (uint64_t(1) << (f.man - 1));
  double a = std::fabs(x);
  if (std::isinf(a))
    return sign | expMask;
  if (a == 0)
    return sign;
  int bias = (1 << (f.exp - 1)) - 1, emin = 1 - bias;
  int e = std::ilogb(a);
  // Scaling by a power of two is exact, so nearbyint performs the only rounding.
  double quantum = std::ldexp(1.0, std::max(e, emin) - f.man);
  double r = std::nearbyint(a / quantum);
  double v = r * quantum;
  if (v >= std::ldexp(1.0, bias + 1))
    return sign | expMask;
  if (v < std::ldexp(1.0, emin)) // subnormal; r == 2^man lands on the smallest normal
    return sign | uint64_t(r);
  int ve = std::ilogb(v);
  uint64_t mant = uint64_t(std::ldexp(v, f.man - ve)) - (uint64_t(1) << f.man);
  return sign | (uint64_t(ve + bias) << f.man) | mant;
}

/// `v` rounded to `precision` significant bits, nearest even, exactly.
inline double roundIntToPrecision(int64_t v, int precision) {
  bool neg = v < 0;
  uint64_t u = neg ? 0 - uint64_t(v) : uint64_t(v);
  int width = 64 - __builtin_clzll(u | 1);
  if (width > precision) {
    int drop = width - precision;
    uint64_t rest = u & ((uint64_t(1) << drop) - 1), half = uint64_t(1) << (drop - 1);
    u >>= drop;
    if (rest > half || (rest == half && (u & 1)))
      ++u;
    double r = std::ldexp(double(u), drop);
    return neg ? -r : r;
  }
  return neg ? -double(u) : double(u);
}

// --- Elements and buffers ---------------------------------------------------

/// One element: `i` for i1 and ints (sign-extended), `f` for floats.
struct Val {
  int64_t i = 0;
  double f = 0;
};
inline Val intVal(int64_t i) {
  return {i, 0};
}
inline Val floatVal(double f) {
  return {0, f};
}

inline Val decode(DType t, uint64_t bits) {
  switch (t) {
  case DType::I1:
    return intVal(int64_t(bits & 0xff));
  case DType::F16:
  case DType::BF16:
    return floatVal(decodeFloat(bits, formatOf(t)));
  case DType::F32: {
    float f;
    uint32_t b = uint32_t(bits);
    std::memcpy(&f, &b, 4);
    return floatVal(f);
  }
  case DType::F64: {
    double d;
    std::memcpy(&d, &bits, 8);
    return floatVal(d);
  }
  default:
    return intVal(wrapInt(bits, bitsOf(t)));
  }
}

/// Bits of `v` in type `t`; floats are rounded to nearest even (f32 by the C++
/// conversion, which is exact for values the references compute in float).
inline uint64_t encode(DType t, Val v) {
  switch (t) {
  case DType::F16:
  case DType::BF16:
    return encodeFloat(v.f, formatOf(t));
  case DType::F32: {
    float f = float(v.f);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  case DType::F64: {
    uint64_t b;
    std::memcpy(&b, &v.f, 8);
    return b;
  }
  default: {
    int bits = bitsOf(t);
    return bits == 64 ? uint64_t(v.i) : uint64_t(v.i) & ((uint64_t(1) << bits) - 1);
  }
  }
}

/// `x` rounded to f16/bf16/f32 (identity for f64), as a double.
inline double roundTo(DType t, double x) {
  return decode(t, encode(t, floatVal(x))).f;
}

/// `count` elements of type `t` followed by `pad` guard elements that a
/// correct kernel never writes. (A remote launch ships only the `count`
/// elements, placed right before a PROT_NONE page: there, a write past them
/// faults instead.)
class Buffer {
public:
  Buffer(DType t, size_t count, size_t pad = 16)
      : type_(t), count_(count), storage_((count + pad) * bytesOf(t) / 8 + 1) {}
  DType type() const { return type_; }
  size_t size() const { return count_; }
  size_t capacity() const { return (storage_.size() * 8) / bytesOf(type_); }
  void *data() { return storage_.data(); }
  uint64_t bits(size_t i) const {
    uint64_t b = 0;
    std::memcpy(&b, bytes() + i * bytesOf(type_), bytesOf(type_));
    return b;
  }
  void setBits(size_t i, uint64_t b) {
    std::memcpy(bytes() + i * bytesOf(type_), &b, bytesOf(type_));
  }
  Val get(size_t i) const { return decode(type_, bits(i)); }
  void set(size_t i, Val v) { setBits(i, encode(type_, v)); }
  void fillBits(uint64_t b) {
    for (size_t i = 0; i < capacity(); ++i)
      setBits(i, b);
  }

private:
  uint8_t *bytes() { return reinterpret_cast<uint8_t *>(storage_.data()); }
  const uint8_t *bytes() const { return reinterpret_cast<const uint8_t *>(storage_.data()); }
  DType type_;
  size_t count_;
  std::vector<uint64_t> storage_;
};

/// Ordered distance in units in the last place between two encodings of `t`.
inline uint64_t ulpDistance(DType t, uint64_t a, uint64_t b) {
  int bits = bitsOf(t);
  auto ordered = [&](uint64_t x) {
    uint64_t signBit = uint64_t(1) << (bits - 1);
    int64_t mag = int64_t(x & (signBit - 1));
    return (x & signBit) ? -mag : mag;
  };
  int64_t d = ordered(a) - ordered(b);
  return uint64_t(d < 0 ? -d : d);
}

/// Bits: identical encodings (bitcasts, copies). Exact: the same value, any NaN
/// matching any NaN since payloads are not specified. EitherZero: also +0 for -0.
/// OneUlp: also a neighbouring value.
enum class Tolerance { Bits, Exact, EitherZero, OneUlp };

/// Whether `got` is acceptable for `expected` under `tol`.
inline bool matches(DType t, uint64_t expected, uint64_t got, Tolerance tol = Tolerance::Exact) {
  if (expected == got)
    return true;
  if (!isFloat(t) || tol == Tolerance::Bits)
    return false;
  double e = decode(t, expected).f, g = decode(t, got).f;
  if (std::isnan(e) || std::isnan(g))
    return std::isnan(e) && std::isnan(g);
  if (tol == Tolerance::EitherZero)
    return e == 0 && g == 0;
  if (tol == Tolerance::OneUlp)
    return ulpDistance(t, expected, got) <= 1;
  return false;
}

inline std::string describe(DType t, uint64_t bits) {
  char text[64];
  if (isFloat(t))
    std::snprintf(text, sizeof text, "%.17g (0x%llx)", decode(t, bits).f, (unsigned long long)bits);
  else
    std::snprintf(text, sizeof text, "%lld", (long long)decode(t, bits).i);
  return text;
}

inline Arg::Arg(Buffer &b)
    : kind_(Kind::Buffer), data_(b.data()), bytes_(b.size() * bytesOf(b.type())),
      elementBytes_(bytesOf(b.type())) {}

/// A scalar argument of type `t` with encoding `bits`.
inline Arg scalarArg(DType t, uint64_t bits) {
  return Arg::scalarBits(bits, bytesOf(t));
}

inline int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

} // namespace blockc::test
