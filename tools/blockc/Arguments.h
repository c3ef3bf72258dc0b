//===- Arguments.h - Command-line parsing for blockc subcommands -*- C++ -*-===//
//
// Each subcommand declares its flags in a table; the same table parses the
// command line and prints `--help`, so the two cannot disagree.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/frontend/Diagnostics.h"
#include "blockc/frontend/Parser.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockc::driver {

struct FlagSpec {
  /// `--name` or a one-letter `-X`.
  std::string_view name;
  /// Shown in help for flags that take a value; empty for switches.
  std::string_view metavar;
  std::string_view help;
  bool repeatable = false;
};

struct CommandSpec {
  std::string_view name;
  std::string_view usage;   // e.g. "FILE.bir [options]"
  std::string_view summary; // one line
  std::vector<FlagSpec> flags;
  size_t minPositional = 0, maxPositional = 0;
};

class Arguments {
public:
  /// Parses argv after the subcommand name. On failure returns nullopt and
  /// sets `error`.
  static std::optional<Arguments> parse(const CommandSpec &spec,
                                        const std::vector<std::string> &args, std::string &error);

  bool has(std::string_view flag) const { return values_.count(std::string(flag)) != 0; }
  /// The last value given for `flag`, or `fallback`.
  std::string value(std::string_view flag, std::string fallback = {}) const;
  std::vector<std::string> values(std::string_view flag) const;
  const std::vector<std::string> &positional() const { return positional_; }

  /// `-D NAME=VALUE` pairs; reports a malformed one in `error`.
  std::optional<ConstexprBindings> defines(std::string &error) const;

private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

std::string helpText(const CommandSpec &spec);

/// Parses a subcommand's arguments. Returns them when the command should go
/// on; otherwise it has printed the help (exit code 0) or the error (exit code
/// 1) and returns nullopt with `exitCode` set.
std::optional<Arguments> parseCommandLine(const CommandSpec &spec,
                                          const std::vector<std::string> &argv, int &exitCode);

/// Reads `path` ("-" is standard input) into `file`; on failure returns false
/// with a message in `error`.
bool readSource(const std::string &path, SourceFile &file, std::string &error);

} // namespace blockc::driver
