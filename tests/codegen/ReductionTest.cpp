// reduce_sum, reduce_max, reduce_min, argmax and argmin along each axis of 2D
// blocks and along axis 0 of 1D blocks, for f32, i32 and f16 (section 10.12).
// Blocks are odd sizes (7x5, 33x17, ...) so rows end in partial strips, some wider
// than the data so masked lanes take the `other` value, which the reference
// reduces too. Inputs are chosen so every expected value is exact:
// - sums of multiples of 1/4 fit f32 exactly in any order, so an f16 sum, which
//   accumulates in f32 and rounds once, equals the exact sum rounded once (an f16
//   accumulator would round every partial sum above 2048);
// - max/min/arg inputs come from a few integers, so ties are common (argmax and
//   argmin must pick the lowest index), plus NaN (ignored) and a row of NaNs.
#include "Reference.h"

#include <array>
#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

enum class Red { Sum, Max, Min, ArgMax, ArgMin };
const char *redName(Red r) {
  static const char *names[] = {"reduce_sum", "reduce_max", "reduce_min", "argmax", "argmin"};
  return names[static_cast<int>(r)];
}
bool isArg(Red r) {
  return r == Red::ArgMax || r == Red::ArgMin;
}
bool wantsMax(Red r) {
  return r == Red::Max || r == Red::ArgMax;
}

/// What masked-off lanes load: the op's identity.
Val fillFor(Red r, DType t) {
  if (r == Red::Sum)
    return isFloat(t) ? floatVal(0) : intVal(0);
  if (isFloat(t))
    return floatVal(wantsMax(r) ? -INFINITY : INFINITY);
  return intVal(wantsMax(r) ? INT32_MIN : INT32_MAX);
}

/// The reduction of `v` (already holding fill values where masked), as an
/// encoding of the result type.
uint64_t reduceRef(Red r, DType t, const std::vector<Val> &v) {
  if (r == Red::Sum) {
    if (!isFloat(t)) {
      uint64_t s = 0;
      for (const Val &x : v)
        s += uint64_t(x.i);
      return encode(t, intVal(wrapInt(s, 32)));
    }
    double s = 0; // exact for these inputs
    for (const Val &x : v)
      s += x.f;
    return encode(t, floatVal(s));
  }
  int best = -1;
  for (int k = 0; k < int(v.size()); ++k) {
    if (isFloat(t) && std::isnan(v[k].f))
      continue;
    if (best < 0) {
      best = k;
      continue;
    }
    bool better = isFloat(t) ? (wantsMax(r) ? v[k].f > v[best].f : v[k].f < v[best].f)
                             : (wantsMax(r) ? v[k].i > v[best].i : v[k].i < v[best].i);
    if (better)
      best = k; // strictly better only: the lowest index keeps a tie
  }
  if (isArg(r))
    return encode(DType::I32, intVal(best < 0 ? 0 : best));
  return best < 0 ? encode(t, floatVal(NAN)) : encode(t, v[best]);
}

Val randomInput(Red r, DType t, std::mt19937_64 &rng) {
  if (r == Red::Sum) {
    if (!isFloat(t))
      return intVal(wrapInt(rng(), 32));
    int range = t == DType::F16 ? 256 : 4000; // quarters up to 64 or 1000
    return floatVal(double(int(rng() % (2 * range + 1)) - range) / 4);
  }
  int pick = int(rng() % 100);
  if (isFloat(t) && pick < 10)
    return floatVal(NAN);
  if (isFloat(t) && pick < 13)
    return floatVal(pick == 10 ? INFINITY : -INFINITY);
  int small = int(rng() % 11) - 5;
  return isFloat(t) ? floatVal(small) : intVal(small);
}

struct Shape2 {
  int br, bc, r, c; // block shape, valid rows and columns
};
const Shape2 kShapes2D[] = {{7, 5, 7, 5},     {33, 17, 33, 17}, {40, 20, 33, 17}, {16, 16, 16, 16},
                            {1, 19, 1, 19},   {19, 1, 19, 1},   {3, 100, 3, 97},  {64, 48, 50, 47},
                            {17, 33, 17, 33}, {5, 7, 2, 3}};
