//===- MathAccuracyTest.cpp - ULP error of every math op ------------------===//
//
// Each math op is compiled for the test target (KernelHarness.h) as `out[i] = op(x[i])`, run over
// edge cases and random values across its domain, and compared with the long-double C library. The
// bound is SLEEF's documented one for the variant blockc calls (1.0 ULP for u10, 3.5 for u35), 0.5
// for correctly rounded instructions, and a derived bound for the composites.
//
//===----------------------------------------------------------------------===//
#include "KernelHarness.h"
#include "blockc/targetinfo/Sleef.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace blockc;

namespace {

struct MathCase {
  const char *op;
  long double (*reference)(long double, long double);
  float lo, hi; // random inputs are drawn uniformly from [lo, hi]
  bool binary;
  double ulpBound;
  double fastUlpBound;
};

long double sigmoidRef(long double x, long double) {
  return 1.0L / (1.0L + expl(-x));
}

const MathCase kCases[] = {
    {"exp", [](long double x, long double) { return expl(x); }, -87, 88, false, 1.0, 1.0},
    {"exp2", [](long double x, long double) { return exp2l(x); }, -126, 127, false, 1.0, 3.5},
    {"log", [](long double x, long double) { return logl(x); }, 1e-30f, 1e30f, false, 1.0, 3.5},
    {"log2", [](long double x, long double) { return log2l(x); }, 1e-30f, 1e30f, false, 1.0, 3.5},
    {"sin", [](long double x, long double) { return sinl(x); }, -1000, 1000, false, 1.0, 3.5},
    {"cos", [](long double x, long double) { return cosl(x); }, -1000, 1000, false, 1.0, 3.5},
    // tanh and erf are inline polynomials unless --sleef-math (MathWholeRange).
    {"tanh", [](long double x, long double) { return tanhl(x); }, -20, 20, false, 1.1, 3.5},
    {"erf", [](long double x, long double) { return erfl(x); }, -6, 6, false, 1.1, 1.1},
    {"pow", [](long double x, long double y) { return powl(x, y); }, 0.01f, 30, true, 1.0, 1.0},
    {"sqrt", [](long double x, long double) { return sqrtl(x); }, 0, 1e30f, false, 0.5, 0.5},
    // 1/sqrt(x): two correctly rounded steps, each within 2^-24 relative, so
    // 2^-23 relative in all: up to 2 ULP at the bottom of a binade.
    {"rsqrt", [](long double x, long double) { return 1.0L / sqrtl(x); }, 1e-30f, 1e30f, false, 2.0,
     2.0},
    // 1/(1+exp(-x)): exp's 1 ULP, the add's and the divide's roundings.
    {"sigmoid", sigmoidRef, -80, 80, false, 2.5, 2.5},
    {"asin", [](long double x, long double) { return asinl(x); }, -1, 1, false, 1.0, 3.5},
    {"acos", [](long double x, long double) { return acosl(x); }, -1, 1, false, 1.0, 3.5},
    {"atan", [](long double x, long double) { return atanl(x); }, -1e4, 1e4, false, 1.0, 3.5},
    {"atan2", [](long double y, long double x) { return atan2l(y, x); }, -100, 100, true, 1.0, 3.5},
    {"sinh", [](long double x, long double) { return sinhl(x); }, -88, 88, false, 1.0, 3.5},
    {"cosh", [](long double x, long double) { return coshl(x); }, -88, 88, false, 1.0, 3.5},
    {"tan", [](long double x, long double) { return tanl(x); }, -100, 100, false, 1.0, 3.5},
    // Past 2^28, log(|x|) + log 2: the fast variant takes log's 3.5-ULP one there.
    {"asinh", [](long double x, long double) { return asinhl(x); }, -1e18f, 1e18f, false, 1.0, 3.5},
    {"acosh", [](long double x, long double) { return acoshl(x); }, 1, 1e18f, false, 1.0, 3.5},
    {"atanh", [](long double x, long double) { return atanhl(x); }, -1, 1, false, 1.0, 1.0},
    {"expm1", [](long double x, long double) { return expm1l(x); }, -30, 88, false, 1.0, 1.0},
    {"log1p", [](long double x, long double) { return log1pl(x); }, -0.99f, 1e30f, false, 1.0, 1.0},
    {"log10", [](long double x, long double) { return log10l(x); }, 1e-30f, 1e30f, false, 1.0, 1.0},
    {"exp10", [](long double x, long double) { return exp10l(x); }, -37, 38, false, 1.0, 3.5},
    {"cbrt", [](long double x, long double) { return cbrtl(x); }, -1e30f, 1e30f, false, 1.0, 3.5},
    {"tgamma", [](long double x, long double) { return tgammal(x); }, 0.01f, 30, false, 1.0, 1.0},
    // erfc's accurate variant is SLEEF's 1.5-ULP one.
    {"erfc", [](long double x, long double) { return erfcl(x); }, -4, 9, false, 1.5, 1.5},
    {"floor", [](long double x, long double) { return floorl(x); }, -1e6, 1e6, false, 0, 0},
    {"ceil", [](long double x, long double) { return ceill(x); }, -1e6, 1e6, false, 0, 0},
};

void PrintTo(const MathCase &c, std::ostream *os) {
  *os << c.op;
}

/// |got - want| in units of the float spacing at `want`.
double ulpError(float got, long double want) {
  if (std::isnan(want))
    return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(want) || std::isinf(got))
    return float(want) == got ? 0 : INFINITY;
  long double magnitude = fabsl(want);
  float asFloat = float(magnitude);
  if (asFloat > float(magnitude))
    asFloat = std::nextafter(asFloat, 0.f);
  long double ulp = (long double)std::nextafter(asFloat, INFINITY) - asFloat;
  if (asFloat < std::numeric_limits<float>::min())
    ulp = std::numeric_limits<float>::denorm_min();
  return double(fabsl((long double)got - want) / ulp);
}

