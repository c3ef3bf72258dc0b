//===- Print.cpp - Lines of Block IR's `print` ----------------------------===//
//
// A kernel's `print` calls blockc_print once per element, from whichever
// thread runs the program. Each line is formatted into a buffer and written
// with one stdio call, which glibc locks, so that lines of different programs
// never interleave within a line; each is flushed at once, so that what a
// kernel printed shows before a later failure or Python print.
//
//===----------------------------------------------------------------------===//
#include "blockc/runtime.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void appendValue(std::string &line, uint64_t bits, uint8_t format) {
  char text[64];
  unsigned bytes = format >> 4;
  switch (format & 0xf) {
  case BLOCKC_PRINT_UNSIGNED:
    std::snprintf(text, sizeof text, "%llu", (unsigned long long)bits);
    break;
  case BLOCKC_PRINT_FLOAT: {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    // Enough digits to tell apart any two values of the element's type.
    int digits = bytes >= 8 ? 17 : bytes == 4 ? 9 : bytes == 2 ? 5 : 4;
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    break;
  }
  case BLOCKC_PRINT_HEX:
    std::snprintf(text, sizeof text, "0x%0*llx", int(2 * (bytes ? bytes : 8)),
                  (unsigned long long)bits);
    break;
  default:
    std::snprintf(text, sizeof text, "%lld", (long long)bits);
    break;
  }
  line += text;
}

} // namespace

extern "C" void blockc_print(const char *text, int32_t pid_x, int32_t pid_y, int32_t pid_z,
                             const int64_t *index, uint32_t rank, const uint64_t *values,
                             const uint8_t *formats, uint32_t count) {
  std::string line = "pid (" + std::to_string(pid_x) + ", " + std::to_string(pid_y) + ", " +
                     std::to_string(pid_z) + ")";
  if (rank) {
    line += " idx (";
    for (uint32_t d = 0; d < rank; ++d)
      line += (d ? ", " : "") + std::to_string(index[d]);
    line += ")";
  }
  line += " ";
  line += text;
  for (uint32_t i = 0; i < count; ++i) {
    if (i)
      line += ", ";
    appendValue(line, values[i], formats[i]);
  }
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}
