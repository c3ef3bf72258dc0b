//===- CompileRunTest.cpp - blockc compile and run as processes -----------===//
//
// The AOT path end to end: an object and a header from `blockc compile`, a C
// program built against them and libblockc_runtime, its output checked; a
// shared library loaded with dlopen; `blockc run` with .npy output; and the
// JIT's disk cache across processes.
//
//===----------------------------------------------------------------------===//
#include "CProgram.h"
#include "Scratch.h"

#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>

namespace {

namespace fs = std::filesystem;
using blockc::test::programBuildCommand;
using blockc::test::scratchDir;

int shell(const std::string &cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::string blockcBinary() {
  return std::string("'") + BLOCKC_BINARY + "'";
}

const std::string kVectorAdd = BLOCKC_EXAMPLES_DIR "/vector_add.bir";

} // namespace

TEST(CompileRun, ObjectAndHeaderLinkIntoACProgram) {
  fs::path dir = scratchDir("aot");
  ASSERT_EQ(shell(blockcBinary() + " compile " + kVectorAdd + " -D BLOCK=128 --emit=obj -o " +
                  (dir / "va.o").string()),
            0);
  ASSERT_EQ(shell(blockcBinary() + " compile " + kVectorAdd + " -D BLOCK=128 --emit=header -o " +
                  (dir / "va.h").string()),
            0);
  std::ofstream(dir / "main.c") << R"(#include "va.h"
#include <stdio.h>
int main(void) {
  enum { N = 1000 };
  static float a[N], b[N], c[N];
  for (int i = 0; i < N; ++i) { a[i] = (float)i; b[i] = 0.5f * (float)i; c[i] = -1.0f; }
  blockc_grid grid = {(N + 127) / 128, 1, 1};
  if (vector_add_launch(a, b, c, N, grid, NULL) != 0) { puts(blockc_last_error()); return 2; }
  for (int i = 0; i < N; ++i)
    if (c[i] != a[i] + b[i]) { printf("c[%d] = %g\n", i, c[i]); return 3; }
  puts("ok");
  return 0;
}
)";
  std::string build = programBuildCommand(BLOCKC_C_COMPILER, dir, dir / "main.c", dir / "va.o",
                                          dir / "app", "-std=c11");
  ASSERT_EQ(shell(build), 0) << build;
  EXPECT_EQ(shell((dir / "app").string() + " > " + (dir / "out.txt").string()), 0);
}

// Block IR names that are not C names, or C names the header already uses:
// the header must compile as C and as C++, and its launch functions reach
// the right kernels through the object's own symbols.
TEST(CompileRun, HeaderOfHostileNamesCompilesAsCAndCxx) {
  fs::path dir = scratchDir("hostile_header");
  std::ofstream(dir / "k.bir") << R"(
kernel @vec.add(%grid: ptr<f32>, %args: ptr<f32>, %options: i32, %info: i32, %int: i32,
                %0: i32, %a.b: i32, %a_b: i32, %INT32_MAX: i32, %blockc_grid_: i32) {
  %pid = program_id 0
  %offs = arange 0, 4
  %p = addptr %args, %offs
  %x = load %p
  %q = addptr %grid, %offs
  store %q, %x
  return
}
kernel @0k(%vec_add: ptr<f32>) {
  return
}
kernel @int(%bool: ptr<f32>, %int_: i32, %true: i32) {
  return
}
)";
  for (const char *emit : {"obj", "header"})
    ASSERT_EQ(shell(blockcBinary() + " compile " + (dir / "k.bir").string() + " --emit=" + emit +
                    " -o " + (dir / (std::string("k.") + (emit[0] == 'o' ? "o" : "h"))).string()),
              0)
        << emit;
  std::string program = R"(#include "k.h"
#include <stdio.h>
int main(void) {
  float out[4] = {0, 0, 0, 0}, in[4] = {1, 2, 3, 4};
  blockc_grid grid = {1, 1, 1};
  if (vec_add_launch(out, in, 0, 0, 0, 0, 0, 0, 0, 0, grid, NULL) != 0) return 2;
  if (n0k_launch(out, grid, NULL) != 0 || int__launch(out, 0, 0, grid, NULL) != 0) return 3;
  for (int i = 0; i < 4; ++i)
    if (out[i] != in[i]) return 4;
  puts("ok");
  return 0;
}
)";
  std::ofstream(dir / "main.c") << program;
  std::ofstream(dir / "main.cpp") << program;
  for (auto [compiler, source] :
       {std::pair{BLOCKC_C_COMPILER, "main.c"}, std::pair{BLOCKC_CXX_COMPILER, "main.cpp"}}) {
    std::string build =
        programBuildCommand(compiler, dir, dir / source, dir / "k.o", dir / "app", "-Wall -Werror");
    ASSERT_EQ(shell(build), 0) << build;
    EXPECT_EQ(shell((dir / "app").string() + " > /dev/null"), 0) << source;
  }
}

