// A masked-off lane never touches memory (section 10.10). Every buffer here ends
// (or starts) right at a PROT_NONE page, so a read or write of even one element
// past the data faults; launches run in a child process so a fault fails the test
// instead of killing the binary. Sizes make the last strip of a block partial.
#include "ChildProcess.h"
#include "Reference.h"

#include <limits>
#include <sstream>

using namespace blockc;
using namespace blockc::test;

namespace {

using Align = SharedPages::Align;

const int kSizes[] = {1, 7, 16, 17, 1023, 1025, 4097};

std::string launchInChild(const JitKernel &kernel, blockc_grid grid, std::vector<void *> args) {
  return test::launchInChild(kernel.fn, grid, args.data());
}

/// `v` (a small integer) in type `t`.
uint64_t encodeSmall(DType t, int64_t v) {
  return encode(t, isFloat(t) ? floatVal(double(v)) : intVal(v));
}

// The guard pages work: the same kind of load without its mask runs past the data
// and must fault, or every test below would pass without checking anything.
TEST(MemorySafety, GuardPageCatchesUnmaskedLoad) {
  const char *source = R"(
kernel @k(%x: ptr<f32>, %out: ptr<f32>) {
  %r = arange 0, 64
  %xp = addptr %x, %r
  %v = load %xp
  %op = addptr %out, %r
  store %op, %v
}
)";
  auto module = compileInProcessOrFail(source);
  ASSERT_TRUE(module);
  SharedPages xs(7 * 4), outs(64 * 4);
  float *x = xs.at<float>(Align::End, 7 * 4), *out = outs.at<float>(Align::End, 64 * 4);
  EXPECT_NE(launchInChild(module->kernels()[0], {1, 1, 1}, {&x, &out}).find("signal"),
            std::string::npos);
}

// Contiguous masked loads and stores, out[i] = x[i] + x[i]: both buffers end at a
// guard page, for element sizes 1 to 8 and a block that is not a multiple of the
// strip width.
TEST(MemorySafety, ContiguousTail) {
  for (DType t : {DType::F32, DType::F64, DType::I8, DType::F16, DType::I64})
    for (int block : {256, 20}) {
      std::ostringstream s;
      s << "constexpr BLOCK: i32 = 256\n"
        << "kernel @k(%x: ptr<" << typeName(t) << ">, %out: ptr<" << typeName(t)
        << ">, %n: i32) {\n"
        << "  %pid = program_id 0\n  %bs = const BLOCK : i32\n  %start = mul %pid, %bs\n"
        << "  %r = arange 0, BLOCK\n  %offs = add %start, %r\n  %m = cmp lt %offs, %n\n"
        << "  %xp = addptr %x, %offs\n  %v = load %xp, mask=%m\n  %w = add %v, %v\n"
        << "  %op = addptr %out, %offs\n  store %op, %w, mask=%m\n}\n";
      auto module = compileInProcessOrFail(s.str(), {{"BLOCK", std::to_string(block)}});
      ASSERT_TRUE(module);
      for (int n : kSizes) {
        size_t bytes = size_t(n) * bytesOf(t);
        SharedPages in(bytes), out(bytes);
        auto *x = in.at<uint8_t>(Align::End, bytes), *y = out.at<uint8_t>(Align::End, bytes);
        for (int i = 0; i < n; ++i) {
          uint64_t bits = encodeSmall(t, i % 50 - 25);
          std::memcpy(x + i * bytesOf(t), &bits, bytesOf(t));
        }
        int32_t count = n;
        ASSERT_EQ(launchInChild(module->kernels()[0], {cdiv(n, block), 1, 1}, {&x, &y, &count}), "")
            << typeName(t) << " BLOCK=" << block << " n=" << n;
        for (int i = 0; i < n; ++i) {
          uint64_t got = 0;
          std::memcpy(&got, y + i * bytesOf(t), bytesOf(t));
          ASSERT_EQ(got, encodeSmall(t, 2 * (i % 50 - 25)))
              << typeName(t) << " n=" << n << " i=" << i;
        }
      }
    }
}

