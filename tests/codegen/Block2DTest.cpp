// 2D and 3D blocks: tiles of larger matrices addressed through runtime strides
// (row-major, and transposed by swapping the strides), masks on both edges,
// [BM, 1] with [1, BN] broadcasting, and the shape ops trans and reshape, checked
// against plain C++ loops. Block sizes are chosen not to be multiples of the strip
// width, so rows end in partial strips and rows of one element occur.
#include "Reference.h"

#include <array>
#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

const float kSentinel = -12345.f;

/// y = x * colScale[n] + rowBias[m] over an M x N matrix, one BM x BN tile a
/// program; x and y are addressed through (row, column) strides.
const char *kTileKernel = R"(
constexpr BM: i32 = 16
constexpr BN: i32 = 16
kernel @tile(%x: ptr<f32>, %y: ptr<f32>, %col_scale: ptr<f32>, %row_bias: ptr<f32>,
             %M: i32, %N: i32, %sxm: i32, %sxn: i32, %sym: i32, %syn: i32) {
  %pm = program_id 0
  %pn = program_id 1
  %bm = const BM : i32
  %bn = const BN : i32
  %m0 = mul %pm, %bm
  %n0 = mul %pn, %bn
  %rm = arange 0, BM
  %rn = arange 0, BN
  %om = add %m0, %rm
  %on = add %n0, %rn
  %om_col = expand_dims %om, axis=1
  %on_row = expand_dims %on, axis=0
  %mask_m = cmp lt %om_col, %M
  %mask_n = cmp lt %on_row, %N
  %mask_mb = broadcast %mask_m to [BM, BN]
  %mask = and %mask_mb, %mask_n
  %xr = mul %om_col, %sxm
  %xc = mul %on_row, %sxn
  %xo = add %xr, %xc
  %xp = addptr %x, %xo
  %v = load %xp, mask=%mask
  %sp = addptr %col_scale, %on_row
  %s = load %sp, mask=%mask_n
  %bp = addptr %row_bias, %om_col
  %b = load %bp, mask=%mask_m
  %vs = mul %v, %s
  %w = add %vs, %b
  %yr = mul %om_col, %sym
  %yc = mul %on_row, %syn
  %yo = add %yr, %yc
  %yp = addptr %y, %yo
  store %yp, %w, mask=%mask
}
)";

struct TileCase {
  int bm, bn, m, n;
  bool xTransposed, yTransposed;
};

class TileTest : public testing::TestWithParam<TileCase> {};

