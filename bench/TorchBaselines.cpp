//===- TorchBaselines.cpp - libtorch's CPU kernels as bench baselines -----===//
#include "TorchBaselines.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

namespace blockc::bench {

namespace {
// Read from bincount's result so that the call is not optimized away.
volatile int64_t benchmarkSink_ = 0;
} // namespace

void setTorchThreads(int threads) {
  at::set_num_threads(threads);
}

struct TorchMatmul::Tensors {
  at::Tensor a, b, c, product;
};

TorchMatmul::TorchMatmul(float *a, float *b, float *c, int64_t m, int64_t n, int64_t k)
    : tensors_(std::make_unique<Tensors>()) {
  at::TensorOptions f32 = at::TensorOptions().dtype(at::kFloat);
  tensors_->a = at::from_blob(a, {m, k}, f32);
  tensors_->b = at::from_blob(b, {k, n}, f32);
  tensors_->c = at::from_blob(c, {m, n}, f32);
}

TorchMatmul::~TorchMatmul() = default;

void TorchMatmul::matmul() {
  // Inference mode, as a user serving a model would run: no autograd work.
  c10::InferenceMode inference;
  at::matmul_out(tensors_->c, tensors_->a, tensors_->b);
}

void TorchMatmul::matmulSoftmax() {
  c10::InferenceMode inference;
  if (!tensors_->product.defined())
    tensors_->product = at::empty_like(tensors_->c);
  at::matmul_out(tensors_->product, tensors_->a, tensors_->b);
  at::softmax_out(tensors_->c, tensors_->product, 1);
}

struct TorchCumsum::Tensors {
  at::Tensor x, y;
};

TorchCumsum::TorchCumsum(float *x, float *y, int64_t rows, int64_t n)
    : tensors_(std::make_unique<Tensors>()) {
  at::TensorOptions f32 = at::TensorOptions().dtype(at::kFloat);
  tensors_->x = at::from_blob(x, {rows, n}, f32);
  tensors_->y = at::from_blob(y, {rows, n}, f32);
}

TorchCumsum::~TorchCumsum() = default;

void TorchCumsum::run() {
  c10::InferenceMode inference;
  at::cumsum_out(tensors_->y, tensors_->x, 1);
}

struct TorchBincount::Tensors {
  at::Tensor x;
  int64_t bins;
};

TorchBincount::TorchBincount(const int32_t *x, int64_t n, int64_t bins)
    : tensors_(std::make_unique<Tensors>()) {
  at::Tensor values = at::from_blob(const_cast<int32_t *>(x), {n}, at::kInt);
  tensors_->x = values.to(at::kLong);
  tensors_->bins = bins;
}

TorchBincount::~TorchBincount() = default;

void TorchBincount::run() {
  c10::InferenceMode inference;
  benchmarkSink_ = at::bincount(tensors_->x, {}, tensors_->bins).data_ptr<int64_t>()[0];
}

} // namespace blockc::bench
