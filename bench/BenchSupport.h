//===- BenchSupport.h - Buffers, thread counts and baselines for benches -*- C++ -*-===//
#pragma once

#include "RatioReporter.h"
#include "blockc/runtime.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <omp.h>
#include <random>
#include <vector>

namespace blockc::bench {

struct AlignedFree {
  void operator()(float *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

/// 64-byte aligned values in [-1, 1], different per seed, cheap to make.
inline Buffer makeBuffer(size_t n, unsigned seed) {
  Buffer b(static_cast<float *>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)));
  for (size_t i = 0; i < n; ++i)
    b[i] = float((i * 2654435761u + seed * 977u) % 2001) / 1000.f - 1.f;
  return b;
}

/// 64-byte aligned values drawn from the standard normal distribution, as a
/// layer's activations roughly are; the same on every run for one seed.
inline Buffer makeNormalBuffer(size_t n, unsigned seed) {
  Buffer b(static_cast<float *>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)));
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal;
  for (size_t i = 0; i < n; ++i)
    b[i] = normal(generator);
  return b;
}

/// makeBuffer's values, first written by `threads` OpenMP threads in the
/// contiguous ranges a static schedule gives them, so that each page lies on
/// the memory node of the thread that will use it (first touch).
inline Buffer makeBufferTouchedBy(int threads, size_t n, unsigned seed) {
  Buffer b(static_cast<float *>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < n; ++i)
    b[i] = float((i * 2654435761u + seed * 977u) % 2001) / 1000.f - 1.f;
  return b;
}

/// The launcher's defaults overridden by its environment variables
/// (BLOCKC_SCHEDULE, BLOCKC_GRID_ORDER, ...), as a launch without options
/// would read them, with the benchmark's own thread count: a schedule or an
/// order is compared by running the same binary twice. A malformed variable
/// ends the benchmark with its message, not with a silent default.
inline blockc_launch_options threadsOption(int n) {
  blockc_launch_options o;
  blockc_launch_options_init(&o);
  const char *error = nullptr;
  if (blockc_launch_options_from_env(&o, &error) != BLOCKC_SUCCESS) {
    std::fprintf(stderr, "error: %s\n", error ? error : "invalid launcher environment");
    std::exit(1);
  }
  o.num_threads = n;
  return o;
}

/// Runs `fn(begin, end)` over [0, total) split evenly over `threads` OpenMP
/// threads: how a plain loop is parallelized by hand.
template <typename Fn> void parallelRanges(int threads, int64_t total, Fn fn) {
#pragma omp parallel num_threads(threads)
  {
    int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t chunk = (total + nt - 1) / nt;
    fn(std::min(total, t * chunk), std::min(total, (t + 1) * chunk));
  }
}

/// 1, 2, 4, ... up to the machine's cores, and the core count itself.
inline std::vector<int64_t> threadCounts() {
  std::vector<int64_t> counts = {1};
  int max = omp_get_num_procs();
  for (int t = 2; t <= max; t *= 2)
    counts.push_back(t);
  if (counts.back() != max)
    counts.push_back(max);
  return counts;
}

inline void threadArgs(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    b->Arg(t);
  b->ArgName("threads")->UseRealTime()->Unit(benchmark::kMillisecond);
}

/// Square softmax sizes times thread counts: args (n, threads).
inline void softmaxArgs(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    for (int64_t n : {1024, 4096})
      b->Args({n, t});
  b->ArgNames({"n", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

/// A baseline `fn(a, b, c, begin, end)` over three vectors of `n` f32 (an
/// elementwise binary op such as add), split over args (threads).
template <typename Fn> void benchBinaryBaseline(benchmark::State &state, int64_t n, Fn fn) {
  static Buffer a = makeBuffer(n, 1), b = makeBuffer(n, 2), c = makeBuffer(n, 3);
  for (auto _ : state)
    parallelRanges(int(state.range(0)), n,
                   [&](int64_t begin, int64_t end) { fn(a.get(), b.get(), c.get(), begin, end); });
  state.SetBytesProcessed(state.iterations() * n * 12);
}

/// A row-wise baseline `fn(in, out, cols, rowBegin, rowEnd)` (softmax) over
/// an n x n matrix: args (n, threads).
template <typename Fn> void benchRowsBaseline(benchmark::State &state, Fn fn) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  for (auto _ : state)
    parallelRanges(int(state.range(1)), n,
                   [&](int64_t begin, int64_t end) { fn(in.get(), out.get(), n, begin, end); });
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

inline int runWithRatios(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

} // namespace blockc::bench
