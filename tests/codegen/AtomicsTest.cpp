// Atomics (docs/block-ir.md, section 10.11): each read-modify-write op on every
// element type it takes, with masks, checked for the memory it leaves and the old
// values it returns; and under contention across the grid's programs (a
// histogram, a shared counter whose old values must be a permutation), which
// the launcher runs on several threads.
#include "KernelHarness.h"
#include "Reference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

using namespace blockc;
using namespace blockc::test;

namespace {

uint16_t toHalfBits(DType type, float x) {
  return uint16_t(encodeFloat(x, formatOf(type)));
}
float fromHalfBits(DType type, uint16_t bits) {
  return float(decodeFloat(bits, formatOf(type)));
}

std::string substitute(std::string text, const std::string &from, const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Lane i applies OP with v[i] to m[i] when i < n, and writes the old value to
// old[i]; lanes past n are masked off and must leave m alone and read 0.
const char *kLaneKernel = R"(
kernel @lanes(%m: ptr<T>, %v: ptr<T>, %old: ptr<T>, %n: i32) {
  %r = arange 0, 37
  %active = cmp lt %r, %n
  %vp = addptr %v, %r
  %x = load %vp
  %mp = addptr %m, %r
  %o = OP %mp, %x, mask=%active
  %op = addptr %old, %r
  store %op, %o
}
)";

template <typename T> struct LaneCase {
  const char *op;
  std::function<T(T, T)> apply;
};

template <typename T>
void checkLanes(const char *type, const LaneCase<T> &c, const std::vector<T> &memory,
                const std::vector<T> &values) {
  std::string source = substitute(substitute(kLaneKernel, "OP", c.op), "T", type);
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  const int n = 29;
  std::vector<T> m = memory, v = values, old(37, T(7));
  launch(module->kernels()[0], {1, 1, 1}, {m, v, old, n});
  for (int i = 0; i < 37; ++i) {
    T expectOld = i < n ? memory[i] : T(0);
    T expectNew = i < n ? c.apply(memory[i], values[i]) : memory[i];
    ASSERT_EQ(old[i], expectOld) << c.op << " on " << type << ", lane " << i;
    ASSERT_EQ(m[i], expectNew) << c.op << " on " << type << ", lane " << i;
  }
}

TEST(Atomics, IntegerOpsPerLane) {
  std::vector<int32_t> memory(37), values(37);
  for (int i = 0; i < 37; ++i) {
    memory[i] = (i * 7919) % 101 - 50;
    values[i] = (i * 104729) % 97 - 48;
  }
  std::vector<LaneCase<int32_t>> cases = {
      {"atomic_add", [](int32_t a, int32_t b) { return a + b; }},
      {"atomic_max", [](int32_t a, int32_t b) { return std::max(a, b); }},
      {"atomic_min", [](int32_t a, int32_t b) { return std::min(a, b); }},
      {"atomic_umax",
       [](int32_t a, int32_t b) { return int32_t(std::max(uint32_t(a), uint32_t(b))); }},
      {"atomic_umin",
       [](int32_t a, int32_t b) { return int32_t(std::min(uint32_t(a), uint32_t(b))); }},
      {"atomic_and", [](int32_t a, int32_t b) { return a & b; }},
      {"atomic_or", [](int32_t a, int32_t b) { return a | b; }},
      {"atomic_xor", [](int32_t a, int32_t b) { return a ^ b; }},
      {"atomic_xchg", [](int32_t, int32_t b) { return b; }},
  };
  for (const auto &c : cases)
    checkLanes<int32_t>("i32", c, memory, values);
}

TEST(Atomics, NarrowAndWideIntegersWrap) {
  std::vector<int8_t> m8(37), v8(37);
  std::vector<int64_t> m64(37), v64(37);
  for (int i = 0; i < 37; ++i) {
    m8[i] = int8_t(120 + i), v8[i] = int8_t(i * 5);
    m64[i] = (int64_t(1) << 62) + i, v64[i] = (int64_t(1) << 62) - 3 * i;
  }
  auto add8 = [](int8_t a, int8_t b) { return int8_t(uint8_t(a) + uint8_t(b)); };
  checkLanes<int8_t>("i8", {"atomic_add", add8}, m8, v8);
  checkLanes<int8_t>("i8", {"atomic_xor", [](int8_t a, int8_t b) { return int8_t(a ^ b); }}, m8,
                     v8);
  auto add64 = [](int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); };
  checkLanes<int64_t>("i64", {"atomic_add", add64}, m64, v64);
  checkLanes<int64_t>("i64", {"atomic_min", [](int64_t a, int64_t b) { return std::min(a, b); }},
                      m64, v64);
}

