//===- DebugDumper.h - Where a compile's stages are shown -------*- C++ -*-===//
//
// One place decides what a compile shows of its stages: BLOCKC_DEBUG (1: Block
// IR after each pass and the fusion plans; 2: also LLVM IR; 3: also assembly;
// all on stderr), `--print-after=STAGE` (that stage on stderr, whatever the
// level) and `--dump-dir=DIR` (every stage, one file each).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/IR.h"
#include "blockc/lowering/Compiler.h"

#include <optional>
#include <string>
#include <vector>

namespace blockc {

class DebugDumper {
public:
  /// Creates the dump folder if one is asked for; fails with `error` naming
  /// the folder when it cannot be created.
  static std::optional<DebugDumper> open(const CompileOptions &options, std::string &error);
  /// BLOCKC_DEBUG's level; 0 when unset.
  static int levelFromEnvironment();

  /// Whether stage `name`, shown on stderr from BLOCKC_DEBUG level `level`,
  /// would be shown anywhere: callers skip printing IR nobody reads.
  bool wants(const std::string &name, int level) const;
  /// Block IR after pass `pass`; `changed` is false when it left it as it was.
  bool afterPass(const std::string &pass, const Module &module, bool changed, std::string &error);
  /// Any other stage's text, written to `file` in the dump folder.
  bool afterStage(const std::string &name, const std::string &file, const std::string &text,
                  int level, std::string &error);

private:
  DebugDumper() = default;
  bool printRequested(const std::string &name) const;
  bool write(const std::string &file, const std::string &text, std::string &error);

  int level_ = 0;
  std::vector<std::string> printAfter_;
  std::string dumpDir_;
  int counter_ = 0;
};

} // namespace blockc
