//===- CompileServer.h - Kernel libraries compiled in a long-lived child -*- C++ -*-===//
//
// The remote backend compiles each test's kernels to a shared library for the
// runner. An LLVM fatal error aborts its process, so the compile runs in a child
// of the test binary; forking one per compile, though, cost three quarters of a
// QEMU suite's time (the child copied the parent's page tables, faulted its heap
// in again and set up LLVM's targets from scratch, every time). The server is
// forked once and compiles one request after another; when it dies, the compile
// in flight fails with what it printed, and the next compile starts a new one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/lowering/Compiler.h"

#include <string>

namespace blockc::test {

/// Compiles `file` with `options` to the shared library `library` in the
/// compile server. Returns "" or what the compiler said (or how it died).
std::string compileInServer(const SourceFile &file, const CompileOptions &options,
                            const std::string &library);

/// Makes the server abort as a crashing compile would; returns what a compile
/// in flight would have reported.
std::string crashCompileServerForTest();

} // namespace blockc::test