TEST_P(TileTest, StridedTileMatchesReference) {
  const TileCase &c = GetParam();
  auto module =
      compileOrFail(kTileKernel, {{"BM", std::to_string(c.bm)}, {"BN", std::to_string(c.bn)}});
  ASSERT_TRUE(module);
  // Leading dimensions larger than the matrix, so a stride mix-up or an unmasked
  // edge lands on padding that the test checks is untouched.
  int ldx = (c.xTransposed ? c.m : c.n) + 3, ldy = (c.yTransposed ? c.m : c.n) + 5;
  int32_t sxm = c.xTransposed ? 1 : ldx, sxn = c.xTransposed ? ldx : 1;
  int32_t sym = c.yTransposed ? 1 : ldy, syn = c.yTransposed ? ldy : 1;
  size_t xSize = size_t(ldx) * (c.xTransposed ? c.n : c.m),
         ySize = size_t(ldy) * (c.yTransposed ? c.n : c.m);
  std::vector<float> x(xSize), y(ySize, kSentinel), colScale(c.n), rowBias(c.m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-10, 10);
  for (float &v : x)
    v = dist(rng);
  for (float &v : colScale)
    v = dist(rng);
  for (float &v : rowBias)
    v = dist(rng);
  int32_t M = c.m, N = c.n;
  launch(module->kernels()[0], {cdiv(c.m, c.bm), cdiv(c.n, c.bn), 1},
         {x, y, colScale, rowBias, M, N, sxm, sxn, sym, syn});
  std::vector<bool> written(ySize, false);
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      // Two statements: the kernel rounds the product before adding (no fma).
      float product = x[size_t(i) * sxm + size_t(j) * sxn] * colScale[j];
      float want = product + rowBias[i];
      size_t at = size_t(i) * sym + size_t(j) * syn;
      written[at] = true;
      ASSERT_EQ(y[at], want) << "m=" << i << " n=" << j;
    }
  for (size_t k = 0; k < ySize; ++k)
    if (!written[k])
      ASSERT_EQ(y[k], kSentinel) << "wrote padding at " << k;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TileTest,
    testing::Values(TileCase{16, 16, 33, 17, false, false}, TileCase{16, 16, 33, 17, true, false},
                    TileCase{16, 16, 33, 17, false, true}, TileCase{16, 16, 33, 17, true, true},
                    TileCase{8, 20, 7, 5, false, false}, TileCase{8, 20, 7, 5, true, true},
                    TileCase{5, 7, 33, 17, false, true}, TileCase{7, 5, 33, 17, true, false},
                    TileCase{32, 24, 65, 50, false, false}, TileCase{3, 40, 10, 81, true, false},
                    TileCase{1, 19, 4, 19, false, false}, TileCase{19, 1, 19, 4, false, true},
                    TileCase{4, 33, 9, 100, false, false}),
    [](const testing::TestParamInfo<TileCase> &info) {
      const TileCase &c = info.param;
      return "B" + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "_M" + std::to_string(c.m) +
             "xN" + std::to_string(c.n) + (c.xTransposed ? "_xT" : "") +
             (c.yTransposed ? "_yT" : "");
    });

// trans of a masked tile: y (N x M, row-major) = transpose of x (M x N), with
// the store addressed by the transposed tile's own row and column offsets.
TEST(Block2D, TransposeTile) {
  const char *source = R"(
constexpr BM: i32 = 16
constexpr BN: i32 = 16
kernel @t(%x: ptr<f32>, %y: ptr<f32>, %M: i32, %N: i32) {
  %pm = program_id 0
  %pn = program_id 1
  %bm = const BM : i32
  %bn = const BN : i32
  %m0 = mul %pm, %bm
  %n0 = mul %pn, %bn
  %rm = arange 0, BM
  %rn = arange 0, BN
  %om = add %m0, %rm
  %on = add %n0, %rn
  %om_col = expand_dims %om, axis=1
  %on_row = expand_dims %on, axis=0
  %mask_m = cmp lt %om_col, %M
  %mask_n = cmp lt %on_row, %N
  %mask = and %mask_m, %mask_n
  %xr = mul %om_col, %N
  %xo = add %xr, %on_row
  %xp = addptr %x, %xo
  %v = load %xp, mask=%mask
  %t = trans %v
  %on_col = expand_dims %on, axis=1
  %om_row = expand_dims %om, axis=0
  %yr = mul %on_col, %M
  %yo = add %yr, %om_row
  %yp = addptr %y, %yo
  %tmask = trans %mask
  store %yp, %t, mask=%tmask
}
)";
  for (auto [bm, bn, m, n] :
       {std::array<int, 4>{16, 16, 33, 17}, {7, 5, 7, 5}, {5, 24, 13, 50}, {1, 9, 3, 9}}) {
    auto module = compileOrFail(source, {{"BM", std::to_string(bm)}, {"BN", std::to_string(bn)}});
    ASSERT_TRUE(module);
    std::vector<float> x(size_t(m) * n), y(size_t(m) * n + 8, kSentinel);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i) + 0.25f;
    launch(module->kernels()[0], {cdiv(m, bm), cdiv(n, bn), 1}, {x, y, m, n});
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        ASSERT_EQ(y[size_t(j) * m + i], x[size_t(i) * n + j])
            << bm << "x" << bn << " m=" << i << " n=" << j;
    for (size_t k = size_t(m) * n; k < y.size(); ++k)
      ASSERT_EQ(y[k], kSentinel);
  }
}

