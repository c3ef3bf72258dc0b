//===- Errors.h - The exceptions blockc._core raises ------------*- C++ -*-===//
//
// Every failure reaches Python as an exception, never as an abort: a compile
// as CompileError (the diagnostic that `blockc` would print, and its location
// as attributes, so that the Python frontend can point at the user's line),
// a launch as LaunchError (the launcher's blockc_last_error() text, or what
// was wrong with an argument).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"

#include <pybind11/pybind11.h>
#include <string>

namespace blockc::python {

/// Adds CompileError and LaunchError to `module`.
void registerExceptions(pybind11::module_ &module);

/// Raises CompileError with `diagnostic` rendered against `file` as str(e),
/// and its `message`, `line` and `column` (0 without a location) as attributes.
[[noreturn]] void throwCompileError(const Diagnostic &diagnostic, const SourceFile &file);

[[noreturn]] void throwLaunchError(const std::string &message);

} // namespace blockc::python
