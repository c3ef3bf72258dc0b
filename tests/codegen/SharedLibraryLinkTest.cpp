//===- SharedLibraryLinkTest.cpp - --emit=so linking -----------------------===//
//
// Links run inside the compiler's process where blockc has liblld. A damaged
// library on the search path must be an error that names it, and must leave
// the process able to link again: lld ends such a link by exiting, which only
// crash recovery turns back into a return.
//
//===----------------------------------------------------------------------===//
#include "ExampleTesting.h"
#include "blockc/frontend/Diagnostics.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/targets/IsaLowerings.h"

#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <random>

namespace blockc {
namespace {

namespace fs = std::filesystem;

fs::path freshFolder(const std::string &name) {
  fs::path folder =
      fs::temp_directory_path() / ("blockc-link-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

class SharedLibraryLink : public ::testing::Test {
protected:
  void SetUp() override {
    registerIsaLowerings();
    std::string multiarch =
        llvm::Triple(llvm::sys::getProcessTriple()).getArchName().str() + "-linux-gnu";
    hostSleef = "/usr/lib/" + multiarch + "/libsleef.so";
    if (!fs::exists(hostSleef))
      GTEST_SKIP() << "SLEEF is not installed for the host (" << hostSleef << ")";
    // gelu with --sleef-math calls SLEEF's erf, so the link opens libsleef.so.
    options.sleefMath = true;
    std::cout << "linking "
              << (linksSharedLibrariesInProcess() ? "in process (liblld)"
                                                  : "with the ld.lld program")
              << "\n";
  }

  bool link(const fs::path &output, std::string &message) {
    DiagnosticEngine diags;
    bool ok = compileToFile(gelu, options, EmitKind::SharedLibrary, output.string(), diags);
    if (!ok)
      message = formatDiagnostic(diags.diagnostic(), &gelu);
    return ok;
  }

  SourceFile gelu{"gelu.bir", test::example("gelu")};
  CompileOptions options;
  fs::path hostSleef;
};

TEST_F(SharedLibraryLink, DamagedLibraryIsAnErrorAndTheNextLinkWorks) {
  fs::path folder = freshFolder("damaged");
  fs::path output = folder / "gelu.so";
  // Cut inside the section headers: lld reads them past the end of the
  // file, a fatal error in lld.
  uintmax_t size = fs::file_size(hostSleef);
  fs::copy_file(hostSleef, folder / "libsleef.so");
  fs::resize_file(folder / "libsleef.so", std::min<uintmax_t>(size / 3, 20000));
  options.librarySearchPaths = {folder.string()};
  std::string message;
  EXPECT_FALSE(link(output, message));
  EXPECT_NE(message.find("linking " + output.string() + " failed"), std::string::npos) << message;
  EXPECT_NE(message.find((folder / "libsleef.so").string()), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(output)) << "a failed link must write nothing";

  // Garbage that is not ELF at all: a plain error rather than a fatal one.
  std::ofstream(folder / "libsleef.so", std::ios::binary | std::ios::trunc) << "\x7f\x45LF\x02\x01";
  EXPECT_FALSE(link(output, message));
  EXPECT_NE(message.find("libsleef.so"), std::string::npos) << message;

  options.librarySearchPaths.clear();
  ASSERT_TRUE(link(output, message)) << message;
  void *library = dlopen(output.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  EXPECT_NE(dlsym(library, "gelu"), nullptr);
  dlclose(library);
  fs::remove_all(folder);
}

// Damaged copies of the host's SLEEF, cut short or with bytes changed in its
// headers and anywhere: every link succeeds or fails with a message, never
// ends the process, and leaves no output behind when it fails.
TEST_F(SharedLibraryLink, DamagedLibrariesNeverEndTheProcess) {
  fs::path folder = freshFolder("fuzz");
  fs::path output = folder / "gelu.so";
  std::string original;
  {
    std::ifstream in(hostSleef, std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(original.size(), 4096u);
  options.librarySearchPaths = {folder.string()};
  std::mt19937_64 random(20261127);
  int failed = 0;
  for (int attempt = 0; attempt < 24; ++attempt) {
    std::string damaged = original;
    if (attempt % 3 == 0) {
      damaged.resize(64 + random() % (damaged.size() - 64));
    } else {
      size_t span = attempt % 3 == 1 ? 4096 : damaged.size();
      for (int flips = 1 + int(random() % 32); flips > 0; --flips)
        damaged[random() % span] = char(random());
    }
    std::ofstream(folder / "libsleef.so", std::ios::binary | std::ios::trunc) << damaged;
    std::string message;
    if (link(output, message)) {
      EXPECT_TRUE(fs::exists(output)) << "attempt " << attempt;
    } else {
      ++failed;
      EXPECT_NE(message.find("linking " + output.string() + " failed: "), std::string::npos)
          << "attempt " << attempt << ": " << message;
      EXPECT_FALSE(fs::exists(output)) << "attempt " << attempt;
    }
    fs::remove(output);
  }
  // Most damage is found: a check that accepted everything would not be one.
  EXPECT_GE(failed, 8);
  fs::remove_all(folder);
}

TEST_F(SharedLibraryLink, ErrorsShowUnprintableBytesEscaped) {
  fs::path folder = freshFolder("escaped");
  // A linker script (lld reads a text file in place of a library as one)
  // whose bad directive is bytes that are not UTF-8.
  std::ofstream(folder / "libsleef.so", std::ios::binary) << "\xff\xfe\x01 bad";
  options.librarySearchPaths = {folder.string()};
  std::string message;
  EXPECT_FALSE(link(folder / "gelu.so", message));
  EXPECT_NE(message.find("\\xff\\xfe\\x01"), std::string::npos) << message;
  for (char c : message)
    EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << "byte " << int(c) << " in " << message;
  fs::remove_all(folder);
}

} // namespace
} // namespace blockc
