// Multi-output fusion (FuseElementwise.h): a value read by several consumers of
// different kinds (stores, reductions, other elementwise chains, carried values)
// is computed once per strip in one loop that feeds them all. These kernels run
// every fused form, and two that must not fuse, against plain C++.
// Inputs are squares of small integers, so every sqrt is exact and every sum and
// maximum is exact in any order: results are compared bit for bit.
#include "Reference.h"

using namespace blockc;
using namespace blockc::test;

namespace {

const float kUntouched = -777.f;

std::vector<float> squares(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = float(((i * 7 + seed) % 21) * ((i * 7 + seed) % 21));
  return v;
}

std::vector<float> roots(const std::vector<float> &v) {
  std::vector<float> r(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    r[i] = std::sqrt(v[i]);
  return r;
}

// Two consumers: a store and a reduction. 100 lanes: on 16-lane strips, a
// four-strip chunk, two more full strips and a masked tail.
const char *kStoreAndSum = R"(
kernel @store_and_sum(%x: ptr<f32>, %y: ptr<f32>, %sum: ptr<f32>, %n: i32) {
  %r = arange 0, 100
  %m = cmp lt %r, %n
  %zero = const 0.0 : f32
  %xp = addptr %x, %r
  %v = load %xp, mask=%m, other=%zero
  %e = sqrt %v
  %yp = addptr %y, %r
  store %yp, %e, mask=%m
  %s = reduce_sum %e, axis=0
  store %sum, %s
}
)";

TEST(FuseElementwise, StoreAndReduction) {
  auto module = compileOrFail(kStoreAndSum);
  ASSERT_TRUE(module);
  for (int32_t n : {1, 17, 64, 99, 100}) {
    std::vector<float> x = squares(100, n), y(101, kUntouched), sum(2, kUntouched);
    launch(module->kernels()[0], {1, 1, 1}, {x, y, sum, n});
    std::vector<float> e = roots(x);
    float want = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(y[i], e[i]) << "n=" << n << " i=" << i;
      want += e[i];
    }
    for (int i = n; i < 101; ++i)
      ASSERT_EQ(y[i], kUntouched) << "n=" << n << " i=" << i;
    EXPECT_EQ(sum[0], want) << "n=" << n;
    EXPECT_EQ(sum[1], kUntouched);
  }
}

// Three: a store, a maximum, and a second elementwise chain stored elsewhere.
const char *kThreeConsumers = R"(
kernel @three(%x: ptr<f32>, %y: ptr<f32>, %z: ptr<f32>, %max: ptr<f32>) {
  %r = arange 0, 100
  %xp = addptr %x, %r
  %v = load %xp
  %e = sqrt %v
  %yp = addptr %y, %r
  store %yp, %e
  %two = const 2.0 : f32
  %one = const 1.0 : f32
  %w = mul %e, %two
  %w1 = add %w, %one
  %zp = addptr %z, %r
  store %zp, %w1
  %mx = reduce_max %e, axis=0
  store %max, %mx
}
)";

TEST(FuseElementwise, StoreChainAndReduction) {
  auto module = compileOrFail(kThreeConsumers);
  ASSERT_TRUE(module);
  std::vector<float> x = squares(100, 3), y(100), z(100), mx(1);
  launch(module->kernels()[0], {1, 1, 1}, {x, y, z, mx});
  std::vector<float> e = roots(x);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(y[i], e[i]) << i;
    ASSERT_EQ(z[i], e[i] * 2 + 1) << i;
  }
  EXPECT_EQ(mx[0], *std::max_element(e.begin(), e.end()));
}

// Four, in a loop body: a store, a chain ending in a store, a reduction whose
// result leaves the loop as a carried scalar, and a carried block updated in place.
const char *kFourConsumers = R"(
kernel @four(%x: ptr<f32>, %y: ptr<f32>, %z: ptr<f32>, %acc_out: ptr<f32>,
             %max_out: ptr<f32>, %n: i32, %trips: i32) {
  %r = arange 0, 100
  %m = cmp lt %r, %n
  %zero = const 0 : i32
  %one = const 1 : i32
  %zero_f = const 0.0 : f32
  %two_f = const 2.0 : f32
  %one_f = const 1.0 : f32
  %init = const 0.0 : f32[100]
  %acc, %last_max = for %i = %zero to %trips step %one iter(%a = %init, %mx = %zero_f) {
    %base = mul %i, %n
    %offs = add %base, %r
    %xp = addptr %x, %offs
    %v = load %xp, mask=%m, other=%zero_f
    %e = sqrt %v
    %yp = addptr %y, %offs
    store %yp, %e, mask=%m
    %w = mul %e, %two_f
    %w1 = add %w, %one_f
    %zp = addptr %z, %offs
    store %zp, %w1, mask=%m
    %t = reduce_max %e, axis=0
    %a_next = add %a, %e
    yield %a_next, %t
  }
  %ap = addptr %acc_out, %r
  store %ap, %acc, mask=%m
  store %max_out, %last_max
}
)";

