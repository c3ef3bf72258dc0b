//===- Pipeline.cpp - The whole Block IR pipeline, a line a pass ----------===//
//
//   parse + bind constexprs + verify     (frontend: SpecializeConstexprs)
//   InlineCalls                          helper functions into kernels
//   FoldConstants                        scalar integer arithmetic on constants
//   SimplifyMasks                        masks true in every lane disappear
//   FoldConstants                        what SimplifyMasks exposed
//   FuseElementwise                      per kernel, at code generation
//   code generation                      strip loops, SLEEF, for a Target
//
//===----------------------------------------------------------------------===//
#include "blockc/lowering/Pipeline.h"

#include "blockc/frontend/Printer.h"
#include "blockc/lowering/Passes.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace blockc {

const std::vector<std::string> &passNames() {
  static const std::vector<std::string> names = {"InlineCalls", "FoldConstants", "SimplifyMasks",
                                                 "FuseElementwise"};
  return names;
}

void runPassPipeline(Module &module, DebugDumper &dumper) {
  dumper.afterPass("SpecializeConstexprs", module, true);
  dumper.afterPass("InlineCalls", module, inlineCalls(module));
  dumper.afterPass("FoldConstants", module, foldConstants(module));
  dumper.afterPass("SimplifyMasks", module, simplifyMasks(module));
  dumper.afterPass("FoldConstants", module, foldConstants(module));
}

DebugDumper::DebugDumper(const CompileOptions &options)
    : printAfter_(options.printAfter), dumpDir_(options.dumpDir) {
  if (const char *env = std::getenv("BLOCKC_DEBUG"))
    level_ = std::atoi(env);
  if (!dumpDir_.empty())
    std::filesystem::create_directories(dumpDir_);
}

void DebugDumper::afterPass(const std::string &pass, const Module &module, bool changed) {
  bool requested = std::find(printAfter_.begin(), printAfter_.end(), pass) != printAfter_.end() ||
                   std::find(printAfter_.begin(), printAfter_.end(), "all") != printAfter_.end();
  if (!requested && !wants(1))
    return;
  std::string header = "// ----- after " + pass + (changed ? "" : " (no change)") + " -----\n";
  std::string text = printModule(module);
  if (requested || level_ >= 1)
    std::cerr << header << text;
  if (!dumpDir_.empty()) {
    char prefix[8];
    std::snprintf(prefix, sizeof(prefix), "%02d-", counter_++);
    std::ofstream(dumpDir_ + "/" + prefix + pass + ".bir") << header << text;
  }
}

void DebugDumper::stage(const std::string &stage, const std::string &text, int level) {
  if (level_ >= level)
    std::cerr << "// ----- " << stage << " -----\n" << text;
  if (!dumpDir_.empty())
    std::ofstream(dumpDir_ + "/" + stage) << text;
}

} // namespace blockc
