//===- References.h - Plain C++ versions of the bundled examples -*- C++ -*-===//
//
// Straightforward loops in double precision, written from the kernels'
// documented semantics rather than from their code, so they check it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <vector>

namespace blockc::reference {

void vectorAdd(const float *a, const float *b, double *c, int64_t n);
void softmax(const float *x, double *y, int64_t rows, int64_t cols);
void layerNorm(const float *x, const float *w, const float *b, double *y, double *mean,
               double *rstd, int64_t rows, int64_t cols, double eps);
/// C = A B with A MxK, B KxN, all row-major and contiguous.
void matmul(const float *a, const float *b, double *c, int64_t m, int64_t n, int64_t k);
/// C = softmax(A B) along each row.
void matmulSoftmax(const float *a, const float *b, double *c, int64_t m, int64_t n, int64_t k);

} // namespace blockc::reference