// Loops versioned on their index masks (every lane on: no mask) must not take
// the unmasked version for offsets that wrap. idx = base + r wraps past
// INT32_MAX after lane 3, so `idx > 0` is off from lane 4 on; an analysis that
// ignored the wrap would see base > 0 and read x past its 4 elements.
TEST(MemorySafety, WrappingIndexKeepsTheMask) {
  const char *source = R"(
kernel @k(%x: ptr<f32>, %out: ptr<f32>, %base: i32) {
  %r = arange 0, 8
  %idx = add %base, %r
  %zero = const 0 : i32
  %m = cmp gt %idx, %zero
  %xp = addptr %x, %r
  %v = load %xp, mask=%m
  %op = addptr %out, %r
  store %op, %v, mask=%m
}
)";
  auto module = compileInProcessOrFail(source);
  ASSERT_TRUE(module);
  SharedPages in(4 * 4), out(8 * 4);
  float *x = in.at<float>(Align::End, 4 * 4), *y = out.at<float>(Align::End, 8 * 4);
  for (int i = 0; i < 4; ++i)
    x[i] = float(i + 1);
  for (int i = 0; i < 8; ++i)
    y[i] = 100.0f;
  int32_t base = std::numeric_limits<int32_t>::max() - 3;
  ASSERT_EQ(launchInChild(module->kernels()[0], {1, 1, 1}, {&x, &y, &base}), "");
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], i < 4 ? float(i + 1) : 100.0f) << "lane " << i;
}

// Gathers and scatters: out[i * so] = x[i * sx] with the strides given at run
// time, and x[(n - 1) - i] read backwards, whose masked lanes point before the
// start of x (placed right after a guard page).
TEST(MemorySafety, StridedAndReversed) {
  const char *source = R"(
constexpr BLOCK: i32 = 64
kernel @k(%x: ptr<f32>, %out: ptr<f32>, %rev: ptr<f32>, %n: i32, %sx: i32, %so: i32) {
  %pid = program_id 0
  %bs = const BLOCK : i32
  %start = mul %pid, %bs
  %r = arange 0, BLOCK
  %offs = add %start, %r
  %m = cmp lt %offs, %n
  %xo = mul %offs, %sx
  %xp = addptr %x, %xo
  %v = load %xp, mask=%m
  %oo = mul %offs, %so
  %op = addptr %out, %oo
  store %op, %v, mask=%m
  %one = const 1 : i32
  %last = sub %n, %one
  %back = sub %last, %offs
  %bp = addptr %x, %back
  %b = load %bp, mask=%m
  %rp = addptr %rev, %offs
  store %rp, %b, mask=%m
}
)";
  auto module = compileInProcessOrFail(source);
  ASSERT_TRUE(module);
  for (auto [sx, so] : {std::pair<int32_t, int32_t>{1, 1}, {2, 3}, {3, 1}, {1, 5}})
    for (int n : kSizes) {
      // Reading backwards needs x at the start of its pages; the strided reads need
      // its end at the guard, so two layouts of the same values.
      size_t xCount = size_t(n - 1) * sx + 1, oCount = size_t(n - 1) * so + 1;
      for (Align xAlign : {Align::Start, Align::End}) {
        SharedPages xs(xCount * 4), outs(oCount * 4), revs(size_t(n) * 4);
        float *x = xs.at<float>(xAlign, xCount * 4), *out = outs.at<float>(Align::End, oCount * 4),
              *rev = revs.at<float>(Align::End, size_t(n) * 4);
        for (size_t i = 0; i < xCount; ++i)
          x[i] = float(i) + 0.5f;
        int32_t count = n;
        ASSERT_EQ(launchInChild(module->kernels()[0], {cdiv(n, 64), 1, 1},
                                {&x, &out, &rev, &count, &sx, &so}),
                  "")
            << "n=" << n << " sx=" << sx << " so=" << so;
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(out[size_t(i) * so], x[size_t(i) * sx]) << "n=" << n << " i=" << i;
          ASSERT_EQ(rev[i], x[n - 1 - i]) << "n=" << n << " i=" << i;
        }
      }
    }
}

