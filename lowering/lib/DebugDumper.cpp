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

bool DebugDumper::printRequested(std::string_view name) const {
  return std::find(printAfter_.begin(), printAfter_.end(), name) != printAfter_.end() ||
         std::find(printAfter_.begin(), printAfter_.end(), "all") != printAfter_.end();
}

bool DebugDumper::wants(const Stage &stage) const {
  return level_ >= debugLevelOf(stage.output) || !dumpDir_.empty() || printRequested(stage.name);
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

bool DebugDumper::afterPass(const Stage &stage, const Module &module, bool changed,
                            std::string &error) {
  if (!wants(stage))
    return true;
  std::string name(stage.name);
  return show(stage, "// ----- after " + name + (changed ? "" : " (no change)") + " -----\n",
              printModule(module), error);
}

bool DebugDumper::afterStage(const Stage &stage, const std::string &text, std::string &error) {
  if (!wants(stage))
    return true;
  return show(stage, "// ----- after " + std::string(stage.name) + " -----\n", text, error);
}

bool DebugDumper::show(const Stage &stage, const std::string &header, const std::string &text,
                       std::string &error) {
  if (level_ >= debugLevelOf(stage.output) || printRequested(stage.name))
    std::cerr << header << text;
  return write(std::string(stage.name) + std::string(dumpExtensionOf(stage.output)),
               stage.output == StageOutput::BlockIR ? header + text : text, error);
}

} // namespace blockc