TEST(FuseElementwise, FourKindsInALoop) {
  auto module = compileOrFail(kFourConsumers);
  ASSERT_TRUE(module);
  for (int32_t n : {37, 100})
    for (int32_t trips : {0, 1, 3}) {
      size_t total = size_t(n) * std::max(trips, 1);
      std::vector<float> x = squares(total, n + trips), y(total + 1, kUntouched),
                         z(total + 1, kUntouched), acc(101, kUntouched), mx(1, kUntouched);
      launch(module->kernels()[0], {1, 1, 1}, {x, y, z, acc, mx, n, trips});
      std::vector<float> e = roots(x), wantAcc(n, 0.f);
      float wantMax = 0;
      for (int32_t t = 0; t < trips; ++t) {
        wantMax = 0;
        for (int32_t j = 0; j < n; ++j) {
          float ej = e[size_t(t) * n + j];
          ASSERT_EQ(y[size_t(t) * n + j], ej) << "n=" << n << " trip " << t << " j=" << j;
          ASSERT_EQ(z[size_t(t) * n + j], ej * 2 + 1) << "n=" << n << " trip " << t;
          wantAcc[j] += ej;
          wantMax = std::max(wantMax, ej);
        }
      }
      size_t written = size_t(n) * trips;
      for (size_t i = written; i < y.size(); ++i) {
        ASSERT_EQ(y[i], kUntouched) << "n=" << n << " trips=" << trips << " i=" << i;
        ASSERT_EQ(z[i], kUntouched) << "n=" << n << " trips=" << trips << " i=" << i;
      }
      for (int32_t j = 0; j < n; ++j)
        ASSERT_EQ(acc[j], wantAcc[j]) << "n=" << n << " trips=" << trips << " j=" << j;
      EXPECT_EQ(acc[n], kUntouched);
      EXPECT_EQ(mx[0], wantMax) << "n=" << n << " trips=" << trips;
    }
}

// A 2D group: each row's strips are stored and summed, one sum per row.
const char *kRowSums = R"(
kernel @row_sums(%x: ptr<f32>, %y: ptr<f32>, %sums: ptr<f32>) {
  %r = arange 0, 40
  %rows = arange 0, 8
  %c = expand_dims %r, axis=0
  %rr = expand_dims %rows, axis=1
  %forty = const 40 : i32
  %row_offs = mul %rr, %forty
  %ro = broadcast %row_offs to [8, 40]
  %cb = broadcast %c to [8, 40]
  %offs = add %ro, %cb
  %xp = addptr %x, %offs
  %v = load %xp
  %e = sqrt %v
  %yp = addptr %y, %offs
  store %yp, %e
  %s = reduce_sum %e, axis=1
  %sp = addptr %sums, %rows
  store %sp, %s
}
)";

TEST(FuseElementwise, RowsOfA2DGroup) {
  auto module = compileOrFail(kRowSums);
  ASSERT_TRUE(module);
  std::vector<float> x = squares(320, 5), y(320), sums(8);
  launch(module->kernels()[0], {1, 1, 1}, {x, y, sums});
  std::vector<float> e = roots(x);
  for (int row = 0; row < 8; ++row) {
    float want = 0;
    for (int j = 0; j < 40; ++j) {
      ASSERT_EQ(y[row * 40 + j], e[row * 40 + j]) << row << "," << j;
      want += e[row * 40 + j];
    }
    EXPECT_EQ(sums[row], want) << row;
  }
}

// In place: the row is loaded, replaced by its roots and summed in one loop.
// Each strip is read before it is overwritten, as the unfused ops would.
const char *kInPlace = R"(
kernel @in_place(%p: ptr<f32>, %sum: ptr<f32>) {
  %r = arange 0, 100
  %pp = addptr %p, %r
  %v = load %pp
  %e = sqrt %v
  store %pp, %e
  %s = reduce_sum %e, axis=0
  store %sum, %s
}
)";

TEST(FuseElementwise, InPlaceUpdate) {
  auto module = compileOrFail(kInPlace);
  ASSERT_TRUE(module);
  std::vector<float> p = squares(100, 11), sum(1);
  std::vector<float> e = roots(p);
  launch(module->kernels()[0], {1, 1, 1}, {p, sum});
  float want = 0;
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(p[i], e[i]) << i;
    want += e[i];
  }
  EXPECT_EQ(sum[0], want);
}