TEST(CompileRun, SharedLibraryLoadsAndRuns) {
  fs::path dir = scratchDir("so");
  fs::path so = dir / "va.so";
  ASSERT_EQ(
      shell(blockcBinary() + " compile " + kVectorAdd + " -D BLOCK=64 --emit=so -o " + so.string()),
      0);
  void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  using Kernel = void (*)(void **, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t);
  auto kernel = reinterpret_cast<Kernel>(dlsym(handle, "vector_add"));
  ASSERT_NE(kernel, nullptr);
  std::vector<float> a(100), b(100), c(100, 0.f);
  for (int i = 0; i < 100; ++i)
    a[i] = float(i), b[i] = 1.f;
  float *pa = a.data(), *pb = b.data(), *pc = c.data();
  int32_t n = 100;
  void *args[] = {&pa, &pb, &pc, &n};
  for (int32_t pid = 0; pid < 2; ++pid)
    kernel(args, pid, 0, 0, 2, 1, 1);
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(c[i], a[i] + 1.f) << i;
  dlclose(handle);
}

TEST(CompileRun, RunWritesNpyOutput) {
  fs::path dir = scratchDir("run");
  fs::path out = dir / "c.npy";
  std::string cmd = blockcBinary() + " run " + kVectorAdd +
                    " -D BLOCK=256 --grid 4 --arg a=1000xf32=1.5 --arg b=1000xf32=2 "
                    "--arg c=1000xf32=0 --arg n=1000 --output c=@" +
                    out.string();
  ASSERT_EQ(shell("BLOCKC_CACHE_DIR=off " + cmd), 0) << cmd;
  std::ifstream in(out, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string data = bytes.str();
  ASSERT_GE(data.size(), 4000u);
  ASSERT_EQ(data.compare(0, 6, "\x93NUMPY"), 0);
  const char *payload = data.data() + data.size() - 4000;
  for (int i = 0; i < 1000; ++i) {
    float v;
    std::memcpy(&v, payload + 4 * i, 4);
    ASSERT_EQ(v, 3.5f) << i;
  }
}

TEST(CompileRun, DiskCacheIsReusedAcrossProcesses) {
  fs::path cache = scratchDir("cache");
  std::string cmd = "BLOCKC_CACHE_DIR=" + cache.string() + " " + blockcBinary() + " run " +
                    kVectorAdd +
                    " -D BLOCK=512 --grid 2 --arg a=1024xf32=random --arg b=1024xf32=random "
                    "--arg c=1024xf32=0 --arg n=1024";
  ASSERT_EQ(shell(cmd), 0);
  std::vector<fs::path> entries;
  for (const auto &e : fs::directory_iterator(cache))
    entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u) << "one object per compile, no temporary left behind";
  EXPECT_EQ(entries[0].extension(), ".o");
  auto stamp = fs::last_write_time(entries[0]);
  // Four processes at once: every one must succeed, reading or writing.
  ASSERT_EQ(shell("(" + cmd + ") & (" + cmd + ") & (" + cmd + ") & (" + cmd + ") & wait"), 0);
  ASSERT_EQ(shell(cmd), 0);
  EXPECT_EQ(fs::last_write_time(entries[0]), stamp) << "a hit must not recompile";
  // Another constexpr value is another kernel.
  ASSERT_EQ(shell("BLOCKC_CACHE_DIR=" + cache.string() + " " + blockcBinary() + " run " +
                  kVectorAdd +
                  " -D BLOCK=256 --grid 4 --arg a=1024xf32=1 --arg b=1024xf32=1 "
                  "--arg c=1024xf32=0 --arg n=1024"),
            0);
  EXPECT_EQ(std::distance(fs::directory_iterator(cache), fs::directory_iterator()), 2);
}

TEST(CompileRun, BadTargetAndEmitAreClearErrors) {
  fs::path dir = scratchDir("bad");
  std::string err = (dir / "err.txt").string();
  EXPECT_EQ(
      shell(blockcBinary() + " compile " + kVectorAdd + " --target pentium -o /dev/null 2>" + err),
      1);
  std::ifstream in(err);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("error: unknown target 'pentium'; known targets: x86-64-v3", 0), 0u) << line;
  EXPECT_EQ(shell(blockcBinary() + " compile " + kVectorAdd + " --emit=exe 2>/dev/null"), 1);
  EXPECT_EQ(shell(blockcBinary() + " compile " + kVectorAdd + " --print-after=Nope 2>/dev/null"),
            1);
}
