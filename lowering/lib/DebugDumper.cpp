//===- DebugDumper.cpp ----------------------------------------------------===//
#include "DebugDumper.h"

#include "blockc/frontend/Printer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace blockc {

int DebugDumper::levelFromEnvironment() {
  const char *env = std::getenv("BLOCKC_DEBUG");
  return env ? std::atoi(env) : 0;
}

std::optional<DebugDumper> DebugDumper::open(const CompileOptions &options, std::string &error) {
  DebugDumper dumper;
  dumper.level_ = levelFromEnvironment();
  dumper.printAfter_ = options.printAfter;
  dumper.dumpDir_ = options.dumpDir;
  if (!dumper.dumpDir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dumper.dumpDir_, ec);
    if (ec || !std::filesystem::is_directory(dumper.dumpDir_)) {
      error = "--dump-dir '" + dumper.dumpDir_ +
              "': cannot create the folder: " + (ec ? ec.message() : "a file of that name exists");
      return std::nullopt;
    }
  }
  return dumper;
}

bool DebugDumper::printRequested(const std::string &name) const {
  return std::find(printAfter_.begin(), printAfter_.end(), name) != printAfter_.end() ||
         std::find(printAfter_.begin(), printAfter_.end(), "all") != printAfter_.end();
}

bool DebugDumper::wants(const std::string &name, int level) const {
  return level_ >= level || !dumpDir_.empty() || printRequested(name);
}

bool DebugDumper::write(const std::string &file, const std::string &text, std::string &error) {
  if (dumpDir_.empty())
    return true;
  char prefix[8];
  std::snprintf(prefix, sizeof(prefix), "%02d-", counter_++);
  std::string path = dumpDir_ + "/" + prefix + file;
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    error = "--dump-dir '" + dumpDir_ + "': cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool DebugDumper::afterPass(const std::string &pass, const Module &module, bool changed,
                            std::string &error) {
  if (!wants(pass, 1))
    return true;
  std::string text =
      "// ----- after " + pass + (changed ? "" : " (no change)") + " -----\n" + printModule(module);
  if (level_ >= 1 || printRequested(pass))
    std::cerr << text;
  return write(pass + ".bir", text, error);
}

bool DebugDumper::afterStage(const std::string &name, const std::string &file,
                             const std::string &text, int level, std::string &error) {
  if (!wants(name, level))
    return true;
  if (level_ >= level || printRequested(name))
    std::cerr << "// ----- after " << name << " -----\n" << text;
  return write(file, text, error);
}

} // namespace blockc
