//===- FmaProbe.cpp - The f32 FMA rate this machine's cores reach ---------===//
//
// Not blockc beside a baseline: the yardstick for the f32 matmul figures
// (docs/performance.md, "f32 matmul against the FMA peak"). Each benchmark
// thread runs independent chains of `vfmadd` on zmm (AVX-512) or ymm (AVX2)
// registers (FmaChains.cpp), with no memory traffic: what the FMA units give
// at the frequency the core holds under that load. The flop_per_second
// counter sums the threads (2 flops per lane per FMA). Without the
// instruction set the benchmark reports an error naming it.
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>
#include <thread>

extern "C" float fmaChainsZmm(int64_t steps, int64_t *flopsPerStep);
extern "C" float fmaChainsYmm(int64_t steps, int64_t *flopsPerStep);

namespace {

constexpr int64_t kStepsPerIteration = 1 << 16;

using FmaChains = float (*)(int64_t steps, int64_t *flopsPerStep);

/// Runs `chains` where the CPU has what they need (`missing` names it).
void probe(benchmark::State &state, bool supported, const char *missing, FmaChains chains) {
  if (!supported) {
    state.SkipWithError(missing);
    return;
  }
  int64_t flopsPerStep = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(chains(kStepsPerIteration, &flopsPerStep));
  state.counters["flop_per_second"] = benchmark::Counter(
      double(state.iterations()) * kStepsPerIteration * flopsPerStep, benchmark::Counter::kIsRate);
}

void zmmChains(benchmark::State &state) {
  probe(state, __builtin_cpu_supports("avx512f"), "this CPU has no AVX-512F", fmaChainsZmm);
}

void ymmChains(benchmark::State &state) {
  probe(state, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
        "this CPU has no AVX2 and FMA", fmaChainsYmm);
}

void threadCounts(benchmark::internal::Benchmark *b) {
  int all = int(std::thread::hardware_concurrency());
  b->Threads(1);
  if (all > 1)
    b->Threads(all);
  b->UseRealTime();
}

BENCHMARK(zmmChains)->Name("fma_probe/zmm")->Apply(threadCounts);
BENCHMARK(ymmChains)->Name("fma_probe/ymm")->Apply(threadCounts);

} // namespace

BENCHMARK_MAIN();
