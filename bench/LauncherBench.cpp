//===- LauncherBench.cpp - What the launcher costs per program ------------===//
//
// An empty kernel over a 2^20-program grid, through blockc_launch, beside the
// same calls from a bare `omp parallel for`: the difference is the launcher's
// own cost (flat-index decoding, option handling) per program.
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "blockc/runtime.h"

#include <benchmark/benchmark.h>

namespace {

constexpr int64_t kPrograms = int64_t(1) << 20;

extern "C" __attribute__((noinline)) void emptyKernel(void **, int32_t, int32_t, int32_t, int32_t,
                                                      int32_t, int32_t) {
  benchmark::ClobberMemory();
}

void launcherBlockc(benchmark::State &state) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = int(state.range(0));
  options.order = state.range(1) ? BLOCKC_ORDER_GROUPED : BLOCKC_ORDER_X_FASTEST;
  blockc_kernel_fn volatile kernel = emptyKernel;
  for (auto _ : state)
    if (blockc_launch(kernel, nullptr, {1024, 1024, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.counters["per_program"] =
      benchmark::Counter(double(kPrograms), benchmark::Counter::kIsIterationInvariantRate |
                                                benchmark::Counter::kInvert);
}

void launcherBaseline(benchmark::State &state) {
  int threads = int(state.range(0));
  blockc_kernel_fn volatile kernel = emptyKernel;
  for (auto _ : state) {
    blockc_kernel_fn fn = kernel;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < kPrograms; ++i)
      fn(nullptr, int32_t(i % 1024), int32_t(i / 1024), 0, 1024, 1024, 1);
  }
  state.counters["per_program"] =
      benchmark::Counter(double(kPrograms), benchmark::Counter::kIsIterationInvariantRate |
                                                benchmark::Counter::kInvert);
}

// What the stack check costs a small launch: blockc_launch_with_stack, which
// measures every thread's stack and meets at a barrier before any program
// runs, beside plain blockc_launch, on 64 programs of an empty kernel.
constexpr int64_t kSmallGrid = 64;

void smallLaunch(benchmark::State &state, uint64_t scratchBytes) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = int(state.range(0));
  blockc_kernel_fn volatile kernel = emptyKernel;
  for (auto _ : state)
    if (blockc_launch_with_stack(kernel, nullptr, {kSmallGrid, 1, 1}, &options, scratchBytes) !=
        BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
}

void smallLaunchChecked(benchmark::State &state) {
  smallLaunch(state, 64 * 1024);
}

void smallLaunchUnchecked(benchmark::State &state) {
  smallLaunch(state, 0);
}

} // namespace

BENCHMARK(smallLaunchChecked)
    ->Name("launch_64_programs/blockc")
    ->Apply(blockc::bench::threadArgs)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(smallLaunchUnchecked)
    ->Name("launch_64_programs/baseline_unchecked")
    ->Apply(blockc::bench::threadArgs)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(launcherBlockc)
    ->Name("launcher_2^20/blockc")
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->ArgNames({"threads", "grouped"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(launcherBaseline)
    ->Name("launcher_2^20/baseline")
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->ArgNames({"threads", "grouped"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

int main(int argc, char **argv) {
  return blockc::bench::runWithRatios(argc, argv);
}
