// `ucast` (docs/block-ir.md, section 10.9): integers read as unsigned. Zero
// extension, unsigned integers to every float type (u64 above 2^63 included, the
// one rounding still to nearest), and floats to unsigned integers, saturating at 0
// (negatives, NaN) and at the type's maximum. References are computed in C++ with
// unsigned types.
#include "KernelHarness.h"
#include "Reference.h"

#include <cmath>
#include <limits>

using namespace blockc;
using namespace blockc::test;

namespace {

template <typename From, typename To>
std::vector<To> ucast(const char *from, const char *to, const std::vector<From> &in) {
  std::string source = std::string(R"(
kernel @k(%x: ptr<FROM>, %y: ptr<TO>) {
  %r = arange 0, 16
  %xp = addptr %x, %r
  %v = load %xp
  %c = ucast %v to TO
  %yp = addptr %y, %r
  store %yp, %c
}
)");
  for (auto [key, value] : {std::pair{"FROM", from}, {"TO", to}, {"TO", to}, {"TO", to}})
    if (size_t at = source.find(key); at != std::string::npos)
      source.replace(at, std::string(key).size(), value);
  auto module = compileOrFail(source);
  std::vector<From> x = in;
  x.resize(16, From(0));
  std::vector<To> y(16, To(0));
  if (module)
    launch(module->kernels()[0], {1, 1, 1}, {x, y});
  return y;
}

TEST(Unsigned, ZeroExtensionAndTruncation) {
  std::vector<int8_t> bytes = {-1, -128, 127, 0, 5};
  std::vector<int32_t> wide = ucast<int8_t, int32_t>("i8", "i32", bytes);
  for (size_t i = 0; i < bytes.size(); ++i)
    EXPECT_EQ(wide[i], int32_t(uint8_t(bytes[i])));
  std::vector<int64_t> big = {-1, int64_t(0x1234567890), 300};
  std::vector<int16_t> narrow = ucast<int64_t, int16_t>("i64", "i16", big);
  for (size_t i = 0; i < big.size(); ++i)
    EXPECT_EQ(narrow[i], int16_t(uint16_t(uint64_t(big[i]))));
}

TEST(Unsigned, IntegersToFloats) {
  std::vector<int32_t> u32 = {-1, INT32_MIN, 7, 0x7fffffff};
  std::vector<float> f = ucast<int32_t, float>("i32", "f32", u32);
  for (size_t i = 0; i < u32.size(); ++i)
    EXPECT_EQ(f[i], float(uint32_t(u32[i]))) << i;
  // Above 2^63: halved with a sticky bit, converted, doubled. 2^64 - 1 rounds up to
  // 2^64; 2^63 + 2^40 + 1 must round as one rounding would.
  std::vector<int64_t> u64 = {-1, INT64_MIN, int64_t(uint64_t(1) << 63 | uint64_t(1) << 40 | 1),
                              int64_t(0x8000008000000001ull), 12345};
  std::vector<double> d = ucast<int64_t, double>("i64", "f64", u64);
  std::vector<float> s = ucast<int64_t, float>("i64", "f32", u64);
  for (size_t i = 0; i < u64.size(); ++i) {
    EXPECT_EQ(d[i], double(uint64_t(u64[i]))) << i;
    EXPECT_EQ(s[i], float(uint64_t(u64[i]))) << i;
  }
  std::vector<int16_t> u16 = {-1, 2049, 1000};
  std::vector<uint16_t> h = ucast<int16_t, uint16_t>("i16", "f16", u16);
  for (size_t i = 0; i < u16.size(); ++i)
    EXPECT_EQ(decodeFloat(h[i], formatOf(DType::F16)),
              decodeFloat(encodeFloat(double(uint16_t(u16[i])), formatOf(DType::F16)),
                          formatOf(DType::F16)))
        << i;
}

TEST(Unsigned, FloatsSaturateToUnsignedRange) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> f = {3e9f, -5.f, 5e9f, nan, 255.9f, 0.5f};
  std::vector<int32_t> u32 = ucast<float, int32_t>("f32", "i32", f);
  std::vector<uint32_t> expect32 = {3000000000u, 0, UINT32_MAX, 0, 255, 0};
  std::vector<int8_t> u8 = ucast<float, int8_t>("f32", "i8", f);
  std::vector<uint8_t> expect8 = {255, 0, 255, 0, 255, 0};
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(uint32_t(u32[i]), expect32[i]) << f[i];
    EXPECT_EQ(uint8_t(u8[i]), expect8[i]) << f[i];
  }
  std::vector<double> d = {1e19, -1.0, 2e19};
  std::vector<int64_t> u64 = ucast<double, int64_t>("f64", "i64", d);
  EXPECT_EQ(uint64_t(u64[0]), 10000000000000000000ull);
  EXPECT_EQ(uint64_t(u64[1]), 0u);
  EXPECT_EQ(uint64_t(u64[2]), UINT64_MAX);
}

} // namespace
