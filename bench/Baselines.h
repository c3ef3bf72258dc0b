//===- Baselines.h - Plain C++ loops blockc is measured against -*- C++ -*-===//
//
// Compiled with -O3 for the host's ISA (-march=native), in their own file so
// the compiler auto-vectorizes them the way it would any user's loop.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace blockc::bench {

/// c = a + b over [begin, end).
void baselineAdd(const float *a, const float *b, float *c, int64_t begin, int64_t end);
/// Row-wise numerically stable softmax of rows [rowBegin, rowEnd).
void baselineSoftmax(const float *in, float *out, int64_t cols, int64_t rowBegin, int64_t rowEnd);
/// The same softmax as a C++ programmer would write it by hand for speed: the
/// widest vectors this build's ISA has, SLEEF's vector exp (1 ULP, the accuracy
/// blockc's exp has), and vector partial sums. The ratio of blockc against it
/// shows what blockc's code generation adds beyond calling SLEEF.
void baselineSoftmaxSleef(const float *in, float *out, int64_t cols, int64_t rowBegin,
                          int64_t rowEnd);
/// Row-wise layer normalization of rows [rowBegin, rowEnd): the mean, the
/// variance of the centred values, then y = (x - mean) * rstd * w + b, saving
/// each row's mean and rstd = 1 / sqrt(var + eps) as layer_norm.bir does.
void baselineLayerNorm(const float *in, float *out, const float *w, const float *b, float *mean,
                       float *rstd, int64_t cols, float eps, int64_t rowBegin, int64_t rowEnd);
/// Row-wise RMS normalization of rows [rowBegin, rowEnd):
/// y = x * rstd * w with rstd = 1 / sqrt(mean(x^2) + eps), saved per row.
void baselineRmsNorm(const float *in, float *out, const float *w, float *rstd, int64_t cols,
                     float eps, int64_t rowBegin, int64_t rowEnd);
/// Exact GELU over [begin, end): y = x / 2 * (1 + std::erf(x / sqrt(2))).
void baselineGelu(const float *in, float *out, int64_t begin, int64_t end);
/// Row-wise prefix sums of rows [rowBegin, rowEnd): out[r][c] = in[r][0] + ... + in[r][c].
void baselineCumsumRows(const float *in, float *out, int64_t cols, int64_t rowBegin,
                        int64_t rowEnd);
/// Adds one to counts[values[i]] for i in [begin, end): the caller's private counts.
void baselineHistogram(const int32_t *values, int32_t *counts, int64_t begin, int64_t end);

} // namespace blockc::bench
