// Run by CheckScratch.cmake, which looks at what the run leaves in TEST_TMPDIR.
#include "Scratch.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using blockc::test::scratchDir;
using blockc::test::scratchPath;

TEST(Scratch, FoldersAreFreshAndPathsShareTheTestsFolder) {
  fs::path out = scratchDir("out");
  std::ofstream(out / "a.txt") << "a";
  EXPECT_TRUE(fs::is_empty(scratchDir("out")));
  std::ofstream(scratchPath("b.txt")) << "b";
  EXPECT_EQ(scratchPath("b.txt").parent_path(), out.parent_path());
  std::ofstream(out / "kept.txt") << "kept";
  if (std::getenv("BLOCKC_SCRATCH_TEST_FAILS"))
    ADD_FAILURE() << "failing, as BLOCKC_SCRATCH_TEST_FAILS asks";
}

// A parameterised test's name holds '/', which a folder's name cannot.
class ScratchNames : public testing::TestWithParam<int> {};

TEST_P(ScratchNames, FolderIsNamedAfterTheTest) {
  std::string folder = scratchPath("x").parent_path().filename().string();
  EXPECT_EQ(folder.rfind("blockc-Sizes_ScratchNames.FolderIsNamedAfterTheTest_0-", 0), 0u)
      << folder;
}

INSTANTIATE_TEST_SUITE_P(Sizes, ScratchNames, testing::Values(1));

} // namespace
