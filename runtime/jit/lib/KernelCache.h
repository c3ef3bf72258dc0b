//===- KernelCache.h - On-disk cache of compiled kernel objects -*- C++ -*-===//
//
// One object file per key in BLOCKC_CACHE_DIR (default ~/.cache/blockc;
// `off` disables it). Entries are written to a temporary file in the same
// folder and renamed into place, so readers in other processes see either no
// entry or a whole one, never a partial write.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/lowering/Compiler.h"

#include <optional>
#include <string>

namespace blockc {

class KernelCache {
public:
  /// Reads BLOCKC_CACHE_DIR.
  KernelCache();
  bool enabled() const { return !dir_.empty(); }
  const std::string &dir() const { return dir_; }

  /// The key of a compile: source text, constexpr bindings, target (with its
  /// detected features), the options that change code, and compilerBuildId().
  static std::string key(const SourceFile &source, const CompileOptions &options,
                         const std::string &targetFeatures);
  std::optional<std::string> load(const std::string &key) const;
  /// Best effort: a cache that cannot be written only costs a recompile.
  void store(const std::string &key, const std::string &object) const;

private:
  std::string dir_;
};

} // namespace blockc
