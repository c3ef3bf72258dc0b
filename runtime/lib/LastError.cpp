//===- LastError.cpp ------------------------------------------------------===//
#include "LastError.h"

#include "blockc/runtime.h"

#include <cstdarg>
#include <cstdio>

namespace blockc::runtime {

namespace {
// Long enough for an environment value or a core list to be quoted in full in
// any realistic case; snprintf truncates the rest.
thread_local char message[1024];
} // namespace

int fail(int status, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(message, sizeof message, format, arguments);
  va_end(arguments);
  return status;
}

int succeed() {
  message[0] = '\0';
  return BLOCKC_SUCCESS;
}

const char *lastError() {
  return message;
}

} // namespace blockc::runtime

extern "C" const char *blockc_last_error(void) {
  return blockc::runtime::lastError();
}
