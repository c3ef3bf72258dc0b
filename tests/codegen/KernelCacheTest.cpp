//===- KernelCacheTest.cpp - Cache keys name the compiler, not the process ===//
//
// The key once hashed /proc/self/exe: the application embedding blockc, so
// that two programs built from one blockc never shared entries, and an
// application relinked with a new blockc but unchanged in size and time stamp
// could load old code. It now hashes blockc's own build id.
//
//===----------------------------------------------------------------------===//
#include "blockc/jit/Jit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>

using namespace blockc;
namespace fs = std::filesystem;

TEST(KernelCache, EntriesAreSharedBetweenExecutablesOfOneCompiler) {
  fs::path cache =
      fs::path(testing::TempDir()) / ("blockc_shared_cache" + std::to_string(getpid()));
  fs::remove_all(cache);
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
