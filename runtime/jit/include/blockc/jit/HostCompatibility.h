//===- HostCompatibility.h - Can this machine run a target's code? -*- C++ -*-===//
//
// The JIT runs what it compiles in this process, so a target is accepted only
// when its triple's architecture is this machine's and every ISA feature it
// enables (those its CPU implies included) is one this CPU has. Otherwise the
// first instruction the CPU lacks would end the process with SIGILL.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/targetinfo/Target.h"

#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace blockc {

/// The features `target` enables that a CPU described by `hostTriple` and
/// `hostFeatures` (as llvm::sys::getHostCPUFeatures gives them: every ISA
/// feature it can detect, true or false) lacks. Features the host detection
/// does not report, such as tuning flags, are not compared.
std::vector<std::string> missingFeatures(const Target &target, const std::string &hostTriple,
                                         const llvm::StringMap<bool> &hostFeatures);

/// Whether code for `target` can run in this process; `error` says why not,
/// naming the architectures or the missing features.
bool canRunOnThisMachine(const Target &target, std::string &error);

} // namespace blockc
