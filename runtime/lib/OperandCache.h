//===- OperandCache.h - Packed dot operands shared by a launch's programs -*- C++ -*-===//
//
// A dot reorders its B operand into the layout its micro-kernel reads (AMX's
// VNNI pairs, say), and every program of a column of the grid reads the same
// panel of B: without a cache, each of them packs it again. Each thread keeps
// the panels its programs packed during one launch (blockc_packed_operand in
// runtime.h); a new launch starts empty, since the matrices may have changed
// in between, and a call outside a launch gets no cache at all.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string_view>

namespace blockc::runtime {

/// BLOCKC_OPERAND_CACHE's value: bytes per thread, a decimal count with an
/// optional binary K, M or G suffix, up to 1024G; or "off" (0). Blanks around
/// it are ignored. False when `text` is anything else.
bool parseOperandCacheBytes(std::string_view text, uint64_t &bytes);

/// BLOCKC_OPERAND_CACHE, read once per process: BLOCKC_SUCCESS, or
/// BLOCKC_ERROR_INVALID_ENVIRONMENT with the message set, for every launch.
int checkOperandCacheEnvironment();

/// A number no earlier launch of the process had.
uint64_t newLaunchEpoch();

/// While it lives, blockc_packed_operand on this thread serves launch `epoch`;
/// programStarts() marks each program's start, so that a panel handed to the
/// running program is never reused for another panel before it ends.
class OperandCacheScope {
public:
  explicit OperandCacheScope(uint64_t epoch);
  ~OperandCacheScope();
  OperandCacheScope(const OperandCacheScope &) = delete;
  OperandCacheScope &operator=(const OperandCacheScope &) = delete;

  void programStarts() { ++*programSerial_; }

private:
  uint64_t *programSerial_;
};

/// Replaces BLOCKC_OPERAND_CACHE's bytes per thread for tests; applies to
/// caches allocated after the call.
void setOperandCacheBytesForTesting(uint64_t bytes);

/// Caches allocated in this process so far: once per thread at most.
uint64_t operandCacheAllocations();

} // namespace blockc::runtime
