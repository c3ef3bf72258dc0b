//===- LaunchFlags.h - Grid and launcher flags of `blockc run` --*- C++ -*-===//
//
// The flags map one to one onto blockc_launch_options and its BLOCKC_*
// variables (docs/launcher.md): the variables set the starting point and the
// flags override them. The runtime checks the ranges, so that a value means
// the same here as in the API and the environment.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/runtime.h"

#include <optional>
#include <string>
#include <string_view>

namespace blockc::driver {

/// Parses `X[,Y[,Z]]`, each 0 to INT32_MAX as the launcher requires; missing
/// dimensions are 1.
std::optional<blockc_grid> parseGrid(std::string_view text, std::string &error);

/// The launcher flags as given; unset when not on the command line.
struct LaunchFlags {
  std::optional<std::string> threads, order, groupSize, schedule, chunk, affinity;
};

/// Applies `flags` over `options` (which hold the defaults and the BLOCKC_*
/// variables), then checks the result with blockc_launch_options_check. On an
/// error `options` is unchanged; syntax errors name the flag, range errors are
/// the runtime's followed by the flag or variable that set the field.
bool applyLaunchFlags(const LaunchFlags &flags, blockc_launch_options &options, std::string &error);

} // namespace blockc::driver
