//===- FileFuzzTest.cpp - Damaged objects and cache entries ---------------===//
//
// Seeded mutations (one byte changed, or the file cut short) of what blockc
// reads besides .bir text: the objects, libraries and archives that `blockc
// inspect` reads, and the kernel cache's entries, which `blockc run` loads
// and executes. Each mutation must give exit 0 with a correct result or exit 1
// with a message naming the file; never a signal, a hang or a wrong answer.
//
//===----------------------------------------------------------------------===//
#include "RunProcess.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>

using namespace blockc::test;
namespace fs = std::filesystem;

namespace {

std::string quote(const fs::path &path) {
  return "'" + path.string() + "'";
}

/// `original` with one byte replaced, or cut short, as `seed` picks.
std::string mutate(const std::string &original, std::mt19937 &random, std::string &what) {
  std::string bytes = original;
  if (random() % 4 == 0) {
    size_t length = random() % bytes.size();
    bytes.resize(length);
    what = "truncated to " + std::to_string(length) + " bytes";
  } else {
    size_t offset = random() % bytes.size();
    char value = char(random() & 0xff);
    if (value == bytes[offset])
      value = char(~value);
    bytes[offset] = value;
    what = "byte " + std::to_string(offset) + " set to " + std::to_string(uint8_t(value));
  }
  return bytes;
}

/// `original` (an ELF64 file) with one field of one section header changed:
/// where LLVM's reader trusted the file once (sh_link, sh_size) and aborted.
std::vector<std::pair<std::string, std::string>> sectionHeaderMutations(const std::string &elf) {
  std::vector<std::pair<std::string, std::string>> out;
  auto read = [&](size_t offset, size_t bytes) {
    uint64_t value = 0;
    for (size_t i = 0; i < bytes && offset + i < elf.size(); ++i)
      value |= uint64_t(uint8_t(elf[offset + i])) << (8 * i);
    return value;
  };
  uint64_t tableOffset = read(0x28, 8), entrySize = read(0x3a, 2), count = read(0x3c, 2);
  struct Field {
    const char *name;
    size_t offset, bytes;
  };
  const Field fields[] = {{"sh_offset", 24, 8},
                          {"sh_size", 32, 8},
                          {"sh_link", 40, 4},
                          {"sh_info", 44, 4},
                          {"sh_entsize", 56, 8}};
  for (uint64_t section = 0; section < count; ++section)
    for (const Field &field : fields)
      for (uint8_t value : {uint8_t(0x7f), uint8_t(0xff)}) {
        size_t at = tableOffset + section * entrySize + field.offset + field.bytes / 2;
        if (at >= elf.size())
          continue;
        std::string bytes = elf;
        bytes[at] = char(value);
        out.emplace_back(std::string(field.name) + " of section " + std::to_string(section) +
                             " byte set to " + std::to_string(value),
                         bytes);
      }
  return out;
}

/// The float32 elements of a .npy file blockc wrote (version 1.0).
std::vector<float> readNpyFloats(const fs::path &path) {
  std::string bytes = slurp(path.string());
  if (bytes.size() < 10)
    return {};
  size_t dataOffset = 10 + uint8_t(bytes[8]) + 256 * uint8_t(bytes[9]);
  std::vector<float> values((bytes.size() - dataOffset) / sizeof(float));
  std::memcpy(values.data(), bytes.data() + dataOffset, values.size() * sizeof(float));
  return values;
}

void expectExitZeroOrNamedError(const ProcessResult &r, const fs::path &file,
                                const std::string &what) {
  EXPECT_TRUE(r.exitCode == 0 || r.exitCode == 1)
      << file << " " << what << ": exit " << r.exitCode << "\n"
      << r.err;
  if (r.exitCode == 1)
    EXPECT_NE(r.err.find(file.string()), std::string::npos)
        << file << " " << what << ": the error does not name the file\n"
        << r.err;
}

TEST(FileFuzz, InspectOfDamagedObjectsLibrariesAndArchives) {
  fs::path dir = scratchDir("inspect_fuzz");
  const std::string softmax = BLOCKC_EXAMPLES_DIR "/softmax.bir";
  // Relocations (SLEEF calls), a dynamic symbol table, an archive's index.
  ASSERT_EQ(runBlockc("compile " + softmax + " --emit=obj -o " + quote(dir / "k.o")).exitCode, 0);
  ASSERT_EQ(runBlockc("compile " + softmax + " --emit=so -o " + quote(dir / "k.so")).exitCode, 0);
  std::vector<fs::path> originals = {dir / "k.o", dir / "k.so"};
  if (runCommand("llvm-ar-22 rcs " + quote(dir / "k.a") + " " + quote(dir / "k.o")).exitCode == 0)
    originals.push_back(dir / "k.a");
  std::mt19937 random(20261125);
  for (const fs::path &original : originals) {
    std::string bytes = slurp(original.string());
    if (original.extension() != ".a")
      for (const auto &[what, mutation] : sectionHeaderMutations(bytes)) {
        fs::path mutated = dir / ("header" + original.extension().string());
        std::ofstream(mutated, std::ios::binary) << mutation;
        ProcessResult r = runCommand("timeout 60 '" BLOCKC_BINARY "' inspect " + quote(mutated));
        expectExitZeroOrNamedError(r, mutated, original.filename().string() + " " + what);
      }
    // 50 a file: each mutation is a blockc process, half a second under
    // AddressSanitizer, where this test runs (scripts/test).
    for (int i = 0; i < 50; ++i) {
      std::string what;
      fs::path mutated = dir / ("mutated" + original.extension().string());
      std::ofstream(mutated, std::ios::binary) << mutate(bytes, random, what);
      ProcessResult r = runCommand("timeout 60 '" BLOCKC_BINARY "' inspect " + quote(mutated));
      expectExitZeroOrNamedError(r, mutated, original.filename().string() + " " + what);
    }
  }
}

TEST(FileFuzz, DamagedCacheEntriesAreNeverRun) {
  fs::path dir = scratchDir("cache_fuzz");
  fs::path cache = dir / "cache";
  const std::string run = "BLOCKC_CACHE_DIR=" + quote(cache) + " timeout 60 '" BLOCKC_BINARY +
                          "' run " BLOCKC_EXAMPLES_DIR "/vector_add.bir -D BLOCK=256 --grid 4 "
                          "--arg a=1000xf32=random --arg b=1000xf32=random --arg c=1000xf32=0 "
                          "--arg n=1000 --output a=@" +
                          (dir / "a.npy").string() + " --output b=@" + (dir / "b.npy").string() +
                          " --output c=@" + (dir / "c.npy").string();
  ASSERT_EQ(runCommand(run).exitCode, 0);
  fs::path entry;
  for (const auto &e : fs::directory_iterator(cache))
    entry = e.path();
  ASSERT_FALSE(entry.empty());
  std::string whole = slurp(entry.string());
  std::mt19937 random(1125);
  for (int i = 0; i < 100; ++i) {
    std::string what;
    std::ofstream(entry, std::ios::binary) << mutate(whole, random, what);
    fs::remove(dir / "c.npy");
    ProcessResult r = runCommand(run);
    expectExitZeroOrNamedError(r, entry, what);
    if (r.exitCode != 0)
      continue;
    // Run, so it must have computed c = a + b (an independent sum here).
    std::vector<float> a = readNpyFloats(dir / "a.npy"), b = readNpyFloats(dir / "b.npy"),
                       c = readNpyFloats(dir / "c.npy");
    ASSERT_EQ(c.size(), 1000u) << what;
    ASSERT_EQ(a.size(), c.size());
    ASSERT_EQ(b.size(), c.size());
    for (size_t k = 0; k < c.size(); ++k)
      ASSERT_EQ(c[k], a[k] + b[k]) << what << ": element " << k;
    // A mutation must be noticed: the entry is written again, whole.
    EXPECT_NE(r.err.find("is damaged"), std::string::npos) << what;
    EXPECT_EQ(slurp(entry.string()), whole) << what;
  }
}

} // namespace