const std::pair<int, int> kShapes1D[] = {{7, 7},      {33, 30},     {100, 100},
                                         {1000, 999}, {4096, 4096}, {1, 1}};

/// `out[...] = OP(x, axis)` of an r x c row-major matrix (row stride c) in a
/// BR x BC block; masked lanes load %fill.
std::string kernel2D(Red r, DType t, int axis) {
  const char *ty = typeName(t);
  const char *rt = isArg(r) ? "i32" : ty;
  std::ostringstream s;
  s << "constexpr BR: i32 = 1\nconstexpr BC: i32 = 1\n"
    << "kernel @red(%x: ptr<" << ty << ">, %out: ptr<" << rt << ">, %R: i32, %C: i32, %fill: " << ty
    << ") {\n"
    << "  %rr = arange 0, BR\n  %rc = arange 0, BC\n"
    << "  %r_col = expand_dims %rr, axis=1\n  %c_row = expand_dims %rc, axis=0\n"
    << "  %mr = cmp lt %r_col, %R\n  %mc = cmp lt %c_row, %C\n  %mask = and %mr, %mc\n"
    << "  %xr = mul %r_col, %C\n  %xo = add %xr, %c_row\n  %xp = addptr %x, %xo\n"
    << "  %v = load %xp, mask=%mask, other=%fill\n"
    << "  %red = " << redName(r) << " %v, axis=" << axis << "\n";
  if (axis == 0)
    s << "  %keep = cmp lt %rc, %C\n  %op = addptr %out, %rc\n";
  else
    s << "  %keep = cmp lt %rr, %R\n  %op = addptr %out, %rr\n";
  s << "  store %op, %red, mask=%keep\n}\n";
  return s.str();
}

std::string kernel1D(Red r, DType t) {
  const char *ty = typeName(t);
  std::ostringstream s;
  s << "constexpr B: i32 = 1\n"
    << "kernel @red(%x: ptr<" << ty << ">, %out: ptr<" << (isArg(r) ? "i32" : ty)
    << ">, %n: i32, %fill: " << ty << ") {\n"
    << "  %offs = arange 0, B\n  %m = cmp lt %offs, %n\n  %xp = addptr %x, %offs\n"
    << "  %v = load %xp, mask=%m, other=%fill\n"
    << "  %red = " << redName(r) << " %v, axis=0\n  store %out, %red\n}\n";
  return s.str();
}

struct RedCase {
  Red red;
  DType type;
};

class ReductionTest : public testing::TestWithParam<RedCase> {};

