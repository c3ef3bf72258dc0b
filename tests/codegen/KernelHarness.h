//===- KernelHarness.h - Compile .bir text and launch it in tests -*- C++ -*-===//
//
// The codegen tests compile Block IR with compileOrFail and run it with
// launch(kernel, grid, {arguments}). Where the kernels run is chosen by the
// environment, so that the same tests, with the same references, check the
// code generated for other ISAs:
//
//   BLOCKC_TEST_TARGET        the target the kernels are compiled for (a name
//                             from `blockc targets`); default `host`.
//   BLOCKC_TEST_RUNNER        empty (the default): kernels are JIT-compiled
//                             and launched in this process, which needs a
//                             target this machine runs. Otherwise the shell
//                             command that starts the runner
//                             (tests/cross/Runner.cpp, built for the target's
//                             architecture), e.g. `qemu-riscv64 -cpu
//                             rv64,v=true,vlen=256 -L /usr/riscv64-linux-gnu
//                             -E LD_LIBRARY_PATH=SLEEF_DIR blockc-runner-riscv64`:
//                             each module is compiled to a shared library and
//                             each launch is sent to the runner, buffers by
//                             value, each placed between PROT_NONE pages.
//   BLOCKC_TEST_LIBRARY_PATH  folders (`:`-separated) where a remote
//                             compile's link finds the target's libsleef.so.
//   BLOCKC_TEST_VECTOR_BITS   when set, the vector register width the runner
//                             must report (QEMU's vlen / sve option took).
//   BLOCKC_TEST_LAUNCH_TIMEOUT seconds one remote launch may take (default
//                             120); after that the runner is killed.
//
// A runner that dies (a kernel faulted) fails the launch's test with the
// signal, the kernel and the faulting address relative to its buffers, and
// is restarted for the next launch.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/jit/Jit.h"
#include "blockc/runtime.h"

#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace blockc::test {

class Buffer; // Reference.h
class TestModule;

/// A compiled kernel as the tests see it, wherever it runs.
struct TestKernel {
  std::string name;
  /// The kernel's parameters in order, as its Block IR declares them.
  std::vector<Param> params;
  const TestModule *module = nullptr;
};

/// The kernels of one compiled source; they can be launched while it lives.
class TestModule {
public:
  virtual ~TestModule() = default;
  const std::vector<TestKernel> &kernels() const { return kernels_; }

protected:
  std::vector<TestKernel> kernels_;
};

/// One argument of a launch: a buffer, whose bytes the kernel reads and
/// writes (in process: in place; remotely: shipped there and back), or a
/// scalar by value.
class Arg {
public:
  enum class Kind { Buffer, Scalar };

  /// The whole vector is the buffer.
  template <typename T,
            std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Arg(std::vector<T> &v) // NOLINT(google-explicit-constructor): built implicitly in launch lists
      : kind_(Kind::Buffer), data_(v.data()), bytes_(v.size() * sizeof(T)),
        elementBytes_(sizeof(T)) {}
  /// The buffer's `size()` elements (not its guard elements). Reference.h.
  Arg(Buffer &b); // NOLINT(google-explicit-constructor)
  /// A scalar of sizeof(T) bytes.
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Arg(T v) // NOLINT(google-explicit-constructor)
      : kind_(Kind::Scalar), bytes_(sizeof(T)), elementBytes_(sizeof(T)) {
    static_assert(sizeof(T) <= sizeof(scalar_), "kernel scalars are at most 8 bytes");
    std::memcpy(&scalar_, &v, sizeof v);
  }
  /// A scalar given as the low `bytes` bytes of `bits`.
  static Arg scalarBits(uint64_t bits, size_t bytes) {
    Arg a(bits);
    a.bytes_ = a.elementBytes_ = bytes;
    return a;
  }

  Kind kind() const { return kind_; }
  /// The buffer's first byte; for a scalar, its value's.
  void *data() const { return kind_ == Kind::Buffer ? data_ : const_cast<uint64_t *>(&scalar_); }
  size_t bytes() const { return bytes_; }
  size_t elementBytes() const { return elementBytes_; }

private:
  Kind kind_;
  void *data_ = nullptr;
  uint64_t scalar_ = 0;
  size_t bytes_ = 0, elementBytes_ = 0;
};

/// A launch that could not run or did not finish: the test stops there.
struct LaunchFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Compiles `source` for the test target (BLOCKC_TEST_TARGET) and backend
/// (in process, or a runner); fails the test with the diagnostic and returns
/// null when it does not compile. `options.target` is ignored;
/// `options.features` are added to the test target's.
std::unique_ptr<TestModule> compileWithOptionsOrFail(const std::string &source,
                                                     CompileOptions options);

inline std::unique_ptr<TestModule> compileOrFail(const std::string &source,
                                                 const ConstexprBindings &defines = {}) {
  CompileOptions options;
  options.defines = defines;
  return compileWithOptionsOrFail(source, options);
}

/// JIT-compiles `source` for `target` in this process whatever the test
/// backend: for tests that call the kernel's function themselves (in a forked
/// child, with their own guard pages), which only the host can do.
std::unique_ptr<JitModule> compileInProcessOrFail(const std::string &source,
                                                  const ConstexprBindings &defines = {},
                                                  const std::string &target = "host");

/// Launches `kernel` over `grid` with `args`, one per parameter: a buffer for
/// each pointer parameter (elements of the pointee's size), a scalar of the
/// parameter's size for each scalar. A mismatch, a launch error or a fault
/// throws LaunchFailure, which fails the test with what happened.
void launch(const TestKernel &kernel, blockc_grid grid, const std::vector<Arg> &args);

/// Why the test target cannot compute dots with strategy `name` (its cascade
/// lacks it: the target, or the CPU behind `host`, has no such unit), or
/// nullopt; `generic` is always there. `extraFeatures` are added to the test
/// target's, as a test's compile options may add them.
std::optional<std::string> missingDotStrategy(const std::string &name,
                                              const std::string &extraFeatures = "");

/// The dot strategies of `all` that some target of the test target's
/// architecture has ("generic" always): what can run here, in process or
/// under QEMU. A strategy of another ISA is not a test of this run, skipped
/// or otherwise; the qemu.* runs register it. Those the CPU behind the test
/// target lacks stay, and skip naming the unit.
std::vector<const char *> dotStrategiesOfTestArchitecture(const std::vector<const char *> &all);

/// Whether kernels run in this process (BLOCKC_TEST_RUNNER is empty).
bool launchesInProcess();

} // namespace blockc::test
