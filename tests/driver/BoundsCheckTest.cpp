//===- BoundsCheckTest.cpp - blockc run --check-bounds --------------------===//
//
// An undersized buffer once crashed the run (or corrupted the heap and left
// a truncated .npy). With --check-bounds the first bad lane of a load or a
// store is an error naming the op's line:col, the argument, the program and
// the offset; exit code 1 and no output file. Checked on every x86 target
// this CPU runs; the others skip, naming the features they lack.
//
//===----------------------------------------------------------------------===//
#include "RunProcess.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

using namespace blockc::test;
namespace fs = std::filesystem;

namespace {

const std::string kVectorAdd = BLOCKC_EXAMPLES_DIR "/vector_add.bir";

class BoundsCheckTest : public testing::TestWithParam<std::string> {
protected:
  /// Runs vector_add over 1000 elements with buffers of the given sizes, by
  /// default on one thread, so that the first violation is the first program's.
  ProcessResult run(int a, int c, const std::string &output, int threads = 1) {
    return runCommand("BLOCKC_CACHE_DIR=off '" BLOCKC_BINARY "' run " + kVectorAdd + " --threads " +
                      std::to_string(threads) + " --target " + GetParam() +
                      " -D BLOCK=256 --grid 4 --check-bounds --arg a=" + std::to_string(a) +
                      "xf32=1 --arg b=1000xf32=2 --arg c=" + std::to_string(c) +
                      "xf32=0 --arg n=1000 --output c=@" + output);
  }
  void SetUp() override {
    ProcessResult probe = run(1000, 1000, "/dev/null");
    if (probe.err.find("needs CPU features this machine lacks") != std::string::npos)
      GTEST_SKIP() << probe.err;
    ASSERT_EQ(probe.exitCode, 0) << "buffers of the right size must pass: " << probe.err;
  }
};

} // namespace

TEST_P(BoundsCheckTest, UndersizedInputIsALoadError) {
  fs::path out = scratchDir("bounds_load") / "c.npy";
  ProcessResult r = run(10, 1000, out.string());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("vector_add.bir:18:8: error: out-of-bounds load in kernel @vector_add, "
                       "program (0, 0, 0): element 10 of %a, whose buffer has 10 elements"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out)) << "a failed run must write no output";

  // On several threads whichever program fails first reports: its offset
  // must be that program's first bad element.
  ProcessResult parallel = run(10, 1000, out.string(), 4);
  EXPECT_EQ(parallel.exitCode, 1);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(parallel.err, m,
                                std::regex(R"(program \((\d), 0, 0\): element (\d+) of %a)")))
      << parallel.err;
  int program = std::stoi(m[1]), element = std::stoi(m[2]);
  EXPECT_EQ(element, program == 0 ? 10 : 256 * program) << parallel.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_P(BoundsCheckTest, UndersizedOutputIsAStoreError) {
  fs::path out = scratchDir("bounds_store") / "c.npy";
  ProcessResult r = run(1000, 999, out.string());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("vector_add.bir:23:3: error: out-of-bounds store in kernel @vector_add, "
                       "program (3, 0, 0): element 999 of %c, whose buffer has 999 elements"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(EveryX86Target, BoundsCheckTest,
                         testing::Values("host", "x86-64-v3", "x86-64-v4", "sapphirerapids"),
                         [](const auto &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (c == '-')
                               c = '_';
                           return name;
                         });

// Gathers and a scalar store, through a pointer derived from a select of two
// arguments (its origin is then "any argument").
TEST(BoundsCheck, GathersAndScalarStoresAreChecked) {
  fs::path dir = scratchDir("bounds_gather");
  std::string source = (dir / "k.bir").string();
  std::ofstream(source) << R"(kernel @k(%x: ptr<f32>, %out: ptr<f32>, %s: i32) {
  %r = arange 0, 16
  %o = mul %r, %s
  %p = addptr %x, %o
  %v = load %p
  %t = reduce_sum %v, axis=0
  store %out, %t
}
)";
  std::string run = "BLOCKC_CACHE_DIR=off '" BLOCKC_BINARY "' run " + source +
                    " --grid 1 --check-bounds --arg x=40xf32=1 --arg out=1xf32=0 --arg s=";
  EXPECT_EQ(runCommand(run + "2").exitCode, 0);
  ProcessResult r = runCommand(run + "3");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("k.bir:5:8: error: out-of-bounds load in kernel @k, program (0, 0, 0): "
                       "element 42 of %x, whose buffer has 40 elements"),
            std::string::npos)
      << r.err;
}

