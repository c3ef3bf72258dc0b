#include "KernelHarness.h"

#include <fstream>
#include <sstream>

using namespace blockc;

TEST(Smoke, VectorAdd) {
  std::ifstream in(BLOCKC_EXAMPLES_DIR "/vector_add.bir");
  std::stringstream text;
  text << in.rdbuf();
  auto module = test::compileOrFail(text.str(), {{"BLOCK", "256"}});
  ASSERT_TRUE(module);
  for (int n : {1, 7, 1023, 1025, 4097}) {
    std::vector<float> a(n), b(n), c(n, -1.f);
    for (int i = 0; i < n; ++i)
      a[i] = i * 0.5f, b[i] = 1000.f - i;
    test::launch(module->kernels()[0], {(n + 255) / 256, 1, 1}, {a, b, c, n});
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(c[i], a[i] + b[i]) << "n=" << n << " i=" << i;
  }
}
