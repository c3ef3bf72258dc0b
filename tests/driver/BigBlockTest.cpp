//===- BigBlockTest.cpp - Blocks whose scratch the stack cannot hold ------===//
//
// A fused matmul and column softmax with one N x N problem per program: at
// N = 512 a program needs over 4 MiB of scratch, which comes from the
// launcher's per-thread arena. Run through `blockc run` (the JIT) and through
// an object and header linked into a C program (AOT), on the launching thread
// and on an OpenMP worker, and checked against a reference in double.
//
//===----------------------------------------------------------------------===//
#include "CProgram.h"
#include "RunProcess.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using namespace blockc::test;
namespace fs = std::filesystem;

namespace {

const char *const kMatmulColumnSoftmax = R"(constexpr N: i32 = 512

// C[p] = softmax(A[p] @ B[p]) along each column: program p, problem p.
kernel @matmul_column_softmax(%a: ptr<f32>, %b: ptr<f32>, %c: ptr<f32>) {
  %pid = program_id 0
  %n = const N : i32
  %square = mul %n, %n
  %base = mul %pid, %square
  %rows = arange 0, N
  %cols = arange 0, N
  %rows_col = expand_dims %rows, axis=1
  %cols_row = expand_dims %cols, axis=0
  %row_offs = mul %rows_col, %n
  %offs_local = add %row_offs, %cols_row
  %offs = add %offs_local, %base
  %a_ptrs = addptr %a, %offs
  %b_ptrs = addptr %b, %offs
  %a_tile = load %a_ptrs
  %b_tile = load %b_ptrs
  %zero = const 0.0 : f32[N, N]
  %logits = dot %a_tile, %b_tile, %zero
  %col_max = reduce_max %logits, axis=0
  %col_max_row = expand_dims %col_max, axis=0
  %shifted = sub %logits, %col_max_row
  %numerator = exp %shifted
  %col_sum = reduce_sum %numerator, axis=0
  %col_sum_row = expand_dims %col_sum, axis=0
  %probs = div %numerator, %col_sum_row
  %c_ptrs = addptr %c, %offs
  store %c_ptrs, %probs
}
)";

constexpr int kN = 512;
constexpr size_t kSquare = size_t(kN) * kN;

fs::path writeKernel(const fs::path &dir) {
  fs::path path = dir / "matmul_column_softmax.bir";
  std::ofstream(path) << kMatmulColumnSoftmax;
  return path;
}

/// The f32 payload of a .npy file blockc wrote: its last `count` elements.
std::vector<float> readNpy(const fs::path &path, size_t count) {
  std::string data = slurp(path.string());
  std::vector<float> values(count);
  if (data.size() >= count * sizeof(float))
    std::memcpy(values.data(), data.data() + data.size() - count * sizeof(float),
                count * sizeof(float));
  return values;
}

/// The largest error of `c` against softmax(a @ b) along columns, computed in
/// double, relative to max(1e-3, reference) so that tiny probabilities count
/// by their absolute error.
double worstError(const float *a, const float *b, const float *c) {
  std::vector<double> logits(kSquare, 0.0);
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < kN; ++k)
      for (int j = 0; j < kN; ++j)
        logits[i * kN + j] += double(a[i * kN + k]) * b[k * kN + j];
  double worst = 0;
  for (int j = 0; j < kN; ++j) {
    double top = -INFINITY, sum = 0;
    for (int i = 0; i < kN; ++i)
      top = std::max(top, logits[i * kN + j]);
    for (int i = 0; i < kN; ++i)
      sum += std::exp(logits[i * kN + j] - top);
    for (int i = 0; i < kN; ++i) {
      double want = std::exp(logits[i * kN + j] - top) / sum;
      double error = std::fabs(c[i * kN + j] - want) / std::max(1e-3, want);
      worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
  }
  return worst;
}

