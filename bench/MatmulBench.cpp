//===- MatmulBench.cpp - The matmul examples against OpenBLAS and libtorch ===//
//
// examples/matmul.bir (f32, row-major operands, strides passed as arguments)
// JIT-compiled by blockc for the host and launched through blockc_launch,
// against OpenBLAS's cblas_sgemm and, where CMake found libtorch, libtorch's
// matmul, in this one process on the same buffers and as many threads: square
// 256 to 4096, and tall-skinny M x N x K 4096x64x4096, 64x4096x4096 and
// 4096x4096x64. Then examples/matmul_softmax.bir, softmax(A @ B) fused, against
// the same work as two blockc kernels (`baseline_separate`: the matmul example,
// the product through memory, then the softmax example) and against libtorch.
//
//   matmul_bench [-D NAME=VALUE]... [--benchmark_* flags]
//
// -D binds a constexpr of examples/matmul.bir (BLOCK_M, BLOCK_N, BLOCK_K,
// GROUP_M) for matmul/blockc and the first kernel of
// matmul_softmax/baseline_separate.
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "ExampleKernels.h"

#ifdef BLOCKC_BENCH_LIBTORCH
#include "TorchBaselines.h"
#endif

#include <cblas.h>
#include <cstring>
#include <map>
#include <string>
#include <thread>

using namespace blockc;
using namespace blockc::bench;

namespace {

/// Thread counts of every shape: 1, 2 and, on a bigger machine, every core.
std::vector<int64_t> threadCounts() {
  std::vector<int64_t> counts = {1, 2};
  if (int64_t cores = std::thread::hardware_concurrency(); cores > 2)
    counts.push_back(cores);
  return counts;
}

int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/// The value `defines` binds to `name` (the last binding wins, as with -D), or
/// `fallback`.
int64_t boundOr(const ConstexprBindings &defines, const std::string &name, int64_t fallback) {
  for (auto it = defines.rbegin(); it != defines.rend(); ++it)
    if (it->first == name)
      return std::stoll(it->second);
  return fallback;
}

/// The -D bindings of the command line.
ConstexprBindings &commandLineDefines() {
  static ConstexprBindings defines;
  return defines;
}

/// The matmul example compiled with some bindings, and its launch grid.
struct MatmulKernel {
  const JitKernel *kernel;
  int64_t blockM, blockN;

  int64_t programs(int64_t m, int64_t n) const { return cdiv(m, blockM) * cdiv(n, blockN); }
};

/// examples/matmul.bir with `defines` bound over its defaults (64x128x64
/// tiles), compiled once per distinct `defines`.
const MatmulKernel &matmulKernel(const ConstexprBindings &defines) {
  static std::map<ConstexprBindings, MatmulKernel> kernels;
  auto found = kernels.find(defines);
  if (found == kernels.end())
    found = kernels
                .emplace(defines, MatmulKernel{&exampleKernel("matmul", defines),
                                               boundOr(defines, "BLOCK_M", 64),
                                               boundOr(defines, "BLOCK_N", 128)})
                .first;
  return found->second;
}

/// Row-major A (M x K), B (K x N) and C (M x N) as the arguments of
/// matmul.bir and matmul_softmax.bir: (a, b, c, M, N, K, then the row and
/// column stride of each matrix). `args` points into this object: no copies.
struct MatmulArgs {
  MatmulArgs(float *a, float *b, float *c, int64_t m, int64_t n, int64_t k)
      : a(a), b(b), c(c), m(int32_t(m)), n(int32_t(n)), k(int32_t(k)) {}
  MatmulArgs(const MatmulArgs &) = delete;
  MatmulArgs &operator=(const MatmulArgs &) = delete;

