//===- LanguageBench.cpp - Scans and atomics beside libtorch and plain C++ ===//
//
// The language's newer ops on the work they are for:
// - cumsum: a row-wise prefix sum of a rows x n f32 matrix, one program per
//   row, `scan` along the row (a log-step prefix in each strip, the carry
//   passed on); beside torch.cumsum(dim=1) and a sequential C++ loop per row;
// - histogram: 2^22 int32 values into 256 bins, each program adding its
//   lanes with `atomic_add` (relaxed) into the shared bins; beside
//   torch.bincount and a C++ loop with per-thread bins merged at the end.
// Each at 1, 2, 4, ... threads up to the cores; ratios at the end (> 1:
// blockc faster).
//
//===----------------------------------------------------------------------===//
#include "Baselines.h"
#include "BenchSupport.h"
#include "ExampleKernels.h"
#ifdef BLOCKC_BENCH_LIBTORCH
#include "TorchBaselines.h"
#endif

#include <cstring>

using namespace blockc;
using namespace blockc::bench;

namespace {

const char *kCumsum = R"(
constexpr N: i32 = 4096
kernel @cumsum_rows(%x: ptr<f32>, %y: ptr<f32>) {
  %row = program_id 0
  %n = const N : i32
  %start = mul %row, %n
  %cols = arange 0, N
  %offs = add %start, %cols
  %xp = addptr %x, %offs
  %v = load %xp
  %c = scan %v, axis=0 combine(%a, %b) {
    %s = add %a, %b
    yield %s
  }
  %yp = addptr %y, %offs
  store %yp, %c
}
)";

const char *kHistogram = R"(
constexpr BLOCK: i32 = 4096
kernel @histogram(%x: ptr<i32>, %bins: ptr<i32>, %n: i32) {
  %pid = program_id 0
  %block = const BLOCK : i32
  %start = mul %pid, %block
  %r = arange 0, BLOCK
  %offs = add %start, %r
  %m = cmp lt %offs, %n
  %xp = addptr %x, %offs
  %v = load %xp, mask=%m
  %bp = addptr %bins, %v
  %one = const 1 : i32
  %old = atomic_add %bp, %one, mask=%m, sem=relaxed
}
)";

constexpr int64_t kRows = 2048, kCols = 4096;
constexpr int64_t kValues = int64_t(1) << 22, kBins = 256, kBlock = 4096;

void cumsumBlockc(benchmark::State &state) {
  static const JitKernel &kernel =
      compiledKernel("cumsum.bir", kCumsum, {{"N", std::to_string(kCols)}});
  Buffer x = makeBuffer(kRows * kCols, 1), y = makeBuffer(kRows * kCols, 2);
  float *px = x.get(), *py = y.get();
  void *args[] = {&px, &py};
  blockc_launch_options options = threadsOption(int(state.range(0)));
  for (auto _ : state)
    if (blockc_launch(kernel.fn, args, {kRows, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}

void cumsumLoop(benchmark::State &state) {
  Buffer x = makeBuffer(kRows * kCols, 1), y = makeBuffer(kRows * kCols, 2);
  for (auto _ : state)
    parallelRanges(int(state.range(0)), kRows, [&](int64_t begin, int64_t end) {
      baselineCumsumRows(x.get(), y.get(), kCols, begin, end);
    });
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}

std::vector<int32_t> histogramInput() {
  std::vector<int32_t> x(kValues);
  for (int64_t i = 0; i < kValues; ++i)
    x[i] = int32_t((uint64_t(i) * 2654435761u >> 7) % kBins);
  return x;
}

void histogramBlockc(benchmark::State &state) {
  static const JitKernel &kernel =
      compiledKernel("histogram.bir", kHistogram, {{"BLOCK", std::to_string(kBlock)}});
  std::vector<int32_t> x = histogramInput(), bins(kBins);
  int32_t *px = x.data(), *pb = bins.data();
  int32_t n = int32_t(kValues);
  void *args[] = {&px, &pb, &n};
  blockc_launch_options options = threadsOption(int(state.range(0)));
  for (auto _ : state) {
    std::memset(pb, 0, kBins * sizeof(int32_t));
    if (blockc_launch(kernel.fn, args, {kValues / kBlock, 1, 1}, &options) != BLOCKC_SUCCESS) {
      state.SkipWithError(blockc_last_error());
      return;
    }
  }
  if (bins[0] + bins[kBins - 1] == 0)
    state.SkipWithError("the histogram is empty");
  state.SetBytesProcessed(state.iterations() * kValues * 4);
}

void histogramLoop(benchmark::State &state) {
  std::vector<int32_t> x = histogramInput(), bins(kBins);
  int threads = int(state.range(0));
  std::vector<std::vector<int32_t>> partial(threads, std::vector<int32_t>(kBins));
  for (auto _ : state) {
    parallelRanges(threads, kValues, [&](int64_t begin, int64_t end) {
      std::vector<int32_t> &mine = partial[omp_get_thread_num()];
      std::fill(mine.begin(), mine.end(), 0);
      baselineHistogram(x.data(), mine.data(), begin, end);
    });
    std::fill(bins.begin(), bins.end(), 0);
    for (const auto &p : partial)
      for (int64_t b = 0; b < kBins; ++b)
        bins[b] += p[b];
    benchmark::DoNotOptimize(bins.data());
  }
  state.SetBytesProcessed(state.iterations() * kValues * 4);
}

#ifdef BLOCKC_BENCH_LIBTORCH
void cumsumLibtorch(benchmark::State &state) {
  Buffer x = makeBuffer(kRows * kCols, 1), y = makeBuffer(kRows * kCols, 2);
  setTorchThreads(int(state.range(0)));
  TorchCumsum torch(x.get(), y.get(), kRows, kCols);
  for (auto _ : state)
    torch.run();
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}

void histogramLibtorch(benchmark::State &state) {
  std::vector<int32_t> x = histogramInput();
  setTorchThreads(int(state.range(0)));
  TorchBincount torch(x.data(), kValues, kBins);
  for (auto _ : state)
    torch.run();
  state.SetBytesProcessed(state.iterations() * kValues * 4);
}
#endif

} // namespace

BENCHMARK(cumsumBlockc)->Name("cumsum/blockc")->Apply(threadArgs);
BENCHMARK(cumsumLoop)->Name("cumsum/baseline_loop")->Apply(threadArgs);
BENCHMARK(histogramBlockc)->Name("histogram/blockc")->Apply(threadArgs);
BENCHMARK(histogramLoop)->Name("histogram/baseline_loop")->Apply(threadArgs);
#ifdef BLOCKC_BENCH_LIBTORCH
BENCHMARK(cumsumLibtorch)->Name("cumsum/baseline_libtorch")->Apply(threadArgs);
BENCHMARK(histogramLibtorch)->Name("histogram/baseline_libtorch")->Apply(threadArgs);
#endif

int main(int argc, char **argv) {
  return runWithRatios(argc, argv);
}