/// Runs the kernel with `blockc run` over `programs` problems and checks each.
void runAndCheck(const std::string &name, int programs, int threads) {
  fs::path dir = scratchDir(name);
  fs::path kernel = writeKernel(dir);
  std::string shape =
      std::to_string(programs) + "x" + std::to_string(kN) + "x" + std::to_string(kN) + "xf32=";
  ProcessResult r = runBlockc(
      "run " + kernel.string() + " --grid " + std::to_string(programs) + " --threads " +
      std::to_string(threads) + " --arg a=" + shape + "random --arg b=" + shape +
      "random --arg c=" + shape + "nan --output a=@" + (dir / "a.npy").string() + " --output b=@" +
      (dir / "b.npy").string() + " --output c=@" + (dir / "c.npy").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::vector<float> a = readNpy(dir / "a.npy", programs * kSquare);
  std::vector<float> b = readNpy(dir / "b.npy", programs * kSquare);
  std::vector<float> c = readNpy(dir / "c.npy", programs * kSquare);
  for (int p = 0; p < programs; ++p)
    EXPECT_LT(worstError(&a[p * kSquare], &b[p * kSquare], &c[p * kSquare]), 1e-4)
        << "problem " << p;
}

} // namespace

TEST(BigBlocks, RunOnTheLaunchingThread) {
  runAndCheck("big_block_run", 1, 1);
}

TEST(BigBlocks, RunOnOpenMPWorkers) {
  runAndCheck("big_block_run_workers", 2, 2);
}

// The object and its header, as `blockc compile` writes them, in a C program
// that launches through the header's NAME_launch and checks the result itself.
TEST(BigBlocks, AheadOfTimeObjectRuns) {
  fs::path dir = scratchDir("big_block_aot");
  fs::path kernel = writeKernel(dir);
  std::string blockc = std::string("'") + BLOCKC_BINARY + "' compile " + kernel.string();
  ASSERT_EQ(runCommand(blockc + " --emit=obj -o " + (dir / "k.o").string()).exitCode, 0);
  ASSERT_EQ(runCommand(blockc + " --emit=header -o " + (dir / "k.h").string()).exitCode, 0);
  std::ofstream(dir / "main.c") << R"(#include "k.h"
#include <math.h>
#include <stdio.h>
enum { N = 512, PROBLEMS = 2 };
int main(void) {
  static float a[N * N * PROBLEMS], b[N * N * PROBLEMS], c[N * N * PROBLEMS];
  static double logits[N];
  unsigned state = 1;
  for (int i = 0; i < N * N * PROBLEMS; ++i) {
    state = state * 1664525u + 1013904223u;
    a[i] = (float)(state >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
    state = state * 1664525u + 1013904223u;
    b[i] = ((float)(state >> 8) / (float)(1u << 24) * 2.0f - 1.0f) / 16.0f;
  }
  blockc_grid grid = {PROBLEMS, 1, 1};
  for (int launch = 0; launch < 3; ++launch)
    if (matmul_column_softmax_launch(a, b, c, grid, NULL) != 0) {
      puts(blockc_last_error());
      return 2;
    }
  /* Column 0 and column N-1 of each problem, against double. */
  for (int p = 0; p < PROBLEMS; ++p)
    for (int j = 0; j < N; j += N - 1) {
      const float *pa = a + p * N * N, *pb = b + p * N * N, *pc = c + p * N * N;
      double top = -INFINITY, sum = 0;
      for (int i = 0; i < N; ++i) {
        logits[i] = 0;
        for (int k = 0; k < N; ++k)
          logits[i] += (double)pa[i * N + k] * pb[k * N + j];
        top = fmax(top, logits[i]);
      }
      for (int i = 0; i < N; ++i)
        sum += exp(logits[i] - top);
      for (int i = 0; i < N; ++i) {
        double want = exp(logits[i] - top) / sum;
        if (!(fabs(pc[i * N + j] - want) <= 1e-4 * fmax(1e-3, want))) {
          printf("c[%d][%d][%d] = %g, want %g\n", p, i, j, pc[i * N + j], want);
          return 3;
        }
      }
    }
  puts("ok");
  return 0;
}
)";
  std::string build = programBuildCommand(BLOCKC_C_COMPILER, dir, dir / "main.c", dir / "k.o",
                                          dir / "app", "-std=c11 -O1");
  ASSERT_EQ(runCommand(build).exitCode, 0) << build;
  ProcessResult run = runCommand("BLOCKC_NUM_THREADS=2 " + (dir / "app").string());
  EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_EQ(run.out, "ok\n");
}
