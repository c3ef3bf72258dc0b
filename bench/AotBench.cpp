//===- AotBench.cpp - Ahead-of-time kernels beside plain loops ------------===//
//
// The deployment path: kernels compiled by `blockc compile --emit=obj` for
// one x86 level (aot_bench: x86-64-v4, aot_bench_v3: x86-64-v3), called
// through the generated header's typed launch functions, linked with
// libblockc_runtime and no LLVM. Baselines are KernelBench's -O3 loops built
// for the same level, and the same kernels hand-written with xsimd
// (`baseline_xsimd`). Thread counts go up to the machine's core
// count, for scaling runs on bigger machines.
//
// Memory-bound examples: vector_add, gelu and gelu_erf on 2^24 f32 (gelu's on
// uniform and normal inputs); softmax (a row in
// BLOCK=1024 chunks) and fused_softmax (a whole row in one block: BLOCK=1024 for
// n = 1024, else one BLOCK=4096 block,
// masked) on n x n for n in {1024, 4096}, both against the same loop so the two
// forms can be compared; layer_norm (BLOCK=1024 chunks) and rms_norm (one
// BLOCK=4096 block) on 4096 x 4096. The BLOCK values must match
// bench/CMakeLists.txt.
//
//===----------------------------------------------------------------------===//
#include "Baselines.h"
#include "BenchSupport.h"
#include "XsimdBaselines.h"
#include "fused_softmax.h"
#include "fused_softmax_1024.h"
#include "gelu.h"
#include "gelu_erf.h"
#include "layer_norm.h"
#include "rms_norm.h"
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
  benchBinaryBaseline(state, kAddN, baselineAdd);
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
  benchRowsBaseline(state, baselineSoftmax);
}

void fusedSoftmaxBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  blockc_launch_options options = threadsOption(int(state.range(1)));
  // BLOCK = n where an object has it (1024), else the 4096 block, masked.
  auto launch = n == 1024 ? fused_softmax_1024_launch : fused_softmax_launch;
  for (auto _ : state)
    if (launch(out.get(), in.get(), int32_t(n), int32_t(n), int32_t(n), {n, 1, 1}, &options) !=
        BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

constexpr int64_t kNormN = 4096; // rows and row length of the norm benchmarks
constexpr float kNormEps = 1e-5f;

/// The norm sizes (n x n, n = 4096) times thread counts: args (n, threads), as
/// softmaxArgs names them.
void normArgs(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    b->Args({kNormN, t});
  b->ArgNames({"n", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

void layerNormBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer x = makeBuffer(n * n, 4), y = makeBuffer(n * n, 5), w = makeBuffer(n, 6),
         b = makeBuffer(n, 7), mean = makeBuffer(n, 8), rstd = makeBuffer(n, 9);
  blockc_launch_options options = threadsOption(int(state.range(1)));
  for (auto _ : state)
    if (layer_norm_launch(x.get(), y.get(), w.get(), b.get(), mean.get(), rstd.get(), int32_t(n),
                          int32_t(n), kNormEps, {n, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

/// A layer norm `fn` (Baselines.h's signature) over n x n: args (n, threads).
template <typename Fn> void benchLayerNorm(benchmark::State &state, Fn fn) {
  int64_t n = state.range(0);
  Buffer x = makeBuffer(n * n, 4), y = makeBuffer(n * n, 5), w = makeBuffer(n, 6),
         b = makeBuffer(n, 7), mean = makeBuffer(n, 8), rstd = makeBuffer(n, 9);
  for (auto _ : state)
    parallelRanges(int(state.range(1)), n, [&](int64_t begin, int64_t end) {
      fn(x.get(), y.get(), w.get(), b.get(), mean.get(), rstd.get(), n, kNormEps, begin, end);
    });
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

void layerNormBaseline(benchmark::State &state) {
  benchLayerNorm(state, baselineLayerNorm);
}

void layerNormXsimd(benchmark::State &state) {
  benchLayerNorm(state, xsimdLayerNorm);
}

void rmsNormBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  Buffer x = makeBuffer(n * n, 4), y = makeBuffer(n * n, 5), w = makeBuffer(n, 6),
         rstd = makeBuffer(n, 9);
  blockc_launch_options options = threadsOption(int(state.range(1)));
  for (auto _ : state)
    if (rms_norm_launch(y.get(), x.get(), w.get(), rstd.get(), int32_t(n), int32_t(n), kNormEps,
                        {n, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

template <typename Fn> void benchRmsNorm(benchmark::State &state, Fn fn) {
  int64_t n = state.range(0);
  Buffer x = makeBuffer(n * n, 4), y = makeBuffer(n * n, 5), w = makeBuffer(n, 6),
         rstd = makeBuffer(n, 9);
  for (auto _ : state)
    parallelRanges(int(state.range(1)), n, [&](int64_t begin, int64_t end) {
      fn(x.get(), y.get(), w.get(), rstd.get(), n, kNormEps, begin, end);
    });
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

void rmsNormBaseline(benchmark::State &state) {
  benchRmsNorm(state, baselineRmsNorm);
}

void rmsNormXsimd(benchmark::State &state) {
  benchRmsNorm(state, xsimdRmsNorm);
}

constexpr int64_t kGeluN = int64_t(1) << 24;
constexpr int kGeluBlock = 4096; // must match -D BLOCK in bench/CMakeLists.txt

// GELU on uniform inputs in [-1, 1) (makeBuffer's, as every kernel here) and
// on standard normal ones: gelu_erf's erf takes its short form only where a
// strip's inputs are all small, and xsimd's erf branches the same way.
enum class GeluInputs { Uniform, Normal };

Buffer makeGeluInput(GeluInputs inputs) {
  return inputs == GeluInputs::Uniform ? makeBuffer(kGeluN, 1) : makeNormalBuffer(kGeluN, 1);
}

template <typename Launch>
void benchGeluBlockc(benchmark::State &state, GeluInputs inputs, Launch launch) {
  Buffer x = makeGeluInput(inputs), y = makeBuffer(kGeluN, 3);
  blockc_launch_options options = threadsOption(int(state.range(0)));
  for (auto _ : state)
    if (launch(y.get(), x.get(), int32_t(kGeluN), blockc_grid{kGeluN / kGeluBlock, 1, 1},
               &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * kGeluN * 8);
}

template <typename Fn> void benchGelu(benchmark::State &state, GeluInputs inputs, Fn fn) {
  Buffer x = makeGeluInput(inputs), y = makeBuffer(kGeluN, 3);
  for (auto _ : state)
    parallelRanges(int(state.range(0)), kGeluN,
                   [&](int64_t begin, int64_t end) { fn(x.get(), y.get(), begin, end); });
  state.SetBytesProcessed(state.iterations() * kGeluN * 8);
}

void addXsimd(benchmark::State &state) {
  benchBinaryBaseline(state, kAddN, xsimdAdd);
}

void softmaxXsimd(benchmark::State &state) {
  benchRowsBaseline(state, xsimdSoftmax);
}

} // namespace

BENCHMARK(addBlockc)->Name("aot_vector_add/blockc")->Apply(threadArgs);
BENCHMARK(addBaseline)->Name("aot_vector_add/baseline")->Apply(threadArgs);
BENCHMARK(softmaxBlockc)->Name("aot_softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("aot_softmax/baseline")->Apply(softmaxArgs);
BENCHMARK(fusedSoftmaxBlockc)->Name("aot_fused_softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("aot_fused_softmax/baseline")->Apply(softmaxArgs);
BENCHMARK(layerNormBlockc)->Name("aot_layer_norm/blockc")->Apply(normArgs);
BENCHMARK(layerNormBaseline)->Name("aot_layer_norm/baseline")->Apply(normArgs);
BENCHMARK(rmsNormBlockc)->Name("aot_rms_norm/blockc")->Apply(normArgs);
BENCHMARK(rmsNormBaseline)->Name("aot_rms_norm/baseline")->Apply(normArgs);
BENCHMARK(addXsimd)->Name("aot_vector_add/baseline_xsimd")->Apply(threadArgs);
BENCHMARK(softmaxXsimd)->Name("aot_softmax/baseline_xsimd")->Apply(softmaxArgs);
BENCHMARK(softmaxXsimd)->Name("aot_fused_softmax/baseline_xsimd")->Apply(softmaxArgs);
BENCHMARK(layerNormXsimd)->Name("aot_layer_norm/baseline_xsimd")->Apply(normArgs);
BENCHMARK(rmsNormXsimd)->Name("aot_rms_norm/baseline_xsimd")->Apply(normArgs);

int main(int argc, char **argv) {
  // The GELUs on both input distributions: aot_gelu (uniform), aot_gelu_normal,
  // aot_gelu_erf, aot_gelu_erf_normal. xsimd's GELU calls xsimd::erf, so it is
  // the baseline of both blockc kernels; the -O3 loop, of gelu on uniform inputs.
  using GeluLaunch = decltype(&gelu_launch);
  struct GeluKernel {
    const char *name;
    GeluLaunch launch;
  };
  for (GeluInputs inputs : {GeluInputs::Uniform, GeluInputs::Normal}) {
    std::string suffix = inputs == GeluInputs::Normal ? "_normal" : "";
    auto add = [&](const std::string &name, auto run) {
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State &state) {
        run(state, inputs);
      })->Apply(threadArgs);
    };
    for (GeluKernel kernel :
         {GeluKernel{"aot_gelu", &gelu_launch}, GeluKernel{"aot_gelu_erf", &gelu_erf_launch}}) {
      GeluLaunch launch = kernel.launch;
      add(kernel.name + suffix + "/blockc",
          [launch](benchmark::State &state, GeluInputs in) { benchGeluBlockc(state, in, launch); });
      add(kernel.name + suffix + "/baseline_xsimd",
          [](benchmark::State &state, GeluInputs in) { benchGelu(state, in, xsimdGelu); });
    }
    if (inputs == GeluInputs::Uniform)
      add("aot_gelu/baseline",
          [](benchmark::State &state, GeluInputs in) { benchGelu(state, in, baselineGelu); });
  }
  return runWithRatios(argc, argv);
}
