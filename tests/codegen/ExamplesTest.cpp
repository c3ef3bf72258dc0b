// Every kernel in examples/, launched as its header comment says, against C++
// references that accumulate in double. Tolerances come from the f32 error bounds
// of what each kernel computes (u = 2^-24, the unit roundoff of f32); a sum of
// terms in any order, with or without fma, is within gamma_k = k*u/(1 - k*u)
// times the sum of the terms' magnitudes, where k is the longest chain of
// additions any element goes through.
#include "ExampleTesting.h"

#include <array>

using namespace blockc;
using namespace blockc::test;

namespace {

// f32 addition is exactly rounded, so c must equal a + b bit for bit.
TEST(Examples, VectorAdd) {
  for (const char *block : {"1024", "256"}) {
    auto module = compileOrFail(example("vector_add"), {{"BLOCK", block}});
    ASSERT_TRUE(module);
    int b = std::stoi(block);
    for (int n : {1, 7, 1023, 1025, 4097, 100000}) {
      std::vector<float> x = randomFloats(n, -100, 100, n), y = randomFloats(n, -100, 100, n + 1),
                         z(n + 8, kUntouched);
      launch(module->kernels()[0], {cdiv(n, b), 1, 1}, {x, y, z, n});
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(z[i], x[i] + y[i]) << "BLOCK=" << block << " n=" << n << " i=" << i;
      for (int i = n; i < n + 8; ++i)
        ASSERT_EQ(z[i], kUntouched) << "BLOCK=" << block << " n=" << n;
    }
  }
}

// Softmax of M rows with padded row strides, rows up to 12 blocks long.
// The reference forms x - max in f32 as the kernel does (exact inputs to exp),
// then works in double. Error: exp is SLEEF's 1-ulp function (<= 2u relative);
// each row sum adds positive terms, at most n/BLOCK + BLOCK = 268 in a chain for
// 3000 columns and BLOCK 256, so <= gamma_268 ~ 1.6e-5 relative; normalizing (a
// reciprocal and a product) adds 2u. rtol = 2 * (gamma_k + 4u): the bound, twice.
TEST(Examples, Softmax) {
  for (const char *block : {"256", "1024"}) {
    auto module = compileOrFail(example("softmax"), {{"BLOCK", block}});
    ASSERT_TRUE(module);
    int b = std::stoi(block);
    for (int32_t cols : {1, 7, 256, 257, 1000, 3000}) {
      int rows = 5;
      int32_t inStride = cols + 3, outStride = cols + 5;
      std::vector<float> in = randomFloats(size_t(rows) * inStride, -10, 10, cols);
      std::vector<float> out(size_t(rows) * outStride, kUntouched);
      launch(module->kernels()[0], {rows, 1, 1}, {out, in, inStride, outStride, cols});
      double rtol = 2 * (gammaK(cols / b + b) + 4 * kU);
      for (int r = 0; r < rows; ++r) {
        std::vector<double> p = softmaxReference(&in[size_t(r) * inStride], cols);
        for (int j = 0; j < outStride; ++j) {
          float got = out[size_t(r) * outStride + j];
          if (j >= cols) {
            ASSERT_EQ(got, kUntouched) << "wrote padding: row " << r << " col " << j;
            continue;
          }
          double want = p[j];
          ASSERT_NEAR(got, want, rtol * want)
              << "BLOCK=" << block << " cols=" << cols << " row " << r << " col " << j;
        }
      }
    }
  }
}

// Layer norm over rows longer than a block, x in [5, 15] (a mean far from 0).
// The mean's sum runs through at most n/BLOCK + BLOCK = 268 additions (3000
// columns, BLOCK 256), so the mean is within gamma_268 * 15 ~ 2.4e-4. The
// variance sums squares of centred values: an error e in the mean changes it only
// by e^2 (the first-order term sums to zero), so it is within gamma_268 + 2u
// relative and rstd within half that plus 2u, ~1e-5. An output
// (x - mean) * rstd * w + b with w <= 1.5 and rstd ~ 0.35 is then within
// 1.5 * 0.35 * (2.4e-4 + 1e-5 * 5) + 4u|y| ~ 1.6e-4. Checked: mean and y to 4e-4,
// rstd to 4e-5 relative (both about 2x the bound).
TEST(Examples, LayerNorm) {
  for (const char *block : {"256", "1024"}) {
    auto module = compileOrFail(example("layer_norm"), {{"BLOCK", block}});
    ASSERT_TRUE(module);
    for (int32_t n : {1, 7, 256, 1000, 3000}) {
      int rows = 4;
      int32_t stride = n + 2;
      std::vector<float> x = randomFloats(size_t(rows) * stride, 5, 15, n), y(x.size(), kUntouched);
      std::vector<float> w = randomFloats(n, 0.5f, 1.5f, n + 1), b = randomFloats(n, -1, 1, n + 2);
      std::vector<float> mean(rows + 1, kUntouched), rstd(rows + 1, kUntouched);
      float eps = 1e-5f;
      launch(module->kernels()[0], {rows, 1, 1}, {x, y, w, b, mean, rstd, stride, n, eps});
      for (int r = 0; r < rows; ++r) {
        const float *row = &x[size_t(r) * stride];
        double mu = 0, var = 0;
        for (int j = 0; j < n; ++j)
          mu += row[j];
        mu /= n;
        for (int j = 0; j < n; ++j)
          var += (row[j] - mu) * (row[j] - mu);
        var /= n;
        double rs = 1 / std::sqrt(var + double(eps));
        std::string where =
            std::string("BLOCK=") + block + " n=" + std::to_string(n) + " row " + std::to_string(r);
        EXPECT_NEAR(mean[r], mu, 4e-4) << where;
        EXPECT_NEAR(rstd[r], rs, 4e-5 * rs) << where;
        for (int j = 0; j < stride; ++j) {
          float got = y[size_t(r) * stride + j];
          if (j >= n) {
            ASSERT_EQ(got, kUntouched) << where << " wrote padding at " << j;
            continue;
          }
          ASSERT_NEAR(got, (row[j] - mu) * rs * w[j] + b[j], 4e-4) << where << " col " << j;
        }
      }
      EXPECT_EQ(mean[rows], kUntouched);
      EXPECT_EQ(rstd[rows], kUntouched);
    }
  }
}

/// The product of an M x K and a K x N matrix in double, and the error bound
/// gamma_K * sum_k |a_ik b_kj| of any f32 evaluation of each element.
struct Product {
  std::vector<double> value, bound;
};
Product naiveProduct(const float *a, int sam, int sak, const float *b, int sbk, int sbn, int m,
                     int n, int k) {
  Product p{std::vector<double>(size_t(m) * n), std::vector<double>(size_t(m) * n)};
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0, mag = 0;
      for (int q = 0; q < k; ++q) {
        double t =
            double(a[size_t(i) * sam + size_t(q) * sak]) * b[size_t(q) * sbk + size_t(j) * sbn];
        s += t, mag += std::fabs(t);
      }
      p.value[size_t(i) * n + j] = s;
      p.bound[size_t(i) * n + j] = gammaK(k) * mag;
    }
  return p;
}

