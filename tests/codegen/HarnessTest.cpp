// The test harness itself (KernelHarness.h): arguments that do not fit a kernel's
// parameters are refused before anything runs, and on a remote backend a kernel
// that touches memory outside its buffers is reported with the argument and the
// offset it hit, after which the restarted runner serves the next launch; a
// compiler crash fails the one compile in flight.
#include "CompileServer.h"
#include "Reference.h"
#include "Scratch.h"

#include <filesystem>

using namespace blockc;
using namespace blockc::test;

namespace {

const char *kCopy = R"(
constexpr BLOCK: i32 = 64
kernel @copy(%x: ptr<f32>, %out: ptr<f32>, %n: i32) {
  %r = arange 0, BLOCK
  %m = cmp lt %r, %n
  %xp = addptr %x, %r
  %v = load %xp, mask=%m
  %op = addptr %out, %r
  store %op, %v, mask=%m
}
)";

/// What launch throws, or "" if it returns.
std::string launchFailure(const TestKernel &kernel, const std::vector<Arg> &args) {
  try {
    launch(kernel, {1, 1, 1}, args);
  } catch (const LaunchFailure &e) {
    return e.what();
  }
  return "";
}

TEST(Harness, ArgumentsMustFitParameters) {
  auto module = compileOrFail(kCopy);
  ASSERT_TRUE(module);
  const TestKernel &k = module->kernels()[0];
  std::vector<float> x(8), out(8);
  std::vector<double> wide(8);
  int32_t n = 8;
  EXPECT_NE(launchFailure(k, {x, out}).find("2 arguments for 3 parameters"), std::string::npos);
  EXPECT_NE(launchFailure(k, {x, n, n}).find("needs a buffer, got a scalar"), std::string::npos);
  EXPECT_NE(launchFailure(k, {x, out, out}).find("needs a scalar, got a buffer"),
            std::string::npos);
  EXPECT_NE(launchFailure(k, {x, wide, n}).find("needs elements of 4 bytes, got 8"),
            std::string::npos);
  EXPECT_NE(launchFailure(k, {x, out, int64_t(8)}).find("needs a value of 4 bytes, got 8"),
            std::string::npos);
  EXPECT_EQ(launchFailure(k, {x, out, n}), "");
}

// An unmasked load of 64 elements from a buffer of 10: the guard page after the
// buffer catches it, and the failure names the kernel, the argument and the offset.
TEST(Harness, RemoteFaultNamesArgumentAndRunnerRestarts) {
  if (launchesInProcess())
    GTEST_SKIP() << "in process, a fault would end the test binary (MemorySafety tests use "
                    "child processes instead)";
  auto bad = compileOrFail(R"(
kernel @overread(%x: ptr<f32>, %out: ptr<f32>) {
  %r = arange 0, 64
  %xp = addptr %x, %r
  %v = load %xp
  %s = reduce_sum %v, axis=0
  store %out, %s
}
)");
  ASSERT_TRUE(bad);
  std::vector<float> x(10, 1.f), out(1, 0.f);
  std::string failure = launchFailure(bad->kernels()[0], {x, out});
  EXPECT_NE(failure.find("kernel overread"), std::string::npos) << failure;
  EXPECT_NE(failure.find("past the end of argument 0 (a buffer of 40 bytes)"), std::string::npos)
      << failure;
  EXPECT_NE(failure.find("signal"), std::string::npos) << failure;

  auto good = compileOrFail(kCopy);
  ASSERT_TRUE(good);
  std::vector<float> in = {1, 2, 3}, copy(3, 0.f);
  launch(good->kernels()[0], {1, 1, 1}, {in, copy, int32_t(3)});
  EXPECT_EQ(copy, in);
}

// The compile server (CompileServer.h) dies as a compiler crash would kill it:
// the compile in flight reports the signal and what the server printed, and the
// next compile starts a new server. It serves the host as well as a runner, so
// this runs everywhere.
TEST(Harness, CompilerCrashFailsOneCompileAndServerRestarts) {
  std::string crash = crashCompileServerForTest();
  EXPECT_NE(crash.find("the compiler crashed (signal 6"), std::string::npos) << crash;
  EXPECT_NE(crash.find("aborting, as the test asked"), std::string::npos) << crash;

  std::string folder = blockc::test::scratchDir("libraries").string();
  CompileOptions options;
  std::string library = folder + "/copy.so";
  EXPECT_EQ(compileInServer({"copy.bir", kCopy}, options, library), "");
  EXPECT_TRUE(std::filesystem::exists(library));
  // A compile error is a reply, not a death: it names the line.
  std::string error = compileInServer({"bad.bir", "kernel @k() {\n  %x = nonsense\n}\n"}, options,
                                      folder + "/bad.so");
  EXPECT_NE(error.find("bad.bir:2:"), std::string::npos) << error;
  EXPECT_FALSE(std::filesystem::exists(folder + "/bad.so"));
}

} // namespace
