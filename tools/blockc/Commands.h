//===- Commands.h - blockc subcommands --------------------------*- C++ -*-===//
#pragma once

#include <string>
#include <vector>

namespace blockc::driver {

/// Each returns the process exit code: 0 on success, 1 on any error.
int runCheck(const std::vector<std::string> &args);
int runPrint(const std::vector<std::string> &args);
int runCompile(const std::vector<std::string> &args);
int runTargets(const std::vector<std::string> &args);
int runRun(const std::vector<std::string> &args);

} // namespace blockc::driver
