//===- Parser.h - The .bir text format to Block IR --------------*- C++ -*-===//
//
// Parses a module, binds each constexpr as it reads it (SpecializeConstexprs.h:
// `-D NAME=VALUE` over the defaults in the file), substitutes them into every
// shape and integer field, and verifies the result. The module that comes out
// is fully concrete: every block shape is a number.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/IR.h"
#include "blockc/frontend/SpecializeConstexprs.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace blockc {

/// Returns the verified module, or null with the first error in `diags`.
std::unique_ptr<Module> parseModule(const SourceFile &file, const ConstexprBindings &bindings,
                                    DiagnosticEngine &diags);

} // namespace blockc