// Matmul with odd M, N, K, A row-major with a padded row, B read transposed
// through its strides, C padded. Each element is within gamma_K * sum|a b| of
// the exact product whatever the summation order (the bound the docs' "results
// can differ in the last bits" comes down to); the check allows that plus 1e-6.
TEST(Examples, Matmul) {
  const ConstexprBindings configs[] = {
      {}, {{"BLOCK_M", "32"}, {"BLOCK_N", "16"}, {"BLOCK_K", "8"}, {"GROUP_M", "3"}}};
  for (const auto &defines : configs) {
    auto module = compileOrFail(example("matmul"), defines);
    ASSERT_TRUE(module);
    int bm = defines.empty() ? 64 : 32, bn = defines.empty() ? 128 : 16;
    // Strides are arguments: each operand both contiguous along its last
    // dimension (stride 1 when the kernel runs: vector loads and stores) and
    // transposed (any other stride: gathers and scatters).
    for (bool transposed : {false, true})
      for (auto [m, n, k] :
           {std::array<int32_t, 3>{65, 77, 91}, {1, 1, 1}, {128, 64, 32}, {7, 130, 5}}) {
        int32_t sam = k + 3, sak = 1, sbk = 1, sbn = k + 5, scm = n + 2, scn = 1;
        if (transposed) {
          sam = 1, sak = m + 2, sbk = n + 1, sbn = 1, scm = 1, scn = m + 3;
        }
        std::vector<float> a = randomFloats(size_t(std::max(m * sam, k * sak)), -1, 1, m),
                           b = randomFloats(size_t(std::max(k * sbk, n * sbn)), -1, 1, n);
        size_t cSize = size_t(std::max(m * scm, n * scn));
        std::vector<float> c(cSize, kUntouched);
        launch(module->kernels()[0], {cdiv(m, bm) * cdiv(n, bn), 1, 1},
               {a, b, c, m, n, k, sam, sak, sbk, sbn, scm, scn});
        Product want = naiveProduct(a.data(), sam, sak, b.data(), sbk, sbn, m, n, k);
        std::vector<bool> written(cSize, false);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            size_t at = size_t(i) * scm + size_t(j) * scn;
            written[at] = true;
            size_t e = size_t(i) * n + j;
            ASSERT_NEAR(c[at], want.value[e], want.bound[e] + 1e-6)
                << m << "x" << n << "x" << k << (transposed ? " transposed" : "") << " at " << i
                << "," << j;
          }
        for (size_t at = 0; at < cSize; ++at)
          if (!written[at])
            ASSERT_EQ(c[at], kUntouched) << "wrote padding at " << at;
      }
  }
}

