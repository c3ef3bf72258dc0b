//===- ScratchArena.cpp ---------------------------------------------------===//
#include "ScratchArena.h"

#include "LastError.h"
#include "blockc/runtime.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace blockc::runtime {

namespace {

// Whole pages, page-aligned: more than the 64 bytes kernels assume, and a
// size aligned_alloc accepts.
constexpr uint64_t kPageBytes = 4096;

struct Arena {
  void *memory = nullptr;
  uint64_t capacity = 0;
  ~Arena() { std::free(memory); }
};

thread_local Arena arena;
// Apart from the arena, so that reading it does not make every thread that
// launches anything register the arena's destructor.
thread_local uint64_t shortfall = 0;
std::atomic<uint64_t> allocations{0};

} // namespace

int reserveScratchArena(uint64_t bytes) {
  if (bytes <= arena.capacity)
    return 0;
  // Freed first: nothing in it outlives a program, and a board's memory may
  // not hold the old and the new arena at once.
  std::free(arena.memory);
  arena.memory = nullptr;
  arena.capacity = 0;
  if (bytes > SIZE_MAX - kPageBytes)
    return ENOMEM;
  uint64_t size = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  errno = 0;
  void *memory = std::aligned_alloc(kPageBytes, size_t(size));
  if (!memory)
    return errno ? errno : ENOMEM;
  allocations.fetch_add(1, std::memory_order_relaxed);
  arena.memory = memory;
  arena.capacity = size;
  return 0;
}

uint64_t takeScratchArenaShortfall() {
  uint64_t bytes = shortfall;
  shortfall = 0;
  return bytes;
}

uint64_t scratchArenaAllocations() {
  return allocations.load(std::memory_order_relaxed);
}

} // namespace blockc::runtime

using namespace blockc::runtime;

extern "C" void *blockc_scratch_arena(uint64_t bytes) {
  // Every program after a thread's first takes this branch: the launcher grew
  // the arena already, or the first program did.
  if (bytes <= arena.capacity && arena.memory)
    return arena.memory;
  if (int error = reserveScratchArena(bytes)) {
    if (bytes > shortfall)
      shortfall = bytes;
    fail(BLOCKC_ERROR_OUT_OF_MEMORY,
         "a kernel needs %llu bytes of scratch memory per program, and allocating them failed: "
         "%s; the program did nothing",
         (unsigned long long)bytes, std::strerror(error));
    return nullptr;
  }
  return arena.memory;
}
