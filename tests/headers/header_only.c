/* The header alone, every public macro expanded once: clean under
 * -Wall -Wextra -Werror as C99/C11, C++17 and CUDA, and without OpenMP no
 * unknown-pragma warnings. */
#include "targetDP.h"

TDP_CONST double t_c;

TDP_DEVICE static double f(double x) { return x * t_c; }

TDP_KERNEL void kernel_all(double *a, const double *b, int n, double *t_sum) {
  TDP_TLP(base, n) {
    TDP_ILP(v) { a[TDP_INDEX(n, 2, base + v, 1)] = f(b[TDP_VINDEX(n, 2, base, 0, v)]); }
  }
  double s = 0.0;
  TDP_TLP_SUM(base, n, s) {
    TDP_ILP_SUM(v, s) { s += b[base + v]; }
  }
  targetBlockAddDouble(t_sum, s);
  TDP_TLP_NOSTRIDE(i, n) { a[i] += 1.0; }
}

int main(void) {
  double *t_a = NULL, *t_b = NULL, *t_s = NULL;
  int n = 10;
  targetInit();
  targetMalloc(&t_a, TDP_FIELD_SIZE(n, 2) * sizeof(double));
  targetCalloc(&t_b, TDP_FIELD_SIZE(n, 2) * sizeof(double));
  targetCalloc(&t_s, sizeof(double));
  TDP_LAUNCH(kernel_all, n, t_a, t_b, n, t_s);
  targetSynchronize();
  targetFree(t_s);
  targetFree(t_b);
  targetFree(t_a);
  targetFinalize();
  return 0;
}
