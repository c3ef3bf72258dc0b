//===- RemoteBackend.h - Launches through a runner process ------*- C++ -*-===//
//
// Private to the codegen tests' harness. The remote backend (RemoteBackend.cpp)
// compiles each module to a shared library and sends every launch, buffers by
// value, to a runner process (tests/cross/Runner.cpp, usually under QEMU);
// KernelHarness.cpp picks it when BLOCKC_TEST_RUNNER is set.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "KernelHarness.h"

#include <memory>
#include <string>
#include <vector>

namespace blockc::test {

// --- The remote backend, for KernelHarness.cpp --------------------------------

/// BLOCKC_TEST_RUNNER: the shell command that starts the runner, or "".
std::string runnerCommand();

/// Compiles `source` for `options.target` to a library the runner loads; fails
/// the test with what the compiler said and returns null when it does not
/// compile.
std::unique_ptr<TestModule> compileRemote(const std::string &source, CompileOptions options);

/// Launches `kernel` through the runner if compileRemote made its module;
/// returns false, launching nothing, otherwise. `args` fit its parameters.
bool launchRemote(const TestKernel &kernel, blockc_grid grid, const std::vector<Arg> &args);

// --- From KernelHarness.cpp, for the remote backend ---------------------------

/// The environment variable `name`, or `fallback` where it is unset or empty.
std::string envOr(const char *name, const std::string &fallback);

/// "kernel @NAME over grid {X, Y, Z} with (ARGUMENTS)", for failure messages.
std::string describeLaunch(const TestKernel &kernel, blockc_grid grid,
                           const std::vector<Arg> &args);

} // namespace blockc::test