  float *a, *b, *c;
  int32_t m, n, k, one = 1;
  void *args[12] = {&a, &b, &c, &m, &n, &k, &k, &one, &n, &one, &n, &one};
};

/// Buffers of one benchmark: the operands of C = A @ B for the shape args
/// (M, N, K, threads), the same values for every side.
struct MatmulProblem {
  explicit MatmulProblem(const benchmark::State &state)
      : m(state.range(0)), n(state.range(1)), k(state.range(2)), threads(int(state.range(3))),
        a(makeBuffer(m * k, 6)), b(makeBuffer(k * n, 7)), c(makeBuffer(m * n, 8)) {}

  int64_t m, n, k;
  int threads;
  Buffer a, b, c;
};

void setGflops(benchmark::State &state, const MatmulProblem &p) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(2 * p.m * p.n * p.k) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

/// Launches `kernel` on `programs` programs; false (and the benchmark skipped
/// with the launcher's error) if it fails.
bool launch(benchmark::State &state, const JitKernel &kernel, void **args, int64_t programs,
            const blockc_launch_options &options) {
  if (blockc_launch(kernel.fn, args, {programs, 1, 1}, &options) == BLOCKC_SUCCESS)
    return true;
  state.SkipWithError(blockc_last_error());
  return false;
}

void matmulBlockc(benchmark::State &state) {
  const MatmulKernel &kernel = matmulKernel(commandLineDefines());
  MatmulProblem p(state);
  MatmulArgs args(p.a.get(), p.b.get(), p.c.get(), p.m, p.n, p.k);
  blockc_launch_options options = threadsOption(p.threads);
  for (auto _ : state)
    if (!launch(state, *kernel.kernel, args.args, kernel.programs(p.m, p.n), options))
      return;
  setGflops(state, p);
}

void matmulOpenBlas(benchmark::State &state) {
  MatmulProblem p(state);
  openblas_set_num_threads(p.threads);
  for (auto _ : state)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(p.m), int(p.n), int(p.k), 1.0f,
                p.a.get(), int(p.k), p.b.get(), int(p.n), 0.0f, p.c.get(), int(p.n));
  setGflops(state, p);
}

/// examples/matmul.bir with bf16 operands (f32 accumulator and result) or i8
/// operands (i32 accumulator and result): the dots AMX computes where the CPU
/// has it. The same tiles and launch as the f32 example.
std::string lowPrecisionMatmul(bool bf16) {
  std::string source = exampleSource("matmul");
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = source.find(from);
    if (at == std::string::npos) {
      std::fprintf(stderr, "matmul_bench: examples/matmul.bir has no '%s'\n", from.c_str());
      std::exit(1);
    }
    source.replace(at, from.size(), to);
  };
  if (bf16) {
    replace("%a: ptr<f32>, %b: ptr<f32>", "%a: ptr<bf16>, %b: ptr<bf16>");
    replace("%zero_f = const 0.0 : f32", "%zero_f = const 0.0 : bf16");
  } else {
    replace("%a: ptr<f32>, %b: ptr<f32>, %c: ptr<f32>", "%a: ptr<i8>, %b: ptr<i8>, %c: ptr<i32>");
    replace("%zero_f = const 0.0 : f32", "%zero_f = const 0 : i8");
    replace("const 0.0 : f32[BLOCK_M, BLOCK_N]", "const 0 : i32[BLOCK_M, BLOCK_N]");
  }
  return source;
}