// trans with a permutation of a rank-3 block (NumPy's transpose): result index
// i_k is index perm[k] of the source.
TEST(Block2D, PermuteRank3) {
  const int d[3] = {3, 5, 7};
  const std::array<int, 3> perms[] = {{2, 0, 1}, {1, 0, 2}, {0, 2, 1}, {1, 2, 0}, {2, 1, 0}};
  for (const auto &perm : perms) {
    int r[3] = {d[perm[0]], d[perm[1]], d[perm[2]]};
    std::ostringstream s;
    s << "kernel @p(%x: ptr<i32>, %y: ptr<i32>) {\n"
      << "  %lin = arange 0, 105\n  %src = reshape %lin to [3, 5, 7]\n"
      << "  %xp = addptr %x, %src\n  %v = load %xp\n"
      << "  %t = trans %v, perm=[" << perm[0] << ", " << perm[1] << ", " << perm[2] << "]\n"
      << "  %dst = reshape %lin to [" << r[0] << ", " << r[1] << ", " << r[2] << "]\n"
      << "  %yp = addptr %y, %dst\n  store %yp, %t\n}\n";
    auto module = compileOrFail(s.str());
    ASSERT_TRUE(module);
    std::vector<int32_t> x(105), y(105, -1);
    for (int i = 0; i < 105; ++i)
      x[i] = 1000 + i;
    launch(module->kernels()[0], {1, 1, 1}, {x, y});
    for (int a = 0; a < r[0]; ++a)
      for (int b = 0; b < r[1]; ++b)
        for (int c = 0; c < r[2]; ++c) {
          int src[3];
          src[perm[0]] = a, src[perm[1]] = b, src[perm[2]] = c;
          ASSERT_EQ(y[(a * r[1] + b) * r[2] + c], x[(src[0] * 5 + src[1]) * 7 + src[2]])
              << "perm " << perm[0] << perm[1] << perm[2] << " at " << a << "," << b << "," << c;
        }
  }
}

// reshape keeps row-major element order: a 1D load viewed as [R, C] (plus a
// broadcast row so the reshaped value feeds arithmetic), as [C, R], and back to 1D.
TEST(Block2D, ReshapeKeepsRowMajorOrder) {
  const char *source = R"(
constexpr R: i32 = 4
constexpr C: i32 = 4
constexpr RC: i32 = R * C
kernel @r(%x: ptr<f32>, %y: ptr<f32>, %z: ptr<f32>, %ld: i32) {
  %lin = arange 0, RC
  %xp = addptr %x, %lin
  %v = load %xp
  %m = reshape %v to [R, C]
  %cols = arange 0, C
  %cols_f = cast %cols to f32
  %cols_row = expand_dims %cols_f, axis=0
  %w = add %m, %cols_row
  %rows = arange 0, R
  %rows_col = expand_dims %rows, axis=1
  %yr = mul %rows_col, %ld
  %cols_row_i = expand_dims %cols, axis=0
  %yo = add %yr, %cols_row_i
  %yp = addptr %y, %yo
  store %yp, %w
  %flip = reshape %w to [C, R]
  %back = reshape %flip to [RC]
  %zp = addptr %z, %lin
  store %zp, %back
}
)";
  for (auto [rows, cols] : {std::pair<int, int>{7, 5}, {33, 17}, {1, 13}, {16, 16}, {12, 1}}) {
    auto module = compileOrFail(source, {{"R", std::to_string(rows)}, {"C", std::to_string(cols)}});
    ASSERT_TRUE(module);
    int ld = cols + 2;
    std::vector<float> x(size_t(rows) * cols), y(size_t(rows) * ld, kSentinel), z(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i) * 0.5f;
    launch(module->kernels()[0], {1, 1, 1}, {x, y, z, ld});
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < ld; ++j) {
        float want = j < cols ? x[size_t(i) * cols + j] + float(j) : kSentinel;
        ASSERT_EQ(y[size_t(i) * ld + j], want) << rows << "x" << cols << " at " << i << "," << j;
      }
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(z[i], x[i] + float(i % cols)) << rows << "x" << cols << " at " << i;
  }
}