// Must not fuse: the second consumer reads back what the first stored, and the
// third needs the whole row's sum first (tests/lit/codegen/multi-output-fusion.bir
// checks the plans). Both must still compute the program's meaning.
const char *kMustNotFuse = R"(
kernel @reads_its_store(%x: ptr<f32>, %y: ptr<f32>, %z: ptr<f32>) {
  %r = arange 0, 64
  %xp = addptr %x, %r
  %v = load %xp
  %e = sqrt %v
  %yp = addptr %y, %r
  store %yp, %e
  %back = load %yp
  %sum = add %back, %e
  %zp = addptr %z, %r
  store %zp, %sum
}

kernel @needs_the_sum(%x: ptr<f32>, %y: ptr<f32>) {
  %r = arange 0, 64
  %xp = addptr %x, %r
  %v = load %xp
  %e = sqrt %v
  %s = reduce_sum %e, axis=0
  %q = div %e, %s
  %yp = addptr %y, %r
  store %yp, %q
}
)";

TEST(FuseElementwise, DependentConsumersKeepTheirOrder) {
  auto module = compileOrFail(kMustNotFuse);
  ASSERT_TRUE(module);
  std::vector<float> x = squares(64, 2), y(64, kUntouched), z(64, kUntouched);
  std::vector<float> e = roots(x);
  launch(module->kernels()[0], {1, 1, 1}, {x, y, z});
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(y[i], e[i]) << i;
    ASSERT_EQ(z[i], e[i] + e[i]) << i;
  }
  launch(module->kernels()[1], {1, 1, 1}, {x, y});
  float total = 0;
  for (float v : e)
    total += v;
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(y[i], e[i] / total) << i;
}

// A load read by two reductions that cannot share a loop is loaded again by the
// second (@reloaded), unless a store between them may change it: @overwritten
// zeroes the row after its sum, and its second reduction must still see the
// row as it was (it keeps a copy). A scalar stored between them through
// another argument (a row's statistic, @statistic_elsewhere) leaves the row to
// be loaded again; one stored into the row's own argument (@statistic_in_row,
// the sum over element 0) keeps the copy, and the second reduction sees the
// element as it was.
const char *kLoadedTwice = R"(
kernel @reloaded(%p: ptr<f32>, %out: ptr<f32>) {
  %r = arange 0, 256
  %pp = addptr %p, %r
  %v = load %pp
  %s = reduce_sum %v, axis=0
  %w = mul %v, %s
  %u = reduce_max %w, axis=0
  store %out, %u
}

kernel @overwritten(%p: ptr<f32>, %out: ptr<f32>) {
  %r = arange 0, 256
  %pp = addptr %p, %r
  %v = load %pp
  %s = reduce_sum %v, axis=0
  %zero = const 0.0 : f32[256]
  store %pp, %zero
  %w = mul %v, %s
  %u = reduce_max %w, axis=0
  store %out, %u
}

kernel @statistic_elsewhere(%p: ptr<f32>, %out: ptr<f32>) {
  %r = arange 0, 256
  %pp = addptr %p, %r
  %v = load %pp
  %s = reduce_sum %v, axis=0
  %one = const 1 : i32
  %stat = addptr %out, %one
  store %stat, %s
  %w = mul %v, %s
  %u = reduce_max %w, axis=0
  store %out, %u
}

kernel @statistic_in_row(%p: ptr<f32>, %out: ptr<f32>) {
  %r = arange 0, 256
  %pp = addptr %p, %r
  %v = load %pp
  %s = reduce_sum %v, axis=0
  store %p, %s
  %w = mul %v, %s
  %u = reduce_max %w, axis=0
  store %out, %u
}
)";

TEST(FuseElementwise, LoadedAgainOnlyWhenNothingWroteBetween) {
  auto module = compileOrFail(kLoadedTwice);
  ASSERT_TRUE(module);
  ASSERT_EQ(module->kernels().size(), 4u);
  for (const TestKernel &kernel : module->kernels()) {
    std::vector<float> p = squares(256, 5), out(2, kUntouched);
    // Element 0 is the row's largest, so a second pass that read the stored
    // sum there instead would find a larger maximum.
    p[0] = 500.f;
    float sum = 0, largest = 0;
    for (float v : p)
      sum += v;
    for (float v : p)
      largest = std::max(largest, v * sum);
    launch(kernel, {1, 1, 1}, {p, out});
    EXPECT_EQ(out[0], largest) << kernel.name;
    if (kernel.name == "statistic_elsewhere")
      EXPECT_EQ(out[1], sum);
    else
      EXPECT_EQ(out[1], kUntouched) << kernel.name;
  }
}

} // namespace
