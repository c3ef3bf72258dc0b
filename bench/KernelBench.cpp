//===- KernelBench.cpp - JIT-compiled blockc kernels beside plain loops ---===//
//
// vector_add (2^24 f32), softmax (a row in BLOCK-sized chunks) and
// fused_softmax (a whole row in one block, BLOCK = n) on 1024x1024 and
// 4096x4096 f32, compiled by blockc for the host in process, launched through
// blockc_launch, against the -O3 -march=native loops of Baselines.cpp split
// over the same number of OpenMP threads, in this one process on the same kind
// of buffers; both softmax forms also against the SLEEF hand-written loop
// (baseline_sleef). The matmul examples have their own suite, MatmulBench.cpp.
//
//===----------------------------------------------------------------------===//
#include "Baselines.h"
#include "BenchSupport.h"
#include "ExampleKernels.h"
#include "WorkerTimes.h"
#include "XsimdBaselines.h"

#include <map>

using namespace blockc;
using namespace blockc::bench;

namespace {

constexpr int64_t kAddN = int64_t(1) << 24;
constexpr int kAddBlock = 4096;

/// Launches `kernel` (vector_add) over 2^24 elements at state.range(0) threads.
void benchVectorAdd(benchmark::State &state, const JitKernel &kernel) {
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

void vectorAddBlockc(benchmark::State &state) {
  static const JitKernel &kernel =
      exampleKernel("vector_add", {{"BLOCK", std::to_string(kAddBlock)}});
  benchVectorAdd(state, kernel);
}

// The same kernel without non-temporal stores: streaming against cached stores.
void vectorAddCachedStores(benchmark::State &state) {
  CompileOptions options;
  options.streamingStores = CompileOptions::StreamingStores::Never;
  static const JitKernel &kernel =
      exampleKernel("vector_add", {{"BLOCK", std::to_string(kAddBlock)}}, options);
  benchVectorAdd(state, kernel);
}

// Where a launch's time goes (WorkerTimes.h), averaged over the iterations:
// args (threads, first touch by one thread = 0 or by the launch's threads = 1).
void vectorAddWorkerTimes(benchmark::State &state) {
  static const JitKernel &kernel =
      exampleKernel("vector_add", {{"BLOCK", std::to_string(kAddBlock)}});
  int threads = int(state.range(0));
  int touching = state.range(1) ? threads : 1;
  Buffer a = makeBufferTouchedBy(touching, kAddN, 1), b = makeBufferTouchedBy(touching, kAddN, 2),
         c = makeBufferTouchedBy(touching, kAddN, 3);
  float *pa = a.get(), *pb = b.get(), *pc = c.get();
  int32_t n = kAddN;
  void *args[] = {&pa, &pb, &pc, &n};
  blockc_launch_options options = threadsOption(threads);
  WorkerTimes::wrap(kernel.fn);
  WorkerTimes::Summary total;
  for (auto _ : state) {
    int status = 0;
    WorkerTimes::Summary s =
        WorkerTimes::timeLaunch(args, {kAddN / kAddBlock, 1, 1}, &options, status);
    if (status != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
    total.startupUs += s.startupUs;
    total.busiestUs += s.busiestUs;
    total.meanBusyUs += s.meanBusyUs;
    total.lastEndUs += s.lastEndUs;
    total.threadsUsed = s.threadsUsed;
  }
  double iterations = double(state.iterations());
  state.counters["startup_us"] = total.startupUs / iterations;
  state.counters["busiest_us"] = total.busiestUs / iterations;
  state.counters["mean_busy_us"] = total.meanBusyUs / iterations;
  state.counters["last_end_us"] = total.lastEndUs / iterations;
  state.counters["threads_used"] = total.threadsUsed;
  state.SetBytesProcessed(state.iterations() * kAddN * 12);
}

void vectorAddBaseline(benchmark::State &state) {
  benchBinaryBaseline(state, kAddN, baselineAdd);
}

/// Launches `kernel` (either softmax form) over an n x n matrix, one program
/// per row: args (n, threads).
void benchSoftmax(benchmark::State &state, const JitKernel &kernel) {
  int64_t n = state.range(0);
  Buffer in = makeBuffer(n * n, 4), out = makeBuffer(n * n, 5);
  float *pin = in.get(), *pout = out.get();
  int32_t cols = int32_t(n);
  void *args[] = {&pout, &pin, &cols, &cols, &cols};
  blockc_launch_options options = threadsOption(int(state.range(1)));
  for (auto _ : state)
    if (blockc_launch(kernel.fn, args, {n, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * n * n * 8);
}

void softmaxBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  static std::map<int64_t, const JitKernel *> kernels;
  if (!kernels.count(n))
    kernels[n] = &exampleKernel("softmax", {{"BLOCK", std::to_string(std::min<int64_t>(n, 4096))}});
  benchSoftmax(state, *kernels[n]);
}

void softmaxBaseline(benchmark::State &state) {
  benchRowsBaseline(state, baselineSoftmax);
}

void softmaxSleefBaseline(benchmark::State &state) {
  benchRowsBaseline(state, baselineSoftmaxSleef);
}

void vectorAddXsimd(benchmark::State &state) {
  benchBinaryBaseline(state, kAddN, xsimdAdd);
}

void softmaxXsimd(benchmark::State &state) {
  benchRowsBaseline(state, xsimdSoftmax);
}

/// fused_softmax.bir with BLOCK = n: the whole row in one block, the form
/// Triton's fused-softmax tutorial uses, beside softmax.bir's chunked loops.
void fusedSoftmaxBlockc(benchmark::State &state) {
  int64_t n = state.range(0);
  static std::map<int64_t, const JitKernel *> kernels;
  if (!kernels.count(n))
    kernels[n] = &exampleKernel("fused_softmax", {{"BLOCK", std::to_string(n)}});
  benchSoftmax(state, *kernels[n]);
}

} // namespace

BENCHMARK(vectorAddBlockc)->Name("vector_add/blockc")->Apply(threadArgs);
BENCHMARK(vectorAddBaseline)->Name("vector_add/baseline")->Apply(threadArgs);
BENCHMARK(vectorAddCachedStores)->Name("vector_add/baseline_cached_stores")->Apply(threadArgs);
BENCHMARK(vectorAddWorkerTimes)
    ->Name("vector_add_workers")
    ->Apply([](benchmark::internal::Benchmark *b) {
      for (int64_t t : threadCounts())
        for (int64_t touch : {0, 1})
          b->Args({t, touch});
      b->ArgNames({"threads", "parallel_touch"})->UseRealTime()->Unit(benchmark::kMillisecond);
    });
BENCHMARK(softmaxBlockc)->Name("softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("softmax/baseline")->Apply(softmaxArgs);
BENCHMARK(softmaxSleefBaseline)->Name("softmax/baseline_sleef")->Apply(softmaxArgs);
BENCHMARK(fusedSoftmaxBlockc)->Name("fused_softmax/blockc")->Apply(softmaxArgs);
BENCHMARK(softmaxBaseline)->Name("fused_softmax/baseline")->Apply(softmaxArgs);
BENCHMARK(softmaxSleefBaseline)->Name("fused_softmax/baseline_sleef")->Apply(softmaxArgs);
BENCHMARK(vectorAddXsimd)->Name("vector_add/baseline_xsimd")->Apply(threadArgs);
BENCHMARK(softmaxXsimd)->Name("softmax/baseline_xsimd")->Apply(softmaxArgs);
BENCHMARK(softmaxXsimd)->Name("fused_softmax/baseline_xsimd")->Apply(softmaxArgs);

int main(int argc, char **argv) {
  return runWithRatios(argc, argv);
}
