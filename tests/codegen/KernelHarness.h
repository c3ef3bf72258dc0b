//===- KernelHarness.h - Compile .bir text and launch it in tests -*- C++ -*-===//
#pragma once

#include "blockc/jit/Jit.h"
#include "blockc/runtime.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace blockc::test {

/// JIT-compiles `source` for the host (no disk cache); fails the test with the
/// diagnostic when it does not compile.
inline std::unique_ptr<JitModule> compileOrFail(const std::string &source,
                                                const ConstexprBindings &defines = {},
                                                const std::string &target = "host") {
  setenv("BLOCKC_CACHE_DIR", "off", 1);
  SourceFile file{"test.bir", source};
  CompileOptions options;
  options.target = target;
  options.defines = defines;
  DiagnosticEngine diags;
  std::unique_ptr<JitModule> module = JitModule::compile(file, options, diags);
  EXPECT_TRUE(module) << formatDiagnostic(diags.diagnostic(), &file) << "\n" << source;
  return module;
}

/// Launches `kernel` over `grid` with pointers to each argument.
template <typename... Args> void launch(const JitKernel &kernel, blockc_grid grid, Args... args) {
  void *storage[] = {static_cast<void *>(&args)...};
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  ASSERT_EQ(blockc_launch(kernel.fn, storage, grid, &options), 0) << blockc_last_error();
}

} // namespace blockc::test
