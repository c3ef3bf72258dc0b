//===- KernelBench.cpp - JIT-compiled blockc kernels beside plain loops ---===//
//
// vector_add (2^24 f32) and softmax (1024x1024, 4096x4096 f32) compiled by
// blockc for the host in process, launched through blockc_launch, against the
// -O3 -march=native loops of Baselines.cpp split over the same number of
// OpenMP threads, in this one process on the same kind of buffers; and the
// matmul example (square f32, 256 to 2048) against OpenBLAS's sgemm on as many
// threads.
//
//===----------------------------------------------------------------------===//
#include "Baselines.h"
#include "BenchSupport.h"
#include "blockc/jit/Jit.h"

#include <cblas.h>
#include <fstream>
#include <map>
#include <sstream>

using namespace blockc;
using namespace blockc::bench;

namespace {

const JitKernel &kernelFor(const std::string &example, const ConstexprBindings &defines) {
  static std::vector<std::unique_ptr<JitModule>> modules;
  std::ifstream in(std::string(BLOCKC_EXAMPLES_DIR) + "/" + example + ".bir");
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file{example + ".bir", text.str()};
  CompileOptions options;
  options.defines = defines;
  DiagnosticEngine diags;
  modules.push_back(JitModule::compile(file, options, diags));
  if (!modules.back()) {
    std::fprintf(stderr, "%s", formatDiagnostic(diags.diagnostic(), &file).c_str());
    std::exit(1);
  }
  return modules.back()->kernels()[0];
}

constexpr int64_t kAddN = int64_t(1) << 24;
constexpr int kAddBlock = 4096;

void vectorAddBlockc(benchmark::State &state) {
  static const JitKernel &kernel = kernelFor("vector_add", {{"BLOCK", std::to_string(kAddBlock)}});
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  float *pa = a.get(), *pb = b.get(), *pc = c.get();
  int32_t n = kAddN;
  void *args[] = {&pa, &pb, &pc, &n};
  blockc_launch_options options = threadsOption(int(state.range(0)));
  for (auto _ : state)
    if (blockc_launch(kernel.fn, args, {kAddN / kAddBlock, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void vectorAddBaseline(benchmark::State &state) {
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  for (auto _ : state)
    parallelRanges(int(state.range(0)), kAddN, [&](int64_t begin, int64_t end) {
      baselineAdd(a.get(), b.get(), c.get(), begin, end);
    });
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void softmaxBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  static std::map<int64_t, const JitKernel *> kernels;
  if (!kernels.count(n))
    kernels[n] = &kernelFor("softmax", {{"BLOCK", std::to_string(std::min<int64_t>(n, 4096))}});
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  float *pin = in.get(), *pout = out.get();
  int32_t cols = int32_t(n);
  void *args[] = {&pout, &pin, &cols, &cols, &cols};
  blockc_launch_options options = threadsOption(int(state.range(1)));
  for (auto _ : state)
    if (blockc_launch(kernels[n]->fn, args, {n, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

void softmaxBaseline(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  for (auto _ : state)
    parallelRanges(int(state.range(1)), n, [&](int64_t begin, int64_t end) {
      baselineSoftmax(in.get(), out.get(), n, begin, end);
    });
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

void softmaxSleefBaseline(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  for (auto _ : state)
    parallelRanges(int(state.range(1)), n, [&](int64_t begin, int64_t end) {
      baselineSoftmaxSleef(in.get(), out.get(), n, begin, end);
    });
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

void matmulBlockc(benchmark::State &state) {
  static const JitKernel &kernel = kernelFor("matmul", {});
  int64_t n = state.range(0);
  Buffer a = makeBuffer(n * n, 6), b = makeBuffer(n * n, 7), c = makeBuffer(n * n, 8);
  float *pa = a.get(), *pb = b.get(), *pc = c.get();
  int32_t size = int32_t(n), one = 1;
  // Row-major A, B and C: the example's arguments (a, b, c, M, N, K, then the
  // row and column stride of each).
  void *args[] = {&pa, &pb, &pc, &size, &size, &size, &size, &one, &size, &one, &size, &one};
  int64_t tiles = (n + 63) / 64;
  blockc_launch_options options = threadsOption(int(state.range(1)));
  for (auto _ : state)
    if (blockc_launch(kernel.fn, args, {tiles * tiles, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.counters["GFLOP/s"] = benchmark::Counter(double(2 * n * n * n) * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

void matmulOpenBlas(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer a = makeBuffer(n * n, 6), b = makeBuffer(n * n, 7), c = makeBuffer(n * n, 8);
  openblas_set_num_threads(int(state.range(1)));
  for (auto _ : state)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, a.get(),
                int(n), b.get(), int(n), 0.0f, c.get(), int(n));
  state.counters["GFLOP/s"] = benchmark::Counter(double(2 * n * n * n) * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

void matmulArgs(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    for (int64_t n : {256, 1024, 2048})
      b->Args({n, t});
  b->ArgNames({"n", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

} // namespace

BENCHMARK(vectorAddBlockc)->Name("vector_add/blockc")->Apply(threadArgs);
BENCHMARK(vectorAddBaseline)->Name("vector_add/baseline")->Apply(threadArgs);
BENCHMARK(softmaxBlockc)->Name("softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("softmax/baseline")->Apply(softmaxArgs);
BENCHMARK(softmaxSleefBaseline)->Name("softmax/baseline_sleef")->Apply(softmaxArgs);
BENCHMARK(matmulBlockc)->Name("matmul/blockc")->Apply(matmulArgs);
BENCHMARK(matmulOpenBlas)->Name("matmul/baseline_openblas")->Apply(matmulArgs);

int main(int argc, char **argv) {
  return runWithRatios(argc, argv);
}
