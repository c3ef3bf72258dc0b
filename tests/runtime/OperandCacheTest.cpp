//===- OperandCacheTest.cpp - Packed operands shared within a launch ------===//
//
// Kernels here stand in for compiled dots: each program asks
// blockc_packed_operand for the panels named by its arguments, packs the ones
// it did not get filled, and checks that those it got filled hold what an
// earlier program of the same launch wrote there.
//
//===----------------------------------------------------------------------===//
#include "OperandCache.h"

#include "blockc/runtime.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using blockc::runtime::operandCacheAllocations;
using blockc::runtime::parseOperandCacheBytes;
using blockc::runtime::setOperandCacheBytesForTesting;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kDefaultBytes = 8 * 1024 * kKiB;

/// Each program asks for `panelsPerProgram` panels of `bytes`: panel p of
/// program `pid` is keyed by source `matrix + (pid / programsPerPanel + p) * 4096`.
struct PanelUse {
  int64_t programsPerPanel = 1;
  int panelsPerProgram = 1;
  uint64_t bytes = 4 * kKiB;
  static constexpr int64_t kPanels = 80;
  std::vector<char> matrix = std::vector<char>(size_t(kPanels) * 4096);
  std::atomic<int> packed{0}, reused{0}, uncached{0}, wrong{0};
};

uint8_t fillByte(int64_t panel) {
  return uint8_t(0x11 + panel * 7);
}

void usePanels(void **args, int32_t pid, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto &use = *static_cast<PanelUse *>(args[0]);
  std::vector<std::pair<char *, char *>> held;
  for (int p = 0; p < use.panelsPerProgram; ++p) {
    int64_t panel = pid / use.programsPerPanel + p;
    ASSERT_LT(panel, PanelUse::kPanels);
    int32_t filled = -1;
    auto *memory = static_cast<char *>(blockc_packed_operand(
        use.matrix.data() + panel * 4096, 256, 64, /*layout=*/42, use.bytes, &filled));
    if (!memory) {
      EXPECT_EQ(filled, 0);
      use.uncached.fetch_add(1);
      continue;
    }
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory) % 64, 0u);
    if (filled) {
      use.reused.fetch_add(1);
      for (uint64_t i = 0; i < use.bytes; ++i)
        if (uint8_t(memory[i]) != fillByte(panel)) {
          use.wrong.fetch_add(1);
          break;
        }
    } else {
      use.packed.fetch_add(1);
      std::memset(memory, fillByte(panel), use.bytes);
    }
    held.emplace_back(memory, memory + use.bytes);
  }
  // Pieces one program holds never overlap.
  for (size_t i = 0; i < held.size(); ++i)
    for (size_t j = i + 1; j < held.size(); ++j)
      if (held[i].first < held[j].second && held[j].first < held[i].second)
        use.wrong.fetch_add(1);
}

int launch(PanelUse &use, int64_t programs, int threads, int chunk = 0) {
  void *args[] = {&use};
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = threads;
  options.schedule = BLOCKC_SCHEDULE_STATIC;
  options.chunk_size = chunk;
  return blockc_launch(usePanels, args, {programs, 1, 1}, &options);
}

class OperandCache : public ::testing::Test {
protected:
  void TearDown() override { setOperandCacheBytesForTesting(kDefaultBytes); }
};

// A program called outside a launch has no launch to share with.
TEST_F(OperandCache, NothingOutsideALaunch) {
  int32_t filled = -1;
  static const char source[1] = {0};
  EXPECT_EQ(blockc_packed_operand(source, 64, 16, 1, 1024, &filled), nullptr);
  EXPECT_EQ(filled, 0);
}

