// dot (section 10.13) for every operand type it accepts, in a tiled matmul with a K
// loop, masked edges on M, N and K, an accumulator loaded from memory, odd problem
// and block sizes, and A and B transposed through their strides, against a naive
// triple loop; once with each dot strategy of the test target's cascade forced
// (the others are skipped, naming the strategy), and once on the generic path. Float operands are
// small integers, so every product and partial sum is exact in f32 whatever the order of additions
// or the use of fma; the comparison is then exact. i8 operands cover their whole range and the i32
// accumulators start anywhere, so sums wrap.
#include "Reference.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

// D = A @ B + C, one BM x BN tile a program; A and B are addressed through
// (row, column) strides so transposed operands need no copy; C and D are row-major.
const char *kMatmul = R"(
constexpr BM: i32 = 16
constexpr BN: i32 = 16
constexpr BK: i32 = 16
kernel @mm(%a: ptr<TA>, %b: ptr<TA>, %c: ptr<TC>, %d: ptr<TC>, %M: i32, %N: i32, %K: i32,
           %sam: i32, %sak: i32, %sbk: i32, %sbn: i32) {
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
  %mask_m = cmp lt %om_col, %M
  %mask_n = cmp lt %on_row, %N
  %mask_c = and %mask_m, %mask_n
  %cr = mul %om_col, %N
  %co = add %cr, %on_row
  %cp = addptr %c, %co
  %acc0 = load %cp, mask=%mask_c
  %ar = mul %om_col, %sam
  %ac = mul %rk_row, %sak
  %ao = add %ar, %ac
  %ap0 = addptr %a, %ao
  %br = mul %rk_col, %sbk
  %bc = mul %on_row, %sbn
  %bo = add %br, %bc
  %bp0 = addptr %b, %bo
  %a_step = mul %bk, %sak
  %b_step = mul %bk, %sbk
  %acc, %ap_end, %bp_end = for %k0 = %zero to %K step %bk iter(%run = %acc0, %ap = %ap0, %bp = %bp0) {
    %k_left = sub %K, %k0
    %a_mask_k = cmp lt %rk_row, %k_left
    %a_mask = and %mask_m, %a_mask_k
    %a_tile = load %ap, mask=%a_mask
    %b_mask_k = cmp lt %rk_col, %k_left
    %b_mask = and %b_mask_k, %mask_n
    %b_tile = load %bp, mask=%b_mask
    %next = dot %a_tile, %b_tile, %run
    %ap_next = addptr %ap, %a_step
    %bp_next = addptr %bp, %b_step
    yield %next, %ap_next, %bp_next
  }
  %dp = addptr %d, %co
  store %dp, %acc, mask=%mask_c
}
)";

struct DotCase {
  DType in, acc;
  int m, n, k, bm, bn, bk;
  bool transposed;
};

/// The strategies of every ISA's cascade; the test target has some of them.
const char *const kStrategies[] = {"amx",     "avx512-fma", "avx2-fma", "ime",    "ime-model",
                                   "rvv-fma", "sve-fma",    "neon-fma", "generic"};

/// Why `options.dotStrategy` cannot run case `c` here, after adding to
/// `options` what the strategy needs. ime-model is the IME strategy with
/// each smt.vmadot computed by the C++ model of the instruction
/// (tests/cross/ImeModelExport.cpp): its code is written for VLEN 256, so it
/// is compiled with zvl256b and runs under QEMU at VLEN 256 only.
std::optional<std::string> unavailable(const DotCase &c, CompileOptions &options) {
  const std::string &strategy = options.dotStrategy;
  bool ime = strategy == "ime" || strategy == "ime-model";
  if (ime && c.in != DType::I8)
    return strategy + " computes i8 dots only";
  if (strategy == "ime-model") {
    options.features = "+zvl256b";
    const char *bits = std::getenv("BLOCKC_TEST_VECTOR_BITS");
    if (!bits || std::string(bits) != "256")
      return std::string("ime-model's code is written for VLEN 256: it runs in qemu.rvv256");
  }
  return missingDotStrategy(strategy, options.features);
}

