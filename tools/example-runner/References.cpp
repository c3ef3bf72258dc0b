//===- References.cpp -----------------------------------------------------===//
#include "References.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace blockc::reference {

std::vector<float> randomVector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

double maxRelativeError(const std::vector<float> &got, const std::vector<double> &want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double err = std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i]));
    worst = std::max(worst, std::isnan(got[i]) ? INFINITY : err);
  }
  return worst;
}

void vectorAdd(const float *a, const float *b, double *c, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    c[i] = double(a[i]) + double(b[i]);
}

namespace {
void softmaxRow(const double *x, double *y, int64_t cols) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < cols; ++j)
    m = std::max(m, x[j]);
  double sum = 0;
  for (int64_t j = 0; j < cols; ++j)
    sum += y[j] = std::exp(x[j] - m);
  for (int64_t j = 0; j < cols; ++j)
    y[j] /= sum;
}
} // namespace

void softmax(const float *x, double *y, int64_t rows, int64_t cols) {
  std::vector<double> row(cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j)
      row[j] = x[i * cols + j];
    softmaxRow(row.data(), y + i * cols, cols);
  }
}

void layerNorm(const float *x, const float *w, const float *b, double *y, double *mean,
               double *rstd, int64_t rows, int64_t cols, double eps) {
  for (int64_t i = 0; i < rows; ++i) {
    const float *r = x + i * cols;
    double mu = 0;
    for (int64_t j = 0; j < cols; ++j)
      mu += r[j];
    mu /= double(cols);
    double var = 0;
    for (int64_t j = 0; j < cols; ++j)
      var += (r[j] - mu) * (r[j] - mu);
    var /= double(cols);
    double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < cols; ++j)
      y[i * cols + j] = (r[j] - mu) * inv * w[j] + b[j];
    mean[i] = mu;
    rstd[i] = inv;
  }
}

void rmsNorm(const float *x, const float *w, double *y, double *rstd, int64_t rows, int64_t cols,
             double eps) {
  for (int64_t i = 0; i < rows; ++i) {
    const float *r = x + i * cols;
    double squares = 0;
    for (int64_t j = 0; j < cols; ++j)
      squares += double(r[j]) * r[j];
    double inv = 1.0 / std::sqrt(squares / double(cols) + eps);
    for (int64_t j = 0; j < cols; ++j)
      y[i * cols + j] = r[j] * inv * w[j];
    rstd[i] = inv;
  }
}

void gelu(const float *x, double *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = 0.5 * x[i] * (1 + std::erf(x[i] / std::sqrt(2.0)));
}

void matmul(const float *a, const float *b, double *c, int64_t m, int64_t n, int64_t k) {
  std::fill(c, c + m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += double(a[i * k + p]) * double(b[p * n + j]);
}

void matmulSoftmax(const float *a, const float *b, double *c, int64_t m, int64_t n, int64_t k) {
  std::vector<double> product(m * n);
  matmul(a, b, product.data(), m, n, k);
  for (int64_t i = 0; i < m; ++i)
    softmaxRow(product.data() + i * n, c + i * n, n);
}

} // namespace blockc::reference
