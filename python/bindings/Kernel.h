//===- Kernel.h - A compiled kernel as a Python object ----------*- C++ -*-===//
//
// blockc._core.Kernel: one kernel of a JitModule, launched over a grid with
// Python values for its arguments. The kernel's code lives in its JitModule,
// which every Kernel taken from it keeps alive.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/jit/Jit.h"

#include <cstdint>
#include <memory>
#include <pybind11/pybind11.h>
#include <string>

namespace blockc::python {

class Kernel {
public:
  Kernel(std::shared_ptr<const JitModule> module, const JitKernel &kernel);

  const std::string &name() const { return kernel_->name; }
  /// (name without %, type as Block IR text) per parameter.
  pybind11::list params() const;
  bool checksBounds() const { return kernel_->checksBounds; }
  uint64_t scratchBytes() const { return kernel_->scratchBytes; }
  uint64_t coreRequirements() const { return kernel_->coreRequirements; }
  std::string repr() const;

  /// Runs the kernel over `grid` with `args`; the bounds report as a dict
  /// when a bounds-checked kernel found a bad access, else None. Raises
  /// LaunchError.
  pybind11::object launch(pybind11::handle grid, pybind11::handle args, pybind11::handle extents,
                          int64_t numThreads) const;

private:
  std::shared_ptr<const JitModule> module_;
  const JitKernel *kernel_;
  size_t pointerParams_ = 0;
};

/// Adds the Kernel class to `module`.
void bindKernel(pybind11::module_ &module);

} // namespace blockc::python
