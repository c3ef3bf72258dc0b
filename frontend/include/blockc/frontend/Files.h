//===- Files.h - Reading inputs and writing outputs whole -------*- C++ -*-===//
//
// Every file blockc reads or writes goes through here, so that every command
// treats hostile paths alike (docs/reference.md, "Files"):
//  - an input is a regular file or a pipe ("-" is standard input) no larger
//    than a stated limit; a directory, a device or an oversized file is an
//    error naming the path, never an endless read;
//  - an output that is a regular file (or does not exist yet) is written to a
//    temporary file in its folder and renamed into place, so a failed write
//    leaves the previous file intact; a symbolic link is followed and the file
//    it names is replaced, the link kept; a device, FIFO or socket is written
//    through, never replaced by a regular file; "-" is standard output. Every
//    write and the close are checked.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace blockc {

/// The largest .bir source blockc reads (documented in docs/reference.md).
inline constexpr uint64_t kMaxSourceFileBytes = uint64_t(256) << 20;

/// Reads `path` ("-": standard input) into `contents`. Fails with a message
/// naming the path when it is not a regular file or a pipe, cannot be read,
/// or holds more than `maxBytes`.
bool readInputFile(const std::string &path, uint64_t maxBytes, std::string &contents,
                   std::string &error);

/// Checks that `path` could be an input (see readInputFile) without reading
/// it; for readers that stream a file themselves. A reader that seeks sets
/// `pipesAllowed` to false.
bool checkInputFile(const std::string &path, uint64_t maxBytes, std::string &error,
                    bool pipesAllowed = true);

/// Writes the concatenation of `pieces` to `path` ("-": standard output) as
/// the file comment describes. On failure nothing at `path` has changed
/// (except a device or FIFO written through) and `error` names the path.
bool writeOutputFile(const std::string &path, const std::vector<std::string_view> &pieces,
                     std::string &error);

inline bool writeOutputFile(const std::string &path, std::string_view data, std::string &error) {
  return writeOutputFile(path, std::vector<std::string_view>{data}, error);
}

} // namespace blockc
