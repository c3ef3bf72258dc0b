//===- LastError.h - The thread-local message behind blockc_last_error -*- C++ -*-===//
//
// The C API reports failures as a status code plus a message. The message
// lives in a fixed thread-local buffer: formatting an error must not allocate,
// and two threads launching at once must not see each other's errors.
//
//===----------------------------------------------------------------------===//
#pragma once

#if defined(__GNUC__)
#define BLOCKC_PRINTF_FORMAT(formatIndex, firstArg)                                                \
  __attribute__((format(printf, formatIndex, firstArg)))
#else
#define BLOCKC_PRINTF_FORMAT(formatIndex, firstArg)
#endif

namespace blockc::runtime {

/// Records the formatted message (truncated to the buffer) and returns `status`,
/// so that a check reads `return fail(BLOCKC_ERROR_..., "...", ...);`.
int fail(int status, const char *format, ...) BLOCKC_PRINTF_FORMAT(2, 3);

/// Marks the calling thread's last call as successful and returns 0.
int succeed();

const char *lastError();

} // namespace blockc::runtime