class DotTest : public testing::TestWithParam<std::tuple<DotCase, const char *>> {};

TEST_P(DotTest, MatchesNaiveTripleLoop) {
  const DotCase &c = std::get<0>(GetParam());
  CompileOptions options;
  options.dotStrategy = std::get<1>(GetParam());
  if (std::optional<std::string> missing = unavailable(c, options))
    GTEST_SKIP() << *missing;
  std::string source = kMatmul;
  for (auto [from, to] :
       {std::pair<std::string, const char *>{"TA", typeName(c.in)}, {"TC", typeName(c.acc)}})
    for (size_t at; (at = source.find(from)) != std::string::npos;)
      source.replace(at, from.size(), to);
  options.defines = {
      {"BM", std::to_string(c.bm)}, {"BN", std::to_string(c.bn)}, {"BK", std::to_string(c.bk)}};
  auto module = compileWithOptionsOrFail(source, options);
  ASSERT_TRUE(module);
  std::mt19937_64 rng(c.m * 131 + c.n * 17 + c.k);
  auto operand = [&] {
    return isFloat(c.in) ? floatVal(double(int(rng() % 9) - 4)) : intVal(wrapInt(rng(), 8));
  };
  Buffer a(c.in, size_t(c.m) * c.k), b(c.in, size_t(c.k) * c.n), acc(c.acc, size_t(c.m) * c.n),
      d(c.acc, size_t(c.m) * c.n);
  int32_t sam = c.transposed ? 1 : c.k, sak = c.transposed ? c.m : 1;
  int32_t sbk = c.transposed ? 1 : c.n, sbn = c.transposed ? c.k : 1;
  for (int i = 0; i < c.m; ++i)
    for (int kk = 0; kk < c.k; ++kk)
      a.set(size_t(i) * sam + size_t(kk) * sak, operand());
  for (int kk = 0; kk < c.k; ++kk)
    for (int j = 0; j < c.n; ++j)
      b.set(size_t(kk) * sbk + size_t(j) * sbn, operand());
  for (size_t i = 0; i < acc.size(); ++i)
    acc.set(i,
            isFloat(c.acc) ? floatVal(double(int(rng() % 201) - 100)) : intVal(wrapInt(rng(), 32)));
  d.fillBits(0x7b7b7b7b7b7b7b7bULL);
  Buffer untouched(c.acc, 1, 0);
  untouched.fillBits(0x7b7b7b7b7b7b7b7bULL);
  int32_t M = c.m, N = c.n, K = c.k;
  launch(module->kernels()[0], {cdiv(c.m, c.bm), cdiv(c.n, c.bn), 1},
         {a, b, acc, d, M, N, K, sam, sak, sbk, sbn});
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      Val want;
      if (isFloat(c.acc)) {
        double s = acc.get(size_t(i) * c.n + j).f;
        for (int kk = 0; kk < c.k; ++kk)
          s += a.get(size_t(i) * sam + size_t(kk) * sak).f * b.get(size_t(kk) * sbk + j * sbn).f;
        want = floatVal(s);
      } else {
        uint64_t s = uint64_t(acc.get(size_t(i) * c.n + j).i);
        for (int kk = 0; kk < c.k; ++kk)
          s += uint64_t(a.get(size_t(i) * sam + size_t(kk) * sak).i *
                        b.get(size_t(kk) * sbk + j * sbn).i);
        want = intVal(wrapInt(s, 32));
      }
      uint64_t got = d.bits(size_t(i) * c.n + j);
      ASSERT_TRUE(matches(c.acc, encode(c.acc, want), got))
          << "D[" << i << "][" << j << "]: expected " << describe(c.acc, encode(c.acc, want))
          << ", got " << describe(c.acc, got) << "\n"
          << source;
    }
  for (size_t i = d.size(); i < d.capacity(); ++i)
    ASSERT_EQ(d.bits(i), untouched.bits(0)) << "wrote past D at " << i;
}