/// bf16 (state.range(4) == 1) or i8 matmul through blockc; GFLOP/s counts
/// multiply-adds as two operations for both.
void matmulLowPrecision(benchmark::State &state) {
  bool bf16 = state.range(4) == 1;
  static const MatmulKernel bf16Kernel{
      &compiledKernel("matmul_bf16", lowPrecisionMatmul(true), commandLineDefines()),
      boundOr(commandLineDefines(), "BLOCK_M", 64), boundOr(commandLineDefines(), "BLOCK_N", 128)};
  static const MatmulKernel i8Kernel{
      &compiledKernel("matmul_i8", lowPrecisionMatmul(false), commandLineDefines()),
      bf16Kernel.blockM, bf16Kernel.blockN};
  const MatmulKernel &kernel = bf16 ? bf16Kernel : i8Kernel;
  MatmulProblem p(state);
  // Small integers: bf16 holds them exactly and i8 products stay far from overflow.
  std::vector<uint16_t> a16(size_t(p.m * p.k)), b16(size_t(p.k * p.n));
  std::vector<int8_t> a8(a16.size()), b8(b16.size());
  for (size_t i = 0; i < a16.size(); ++i)
    a8[i] = int8_t(i % 7) - 3, a16[i] = uint16_t(0x3f80 + (i % 3) * 0x80);
  for (size_t i = 0; i < b16.size(); ++i)
    b8[i] = int8_t(i % 5) - 2, b16[i] = uint16_t(0x3f80 + (i % 5) * 0x80);
  void *a = bf16 ? static_cast<void *>(a16.data()) : a8.data();
  void *b = bf16 ? static_cast<void *>(b16.data()) : b8.data();
  void *c = p.c.get();
  int32_t m = int32_t(p.m), n = int32_t(p.n), k = int32_t(p.k), one = 1;
  void *args[12] = {&a, &b, &c, &m, &n, &k, &k, &one, &n, &one, &n, &one};
  blockc_launch_options options = threadsOption(p.threads);
  for (auto _ : state)
    if (!launch(state, *kernel.kernel, args, kernel.programs(p.m, p.n), options))
      return;
  setGflops(state, p);
}

