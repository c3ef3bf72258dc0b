//===- XsimdBaselines.cpp - Hand-written SIMD kernels with xsimd ----------===//
#include "XsimdBaselines.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

namespace blockc::bench {

namespace {

using Batch = xsimd::batch<float>;
constexpr int64_t kLanes = int64_t(Batch::size);

Batch load(const float *p) {
  return Batch::load_unaligned(p);
}

float laneMax(Batch v) {
  alignas(64) float lanes[Batch::size];
  v.store_aligned(lanes);
  return *std::max_element(lanes, lanes + Batch::size);
}

/// The sum of a row, in vector partial sums.
float rowSum(const float *x, int64_t cols) {
  Batch sum(0.f);
  int64_t i = 0;
  for (; i + kLanes <= cols; i += kLanes)
    sum += load(x + i);
  float total = xsimd::hadd(sum);
  for (; i < cols; ++i)
    total += x[i];
  return total;
}

} // namespace

void xsimdAdd(const float *a, const float *b, float *c, int64_t begin, int64_t end) {
  int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes)
    (load(a + i) + load(b + i)).store_unaligned(c + i);
  for (; i < end; ++i)
    c[i] = a[i] + b[i];
}

void xsimdSoftmax(const float *in, float *out, int64_t cols, int64_t rowBegin, int64_t rowEnd) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    Batch m(-std::numeric_limits<float>::infinity());
    int64_t i = 0;
    for (; i + kLanes <= cols; i += kLanes)
      m = xsimd::max(m, load(x + i));
    float rowMax = laneMax(m);
    for (; i < cols; ++i)
      rowMax = std::max(rowMax, x[i]);
    Batch sum(0.f), shift(rowMax);
    i = 0;
    for (; i + kLanes <= cols; i += kLanes) {
      Batch e = xsimd::exp(load(x + i) - shift);
      e.store_unaligned(y + i);
      sum += e;
    }
    float total = xsimd::hadd(sum);
    for (; i < cols; ++i)
      total += y[i] = std::exp(x[i] - rowMax);
    const float inverse = 1.f / total;
    i = 0;
    for (; i + kLanes <= cols; i += kLanes)
      (load(y + i) * Batch(inverse)).store_unaligned(y + i);
    for (; i < cols; ++i)
      y[i] *= inverse;
  }
}

void xsimdLayerNorm(const float *in, float *out, const float *w, const float *b, float *mean,
                    float *rstd, int64_t cols, float eps, int64_t rowBegin, int64_t rowEnd) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    const float mu = rowSum(x, cols) / float(cols);
    Batch centre(mu), squares(0.f);
    int64_t i = 0;
    for (; i + kLanes <= cols; i += kLanes) {
      Batch d = load(x + i) - centre;
      squares = xsimd::fma(d, d, squares);
    }
    float variance = xsimd::hadd(squares);
    for (; i < cols; ++i)
      variance += (x[i] - mu) * (x[i] - mu);
    const float scale = 1.f / std::sqrt(variance / float(cols) + eps);
    mean[r] = mu;
    rstd[r] = scale;
    Batch s(scale);
    i = 0;
    for (; i + kLanes <= cols; i += kLanes)
      xsimd::fma((load(x + i) - centre) * s, load(w + i), load(b + i)).store_unaligned(y + i);
    for (; i < cols; ++i)
      y[i] = (x[i] - mu) * scale * w[i] + b[i];
  }
}

void xsimdRmsNorm(const float *in, float *out, const float *w, float *rstd, int64_t cols, float eps,
                  int64_t rowBegin, int64_t rowEnd) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    Batch squares(0.f);
    int64_t i = 0;
    for (; i + kLanes <= cols; i += kLanes) {
      Batch v = load(x + i);
      squares = xsimd::fma(v, v, squares);
    }
    float sum = xsimd::hadd(squares);
    for (; i < cols; ++i)
      sum += x[i] * x[i];
    const float scale = 1.f / std::sqrt(sum / float(cols) + eps);
    rstd[r] = scale;
    Batch s(scale);
    i = 0;
    for (; i + kLanes <= cols; i += kLanes)
      (load(x + i) * s * load(w + i)).store_unaligned(y + i);
    for (; i < cols; ++i)
      y[i] = x[i] * scale * w[i];
  }
}

void xsimdGelu(const float *in, float *out, int64_t begin, int64_t end) {
  const float invSqrt2 = 0.70710678118654752f;
  int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    Batch x = load(in + i);
    (Batch(0.5f) * x * (Batch(1.f) + xsimd::erf(x * Batch(invSqrt2)))).store_unaligned(out + i);
  }
  for (; i < end; ++i)
    out[i] = 0.5f * in[i] * (1.f + std::erf(in[i] * invSqrt2));
}

} // namespace blockc::bench
