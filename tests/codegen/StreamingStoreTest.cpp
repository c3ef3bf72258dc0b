// Non-temporal stores (--streaming-stores): a strip streams only when all its
// lanes are on and, on x86, its address is aligned to the vector; every other
// strip takes the ordinary masked store. Output offsets 0 to 17 elements give
// every alignment, lengths give full and partial blocks; the result must be the
// same as with plain stores, and nothing past the end may be written.
#include "Reference.h"

using namespace blockc;
using namespace blockc::test;

namespace {

const char *kScaleKernel = R"(
kernel @scale(%x: ptr<f32>, %y: ptr<f32>, %offset: i32, %n: i32) {
  %pid = program_id 0
  %block = const 256 : i32
  %start = mul %pid, %block
  %r = arange 0, 256
  %offs = add %start, %r
  %m = cmp lt %offs, %n
  %xp = addptr %x, %offs
  %v = load %xp, mask=%m
  %two = const 2.0 : f32
  %w = mul %v, %two
  %out = add %offs, %offset
  %yp = addptr %y, %out
  store %yp, %w, mask=%m
}
)";

TEST(StreamingStores, EveryAlignmentAndTail) {
  for (auto when : {CompileOptions::StreamingStores::Always, CompileOptions::StreamingStores::Auto,
                    CompileOptions::StreamingStores::Never}) {
    CompileOptions options;
    options.streamingStores = when;
    auto module = compileWithOptionsOrFail(kScaleKernel, options);
    ASSERT_TRUE(module);
    for (int32_t n : {1, 255, 256, 1000, 4096})
      for (int32_t offset : {0, 1, 3, 8, 17}) {
        std::vector<float> x(n), y(size_t(n) + offset + 20, -777.f);
        for (int32_t i = 0; i < n; ++i)
          x[i] = float(i % 97) - 40.5f;
        launch(module->kernels()[0], {(n + 255) / 256, 1, 1}, {x, y, offset, n});
        for (size_t i = 0; i < y.size(); ++i) {
          bool written = i >= size_t(offset) && i < size_t(offset) + n;
          float want = written ? x[i - offset] * 2 : -777.f;
          ASSERT_EQ(y[i], want) << "mode " << int(when) << " n=" << n << " offset=" << offset
                                << " i=" << i;
        }
      }
  }
}

} // namespace