// addptr offsets of every int type are sign-extended (section 10.10): gathers at
// base + off[i] with negative i8/i16/i32/i64 offsets, off[i] in [-R, R], from the
// middle of a buffer of 2R + 1 elements; a zero-extended -1 lands past its end.
TEST(MemorySafety, SignedOffsetsOfEveryWidth) {
  for (DType t : {DType::I8, DType::I16, DType::I32, DType::I64}) {
    std::ostringstream s;
    s << "kernel @k(%x: ptr<f32>, %off: ptr<" << typeName(t)
      << ">, %out: ptr<f32>, %base: i64, %n: i32) {\n"
      << "  %r = arange 0, 64\n  %m = cmp lt %r, %n\n  %offp = addptr %off, %r\n"
      << "  %o = load %offp, mask=%m\n  %xb = addptr %x, %base\n  %xp = addptr %xb, %o\n"
      << "  %v = load %xp, mask=%m\n  %op = addptr %out, %r\n  store %op, %v, mask=%m\n}\n";
    auto module = compileInProcessOrFail(s.str());
    ASSERT_TRUE(module);
    int64_t range = t == DType::I8 ? 100 : 1000;
    std::mt19937_64 rng(5);
    for (int n : {1, 17, 64}) {
      size_t xBytes = size_t(2 * range + 1) * 4;
      SharedPages xs(xBytes), outs(64 * 4);
      float *x = xs.at<float>(Align::End, xBytes), *out = outs.at<float>(Align::End, 64 * 4);
      for (int64_t i = 0; i <= 2 * range; ++i)
        x[i] = float(i - range);
      Buffer off(t, 64);
      for (int i = 0; i < n; ++i)
        off.set(i, intVal(i == 0 ? -1 : int64_t(rng() % uint64_t(2 * range + 1)) - range));
      void *po = off.data();
      int64_t base = range;
      int32_t count = n;
      ASSERT_EQ(launchInChild(module->kernels()[0], {1, 1, 1}, {&x, &po, &out, &base, &count}), "")
          << typeName(t) << " n=" << n;
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(out[i], float(off.get(i).i)) << typeName(t) << " n=" << n << " i=" << i;
    }
  }
}

// Scalar loads and stores under a scalar mask, at one past the end of the data:
// off, they must not touch it; on (at the last element), they must.
TEST(MemorySafety, ScalarMaskedAccess) {
  const char *source = R"(
kernel @k(%x: ptr<i32>, %out: ptr<i32>, %copy: ptr<i32>, %idx: i32, %n: i32) {
  %m = cmp lt %idx, %n
  %xp = addptr %x, %idx
  %other = const -9 : i32
  %v = load %xp, mask=%m, other=%other
  store %copy, %v
  %op = addptr %out, %idx
  store %op, %v, mask=%m
}
)";
  auto module = compileInProcessOrFail(source);
  ASSERT_TRUE(module);
  for (int n : {1, 7, 1024})
    for (int32_t idx : {n, n - 1}) {
      SharedPages xs(size_t(n) * 4), outs(size_t(n) * 4), copies(4);
      int32_t *x = xs.at<int32_t>(Align::End, size_t(n) * 4),
              *out = outs.at<int32_t>(Align::End, size_t(n) * 4),
              *copy = copies.at<int32_t>(Align::End, 4);
      for (int i = 0; i < n; ++i)
        x[i] = 100 + i, out[i] = -1;
      int32_t count = n;
      ASSERT_EQ(launchInChild(module->kernels()[0], {1, 1, 1}, {&x, &out, &copy, &idx, &count}), "")
          << "n=" << n << " idx=" << idx;
      EXPECT_EQ(*copy, idx < n ? x[idx] : -9) << "n=" << n << " idx=" << idx;
      if (idx < n)
        EXPECT_EQ(out[idx], x[idx]);
    }
}

// The bottom-right tile of an M x N row-major matrix that ends at a guard page:
// rows past M and columns past N are masked on both the load and the store.
TEST(MemorySafety, TileEdges) {
  const char *source = R"(
constexpr BM: i32 = 16
constexpr BN: i32 = 16
kernel @k(%x: ptr<f32>, %out: ptr<f32>, %M: i32, %N: i32) {
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
  %row = mul %om_col, %N
  %offs = add %row, %on_row
  %xp = addptr %x, %offs
  %v = load %xp, mask=%mask
  %t = trans %v
  %back = trans %t
  %op = addptr %out, %offs
  store %op, %back, mask=%mask
}
)";
  for (auto [bm, bn] : {std::pair<int, int>{16, 16}, {5, 7}, {1, 33}})
    for (auto [m, n] : {std::pair<int32_t, int32_t>{33, 17}, {7, 5}, {1, 1}, {16, 16}, {100, 3}}) {
      auto module =
          compileInProcessOrFail(source, {{"BM", std::to_string(bm)}, {"BN", std::to_string(bn)}});
      ASSERT_TRUE(module);
      size_t bytes = size_t(m) * n * 4;
      SharedPages xs(bytes), outs(bytes);
      float *x = xs.at<float>(Align::End, bytes), *out = outs.at<float>(Align::End, bytes);
      for (size_t i = 0; i < size_t(m) * n; ++i)
        x[i] = float(i), out[i] = -1;
      ASSERT_EQ(
          launchInChild(module->kernels()[0], {cdiv(m, bm), cdiv(n, bn), 1}, {&x, &out, &m, &n}),
          "")
          << bm << "x" << bn << " tiles of " << m << "x" << n;
      for (size_t i = 0; i < size_t(m) * n; ++i)
        ASSERT_EQ(out[i], x[i]) << i;
    }
}

