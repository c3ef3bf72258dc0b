//===- SpecializeConstexprs.h - -D values over the defaults -----*- C++ -*-===//
//
// The first stage of the pipeline (Stages.h): every constexpr takes the value
// of the last `-D NAME=VALUE` for its name, or keeps the default its
// declaration gives. It runs inside parsing, on each declaration as the parser
// reads it, because constexprs size the types that follow (`tensor<BLOCKxf32>`):
// binding them later would need symbolic shapes in Block IR, which no later
// stage wants. The module that parsing returns is therefore already
// specialized.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/IR.h"

#include <string>
#include <utility>
#include <vector>

namespace blockc {

/// `-D NAME=VALUE` pairs, in command-line order; a later pair for a name wins.
using ConstexprBindings = std::vector<std::pair<std::string, std::string>>;

/// Gives `decl` the value of the last binding for its name, converted to its
/// type, if there is one. False, with an error naming the `-D`, when the value
/// is not a number or does not fit the type.
bool specializeConstexpr(Constexpr &decl, const ConstexprBindings &bindings,
                         DiagnosticEngine &diags);

/// False, with an error, when a binding names no constexpr of `module`: a
/// misspelt `-D` must not pass unnoticed.
bool checkBindingsDeclared(const Module &module, const ConstexprBindings &bindings,
                           DiagnosticEngine &diags);

} // namespace blockc
