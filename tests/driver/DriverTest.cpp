//===- DriverTest.cpp - blockc as a process -------------------------------===//
//
// Runs the real binary and checks exit codes and output. Every file in
// tests/invalid/ starts with `// expect: LINE:COL: error: MESSAGE`, the exact
// first line `blockc check` must print after the file name, with exit code 1.
//
//===----------------------------------------------------------------------===//
#include "RunProcess.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>

namespace {

using Result = blockc::test::ProcessResult;
using blockc::test::runBlockc;
using blockc::test::slurp;

std::vector<std::filesystem::path> birFiles(const char *dir) {
  std::vector<std::filesystem::path> files;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".bir")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace

TEST(Driver, ChecksEveryExample) {
  for (const auto &path : birFiles(BLOCKC_EXAMPLES_DIR)) {
    Result r = runBlockc("check '" + path.string() + "'");
    EXPECT_EQ(r.exitCode, 0) << path << "\n" << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(Driver, PrintIsAFixedPointThroughStdin) {
  for (const auto &path : birFiles(BLOCKC_EXAMPLES_DIR)) {
    Result first = runBlockc("print '" + path.string() + "'");
    ASSERT_EQ(first.exitCode, 0) << first.err;
    std::string printed = blockc::test::scratchPath("printed.bir").string();
    std::ofstream(printed) << first.out;
    Result second = runBlockc("print -", printed);
    ASSERT_EQ(second.exitCode, 0) << second.err;
    EXPECT_EQ(second.out, first.out) << path;
  }
}

TEST(Driver, PrintBindsConstexprs) {
  Result r = runBlockc("print -D BLOCK=128 '" BLOCKC_EXAMPLES_DIR "/vector_add.bir'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("constexpr BLOCK: i32 = 128"), std::string::npos);
  EXPECT_NE(r.out.find("i32[128]"), std::string::npos);
}

TEST(Driver, InvalidFilesGiveExactDiagnostics) {
  auto files = birFiles(BLOCKC_INVALID_DIR);
  ASSERT_GE(files.size(), 25u);
  for (const auto &path : files) {
    std::string text = slurp(path.string());
    const std::string marker = "// expect: ";
    ASSERT_EQ(text.rfind(marker, 0), 0u) << path << " lacks its '// expect:' line";
    std::string expected = text.substr(marker.size(), text.find('\n') - marker.size());
    Result r = runBlockc("check '" + path.string() + "'");
    EXPECT_EQ(r.exitCode, 1) << path;
    std::string firstLine = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(firstLine, path.string() + ":" + expected) << path;
    // The caret line follows the quoted source line.
    EXPECT_NE(r.err.find("^\n"), std::string::npos) << path << "\n" << r.err;
  }
}

TEST(Driver, UsageErrorsExitOne) {
  EXPECT_EQ(runBlockc("").exitCode, 1);
  Result unknown = runBlockc("frobnicate");
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_EQ(unknown.err, "blockc: unknown command 'frobnicate'; run 'blockc --help'\n");
  Result missing = runBlockc("check /nonexistent/x.bir");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_EQ(missing.err,
            "blockc check: cannot open '/nonexistent/x.bir': No such file or directory\n");
  Result badFlag = runBlockc("print --frob x.bir");
  EXPECT_EQ(badFlag.exitCode, 1);
  EXPECT_EQ(badFlag.err, "blockc print: unknown option '--frob'; see 'blockc print --help'\n");
  Result badDefine = runBlockc("check -D BLOCK '" BLOCKC_EXAMPLES_DIR "/vector_add.bir'");
  EXPECT_EQ(badDefine.exitCode, 1);
  EXPECT_EQ(badDefine.err, "blockc check: -D BLOCK: expected NAME=VALUE\n");
}

TEST(Driver, HelpAndVersion) {
  for (const char *cmd : {"--help", "check --help", "print --help"}) {
    Result r = runBlockc(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd;
    EXPECT_NE(r.out.find("usage: blockc"), std::string::npos) << cmd;
  }
  Result v = runBlockc("--version");
  EXPECT_EQ(v.exitCode, 0);
  EXPECT_EQ(v.out.rfind("blockc ", 0), 0u);
}