// A loop over BLOCK-sized chunks whose last chunk is partial: only its active
// lanes may be read.
TEST(MemorySafety, ChunkLoopTail) {
  const char *source = R"(
constexpr BLOCK: i32 = 64
kernel @k(%x: ptr<f32>, %sum: ptr<f32>, %n: i32) {
  %zero = const 0 : i32
  %bs = const BLOCK : i32
  %r = arange 0, BLOCK
  %acc0 = const 0.0 : f32[BLOCK]
  %acc = for %off = %zero to %n step %bs iter(%a = %acc0) {
    %offs = add %off, %r
    %m = cmp lt %offs, %n
    %p = addptr %x, %offs
    %v = load %p, mask=%m
    %a_next = add %a, %v
    yield %a_next
  }
  %s = reduce_sum %acc, axis=0
  store %sum, %s
}
)";
  auto module = compileInProcessOrFail(source);
  ASSERT_TRUE(module);
  for (int n : kSizes) {
    SharedPages xs(size_t(n) * 4), sums(4);
    float *x = xs.at<float>(Align::End, size_t(n) * 4), *sum = sums.at<float>(Align::End, 4);
    float want = 0;
    for (int i = 0; i < n; ++i)
      want += (x[i] = float(i % 9) - 4);
    int32_t count = n;
    ASSERT_EQ(launchInChild(module->kernels()[0], {1, 1, 1}, {&x, &sum, &count}), "") << "n=" << n;
    EXPECT_EQ(*sum, want) << "n=" << n;
  }
}

// Within one program, memory ops take effect in program order (section 2): a
// load that comes before a store sees memory as it was, even when the store
// overwrites what later lanes of the load read. Shifting right by one in place
// is the smallest case: x[i + 1] = old x[i].
TEST(MemoryOrder, LoadBeforeOverlappingStore) {
  const char *source = R"(
constexpr BLOCK: i32 = 64
kernel @shift(%x: ptr<i32>) {
  %r = arange 0, BLOCK
  %p = addptr %x, %r
  %v = load %p
  %one = const 1 : i32
  %q = addptr %p, %one
  store %q, %v
}
)";
  for (int block : {64, 5, 37}) {
    auto module = compileOrFail(source, {{"BLOCK", std::to_string(block)}});
    ASSERT_TRUE(module);
    std::vector<int32_t> x(block + 1);
    for (int i = 0; i <= block; ++i)
      x[i] = 10 * i;
    launch(module->kernels()[0], {1, 1, 1}, {x});
    EXPECT_EQ(x[0], 0);
    for (int i = 0; i < block; ++i)
      if (x[i + 1] != 10 * i) {
        ADD_FAILURE() << "BLOCK=" << block << ": x[" << i + 1 << "] is " << x[i + 1]
                      << ", expected the old x[" << i << "] = " << 10 * i << "\n"
                      << source;
        break;
      }
  }
}

// The same rule when the loaded value reaches the store through arithmetic: y is
// computed from the load before x is overwritten, so it must hold old x + 1, both
// in straight-line code and when y is used inside a loop that overwrites x.
TEST(MemoryOrder, ValueDerivedFromLoadBeforeStore) {
  const char *straight = R"(
kernel @k(%x: ptr<i32>, %out: ptr<i32>) {
  %r = arange 0, 40
  %p = addptr %x, %r
  %v = load %p
  %one = const 1 : i32
  %y = add %v, %one
  %zeros = const 0 : i32[40]
  store %p, %zeros
  %q = addptr %out, %r
  store %q, %y
}
)";
  const char *looped = R"(
kernel @k(%x: ptr<i32>, %out: ptr<i32>) {
  %r = arange 0, 40
  %p = addptr %x, %r
  %v = load %p
  %one = const 1 : i32
  %y = add %v, %one
  %zero = const 0 : i32
  %three = const 3 : i32
  %q = addptr %out, %r
  for %i = %zero to %three step %one {
    %fill = splat %i to [40]
    store %p, %fill
    store %q, %y
  }
}
)";
  for (const char *source : {straight, looped}) {
    auto module = compileOrFail(source);
    ASSERT_TRUE(module);
    std::vector<int32_t> x(40), out(40, -1);
    for (int i = 0; i < 40; ++i)
      x[i] = 100 + i;
    launch(module->kernels()[0], {1, 1, 1}, {x, out});
    for (int i = 0; i < 40; ++i)
      if (out[i] != 101 + i) {
        ADD_FAILURE() << "out[" << i << "] is " << out[i] << ", expected " << 101 + i << "\n"
                      << source;
        break;
      }
  }
}

} // namespace
