//===- ExampleRunner.cpp - Compile, run and check every bundled example ---===//
//
// The main job: each example is JIT-compiled for the host, run through the
// launcher on generated inputs, compared with References.cpp, and timed
// (minimum of several runs). Exit code 1 if any result is wrong.
//
//===----------------------------------------------------------------------===//
#include "References.h"
#include "blockc/jit/Jit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

using namespace blockc;

namespace {

using blockc::reference::maxRelativeError;
using blockc::reference::randomVector;

struct Result {
  std::string kernel;
  bool correct;
  double maxError;
  double seconds;
  double bytes, flops;
};

const JitKernel *compileExample(const std::string &dir, const std::string &name,
                                const ConstexprBindings &defines,
                                std::vector<std::unique_ptr<JitModule>> &keep) {
  std::ifstream in(dir + "/" + name + ".bir");
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file{dir + "/" + name + ".bir", text.str()};
  CompileOptions options;
  options.defines = defines;
  DiagnosticEngine diags;
  keep.push_back(JitModule::compile(file, options, diags));
  if (!keep.back()) {
    std::fprintf(stderr, "%s", formatDiagnostic(diags.diagnostic(), &file).c_str());
    return nullptr;
  }
  return &keep.back()->kernels()[0];
}

/// Runs `launch` a few times and returns the fastest.
double timeIt(const std::function<void()> &launch) {
  launch(); // warm-up, and the run whose output is checked
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    auto start = std::chrono::steady_clock::now();
    launch();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void launchOrDie(const JitKernel &kernel, void **args, blockc_grid grid) {
  if (blockc_launch(kernel.fn, args, grid, nullptr) != 0) {
    std::fprintf(stderr, "launch of %s failed: %s\n", kernel.name.c_str(), blockc_last_error());
    std::exit(1);
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : "examples";
  std::vector<std::unique_ptr<JitModule>> keep;
  std::vector<Result> results;
  // Errors allowed relative to max(1, |reference|): f32 rounding over the
  // reduction lengths used here stays far below these.
  const double kTolerance = 1e-4;

  { // vector_add: 2^24 elements
    int32_t n = 1 << 24;
    const JitKernel *k = compileExample(dir, "vector_add", {{"BLOCK", "4096"}}, keep);
    if (!k)
      return 1;
    auto a = randomVector(n, 1), b = randomVector(n, 2);
    std::vector<float> c(n);
    float *pa = a.data(), *pb = b.data(), *pc = c.data();
    void *args[] = {&pa, &pb, &pc, &n};
    double t = timeIt([&] { launchOrDie(*k, args, {(n + 4095) / 4096, 1, 1}); });
    std::vector<double> want(n);
    reference::vectorAdd(a.data(), b.data(), want.data(), n);
    double err = maxRelativeError(c, want);
    results.push_back({"vector_add 2^24", err < kTolerance, err, t, 12.0 * n, 0});
  }
  // Both softmax forms take (out, in, in_row_stride, out_row_stride, n_cols).
  auto runSoftmax = [&](const char *example, const char *block, int32_t rows, int32_t cols,
                        unsigned seed) {
    const JitKernel *k = compileExample(dir, example, {{"BLOCK", block}}, keep);
    if (!k)
      return false;
    auto x = randomVector(size_t(rows) * cols, seed);
    std::vector<float> y(x.size());
    float *px = x.data(), *py = y.data();
    void *args[] = {&py, &px, &cols, &cols, &cols};
    double t = timeIt([&] { launchOrDie(*k, args, {rows, 1, 1}); });
    std::vector<double> want(x.size());
    reference::softmax(x.data(), want.data(), rows, cols);
    double err = maxRelativeError(y, want);
    results.push_back(
        {std::string(example) + " " + std::to_string(rows) + "x" + std::to_string(cols),
         err < kTolerance, err, t, 8.0 * x.size(), 0});
    return true;
  };
  // softmax: rows four blocks long
  if (!runSoftmax("softmax", "1024", 4096, 4096, 3))
    return 1;
  { // layer_norm: rows longer than one block, with a ragged tail
    int32_t rows = 2048, cols = 3000;
    float eps = 1e-5f;
    const JitKernel *k = compileExample(dir, "layer_norm", {{"BLOCK", "1024"}}, keep);
    if (!k)
      return 1;
    auto x = randomVector(size_t(rows) * cols, 4), w = randomVector(cols, 5),
         b = randomVector(cols, 6);
    std::vector<float> y(x.size()), mean(rows), rstd(rows);
    float *px = x.data(), *py = y.data(), *pw = w.data(), *pb = b.data(), *pm = mean.data(),
          *pr = rstd.data();
    void *args[] = {&px, &py, &pw, &pb, &pm, &pr, &cols, &cols, &eps};
    double t = timeIt([&] { launchOrDie(*k, args, {rows, 1, 1}); });
    std::vector<double> want(x.size()), wantMean(rows), wantRstd(rows);
    reference::layerNorm(x.data(), w.data(), b.data(), want.data(), wantMean.data(),
                         wantRstd.data(), rows, cols, eps);
    double err = std::max({maxRelativeError(y, want), maxRelativeError(mean, wantMean),
                           maxRelativeError(rstd, wantRstd)});
    results.push_back({"layer_norm 2048x3000", err < kTolerance, err, t, 8.0 * x.size(), 0});
  }
  { // matmul: odd sizes so every edge mask is live
    int32_t m = 509, n = 515, kk = 517;
    const JitKernel *k = compileExample(dir, "matmul", {}, keep);
    if (!k)
      return 1;
    auto a = randomVector(size_t(m) * kk, 7), b = randomVector(size_t(kk) * n, 8);
    std::vector<float> c(size_t(m) * n);
    float *pa = a.data(), *pb = b.data(), *pc = c.data();
    int32_t one = 1;
    void *args[] = {&pa, &pb, &pc, &m, &n, &kk, &kk, &one, &n, &one, &n, &one};
    int32_t tiles = ((m + 63) / 64) * ((n + 127) / 128); // BLOCK_M x BLOCK_N
    double t = timeIt([&] { launchOrDie(*k, args, {tiles, 1, 1}); });
    std::vector<double> want(c.size());
    reference::matmul(a.data(), b.data(), want.data(), m, n, kk);
    double err = maxRelativeError(c, want);
    results.push_back({"matmul 509x515x517", err < kTolerance, err, t, 0, 2.0 * m * n * kk});
  }
  { // matmul_softmax: whole rows of the product in one block
    int32_t m = 1000, n = 250, kk = 300;
    const JitKernel *k = compileExample(dir, "matmul_softmax", {{"BLOCK_N", "256"}}, keep);
    if (!k)
      return 1;
    auto a = randomVector(size_t(m) * kk, 9), b = randomVector(size_t(kk) * n, 10);
    std::vector<float> c(size_t(m) * n);
    float *pa = a.data(), *pb = b.data(), *pc = c.data();
    int32_t one = 1;
    void *args[] = {&pa, &pb, &pc, &m, &n, &kk, &kk, &one, &n, &one, &n, &one};
    double t = timeIt([&] { launchOrDie(*k, args, {(m + 63) / 64, 1, 1}); });
    std::vector<double> want(c.size());
    reference::matmulSoftmax(a.data(), b.data(), want.data(), m, n, kk);
    double err = maxRelativeError(c, want);
    results.push_back(
        {"matmul_softmax 1000x250x300", err < kTolerance, err, t, 0, 2.0 * m * n * kk});
  }

  // fused_softmax: each row whole in one block, with a ragged tail
  if (!runSoftmax("fused_softmax", "1024", 4096, 1000, 11))
    return 1;
  { // rms_norm: each row whole in one block, with a ragged tail
    int32_t rows = 2048, cols = 1000;
    float eps = 1e-6f;
    const JitKernel *k = compileExample(dir, "rms_norm", {{"BLOCK", "1024"}}, keep);
    if (!k)
      return 1;
    auto x = randomVector(size_t(rows) * cols, 12), w = randomVector(cols, 13);
    std::vector<float> y(x.size()), rstd(rows);
    float *px = x.data(), *py = y.data(), *pw = w.data(), *pr = rstd.data();
    void *args[] = {&py, &px, &pw, &pr, &cols, &cols, &eps};
    double t = timeIt([&] { launchOrDie(*k, args, {rows, 1, 1}); });
    std::vector<double> want(x.size()), wantRstd(rows);
    reference::rmsNorm(x.data(), w.data(), want.data(), wantRstd.data(), rows, cols, eps);
    double err = std::max(maxRelativeError(y, want), maxRelativeError(rstd, wantRstd));
    results.push_back({"rms_norm 2048x1000", err < kTolerance, err, t, 8.0 * x.size(), 0});
  }
  // gelu by Abramowitz and Stegun's erf, and gelu_erf by blockc's: 2^24
  // elements, one reference.
  for (const char *gelu : {"gelu", "gelu_erf"}) {
    int32_t n = 1 << 24;
    const JitKernel *k = compileExample(dir, gelu, {{"BLOCK", "4096"}}, keep);
    if (!k)
      return 1;
    auto x = randomVector(n, 14);
    std::vector<float> y(n);
    float *px = x.data(), *py = y.data();
    void *args[] = {&py, &px, &n};
    double t = timeIt([&] { launchOrDie(*k, args, {(n + 4095) / 4096, 1, 1}); });
    std::vector<double> want(n);
    reference::gelu(x.data(), want.data(), n);
    double err = maxRelativeError(y, want);
    results.push_back({std::string(gelu) + " 2^24", err < kTolerance, err, t, 8.0 * n, 0});
  }

  std::printf("\n%-28s %-7s %-8s %11s %10s %14s\n", "kernel", "target", "correct", "max error",
              "time (ms)", "throughput");
  bool allCorrect = true;
  for (const Result &r : results) {
    char throughput[32];
    if (r.flops > 0)
      std::snprintf(throughput, sizeof(throughput), "%.1f GFLOP/s", r.flops / r.seconds / 1e9);
    else
      std::snprintf(throughput, sizeof(throughput), "%.1f GB/s", r.bytes / r.seconds / 1e9);
    std::printf("%-28s %-7s %-8s %11.2e %10.3f %14s\n", r.kernel.c_str(), "host",
                r.correct ? "yes" : "NO", r.maxError, r.seconds * 1e3, throughput);
    allCorrect &= r.correct;
  }
  return allCorrect ? 0 : 1;
}
