//===- Npy.cpp - The .npy format ------------------------------------------===//
//
// The format is NumPy's NEP 1: the magic "\x93NUMPY", a major and a minor
// version byte, the header length (uint16 in 1.0, uint32 in 2.0 and 3.0), and
// the header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with blanks and a newline so that the data starts 64-byte aligned.
//
//===----------------------------------------------------------------------===//
#include "Npy.h"

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/Files.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace blockc::driver {

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
/// NumPy aligns the data to this many bytes from the start of the file.
constexpr size_t kHeaderAlign = 64;
/// NumPy leaves room after the dict for the first dimension to grow to this
/// many digits, so that appending rewrites the header in place. blockc writes
/// the same bytes as np.save.
constexpr size_t kGrowthAxisDigits = 21;

struct NpyType {
  std::string_view descr;
  ScalarKind kind;
};
/// Every dtype blockc reads. The first entry of a kind is the one it writes;
/// bf16 and the 8-bit floats, which NumPy lacks, travel as their bit patterns
/// (uint16 and uint8).
constexpr NpyType kNpyTypes[] = {
    {"|b1", ScalarKind::I1},  {"|i1", ScalarKind::I8},     {"|u1", ScalarKind::I8},
    {"<i2", ScalarKind::I16}, {"<u2", ScalarKind::I16},    {"<i4", ScalarKind::I32},
    {"<u4", ScalarKind::I32}, {"<i8", ScalarKind::I64},    {"<u8", ScalarKind::I64},
    {"<f2", ScalarKind::F16}, {"<u2", ScalarKind::BF16},   {"<f4", ScalarKind::F32},
    {"<f8", ScalarKind::F64}, {"|u1", ScalarKind::F8E4M3}, {"|u1", ScalarKind::F8E5M2},
};
constexpr std::string_view kSupportedDescrs =
    "<f2 <f4 <f8 |b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 (bf16 as <u2, f8e4m3 and f8e5m2 as |u1)";

uint64_t readLittleEndian(std::string_view bytes, size_t offset, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i)
    value |= uint64_t(uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

void appendLittleEndian(std::string &out, uint64_t value, size_t size) {
  for (size_t i = 0; i < size; ++i)
    out += char((value >> (8 * i)) & 0xff);
}

std::string pythonTuple(const Shape &shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string describeArray(const NpyHeader &h) {
  return "shape " + pythonTuple(h.shape) + " of " + escapeForMessage(h.descr);
}

/// Reads the header dict. Python's literal syntax is reduced to what NumPy
/// writes: quoted strings, True/False and tuples of integers.
class HeaderDictParser {
public:
  explicit HeaderDictParser(std::string_view text) : text_(text) {}

  bool parse(std::string &descr, bool &fortranOrder, Shape &shape, std::string &error) {
    error_ = &error;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!consume('{'))
      return fail("'{' to open the header dict");
    while (!consume('}')) {
      std::string key;
      if (!parseString(key))
        return fail("a quoted key or '}'");
      if (!consume(':'))
        return fail("':' after '" + escapeForMessage(key) + "'");
      bool *seen = key == "descr"           ? &seenDescr
                   : key == "fortran_order" ? &seenOrder
                   : key == "shape"         ? &seenShape
                                            : nullptr;
      if (!seen) {
        error = "malformed header: unknown key '" + escapeForMessage(key) +
                "' (expected 'descr', 'fortran_order' and 'shape')";
        return false;
      }
      if (*seen) {
        error = "malformed header: the key '" + escapeForMessage(key) + "' appears twice";
        return false;
      }
      *seen = true;
      if (key == "descr" && !parseDescr(descr))
        return false;
      if (key == "fortran_order" && !parseBool(fortranOrder))
        return fail("True or False after 'fortran_order'");
      if (key == "shape" && !parseTuple(shape))
        return fail("a tuple of whole numbers after 'shape'");
      if (!consume(',') && !peekIs('}'))
        return fail("',' or '}' after the value of '" + escapeForMessage(key) + "'");
    }
    skipBlanks();
    if (pos_ != text_.size())
      return fail("nothing but blanks after the closing '}'");
    for (auto [seen, key] :
         {std::pair{seenDescr, "descr"}, {seenOrder, "fortran_order"}, {seenShape, "shape"}})
      if (!seen) {
        error = std::string("malformed header: the key '") + key + "' is missing";
        return false;
      }
    return true;
  }

private:
  bool fail(const std::string &expected) {
    *error_ = "malformed header: expected " + expected + " at offset " + std::to_string(pos_) +
              " of the dict";
    return false;
  }
  void skipBlanks() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool peekIs(char c) {
    skipBlanks();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool consume(char c) {
    if (!peekIs(c))
      return false;
    ++pos_;
    return true;
  }
  bool consumeWord(std::string_view word) {
    skipBlanks();
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }
  bool parseString(std::string &out) {
    skipBlanks();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return false;
    char quote = text_[pos_];
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos)
      return false;
    out = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  bool parseDescr(std::string &descr) {
    if (peekIs('[')) {
      *error_ = "structured dtypes (a list of fields) are not supported; expected one of " +
                std::string(kSupportedDescrs);
      return false;
    }
    return parseString(descr) || fail("a quoted dtype after 'descr'");
  }
  bool parseBool(bool &value) {
    if (consumeWord("True"))
      value = true;
    else if (consumeWord("False"))
      value = false;
    else
      return false;
    return true;
  }
  bool parseTuple(Shape &shape) {
    shape.clear();
    if (!consume('('))
      return false;
    while (!consume(')')) {
      skipBlanks();
      size_t begin = pos_;
      int64_t dim = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (dim > (INT64_MAX - 9) / 10)
          return false;
        dim = dim * 10 + (text_[pos_++] - '0');
      }
      if (pos_ == begin)
        return false;
      if (pos_ < text_.size() && text_[pos_] == 'L') // Python 2 wrote long ints as 3L
        ++pos_;
      shape.push_back(dim);
      if (!consume(',') && !peekIs(')'))
        return false;
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string *error_ = nullptr;
};

constexpr size_t kLongestPreamble = kMagic.size() + 2 + 4;

/// Reads magic, version and header length: the first `prefix` bytes.
bool decodePreamble(std::string_view bytes, size_t &prefix, uint64_t &headerLength,
                    std::string &error) {
  if (bytes.substr(0, kMagic.size()) != kMagic.substr(0, bytes.size())) {
    error = "not a .npy file: it does not start with \\x93NUMPY";
    return false;
  }
  if (bytes.size() < kMagic.size() + 2) {
    error = "truncated: the file ends inside the .npy preamble";
    return false;
  }
  unsigned major = uint8_t(bytes[6]), minor = uint8_t(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    error = "unsupported .npy format version " + std::to_string(major) + "." +
            std::to_string(minor) + "; expected 1.0, 2.0 or 3.0";
    return false;
  }
  size_t lengthBytes = major == 1 ? 2 : 4;
  prefix = kMagic.size() + 2 + lengthBytes;
  if (bytes.size() < prefix) {
    error = "truncated: the file ends inside the .npy preamble";
    return false;
  }
  headerLength = readLittleEndian(bytes, prefix - lengthBytes, lengthBytes);
  return true;
}

/// True when C and Fortran order give the same bytes: at most one dimension
/// is longer than 1.
bool orderIsIrrelevant(const Shape &shape) {
  int longDims = 0;
  for (int64_t d : shape)
    longDims += d > 1;
  return longDims <= 1;
}

} // namespace

std::string_view npyDescr(ScalarKind kind) {
  for (const NpyType &t : kNpyTypes)
    if (t.kind == kind)
      return t.descr;
  return "";
}

std::optional<ScalarKind> npyDescrKind(std::string_view descr, std::string &error) {
  // Byte order means nothing for one-byte types: NumPy writes '|', other
  // writers may write '<' or '>'.
  std::string normalized(descr);
  if (descr.size() == 3 && descr[2] == '1' && (descr[0] == '<' || descr[0] == '>'))
    normalized[0] = '|';
  for (const NpyType &t : kNpyTypes)
    if (t.descr == normalized)
      return t.kind;
  if (!descr.empty() && descr[0] == '>') {
    error = "dtype '" + escapeForMessage(descr) +
            "' is big-endian; only little-endian data is supported (save a.astype('<" +
            escapeForMessage(descr.substr(1)) + "'))";
    return std::nullopt;
  }
  error = "dtype '" + escapeForMessage(descr) + "' is not supported; expected one of " +
          std::string(kSupportedDescrs);
  return std::nullopt;
}

std::string encodeNpyHeader(std::string_view descr, const Shape &shape) {
  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': False, 'shape': " + pythonTuple(shape) + ", }";
  if (!shape.empty()) {
    size_t digits = std::to_string(shape[0]).size();
    dict.append(digits < kGrowthAxisDigits ? kGrowthAxisDigits - digits : 0, ' ');
  }
  // Version 1.0 stores the header length in 16 bits; 2.0 in 32.
  for (size_t lengthBytes : {2, 4}) {
    size_t prefix = kMagic.size() + 2 + lengthBytes;
    size_t used = dict.size() + 1; // the closing newline
    size_t padding = kHeaderAlign - (prefix + used) % kHeaderAlign;
    size_t headerLength = used + padding;
    if (lengthBytes == 2 && headerLength > 0xffff)
      continue;
    std::string out(kMagic);
    out += char(lengthBytes == 2 ? 1 : 2);
    out += char(0);
    appendLittleEndian(out, headerLength, lengthBytes);
    out += dict;
    out.append(padding, ' ');
    out += '\n';
    return out;
  }
  return {};
}

std::optional<NpyHeader> decodeNpyHeader(std::string_view bytes, std::string &error) {
  size_t prefix;
  uint64_t headerLength;
  if (!decodePreamble(bytes, prefix, headerLength, error))
    return std::nullopt;
  if (bytes.size() - prefix < headerLength) {
    error = "truncated: the header is " + std::to_string(headerLength) +
            " bytes but the file ends after " + std::to_string(bytes.size() - prefix);
    return std::nullopt;
  }

  NpyHeader header;
  bool fortranOrder = false;
  if (!HeaderDictParser(bytes.substr(prefix, headerLength))
           .parse(header.descr, fortranOrder, header.shape, error))
    return std::nullopt;
  std::optional<ScalarKind> kind = npyDescrKind(header.descr, error);
  if (!kind)
    return std::nullopt;
  header.kind = *kind;
  if (fortranOrder && !orderIsIrrelevant(header.shape)) {
    error = "fortran_order is True: only C-order arrays are supported (save "
            "np.ascontiguousarray(a))";
    return std::nullopt;
  }
  std::optional<uint64_t> dataBytes = byteSize(header.shape, elementBytes(header.kind));
  if (!dataBytes) {
    error = "the " + describeArray(header) + " is too large (more than 2^62 bytes)";
    return std::nullopt;
  }
  header.dataOffset = prefix + headerLength;
  header.dataBytes = *dataBytes;
  return header;
}

bool NpyReader::open(const std::string &path, std::string &error) {
  path_ = path;
  std::string where = "'" + path + "': ";
  // Reading seeks, so a pipe cannot be read; the size a header describes
  // bounds what is read, so there is no limit but memory.
  if (!checkInputFile(path, UINT64_MAX, error, /*pipesAllowed=*/false))
    return false;
  in_.open(path, std::ios::binary);
  if (!in_) {
    error = where + "cannot open: " + std::strerror(errno);
    return false;
  }
  // The preamble gives the header length; then read exactly the header.
  std::string bytes(kLongestPreamble, '\0');
  in_.read(bytes.data(), std::streamsize(bytes.size()));
  bytes.resize(size_t(in_.gcount()));
  size_t prefix;
  uint64_t headerLength;
  if (!decodePreamble(bytes, prefix, headerLength, error)) {
    error = where + error;
    return false;
  }
  // A corrupt length must not make us allocate gigabytes: the header can be
  // no longer than what the file holds.
  in_.clear();
  in_.seekg(0, std::ios::end);
  uint64_t fileSize = uint64_t(in_.tellg());
  uint64_t headerEnd = std::min<uint64_t>(prefix + headerLength, fileSize);
  bytes.resize(size_t(headerEnd));
  in_.seekg(0);
  in_.read(bytes.data(), std::streamsize(bytes.size()));
  bytes.resize(size_t(in_.gcount()));
  std::optional<NpyHeader> header = decodeNpyHeader(bytes, error);
  if (!header) {
    error = where + error;
    return false;
  }
  header_ = *header;

  uint64_t available = fileSize > header_.dataOffset ? fileSize - header_.dataOffset : 0;
  if (available < header_.dataBytes) {
    error = where + "truncated: the header describes a " + describeArray(header_) + ", " +
            std::to_string(header_.dataBytes) + " bytes of data, but the file has " +
            std::to_string(available);
    return false;
  }
  in_.seekg(std::streamoff(header_.dataOffset));
  return true;
}

bool NpyReader::readData(void *data, std::string &error) {
  in_.read(static_cast<char *>(data), std::streamsize(header_.dataBytes));
  if (uint64_t(in_.gcount()) != header_.dataBytes) {
    error = "'" + path_ + "': read failed after " + std::to_string(in_.gcount()) + " of " +
            std::to_string(header_.dataBytes) + " bytes of data";
    return false;
  }
  return true;
}

bool writeNpy(const std::string &path, std::string_view descr, const Shape &shape, const void *data,
              std::string &error) {
  std::string kindError;
  std::optional<ScalarKind> kind = npyDescrKind(descr, kindError);
  std::optional<uint64_t> bytes = kind ? byteSize(shape, elementBytes(*kind)) : std::nullopt;
  if (!bytes) {
    error =
        "'" + path + "': cannot write a " + pythonTuple(shape) + " array of " + std::string(descr);
    return false;
  }
  std::string header = encodeNpyHeader(descr, shape);
  std::string_view payload(static_cast<const char *>(data), size_t(*bytes));
  return writeOutputFile(path, {header, payload}, error);
}

} // namespace blockc::driver
