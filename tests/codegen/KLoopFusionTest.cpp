// K loops fused into one dot (lowering/lib/CodeGenKLoops.cpp): the trips whose
// tiles are whole run as dots of several K steps. Fusion is decided when the
// kernel runs, from the masks at the first and last trips and from how far the
// pointers step; each case here holds a decision's edge, against a naive loop:
//   - K a multiple of BLOCK_K (every trip fused), one more (the last trip left
//     to the loop), one fewer (a partial last trip), a single trip, no trip;
//   - pointers stepping by more than one tile (columns skipped: no fusion, as
//     the runtime step check decides), and by exactly one;
//   - M and N edges (masks off on some rows: no fusion for those programs);
//   - more trips than one fused dot takes (runs of several dots).
// Float operands are small integers, so every sum is exact in any order.
#include "Reference.h"

#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

// C = sum over trips t and r < BK with c = t * step + r < K of A[:, c] B[c, :],
// one BM x BN tile a program: a matmul when step == BK.
const char *kSteppedMatmul = R"(
constexpr BM: i32 = 16
constexpr BN: i32 = 64
constexpr BK: i32 = 32
kernel @mm(%a: ptr<TA>, %b: ptr<TA>, %c: ptr<f32>, %M: i32, %N: i32, %K: i32, %step: i32,
           %trips: i32) {
  %pm = program_id 0
  %pn = program_id 1
  %zero = const 0 : i32
  %one = const 1 : i32
  %bm = const BM : i32
  %bn = const BN : i32
  %m0 = mul %pm, %bm
  %n0 = mul %pn, %bn
  %rm = arange 0, BM
  %rn = arange 0, BN
  %om = add %m0, %rm
  %on = add %n0, %rn
  %rk = arange 0, BK
  %om_col = expand_dims %om, axis=1
  %on_row = expand_dims %on, axis=0
  %rk_row = expand_dims %rk, axis=0
  %rk_col = expand_dims %rk, axis=1
  %mask_m = cmp lt %om_col, %M
  %mask_n = cmp lt %on_row, %N
  %ar = mul %om_col, %K
  %ao = add %ar, %rk_row
  %ap0 = addptr %a, %ao
  %br = mul %rk_col, %N
  %bo = add %br, %on_row
  %bp0 = addptr %b, %bo
  %b_step = mul %step, %N
  %acc0 = const 0.0 : f32[BM, BN]
  %acc, %ap_end, %bp_end = for %t = %zero to %trips step %one iter(%run = %acc0, %ap = %ap0, %bp = %bp0) {
    %k0 = mul %t, %step
    %k_left = sub %K, %k0
    %a_mask_k = cmp lt %rk_row, %k_left
    %a_mask = and %mask_m, %a_mask_k
    %a_tile = load %ap, mask=%a_mask
    %b_mask_k = cmp lt %rk_col, %k_left
    %b_mask = and %b_mask_k, %mask_n
    %b_tile = load %bp, mask=%b_mask
    %next = dot %a_tile, %b_tile, %run
    %ap_next = addptr %ap, %step
    %bp_next = addptr %bp, %b_step
    yield %next, %ap_next, %bp_next
  }
  %cr = mul %om_col, %N
  %co = add %cr, %on_row
  %cp = addptr %c, %co
  %mask_c = and %mask_m, %mask_n
  store %cp, %acc, mask=%mask_c
}
)";

struct SteppedCase {
  int m, n, k, step, trips;
};

std::ostream &operator<<(std::ostream &os, const SteppedCase &c) {
  return os << c.m << "x" << c.n << "x" << c.k << " step " << c.step << " trips " << c.trips;
}

class KLoopFusion : public testing::TestWithParam<std::tuple<SteppedCase, DType, const char *>> {};

