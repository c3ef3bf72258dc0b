//===- Printer.h - Block IR to canonical .bir text --------------*- C++ -*-===//
//
// The canonical text form: constexprs first, then functions in module order,
// two-space indentation, every single-result op annotated with its type.
// Parsing the output and printing again gives the same text byte for byte.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"

#include <string>

namespace blockc {

std::string printModule(const Module &module);
std::string printOperation(const Operation &op, unsigned indent = 0);

} // namespace blockc
