//===- IsaLowerings.h - Every ISA this blockc was built with ----*- C++ -*-===//
#pragma once

namespace blockc {

/// Registers the IsaLowering of every architecture blockc targets with
/// lowering's registry. Every program that compiles kernels (the driver, the
/// JIT, the Python module, tests, benchmarks) calls it before compiling;
/// calling it again does nothing.
void registerIsaLowerings();

} // namespace blockc
