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
  /* several variables, min and max, every element type */
  double s2 = 0.0, lo = b[0];
  float f = 0.0f, fhi = (float) b[0];
  int k = 0;
  long l = 0, lmin = 0;
  TDP_TLP_SUM(base, n, s, s2) {
    TDP_ILP_REDUCE(v) {
      s += b[base + v];
      s2 += b[base + v] * b[base + v];
    }
  }
  TDP_TLP_REDUCE(base, n, TDP_RSUM(f), TDP_RMAX(fhi), TDP_RSUM(k), TDP_RSUM(l), TDP_RMIN(lmin),
                 TDP_RMIN(lo)) {
    TDP_ILP_REDUCE(v) {
      f += (float) b[base + v];
      fhi = (float) b[base + v] > fhi ? (float) b[base + v] : fhi;
      k += base + v;
      l += base + v;
      lmin = (long) (base + v) < lmin ? (long) (base + v) : lmin;
      lo = b[base + v] < lo ? b[base + v] : lo;
    }
  }
  TDP_TLP_MIN(base, n, lo) {
    TDP_ILP_REDUCE(v) lo = b[base + v] < lo ? b[base + v] : lo;
  }
  TDP_TLP_MAX(base, n, fhi) {
    TDP_ILP_SUM(v, fhi) fhi = (float) b[base + v] > fhi ? (float) b[base + v] : fhi;
  }
  targetBlockAddDouble(t_sum, s2);
  targetBlockMinDouble(t_sum, lo);
  targetBlockAddFloat((float *) t_sum, f);
  targetBlockMaxFloat((float *) t_sum, fhi);
  targetBlockAddInt((int *) t_sum, k);
  targetBlockMinInt((int *) t_sum, k);
  targetBlockMaxInt((int *) t_sum, k);
  targetBlockAddLong((long *) t_sum, l);
  targetBlockMinLong((long *) t_sum, lmin);
  targetBlockMaxLong((long *) t_sum, l);
  targetBlockMaxDouble(t_sum, s);
  targetBlockMinFloat((float *) t_sum, f);
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
