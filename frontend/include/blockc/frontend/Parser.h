//===- Parser.h - The .bir text format to Block IR --------------*- C++ -*-===//
//
// Parses a module, binds its constexprs (`-D NAME=VALUE` over the defaults in
// the file), substitutes them into every shape and integer field, and verifies
// the result. The module that comes out is fully concrete: every block shape
// is a number.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/IR.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace blockc {

/// `-D NAME=VALUE` pairs, in command-line order; a later pair for a name wins.
using ConstexprBindings = std::vector<std::pair<std::string, std::string>>;

/// Returns the verified module, or null with the first error in `diags`.
std::unique_ptr<Module> parseModule(const SourceFile &file, const ConstexprBindings &bindings,
                                    DiagnosticEngine &diags);

} // namespace blockc
