//===- Diagnostics.h - Source locations and error reporting ----*- C++ -*-===//
//
// Every error blockc reports about its input names file:line:col, quotes the
// source line and puts a caret under the offending column. The frontend stops
// at the first error: one precise diagnostic beats a cascade of follow-ups.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockc {

/// A position in a source buffer; line and column are 1-based. A default
/// location (line 0) means "no source", e.g. IR made by the C++ Builder.
struct SourceLoc {
  unsigned line = 0;
  unsigned col = 0;
  bool isValid() const { return line != 0; }
};

/// A named source text. Owned by the caller and kept alive while diagnostics
/// that point into it are rendered.
struct SourceFile {
  std::string name;
  std::string text;

  /// The text of line `line` (1-based) without its newline; empty if out of range.
  std::string_view lineText(unsigned line) const;
};

struct Diagnostic {
  SourceLoc loc;
  std::string message;
};

/// Renders `d` as
///   file:line:col: error: message
///     <source line>
///           ^
/// The source excerpt is omitted when `file` is null or the location is invalid.
std::string formatDiagnostic(const Diagnostic &d, const SourceFile *file);

/// `text` as an error message may quote it: control and non-ASCII bytes
/// become \xNN (a NUL or an escape sequence in a hostile file must not reach
/// the terminal raw), and text beyond `maxBytes` becomes "...".
std::string escapeForMessage(std::string_view text, size_t maxBytes = 200);

/// Collects at most one error (the first). Components take a reference to it and
/// check `hasError()` to stop early.
class DiagnosticEngine {
public:
  void error(SourceLoc loc, std::string message);
  bool hasError() const { return first_.has_value(); }
  const Diagnostic &diagnostic() const { return *first_; }
  void clear() { first_.reset(); }

private:
  std::optional<Diagnostic> first_;
};

} // namespace blockc