TEST_P(ReductionTest, AlongEachAxis) {
  Red r = GetParam().red;
  DType t = GetParam().type;
  DType rt = isArg(r) ? DType::I32 : t;
  std::mt19937_64 rng(99);
  uint64_t fill = encode(t, fillFor(r, t));
  for (int axis : {0, 1})
    for (const Shape2 &sh : kShapes2D) {
      std::string source = kernel2D(r, t, axis);
      auto module =
          compileOrFail(source, {{"BR", std::to_string(sh.br)}, {"BC", std::to_string(sh.bc)}});
      ASSERT_TRUE(module);
      Buffer x(t, size_t(sh.r) * sh.c);
      for (size_t i = 0; i < x.size(); ++i)
        x.set(i, randomInput(r, t, rng));
      if (isFloat(t) && r != Red::Sum) // row 0 all NaN: alone it reduces to NaN, index 0
        for (int j = 0; j < sh.c; ++j)
          x.set(j, floatVal(NAN));
      int outLen = axis == 0 ? sh.c : sh.r;
      Buffer out(rt, outLen);
      out.fillBits(0x7e7e7e7e7e7e7e7eULL);
      Buffer guard(rt, 1, 0);
      guard.fillBits(0x7e7e7e7e7e7e7e7eULL);
      int32_t R = sh.r, C = sh.c;
      launch(module->kernels()[0], {1, 1, 1}, {x, out, R, C, scalarArg(t, fill)});
      for (int k = 0; k < outLen; ++k) {
        std::vector<Val> lane;
        int count = axis == 0 ? sh.br : sh.bc;
        for (int q = 0; q < count; ++q) {
          int i = axis == 0 ? q : k, j = axis == 0 ? k : q;
          lane.push_back(i < sh.r && j < sh.c ? x.get(size_t(i) * sh.c + j) : decode(t, fill));
        }
        uint64_t want = reduceRef(r, t, lane);
        if (matches(rt, want, out.bits(k)))
          continue;
        ADD_FAILURE() << redName(r) << " axis=" << axis << " block " << sh.br << "x" << sh.bc
                      << " data " << sh.r << "x" << sh.c << " index " << k << ": expected "
                      << describe(rt, want) << ", got " << describe(rt, out.bits(k)) << "\n"
                      << source;
        break; // one report per shape
      }
      for (size_t k = outLen; k < out.capacity(); ++k)
        ASSERT_EQ(out.bits(k), guard.bits(0)) << "wrote past the result at " << k;
    }
  for (auto [block, n] : kShapes1D) {
    std::string source = kernel1D(r, t);
    auto module = compileOrFail(source, {{"B", std::to_string(block)}});
    ASSERT_TRUE(module);
    Buffer x(t, n), out(rt, 1);
    std::vector<Val> lane;
    for (int i = 0; i < block; ++i) {
      if (i < n)
        x.set(i, randomInput(r, t, rng));
      lane.push_back(i < n ? x.get(i) : decode(t, fill));
    }
    launch(module->kernels()[0], {1, 1, 1}, {x, out, n, scalarArg(t, fill)});
    uint64_t want = reduceRef(r, t, lane);
    EXPECT_TRUE(matches(rt, want, out.bits(0)))
        << redName(r) << " 1D block " << block << " n=" << n << ": expected " << describe(rt, want)
        << ", got " << describe(rt, out.bits(0));
  }
}

std::vector<RedCase> redCases() {
  std::vector<RedCase> all;
  for (Red r : {Red::Sum, Red::Max, Red::Min, Red::ArgMax, Red::ArgMin})
    for (DType t : {DType::F32, DType::I32, DType::F16})
      all.push_back({r, t});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Reductions, ReductionTest, testing::ValuesIn(redCases()),
                         [](const testing::TestParamInfo<RedCase> &info) {
                           return std::string(redName(info.param.red)) + "_" +
                                  typeName(info.param.type);
                         });

// A middle axis of a rank-3 block: neither the last axis (vector accumulators)
// nor the first, so the strips of the result are walked per outer index.
TEST(Reduction, Rank3MiddleAxis) {
  const char *source = R"(
kernel @r3(%x: ptr<i32>, %out: ptr<i32>, %idx: ptr<i32>) {
  %lin = arange 0, 105
  %src = reshape %lin to [3, 5, 7]
  %xp = addptr %x, %src
  %v = load %xp
  %s = reduce_sum %v, axis=1
  %a = argmax %v, axis=1
  %lin2 = arange 0, 21
  %dst = reshape %lin2 to [3, 7]
  %op = addptr %out, %dst
  store %op, %s
  %ip = addptr %idx, %dst
  store %ip, %a
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  std::vector<int32_t> x(105), out(21, -1), idx(21, -1);
  for (int i = 0; i < 105; ++i)
    x[i] = (i * 37) % 11; // ties within each reduced column
  launch(module->kernels()[0], {1, 1, 1}, {x, out, idx});
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 7; ++c) {
      int32_t sum = 0, best = 0;
      for (int b = 0; b < 5; ++b) {
        int32_t v = x[(a * 5 + b) * 7 + c];
        sum += v;
        if (v > x[(a * 5 + best) * 7 + c])
          best = b;
      }
      EXPECT_EQ(out[a * 7 + c], sum) << a << "," << c;
      EXPECT_EQ(idx[a * 7 + c], best) << a << "," << c;
    }
}

