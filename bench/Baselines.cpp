//===- Baselines.cpp ------------------------------------------------------===//
#include "Baselines.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>
#include <limits>
#include <sleef.h>

namespace blockc::bench {

void baselineAdd(const float *a, const float *b, float *c, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    c[i] = a[i] + b[i];
}

void baselineSoftmax(const float *in, float *out, int64_t cols, int64_t rowBegin, int64_t rowEnd) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < cols; ++i)
      m = std::max(m, x[i]);
    float sum = 0.f;
    for (int64_t i = 0; i < cols; ++i) {
      y[i] = std::exp(x[i] - m);
      sum += y[i];
    }
    float inv = 1.f / sum;
    for (int64_t i = 0; i < cols; ++i)
      y[i] *= inv;
  }
}

void baselineLayerNorm(const float *in, float *out, const float *w, const float *b, float *mean,
                       float *rstd, int64_t cols, float eps, int64_t rowBegin, int64_t rowEnd) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    float sum = 0.f;
    for (int64_t i = 0; i < cols; ++i)
      sum += x[i];
    float m = sum / float(cols);
    float squares = 0.f;
    for (int64_t i = 0; i < cols; ++i) {
      float d = x[i] - m;
      squares += d * d;
    }
    float rs = 1.f / std::sqrt(squares / float(cols) + eps);
    mean[r] = m;
    rstd[r] = rs;
    for (int64_t i = 0; i < cols; ++i)
      y[i] = (x[i] - m) * rs * w[i] + b[i];
  }
}

void baselineRmsNorm(const float *in, float *out, const float *w, float *rstd, int64_t cols,
                     float eps, int64_t rowBegin, int64_t rowEnd) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    float squares = 0.f;
    for (int64_t i = 0; i < cols; ++i)
      squares += x[i] * x[i];
    float rs = 1.f / std::sqrt(squares / float(cols) + eps);
    rstd[r] = rs;
    for (int64_t i = 0; i < cols; ++i)
      y[i] = x[i] * rs * w[i];
  }
}

void baselineGelu(const float *in, float *out, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    out[i] = in[i] * 0.5f * (1.f + std::erf(in[i] * 0.70710678118654752f));
}

#if defined(__AVX512F__)
using FloatVector = __m512;
constexpr int64_t kLanes = 16;
FloatVector loadVector(const float *p) {
  return _mm512_loadu_ps(p);
}
void storeVector(float *p, FloatVector v) {
  _mm512_storeu_ps(p, v);
}
FloatVector broadcast(float x) {
  return _mm512_set1_ps(x);
}
FloatVector maxOf(FloatVector a, FloatVector b) {
  return _mm512_max_ps(a, b);
}
FloatVector addOf(FloatVector a, FloatVector b) {
  return _mm512_add_ps(a, b);
}
FloatVector mulOf(FloatVector a, FloatVector b) {
  return _mm512_mul_ps(a, b);
}
FloatVector subOf(FloatVector a, FloatVector b) {
  return _mm512_sub_ps(a, b);
}
FloatVector expOf(FloatVector x) {
  return Sleef_expf16_u10avx512f(x);
}
float reduceMax(FloatVector v) {
  return _mm512_reduce_max_ps(v);
}
float reduceAdd(FloatVector v) {
  return _mm512_reduce_add_ps(v);
}
#else
using FloatVector = __m256;
constexpr int64_t kLanes = 8;
FloatVector loadVector(const float *p) {
  return _mm256_loadu_ps(p);
}
void storeVector(float *p, FloatVector v) {
  _mm256_storeu_ps(p, v);
}
FloatVector broadcast(float x) {
  return _mm256_set1_ps(x);
}
FloatVector maxOf(FloatVector a, FloatVector b) {
  return _mm256_max_ps(a, b);
}
FloatVector addOf(FloatVector a, FloatVector b) {
  return _mm256_add_ps(a, b);
}
FloatVector mulOf(FloatVector a, FloatVector b) {
  return _mm256_mul_ps(a, b);
}
FloatVector subOf(FloatVector a, FloatVector b) {
  return _mm256_sub_ps(a, b);
}
FloatVector expOf(FloatVector x) {
  return Sleef_expf8_u10avx2(x);
}
float reduceMax(FloatVector v) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  return *std::max_element(lanes, lanes + 8);
}
float reduceAdd(FloatVector v) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  float sum = 0;
  for (float x : lanes)
    sum += x;
  return sum;
}
#endif

void baselineSoftmaxSleef(const float *in, float *out, int64_t cols, int64_t rowBegin,
                          int64_t rowEnd) {
  const int64_t full = cols / kLanes * kLanes;
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    FloatVector m = broadcast(-std::numeric_limits<float>::infinity());
    for (int64_t i = 0; i < full; i += kLanes)
      m = maxOf(m, loadVector(x + i));
    float rowMax = reduceMax(m);
    for (int64_t i = full; i < cols; ++i)
      rowMax = std::max(rowMax, x[i]);
    FloatVector sum = broadcast(0.f), shift = broadcast(rowMax);
    for (int64_t i = 0; i < full; i += kLanes) {
      FloatVector e = expOf(subOf(loadVector(x + i), shift));
      storeVector(y + i, e);
      sum = addOf(sum, e);
    }
    float total = reduceAdd(sum);
    for (int64_t i = full; i < cols; ++i) {
      y[i] = std::exp(x[i] - rowMax);
      total += y[i];
    }
    FloatVector inv = broadcast(1.f / total);
    for (int64_t i = 0; i < full; i += kLanes)
      storeVector(y + i, mulOf(loadVector(y + i), inv));
    for (int64_t i = full; i < cols; ++i)
      y[i] *= 1.f / total;
  }
}

void baselineCumsumRows(const float *in, float *out, int64_t cols, int64_t rowBegin,
                        int64_t rowEnd) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    float running = 0.f;
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = running += in[r * cols + c];
  }
}

void baselineHistogram(const int32_t *values, int32_t *counts, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    ++counts[values[i]];
}

} // namespace blockc::bench
