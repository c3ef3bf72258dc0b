//===- References.h - Plain C++ versions of the bundled examples -*- C++ -*-===//
//
// Straightforward loops in double precision, written from the kernels'
// documented semantics rather than from their code, so they check it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace blockc::reference {

/// `n` floats uniform in [-1, 1), the same for the same seed on every machine
/// that runs the examples (the host JIT runner and the cross-built one).
std::vector<float> randomVector(size_t n, uint32_t seed);
/// The largest |got - want| / max(1, |want|); infinite where got is NaN.
double maxRelativeError(const std::vector<float> &got, const std::vector<double> &want);

void vectorAdd(const float *a, const float *b, double *c, int64_t n);
void softmax(const float *x, double *y, int64_t rows, int64_t cols);
void layerNorm(const float *x, const float *w, const float *b, double *y, double *mean,
               double *rstd, int64_t rows, int64_t cols, double eps);
/// y = x / sqrt(mean(x^2) + eps) * w along each row, and rstd = 1 / sqrt(mean(x^2) + eps).
void rmsNorm(const float *x, const float *w, double *y, double *rstd, int64_t rows, int64_t cols,
             double eps);
/// y = x / 2 * (1 + erf(x / sqrt(2))).
void gelu(const float *x, double *y, int64_t n);
/// C = A B with A MxK, B KxN, all row-major and contiguous.
void matmul(const float *a, const float *b, double *c, int64_t m, int64_t n, int64_t k);
/// C = softmax(A B) along each row.
void matmulSoftmax(const float *a, const float *b, double *c, int64_t m, int64_t n, int64_t k);

} // namespace blockc::reference
