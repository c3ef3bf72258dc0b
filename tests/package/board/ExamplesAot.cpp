//===- ExamplesAot.cpp - The bundled examples, compiled ahead of time -----===//
//
// The board's example runner: each example's kernel was compiled by the host blockc
// into an object and a header (blockc_add_kernels), is launched through its typed
// NAME_launch and compared with References.cpp. Runs on the board at the sizes of
// tools/example-runner (and times them) or, with --quick, at sizes QEMU runs in
// seconds. Exit code 1 if any result is wrong.
//
//   blockc-examples-aot [--quick] [EXAMPLE...]      (default: all nine)
//
//===----------------------------------------------------------------------===//
#include "References.h"
#include "fused_softmax.h"
#include "gelu.h"
#include "gelu_erf.h"
#include "layer_norm.h"
#include "matmul.h"
#include "matmul_softmax.h"
#include "rms_norm.h"
#include "softmax.h"
#include "vector_add.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using blockc::reference::maxRelativeError;
using blockc::reference::randomVector;

struct Result {
  std::string kernel;
  bool correct;
  double maxError;
  double seconds; // < 0: not timed
  double bytes, flops;
};

bool quick = false;

/// Launches once (the run that is checked); on the board, then 5 more and keeps the
/// fastest. Under QEMU times mean nothing, so --quick does not time.
double run(const char *name, const std::function<int()> &launch) {
  auto once = [&] {
    if (launch() != BLOCKC_SUCCESS) {
      std::fprintf(stderr, "launch of %s failed: %s\n", name, blockc_last_error());
      std::exit(1);
    }
  };
  once();
  if (quick)
    return -1;
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    auto start = std::chrono::steady_clock::now();
    once();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// Errors allowed relative to max(1, |reference|), as in tools/example-runner.
const double kTolerance = 1e-4;

Result vectorAdd() {
  int32_t n = quick ? 3 * 4096 + 7 : 1 << 24;
  auto a = randomVector(n, 1), b = randomVector(n, 2);
  std::vector<float> c(n);
  double t = run("vector_add", [&] {
    return vector_add_launch(a.data(), b.data(), c.data(), n, {(n + 4095) / 4096, 1, 1}, nullptr);
  });
  std::vector<double> want(n);
  blockc::reference::vectorAdd(a.data(), b.data(), want.data(), n);
  double err = maxRelativeError(c, want);
  return {"vector_add " + std::to_string(n), err < kTolerance, err, t, 12.0 * n, 0};
}

Result softmax() {
  int32_t rows = quick ? 5 : 4096, cols = quick ? 2500 : 4096;
  auto x = randomVector(size_t(rows) * cols, 3);
  std::vector<float> y(x.size());
  double t = run("softmax", [&] {
    return softmax_launch(y.data(), x.data(), cols, cols, cols, {rows, 1, 1}, nullptr);
  });
  std::vector<double> want(x.size());
  blockc::reference::softmax(x.data(), want.data(), rows, cols);
  double err = maxRelativeError(y, want);
  return {"softmax " + std::to_string(rows) + "x" + std::to_string(cols),
          err < kTolerance,
          err,
          t,
          8.0 * x.size(),
          0};
}

Result layerNorm() {
  int32_t rows = quick ? 5 : 2048, cols = 3000;
  float eps = 1e-5f;
  auto x = randomVector(size_t(rows) * cols, 4), w = randomVector(cols, 5),
       b = randomVector(cols, 6);
  std::vector<float> y(x.size()), mean(rows), rstd(rows);
  double t = run("layer_norm", [&] {
    return layer_norm_launch(x.data(), y.data(), w.data(), b.data(), mean.data(), rstd.data(), cols,
                             cols, eps, {rows, 1, 1}, nullptr);
  });
  std::vector<double> want(x.size()), wantMean(rows), wantRstd(rows);
  blockc::reference::layerNorm(x.data(), w.data(), b.data(), want.data(), wantMean.data(),
                               wantRstd.data(), rows, cols, eps);
  double err = std::max({maxRelativeError(y, want), maxRelativeError(mean, wantMean),
                         maxRelativeError(rstd, wantRstd)});
  return {"layer_norm " + std::to_string(rows) + "x" + std::to_string(cols),
          err < kTolerance,
          err,
          t,
          8.0 * x.size(),
          0};
}

/// Odd sizes so that every edge mask is live.
Result matmul() {
  int32_t m = quick ? 67 : 509, n = quick ? 71 : 515, k = quick ? 37 : 517;
  auto a = randomVector(size_t(m) * k, 7), b = randomVector(size_t(k) * n, 8);
  std::vector<float> c(size_t(m) * n);
  int32_t tiles = ((m + 63) / 64) * ((n + 127) / 128); // BLOCK_M x BLOCK_N
  double t = run("matmul", [&] {
    return matmul_launch(a.data(), b.data(), c.data(), m, n, k, k, 1, n, 1, n, 1, {tiles, 1, 1},
                         nullptr);
  });
  std::vector<double> want(c.size());
  blockc::reference::matmul(a.data(), b.data(), want.data(), m, n, k);
  double err = maxRelativeError(c, want);
  return {"matmul " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
          err < kTolerance,
          err,
          t,
          0,
          2.0 * m * n * k};
}

/// Whole rows of the product (n <= BLOCK_N = 256) in one block.
Result matmulSoftmax() {
  int32_t m = quick ? 37 : 1000, n = 250, k = quick ? 33 : 300;
  auto a = randomVector(size_t(m) * k, 9), b = randomVector(size_t(k) * n, 10);
  std::vector<float> c(size_t(m) * n);
  double t = run("matmul_softmax", [&] {
    return matmul_softmax_launch(a.data(), b.data(), c.data(), m, n, k, k, 1, n, 1, n, 1,
                                 {(m + 63) / 64, 1, 1}, nullptr);
  });
  std::vector<double> want(c.size());
  blockc::reference::matmulSoftmax(a.data(), b.data(), want.data(), m, n, k);
  double err = maxRelativeError(c, want);
  return {"matmul_softmax " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
          err < kTolerance,
          err,
          t,
          0,
          2.0 * m * n * k};
}

/// Each row whole in one block (cols <= BLOCK = 1024), with a ragged tail.
Result fusedSoftmax() {
  int32_t rows = quick ? 5 : 4096, cols = 1000;
  auto x = randomVector(size_t(rows) * cols, 11);
  std::vector<float> y(x.size());
  double t = run("fused_softmax", [&] {
    return fused_softmax_launch(y.data(), x.data(), cols, cols, cols, {rows, 1, 1}, nullptr);
  });
  std::vector<double> want(x.size());
  blockc::reference::softmax(x.data(), want.data(), rows, cols);
  double err = maxRelativeError(y, want);
  return {"fused_softmax " + std::to_string(rows) + "x" + std::to_string(cols),
          err < kTolerance,
          err,
          t,
          8.0 * x.size(),
          0};
}

/// Each row whole in one block (cols <= BLOCK = 1024), with a ragged tail.
Result rmsNorm() {
  int32_t rows = quick ? 5 : 2048, cols = 1000;
  float eps = 1e-6f;
  auto x = randomVector(size_t(rows) * cols, 12), w = randomVector(cols, 13);
  std::vector<float> y(x.size()), rstd(rows);
  double t = run("rms_norm", [&] {
    return rms_norm_launch(y.data(), x.data(), w.data(), rstd.data(), cols, cols, eps, {rows, 1, 1},
                           nullptr);
  });
  std::vector<double> want(x.size()), wantRstd(rows);
  blockc::reference::rmsNorm(x.data(), w.data(), want.data(), wantRstd.data(), rows, cols, eps);
  double err = std::max(maxRelativeError(y, want), maxRelativeError(rstd, wantRstd));
  return {"rms_norm " + std::to_string(rows) + "x" + std::to_string(cols),
          err < kTolerance,
          err,
          t,
          8.0 * x.size(),
          0};
}

// gelu (Abramowitz and Stegun's erf) and gelu_erf (blockc's erf): one reference.
template <typename Launch> Result geluBy(const char *name, Launch launch) {
  int32_t n = quick ? 3 * 4096 + 7 : 1 << 24;
  auto x = randomVector(n, 14);
  std::vector<float> y(n);
  double t = run(name, [&] {
    return launch(y.data(), x.data(), n, blockc_grid{(n + 4095) / 4096, 1, 1}, nullptr);
  });
  std::vector<double> want(n);
  blockc::reference::gelu(x.data(), want.data(), n);
  double err = maxRelativeError(y, want);
  return {std::string(name) + " " + std::to_string(n), err < kTolerance, err, t, 8.0 * n, 0};
}

Result gelu() {
  return geluBy("gelu", gelu_launch);
}

Result geluErf() {
  return geluBy("gelu_erf", gelu_erf_launch);
}

} // namespace

