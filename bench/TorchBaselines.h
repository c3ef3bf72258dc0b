//===- TorchBaselines.h - libtorch's CPU kernels as bench baselines -*- C++ -*-===//
//
// A plain interface, so that TorchBaselines.cpp alone sees libtorch's headers
// (and pays their compile time). Built only where CMake found libtorch, which
// then defines BLOCKC_BENCH_LIBTORCH for the benches that use it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>

namespace blockc::bench {

/// libtorch's intra-op thread count (at::set_num_threads).
void setTorchThreads(int threads);

/// ATen ops over the caller's row-major f32 buffers A (M x K), B (K x N) and
/// C (M x N), wrapped once with from_blob and written through out= variants, so
/// that a timed call allocates nothing but libtorch's own scratch.
class TorchMatmul {
public:
  TorchMatmul(float *a, float *b, float *c, int64_t m, int64_t n, int64_t k);
  ~TorchMatmul();

  /// C = torch.matmul(A, B).
  void matmul();
  /// C = torch.softmax(A @ B, dim=1), the product kept in a scratch tensor.
  void matmulSoftmax();

private:
  struct Tensors;
  std::unique_ptr<Tensors> tensors_;
};

/// torch.cumsum(X, dim=1) over the caller's row-major f32 rows x n, into Y.
class TorchCumsum {
public:
  TorchCumsum(float *x, float *y, int64_t rows, int64_t n);
  ~TorchCumsum();
  void run();

private:
  struct Tensors;
  std::unique_ptr<Tensors> tensors_;
};

/// torch.bincount(X, minlength=bins) of the caller's int32 values (widened to
/// int64 once, as bincount takes), the counts left in libtorch's own tensor.
class TorchBincount {
public:
  TorchBincount(const int32_t *x, int64_t n, int64_t bins);
  ~TorchBincount();
  void run();

private:
  struct Tensors;
  std::unique_ptr<Tensors> tensors_;
};

} // namespace blockc::bench
