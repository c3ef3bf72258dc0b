//===- LauncherBench.cpp - What the launcher costs per program ------------===//
//
// An empty kernel over a 2^20-program grid, through blockc_launch, beside the
// same calls from a bare `omp parallel for`: the difference is the launcher's
// own cost (flat-index decoding, option handling, the trace check) per
// program. And what recording a trace costs.
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

constexpr uint64_t kArenaScratchBytes = uint64_t(1) << 20;

/// What a kernel with scratch beyond the stack adds to each program.
extern "C" __attribute__((noinline)) void arenaKernel(void **, int32_t, int32_t, int32_t, int32_t,
                                                      int32_t, int32_t) {
  benchmark::DoNotOptimize(blockc_scratch_arena(kArenaScratchBytes));
}

void smallLaunch(benchmark::State &state, uint64_t scratchBytes,
                 blockc_kernel_fn body = emptyKernel) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = int(state.range(0));
  blockc_kernel_fn volatile kernel = body;
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

// An arena kernel: the launch checks every thread's arena, each program asks
// for it.
void smallLaunchArena(benchmark::State &state) {
  smallLaunch(state, kArenaScratchBytes, arenaKernel);
}

// What tracing costs: blockc_launch recording a trace in memory (trace_on)
// beside the same launch with no trace recording (trace_off). On a small
// grid (64 programs) the launch's fixed cost dominates, on a large one (2^20)
// the per-program cost. What the check costs an untraced launch is part of
// launcher_2^20's ratio to a bare OpenMP loop.
using LaunchFunction = int (*)(blockc_kernel_fn, void **, blockc_grid,
                               const blockc_launch_options *);

void launchRepeatedly(benchmark::State &state, LaunchFunction launch) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = int(state.range(0));
  const blockc_grid grid{state.range(1), 1, 1};
  blockc_kernel_fn volatile kernel = emptyKernel;
  for (auto _ : state)
    if (launch(kernel, nullptr, grid, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.counters["per_program"] = benchmark::Counter(
      double(grid.x), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void traceOff(benchmark::State &state) {
  launchRepeatedly(state, blockc_launch);
}

void traceOn(benchmark::State &state) {
  // In memory: the file's writing is not the launch's cost. A new trace for
  // each run keeps the trace from filling up.
  if (blockc_trace_start(nullptr) != BLOCKC_SUCCESS) {
    state.SkipWithError(blockc_last_error());
    return;
  }
  launchRepeatedly(state, blockc_launch);
  blockc_trace_stop();
}

void traceArgs(benchmark::internal::Benchmark *b) {
  b->ArgsProduct({{1, 2, 4}, {64, int64_t(1) << 20}})
      ->ArgNames({"threads", "programs"})
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

} // namespace

BENCHMARK(traceOn)->Name("trace/blockc_tracing")->Apply(traceArgs);
BENCHMARK(traceOff)->Name("trace/baseline_not_tracing")->Apply(traceArgs);
BENCHMARK(smallLaunchChecked)
    ->Name("launch_64_programs/blockc")
    ->Apply(blockc::bench::threadArgs)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(smallLaunchUnchecked)
    ->Name("launch_64_programs/baseline_unchecked")
    ->Apply(blockc::bench::threadArgs)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(smallLaunchArena)
    ->Name("launch_64_programs/arena")
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
