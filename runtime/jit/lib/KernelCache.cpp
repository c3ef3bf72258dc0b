//===- KernelCache.cpp ----------------------------------------------------===//
#include "KernelCache.h"

#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

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

std::string KernelCache::key(const SourceFile &source, const CompileOptions &options,
                             const std::string &targetFeatures) {
  llvm::SHA256 hash;
  auto add = [&](const std::string &s) {
    hash.update(s);
    hash.update(llvm::StringRef("\0", 1));
  };
  // The compiler that generates the code, not the process that embeds it: an
  // application linked with a newer blockc must never load older code.
  add(compilerBuildId());
  add(source.text);
  for (const auto &[name, value] : options.defines)
    add(name + "=" + value);
  add(options.target);
  add(targetFeatures);
  add(options.fastMath ? "fast" : "precise");
  add(options.checkBounds ? "bounds-checked" : "unchecked");
  add(options.canonicalizePointers ? "canonical-pointers" : "carried-pointer-tiles");
  add("dot strategy " + options.dotStrategy);
  add("streaming stores " + std::to_string(int(options.streamingStores)));
  for (const std::string &kernel : options.kernels)
    add("kernel " + kernel);
  std::string out;
  for (uint8_t byte : hash.final())
    out += "0123456789abcdef"[byte >> 4], out += "0123456789abcdef"[byte & 15];
  return out;
}

std::optional<std::string> KernelCache::load(const std::string &key) const {
  if (!enabled())
    return std::nullopt;
  std::ifstream in(dir_ + "/" + key + ".o", std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream data;
  data << in.rdbuf();
  return data.str();
}

void KernelCache::store(const std::string &key, const std::string &object) const {
  if (!enabled())
    return;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  std::random_device random;
  std::string tmp = dir_ + "/." + key + "." + std::to_string(random()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << object;
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  // rename() replaces atomically: concurrent writers of one key write the
  // same bytes, and the last rename wins.
  std::filesystem::rename(tmp, dir_ + "/" + key + ".o", ec);
  if (ec)
    std::filesystem::remove(tmp, ec);
}

} // namespace blockc
