#include "Scratch.h"

#include <cctype>
#include <cstdio>
#include <gtest/gtest.h>
#include <mutex>
#include <unistd.h>

namespace blockc::test {
namespace {

namespace fs = std::filesystem;

/// The running test's folder, made on first use and removed by the test's end
/// event. A listener rather than an object on the test's stack, so that a
/// path outlives the expression that asked for it and every way out of a
/// test (a failed ASSERT returns early) cleans up alike.
class ScratchFolders : public ::testing::EmptyTestEventListener {
public:
  static ScratchFolders &get() {
    // gtest owns its listeners and deletes them when it is done.
    static ScratchFolders *folders = [] {
      auto *listener = new ScratchFolders;
      ::testing::UnitTest::GetInstance()->listeners().Append(listener);
      return listener;
    }();
    return *folders;
  }

  fs::path folderOfRunningTest() {
    std::lock_guard<std::mutex> lock(mutex_);
    const ::testing::TestInfo *test = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!test) {
      ADD_FAILURE() << "a scratch path was asked for outside a test";
      return fs::path(::testing::TempDir()) / ("blockc-" + std::to_string(getpid()));
    }
    if (test != test_) {
      test_ = test;
      folder_ = fs::path(::testing::TempDir()) /
                ("blockc-" + fileNameOf(std::string(test->test_suite_name()) + "." + test->name()) +
                 "-" + std::to_string(getpid()));
      // A folder of this name from an earlier run of the same process id.
      fs::remove_all(folder_);
      fs::create_directories(folder_);
    }
    return folder_;
  }

  void OnTestEnd(const ::testing::TestInfo &test) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (&test != test_)
      return;
    test_ = nullptr;
    if (test.result()->Failed()) {
      std::fprintf(stderr, "%s.%s failed; its files are kept in %s\n", test.test_suite_name(),
                   test.name(), folder_.c_str());
      return;
    }
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }

private:
  /// Parameterised tests' names hold '/'.
  static std::string fileNameOf(std::string name) {
    for (char &c : name)
      if (!isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
        c = '_';
    return name;
  }

  std::mutex mutex_;
  const ::testing::TestInfo *test_ = nullptr;
  fs::path folder_;
};

} // namespace

fs::path scratchDir(const std::string &name) {
  fs::path dir = ScratchFolders::get().folderOfRunningTest() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path scratchPath(const std::string &name) {
  return ScratchFolders::get().folderOfRunningTest() / name;
}

} // namespace blockc::test
