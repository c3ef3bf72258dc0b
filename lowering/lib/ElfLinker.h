//===- ElfLinker.h - ld.lld, in process or as a program ---------*- C++ -*-===//
#ifndef BLOCKC_LOWERING_ELFLINKER_H
#define BLOCKC_LOWERING_ELFLINKER_H

#include <string>
#include <vector>

namespace blockc {

/// Runs ld.lld with `arguments` (without the program name). Where blockc was
/// built with liblld the link runs in this process, which saves starting a
/// second program that loads all of libLLVM again: that start costs more than
/// linking one kernel object. Otherwise, or after an in-process link that lld
/// says leaves it unable to run again, it runs the `ld.lld-22` or `ld.lld`
/// program. On failure returns false with what lld printed in `error`.
bool runElfLinker(const std::vector<std::string> &arguments, std::string &error);

/// Whether runElfLinker links in this process.
bool elfLinkerRunsInProcess();

} // namespace blockc

#endif // BLOCKC_LOWERING_ELFLINKER_H
