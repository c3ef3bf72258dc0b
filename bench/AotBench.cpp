//===- AotBench.cpp - Ahead-of-time kernels beside plain loops ------------===//
//
// The deployment path: kernels compiled by `blockc compile --emit=obj` for
// x86-64-v4, called through the generated header's typed launch functions,
// linked with libblockc_runtime and no LLVM. Baselines are the same -O3 loops
// as KernelBench, built for the same ISA. Thread counts go up to the
// machine's core count, for scaling runs on bigger machines.
//
//===----------------------------------------------------------------------===//
#include "Baselines.h"
#include "RatioReporter.h"
#include "softmax.h"
#include "vector_add.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstdlib>
#include <memory>
#include <omp.h>
#include <vector>

namespace {

struct AlignedFree {
  void operator()(float *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer makeBuffer(size_t n, unsigned seed) {
  Buffer b(static_cast<float *>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)));
  for (size_t i = 0; i < n; ++i)
    b[i] = float((i * 2654435761u + seed * 977u) % 2001) / 1000.f - 1.f;
  return b;
}

blockc_launch_options threads(int n) {
  blockc_launch_options o;
  blockc_launch_options_init(&o);
  o.num_threads = n;
  return o;
}

constexpr int64_t kAddN = int64_t(1) << 24;
constexpr int kAddBlock = 4096; // must match -D BLOCK in bench/CMakeLists.txt

void addBlockc(benchmark::State &state) {
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  blockc_launch_options options = threads(int(state.range(0)));
  for (auto _ : state)
    vector_add_launch(a.get(), b.get(), c.get(), int32_t(kAddN), {kAddN / kAddBlock, 1, 1},
                      &options);
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void addBaseline(benchmark::State &state) {
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  int nthreads = int(state.range(0));
  for (auto _ : state) {
#pragma omp parallel num_threads(nthreads)
    {
      int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      int64_t chunk = (kAddN + nt - 1) / nt;
      blockc::bench::baselineAdd(a.get(), b.get(), c.get(), t * chunk,
                                 std::min(kAddN, (t + 1) * chunk));
    }
  }
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void softmaxBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  blockc_launch_options options = threads(int(state.range(1)));
  for (auto _ : state)
    softmax_launch(out.get(), in.get(), int32_t(n), int32_t(n), int32_t(n), {n, 1, 1}, &options);
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

void softmaxBaseline(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  int nthreads = int(state.range(1));
  for (auto _ : state) {
#pragma omp parallel num_threads(nthreads)
    {
      int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      int64_t chunk = (n + nt - 1) / nt;
      blockc::bench::baselineSoftmax(in.get(), out.get(), n, t * chunk,
                                     std::min(n, (t + 1) * chunk));
    }
  }
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

std::vector<int64_t> threadCounts() {
  std::vector<int64_t> counts = {1};
  int max = omp_get_num_procs();
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
      b->Args({n, t});
  b->ArgNames({"n", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

} // namespace

BENCHMARK(addBlockc)->Name("aot_vector_add/blockc")->Apply(addArgs);
BENCHMARK(addBaseline)->Name("aot_vector_add/baseline")->Apply(addArgs);
BENCHMARK(softmaxBlockc)->Name("aot_softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("aot_softmax/baseline")->Apply(softmaxArgs);

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  blockc::bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}
