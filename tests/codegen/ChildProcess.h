//===- ChildProcess.h - Run a launch where a fault or hang is a failure -*- C++ -*-===//
//
// A kernel that faults would take the whole test binary down, and one whose loop
// never ends would hang it; run in a forked child, either becomes an ordinary
// test failure. Memory the child writes must be shared with the parent: it comes
// from SharedPages (MAP_SHARED), optionally fenced by PROT_NONE guard pages.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/runtime.h"

#include <csignal>
#include <cstring>
#include <functional>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace blockc::test {

/// Runs `fn` in a child process. Returns "" if it returned 0 within `seconds`,
/// else what happened instead.
inline std::string runInChild(int seconds, const std::function<int()> &fn) {
  pid_t pid = fork();
  if (pid == 0)
    _exit(fn());
  for (int waited = 0; waited < seconds * 100; ++waited) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) != pid) {
      usleep(10000);
      continue;
    }
    if (WIFSIGNALED(status))
      return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
             strsignal(WTERMSIG(status)) + ")";
    if (WEXITSTATUS(status) != 0)
      return "exited with status " + std::to_string(WEXITSTATUS(status));
    return "";
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return "still running after " + std::to_string(seconds) + " s";
}

/// Launches `kernel` over `grid` in a child process (see runInChild). The launch
/// runs on one thread: a forked child should not rely on the parent's OpenMP pool.
inline std::string launchInChild(blockc_kernel_fn kernel, blockc_grid grid, void **args,
                                 int seconds = 20) {
  return runInChild(seconds, [&] {
    blockc_launch_options options;
    blockc_launch_options_init(&options);
    options.num_threads = 1;
    return blockc_launch(kernel, args, grid, &options);
  });
}

/// `bytes` of memory shared with child processes. With guards, a PROT_NONE page
/// sits right before and right after the usable pages, and `at(Align::End)`
/// places data so that its last byte touches the trailing guard.
class SharedPages {
public:
  enum class Align { Start, End };

  explicit SharedPages(size_t bytes, bool guards = true) {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    usable_ = (bytes + page - 1) / page * page;
    if (usable_ == 0)
      usable_ = page;
    total_ = usable_ + (guards ? 2 * page : 0);
    base_ = static_cast<char *>(
        mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    if (guards) {
      mprotect(base_, page, PROT_NONE);
      mprotect(base_ + page + usable_, page, PROT_NONE);
      first_ = base_ + page;
    } else {
      first_ = base_;
    }
  }
  ~SharedPages() { munmap(base_, total_); }
  SharedPages(const SharedPages &) = delete;
  SharedPages &operator=(const SharedPages &) = delete;

  /// Where `bytes` of data begin: right after the leading guard, or so that they
  /// end right before the trailing one.
  template <typename T = void> T *at(Align align, size_t bytes) {
    char *p = align == Align::Start ? first_ : first_ + usable_ - bytes;
    return reinterpret_cast<T *>(p);
  }

private:
  size_t usable_ = 0, total_ = 0;
  char *base_ = nullptr, *first_ = nullptr;
};

} // namespace blockc::test