std::vector<DotCase> dotCases() {
  const std::pair<DType, DType> types[] = {{DType::F32, DType::F32},
                                           {DType::F16, DType::F32},
                                           {DType::BF16, DType::F32},
                                           {DType::F64, DType::F64},
                                           {DType::I8, DType::I32}};
  // (M, N, K) with (BM, BN, BK): odd sizes, partial tiles on every edge, a K that
  // is not a multiple of BK, N = 1 (one element per row), single-element blocks,
  // and a problem smaller than one block.
  const int shapes[][6] = {{13, 7, 19, 8, 8, 4},
                           {33, 17, 40, 16, 16, 16},
                           {5, 1, 9, 4, 1, 4},
                           {1, 1, 1, 1, 1, 1},
                           {5, 64, 3, 5, 32, 3},
                           {20, 30, 70, 7, 9, 11},
                           {65, 77, 91, 32, 32, 32},
                           {3, 5, 2, 16, 16, 16},
                           // Blocks of 1, 7, 33, 100 and 257 along each of M, N and K.
                           {257, 100, 70, 33, 100, 7},
                           {100, 257, 40, 100, 33, 33},
                           {40, 33, 257, 7, 33, 257},
                           {257, 7, 100, 257, 7, 100},
                           {3, 300, 33, 1, 257, 33}};
  std::vector<DotCase> all;
  for (auto [in, acc] : types)
    for (const auto &s : shapes)
      for (bool t : {false, true})
        all.push_back({in, acc, s[0], s[1], s[2], s[3], s[4], s[5], t});
  return all;
}

INSTANTIATE_TEST_SUITE_P(
    Types, DotTest,
    testing::Combine(testing::ValuesIn(dotCases()),
                     testing::ValuesIn(dotStrategiesOfTestArchitecture({std::begin(kStrategies),
                                                                        std::end(kStrategies)}))),
    [](const testing::TestParamInfo<DotTest::ParamType> &info) {
      const DotCase &c = std::get<0>(info.param);
      std::string strategy = std::get<1>(info.param);
      std::replace(strategy.begin(), strategy.end(), '-', '_');
      auto x = [](int a, int b, int d) {
        return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(d);
      };
      return std::string(typeName(c.in)) + "_" + x(c.m, c.n, c.k) + "_blocks_" +
             x(c.bm, c.bn, c.bk) + (c.transposed ? "_transposed_" : "_") + strategy;
    });

// f32 operands are multiplied in full f32 precision (never TF32): (1 + 2^-12)^2
// is 1 + 2^-11 in f32, while operands cut to TF32's 10 fraction bits give 1.
TEST(Dot, F32KeepsFullPrecision) {
  const char *source = R"(
kernel @p(%a: ptr<f32>, %out: ptr<f32>) {
  %r = arange 0, 16
  %rc = expand_dims %r, axis=1
  %rr = expand_dims %r, axis=0
  %c16 = const 16 : i32
  %row = mul %rc, %c16
  %offs = add %row, %rr
  %ap = addptr %a, %offs
  %x = load %ap
  %zero = const 0.0 : f32[16, 16]
  %y = dot %x, %x, %zero
  %op = addptr %out, %offs
  store %op, %y
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  // Diagonal matrix: every result element is one product.
  std::vector<float> a(256, 0.f), out(256, -1.f);
  float v = 1.f + std::ldexp(1.f, -12);
  for (int i = 0; i < 16; ++i)
    a[i * 17] = v;
  launch(module->kernels()[0], {1, 1, 1}, {a, out});
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      ASSERT_EQ(out[i * 16 + j], i == j ? 1.f + std::ldexp(1.f, -11) : 0.f) << i << "," << j;
}

} // namespace
