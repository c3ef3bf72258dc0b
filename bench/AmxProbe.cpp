//===- AmxProbe.cpp - What one AMX tile product costs on this core --------===//
//
// Not blockc beside a baseline: the core's own rate, the yardstick for
// blockc's AMX figures (docs/performance.md, "What one AMX tile product costs
// on the Xeon"). One thread runs `tdpbf16ps` in 2 x 2 blocks of 16 x 16 C
// tiles, as blockc's AMX dot does: with its A and B tiles already loaded,
// and with four `tileloadd` per four products from working sets of 8 KiB (L1)
// to 256 KiB (L2). items_per_second is tile products per second. Without
// AMX every benchmark reports an error naming the missing unit.
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>
#include <cpuid.h>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace {

struct alignas(64) TileConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t bytesPerRow[16] = {};
  uint8_t rows[16] = {};
};

constexpr int kTileBytes = 1024;

/// Empty when this process may use AMX-BF16 tiles, else why not.
std::string amxUnavailable() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 24)) ||
      !(edx & (1u << 22)))
    return "this CPU has no AMX-TILE and AMX-BF16";
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0)
    return "Linux refused the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM)";
  return "";
}

/// Tiles 0-3 hold C, 4-5 A, 6-7 B, each 16 rows of 64 bytes; all zero.
void configureTiles() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.bytesPerRow[t] = 64;
    config.rows[t] = 16;
  }
  _tile_loadconfig(&config);
  static const std::vector<char> zero(kTileBytes, 0);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, zero.data(), 64);
  _tile_loadd(5, zero.data(), 64);
  _tile_loadd(6, zero.data(), 64);
  _tile_loadd(7, zero.data(), 64);
}

__attribute__((noinline)) void productsOnly(int64_t blocks) {
  for (int64_t i = 0; i < blocks; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
}

/// One 2 x 2 block of C over `kTiles` K tiles: A and B laid out tile by
/// tile, `stride` bytes from the first row (column) of tiles to the second.
__attribute__((noinline)) void loadsAndProducts(const char *a, const char *b, int64_t kTiles,
                                                int64_t stride) {
  for (int64_t k = 0; k < kTiles; ++k) {
    _tile_loadd(4, a + k * kTileBytes, 64);
    _tile_loadd(5, a + stride + k * kTileBytes, 64);
    _tile_loadd(6, b + k * kTileBytes, 64);
    _tile_loadd(7, b + stride + k * kTileBytes, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
}

void amxProductsOnly(benchmark::State &state) {
  if (std::string why = amxUnavailable(); !why.empty())
    return state.SkipWithError(why.c_str());
  configureTiles();
  constexpr int64_t kBlocks = 1 << 16;
  for (auto _ : state)
    productsOnly(kBlocks);
  _tile_release();
  state.SetItemsProcessed(state.iterations() * kBlocks * 4);
}

void amxLoadsAndProducts(benchmark::State &state) {
  if (std::string why = amxUnavailable(); !why.empty())
    return state.SkipWithError(why.c_str());
  configureTiles();
  // Four tiles per K step: the working set is 4 KiB a K tile.
  const int64_t kTiles = state.range(0) / 4, stride = kTiles * kTileBytes;
  std::vector<char> a(size_t(2 * stride) + 64, 1), b(size_t(2 * stride) + 64, 1);
  auto aligned = [](std::vector<char> &v) {
    return reinterpret_cast<const char *>((reinterpret_cast<uintptr_t>(v.data()) + 63) & ~63ull);
  };
  const char *aTiles = aligned(a), *bTiles = aligned(b);
  const int64_t repeats = (int64_t(1) << 16) / kTiles;
  for (auto _ : state)
    for (int64_t r = 0; r < repeats; ++r)
      loadsAndProducts(aTiles, bTiles, kTiles, stride);
  _tile_release();
  state.SetItemsProcessed(state.iterations() * repeats * kTiles * 4);
}

} // namespace

BENCHMARK(amxProductsOnly)->Name("amx_probe/products_only")->Unit(benchmark::kMicrosecond);
BENCHMARK(amxLoadsAndProducts)
    ->Name("amx_probe/loads_and_products")
    ->ArgName("working_set_kib")
    ->RangeMultiplier(2)
    ->Range(8, 256)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
