//===- ScopedEnvironment.h - An environment variable set for one scope ----===//
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace blockc {

/// Sets `name` to `value` until the end of the scope, then restores what the
/// process had (set or not), so that one test's setting never leaks into the
/// next.
class ScopedEnvironment {
public:
  ScopedEnvironment(std::string name, const std::string &value) : name_(std::move(name)) {
    if (const char *old = std::getenv(name_.c_str()))
      previous_ = old;
    setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (previous_)
      setenv(name_.c_str(), previous_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
  std::string name_;
  std::optional<std::string> previous_;
};

} // namespace blockc
