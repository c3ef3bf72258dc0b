//===- Diagnostics.cpp ----------------------------------------------------===//
#include "blockc/frontend/Diagnostics.h"

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
  out += "  ";
  // Non-printable bytes would garble the terminal and misalign the caret.
  for (char c : line)
    out += (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) || c == '\t' ? c : '?';
  out += "\n  ";
  // Tabs stay tabs so the caret lines up however the terminal expands them.
  for (unsigned i = 1; i < d.loc.col; ++i)
    out += (i - 1 < line.size() && line[i - 1] == '\t') ? '\t' : ' ';
  out += "^\n";
  return out;
}

void DiagnosticEngine::error(SourceLoc loc, std::string message) {
  if (!first_)
    first_ = Diagnostic{loc, std::move(message)};
}

} // namespace blockc
