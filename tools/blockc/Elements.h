//===- Elements.h - Element values for `blockc run` -------------*- C++ -*-===//
//
// Numbers as the command line writes them, stored as the kernel reads them:
// each element in its own width (i1 as one byte 0 or 1; f16 and bf16 as their
// 16-bit patterns), little-endian as on every target blockc runs on.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Types.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blockc::driver {

/// Bytes of one element of `kind` in memory and in .npy (i1 takes a byte).
unsigned elementBytes(ScalarKind kind);

/// Elements of `shape` times `elementSize`; nullopt for a negative dimension
/// or more than 2^62 bytes.
std::optional<uint64_t> byteSize(const Shape &shape, unsigned elementSize);

/// All of `text` as a decimal integer of type `Int`; a leading '+' is
/// allowed, as in C.
template <typename Int> bool parseWhole(std::string_view text, Int &value) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-')
    text.remove_prefix(1);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

/// `text` in single quotes, as every error of `blockc run` quotes what it was given.
std::string quoted(std::string_view text);

/// True when `text` could be a scalar of some kind: a number, `inf`, `nan`,
/// `true` or `false`. Its kind is known only once it meets its parameter.
bool looksLikeNumber(std::string_view text);

/// Stores `text` as one element of `kind` at `out` (elementBytes(kind)
/// bytes). The error quotes the text and says what `kind` accepts; the caller
/// adds which argument it was.
bool encodeNumber(ScalarKind kind, std::string_view text, void *out, std::string &error);

/// Fills `count` elements of `kind` at `out` with the values of
/// `random:SEED` for the argument `name`: floats uniform in [-1, 1), integers
/// from -8 to 7, i1 0 or 1. The stream depends on the name too, so that two
/// arguments filled with plain `random` differ. The same on every platform.
void fillRandom(ScalarKind kind, std::string_view name, uint64_t seed, void *out, uint64_t count);

} // namespace blockc::driver
