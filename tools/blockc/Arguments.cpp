//===- Arguments.cpp ------------------------------------------------------===//
#include "Arguments.h"

#include "blockc/frontend/Files.h"

#include <iostream>
#include <sstream>

namespace blockc::driver {

namespace {
const FlagSpec *findFlag(const CommandSpec &spec, std::string_view name) {
  for (const FlagSpec &f : spec.flags)
    if (f.name == name)
      return &f;
  return nullptr;
}
} // namespace

std::optional<Arguments> Arguments::parse(const CommandSpec &spec,
                                          const std::vector<std::string> &args,
                                          std::string &error) {
  Arguments parsed;
  std::string prefix = "blockc " + std::string(spec.name) + ": ";
  std::string seeHelp = "; see 'blockc " + std::string(spec.name) + " --help'";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "-" || arg.empty() || arg[0] != '-') {
      parsed.positional_.push_back(arg);
      continue;
    }
    std::string name = arg, value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        hasValue = true;
      }
    } else if (arg.size() > 2) {
      // -DNAME=VALUE, -oFILE
      name = arg.substr(0, 2);
      value = arg.substr(2);
      hasValue = true;
    }
    const FlagSpec *flag = findFlag(spec, name);
    if (!flag) {
      error = prefix + "unknown option '" + name + "'" + seeHelp;
      return std::nullopt;
    }
    if (flag->metavar.empty()) {
      if (hasValue) {
        error = prefix + "option '" + name + "' takes no value";
        return std::nullopt;
      }
    } else if (!hasValue) {
      if (i + 1 == args.size()) {
        error = prefix + "option '" + name + "' needs a value (" + std::string(flag->metavar) + ")";
        return std::nullopt;
      }
      value = args[++i];
    }
    auto &slot = parsed.values_[name];
    if (!slot.empty() && !flag->repeatable) {
      error = prefix + "option '" + name + "' given more than once";
      return std::nullopt;
    }
    slot.push_back(value);
  }
  if (parsed.has("--help"))
    return parsed;
  size_t n = parsed.positional_.size();
  if (n < spec.minPositional || n > spec.maxPositional) {
    error = prefix + (n < spec.minPositional ? "missing input file" : "too many input files") +
            "; usage: blockc " + std::string(spec.name) + " " + std::string(spec.usage);
    return std::nullopt;
  }
  return parsed;
}

std::string Arguments::value(std::string_view flag, std::string fallback) const {
  auto it = values_.find(std::string(flag));
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Arguments::values(std::string_view flag) const {
  auto it = values_.find(std::string(flag));
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<ConstexprBindings> Arguments::defines(std::string &error) const {
  ConstexprBindings out;
  for (const std::string &d : values("-D")) {
    size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == d.size()) {
      error = "-D " + d + ": expected NAME=VALUE";
      return std::nullopt;
    }
    out.emplace_back(d.substr(0, eq), d.substr(eq + 1));
  }
  return out;
}

std::string helpText(const CommandSpec &spec) {
  std::ostringstream out;
  out << "usage: blockc " << spec.name << " " << spec.usage << "\n\n" << spec.summary << "\n";
  if (!spec.flags.empty())
    out << "\noptions:\n";
  for (const FlagSpec &f : spec.flags) {
    std::string left = "  " + std::string(f.name);
    if (!f.metavar.empty())
      left += " " + std::string(f.metavar);
    out << left;
    out << std::string(left.size() < 26 ? 26 - left.size() : 1, ' ') << f.help << "\n";
  }
  return out.str();
}

std::optional<Arguments> parseCommandLine(const CommandSpec &spec,
                                          const std::vector<std::string> &argv, int &exitCode) {
  std::string error;
  std::optional<Arguments> args = Arguments::parse(spec, argv, error);
  if (!args) {
    std::cerr << error << "\n";
    exitCode = 1;
    return std::nullopt;
  }
  if (args->has("--help")) {
    std::cout << helpText(spec);
    exitCode = 0;
    return std::nullopt;
  }
  return args;
}

bool readSource(const std::string &path, SourceFile &file, std::string &error) {
  file.name = path == "-" ? "<stdin>" : path;
  return readInputFile(path, kMaxSourceFileBytes, file.text, error);
}

} // namespace blockc::driver