// `other` given as a block: masked-off lanes take its element, here a [BM, 1]
// column broadcast along each row, so every lane past N reads its row's value.
TEST(Block2D, LoadOtherBlock) {
  const char *source = R"(
kernel @o(%x: ptr<f32>, %fill: ptr<f32>, %out: ptr<f32>, %N: i32) {
  %rm = arange 0, 6
  %rn = arange 0, 21
  %om = expand_dims %rm, axis=1
  %on = expand_dims %rn, axis=0
  %c21 = const 21 : i32
  %row = mul %om, %c21
  %offs = add %row, %on
  %m = cmp lt %on, %N
  %fp = addptr %fill, %om
  %f = load %fp
  %xp = addptr %x, %offs
  %v = load %xp, mask=%m, other=%f
  %op = addptr %out, %offs
  store %op, %v
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  for (int32_t n : {0, 1, 16, 17, 21}) {
    std::vector<float> x(6 * 21), fill(6), out(6 * 21, kSentinel);
    for (int i = 0; i < 6 * 21; ++i)
      x[i] = float(i);
    for (int i = 0; i < 6; ++i)
      fill[i] = -1.f - float(i);
    launch(module->kernels()[0], {1, 1, 1}, {x, fill, out, n});
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 21; ++j)
        ASSERT_EQ(out[i * 21 + j], j < n ? x[i * 21 + j] : fill[i])
            << "N=" << n << " at " << i << "," << j;
  }
}

