// The 8-bit floats f8e4m3 and f8e5m2 (docs/block-ir.md, section 3): storage
// types that load, store, select and cast. Every code of each format decodes
// exactly; every conversion to them rounds once, to nearest even, saturating at
// the largest finite value (Triton's `cvt.rn.satfinite` on NVIDIA GPUs).
//
// The reference is written from the formats' definitions, not from blockc's
// algorithms: a table of the 256 values each code stands for, and rounding as a
// search for the nearest finite code, ties to the even code.
#include "KernelHarness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace blockc;
using namespace blockc::test;

namespace {

struct Format {
  const char *name;
  int exponentBits, mantissaBits, bias;
  bool finiteOnly; // E4M3: no infinities, only S.1111.111 is NaN
};
constexpr Format kE4M3{"f8e4m3", 4, 3, 7, true};
constexpr Format kE5M2{"f8e5m2", 5, 2, 15, false};

double valueOf(uint8_t code, const Format &f) {
  double sign = code & 0x80 ? -1.0 : 1.0;
  int field = (code >> f.mantissaBits) & ((1 << f.exponentBits) - 1);
  int fraction = code & ((1 << f.mantissaBits) - 1);
  double nan = std::copysign(std::numeric_limits<double>::quiet_NaN(), sign);
  if (f.finiteOnly && (code & 0x7f) == 0x7f)
    return nan;
  if (!f.finiteOnly && field == (1 << f.exponentBits) - 1)
    return fraction ? nan : sign * std::numeric_limits<double>::infinity();
  double significand = double(fraction) / (1 << f.mantissaBits);
  if (field == 0)
    return sign * significand * std::ldexp(1.0, 1 - f.bias);
  return sign * (1 + significand) * std::ldexp(1.0, field - f.bias);
}

uint8_t nearestCode(double x, const Format &f) {
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x))
    return sign | 0x7f;
  double largest = 0;
  for (int code = 0; code < 0x80; ++code)
    if (double v = valueOf(uint8_t(code), f); std::isfinite(v))
      largest = std::max(largest, v);
  double magnitude = std::min(std::fabs(x), largest); // saturating
  double best = std::numeric_limits<double>::infinity();
  uint8_t bestCode = 0;
  for (int code = 0; code < 0x80; ++code) {
    double v = valueOf(uint8_t(code), f);
    if (!std::isfinite(v))
      continue;
    double distance = std::fabs(magnitude - v);
    // Codes ascend with their values, so on a tie the first is the lower
    // neighbour; the even code wins.
    if (distance < best || (distance == best && code % 2 == 0)) {
      best = distance;
      bestCode = uint8_t(code);
    }
  }
  return sign | bestCode;
}

bool sameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

std::string castKernel(const char *from, const char *to, int n) {
  return std::string("kernel @k(%x: ptr<") + from + ">, %y: ptr<" + to + ">) {\n" +
         "  %r = arange 0, " + std::to_string(n) + "\n" +
         "  %xp = addptr %x, %r\n"
         "  %v = load %xp\n"
         "  %c = cast %v to " +
         to +
         "\n"
         "  %yp = addptr %y, %r\n"
         "  store %yp, %c\n"
         "}\n";
}

template <typename From, typename To>
std::vector<To> castAll(const char *from, const char *to, std::vector<From> x) {
  std::vector<To> y(x.size(), To(0));
  if (auto module = compileOrFail(castKernel(from, to, int(x.size()))))
    launch(module->kernels()[0], {1, 1, 1}, {x, y});
  return y;
}

class Float8 : public ::testing::TestWithParam<Format> {};

TEST_P(Float8, EveryCodeDecodesExactly) {
  const Format f = GetParam();
  std::vector<uint8_t> codes(256);
  for (int i = 0; i < 256; ++i)
    codes[i] = uint8_t(i);
  std::vector<float> asFloat = castAll<uint8_t, float>(f.name, "f32", codes);
  std::vector<double> asDouble = castAll<uint8_t, double>(f.name, "f64", codes);
  for (int i = 0; i < 256; ++i) {
    EXPECT_PRED2(sameValue, asFloat[i], valueOf(uint8_t(i), f)) << "code 0x" << std::hex << i;
    EXPECT_PRED2(sameValue, asDouble[i], valueOf(uint8_t(i), f)) << "code 0x" << std::hex << i;
  }
}

/// f32 values around every representable magnitude: each code's value, the
/// midpoints to its neighbours (ties) and one f32 ulp either side of them,
/// then the specials and values far out of range.
std::vector<float> probes(const Format &f) {
  std::vector<double> finite;
  for (int code = 0; code < 0x80; ++code)
    if (double v = valueOf(uint8_t(code), f); std::isfinite(v))
      finite.push_back(v);
  std::vector<float> out;
  for (size_t i = 0; i < finite.size(); ++i) {
    float v = float(finite[i]);
    out.insert(out.end(), {v, -v});
    double next = i + 1 < finite.size() ? finite[i + 1] : 2 * finite[i];
    float mid = float((finite[i] + next) / 2);
    float inf = std::numeric_limits<float>::infinity();
    for (float m : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, inf)})
      out.insert(out.end(), {m, -m});
  }
  float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (float special : {nan, -nan, inf, -inf, 0.0f, -0.0f, 1e30f, -1e30f, 1e-30f, -1e-30f,
                        std::numeric_limits<float>::denorm_min(), 500.0f, 60000.0f, 70000.0f})
    out.push_back(special);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> exponent(-24, 18);
  std::normal_distribution<float> gauss;
  while (out.size() % 256 != 0 || out.size() < 1024)
    out.push_back(gauss(random) * std::exp2(exponent(random)));
  return out;
}

