//===- Diagnostics.cpp ----------------------------------------------------===//
#include "blockc/frontend/Diagnostics.h"

#include <algorithm>
#include <cstring>

namespace blockc {

std::string_view SourceFile::lineText(unsigned line) const {
  if (line == 0)
    return {};
  size_t begin = 0;
  for (unsigned l = 1; l < line; ++l) {
    size_t nl = text.find('\n', begin);
    if (nl == std::string::npos)
      return {};
    begin = nl + 1;
  }
  size_t end = text.find('\n', begin);
  if (end == std::string::npos)
    end = text.size();
  std::string_view result(text.data() + begin, end - begin);
  if (!result.empty() && result.back() == '\r')
    result.remove_suffix(1);
  return result;
}

std::string formatDiagnostic(const Diagnostic &d, const SourceFile *file) {
  std::string out;
  if (file)
    out += file->name + ":";
  if (d.loc.isValid())
    out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ":";
  if (!out.empty())
    out += " ";
  out += "error: " + d.message + "\n";
  if (!file || !d.loc.isValid())
    return out;
  std::string_view line = file->lineText(d.loc.line);
  // A minified or generated file can hold megabytes on one line: quote a
  // window around the column, never the whole line.
  constexpr size_t kWindowBytes = 160, kBytesBeforeCaret = 80;
  size_t caret = std::min<size_t>(d.loc.col - 1, line.size());
  size_t begin = 0, end = line.size();
  if (line.size() > kWindowBytes) {
    begin = caret > kBytesBeforeCaret ? caret - kBytesBeforeCaret : 0;
    end = std::min(line.size(), begin + kWindowBytes);
    begin = end - kWindowBytes;
  }
  const char *elided = "...";
  out += "  ";
  if (begin > 0)
    out += elided;
  // Non-printable bytes would garble the terminal and misalign the caret.
  for (char c : line.substr(begin, end - begin))
    out += (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) || c == '\t' ? c : '?';
  if (end < line.size())
    out += elided;
  out += "\n  ";
  if (begin > 0)
    out += std::string(std::strlen(elided), ' ');
  // Tabs stay tabs so the caret lines up however the terminal expands them.
  for (size_t i = begin; i < caret; ++i)
    out += line[i] == '\t' ? '\t' : ' ';
  // A column past the end of the line (a missing token at its end) keeps its
  // distance from the last character.
  if (d.loc.col - 1 > line.size() && line.size() <= kWindowBytes)
    out += std::string(d.loc.col - 1 - line.size(), ' ');
  out += "^\n";
  return out;
}

std::string escapeForMessage(std::string_view text, size_t maxBytes) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < maxBytes; ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out += char(byte);
      continue;
    }
    static const char kHex[] = "0123456789abcdef";
    out +=
        byte == '\\' ? std::string("\\\\") : std::string("\\x") + kHex[byte >> 4] + kHex[byte & 15];
  }
  if (text.size() > maxBytes)
    out += "...";
  return out;
}

void DiagnosticEngine::error(SourceLoc loc, std::string message) {
  if (!first_)
    first_ = Diagnostic{loc, std::move(message)};
}

} // namespace blockc
