//===- KernelBench.cpp - blockc kernels beside plain C++ loops ------------===//
//
// vector_add (2^24 f32) and softmax (1024x1024, 4096x4096 f32) compiled by
// blockc for the host, launched through blockc_launch, against the -O3 loops
// of Baselines.cpp split over the same number of OpenMP threads. Each pair
// runs in this one process on the same buffers.
//
//===----------------------------------------------------------------------===//
#include "Baselines.h"
#include "RatioReporter.h"
#include "blockc/jit/Jit.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <omp.h>
#include <sstream>
#include <vector>

using namespace blockc;

namespace {

struct AlignedFree {
  void operator()(float *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer makeBuffer(size_t n, float seed) {
  Buffer b(static_cast<float *>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)));
  for (size_t i = 0; i < n; ++i)
    b[i] = float((i * 2654435761u + unsigned(seed * 1000)) % 2001) / 1000.f - 1.f;
  return b;
}

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

blockc_launch_options threads(int n) {
  blockc_launch_options o;
  blockc_launch_options_init(&o);
  o.num_threads = n;
  return o;
}

constexpr int64_t kAddN = int64_t(1) << 24;
constexpr int kAddBlock = 4096;

void vectorAddBlockc(benchmark::State &state) {
  static const JitKernel &kernel = kernelFor("vector_add", {{"BLOCK", std::to_string(kAddBlock)}});
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  float *pa = a.get(), *pb = b.get(), *pc = c.get();
  int32_t n = kAddN;
  void *args[] = {&pa, &pb, &pc, &n};
  blockc_launch_options options = threads(int(state.range(0)));
  for (auto _ : state)
    blockc_launch(kernel.fn, args, {kAddN / kAddBlock, 1, 1}, &options);
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void vectorAddBaseline(benchmark::State &state) {
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  int nthreads = int(state.range(0));
  for (auto _ : state) {
#pragma omp parallel num_threads(nthreads)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      int64_t chunk = (kAddN + nt - 1) / nt;
      bench::baselineAdd(a.get(), b.get(), c.get(), t * chunk, std::min(kAddN, (t + 1) * chunk));
    }
  }
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void softmaxBlockc(benchmark::State &state) {
  int64_t rows = state.range(0), cols = state.range(1);
  static std::map<int64_t, const JitKernel *> kernels;
  if (!kernels.count(cols))
    kernels[cols] =
        &kernelFor("softmax", {{"BLOCK", std::to_string(std::min<int64_t>(cols, 4096))}});
  Buffer in = makeBuffer(rows * cols, 4), out = makeBuffer(rows * cols, 5);
  float *pin = in.get(), *pout = out.get();
  int32_t stride = int32_t(cols), ncols = int32_t(cols);
  void *args[] = {&pout, &pin, &stride, &stride, &ncols};
  blockc_launch_options options = threads(int(state.range(2)));
  for (auto _ : state)
    blockc_launch(kernels[cols]->fn, args, {rows, 1, 1}, &options);
  state.SetBytesProcessed(state.iterations() * rows * cols * 8);
}

void softmaxBaseline(benchmark::State &state) {
  int64_t rows = state.range(0), cols = state.range(1);
  Buffer in = makeBuffer(rows * cols, 4), out = makeBuffer(rows * cols, 5);
  int nthreads = int(state.range(2));
  for (auto _ : state) {
#pragma omp parallel num_threads(nthreads)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      int64_t chunk = (rows + nt - 1) / nt;
      bench::baselineSoftmax(in.get(), out.get(), cols, t * chunk, std::min(rows, (t + 1) * chunk));
    }
  }
  state.SetBytesProcessed(state.iterations() * rows * cols * 8);
}

std::vector<int64_t> threadCounts() {
  std::vector<int64_t> counts = {1};
  int max = omp_get_max_threads();
  for (int t = 2; t <= max; t *= 2)
    counts.push_back(t);
  if (counts.back() != max)
    counts.push_back(max);
  return counts;
}

void addArgs(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    b->Arg(t);
  b->ArgName("threads")->UseRealTime()->Unit(benchmark::kMillisecond);
}

void softmaxArgs(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    for (int64_t n : {1024, 4096})
      b->Args({n, n, t});
  b->ArgNames({"rows", "cols", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

} // namespace

BENCHMARK(vectorAddBlockc)->Name("vector_add/blockc")->Apply(addArgs);
BENCHMARK(vectorAddBaseline)->Name("vector_add/baseline")->Apply(addArgs);
BENCHMARK(softmaxBlockc)->Name("softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("softmax/baseline")->Apply(softmaxArgs);

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}