TEST_P(Float8, F32RoundsToNearestEvenAndSaturates) {
  const Format f = GetParam();
  std::vector<float> x = probes(f);
  std::vector<uint8_t> codes = castAll<float, uint8_t>("f32", f.name, x);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(int(codes[i]), int(nearestCode(x[i], f)))
        << f.name << " of " << std::hexfloat << x[i] << " (probe " << std::dec << i << ")";
}

// From f64, rounding to f32 first would land some values on an fp8 tie and
// round them the wrong way: 1 + 2^-4 + 2^-40 is just above E4M3's tie between
// 1 and 1 + 2^-3, and E5M2's tie between 1 and 1 + 2^-2 is 1 + 2^-3.
TEST_P(Float8, F64AndWideIntegersRoundOnce) {
  const Format f = GetParam();
  double tie = f.mantissaBits == 3 ? 1 + 0x1p-4 : 1 + 0x1p-3;
  std::vector<double> x = {tie + 0x1p-40, tie - 0x1p-40, tie, -(tie + 0x1p-40), 1e300, -1e-300};
  std::vector<uint8_t> codes = castAll<double, uint8_t>("f64", f.name, x);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(int(codes[i]), int(nearestCode(x[i], f))) << std::hexfloat << x[i];
  // 17 is a tie in E4M3 (between 16 and 18); 2^24 + 1 is just above 2^24 in f32.
  std::vector<int32_t> ints = {17, -17, 19, 100000, (1 << 24) + 1, INT32_MIN, 0, 3};
  std::vector<uint8_t> fromInts = castAll<int32_t, uint8_t>("i32", f.name, ints);
  for (size_t i = 0; i < ints.size(); ++i)
    EXPECT_EQ(int(fromInts[i]), int(nearestCode(double(ints[i]), f))) << ints[i];
}

TEST_P(Float8, SmallFloatsAndTheOtherFormat) {
  const Format f = GetParam();
  const Format other = f.mantissaBits == 3 ? kE5M2 : kE4M3;
  std::vector<uint8_t> codes(256);
  for (int i = 0; i < 256; ++i)
    codes[i] = uint8_t(i);
  std::vector<uint8_t> converted = castAll<uint8_t, uint8_t>(other.name, f.name, codes);
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(int(converted[i]), int(nearestCode(valueOf(uint8_t(i), other), f)))
        << other.name << " code 0x" << std::hex << i;
  // bf16 bit patterns of f32 values whose low 16 bits are zero: exactly the
  // f32 value, so the f32 reference applies.
  std::vector<float> values = probes(f);
  std::vector<uint16_t> bf16;
  std::vector<float> exact;
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    bf16.push_back(uint16_t(bits >> 16));
    bits &= 0xffff0000u;
    float truncated;
    std::memcpy(&truncated, &bits, 4);
    exact.push_back(truncated);
  }
  std::vector<uint8_t> fromBF16 = castAll<uint16_t, uint8_t>("bf16", f.name, bf16);
  for (size_t i = 0; i < exact.size(); ++i)
    ASSERT_EQ(int(fromBF16[i]), int(nearestCode(exact[i], f))) << std::hexfloat << exact[i];
}

TEST_P(Float8, ConstantsSelectsAndMaskedLoads) {
  const Format f = GetParam();
  std::string source = R"(
kernel @k(%x: ptr<F8>, %y: ptr<F8>) {
  %r = arange 0, 16
  %limit = const 5 : i32
  %m = cmp lt %r, %limit
  %other = const 0.3 : F8
  %xp = addptr %x, %r
  %v = load %xp, mask=%m, other=%other
  %big = const 1000000.0 : F8
  %two = const 2 : i32
  %zero = const 0 : i32
  %rem = rem %r, %two
  %odd = cmp ne %rem, %zero
  %s = select %odd, %big, %v
  %yp = addptr %y, %r
  store %yp, %s
}
)";
  for (size_t at; (at = source.find("F8")) != std::string::npos;)
    source.replace(at, 2, f.name);
  std::vector<uint8_t> x(16), y(16, 0);
  for (int i = 0; i < 16; ++i)
    x[i] = uint8_t(0x30 + i);
  if (auto module = compileOrFail(source))
    launch(module->kernels()[0], {1, 1, 1}, {x, y});
  uint8_t third = nearestCode(0.3, f), largest = nearestCode(1e6, f);
  for (int i = 0; i < 16; ++i) {
    uint8_t expected = i % 2 == 0 && i < 5 ? x[i] : i % 2 == 0 ? third : largest;
    EXPECT_EQ(int(y[i]), int(expected)) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, Float8, ::testing::Values(kE4M3, kE5M2),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
