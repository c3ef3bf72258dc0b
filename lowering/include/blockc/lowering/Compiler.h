//===- Compiler.h - Block IR source to machine code -------------*- C++ -*-===//
//
// The compiler's one entry point for tools: parse, verify, run the Block IR
// passes, generate LLVM IR for a Target, optimize, and emit.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/Parser.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace blockc {

struct CompileOptions {
  /// A name from `blockc targets` (`host`, `x86-64-v4`, `riscv64-rvv`, ...).
  std::string target = "host";
  ConstexprBindings defines;
  /// Lets math ops use SLEEF's faster 3.5-ULP variants.
  bool fastMath = false;
  /// Pass names after which the Block IR is printed to stderr (or `all`).
  std::vector<std::string> printAfter;
  /// When set, every stage (.bir per pass, LLVM IR before and after
  /// optimization, assembly) is written here.
  std::string dumpDir;
};

enum class EmitKind { LLVMIR, Assembly, Object, SharedLibrary, Header };

/// The result of lowering one source: an optimized LLVM module for the target.
struct LoweredModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
  /// The verified, specialized Block IR the module was generated from.
  std::unique_ptr<Module> blockIR;
  ~LoweredModule();
  LoweredModule();
  LoweredModule(LoweredModule &&);
};

/// Parses, verifies and lowers `source`. On failure returns null with the
/// first error in `diags` (source errors carry locations; target and LLVM
/// errors do not).
std::unique_ptr<LoweredModule> lowerSource(const SourceFile &source, const CompileOptions &options,
                                           DiagnosticEngine &diags);

/// Lowers and writes `kind` to `outputPath`.
bool compileToFile(const SourceFile &source, const CompileOptions &options, EmitKind kind,
                   const std::string &outputPath, DiagnosticEngine &diags);

} // namespace blockc