void lowPrecisionShapes(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    for (int64_t n : {1024, 2048})
      for (int64_t bf16 : {1, 0})
        b->Args({n, n, n, t, bf16});
  b->ArgNames({"m", "n", "k", "threads", "bf16"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

void matmulShapes(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts()) {
    for (int64_t n : {256, 512, 1024, 2048, 4096})
      b->Args({n, n, n, t});
    b->Args({4096, 64, 4096, t});
    b->Args({64, 4096, 4096, t});
    b->Args({4096, 4096, 64, t});
  }
  b->ArgNames({"m", "n", "k", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

/// Rows of softmax(A @ B) as the example is meant to be used: N within one
/// block of columns (BLOCK_N = 256 by default).
void matmulSoftmaxShapes(benchmark::internal::Benchmark *b) {
  for (int64_t t : threadCounts())
    for (int64_t m : {1024, 4096})
      b->Args({m, 256, 256, t});
  b->ArgNames({"m", "n", "k", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

void matmulSoftmaxBlockc(benchmark::State &state) {
  // Each program holds BLOCK_M whole rows of the product: N <= BLOCK_N.
  constexpr int64_t kBlockM = 64, kBlockN = 256;
  static const JitKernel &kernel = exampleKernel("matmul_softmax", {});
  MatmulProblem p(state);
  if (p.n > kBlockN) {
    state.SkipWithError("matmul_softmax needs N <= BLOCK_N (256)");
    return;
  }
  MatmulArgs args(p.a.get(), p.b.get(), p.c.get(), p.m, p.n, p.k);
  blockc_launch_options options = threadsOption(p.threads);
  for (auto _ : state)
    if (!launch(state, kernel, args.args, cdiv(p.m, kBlockM), options))
      return;
  setGflops(state, p);
}

void matmulSoftmaxSeparate(benchmark::State &state) {
  const MatmulKernel &matmul = matmulKernel(commandLineDefines());
  MatmulProblem p(state);
  // One softmax program per row, a block as wide as the row (as kernel_bench).
  static std::map<int64_t, const JitKernel *> softmaxKernels;
  const JitKernel *&softmax = softmaxKernels[p.n];
  if (!softmax)
    softmax = &exampleKernel("softmax", {{"BLOCK", std::to_string(std::min<int64_t>(p.n, 4096))}});
  Buffer product = makeBuffer(p.m * p.n, 9);
  MatmulArgs args(p.a.get(), p.b.get(), product.get(), p.m, p.n, p.k);
  float *out = p.c.get(), *in = product.get();
  int32_t cols = int32_t(p.n);
  void *softmaxArgs[] = {&out, &in, &cols, &cols, &cols};
  blockc_launch_options options = threadsOption(p.threads);
  for (auto _ : state)
    if (!launch(state, *matmul.kernel, args.args, matmul.programs(p.m, p.n), options) ||
        !launch(state, *softmax, softmaxArgs, p.m, options))
      return;
  setGflops(state, p);
}

#ifdef BLOCKC_BENCH_LIBTORCH
/// Debian's libtorch multiplies f32 matrices with the system BLAS's sgemm_
/// (libblas.so.3: OpenBLAS, the library cblas_sgemm comes from), whose threads
/// at::set_num_threads does not set: both are set here.
void setLibtorchThreads(int threads) {
  setTorchThreads(threads);
  openblas_set_num_threads(threads);
}

void matmulLibtorch(benchmark::State &state) {
  MatmulProblem p(state);
  TorchMatmul torch(p.a.get(), p.b.get(), p.c.get(), p.m, p.n, p.k);
  setLibtorchThreads(p.threads);
  for (auto _ : state)
    torch.matmul();
  setGflops(state, p);
}

void matmulSoftmaxLibtorch(benchmark::State &state) {
  MatmulProblem p(state);
  TorchMatmul torch(p.a.get(), p.b.get(), p.c.get(), p.m, p.n, p.k);
  setLibtorchThreads(p.threads);
  for (auto _ : state)
    torch.matmulSoftmax();
  setGflops(state, p);
}
#endif

/// Takes `-D NAME=VALUE` and `-DNAME=VALUE` out of argv into
/// commandLineDefines(); false on a malformed one.
bool takeDefines(int &argc, char **argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const char *binding = nullptr;
    if (std::strcmp(argv[i], "-D") == 0 && i + 1 < argc)
      binding = argv[++i];
    else if (std::strncmp(argv[i], "-D", 2) == 0 && argv[i][2])
      binding = argv[i] + 2;
    if (!binding) {
      argv[kept++] = argv[i];
      continue;
    }
    const char *equals = std::strchr(binding, '=');
    if (!equals || equals == binding) {
      std::fprintf(stderr, "matmul_bench: expected -D NAME=VALUE, got '%s'\n", binding);
      return false;
    }
    commandLineDefines().emplace_back(std::string(binding, equals), std::string(equals + 1));
  }
  argc = kept;
  return true;
}

} // namespace

BENCHMARK(matmulBlockc)->Name("matmul/blockc")->Apply(matmulShapes);
BENCHMARK(matmulOpenBlas)->Name("matmul/baseline_openblas")->Apply(matmulShapes);
#ifdef BLOCKC_BENCH_LIBTORCH
BENCHMARK(matmulLibtorch)->Name("matmul/baseline_libtorch")->Apply(matmulShapes);
#endif
BENCHMARK(matmulLowPrecision)->Name("matmul_lowp/blockc")->Apply(lowPrecisionShapes);
BENCHMARK(matmulSoftmaxBlockc)->Name("matmul_softmax/blockc")->Apply(matmulSoftmaxShapes);
BENCHMARK(matmulSoftmaxSeparate)
    ->Name("matmul_softmax/baseline_separate")
    ->Apply(matmulSoftmaxShapes);
#ifdef BLOCKC_BENCH_LIBTORCH
BENCHMARK(matmulSoftmaxLibtorch)
    ->Name("matmul_softmax/baseline_libtorch")
    ->Apply(matmulSoftmaxShapes);
#endif

int main(int argc, char **argv) {
  if (!takeDefines(argc, argv))
    return 2;
  return runWithRatios(argc, argv);
}
