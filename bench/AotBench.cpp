//===- AotBench.cpp - Ahead-of-time kernels beside plain loops ------------===//
//
// The deployment path: kernels compiled by `blockc compile --emit=obj` for
// x86-64-v4, called through the generated header's typed launch functions,
// linked with libblockc_runtime and no LLVM. Baselines are KernelBench's -O3
// loops built for the same ISA. Thread counts go up to the machine's core
// count, for scaling runs on bigger machines.
//
//===----------------------------------------------------------------------===//
#include "Baselines.h"
#include "BenchSupport.h"
#include "softmax.h"
#include "vector_add.h"

using namespace blockc::bench;

namespace {

constexpr int64_t kAddN = int64_t(1) << 24;
constexpr int kAddBlock = 4096; // must match -D BLOCK in bench/CMakeLists.txt

void addBlockc(benchmark::State &state) {
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  blockc_launch_options options = threadsOption(int(state.range(0)));
  for (auto _ : state)
    if (vector_add_launch(a.get(), b.get(), c.get(), int32_t(kAddN), {kAddN / kAddBlock, 1, 1},
                          &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void addBaseline(benchmark::State &state) {
  static Buffer a = makeBuffer(kAddN, 1), b = makeBuffer(kAddN, 2), c = makeBuffer(kAddN, 3);
  for (auto _ : state)
    parallelRanges(int(state.range(0)), kAddN, [&](int64_t begin, int64_t end) {
      baselineAdd(a.get(), b.get(), c.get(), begin, end);
    });
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void softmaxBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  blockc_launch_options options = threadsOption(int(state.range(1)));
  for (auto _ : state)
    if (softmax_launch(out.get(), in.get(), int32_t(n), int32_t(n), int32_t(n), {n, 1, 1},
                       &options) != BLOCKC_SUCCESS) {
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

} // namespace

BENCHMARK(addBlockc)->Name("aot_vector_add/blockc")->Apply(threadArgs);
BENCHMARK(addBaseline)->Name("aot_vector_add/baseline")->Apply(threadArgs);
BENCHMARK(softmaxBlockc)->Name("aot_softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("aot_softmax/baseline")->Apply(softmaxArgs);

int main(int argc, char **argv) {
  return runWithRatios(argc, argv);
}