TEST(Atomics, FloatOpsPerLane) {
  std::vector<float> m(37), v(37);
  std::vector<double> md(37), vd(37);
  for (int i = 0; i < 37; ++i) {
    m[i] = float(i % 9) * 0.75f - 3.f, v[i] = float(i % 5) * 1.5f - 2.f;
    md[i] = m[i] / 3.0, vd[i] = v[i] / 7.0;
  }
  checkLanes<float>("f32", {"atomic_add", [](float a, float b) { return a + b; }}, m, v);
  checkLanes<float>("f32", {"atomic_max", [](float a, float b) { return std::fmax(a, b); }}, m, v);
  checkLanes<float>("f32", {"atomic_min", [](float a, float b) { return std::fmin(a, b); }}, m, v);
  checkLanes<float>("f32", {"atomic_xchg", [](float, float b) { return b; }}, m, v);
  checkLanes<double>("f64", {"atomic_add", [](double a, double b) { return a + b; }}, md, vd);
}

// Halves hold multiples of 1/4 below 64, so every sum is exact in f16 and bf16.
TEST(Atomics, HalfPrecisionAddMaxMin) {
  for (DType type : {DType::F16, DType::BF16}) {
    std::vector<uint16_t> m(37), v(37);
    for (int i = 0; i < 37; ++i) {
      m[i] = toHalfBits(type, float(i % 11) * 0.25f - 1.f);
      v[i] = toHalfBits(type, float(i % 7) * 2.f - 6.f);
    }
    for (const char *op : {"atomic_add", "atomic_max", "atomic_min"}) {
      auto apply = [&](uint16_t a, uint16_t b) {
        float x = fromHalfBits(type, a), y = fromHalfBits(type, b);
        float r = std::string(op) == "atomic_add"   ? x + y
                  : std::string(op) == "atomic_max" ? std::fmax(x, y)
                                                    : std::fmin(x, y);
        return toHalfBits(type, r);
      };
      checkLanes<uint16_t>(typeName(type), {op, apply}, m, v);
    }
  }
}