class MathAccuracy : public ::testing::TestWithParam<std::tuple<MathCase, bool>> {};

TEST_P(MathAccuracy, WithinDocumentedBound) {
  auto [c, fast] = GetParam();
  std::string body = c.binary ? "  %z = " + std::string(c.op) + " %x, %y\n"
                              : "  %z = " + std::string(c.op) + " %x\n";
  std::string source = "constexpr BLOCK: i32 = 256\n"
                       "kernel @k(%px: ptr<f32>, %py: ptr<f32>, %pz: ptr<f32>, %n: i32) {\n"
                       "  %pid = program_id 0\n  %b = const BLOCK : i32\n"
                       "  %start = mul %pid, %b\n  %r = arange 0, BLOCK\n"
                       "  %offs = add %start, %r\n  %m = cmp lt %offs, %n\n"
                       "  %xp = addptr %px, %offs\n  %x = load %xp, mask=%m\n"
                       "  %yp = addptr %py, %offs\n  %y = load %yp, mask=%m\n" +
                       body + "  %zp = addptr %pz, %offs\n  store %zp, %z, mask=%m\n}\n";
  CompileOptions options;
  options.fastMath = fast;
  auto module = test::compileWithOptionsOrFail(source, options);
  ASSERT_TRUE(module);

  std::vector<float> x = {0.f,         -0.f, 1.f,   -1.f, 0.5f,  2.f,    1e-7f, -1e-7f,
                          3.14159265f, 10.f, -10.f, 87.f, -87.f, 1e-38f, 100.f, 1e30f};
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(c.lo, c.hi);
  std::uniform_real_distribution<float> exponent(-8, 8);
  while (x.size() < 20000)
    x.push_back(dist(rng));
  std::vector<float> y(x.size());
  for (float &v : y)
    v = exponent(rng); // pow's exponents
  std::vector<float> z(x.size());
  int32_t n = int32_t(x.size());
  test::launch(module->kernels()[0], {(n + 255) / 256, 1, 1}, {x, y, z, n});

  double bound = fast ? c.fastUlpBound : c.ulpBound;
  double worst = 0;
  size_t worstAt = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    long double want = c.reference(x[i], y[i]);
    // Results that underflow or overflow float compare in float.
    if (fabsl(want) > std::numeric_limits<float>::max())
      want = want > 0 ? INFINITY : -INFINITY;
    double err = ulpError(z[i], want);
    if (err > worst)
      worst = err, worstAt = i;
  }
  EXPECT_LE(worst, bound) << c.op << (fast ? " (fast-math)" : "") << ": x=" << x[worstAt]
                          << " y=" << y[worstAt] << " got " << z[worstAt] << " want "
                          << double(c.reference(x[worstAt], y[worstAt]));
  RecordProperty("max_ulp", std::to_string(worst));
}

