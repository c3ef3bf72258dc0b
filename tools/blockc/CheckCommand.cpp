//===- CheckCommand.cpp - `blockc check` and `blockc print` ---------------===//
#include "Arguments.h"
#include "Commands.h"
#include "blockc/frontend/Printer.h"

#include <iostream>

namespace blockc::driver {

namespace {

const FlagSpec kHelpFlag{"--help", "", "show this help"};
const FlagSpec kDefineFlag{"-D", "NAME=VALUE", "bind a constexpr (repeatable)", true};

/// Parses and verifies the single input of `spec`; prints diagnostics and
/// returns null on error.
std::unique_ptr<Module> loadModule(const CommandSpec &spec, const std::vector<std::string> &argv,
                                   int &exitCode) {
  std::optional<Arguments> args = parseCommandLine(spec, argv, exitCode);
  if (!args)
    return nullptr;
  exitCode = 1;
  std::string error;
  std::optional<ConstexprBindings> defines = args->defines(error);
  if (!defines) {
    std::cerr << "blockc " << spec.name << ": " << error << "\n";
    return nullptr;
  }
  SourceFile file;
  if (!readSource(args->positional()[0], file, error)) {
    std::cerr << "blockc " << spec.name << ": " << error << "\n";
    return nullptr;
  }
  DiagnosticEngine diags;
  std::unique_ptr<Module> module = parseModule(file, *defines, diags);
  if (!module) {
    std::cerr << formatDiagnostic(diags.diagnostic(), &file);
    return nullptr;
  }
  exitCode = 0;
  return module;
}

} // namespace

int runCheck(const std::vector<std::string> &argv) {
  static const CommandSpec spec{
      "check",
      "FILE.bir [-D NAME=VALUE]...",
      "Parse and verify a Block IR file ('-' reads standard input). Prints nothing and exits 0\n"
      "when the file is valid; prints the first error and exits 1 otherwise.",
      {kDefineFlag, kHelpFlag},
      1,
      1};
  int exitCode;
  loadModule(spec, argv, exitCode);
  return exitCode;
}

int runPrint(const std::vector<std::string> &argv) {
  static const CommandSpec spec{
      "print",
      "FILE.bir [-D NAME=VALUE]...",
      "Print a Block IR file in canonical form, constexprs bound and substituted\n"
      "('-' reads standard input). The output parses back to the same module.",
      {kDefineFlag, kHelpFlag},
      1,
      1};
  int exitCode;
  if (std::unique_ptr<Module> module = loadModule(spec, argv, exitCode))
    std::cout << printModule(*module);
  return exitCode;
}

} // namespace blockc::driver