TEST(Atomics, CompareAndSwapComparesBits) {
  const char *kernel = R"(
kernel @cas(%m: ptr<T>, %expected: ptr<T>, %desired: ptr<T>, %old: ptr<T>) {
  %r = arange 0, 37
  %mp = addptr %m, %r
  %ep = addptr %expected, %r
  %dp = addptr %desired, %r
  %e = load %ep
  %d = load %dp
  %o = atomic_cas %mp, %e, %d, sem=relaxed
  %op = addptr %old, %r
  store %op, %o
}
)";
  auto i64 = compileOrFail(substitute(kernel, "T", "i64"));
  auto f32 = compileOrFail(substitute(kernel, "T", "f32"));
  ASSERT_TRUE(i64 && f32);
  std::vector<int64_t> m(37), e(37), d(37), old(37);
  std::vector<float> mf(37), ef(37), df(37), oldf(37);
  for (int i = 0; i < 37; ++i) {
    m[i] = i * 1000003LL, e[i] = i % 3 ? m[i] : m[i] + 1, d[i] = -i;
    // -0.0 and 0.0 compare equal as numbers but not as bits.
    mf[i] = i % 4 == 0 ? -0.f : float(i), ef[i] = i % 4 == 0 ? 0.f : (i % 3 ? mf[i] : 1e9f);
    df[i] = float(-i) - 0.5f;
  }
  std::vector<int64_t> m0 = m;
  std::vector<float> mf0 = mf;
  launch(i64->kernels()[0], {1, 1, 1}, {m, e, d, old});
  launch(f32->kernels()[0], {1, 1, 1}, {mf, ef, df, oldf});
  for (int i = 0; i < 37; ++i) {
    ASSERT_EQ(old[i], m0[i]) << i;
    ASSERT_EQ(m[i], e[i] == m0[i] ? d[i] : m0[i]) << i;
    ASSERT_EQ(std::signbit(oldf[i]), std::signbit(mf0[i])) << i;
    ASSERT_EQ(oldf[i], mf0[i]) << i;
    bool swapped = i % 4 != 0 && i % 3 != 0;
    ASSERT_EQ(mf[i], swapped ? df[i] : mf0[i]) << i;
  }
}

// Programs of the grid add into shared bins at once; lanes of one op hit the
// same bin too.
TEST(Atomics, HistogramUnderContention) {
  const char *kernel = R"(
constexpr BLOCK: i32 = 128
kernel @histogram(%x: ptr<i32>, %bins: ptr<i32>, %weights: ptr<f32>, %n: i32) {
  %pid = program_id 0
  %block = const BLOCK : i32
  %start = mul %pid, %block
  %r = arange 0, BLOCK
  %offs = add %start, %r
  %m = cmp lt %offs, %n
  %xp = addptr %x, %offs
  %b = load %xp, mask=%m
  %bp = addptr %bins, %b
  %one = const 1 : i32
  %unused = atomic_add %bp, %one, mask=%m, sem=relaxed
  %wp = addptr %weights, %b
  %w = cast %b to f32
  %old = atomic_add %wp, %w, mask=%m
}
)";
  auto module = compileOrFail(kernel);
  ASSERT_TRUE(module);
  const int n = 20011, bins = 19;
  std::vector<int32_t> x(n), counts(bins, 0), expected(bins, 0);
  std::vector<float> weights(bins, 0.f);
  for (int i = 0; i < n; ++i) {
    x[i] = (i * 7 + i / 13) % bins;
    ++expected[x[i]];
  }
  launch(module->kernels()[0], {(n + 127) / 128, 1, 1}, {x, counts, weights, n});
  for (int b = 0; b < bins; ++b) {
    ASSERT_EQ(counts[b], expected[b]) << "bin " << b;
    // Integer-valued sums below 2^24 are exact in any order.
    ASSERT_EQ(weights[b], float(expected[b]) * float(b)) << "bin " << b;
  }
}

// Each program takes a ticket from one counter: the tickets must be 0 .. P-1,
// each exactly once, whatever the threads did.
TEST(Atomics, ScalarCounterHandsOutEveryTicketOnce) {
  const char *kernel = R"(
kernel @tickets(%counter: ptr<i64>, %tickets: ptr<i64>) {
  %pid = program_id 0
  %one = const 1 : i64
  %t = atomic_add %counter, %one
  %tp = addptr %tickets, %pid
  store %tp, %t
}
)";
  auto module = compileOrFail(kernel);
  ASSERT_TRUE(module);
  const int programs = 5000;
  std::vector<int64_t> counter(1, 0), tickets(programs, -1);
  launch(module->kernels()[0], {programs, 1, 1}, {counter, tickets});
  ASSERT_EQ(counter[0], programs);
  std::sort(tickets.begin(), tickets.end());
  for (int i = 0; i < programs; ++i)
    ASSERT_EQ(tickets[i], i);
}

} // namespace
