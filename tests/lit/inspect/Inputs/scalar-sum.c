/* A plain scalar loop: inspect warns that the hottest loop is scalar. */
float sum(const float *x, long n) {
  float s = 0;
  for (long i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}
