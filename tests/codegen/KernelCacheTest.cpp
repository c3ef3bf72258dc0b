//===- KernelCacheTest.cpp - Cache keys name the compiler, not the process ===//
//
// The key once hashed /proc/self/exe: the application embedding blockc, so
// that two programs built from one blockc never shared entries, and an
// application relinked with a new blockc but unchanged in size and time stamp
// could load old code. It now hashes blockc's own build id.
//
//===----------------------------------------------------------------------===//
#include "Scratch.h"
#include "blockc/jit/Jit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <vector>

using namespace blockc;
namespace fs = std::filesystem;

TEST(KernelCache, EntriesAreSharedBetweenExecutablesOfOneCompiler) {
  fs::path cache = blockc::test::scratchDir("cache");
  std::ifstream in(BLOCKC_EXAMPLES_DIR "/vector_add.bir");
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file{"vector_add.bir", text.str()};
  CompileOptions options;
  options.defines = {{"BLOCK", "256"}};
  setenv("BLOCKC_CACHE_DIR", cache.c_str(), 1);
  DiagnosticEngine diags;
  ASSERT_TRUE(JitModule::compile(file, options, diags));
  setenv("BLOCKC_CACHE_DIR", "off", 1);
  ASSERT_EQ(std::distance(fs::directory_iterator(cache), fs::directory_iterator()), 1);
  auto stamp = fs::last_write_time(*fs::directory_iterator(cache));

  // The blockc driver, another executable, finds the same entry.
  std::string run = "BLOCKC_CACHE_DIR='" + cache.string() +
                    "' '" BLOCKC_BINARY "' run " BLOCKC_EXAMPLES_DIR
                    "/vector_add.bir -D BLOCK=256 --grid 4 "
                    "--arg a=1000xf32=1 --arg b=1000xf32=2 --arg c=1000xf32=0 --arg n=1000";
  int status = std::system(run.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(std::distance(fs::directory_iterator(cache), fs::directory_iterator()), 1)
      << "the driver compiled again instead of hitting the test's entry";
  EXPECT_EQ(fs::last_write_time(*fs::directory_iterator(cache)), stamp);
}

TEST(KernelCache, BuildIdNamesThisCompilerAndLLVM) {
  std::string id = compilerBuildId();
  EXPECT_EQ(id.rfind("blockc-", 0), 0u) << id;
  EXPECT_NE(id.find(" LLVM-22."), std::string::npos) << id;
}

// Threads of one process compiling the same kernel into one cache folder:
// each writes its entry under a temporary name and renames it, and each gets
// a working kernel. ThreadSanitizer runs this in scripts/test.
TEST(KernelCache, ThreadsCompilingOneKernelShareTheCache) {
  fs::path cache = blockc::test::scratchDir("cache");
  SourceFile file{"double.bir", R"(kernel @k(%p: ptr<f32>) {
  %r = arange 0, 64
  %q = addptr %p, %r
  %x = load %q
  %y = add %x, %x
  store %q, %y
}
)"};
  setenv("BLOCKC_CACHE_DIR", cache.c_str(), 1);
  constexpr int kThreads = 4;
  std::vector<std::string> problems(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      CompileOptions options;
      DiagnosticEngine diags;
      std::unique_ptr<JitModule> module = JitModule::compile(file, options, diags);
      if (!module) {
        problems[t] = formatDiagnostic(diags.diagnostic(), &file);
        return;
      }
      std::vector<float> data(64, float(t));
      float *p = data.data();
      void *args[] = {&p};
      blockc_launch_options launch;
      blockc_launch_options_init(&launch);
      if (blockc_launch(module->kernels()[0].fn, args, {1, 1, 1}, &launch) != 0)
        problems[t] = blockc_last_error();
      else if (data[63] != 2.f * float(t))
        problems[t] = "wrong result " + std::to_string(data[63]);
    });
  for (std::thread &t : threads)
    t.join();
  setenv("BLOCKC_CACHE_DIR", "off", 1);
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(problems[t], "") << "thread " << t;
  EXPECT_EQ(std::distance(fs::directory_iterator(cache), fs::directory_iterator()), 1)
      << "one entry, no temporary left behind";
}