std::string caseName(const ::testing::TestParamInfo<std::tuple<MathCase, bool>> &info) {
  return std::string(std::get<0>(info.param).op) + (std::get<1>(info.param) ? "_fast" : "");
}

INSTANTIATE_TEST_SUITE_P(Ops, MathAccuracy,
                         ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool()),
                         caseName);

// f32 exp, exp2, sigmoid, log, tanh and erf are inline code unless
// --sleef-math: both paths, over the whole range where the result is neither
// 0 nor infinity and past it (overflow, subnormal results, underflow to zero),
// densely, with the special values. The reference is long double libm.
struct WholeRangeCase {
  const char *op;
  long double (*reference)(long double);
  float lo, hi;
  double ulpBound;
  /// Where the reduction or the formula switches: 4096 consecutive floats
  /// from each, upwards.
  float edges[2];
  /// Inputs spaced evenly in bit pattern, not in value: every binade from lo
  /// to hi gets as many, subnormals included (lo and hi >= 0).
  bool byBits = false;
};
const WholeRangeCase kWholeRange[] = {
    // exp's reduced argument reaches +-ln2/2 at these.
    {"exp", [](long double x) { return expl(x); }, -106, 90, 1.0, {0.3465f, -0.3466f}},
    {"exp2", [](long double x) { return exp2l(x); }, -152, 130, 1.0, {0.3465f, -0.3466f}},
    // 1/(1+exp(-x)): exp's error, the add's and the divide's roundings.
    {"sigmoid",
     [](long double x) { return 1.0L / (1.0L + expl(-x)); },
     -110,
     110,
     2.5,
     {0.3465f, -0.3466f}},
    // Every binade, subnormals included; m - 1 changes sign at 1 and the
    // reduction switches binade at sqrt(1/2). Negative inputs are specials.
    {"log",
     [](long double x) { return logl(x); },
     0,
     std::numeric_limits<float>::max(),
     1.0,
     {0x1.6a09p-1f, 0x1.fff8p-1f},
     true},
    // The polynomial gives way to 1 - 2 / (exp(2|x|) + 1) at 0.75.
    {"tanh", [](long double x) { return tanhl(x); }, -12, 12, 1.1, {0.7497f, -0.7503f}},
    // The polynomial gives way to 1 - exp(log erfc) at 0.921875, and erf
    // rounds to 1 past 3.92.
    {"erf", [](long double x) { return erfl(x); }, -5, 5, 1.1, {0.9217f, -3.9383f}},
};

void PrintTo(const WholeRangeCase &c, std::ostream *os) {
  *os << c.op;
}

class MathWholeRange : public ::testing::TestWithParam<std::tuple<WholeRangeCase, bool>> {};

