// Division of a block by a scalar (a softmax's `numerator / denominator`) is
// emitted as a reciprocal and a Markstein correction where every lane is in the
// range that makes that exact, and as a division elsewhere (MathLowering.cpp,
// divideByUniform). Either way the quotient must be IEEE division's, bit for
// bit: the reference is the host's own `x / d` in the same type. Dividends
// cover many binades, both signs, the ends of the range, subnormals, zeros,
// infinities and NaN, against divisors from the smallest subnormal to the
// largest finite value, so that strips take both paths and mix them.
#include "KernelHarness.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace blockc;
using namespace blockc::test;

namespace {

constexpr int kLanes = 1 << 16;

template <typename T> std::vector<T> dividends() {
  using Limits = std::numeric_limits<T>;
  std::vector<T> x = {T(0),
                      -T(0),
                      T(1),
                      -T(1),
                      Limits::infinity(),
                      -Limits::infinity(),
                      Limits::quiet_NaN(),
                      Limits::max(),
                      -Limits::max(),
                      Limits::min(),
                      Limits::denorm_min(),
                      -Limits::denorm_min(),
                      Limits::min() / T(3)};
  std::mt19937_64 random(7);
  std::uniform_real_distribution<T> mantissa(T(1), T(2));
  std::uniform_int_distribution<int> ordinary(-60, 60);
  std::uniform_int_distribution<int> anywhere(Limits::min_exponent - 30, Limits::max_exponent);
  std::uniform_int_distribution<int> percent(0, 99), sign(0, 1);
  // The first half whole strips of ordinary values (the reciprocal's path),
  // the second with an extreme exponent in one lane of fifty.
  while (x.size() < size_t(kLanes)) {
    bool extreme = x.size() > size_t(kLanes / 2) && percent(random) < 2;
    T v = std::ldexp(mantissa(random), extreme ? anywhere(random) : ordinary(random));
    x.push_back(sign(random) ? -v : v);
  }
  return x;
}

template <typename T> std::vector<T> divisors() {
  using Limits = std::numeric_limits<T>;
  return {T(1),
          T(3),
          -T(7),
          T(0.1),
          std::ldexp(T(1.5), Limits::max_exponent - 5),
          std::ldexp(T(1.25), Limits::min_exponent + 3),
          Limits::max(),
          Limits::min(),
          Limits::denorm_min(),
          T(0),
          -T(0),
          Limits::infinity(),
          Limits::quiet_NaN()};
}

template <typename T> bool sameBits(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T> void checkDivision(const char *type) {
  std::string source = std::string("kernel @k(%x: ptr<") + type + ">, %y: ptr<" + type +
                       ">, %d: " + type +
                       ") {\n"
                       "  %r = arange 0, " +
                       std::to_string(kLanes) +
                       "\n"
                       "  %xp = addptr %x, %r\n"
                       "  %v = load %xp\n"
                       "  %q = div %v, %d\n"
                       "  %yp = addptr %y, %r\n"
                       "  store %yp, %q\n"
                       "}\n";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  std::vector<T> x = dividends<T>();
  for (T d : divisors<T>()) {
    std::vector<T> y(x.size(), T(0));
    launch(module->kernels()[0], {1, 1, 1}, {x, y, d});
    for (size_t i = 0; i < x.size(); ++i) {
      T expected = x[i] / d;
      ASSERT_TRUE(sameBits(y[i], expected))
          << type << ": " << x[i] << " / " << d << " gave " << y[i] << ", not " << expected
          << " (lane " << i << ")";
    }
  }
}

TEST(Division, ByScalarMatchesIeeeF32) {
  checkDivision<float>("f32");
}

TEST(Division, ByScalarMatchesIeeeF64) {
  checkDivision<double>("f64");
}

} // namespace
