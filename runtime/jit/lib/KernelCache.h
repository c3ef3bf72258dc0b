//===- KernelCache.h - On-disk cache of compiled kernel objects -*- C++ -*-===//
//
// One object file per key in BLOCKC_CACHE_DIR (default ~/.cache/blockc;
// `off` disables it). Entries are written to a temporary file in the same
// folder and renamed into place, so readers in other processes see either no
// entry or a whole one, never a partial write. Each entry ends with a trailer
// holding the object's size and SHA-256: an entry that a disk error, a full
// disk or a stray writer damaged is never run, since running a corrupt object
// can crash the process or compute a wrong answer silently. Such an entry is
// deleted with a warning naming it, and the kernel recompiled.
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

  /// The object stored under `key` (compileKey()), if there is a whole, undamaged one.
  std::optional<std::string> load(const std::string &key) const;
  /// Best effort: a cache that cannot be written only costs a recompile.
  void store(const std::string &key, const std::string &object) const;
  /// Deletes the entry of `key`, warning on stderr that `why`; for an entry
  /// that passed its checksum but that the JIT still could not load.
  void discard(const std::string &key, const std::string &why) const;

  /// Where the entry of `key` lives.
  std::string entryPath(const std::string &key) const { return dir_ + "/" + key + ".o"; }

private:
  std::string dir_;
};

} // namespace blockc
