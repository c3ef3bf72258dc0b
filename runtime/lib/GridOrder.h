//===- GridOrder.h - Flat loop index to program id, per grid order -*- C++ -*-===//
//
// The launcher runs one flat OpenMP loop; each decoder maps a flat index to the
// program id it stands for. Each is a bijection from [0, x*y*z) onto the grid.
// They are separate types so that the loop is instantiated once per order and
// the choice of order is not re-made for every program. `Index` is uint32_t
// whenever the whole grid fits in it: 32-bit division is several times faster
// than 64-bit, and decoding is most of what the launcher costs per program.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>

namespace blockc::runtime {

struct ProgramId {
  int32_t x, y, z;
};

template <typename Index> struct XFastestOrder {
  Index gridX, gridY;

  ProgramId operator()(int64_t flatIndex) const {
    Index flat = Index(flatIndex);
    Index x = flat % gridX;
    Index rest = flat / gridX;
    return {int32_t(x), int32_t(rest % gridY), int32_t(rest / gridY)};
  }
};

template <typename Index> struct ZFastestOrder {
  Index gridY, gridZ;

  ProgramId operator()(int64_t flatIndex) const {
    Index flat = Index(flatIndex);
    Index z = flat % gridZ;
    Index rest = flat / gridZ;
    return {int32_t(rest / gridY), int32_t(rest % gridY), int32_t(z)};
  }
};

/// Triton's GROUP_M swizzle with y as the tile row (pid_m) and x as the tile
/// column (pid_n), applied to each z plane:
///   group      = pid / (GROUP_M * num_pid_n)
///   first_m    = group * GROUP_M
///   rows       = min(num_pid_m - first_m, GROUP_M)   // the last group may be short
///   pid_m      = first_m + (pid % (GROUP_M * num_pid_n)) % rows
///   pid_n      = (pid % (GROUP_M * num_pid_n)) / rows
/// The short last group keeps it a bijection when y is not a multiple of GROUP_M.
/// `groupRows` must be at most gridY (a larger group is the same single group),
/// so that every product here stays within the grid's size.
template <typename Index> struct GroupedOrder {
  Index gridX, gridY, groupRows;

  ProgramId operator()(int64_t flatIndex) const {
    Index flat = Index(flatIndex);
    Index plane = gridX * gridY;
    Index z = flat / plane;
    Index inPlane = flat % plane;
    Index programsPerGroup = groupRows * gridX;
    Index firstRow = inPlane / programsPerGroup * groupRows;
    Index rows = std::min<Index>(gridY - firstRow, groupRows);
    Index inGroup = inPlane % programsPerGroup;
    return {int32_t(inGroup / rows), int32_t(firstRow + inGroup % rows), int32_t(z)};
  }
};

} // namespace blockc::runtime
