#include <stdio.h>
#include <stdlib.h>

#include "common/timer.h"
#include "common/triad.h"
#include "targetDP.h"

TDP_KERNEL static void triad_kernel(double *a, const double *b, const double *c, double s,
                                    int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) a[base + v] = b[base + v] + s * c[base + v];
  }
}

double triadBandwidth(long n, int reps) {
  if (n < 1 || n > 2147483647L || reps < 1) { /* the kernel counts sites in an int */
    fprintf(stderr, "triadBandwidth: need 1 <= n <= 2^31 - 1 and reps >= 1, not n = %ld, reps = %d\n",
            n, reps);
    exit(1);
  }
  double *a = NULL, *b = NULL, *c = NULL;
  const size_t nbytes = (size_t) n * sizeof(double);
  targetMalloc(&a, nbytes);
  targetMalloc(&b, nbytes);
  targetMalloc(&c, nbytes);
  /* Parallel first touch, with the same static schedule as the kernel. */
  targetSetConstant(a, 0.0, (size_t) n);
  targetSetConstant(b, 1.0, (size_t) n);
  targetSetConstant(c, 2.0, (size_t) n);
  double best = 1e30;
  for (int r = 0; r <= reps; r++) { /* r = 0 warms up */
    targetSynchronize();
    const double t0 = timerNow();
    TDP_LAUNCH(triad_kernel, (int) n, a, b, c, 3.0, (int) n);
    targetSynchronize();
    const double t = timerNow() - t0;
    if (r > 0 && t < best) best = t;
  }
  double lo = 0.0, hi = 0.0;
  targetDoubleMin(&lo, a, (size_t) n);
  targetDoubleMax(&hi, a, (size_t) n);
  targetFree(a);
  targetFree(b);
  targetFree(c);
  if (lo != 7.0 || hi != 7.0) {
    fprintf(stderr, "triadBandwidth: wrong result (min %g, max %g, expected 7)\n", lo, hi);
    exit(1);
  }
  return 24.0 * (double) n / best * 1e-9;
}
