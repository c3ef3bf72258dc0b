// for, if and call (section 10.14): loop-carried blocks and scalars, loops that run
// zero times, induction variables of every integer type near their limits, if with
// block and scalar results, nested loops, and inlined helper functions.
// Float inputs are small integers and halves so every expected value is exact.
#include "ChildProcess.h"
#include "Reference.h"

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

constexpr int kLanes = 37; // one full strip and a partial one on 16-lane targets

// a <- a * 0.5 + float(i) and b <- b + a (a block and a scalar), count trips, and
// remember the last induction value; the loop bounds and step are arguments.
const char *kLoopKernel = R"(
kernel @loop(%x: ptr<f32>, %out: ptr<f32>, %counts: ptr<i32>, %lo: IT, %hi: IT, %st: IT) {
  %r = arange 0, 37
  %xp = addptr %x, %r
  %x0 = load %xp
  %zero = const 0 : i32
  %one = const 1 : i32
  %minus = const -1 : i32
  %half = const 0.5 : f32
  %fzero = const 0.0 : f32
  %acc, %sum, %trips, %last = for %i = %lo to %hi step %st
      iter(%a = %x0, %b = %fzero, %n = %zero, %l = %minus) {
    %i32 = cast %i to i32
    %fi = cast %i to f32
    %scaled = mul %a, %half
    %a_next = add %scaled, %fi
    %a_max = reduce_max %a_next, axis=0
    %b_next = add %b, %a_max
    %n_next = add %n, %one
    yield %a_next, %b_next, %n_next, %i32
  }
  %op = addptr %out, %r
  store %op, %acc
  %s37 = const 37 : i32
  %sp2 = addptr %out, %s37
  store %sp2, %sum
  store %counts, %trips
  %lp = addptr %counts, %one
  store %lp, %last
}
)";

struct LoopCase {
  DType iv;
  int64_t lo, hi, step;
};

class LoopTest : public testing::TestWithParam<LoopCase> {};

TEST_P(LoopTest, CarriedBlockAndScalars) {
  const LoopCase &c = GetParam();
  std::string source = kLoopKernel;
  source.replace(source.find("IT"), 2, typeName(c.iv));
  source.replace(source.find("IT"), 2, typeName(c.iv));
  source.replace(source.find("IT"), 2, typeName(c.iv));
  auto module = compileInProcessOrFail(source);
  ASSERT_TRUE(module);
  // Shared with the child that runs the launch, so a loop that never ends fails
  // the test instead of hanging it.
  SharedPages pages(sizeof(float) * (2 * kLanes + 1) + 2 * sizeof(int32_t), false);
  float *x = pages.at<float>(SharedPages::Align::Start, 0), *out = x + kLanes;
  int32_t *counts = reinterpret_cast<int32_t *>(out + kLanes + 1);
  counts[0] = counts[1] = -7;
  for (int i = 0; i < kLanes; ++i)
    x[i] = float(i % 7) - 3;
  int64_t lo = c.lo, hi = c.hi, step = c.step;
  void *px = x, *po = out, *pc = counts;
  void *args[] = {&px, &po, &pc, &lo, &hi, &step};
  std::string outcome = launchInChild(module->kernels()[0].fn, {1, 1, 1}, args, 2);
  ASSERT_EQ(outcome, "") << "the loop " << c.lo << " to " << c.hi << " step " << c.step << " over "
                         << typeName(c.iv) << "\n"
                         << source;
  // The body runs for lo, lo + step, ... while below hi; in 128 bits nothing
  // wraps, not even an i64 induction variable stepping past INT64_MAX.
  std::vector<float> a(x, x + kLanes);
  float b = 0;
  int32_t trips = 0, last = -1;
  for (__int128 i = c.lo; c.step > 0 && i < c.hi; i += c.step) {
    float largest = -INFINITY;
    for (float &v : a) {
      float scaled = v * 0.5f;
      v = scaled + float(i);
      largest = std::max(largest, v);
    }
    b += largest;
    ++trips;
    last = int32_t(i);
  }
  EXPECT_EQ(counts[0], trips);
  EXPECT_EQ(counts[1], last);
  EXPECT_EQ(out[kLanes], b);
  for (int i = 0; i < kLanes; ++i)
    ASSERT_EQ(out[i], a[i]) << "lane " << i;
}

