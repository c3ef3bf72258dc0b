//===- KernelCache.cpp ----------------------------------------------------===//
#include "KernelCache.h"

#include "blockc/frontend/Files.h"

#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace blockc {

KernelCache::KernelCache() {
  const char *env = std::getenv("BLOCKC_CACHE_DIR");
  if (env && std::string(env) == "off")
    return;
  if (env && *env) {
    dir_ = env;
  } else if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir_ = std::string(xdg) + "/blockc";
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    dir_ = std::string(home) + "/.cache/blockc";
  }
}

namespace {

// The trailer after the object: magic, the object's size (little-endian), its
// SHA-256. At the end, so the object bytes are the file's prefix as written.
constexpr std::string_view kTrailerMagic{"blkcache", 8};
constexpr size_t kTrailerBytes = kTrailerMagic.size() + 8 + 32;
// No kernel object comes near this; a larger entry is not one blockc wrote.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;

std::string sha256(std::string_view bytes) {
  llvm::SHA256 hash;
  hash.update(llvm::StringRef(bytes.data(), bytes.size()));
  auto digest = hash.final();
  return std::string(digest.begin(), digest.end());
}

std::string trailerFor(std::string_view object) {
  std::string trailer(kTrailerMagic);
  for (int byte = 0; byte < 8; ++byte)
    trailer += char((uint64_t(object.size()) >> (8 * byte)) & 0xff);
  return trailer + sha256(object);
}

/// Why `entry` is not a whole entry as store() writes it; empty if it is.
std::string whyDamaged(std::string_view entry) {
  if (entry.size() < kTrailerBytes)
    return "it is too short to hold its checksum (" + std::to_string(entry.size()) + " bytes)";
  std::string_view object = entry.substr(0, entry.size() - kTrailerBytes);
  if (entry.substr(object.size()) != trailerFor(object))
    return "its size or checksum does not match its contents";
  return {};
}

} // namespace

std::optional<std::string> KernelCache::load(const std::string &key) const {
  if (!enabled())
    return std::nullopt;
  std::string path = entryPath(key);
  if (!std::filesystem::exists(path))
    return std::nullopt;
  std::string entry, error;
  if (!readInputFile(path, kMaxEntryBytes, entry, error)) {
    discard(key, "it cannot be read (" + error + ")");
    return std::nullopt;
  }
  if (std::string why = whyDamaged(entry); !why.empty()) {
    discard(key, why);
    return std::nullopt;
  }
  entry.resize(entry.size() - kTrailerBytes);
  return entry;
}

void KernelCache::store(const std::string &key, const std::string &object) const {
  if (!enabled())
    return;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  std::string error;
  // writeOutputFile renames only a file whose every write and close
  // succeeded: a full disk leaves no entry rather than an empty one.
  writeOutputFile(entryPath(key), {object, trailerFor(object)}, error);
}

void KernelCache::discard(const std::string &key, const std::string &why) const {
  std::string path = entryPath(key);
  std::fprintf(stderr,
               "blockc: warning: kernel cache entry '%s' is damaged: %s; deleting it and "
               "recompiling\n",
               path.c_str(), why.c_str());
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

} // namespace blockc
