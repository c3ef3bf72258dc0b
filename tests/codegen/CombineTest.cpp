// `reduce` and `scan` with a combine body (docs/block-ir.md, section 10.12) along
// each axis of a 5 x 37 block (a full and a partial strip per row on 16-lane
// targets), forwards and reversed: a prefix sum, an argmax with its tie break
// (two operands), and a non-commutative scan (composing affine maps), whose
// order the reference checks exactly.
#include "KernelHarness.h"

#include <algorithm>
#include <string>

using namespace blockc;
using namespace blockc::test;

namespace {

constexpr int kRows = 5, kCols = 37;

std::string withAxis(std::string text, int axis, bool reverse) {
  for (size_t at; (at = text.find("AXIS")) != std::string::npos;)
    text.replace(at, 4, std::to_string(axis) + (reverse ? ", reverse" : ""));
  return text;
}

const char *kScanKernel = R"(
kernel @scans(%a: ptr<i32>, %b: ptr<i32>, %sum: ptr<i32>, %affine: ptr<i32>) {
  %rows = arange 0, 5
  %cols = arange 0, 37
  %r2 = expand_dims %rows, axis=1
  %c2 = expand_dims %cols, axis=0
  %width = const 37 : i32
  %rw = mul %r2, %width
  %offs = add %rw, %c2
  %ap = addptr %a, %offs
  %bp = addptr %b, %offs
  %av = load %ap
  %bv = load %bp
  %s = scan %av, axis=AXIS combine(%x, %y) {
    %t = add %x, %y
    yield %t
  }
  %m, %h = scan %av, %bv, axis=AXIS combine(%a1, %b1, %a2, %b2) {
    %am = mul %a1, %a2
    %bm = mul %b1, %a2
    %bs = add %bm, %b2
    yield %am, %bs
  }
  %sp = addptr %sum, %offs
  store %sp, %s
  %hp = addptr %affine, %offs
  store %hp, %h
}
)";

class ScanTest : public testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(ScanTest, PrefixSumAndLinearRecurrence) {
  auto [axis, reverse] = GetParam();
  auto module = compileOrFail(withAxis(kScanKernel, axis, reverse));
  ASSERT_TRUE(module);
  std::vector<int32_t> a(kRows * kCols), b(kRows * kCols), sum(a.size(), -1), affine(a.size(), -1);
  for (int i = 0; i < kRows * kCols; ++i) {
    a[i] = (i * 7) % 5 - 2;
    b[i] = (i * 13) % 9 - 4;
  }
  launch(module->kernels()[0], {1, 1, 1}, {a, b, sum, affine});
  int outer = axis == 0 ? kCols : kRows, inner = axis == 0 ? kRows : kCols;
  for (int o = 0; o < outer; ++o) {
    int32_t running = 0, state = 0;
    for (int step = 0; step < inner; ++step) {
      int k = reverse ? inner - 1 - step : step;
      int index = axis == 0 ? k * kCols + o : o * kCols + k;
      running += a[index];
      // h = a * h + b: composing the maps (a1, b1) then (a2, b2).
      state = a[index] * state + b[index];
      ASSERT_EQ(sum[index], running) << "axis " << axis << ", element " << index;
      ASSERT_EQ(affine[index], state) << "axis " << axis << ", element " << index;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Combine, ScanTest,
                         testing::Combine(testing::Values(0, 1), testing::Bool()));

// Many ties: the lowest index must win whatever order the lanes combine in.
const char *kArgmaxKernel = R"(
kernel @argmax(%x: ptr<f32>, %best: ptr<f32>, %where: ptr<i32>) {
  %rows = arange 0, 5
  %cols = arange 0, 37
  %r2 = expand_dims %rows, axis=1
  %c2 = expand_dims %cols, axis=0
  %width = const 37 : i32
  %rw = mul %r2, %width
  %offs = add %rw, %c2
  %xp = addptr %x, %offs
  %xv = load %xp
  %zero = const 0 : i32[5, 37]
  %ri = add %zero, %r2
  %ci = add %zero, %c2
  %index = select %pick_rows, %ri, %ci
  %v, %i = reduce %xv, %index, axis=AXIS combine(%p, %pi, %q, %qi) {
    %gt = cmp gt %p, %q
    %eq = cmp eq %p, %q
    %lt = cmp lt %pi, %qi
    %tie = and %eq, %lt
    %take = or %gt, %tie
    %mv = select %take, %p, %q
    %mi = select %take, %pi, %qi
    yield %mv, %mi
  }
  %n = arange 0, COUNT
  %bp = addptr %best, %n
  store %bp, %v
  %wp = addptr %where, %n
  store %wp, %i
}
)";

TEST(Combine, ReduceArgmaxAlongEachAxis) {
  for (int axis : {0, 1}) {
    std::string source = withAxis(kArgmaxKernel, axis, false);
    int count = axis == 0 ? kCols : kRows;
    source.replace(source.find("COUNT"), 5, std::to_string(count));
    std::string pick =
        std::string("%pick_rows = const ") + (axis == 0 ? "true" : "false") + " : i1\n  %index";
    source.replace(source.find("%index"), 6, pick);
    auto module = compileOrFail(source);
    ASSERT_TRUE(module);
    std::vector<float> x(kRows * kCols), best(count, -1.f);
    std::vector<int32_t> where(count, -1);
    for (int i = 0; i < kRows * kCols; ++i)
      x[i] = float((i * 11) % 4);
    launch(module->kernels()[0], {1, 1, 1}, {x, best, where});
    int inner = axis == 0 ? kRows : kCols;
    for (int o = 0; o < count; ++o) {
      float expect = -1.f;
      int at = -1;
      for (int k = 0; k < inner; ++k) {
        float v = x[axis == 0 ? k * kCols + o : o * kCols + k];
        if (v > expect)
          expect = v, at = k;
      }
      ASSERT_EQ(best[o], expect) << "axis " << axis << ", " << o;
      ASSERT_EQ(where[o], at) << "axis " << axis << ", " << o;
    }
  }
}

} // namespace
