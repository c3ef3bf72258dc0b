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

} // namespace blockc::bench
