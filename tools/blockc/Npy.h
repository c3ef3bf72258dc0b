//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// `blockc run` loads inputs from .npy and writes outputs to .npy, so that a
// kernel's results are checked in Python with np.load. Files of format 1.0,
// 2.0 and 3.0 are read; 1.0 is written (2.0 if a header ever outgrew it), with
// the header padded exactly as NumPy pads it.
//
// Only C-order, little-endian arrays of blockc's element kinds are accepted:
// the data goes straight from the file into the kernel's buffer, never through
// a conversion that could hide a wrong dtype. Unsigned integers are accepted
// as the signless integer of their width. bf16 has no NumPy dtype: it is
// written as <u2 (its bit patterns), and <u2 is accepted for a bf16 argument.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Elements.h"

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace blockc::driver {

struct NpyHeader {
  /// The dtype as the file spells it: `<f4`, `|u1`.
  std::string descr;
  /// The blockc element kind with that layout.
  ScalarKind kind = ScalarKind::F32;
  Shape shape;
  /// Where the data starts, from the start of the file.
  uint64_t dataOffset = 0;
  /// Elements times element size.
  uint64_t dataBytes = 0;
};

/// The dtype blockc writes for `kind`: `<f4`, `|b1`, `|i1`; `<u2` for bf16.
std::string_view npyDescr(ScalarKind kind);

/// The element kind stored as `descr`; nullopt with the reason in `error`.
std::optional<ScalarKind> npyDescrKind(std::string_view descr, std::string &error);

/// Everything before the data: magic, version, header length and the header
/// dict, padded with blanks and a newline to a multiple of 64 bytes.
std::string encodeNpyHeader(std::string_view descr, const Shape &shape);

/// Parses the start of a .npy file; `bytes` may go on past the header. Errors
/// do not name the file: the caller knows it.
std::optional<NpyHeader> decodeNpyHeader(std::string_view bytes, std::string &error);

/// An open .npy file whose header has been read and checked against the file
/// size, so that a truncated file is reported before its buffer is allocated.
class NpyReader {
public:
  /// Error messages start with the quoted path.
  bool open(const std::string &path, std::string &error);
  const NpyHeader &header() const { return header_; }
  /// Reads header().dataBytes bytes into `data`.
  bool readData(void *data, std::string &error);

private:
  std::string path_;
  std::ifstream in_;
  NpyHeader header_;
};

/// Writes `data` (the byte size of `shape` elements of `descr`) as a .npy file.
bool writeNpy(const std::string &path, std::string_view descr, const Shape &shape, const void *data,
              std::string &error);

} // namespace blockc::driver
