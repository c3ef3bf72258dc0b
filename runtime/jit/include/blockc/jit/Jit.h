//===- Jit.h - Compile Block IR in process and call its kernels -*- C++ -*-===//
//
// Kernels compiled in process with ORC LLJIT, cached on disk (BLOCKC_CACHE_DIR)
// by source, constexprs, target and blockc version. A kernel is the plain
// function the launcher calls (blockc_kernel_fn): run it with
// blockc_launch_kernel and JitKernel::info().
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Builder.h"
#include "blockc/lowering/Compiler.h"
#include "blockc/runtime.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace blockc {

struct JitKernel {
  std::string name;
  /// The kernel's parameters in order: scalars and pointers. `args[i]` of a
  /// launch points at a value of `params[i].type` (for pointers: at the pointer).
  std::vector<Param> params;
  blockc_kernel_fn fn = nullptr;
  /// Scratch one program uses, on the stack or in its thread's arena (the
  /// object's blockc_scratch_bytes_NAME).
  uint64_t scratchBytes = 0;
  /// BLOCKC_REQUIRES_* bits (the object's blockc_core_requirements_NAME):
  /// units of the core the launcher must run it on.
  uint64_t coreRequirements = 0;
  /// Compiled with CompileOptions::checkBounds: `args` needs the extents and
  /// the report that blockc_bounds_report (blockc/runtime.h) describes.
  bool checksBounds = false;

  /// What blockc_launch_kernel needs; valid while this JitKernel lives.
  blockc_kernel_info info() const {
    blockc_kernel_info info = BLOCKC_KERNEL_INFO(name.c_str(), scratchBytes, coreRequirements);
    return info;
  }
};

class JitModule {
public:
  /// Compiles every kernel of `source` (those CompileOptions::kernels names,
  /// when it names any) for a target this machine can run. On failure returns null with the first
  /// error in `diags`.
  static std::unique_ptr<JitModule> compile(const SourceFile &source, const CompileOptions &options,
                                            DiagnosticEngine &diags);
  ~JitModule();

  /// The kernels' code lives as long as this JitModule: do not call `fn`
  /// after destroying it.
  const std::vector<JitKernel> &kernels() const { return kernels_; }
  /// Null when the module has no kernel of that name.
  const JitKernel *kernel(std::string_view name) const;

private:
  JitModule();
  static std::unique_ptr<JitModule> link(const Module &module, const std::string &object,
                                         const CompileOptions &options, DiagnosticEngine &diags);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<JitKernel> kernels_;
};

/// The folder of the JIT's disk cache as the JIT decides it now:
/// BLOCKC_CACHE_DIR, else $XDG_CACHE_HOME/blockc, else ~/.cache/blockc; empty
/// when BLOCKC_CACHE_DIR=off disables the cache.
std::string kernelCacheDirectory();

} // namespace blockc
