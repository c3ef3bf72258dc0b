// fused_softmax, rms_norm and gelu from examples/, launched as their header
// comments say, against C++ references in double; the same helpers and style as
// ExamplesTest.cpp. Tolerances come from the f32 error bounds of what each kernel
// computes (u = 2^-24, the unit roundoff of f32): a sum of k terms in any order,
// with or without fma, is within gamma_k = k*u/(1 - k*u) times the sum of the
// terms' magnitudes; a SLEEF 1-ulp function is within 2u of its exact value
// (an ulp is at most 2u relative); each check allows about twice its bound.
#include "ExampleTesting.h"

#include <algorithm>

using namespace blockc;
using namespace blockc::test;

namespace {

// Softmax of M rows, each whole in one block (n_cols <= BLOCK), with padded row
// strides. The maximum is exact and the reference forms x - max in f32 as the
// kernel does (exact inputs to exp), then works in double. Error: exp is SLEEF's
// 1-ulp function (<= 2u relative on each numerator); the row sum adds n_cols
// positive terms (the masked lanes' exp(-inf) = 0 add nothing), so the
// denominator is within 2u + gamma_n_cols; the division, even as a reciprocal and
// a product, adds 2u. rtol = 2 * (gamma_n_cols + 6u): the bound, twice.
TEST(Examples, FusedSoftmax) {
  struct Config {
    const char *block;
    std::vector<int32_t> cols;
  };
  for (const Config &config : {Config{"256", {1, 7, 200, 256}}, Config{"1024", {1000, 1024}}}) {
    auto module = compileOrFail(example("fused_softmax"), {{"BLOCK", config.block}});
    ASSERT_TRUE(module);
    for (int32_t cols : config.cols) {
      int rows = 5;
      int32_t inStride = cols + 3, outStride = cols + 5;
      std::vector<float> in = randomFloats(size_t(rows) * inStride, -10, 10, cols);
      std::vector<float> out(size_t(rows) * outStride, kUntouched);
      launch(module->kernels()[0], {rows, 1, 1}, {out, in, inStride, outStride, cols});
      double rtol = 2 * (gammaK(cols) + 6 * kU);
      for (int r = 0; r < rows; ++r) {
        std::vector<double> p = softmaxReference(&in[size_t(r) * inStride], cols);
        for (int j = 0; j < outStride; ++j) {
          float got = out[size_t(r) * outStride + j];
          if (j >= cols) {
            ASSERT_EQ(got, kUntouched) << "BLOCK=" << config.block << " cols=" << cols
                                       << " wrote padding: row " << r << " col " << j;
            continue;
          }
          double want = p[j];
          ASSERT_NEAR(got, want, rtol * want)
              << "BLOCK=" << config.block << " cols=" << cols << " row " << r << " col " << j;
        }
      }
    }
  }
}

// RMS norm of M rows, each whole in one block (n <= BLOCK), padded stride, x in
// [-1, 3] (a mean of 1, not 0), w in [-1, 1]. Error: the squares (u each) and
// their sum of n positive terms (masked lanes add 0) are within gamma_n; the
// division by n (exact as f32) and the add of eps add 2u; rsqrt, 1/sqrt(x) in two
// correctly rounded steps, halves that and adds 2u: rstd is within
// gamma_n/2 + 3u relative. y = x * rstd * w adds two products' 2u: within
// gamma_n/2 + 5u. Checked: rstd to gamma_n + 6u, y to gamma_n + 10u relative
// (twice the bounds).
TEST(Examples, RmsNorm) {
  struct Config {
    const char *block;
    std::vector<int32_t> ns;
  };
  for (const Config &config : {Config{"256", {1, 7, 255, 256}}, Config{"1024", {1000, 1024}}}) {
    auto module = compileOrFail(example("rms_norm"), {{"BLOCK", config.block}});
    ASSERT_TRUE(module);
    for (int32_t n : config.ns) {
      int rows = 4;
      int32_t stride = n + 2;
      std::vector<float> x = randomFloats(size_t(rows) * stride, -1, 3, n), y(x.size(), kUntouched);
      std::vector<float> w = randomFloats(n, -1, 1, n + 1);
      std::vector<float> rstd(rows + 1, kUntouched);
      float eps = 1e-6f;
      launch(module->kernels()[0], {rows, 1, 1}, {y, x, w, rstd, stride, n, eps});
      double rtolRstd = gammaK(n) + 6 * kU, rtolY = gammaK(n) + 10 * kU;
      for (int r = 0; r < rows; ++r) {
        const float *row = &x[size_t(r) * stride];
        double squares = 0;
        for (int j = 0; j < n; ++j)
          squares += double(row[j]) * row[j];
        double rs = 1 / std::sqrt(squares / n + double(eps));
        std::string where = std::string("BLOCK=") + config.block + " n=" + std::to_string(n) +
                            " row " + std::to_string(r);
        EXPECT_NEAR(rstd[r], rs, rtolRstd * rs) << where;
        for (int j = 0; j < stride; ++j) {
          float got = y[size_t(r) * stride + j];
          if (j >= n) {
            ASSERT_EQ(got, kUntouched) << where << " wrote padding at " << j;
            continue;
          }
          double want = row[j] * rs * w[j];
          ASSERT_NEAR(got, want, rtolY * std::fabs(want)) << where << " col " << j;
        }
      }
      EXPECT_EQ(rstd[rows], kUntouched) << "BLOCK=" << config.block << " n=" << n;
    }
  }
}

// GELU, y = x/2 * (1 + erf(x/sqrt(2))), x in [-10, 10] (the first half of each
// input scaled into [-1.25, 1.25], where blockc's erf takes its polynomial alone)
// and a few edge values, against `tolerance(x, want, erf)`.
void checkGelu(const char *name, double (*tolerance)(double x, double want, double erf)) {
  for (const char *block : {"4096", "256"}) {
    auto module = compileOrFail(example(name), {{"BLOCK", block}});
    ASSERT_TRUE(module);
    int b = std::stoi(block);
    for (int n : {1, 7, 4096, 4097, 100000}) {
      std::vector<float> x = randomFloats(n, -10, 10, n), y(n + 8, kUntouched);
      for (int i = 0; i < n / 2; ++i)
        x[i] /= 8;
      if (n >= 4096) {
        const float edges[] = {0.f, -0.f, 1e-20f, -1e-20f, 1e-3f, -1e-3f, 30.f, -30.f};
        std::copy(std::begin(edges), std::end(edges), x.begin() + n / 2);
      }
      launch(module->kernels()[0], {cdiv(n, b), 1, 1}, {y, x, n});
      for (int i = 0; i < n; ++i) {
        double xi = x[i], erfTerm = std::erf(xi / std::sqrt(2.0));
        double want = 0.5 * xi * (1 + erfTerm);
        ASSERT_NEAR(y[i], want, tolerance(xi, want, erfTerm))
            << name << " BLOCK=" << block << " n=" << n << " x[" << i << "]=" << x[i];
      }
      for (int i = n; i < n + 8; ++i)
        ASSERT_EQ(y[i], kUntouched) << name << " BLOCK=" << block << " n=" << n << " wrote " << i;
    }
  }
}

// gelu.bir computes erf as Abramowitz and Stegun's 7.1.26 (as PyTorch's CPU
// kernels do), within 1.5e-7 of erf in exact arithmetic. Its f32 evaluation
// adds a few ulps of the tail term r(t) exp(-z^2) <= 1 (the division, four
// fmas, the 1-ulp exp, and exp's sensitivity to z^2's rounding, 4u z^2,
// which the tail's exp(-z^2) keeps below 2u): at most 16u in all, so
// |erf error| <= 1.5e-7 + 16u. The final add and product round by 2u|y|; x/2 is
// exact. So |y - want| <= |x|/2 (1.5e-7 + 16u) + 2u|y|, checked at twice that.
TEST(Examples, Gelu) {
  checkGelu("gelu", [](double x, double want, double) {
    return 2 * (std::fabs(x) / 2 * (1.5e-7 + 16 * kU) + 2 * kU * std::fabs(want));
  });
}

// gelu_erf.bir calls blockc's erf, within 1.1 ulp (<= 2.2u |erf|) of erf at
// its f32 argument. That argument, x times 1/sqrt(2) rounded to f32 twice (the
// constant and the product), is within 2u|z| of z, which moves erf (slope <=
// 2/sqrt(pi)) by at most 2.3u|z|. 1 + erf rounds by u(1 + |erf|), the product
// by u|y|; x/2 is exact. Checked at twice the sum.
TEST(Examples, GeluErf) {
  checkGelu("gelu_erf", [](double x, double want, double erf) {
    double z = std::fabs(x) / std::sqrt(2.0), e = std::fabs(erf);
    return 2 *
           (std::fabs(x) / 2 * (2.2 * kU * e + 2.3 * kU * z + kU * (1 + e)) + kU * std::fabs(want));
  });
}

} // namespace
