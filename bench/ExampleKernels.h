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
inline const JitKernel &exampleKernel(const std::string &example,
                                      const ConstexprBindings &defines) {
  static std::vector<std::unique_ptr<JitModule>> modules;
  std::ifstream in(std::string(BLOCKC_EXAMPLES_DIR) + "/" + example + ".bir");
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file{example + ".bir", text.str()};
  CompileOptions options;
  options.defines = defines;
  DiagnosticEngine diags;
  modules.push_back(JitModule::compile(file, options, diags));
  if (!modules.back()) {
    std::fprintf(stderr, "%s", formatDiagnostic(diags.diagnostic(), &file).c_str());
    std::exit(1);
  }
  return modules.back()->kernels()[0];
}

} // namespace blockc::bench
