//===- OperandCache.cpp ---------------------------------------------------===//
//
// Each thread's cache is one block of memory filled front to back, with a
// small table of what each piece holds. Programs of a grid column ask for
// their panels in the same order, so nothing finer than "start again from
// the front" is needed when the block is full; a piece the running program
// holds is never given away, since the program is still reading it.
//
//===----------------------------------------------------------------------===//
#include "OperandCache.h"

#include "LastError.h"
#include "blockc/runtime.h"

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace blockc::runtime {

namespace {

constexpr uint64_t kDefaultBytesPerThread = 8ull << 20;
constexpr uint64_t kMaxBytesPerThread = 1ull << 40;
constexpr uint64_t kAlignment = 64;
constexpr unsigned kMaxEntries = 64;

struct Entry {
  const void *source;
  int64_t rowStride, rows;
  uint64_t layout, bytes;
  uint64_t offset;
  uint64_t program; // serial of the last program that was handed it
};

struct ThreadCache {
  char *memory = nullptr;
  uint64_t capacity = 0, used = 0;
  uint64_t epoch = 0;       // the launch the entries belong to
  uint64_t activeEpoch = 0; // the launch running on this thread; 0: none
  uint64_t program = 0;
  unsigned count = 0;
  Entry entries[kMaxEntries];
  ~ThreadCache() { std::free(memory); }
};

thread_local ThreadCache cache;

std::atomic<uint64_t> gBytesPerThread{kDefaultBytesPerThread};
std::atomic<uint64_t> gEpochs{0};
std::atomic<uint64_t> gAllocations{0};

struct EnvironmentAnswer {
  int status = BLOCKC_SUCCESS;
  char error[256] = "";
};

EnvironmentAnswer readEnvironment() {
  EnvironmentAnswer answer;
  const char *value = std::getenv("BLOCKC_OPERAND_CACHE");
  if (!value || !*value)
    return answer;
  uint64_t bytes = 0;
  if (!parseOperandCacheBytes(value, bytes)) {
    answer.status = BLOCKC_ERROR_INVALID_ENVIRONMENT;
    std::snprintf(answer.error, sizeof answer.error,
                  "BLOCKC_OPERAND_CACHE=\"%s\": expected bytes per thread, a number with an "
                  "optional K, M or G suffix up to 1024G, or off",
                  value);
    return answer;
  }
  gBytesPerThread.store(bytes, std::memory_order_relaxed);
  return answer;
}

bool fits(uint64_t used, uint64_t bytes, uint64_t capacity) {
  return bytes <= capacity && used <= capacity - bytes;
}

/// Makes room for `bytes` at the end of the table: false when the running
/// program holds a piece, so that nothing may be dropped.
bool makeRoom(ThreadCache &c, uint64_t bytes) {
  if (fits(c.used, bytes, c.capacity) && c.count < kMaxEntries)
    return true;
  for (unsigned i = 0; i < c.count; ++i)
    if (c.entries[i].program == c.program)
      return false;
  c.count = 0;
  c.used = 0;
  return fits(0, bytes, c.capacity);
}

bool allocate(ThreadCache &c) {
  uint64_t wanted = gBytesPerThread.load(std::memory_order_relaxed);
  if (c.memory && c.capacity == wanted)
    return true;
  std::free(c.memory);
  c.memory = nullptr;
  c.capacity = c.used = 0;
  c.count = 0;
  if (wanted == 0)
    return false;
  c.memory = static_cast<char *>(std::aligned_alloc(kAlignment, wanted));
  if (!c.memory)
    return false;
  gAllocations.fetch_add(1, std::memory_order_relaxed);
  c.capacity = wanted;
  return true;
}

} // namespace

bool parseOperandCacheBytes(std::string_view text, uint64_t &bytes) {
  auto isBlank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && isBlank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && isBlank(text.back()))
    text.remove_suffix(1);
  if (text.size() == 3 && (text[0] | 0x20) == 'o' && (text[1] | 0x20) == 'f' &&
      (text[2] | 0x20) == 'f') {
    bytes = 0;
    return true;
  }
  uint64_t unit = 1;
  if (!text.empty()) {
    switch (text.back() | 0x20) {
    case 'k':
      unit = uint64_t(1) << 10;
      break;
    case 'm':
      unit = uint64_t(1) << 20;
      break;
    case 'g':
      unit = uint64_t(1) << 30;
      break;
    default:
      break;
    }
    if (unit != 1)
      text.remove_suffix(1);
  }
  uint64_t count = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      count > kMaxBytesPerThread / unit)
    return false;
  bytes = count * unit;
  return true;
}

int checkOperandCacheEnvironment() {
  static const EnvironmentAnswer answer = readEnvironment();
  if (answer.status != BLOCKC_SUCCESS)
    return fail(answer.status, "%s", answer.error);
  return BLOCKC_SUCCESS;
}

uint64_t newLaunchEpoch() {
  return gEpochs.fetch_add(1, std::memory_order_relaxed) + 1;
}

OperandCacheScope::OperandCacheScope(uint64_t epoch) : programSerial_(&cache.program) {
  cache.activeEpoch = epoch;
}

OperandCacheScope::~OperandCacheScope() {
  cache.activeEpoch = 0;
}

void setOperandCacheBytesForTesting(uint64_t bytes) {
  gBytesPerThread.store(bytes, std::memory_order_relaxed);
}

uint64_t operandCacheAllocations() {
  return gAllocations.load(std::memory_order_relaxed);
}

} // namespace blockc::runtime

using namespace blockc::runtime;

extern "C" void *blockc_packed_operand(const void *source, int64_t row_stride, int64_t rows,
                                       uint64_t layout, uint64_t bytes, int32_t *filled) {
  *filled = 0;
  ThreadCache &c = cache;
  if (c.activeEpoch == 0)
    return nullptr;
  if (c.epoch != c.activeEpoch) {
    c.epoch = c.activeEpoch;
    c.count = 0;
    c.used = 0;
    if (!allocate(c))
      return nullptr;
  }
  if (!c.memory)
    return nullptr;
  for (unsigned i = 0; i < c.count; ++i) {
    Entry &e = c.entries[i];
    if (e.source == source && e.rowStride == row_stride && e.rows == rows && e.layout == layout &&
        e.bytes == bytes) {
      e.program = c.program;
      *filled = 1;
      return c.memory + e.offset;
    }
  }
  uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < bytes || !makeRoom(c, rounded))
    return nullptr;
  c.entries[c.count++] = Entry{source, row_stride, rows, layout, bytes, c.used, c.program};
  char *piece = c.memory + c.used;
  c.used += rounded;
  return piece;
}
