/* A C program that launches two kernels blockc compiled ahead of time (vector_add and
 * softmax, from their generated headers) and checks them against plain C loops. Exit
 * code 0 when every element matches, 1 otherwise. The launches read the BLOCKC_*
 * environment variables (threads, affinity: docs/launcher.md). */
#include "softmax.h"
#include "vector_add.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 1024 }; /* as in blockc_add_kernels(... DEFINES BLOCK=1024) */

static float random_float(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / (float)(1u << 24) * 2.0f - 1.0f; /* [-1, 1) */
}

/* |got - want| relative to max(1, |want|): the largest over n elements. */
static double max_error(const float *got, const double *want, int n) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double scale = fabs(want[i]) > 1 ? fabs(want[i]) : 1;
    double err = isnan(got[i]) ? INFINITY : fabs(got[i] - want[i]) / scale;
    if (err > worst)
      worst = err;
  }
  return worst;
}

static int check_vector_add(void) {
  const int n = 10007; /* not a multiple of BLOCK: the last program's mask is live */
  float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float)),
        *c = malloc(n * sizeof(float));
  double *want = malloc(n * sizeof(double));
  unsigned seed = 1;
  for (int i = 0; i < n; ++i) {
    a[i] = random_float(&seed);
    b[i] = random_float(&seed);
    want[i] = (double)a[i] + b[i];
  }
  blockc_grid grid = {(n + BLOCK - 1) / BLOCK, 1, 1};
  int status = vector_add_launch(a, b, c, n, grid, NULL);
  if (status != BLOCKC_SUCCESS) {
    fprintf(stderr, "vector_add: %s\n", blockc_last_error());
    return 0;
  }
  double err = max_error(c, want, n);
  printf("vector_add n=%d: max error %.2e\n", n, err);
  free(a), free(b), free(c), free(want);
  return err < 1e-6;
}

static int check_softmax(void) {
  const int rows = 7, cols = 2500; /* rows longer than one BLOCK, with a ragged tail */
  float *x = malloc(rows * cols * sizeof(float)), *y = malloc(rows * cols * sizeof(float));
  double *want = malloc(rows * cols * sizeof(double));
  unsigned seed = 2;
  for (int i = 0; i < rows * cols; ++i)
    x[i] = 4 * random_float(&seed);
  for (int r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    double *out = want + r * cols, max = -INFINITY, sum = 0;
    for (int j = 0; j < cols; ++j)
      max = in[j] > max ? in[j] : max;
    for (int j = 0; j < cols; ++j)
      sum += out[j] = exp(in[j] - max);
    for (int j = 0; j < cols; ++j)
      out[j] /= sum;
  }
  blockc_grid grid = {rows, 1, 1}; /* one program per row */
  int status = softmax_launch(y, x, cols, cols, cols, grid, NULL);
  if (status != BLOCKC_SUCCESS) {
    fprintf(stderr, "softmax: %s\n", blockc_last_error());
    return 0;
  }
  double err = max_error(y, want, rows * cols);
  printf("softmax %dx%d: max error %.2e\n", rows, cols, err);
  free(x), free(y), free(want);
  return err < 1e-6;
}

int main(void) {
  int ok = check_vector_add();
  ok &= check_softmax();
  printf("%s\n", ok ? "all results match" : "MISMATCH");
  return ok ? 0 : 1;
}