// A store whose pointers step by a constant other than one (2 here, with no
// run-time scale) is a scatter: its lanes' pointers must be computed. The
// code generator once took it for contiguous and crashed.
TEST(Block2D, StoreWithConstantStrideTwo) {
  const char *source = R"(
kernel @s(%x: ptr<f32>, %z: ptr<f32>) {
  %r = arange 0, 64
  %p = addptr %x, %r
  %v = load %p
  %c = const 2 : i32
  %o = mul %r, %c
  %q = addptr %z, %o
  store %q, %v
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  std::vector<float> x(64), z(128, kSentinel);
  for (int i = 0; i < 64; ++i)
    x[i] = float(i) + 0.5f;
  launch(module->kernels()[0], {1, 1, 1}, {x, z});
  for (int i = 0; i < 128; ++i)
    ASSERT_EQ(z[i], i % 2 ? kSentinel : x[i / 2]) << i;
}

// program_id and num_programs on all three grid axes: every program writes its
// flattened id and the grid sizes to its own slot, exactly once.
TEST(Block2D, ProgramIdsOnEveryAxis) {
  const char *source = R"(
kernel @ids(%out: ptr<i32>) {
  %x = program_id 0
  %y = program_id 1
  %z = program_id 2
  %gx = num_programs 0
  %gy = num_programs 1
  %gz = num_programs 2
  %yz = mul %z, %gy
  %yzy = add %yz, %y
  %lin = mul %yzy, %gx
  %id = add %lin, %x
  %four = const 4 : i32
  %slot = mul %id, %four
  %vals = arange 0, 4
  %zero = const 0 : i32
  %one = const 1 : i32
  %two = const 2 : i32
  %is0 = cmp eq %vals, %zero
  %is1 = cmp eq %vals, %one
  %is2 = cmp eq %vals, %two
  %v23 = select %is2, %gy, %gz
  %v123 = select %is1, %gx, %v23
  %v = select %is0, %id, %v123
  %base = addptr %out, %slot
  %p = addptr %base, %vals
  store %p, %v
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  for (auto [gx, gy, gz] : {std::array<int, 3>{3, 4, 5}, {1, 1, 7}, {17, 1, 1}, {2, 9, 1}}) {
    int total = gx * gy * gz;
    std::vector<int32_t> out(size_t(total) * 4, -1);
    launch(module->kernels()[0], {gx, gy, gz}, {out});
    for (int id = 0; id < total; ++id) {
      ASSERT_EQ(out[id * 4], id) << gx << "x" << gy << "x" << gz;
      ASSERT_EQ(out[id * 4 + 1], gx);
      ASSERT_EQ(out[id * 4 + 2], gy);
      ASSERT_EQ(out[id * 4 + 3], gz);
    }
  }
}

// Blocks past rank 3: a reshape to rank 5, a permutation of its axes, a
// reduction along a middle axis and a scan along the last one, each checked
// element by element against the same index arithmetic in C++.
TEST(Block2D, RankFiveReshapeTransposeReduceScan) {
  const char *source = R"(
kernel @rank5(%x: ptr<f32>, %t: ptr<f32>, %s: ptr<f32>, %c: ptr<f32>) {
  %r = arange 0, 96
  %xp = addptr %x, %r
  %v = load %xp
  %v5 = reshape %v to [2, 3, 2, 2, 4]
  %p = trans %v5, perm=[4, 2, 0, 3, 1]
  %flat = reshape %p to [96]
  %tp = addptr %t, %r
  store %tp, %flat
  %red = reduce_sum %p, axis=2
  %rf = reshape %red to [48]
  %r48 = arange 0, 48
  %sp = addptr %s, %r48
  store %sp, %rf
  %cs = scan %p, axis=4 combine(%a, %b) {
    %ab = add %a, %b
    yield %ab
  }
  %cf = reshape %cs to [96]
  %cp = addptr %c, %r
  store %cp, %cf
}
)";
  auto module = compileOrFail(source);
  ASSERT_TRUE(module);
  std::vector<float> x(96), t(96, -1.f), s(48, -1.f), c(96, -1.f);
  for (int i = 0; i < 96; ++i)
    x[i] = float(i % 13) - 6.f;
  launch(module->kernels()[0], {1, 1, 1}, {x, t, s, c});
  // p[a][b][c][d][e] = v[c][e][b][d][a] over v's dims (2, 3, 2, 2, 4).
  const int dims[5] = {2, 3, 2, 2, 4};
  const int perm[5] = {4, 2, 0, 3, 1};
  int pd[5];
  for (int k = 0; k < 5; ++k)
    pd[k] = dims[perm[k]];
  auto source5 = [&](const int (&index)[5]) {
    int v[5];
    for (int k = 0; k < 5; ++k)
      v[perm[k]] = index[k];
    return x[(((v[0] * 3 + v[1]) * 2 + v[2]) * 2 + v[3]) * 4 + v[4]];
  };
  int flat = 0;
  for (int a = 0; a < pd[0]; ++a)
    for (int b = 0; b < pd[1]; ++b)
      for (int cc = 0; cc < pd[2]; ++cc)
        for (int d = 0; d < pd[3]; ++d) {
          float running = 0.f;
          for (int e = 0; e < pd[4]; ++e, ++flat) {
            float value = source5({a, b, cc, d, e});
            running += value;
            ASSERT_EQ(t[flat], value) << flat;
            ASSERT_EQ(c[flat], running) << flat;
          }
        }
  int out = 0;
  for (int a = 0; a < pd[0]; ++a)
    for (int b = 0; b < pd[1]; ++b)
      for (int d = 0; d < pd[3]; ++d)
        for (int e = 0; e < pd[4]; ++e, ++out) {
          float sum = 0.f;
          for (int cc = 0; cc < pd[2]; ++cc)
            sum += source5({a, b, cc, d, e});
          ASSERT_EQ(s[out], sum) << out;
        }
}

} // namespace