int main(int argc, char **argv) {
  const std::pair<const char *, Result (*)()> examples[] = {{"vector_add", vectorAdd},
                                                            {"softmax", softmax},
                                                            {"layer_norm", layerNorm},
                                                            {"matmul", matmul},
                                                            {"matmul_softmax", matmulSoftmax},
                                                            {"fused_softmax", fusedSoftmax},
                                                            {"rms_norm", rmsNorm},
                                                            {"gelu", gelu},
                                                            {"gelu_erf", geluErf}};
  std::vector<Result (*)()> chosen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
      continue;
    }
    auto it = std::find_if(std::begin(examples), std::end(examples),
                           [&](const auto &e) { return std::strcmp(e.first, argv[i]) == 0; });
    if (it == std::end(examples)) {
      std::fprintf(stderr,
                   "usage: %s [--quick] [EXAMPLE...]\n"
                   "unknown example '%s'; the examples are vector_add, softmax, layer_norm, "
                   "matmul, matmul_softmax, fused_softmax, rms_norm, gelu, gelu_erf\n",
                   argv[0], argv[i]);
      return 1;
    }
    chosen.push_back(it->second);
  }
  if (chosen.empty())
    for (const auto &e : examples)
      chosen.push_back(e.second);

  std::printf("%-28s %-18s %-8s %11s %10s %14s\n", "kernel", "target", "correct", "max error",
              "time (ms)", "throughput");
  bool allCorrect = true;
  for (auto example : chosen) {
    Result r = example();
    char time[32] = "-", throughput[32] = "-";
    if (r.seconds >= 0) {
      std::snprintf(time, sizeof(time), "%.3f", r.seconds * 1e3);
      if (r.flops > 0)
        std::snprintf(throughput, sizeof(throughput), "%.1f GFLOP/s", r.flops / r.seconds / 1e9);
      else
        std::snprintf(throughput, sizeof(throughput), "%.1f GB/s", r.bytes / r.seconds / 1e9);
    }
    std::printf("%-28s %-18s %-8s %11.2e %10s %14s\n", r.kernel.c_str(), BLOCKC_KERNEL_TARGET,
                r.correct ? "yes" : "NO", r.maxError, time, throughput);
    allCorrect &= r.correct;
  }
  return allCorrect ? 0 : 1;
}
