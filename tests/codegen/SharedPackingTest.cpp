// Packed B panels shared by the programs of a launch (blockc_packed_operand):
// a dot that reads B in place packs its panel once per launch and thread, and
// the programs of the same grid column reuse it. What must never happen is a
// program reading a panel packed from what B held before: B is rewritten
// between launches here (A too), at the same addresses, and every launch
// must see the new values. Programs along x share their column's panel; with several rows
// of programs and K a few fused dots deep, most programs find it packed.
// Operands are small integers, so every sum is exact in any order.
#include "Reference.h"

using namespace blockc;
using namespace blockc::test;

namespace {

const char *kColumnMatmul = R"(
constexpr BM: i32 = 32
constexpr BN: i32 = 64
constexpr BK: i32 = 32
kernel @mm(%a: ptr<TA>, %b: ptr<TA>, %c: ptr<f32>, %M: i32, %N: i32, %K: i32) {
  %pm = program_id 0
  %pn = program_id 1
  %zero = const 0 : i32
  %bm = const BM : i32
  %bn = const BN : i32
  %bk = const BK : i32
  %m0 = mul %pm, %bm
  %n0 = mul %pn, %bn
  %rm = arange 0, BM
  %rn = arange 0, BN
  %rk = arange 0, BK
  %om = add %m0, %rm
  %on = add %n0, %rn
  %om_col = expand_dims %om, axis=1
  %on_row = expand_dims %on, axis=0
  %rk_row = expand_dims %rk, axis=0
  %rk_col = expand_dims %rk, axis=1
  %ar = mul %om_col, %K
  %ao = add %ar, %rk_row
  %ap0 = addptr %a, %ao
  %br = mul %rk_col, %N
  %bo = add %br, %on_row
  %bp0 = addptr %b, %bo
  %b_step = mul %bk, %N
  %acc0 = const 0.0 : f32[BM, BN]
  %acc, %ap_end, %bp_end = for %k0 = %zero to %K step %bk
      iter(%run = %acc0, %ap = %ap0, %bp = %bp0) {
    %a_tile = load %ap
    %b_tile = load %bp
    %next = dot %a_tile, %b_tile, %run
    %ap_next = addptr %ap, %bk
    %bp_next = addptr %bp, %b_step
    yield %next, %ap_next, %bp_next
  }
  %cr = mul %om_col, %N
  %co = add %cr, %on_row
  %cp = addptr %c, %co
  store %cp, %acc
}
)";

class SharedPacking : public testing::TestWithParam<std::tuple<DType, const char *>> {};

TEST_P(SharedPacking, EveryLaunchSeesItsOperandsAsTheyAre) {
  auto [in, strategy] = GetParam();
  CompileOptions options;
  options.dotStrategy = strategy;
  if (std::optional<std::string> missing = missingDotStrategy(strategy, options.features))
    GTEST_SKIP() << *missing;
  std::string source = kColumnMatmul;
  for (size_t at; (at = source.find("TA")) != std::string::npos;)
    source.replace(at, 2, typeName(in));
  auto module = compileWithOptionsOrFail(source, options);
  ASSERT_TRUE(module);
  // 4 programs a column, two columns; on AMX, K = 1536 is a fused dot 1024
  // deep and one 512 deep.
  const int m = 128, n = 128, k = 1536;
  Buffer a(in, size_t(m) * k), b(in, size_t(k) * n), out(DType::F32, size_t(m) * n);
  std::mt19937_64 rng(7);
  auto small = [&] { return floatVal(double(int(rng() % 7) - 3)); };
  for (int launchIndex = 0; launchIndex < 3; ++launchIndex) {
    for (size_t i = 0; i < a.size(); ++i)
      a.set(i, small());
    for (size_t i = 0; i < b.size(); ++i)
      b.set(i, small());
    out.fillBits(0x7b7b7b7bULL);
    launch(module->kernels()[0], {m / 32, n / 64, 1}, {a, b, out, m, n, k});
    std::vector<double> column(static_cast<size_t>(k));
    for (int j = 0; j < n; ++j) {
      for (int r = 0; r < k; ++r)
        column[size_t(r)] = b.get(size_t(r) * n + j).f;
      for (int i = 0; i < m; ++i) {
        double want = 0;
        for (int r = 0; r < k; ++r)
          want += a.get(size_t(i) * k + r).f * column[size_t(r)];
        ASSERT_EQ(out.get(size_t(i) * n + j).f, want)
            << "C[" << i << "][" << j << "] at launch " << launchIndex << " on " << strategy;
      }
    }
  }
}

const char *const kStrategies[] = {"amx",     "avx512-fma", "avx2-fma", "rvv-fma",
                                   "sve-fma", "neon-fma",   "generic"};

INSTANTIATE_TEST_SUITE_P(Strategies, SharedPacking,
                         testing::Combine(testing::Values(DType::BF16, DType::F32),
                                          testing::ValuesIn(dotStrategiesOfTestArchitecture(
                                              {std::begin(kStrategies), std::end(kStrategies)}))),
                         [](const testing::TestParamInfo<SharedPacking::ParamType> &info) {
                           std::string name = std::string(typeName(std::get<0>(info.param))) + "_" +
                                              std::get<1>(info.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

} // namespace
