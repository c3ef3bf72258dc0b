//===- XsimdBaselines.h - Hand-written SIMD kernels with xsimd --*- C++ -*-===//
//
// What a careful C++ engineer writes instead of using a kernel compiler:
// xsimd batches of the widest vectors this build's ISA has (-O3
// -march=native), xsimd's own vector exp and erf, vector partial sums, a
// scalar tail. The same signatures and results as Baselines.h's loops.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace blockc::bench {

void xsimdAdd(const float *a, const float *b, float *c, int64_t begin, int64_t end);
void xsimdSoftmax(const float *in, float *out, int64_t cols, int64_t rowBegin, int64_t rowEnd);
void xsimdLayerNorm(const float *in, float *out, const float *w, const float *b, float *mean,
                    float *rstd, int64_t cols, float eps, int64_t rowBegin, int64_t rowEnd);
void xsimdRmsNorm(const float *in, float *out, const float *w, float *rstd, int64_t cols, float eps,
                  int64_t rowBegin, int64_t rowEnd);
void xsimdGelu(const float *in, float *out, int64_t begin, int64_t end);

} // namespace blockc::bench