// Buffers swapped between trips (ping-pong): %src is %a, then %b. Neither is
// out of bounds, so checking %src against %a alone would be a false error.
// Then a pointer bitcast to i32 that walks past %a is still %a's.
TEST(BoundsCheck, SwappedLoopPointersAndBitcastsKeepTheirBuffers) {
  fs::path dir = scratchDir("bounds_loops");
  std::string source = (dir / "k.bir").string();
  std::ofstream(source) << R"(kernel @k(%a: ptr<f32>, %b: ptr<f32>, %n: i32, %trips: i32) {
  %zero = const 0 : i32
  %one = const 1 : i32
  %r = arange 0, 16
  %src0 = splat %a to [16]
  %dst0 = splat %b to [16]
  %s, %d = for %i = %zero to %trips step %one iter(%src = %src0, %dst = %dst0) {
    %p = addptr %src, %r
    %x = load %p
    %q = addptr %dst, %r
    store %q, %x
    yield %dst, %src
  }
  %w = bitcast %a to ptr<i32>
  %wp = addptr %w, %n
  %v = load %wp
  store %wp, %v
}
)";
  std::string run = "BLOCKC_CACHE_DIR=off '" BLOCKC_BINARY "' run " + source +
                    " --grid 1 --check-bounds --arg a=16xf32=1 --arg b=16xf32=2 --arg trips=3 " +
                    "--arg n=";
  ProcessResult ok = runCommand(run + "15");
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  ProcessResult past = runCommand(run + "16");
  EXPECT_EQ(past.exitCode, 1);
  EXPECT_NE(past.err.find("k.bir:16:8: error: out-of-bounds load in kernel @k, program (0, 0, 0): "
                          "element 16 of %a, whose buffer has 16 elements"),
            std::string::npos)
      << past.err;
}

// A launch wrapper from --emit=header passes no extents: refuse the pair.
TEST(BoundsCheck, HeaderOfABoundsCheckedKernelIsRefused) {
  ProcessResult r =
      runBlockc("compile " + kVectorAdd + " --check-bounds --emit=header -o /dev/null");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--emit=header cannot describe a --check-bounds kernel"), std::string::npos)
      << r.err;
}

// `assert`: with --check-bounds a false lane stops the launch with the op's
// place; without it the op is not checked (as Triton checks device
// assertions only under TRITON_DEBUG).
TEST(AssertCheck, FalseLaneStopsTheLaunchUnderCheckBounds) {
  fs::path dir = scratchDir("assert_check");
  fs::path kernel = dir / "assert.bir";
  {
    std::ofstream out(kernel);
    out << "kernel @positive(%x: ptr<i32>, %n: i32) {\n"
           "  %r = arange 0, 64\n"
           "  %m = cmp lt %r, %n\n"
           "  %p = addptr %x, %r\n"
           "  %v = load %p, mask=%m\n"
           "  %zero = const 0 : i32\n"
           "  %ok = cmp ge %v, %zero\n"
           "  assert %ok\n"
           "}\n";
  }
  auto run = [&](const std::string &values, bool check) {
    return runCommand("BLOCKC_CACHE_DIR=off '" BLOCKC_BINARY "' run " + kernel.string() +
                      " --grid 1 --arg x=64xi32=" + values + " --arg n=64" +
                      (check ? " --check-bounds" : ""));
  };
  ProcessResult ok = run("3", true);
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  ProcessResult bad = run("-3", true);
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("assert.bir:8:3: error: assertion failed in kernel @positive, program "
                         "(0, 0, 0)"),
            std::string::npos)
      << bad.err;
  ProcessResult unchecked = run("-3", false);
  EXPECT_EQ(unchecked.exitCode, 0) << unchecked.err;
}