// Eight programs share each panel on one thread: the first packs it, the
// other seven find it packed.
TEST_F(OperandCache, ProgramsOfAColumnPackOnce) {
  PanelUse use;
  use.programsPerPanel = 8;
  ASSERT_EQ(launch(use, 64, 1), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(use.packed.load(), 8);
  EXPECT_EQ(use.reused.load(), 56);
  EXPECT_EQ(use.uncached.load(), 0);
  EXPECT_EQ(use.wrong.load(), 0);
}

// The matrices may change between launches: a new launch packs again.
TEST_F(OperandCache, EachLaunchStartsEmpty) {
  for (int round = 0; round < 3; ++round) {
    PanelUse use;
    use.programsPerPanel = 4;
    ASSERT_EQ(launch(use, 16, 1), BLOCKC_SUCCESS) << blockc_last_error();
    EXPECT_EQ(use.packed.load(), 4) << "launch " << round;
    EXPECT_EQ(use.reused.load(), 12) << "launch " << round;
  }
}

// Each thread has its own cache: with static chunks of 8 programs, a thread
// packs each panel of its chunk once; threads never see each other's pieces.
TEST_F(OperandCache, ThreadsKeepTheirOwn) {
  PanelUse use;
  use.programsPerPanel = 8;
  ASSERT_EQ(launch(use, 64, 4, 8), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(use.packed.load(), 8);
  EXPECT_EQ(use.reused.load(), 56);
  EXPECT_EQ(use.wrong.load(), 0);
}

// A full cache starts again from the front, but never over a piece the
// running program holds: that request gets nothing, and the program packs
// into its own scratch.
TEST_F(OperandCache, AFullCacheNeverTakesBackWhatTheProgramHolds) {
  setOperandCacheBytesForTesting(64 * kKiB);
  PanelUse use;
  use.bytes = 24 * kKiB;
  use.panelsPerProgram = 3; // 72 KiB: the third never fits beside the first two
  use.programsPerPanel = 1;
  ASSERT_EQ(launch(use, 6, 1), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(use.wrong.load(), 0);
  // Program p asks for panels p, p+1, p+2. An even one finds the cache full
  // of pieces earlier programs hold, so it starts again: it packs two and
  // gets none for the third. An odd one finds its first panel packed, and
  // the cache full with that piece held: none for the other two.
  EXPECT_EQ(use.packed.load(), 6);
  EXPECT_EQ(use.reused.load(), 3);
  EXPECT_EQ(use.uncached.load(), 9);
}

TEST_F(OperandCache, LargerThanTheCacheIsNotCached) {
  setOperandCacheBytesForTesting(16 * kKiB);
  PanelUse use;
  use.bytes = 32 * kKiB;
  ASSERT_EQ(launch(use, 4, 1), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(use.uncached.load(), 4);
  EXPECT_EQ(use.packed.load() + use.reused.load(), 0);
}

TEST_F(OperandCache, OffMeansNoCache) {
  setOperandCacheBytesForTesting(0);
  PanelUse use;
  use.programsPerPanel = 8;
  ASSERT_EQ(launch(use, 16, 1), BLOCKC_SUCCESS) << blockc_last_error();
  EXPECT_EQ(use.uncached.load(), 16);
}

// The memory is allocated once per thread, not per launch.
TEST_F(OperandCache, LaunchesReuseTheMemory) {
  PanelUse warm;
  ASSERT_EQ(launch(warm, 8, 1), BLOCKC_SUCCESS) << blockc_last_error();
  uint64_t allocations = operandCacheAllocations();
  for (int round = 0; round < 5; ++round) {
    PanelUse use;
    ASSERT_EQ(launch(use, 8, 1), BLOCKC_SUCCESS) << blockc_last_error();
  }
  EXPECT_EQ(operandCacheAllocations(), allocations);
}

TEST(OperandCacheEnvironment, ParsesBytesWithSuffixes) {
  struct Case {
    const char *text;
    uint64_t bytes;
  } accepted[] = {{"0", 0},
                  {"off", 0},
                  {" OFF ", 0},
                  {"4096", 4096},
                  {"64K", 64 * kKiB},
                  {"8m", 8 * 1024 * kKiB},
                  {"2G", uint64_t(2) << 30},
                  {"1024G", uint64_t(1) << 40}};
  for (const Case &c : accepted) {
    uint64_t bytes = 12345;
    EXPECT_TRUE(parseOperandCacheBytes(c.text, bytes)) << c.text;
    EXPECT_EQ(bytes, c.bytes) << c.text;
  }
  for (const char *text :
       {"", "K", "-1", "8MB", "1.5M", "1025G", "0x10", "8 M", "offf", "99999999999999999999"}) {
    uint64_t bytes = 12345;
    EXPECT_FALSE(parseOperandCacheBytes(text, bytes)) << text;
    EXPECT_EQ(bytes, 12345u) << text;
  }
}

} // namespace
