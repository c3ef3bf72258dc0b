//===- Verifier.h - Structural and type checks of Block IR ------*- C++ -*-===//
//
// Checks what the typing rules of single ops cannot: every operand is defined
// before its use and visible where it is used, bodies end in the right
// terminator with the right types, kernels take scalars and pointers only,
// functions are defined before they are called (so inlining terminates), and
// names are unique. Also re-checks every op's result types, so IR built
// through any path gets the parser's guarantees.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/IR.h"

namespace blockc {

/// Returns true when `module` is valid; otherwise reports the first problem.
bool verifyModule(const Module &module, DiagnosticEngine &diags);

} // namespace blockc
