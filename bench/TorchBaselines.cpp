//===- TorchBaselines.cpp - libtorch's CPU kernels as bench baselines -----===//
#include "TorchBaselines.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

namespace blockc::bench {

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

} // namespace blockc::bench