TEST_P(MathWholeRange, WithinBoundEverywhere) {
  auto [c, sleef] = GetParam();
  std::string source = "kernel @k(%px: ptr<f32>, %pz: ptr<f32>) {\n"
                       "  %pid = program_id 0\n  %b = const 1024 : i32\n"
                       "  %start = mul %pid, %b\n  %r = arange 0, 1024\n"
                       "  %offs = add %start, %r\n  %xp = addptr %px, %offs\n"
                       "  %x = load %xp\n  %z = " +
                       std::string(c.op) + " %x\n  %zp = addptr %pz, %offs\n  store %zp, %z\n}\n";
  CompileOptions options;
  options.sleefMath = sleef;
  auto module = test::compileWithOptionsOrFail(source, options);
  ASSERT_TRUE(module);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.f,
                          -0.f,
                          inf,
                          -inf,
                          std::numeric_limits<float>::quiet_NaN(),
                          1e-30f,
                          -1e-30f,
                          std::numeric_limits<float>::denorm_min(),
                          88.72283f,
                          88.72284f,
                          -87.33654f,
                          -103.97208f,
                          127.99999f,
                          128.f,
                          -149.f,
                          -150.f,
                          1e30f,
                          -1e30f,
                          1.f,
                          -1.f,
                          std::numeric_limits<float>::min(),
                          -std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max()};
  // Evenly spaced across the range, then 4096 consecutive floats at a few
  // places: the case's edges, and near each end.
  const int steps = 150000;
  for (int i = 0; i < steps; ++i) {
    if (c.byBits) {
      uint32_t lo, hi;
      std::memcpy(&lo, &c.lo, 4);
      std::memcpy(&hi, &c.hi, 4);
      uint32_t bits = lo + uint32_t(uint64_t(hi - lo) * i / steps);
      float v;
      std::memcpy(&v, &bits, 4);
      x.push_back(v);
    } else {
      x.push_back(c.lo + (c.hi - c.lo) * float(i) / steps);
    }
  }
  // Also across the bounds of the inline exp's short path (exp's and exp2's
  // inputs whose result and scale are normal floats): strips there mix lanes
  // of both paths.
  std::vector<float> starts = {c.edges[0], c.edges[1], c.hi - 3.f, c.lo + 1.f};
  for (float bound : {-86.f, 88.f, -125.f, 127.f})
    if (bound - 0.01f > c.lo && bound + 0.01f < c.hi)
      starts.push_back(std::nextafter(bound, -inf) - 2048 * (std::nextafter(bound, inf) - bound));
  for (float start : starts) {
    float v = start;
    for (int i = 0; i < 4096; ++i, v = std::nextafter(v, inf))
      x.push_back(v);
  }
  while (x.size() % 1024 != 0)
    x.push_back(0.5f);
  std::vector<float> z(x.size());
  test::launch(module->kernels()[0], {int64_t(x.size() / 1024), 1, 1}, {x, z});
  double worst = 0;
  size_t worstAt = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    long double want = c.reference(x[i]);
    if (fabsl(want) > std::numeric_limits<float>::max())
      want = want > 0 ? INFINITY : -INFINITY;
    double err = ulpError(z[i], want);
    if (err > worst)
      worst = err, worstAt = i;
  }
  EXPECT_LE(worst, c.ulpBound) << c.op << (sleef ? " (SLEEF)" : " (inline)") << ": x=" << x[worstAt]
                               << " got " << z[worstAt] << " want "
                               << double(c.reference(x[worstAt]));
  RecordProperty("max_ulp", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(Ops, MathWholeRange,
                         ::testing::Combine(::testing::ValuesIn(kWholeRange), ::testing::Bool()),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).op) +
                                  (std::get<1>(info.param) ? "_sleef" : "");
                         });

// The Bessel functions are libm's, one call per lane (scalable strips
// through stack slots). Near their zeros a relative bound means nothing, so
// the error is measured in ULP of the result or of 1, whichever is larger:
// glibc's float versions stay within a few of those against long double.
struct BesselCase {
  const char *op;
  long double (*reference)(long double);
  int order; // -1: j0, j1, y0, y1; else jn / yn of that order
};
const BesselCase kBessel[] = {
    {"j0", [](long double x) { return j0l(x); }, -1},
    {"j1", [](long double x) { return j1l(x); }, -1},
    {"y0", [](long double x) { return y0l(x); }, -1},
    {"y1", [](long double x) { return y1l(x); }, -1},
    {"jn", [](long double x) { return jnl(3, x); }, 3},
    {"yn", [](long double x) { return ynl(2, x); }, 2},
};

void PrintTo(const BesselCase &c, std::ostream *os) {
  *os << c.op;
}

class Bessel : public ::testing::TestWithParam<BesselCase> {};

