//===- CProgram.h - Programs around blockc's objects ----------*- C++ -*-===//
//
// Ahead-of-time tests link a C or C++ program with a kernel object and the runtime,
// as a user's build does: one command, with the flags such a link needs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <filesystem>
#include <string>

namespace blockc::test {

/// The command that compiles `source` with `compiler` (`flags` added; the
/// kernel's header is found in `folder`) and links it with `object` and the
/// runtime into `app`.
inline std::string programBuildCommand(const std::string &compiler,
                                       const std::filesystem::path &folder,
                                       const std::filesystem::path &source,
                                       const std::filesystem::path &object,
                                       const std::filesystem::path &app, const std::string &flags) {
  return compiler + " " + flags + " -I" + BLOCKC_RUNTIME_INCLUDE + " -I" + folder.string() + " " +
         source.string() + " " + object.string() + " " + BLOCKC_RUNTIME_LIBRARY +
         " -fopenmp=libomp -lstdc++ -lsleef -lm " BLOCKC_APP_LINK_FLAGS " -o " + app.string();
}

} // namespace blockc::test
