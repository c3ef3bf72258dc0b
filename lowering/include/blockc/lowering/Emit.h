//===- Emit.h - LLVM modules to assembly, objects and headers ---*- C++ -*-===//
#pragma once

#include "blockc/frontend/IR.h"
#include "blockc/targetinfo/Target.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace blockc {

/// Registers LLVM's X86, AArch64 and RISC-V backends once per process.
void initializeLLVMTargets();

/// Creates the LLVM TargetMachine for `target`; null with `error` set when
/// this LLVM lacks the backend.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const Target &target, std::string &error);

/// Runs LLVM's O3 pipeline for the module's target.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine);

/// Machine code for `module`: assembly text or an ELF object.
bool emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine, bool assembly,
                     std::string &out, std::string &error);

/// Fails, naming the symbol, when `object` needs anything but SLEEF, the C
/// library's memory functions, libm, blockc's runtime and `processProvided`
/// (IsaLowering::processProvidedFunctions): a compiler-rt helper (such as
/// __truncsfbf2) is provided neither by the JIT, nor by a `.so`'s link, nor by
/// an AOT user's link with a compiler other than clang.
bool checkRuntimeSymbols(const std::string &object, const Target &target,
                         const std::vector<std::string_view> &processProvided, std::string &error);

/// The libraries a checked object needs at run time.
struct RuntimeLibraries {
  /// The first SLEEF function it calls, or empty when it calls none.
  std::string sleefSymbol;
  bool libm = false;
};
RuntimeLibraries runtimeLibraries(const std::string &object);

/// The C header declaring each kernel and its typed launch function
/// `NAME_launch(args..., blockc_grid grid, const blockc_launch_options *options)`;
/// in CHeader.cpp. It compiles as C and as C++ whatever the kernels and
/// parameters are called: names that are not plain C identifiers are
/// mangled (docs/reference.md, "C header"). Nothing, with a located error in
/// `diags`, when two kernels would get the same C name.
std::optional<std::string> emitHeader(const Module &module, const std::string &guard,
                                      DiagnosticEngine &diags);

} // namespace blockc
