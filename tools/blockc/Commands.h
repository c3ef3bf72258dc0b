//===- Commands.h - blockc subcommands --------------------------*- C++ -*-===//
#pragma once

#include "Arguments.h"
#include "blockc/lowering/Compiler.h"

#include <string>
#include <vector>

namespace blockc::driver {

/// Each returns the process exit code: 0 on success, 1 on any error.
int runCheck(const std::vector<std::string> &args);
int runPrint(const std::vector<std::string> &args);
int runCompile(const std::vector<std::string> &args);
int runTargets(const std::vector<std::string> &args);
int runRun(const std::vector<std::string> &args);
int runInspect(const std::vector<std::string> &args);

/// The flags of every command that compiles (--target, -D, --fast-math,
/// --print-after, --dump-dir) and the options they set; in CompileCommand.cpp.
std::vector<FlagSpec> compilerFlags();
bool compileOptionsFrom(const Arguments &args, CompileOptions &options, std::string &error);

} // namespace blockc::driver
