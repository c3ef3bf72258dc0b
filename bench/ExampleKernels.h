//===- ExampleKernels.h - examples/*.bir compiled in process for benches -*- C++ -*-===//
#pragma once

#include "blockc/jit/Jit.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace blockc::bench {

/// The first kernel of examples/EXAMPLE.bir, JIT-compiled for the host with
/// `defines` bound; exits with the diagnostic if it does not compile. The
/// kernel lives until the process ends. Needs BLOCKC_EXAMPLES_DIR.
inline std::string exampleSource(const std::string &example) {
  std::ifstream in(std::string(BLOCKC_EXAMPLES_DIR) + "/" + example + ".bir");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The first kernel of `source` (named `name` in diagnostics), JIT-compiled
/// for the host with `defines` bound; exits with the diagnostic if it does
/// not compile. The kernel lives until the process ends.
inline const JitKernel &compiledKernel(const std::string &name, const std::string &source,
                                       const ConstexprBindings &defines,
                                       CompileOptions options = CompileOptions()) {
  static std::vector<std::unique_ptr<JitModule>> modules;
  SourceFile file{name, source};
  options.defines = defines;
  DiagnosticEngine diags;
  modules.push_back(JitModule::compile(file, options, diags));
  if (!modules.back()) {
    std::fprintf(stderr, "%s", formatDiagnostic(diags.diagnostic(), &file).c_str());
    std::exit(1);
  }
  return modules.back()->kernels()[0];
}

inline const JitKernel &exampleKernel(const std::string &example, const ConstexprBindings &defines,
                                      CompileOptions options = CompileOptions()) {
  return compiledKernel(example + ".bir", exampleSource(example), defines, std::move(options));
}

} // namespace blockc::bench
