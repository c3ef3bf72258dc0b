//===- CoreRequirements.h - Where a kernel's programs may run ---*- C++ -*-===//
//
// A kernel compiled to use a unit that only some cores have (the K1's IME)
// must run on those cores only: elsewhere its first matrix instruction is an
// illegal instruction. The launcher settles the cores before any program
// runs, by choosing them when the options list none and by refusing options
// that list others.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "blockc/runtime.h"

#include <cstdint>

namespace blockc::runtime {

/// Sets `effective` to the options a launch of kernel `name` (null if
/// unknown) with `requirements` (BLOCKC_REQUIRES_* bits) runs with: `options`
/// itself when it needs no change, else `placed`, a copy of `options` with
/// the required cores as its affinity. Returns 0, or an error status (with
/// its message) when no allowed core meets the requirements. Allocates
/// nothing; only the first call in a process reads /proc and sysfs.
int placeByRequirements(const char *name, uint64_t requirements,
                        const blockc_launch_options &options, blockc_launch_options &placed,
                        const blockc_launch_options *&effective);

} // namespace blockc::runtime
