//===- CoreList.h - Core lists such as "0-3,6" in variables -----*- C++ -*-===//
//
// BLOCKC_AFFINITY and BLOCKC_IME_CORES share one syntax and one parser, so
// that a list accepted by one is accepted by the other.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace blockc::runtime {

/// Reads `value`, the value of the environment variable `variable`, as core
/// ids and ranges (`0-3,6,8`) into `cores` (room for BLOCKC_MAX_AFFINITY_CORES),
/// in the order given. On success sets `count`; on an error returns
/// BLOCKC_ERROR_INVALID_ENVIRONMENT with a message quoting the variable, and
/// leaves `count` alone.
int parseCoreList(const char *variable, const char *value, int32_t *cores, int32_t &count);

} // namespace blockc::runtime