// Fused matmul + row softmax, N <= BLOCK_N. A logit error of d changes each
// probability by a relative factor of at most e^(2d) - 1 ~ 2d, with d the row's
// largest gamma_K * sum|a b|; exp, the row sum (at most BLOCK_N = 256 positive
// terms) and the division add gamma_256 + 4u. rtol = 2 * (2d + gamma_256 + 4u).
TEST(Examples, MatmulSoftmax) {
  auto module = compileOrFail(example("matmul_softmax"));
  ASSERT_TRUE(module);
  for (auto [m, n, k] :
       {std::array<int32_t, 3>{37, 200, 45}, {16, 256, 32}, {5, 1, 7}, {33, 129, 1}}) {
    int32_t sam = 1, sak = m + 1, sbk = n + 4, sbn = 1, scm = n + 3, scn = 1;
    std::vector<float> a = randomFloats(size_t(k) * sak, -1, 1, m),
                       b = randomFloats(size_t(k) * sbk, -1, 1, n);
    std::vector<float> c(size_t(m + 2) * scm, kUntouched);
    launch(module->kernels()[0], {cdiv(m, 64), 1, 1},
           {a, b, c, m, n, k, sam, sak, sbk, sbn, scm, scn});
    Product logits = naiveProduct(a.data(), sam, sak, b.data(), sbk, sbn, m, n, k);
    for (int i = 0; i < m + 2; ++i) {
      const double *row = &logits.value[size_t(std::min(i, m - 1)) * n];
      double mx = *std::max_element(row, row + n), sum = 0, d = 0;
      for (int j = 0; j < n; ++j)
        sum += std::exp(row[j] - mx),
            d = std::max(d, logits.bound[size_t(std::min(i, m - 1)) * n + j]);
      double rtol = 2 * (2 * d + gammaK(256) + 4 * kU);
      for (int j = 0; j < scm; ++j) {
        float got = c[size_t(i) * scm + j];
        if (i >= m || j >= n) {
          ASSERT_EQ(got, kUntouched) << "wrote outside C at " << i << "," << j;
          continue;
        }
        double want = std::exp(row[j] - mx) / sum;
        ASSERT_NEAR(got, want, rtol * want) << m << "x" << n << "x" << k << " at " << i << "," << j;
      }
    }
  }
}

} // namespace