TEST_P(KLoopFusion, MatchesNaiveLoop) {
  auto [c, in, strategy] = GetParam();
  CompileOptions options;
  options.dotStrategy = strategy;
  if (std::optional<std::string> missing = missingDotStrategy(strategy, options.features))
    GTEST_SKIP() << *missing;
  std::string source = kSteppedMatmul;
  for (size_t at; (at = source.find("TA")) != std::string::npos;)
    source.replace(at, 2, typeName(in));
  auto module = compileWithOptionsOrFail(source, options);
  ASSERT_TRUE(module);
  std::mt19937_64 rng(uint64_t(c.m * 7 + c.n * 131 + c.k * 3 + c.step));
  auto small = [&] { return floatVal(double(int(rng() % 7) - 3)); };
  // The last trip may read up to BK - 1 columns past K where its mask is
  // off; rows are K long, so those lanes stay inside A and B as allocated.
  constexpr int kBlockK = 32;
  Buffer a(in, size_t(c.m) * c.k + kBlockK), b(in, (size_t(c.k) + kBlockK) * c.n),
      out(DType::F32, size_t(c.m) * c.n);
  for (size_t i = 0; i < a.size(); ++i)
    a.set(i, small());
  for (size_t i = 0; i < b.size(); ++i)
    b.set(i, small());
  out.fillBits(0x7b7b7b7bULL);
  int32_t M = c.m, N = c.n, K = c.k, step = c.step, trips = c.trips;
  launch(module->kernels()[0], {cdiv(c.m, 16), cdiv(c.n, 64), 1},
         {a, b, out, M, N, K, step, trips});
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double want = 0;
      for (int t = 0; t < c.trips; ++t)
        for (int r = 0; r < kBlockK && r < c.k - t * c.step; ++r) {
          size_t column = size_t(t) * c.step + r;
          want += a.get(size_t(i) * c.k + column).f * b.get(column * c.n + j).f;
        }
      ASSERT_EQ(out.get(size_t(i) * c.n + j).f, want)
          << "C[" << i << "][" << j << "] with " << c << " on " << strategy;
    }
}

std::vector<SteppedCase> steppedCases() {
  auto trips = [](int k, int step) { return (k + step - 1) / step; };
  std::vector<SteppedCase> cases;
  for (int k : {32 * 40, 32 * 40 + 1, 32 * 40 - 3, 32, 5})
    cases.push_back({32, 128, k, 32, trips(k, 32)});
  cases.push_back({32, 128, 0, 32, 0});
  // Steps of more than one tile skip columns: never fused.
  cases.push_back({32, 64, 32 * 20, 33, trips(32 * 20, 33)});
  cases.push_back({32, 64, 32 * 20, 64, trips(32 * 20, 64)});
  // Partial tiles along M and N: only whole programs fuse.
  cases.push_back({37, 150, 32 * 33, 32, trips(32 * 33, 32)});
  // Fewer trips than the masks allow: every trip whole.
  cases.push_back({32, 64, 32 * 30, 32, 7});
  return cases;
}

const char *const kFusingStrategies[] = {"amx",     "avx512-fma", "avx2-fma", "rvv-fma",
                                         "sve-fma", "neon-fma",   "generic"};

INSTANTIATE_TEST_SUITE_P(
    Cases, KLoopFusion,
    testing::Combine(testing::ValuesIn(steppedCases()), testing::Values(DType::F32, DType::BF16),
                     testing::ValuesIn(dotStrategiesOfTestArchitecture(
                         {std::begin(kFusingStrategies), std::end(kFusingStrategies)}))),
    [](const testing::TestParamInfo<KLoopFusion::ParamType> &info) {
      const SteppedCase &c = std::get<0>(info.param);
      DType in = std::get<1>(info.param);
      std::string strategy = std::get<2>(info.param);
      std::string name = std::string(typeName(in)) + "_" + std::to_string(c.m) + "x" +
                         std::to_string(c.n) + "x" + std::to_string(c.k) + "_step" +
                         std::to_string(c.step) + "_trips" + std::to_string(c.trips) + "_" +
                         strategy;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

} // namespace