/// `OP %v, axis=0` of four f32 loaded from `x`, stored to `out[0]`.
uint32_t reduceFour(const char *op, const char *resultType, std::array<float, 4> four) {
  std::string source = std::string("kernel @k(%x: ptr<f32>, %out: ptr<") + resultType + ">) {\n" +
                       "  %r = arange 0, 4\n  %p = addptr %x, %r\n  %v = load %p\n" +
                       "  %m = " + op + " %v, axis=0\n  store %out, %m\n}\n";
  auto module = compileOrFail(source);
  if (!module)
    return 0xdeadbeef;
  std::vector<float> x(four.begin(), four.end());
  std::vector<uint32_t> out(1, 0xdeadbeef);
  launch(module->kernels()[0], {1, 1, 1}, {x, out});
  return out[0];
}

// reduce_max and reduce_min ignore NaN unless every element is NaN; then the
// result is NaN (section 10.12), not the identity the reduction starts from.
TEST(ReductionNaN, AllNaNGivesNaN) {
  const float nan = NAN;
  for (const char *op : {"reduce_max", "reduce_min"}) {
    uint32_t bits = reduceFour(op, "f32", {nan, nan, nan, nan});
    float got;
    std::memcpy(&got, &bits, 4);
    EXPECT_TRUE(std::isnan(got)) << op << " of four NaNs gave " << got;
  }
}

/// `OP %v, axis=0` of a row of f32 (a power of two long), as an f32.
float reduceRow(const char *op, const std::vector<float> &row) {
  std::string n = std::to_string(row.size());
  std::string source = "kernel @k(%x: ptr<f32>, %out: ptr<f32>) {\n  %r = arange 0, " + n +
                       "\n  %p = addptr %x, %r\n  %v = load %p\n  %m = " + op +
                       " %v, axis=0\n  store %out, %m\n}\n";
  auto module = compileOrFail(source);
  if (!module)
    return 0.f;
  std::vector<float> x(row), out(1, 12345.f);
  launch(module->kernels()[0], {1, 1, 1}, {x, out});
  return out[0];
}

// maxNum/minNum over a row, written out: NaN elements are skipped; a row of
// NaNs alone gives NaN.
float referenceMinMax(bool max, const std::vector<float> &row) {
  float best = NAN;
  for (float v : row)
    if (!std::isnan(v) && (std::isnan(best) || (max ? v > best : v < best)))
      best = v;
  return best;
}

// Infinities among NaNs: the reduction must tell a lane that saw only NaN
// from one that saw the infinity it starts from, in every way and strip of a
// row and in a partial strip (4 and 12 lanes of 8 or 16), on every ISA.
TEST(ReductionNaN, InfinitiesAmongNaNs) {
  const float nan = NAN, inf = INFINITY;
  for (size_t n : {4u, 16u, 64u, 1024u})
    for (size_t at : {size_t(0), n / 2 + 1, n - 1})
      for (float lone : {-inf, inf, -0.f, 3.5f})
        for (const char *op : {"reduce_max", "reduce_min"}) {
          std::vector<float> row(n, nan);
          row[at] = lone;
          bool max = std::string(op) == "reduce_max";
          float got = reduceRow(op, row), want = referenceMinMax(max, row);
          EXPECT_EQ(std::memcmp(&got, &want, 4), 0)
              << op << " of " << n << " with " << lone << " at " << at << ": " << got;
        }
  for (size_t n : {4u, 64u, 1024u})
    for (const char *op : {"reduce_max", "reduce_min"}) {
      EXPECT_TRUE(std::isnan(reduceRow(op, std::vector<float>(n, nan)))) << op << " of " << n;
      for (float edge : {-inf, inf})
        EXPECT_EQ(reduceRow(op, std::vector<float>(n, edge)), edge) << op << " of " << n;
    }
}

// argmax and argmin ignore NaN: the first element that is not NaN is the best
// so far even when it equals the reduction's starting value (-inf for argmax,
// +inf for argmin), so it, not the NaN at index 0, is the answer.
TEST(ReductionNaN, ArgSkipsLeadingNaN) {
  const float nan = NAN, inf = INFINITY;
  EXPECT_EQ(reduceFour("argmax", "i32", {nan, -inf, -inf, -inf}), 1u);
  EXPECT_EQ(reduceFour("argmin", "i32", {nan, nan, inf, inf}), 2u);
}

} // namespace
