//===- Baselines.cpp ------------------------------------------------------===//
#include "Baselines.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

} // namespace blockc::bench