TEST_P(Bessel, LibmOnEveryLane) {
  const BesselCase c = GetParam();
  std::string call = c.order < 0 ? std::string(c.op) + " %x" : std::string(c.op) + " %n, %x";
  std::string source = "kernel @k(%px: ptr<f32>, %pz: ptr<f32>) {\n"
                       "  %pid = program_id 0\n  %b = const 256 : i32\n"
                       "  %start = mul %pid, %b\n  %r = arange 0, 256\n"
                       "  %offs = add %start, %r\n  %xp = addptr %px, %offs\n"
                       "  %x = load %xp\n  %n = const " +
                       std::to_string(std::max(c.order, 0)) + ".0 : f32\n  %z = " + call +
                       "\n  %zp = addptr %pz, %offs\n  store %zp, %z\n}\n";
  auto module = test::compileOrFail(source);
  ASSERT_TRUE(module);
  std::vector<float> x = {0.f,
                          std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          1e-20f,
                          2.4048255f,
                          3.8317060f};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(0.01f, 60.f);
  while (x.size() < 4096)
    x.push_back(dist(rng));
  std::vector<float> z(x.size());
  test::launch(module->kernels()[0], {int64_t(x.size() / 256), 1, 1}, {x, z});
  double worst = 0;
  size_t worstAt = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    long double want = c.reference(x[i]);
    if (fabsl(want) > std::numeric_limits<float>::max()) // overflows float
      want = want > 0 ? INFINITY : -INFINITY;
    double err;
    if (std::isnan(want) || std::isinf(want))
      err = (std::isnan(want) && std::isnan(z[i])) || float(want) == z[i] ? 0 : INFINITY;
    else
      err = double(fabsl((long double)z[i] - want) / std::max(fabsl(want), 1.0L) /
                   std::numeric_limits<float>::epsilon());
    if (err > worst)
      worst = err, worstAt = i;
  }
  EXPECT_LE(worst, 8.0) << c.op << ": x=" << x[worstAt] << " got " << z[worstAt] << " want "
                        << double(c.reference(x[worstAt]));
  RecordProperty("max_ulp_of_max_1", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(Ops, Bessel, ::testing::ValuesIn(kBessel),
                         [](const auto &info) { return std::string(info.param.op); });

TEST(SleefTable, NamesFollowSleefConvention) {
  Target v4, rvv, sve, neon;
  std::string error;
  ASSERT_TRUE(lookupTarget("x86-64-v4", v4, error));
  ASSERT_TRUE(lookupTarget("rv64gcv", rvv, error));
  ASSERT_TRUE(lookupTarget("armv8.2-a+sve", sve, error));
  ASSERT_TRUE(lookupTarget("armv8-a", neon, error));
  EXPECT_EQ(sleefVectorName(MathFn::Exp, ScalarKind::F32, 16, false, v4, false),
            "Sleef_expf16_u10avx512f");
  EXPECT_EQ(sleefVectorName(MathFn::Log, ScalarKind::F64, 8, false, v4, true),
            "Sleef_logd8_u35avx512f");
  // RVV: the register group is part of the key (vscale x 2 f32 is m1).
  EXPECT_EQ(sleefVectorName(MathFn::Exp, ScalarKind::F32, 2, true, rvv, false),
            "Sleef_expfx_u10rvvm1");
  EXPECT_EQ(sleefVectorName(MathFn::Exp, ScalarKind::F32, 4, true, rvv, false),
            "Sleef_expfx_u10rvvm2");
  EXPECT_EQ(sleefVectorName(MathFn::Tanh, ScalarKind::F64, 2, true, rvv, false),
            "Sleef_tanhdx_u10rvvm2");
  EXPECT_FALSE(sleefVectorName(MathFn::Exp, ScalarKind::F32, 8, true, rvv, false).has_value());
  // SVE's variant takes exactly one register: vscale x 128 bits.
  EXPECT_EQ(sleefVectorName(MathFn::Erf, ScalarKind::F32, 4, true, sve, false),
            "Sleef_erffx_u10sve");
  EXPECT_EQ(sleefVectorName(MathFn::Exp, ScalarKind::F64, 2, true, sve, false),
            "Sleef_expdx_u10sve");
  EXPECT_FALSE(sleefVectorName(MathFn::Exp, ScalarKind::F64, 4, true, sve, false).has_value());
  EXPECT_EQ(sleefVectorName(MathFn::Exp, ScalarKind::F32, 4, false, neon, false),
            "Sleef_expf4_u10advsimd");
  EXPECT_FALSE(sleefVectorName(MathFn::Exp, ScalarKind::F32, 4, true, neon, false).has_value());
  EXPECT_FALSE(sleefVectorName(MathFn::Exp, ScalarKind::F32, 32, false, v4, false).has_value());
  EXPECT_FALSE(sleefVectorName(MathFn::Exp, ScalarKind::F16, 16, false, v4, false).has_value());
}

} // namespace
