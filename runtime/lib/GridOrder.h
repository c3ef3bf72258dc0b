//===- GridOrder.h - Flat loop index to program id, per grid order -*- C++ -*-===//
//
// The launcher runs one flat OpenMP loop; each decoder maps a flat index to the
// program id it stands for. Each is a bijection from [0, x*y*z) onto the grid.
// They are separate types so that the loop is instantiated once per order and
// the choice of order is not re-made for every program.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>

namespace blockc::runtime {

struct ProgramId {
  int32_t x, y, z;
};

struct XFastestOrder {
  int64_t gridX, gridY;

  ProgramId operator()(int64_t flat) const {
    int64_t x = flat % gridX;
    int64_t rest = flat / gridX;
    return {int32_t(x), int32_t(rest % gridY), int32_t(rest / gridY)};
  }
};

struct ZFastestOrder {
  int64_t gridY, gridZ;

  ProgramId operator()(int64_t flat) const {
    int64_t z = flat % gridZ;
    int64_t rest = flat / gridZ;
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
struct GroupedOrder {
  int64_t gridX, gridY, groupRows;

  ProgramId operator()(int64_t flat) const {
    int64_t plane = gridX * gridY;
    int64_t z = flat / plane;
    int64_t inPlane = flat % plane;
    int64_t programsPerGroup = groupRows * gridX;
    int64_t firstRow = inPlane / programsPerGroup * groupRows;
    int64_t rows = std::min(gridY - firstRow, groupRows);
    int64_t inGroup = inPlane % programsPerGroup;
    return {int32_t(inGroup / rows), int32_t(firstRow + inGroup % rows), int32_t(z)};
  }
};

} // namespace blockc::runtime
