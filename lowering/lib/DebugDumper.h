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
#include "blockc/lowering/Stages.h"

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

  /// Whether `stage`'s output would be shown anywhere: callers skip printing
  /// IR nobody reads.
  bool wants(const Stage &stage) const;
  /// Block IR after the pass of `stage`; `changed` is false when it left the
  /// module as it was.
  bool afterPass(const Stage &stage, const Module &module, bool changed, std::string &error);
  /// Any other stage's text.
  bool afterStage(const Stage &stage, const std::string &text, std::string &error);

private:
  DebugDumper() = default;
  bool printRequested(std::string_view name) const;
  bool show(const Stage &stage, const std::string &header, const std::string &text,
            std::string &error);
  bool write(const std::string &file, const std::string &text, std::string &error);

  int level_ = 0;
  std::vector<std::string> printAfter_;
  std::string dumpDir_;
  int counter_ = 0;
};

} // namespace blockc
