//===- RunProcess.h - Run blockc and capture what it prints -----*- C++ -*-===//
#pragma once

#include "Scratch.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace blockc::test {

struct ProcessResult {
  int exitCode;
  std::string out, err;
};

inline std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs the shell command `command`, capturing both streams; a signal gives
/// 128 + its number, as a shell reports it.
inline ProcessResult runCommand(const std::string &command, const std::string &stdinFile = "") {
  static int counter = 0;
  std::string base = ::testing::TempDir() + "blockc_process_" + std::to_string(getpid()) + "_" +
                     std::to_string(counter++);
  std::string cmd = "(" + command + ") >" + base + ".out 2>" + base + ".err" +
                    (stdinFile.empty() ? " </dev/null" : " <'" + stdinFile + "'");
  int status = std::system(cmd.c_str());
  ProcessResult r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                  slurp(base + ".out"), slurp(base + ".err")};
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

/// Runs the blockc binary with `args` (already shell-quoted).
inline ProcessResult runBlockc(const std::string &args, const std::string &stdinFile = "") {
  return runCommand(std::string("'") + BLOCKC_BINARY + "' " + args, stdinFile);
}

} // namespace blockc::test
