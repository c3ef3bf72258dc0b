//===- Pipeline.h - The Block IR pass pipeline ------------------*- C++ -*-===//
#pragma once

#include "blockc/frontend/IR.h"
#include "blockc/lowering/Compiler.h"

#include <string>
#include <vector>

namespace blockc {

/// The passes in the order Pipeline.cpp runs them; `--print-after` accepts
/// these names.
const std::vector<std::string> &passNames();

/// Where debug output of a compile goes: BLOCKC_DEBUG (1: Block IR after each
/// pass and the fusion plans; 2: also LLVM IR; 3: also assembly, all on
/// stderr), `--print-after=PASS` and `--dump-dir=DIR`.
class DebugDumper {
public:
  explicit DebugDumper(const CompileOptions &options);
  /// Block IR after `pass`; `changed` is false when the pass left it as it was.
  void afterPass(const std::string &pass, const Module &module, bool changed);
  /// Any other stage: `stage` names the file in the dump folder and `level`
  /// is the BLOCKC_DEBUG level from which it goes to stderr.
  void stage(const std::string &stage, const std::string &text, int level);
  bool wants(int level) const { return level_ >= level || !dumpDir_.empty(); }

private:
  int level_ = 0;
  std::vector<std::string> printAfter_;
  std::string dumpDir_;
  int counter_ = 0;
};

/// Runs the Block IR passes over a verified, constexpr-bound module.
void runPassPipeline(Module &module, DebugDumper &dumper);

} // namespace blockc
