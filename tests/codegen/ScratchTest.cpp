//===- ScratchTest.cpp - Scratch beyond the stack, on every target --------===//
//
// A kernel whose scratch is beyond kMaxStackScratchBytes takes it from its
// thread's arena: in process through the JIT, and under QEMU from a .so that
// the runner loads, whose process provides blockc_scratch_arena. Programs on
// several threads each use their own arena.
//
//===----------------------------------------------------------------------===//
#include "KernelHarness.h"

#include <vector>

using namespace blockc;

namespace {

// Two reductions of the loaded block, with a store between them: the block is
// kept in scratch for the second (the store might change what a second load
// would read), ELEMENTS * 4 bytes of it.
const char *const kTwoSums = R"(constexpr ELEMENTS: i32 = 131072
kernel @two_sums(%p: ptr<f32>, %out: ptr<f32>) {
  %pid = program_id 0
  %n = const ELEMENTS : i32
  %base = mul %pid, %n
  %r = arange 0, ELEMENTS
  %offs = add %r, %base
  %ptrs = addptr %p, %offs
  %x = load %ptrs
  %s = reduce_sum %x, axis=0
  %out_ptr = addptr %out, %pid
  store %out_ptr, %s
  %e = mul %x, %s
  %u = reduce_sum %e, axis=0
  store %out_ptr, %u
}
)";

} // namespace

TEST(Scratch, BeyondTheStackComesFromTheArena) {
  constexpr int kElements = 131072, kPrograms = 4;
  static_assert(kElements * sizeof(float) > kMaxStackScratchBytes);
  auto module = test::compileOrFail(kTwoSums);
  ASSERT_TRUE(module);
  // Small integers: every partial sum is exact in f32, whatever the order.
  std::vector<float> p(size_t(kElements) * kPrograms), out(kPrograms, -1.f);
  std::vector<double> want(kPrograms, 0.0);
  for (int program = 0; program < kPrograms; ++program) {
    double sum = 0;
    for (int i = 0; i < kElements; ++i) {
      float x = float((i * 7 + program) % 5) - 2.f + (i == 0 ? float(program + 1) : 0.f);
      p[size_t(program) * kElements + i] = x;
      sum += x;
    }
    want[program] = sum * sum;
  }
  for (int launch = 0; launch < 2; ++launch) {
    test::launch(module->kernels()[0], {kPrograms, 1, 1}, {p, out});
    for (int program = 0; program < kPrograms; ++program)
      EXPECT_EQ(out[program], want[program]) << "program " << program << ", launch " << launch;
  }
}