std::vector<LoopCase> loopCases() {
  std::vector<LoopCase> all;
  for (DType t : {DType::I8, DType::I16, DType::I32, DType::I64}) {
    int64_t max = ~wrapInt(uint64_t(1) << (bitsOf(t) - 1), bitsOf(t)), min = -max - 1;
    const LoopCase common[] = {
        {t, 0, 10, 1},         {t, 3, 17, 4},    {t, -5, 5, 3}, // ordinary
        {t, 5, 5, 1},          {t, 7, 3, 1},                    // lo >= hi: zero trips
        {t, 0, 10, 0},         {t, 0, 10, -2},                  // step <= 0: zero trips
        {t, min, min + 3, 1},                                   // from the bottom
        {t, max - 10, max, 3}, {t, 1, max, max}, // the step past the last trip overflows
    };
    all.insert(all.end(), std::begin(common), std::end(common));
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Bounds, LoopTest, testing::ValuesIn(loopCases()),
                         [](const testing::TestParamInfo<LoopCase> &info) {
                           auto num = [](int64_t v) {
                             return (v < 0 ? "m" : "") +
                                    std::to_string(v < 0 ? 0 - uint64_t(v) : uint64_t(v));
                           };
                           const LoopCase &c = info.param;
                           return std::string(typeName(c.iv)) + "_" + num(c.lo) + "_to_" +
                                  num(c.hi) + "_step_" + num(c.step);
                         });

// Two carried blocks and two carried scalars that trade places every iteration,
// and a Fibonacci pair whose update reads both carried values: every yielded
// value must be computed from the previous iteration's values, not a half-updated set.
TEST(ControlFlow, SwappedCarriedValues) {
  const char *source = R"(
kernel @swap(%x: ptr<i32>, %y: ptr<i32>, %out: ptr<i32>, %n: i32) {
  %r = arange 0, 21
  %xp = addptr %x, %r
  %yp = addptr %y, %r
  %a0 = load %xp
  %b0 = load %yp
  %zero = const 0 : i32
  %one = const 1 : i32
  %s0 = const 100 : i32
  %t0 = const 200 : i32
  %fa, %fb, %sa, %sb, %ga, %gb = for %i = %zero to %n step %one
      iter(%a = %a0, %b = %b0, %s = %s0, %t = %t0, %f = %a0, %g = %b0) {
    %fg = add %f, %g
    yield %b, %a, %t, %s, %g, %fg
  }
  %p0 = addptr %out, %r
  store %p0, %fa
  %c21 = const 21 : i32
  %p1 = addptr %p0, %c21
  store %p1, %fb
  %p2 = addptr %p1, %c21
  store %p2, %ga
  %p3 = addptr %p2, %c21
  store %p3, %gb
  %c84 = const 84 : i32
  %p4 = addptr %out, %c84
  store %p4, %sa
  %p5 = addptr %p4, %one
  store %p5, %sb
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  for (int32_t n : {0, 1, 2, 5, 10}) {
    std::vector<int32_t> x(21), y(21), out(86, -1);
    for (int i = 0; i < 21; ++i)
      x[i] = i, y[i] = 1000 - i;
    launch(module->kernels()[0], {1, 1, 1}, {x, y, out, n});
    for (int i = 0; i < 21; ++i) {
      int32_t f = x[i], g = y[i];
      for (int k = 0; k < n; ++k) {
        int32_t next = f + g;
        f = g, g = next;
      }
      EXPECT_EQ(out[i], n % 2 ? y[i] : x[i]) << "n=" << n << " lane " << i;
      EXPECT_EQ(out[21 + i], n % 2 ? x[i] : y[i]) << "n=" << n << " lane " << i;
      EXPECT_EQ(out[42 + i], f) << "n=" << n << " lane " << i;
      EXPECT_EQ(out[63 + i], g) << "n=" << n << " lane " << i;
    }
    EXPECT_EQ(out[84], n % 2 ? 200 : 100) << "n=" << n;
    EXPECT_EQ(out[85], n % 2 ? 100 : 200) << "n=" << n;
  }
}

// Block accumulators reduced after their loop (ReduceCarriedBlocks reduces them
// every trip instead): a row's maximum and minimum with NaN and infinities among
// the values (NaN is ignored, so an all-NaN row gives the inits), its f32 sum
// (small integers: exact in any order) and an i32 sum that wraps, against a
// loop over the elements; masked tails, and rows of no element at all.
TEST(ControlFlow, BlockAccumulatorsReducedAfterTheLoop) {
  const char *source = R"(
kernel @rows(%x: ptr<f32>, %k: ptr<i32>, %out: ptr<f32>, %iout: ptr<i32>, %n: i32) {
  %row = program_id 0
  %zero = const 0 : i32
  %block = const 16 : i32
  %cols = arange 0, 16
  %row_start = mul %row, %n
  %x_row = addptr %x, %row_start
  %k_row = addptr %k, %row_start
  %neg_inf = const -inf : f32
  %pos_inf = const inf : f32
  %fzero = const 0.0 : f32
  %izero = const 0 : i32
  %max_init = const -inf : f32[16]
  %min_init = const inf : f32[16]
  %sum_init = const 0.0 : f32[16]
  %isum_init = const 0 : i32[16]
  %mx, %mn, %sm, %is = for %c = %zero to %n step %block
      iter(%mx_run = %max_init, %mn_run = %min_init, %sm_run = %sum_init, %is_run = %isum_init) {
    %offs = add %c, %cols
    %mask = cmp lt %offs, %n
    %xp = addptr %x_row, %offs
    %kp = addptr %k_row, %offs
    %for_max = load %xp, mask=%mask, other=%neg_inf
    %for_min = load %xp, mask=%mask, other=%pos_inf
    %for_sum = load %xp, mask=%mask, other=%fzero
    %ints = load %kp, mask=%mask, other=%izero
    %mx_next = max %mx_run, %for_max
    %mn_next = min %for_min, %mn_run
    %sm_next = add %sm_run, %for_sum
    %is_next = add %is_run, %ints
    yield %mx_next, %mn_next, %sm_next, %is_next
  }
  %row_max = reduce_max %mx, axis=0
  %row_min = reduce_min %mn, axis=0
  %row_sum = reduce_sum %sm, axis=0
  %row_isum = reduce_sum %is, axis=0
  %three = const 3 : i32
  %at = mul %row, %three
  %p0 = addptr %out, %at
  store %p0, %row_max
  %one = const 1 : i32
  %p1 = addptr %p0, %one
  store %p1, %row_min
  %p2 = addptr %p1, %one
  store %p2, %row_sum
  %ip = addptr %iout, %row
  store %ip, %row_isum
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int32_t n : {0, 1, 16, 37, 100}) {
    constexpr int kRows = 5;
    std::vector<float> x(size_t(kRows * std::max(n, 1)));
    std::vector<int32_t> k(x.size());
    std::mt19937 rng{uint32_t(n)};
    for (int r = 0; r < kRows; ++r)
      for (int i = 0; i < n; ++i) {
        float v = float(int(rng() % 201) - 100);
        if (r == 1 && i % 3 == 0)
          v = nan; // some NaN
        if (r == 2)
          v = nan; // all NaN
        if (r == 3 && i == n / 2)
          v = i % 2 ? inf : -inf;
        x[size_t(r * n + i)] = v;
        k[size_t(r * n + i)] = int32_t(rng()); // sums wrap
      }
    std::vector<float> out(3 * kRows, -7.f);
    std::vector<int32_t> iout(kRows, -7);
    launch(module->kernels()[0], {kRows, 1, 1}, {x, k, out, iout, n});
    for (int r = 0; r < kRows; ++r) {
      float mx = -inf, mn = inf, sum = 0;
      uint32_t isum = 0;
      for (int i = 0; i < n; ++i) {
        float v = x[size_t(r * n + i)];
        if (!std::isnan(v)) {
          mx = std::max(mx, v);
          mn = std::min(mn, v);
        }
        sum += v;
        isum += uint32_t(k[size_t(r * n + i)]);
      }
      std::string where = "n=" + std::to_string(n) + " row " + std::to_string(r);
      EXPECT_EQ(out[size_t(3 * r)], mx) << where;
      EXPECT_EQ(out[size_t(3 * r + 1)], mn) << where;
      if (std::isnan(sum))
        EXPECT_TRUE(std::isnan(out[size_t(3 * r + 2)])) << where;
      else
        EXPECT_EQ(out[size_t(3 * r + 2)], sum) << where;
      EXPECT_EQ(iout[size_t(r)], int32_t(isum)) << where;
    }
  }
}

// if with a block and a scalar result; the else branch loads, the then branch
// computes; an if without else that only stores; and an if inside a loop that
// updates a carried block on odd iterations only.
TEST(ControlFlow, IfResultsAndSideEffects) {
  const char *source = R"(
kernel @branch(%x: ptr<f32>, %out: ptr<f32>, %sout: ptr<i32>, %flag: i32, %n: i32) {
  %r = arange 0, 23
  %xp = addptr %x, %r
  %v = load %xp
  %zero = const 0 : i32
  %one = const 1 : i32
  %c = cmp gt %flag, %zero
  %blk, %s = if %c {
    %two = const 2.0 : f32
    %d = mul %v, %two
    %k = const 7 : i32
    yield %d, %k
  } else {
    %c23 = const 23 : i32
    %xq = addptr %xp, %c23
    %w = load %xq
    %k2 = add %flag, %flag
    yield %w, %k2
  }
  %op = addptr %out, %r
  store %op, %blk
  store %sout, %s
  if %c {
    %sp = addptr %sout, %one
    store %sp, %flag
  }
  %acc = for %i = %zero to %n step %one iter(%a = %v) {
    %odd_bit = and %i, %one
    %odd = cmp ne %odd_bit, %zero
    %next = if %odd {
      %sum = add %a, %v
      yield %sum
    } else {
      yield %a
    }
    yield %next
  }
  %c23b = const 23 : i32
  %op2 = addptr %op, %c23b
  store %op2, %acc
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  for (int32_t flag : {-3, 0, 5})
    for (int32_t n : {0, 1, 4, 7}) {
      std::vector<float> x(46), out(46, -1);
      std::vector<int32_t> sout(2, -1);
      for (int i = 0; i < 46; ++i)
        x[i] = float(i) - 11.5f;
      launch(module->kernels()[0], {1, 1, 1}, {x, out, sout, flag, n});
      for (int i = 0; i < 23; ++i) {
        EXPECT_EQ(out[i], flag > 0 ? x[i] * 2 : x[23 + i]) << "flag=" << flag << " lane " << i;
        EXPECT_EQ(out[23 + i], x[i] * float(1 + n / 2)) << "n=" << n << " lane " << i;
      }
      EXPECT_EQ(sout[0], flag > 0 ? 7 : 2 * flag);
      EXPECT_EQ(sout[1], flag > 0 ? flag : -1);
    }
}

// Row sums of an R x C matrix: an outer loop over rows carries the running
// element count; the inner loop over column chunks carries a block accumulator
// that restarts for every row and a masked tail chunk.
TEST(ControlFlow, NestedLoops) {
  const char *source = R"(
constexpr B: i32 = 16
kernel @rows(%x: ptr<f32>, %sums: ptr<f32>, %count: ptr<i32>, %R: i32, %C: i32) {
  %zero = const 0 : i32
  %one = const 1 : i32
  %b = const B : i32
  %cols = arange 0, B
  %acc0 = const 0.0 : f32[B]
  %total = for %row = %zero to %R step %one iter(%seen = %zero) {
    %base = mul %row, %C
    %row_ptr = addptr %x, %base
    %acc, %seen_row = for %c0 = %zero to %C step %b iter(%a = %acc0, %k = %seen) {
      %offs = add %c0, %cols
      %m = cmp lt %offs, %C
      %p = addptr %row_ptr, %offs
      %v = load %p, mask=%m
      %a_next = add %a, %v
      %left = sub %C, %c0
      %chunk = min %left, %b
      %k_next = add %k, %chunk
      yield %a_next, %k_next
    }
    %s = reduce_sum %acc, axis=0
    %sp = addptr %sums, %row
    store %sp, %s
    yield %seen_row
  }
  store %count, %total
}
)";
  for (int block : {16, 5}) {
    auto module = compileOrFail(source, {{"B", std::to_string(block)}});
    ASSERT_TRUE(module);
    for (auto [rows, cols] :
         {std::pair<int32_t, int32_t>{3, 40}, {7, 5}, {1, 1}, {4, 16}, {0, 9}}) {
      std::vector<float> x(size_t(rows) * cols + 1), sums(rows + 1, -1);
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = float(int(i % 13) - 6);
      std::vector<int32_t> count(1, -1);
      launch(module->kernels()[0], {1, 1, 1}, {x, sums, count, rows, cols});
      for (int i = 0; i < rows; ++i) {
        float want = 0;
        for (int j = 0; j < cols; ++j)
          want += x[size_t(i) * cols + j];
        EXPECT_EQ(sums[i], want) << "B=" << block << " " << rows << "x" << cols << " row " << i;
      }
      EXPECT_EQ(sums[rows], -1);
      EXPECT_EQ(count[0], rows * cols) << "B=" << block << " " << rows << "x" << cols;
    }
  }
}

// Helper funcs are inlined: one called twice in a row, one called from another,
// one with two results (a scalar and a block), one with no result that stores,
// and a call inside a loop body.
TEST(ControlFlow, InlinedCalls) {
  const char *source = R"(
func @axpy(%a: f32, %x: f32[29], %y: f32[29]) -> f32[29] {
  %t = mul %x, %a
  %r = add %t, %y
  return %r
}
func @twice(%a: f32, %x: f32[29], %y: f32[29]) -> f32[29] {
  %u = call @axpy(%a, %x, %y)
  %v = call @axpy(%a, %u, %y)
  return %v
}
func @stats(%x: f32[29]) -> (f32, f32[29]) {
  %s = reduce_sum %x, axis=0
  %sq = mul %x, %x
  return %s, %sq
}
func @put(%p: ptr<f32>[29], %v: f32[29]) {
  store %p, %v
  return
}
kernel @calls(%x: ptr<f32>, %y: ptr<f32>, %out: ptr<f32>, %n: i32) {
  %r = arange 0, 29
  %xp = addptr %x, %r
  %yp = addptr %y, %r
  %xv = load %xp
  %yv = load %yp
  %two = const 2.0 : f32
  %w = call @twice(%two, %xv, %yv)
  %s, %sq = call @stats(%w)
  %zero = const 0 : i32
  %one = const 1 : i32
  %half = const 0.5 : f32
  %looped = for %i = %zero to %n step %one iter(%acc = %xv) {
    %next = call @axpy(%half, %acc, %yv)
    yield %next
  }
  %op = addptr %out, %r
  call @put(%op, %w)
  %c29 = const 29 : i32
  %op2 = addptr %op, %c29
  call @put(%op2, %sq)
  %op3 = addptr %op2, %c29
  call @put(%op3, %looped)
  %c87 = const 87 : i32
  %sp = addptr %out, %c87
  store %sp, %s
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  std::vector<float> x(29), y(29), out(88, -1);
  for (int i = 0; i < 29; ++i)
    x[i] = float(i % 5) - 2, y[i] = float(i % 3);
  int32_t n = 3;
  launch(module->kernels()[0], {1, 1, 1}, {x, y, out, n});
  float sum = 0;
  for (int i = 0; i < 29; ++i) {
    float w = (x[i] * 2 + y[i]) * 2 + y[i];
    float looped = x[i];
    for (int k = 0; k < n; ++k)
      looped = looped * 0.5f + y[i];
    sum += w;
    EXPECT_EQ(out[i], w) << i;
    EXPECT_EQ(out[29 + i], w * w) << i;
    EXPECT_EQ(out[58 + i], looped) << i;
  }
  EXPECT_EQ(out[87], sum);
}

// `while`: the trip count depends on data. Each program halves its x until it is
// at most 1, doubling a carried block and counting trips; x <= 1 runs no trip
// and gives back the initial values.
TEST(ControlFlow, WhileCarriesScalarsAndBlocks) {
  const char *source = R"(
kernel @halvings(%xs: ptr<i32>, %counts: ptr<i32>, %blocks: ptr<f32>) {
  %pid = program_id 0
  %xp = addptr %xs, %pid
  %x0 = load %xp
  %one = const 1 : i32
  %zero = const 0 : i32
  %c0 = cmp gt %x0, %one
  %b0 = const 1.0 : f32[37]
  %two = const 2.0 : f32
  %x, %n, %b = while %c0 iter(%xa = %x0, %na = %zero, %ba = %b0) {
    %x1 = ashr %xa, %one
    %n1 = add %na, %one
    %b1 = mul %ba, %two
    %c1 = cmp gt %x1, %one
    yield %c1, %x1, %n1, %b1
  }
  %cp = addptr %counts, %pid
  store %cp, %n
  %r = arange 0, 37
  %width = const 37 : i32
  %row = mul %pid, %width
  %offs = add %row, %r
  %bp = addptr %blocks, %offs
  store %bp, %b
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  std::vector<int32_t> xs = {0, 1, 2, 3, 1000, 1 << 30, -5, 64};
  int programs = int(xs.size());
  std::vector<int32_t> counts(programs, -1);
  std::vector<float> blocks(programs * 37, -1.f);
  launch(module->kernels()[0], {programs, 1, 1}, {xs, counts, blocks});
  for (int p = 0; p < programs; ++p) {
    int expected = 0;
    for (int32_t x = xs[p]; x > 1; x >>= 1)
      ++expected;
    EXPECT_EQ(counts[p], expected) << "x = " << xs[p];
    for (int i = 0; i < 37; ++i)
      ASSERT_EQ(blocks[p * 37 + i], float(1 << expected)) << "x = " << xs[p];
  }
}

} // namespace
