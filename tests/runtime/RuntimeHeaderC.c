/*===- RuntimeHeaderC.c - blockc/runtime.h is a C header -----------------===//
//
// Compiled as C so that a C++-only construct in the public header breaks the
// build instead of a user's C application.
//
//===----------------------------------------------------------------------===*/
#include "blockc/runtime.h"

static void incrementElement(void **args, int32_t pid_x, int32_t pid_y, int32_t pid_z,
                             int32_t grid_x, int32_t grid_y, int32_t grid_z) {
  int32_t *data = *(int32_t **)args[0];
  (void)pid_y, (void)pid_z, (void)grid_x, (void)grid_y, (void)grid_z;
  data[pid_x] += 1;
}

int blockcRuntimeHeaderRunFromC(int32_t *data, int32_t count) {
  blockc_launch_options options;
  blockc_launch_options_init(&options);
  options.num_threads = 2;
  options.schedule = BLOCKC_SCHEDULE_GUIDED;
  void *args[1];
  args[0] = &data;
  blockc_grid grid = {count, 1, 1};
  return blockc_launch(incrementElement, args, grid, &options);
}

/* The kernel info, as generated headers fill it, is C too. */
int blockcRuntimeHeaderRunKernelFromC(int32_t *data, int32_t count) {
  void *args[1];
  blockc_grid grid = {count, 1, 1};
  blockc_kernel_info info = BLOCKC_KERNEL_INFO("increment_element", 1024, 0);
  args[0] = &data;
  return blockc_launch_kernel(incrementElement, args, grid, 0, &info);
}
