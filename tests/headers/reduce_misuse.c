/* In-kernel reduction forms that must not compile (docs/api.md): each
 * CASE is one misuse, compiled on its own by tests/suites/headers.sh, which
 * expects the compiler to refuse it on every backend.
 *   1: TDP_ILP (which has no reduction) inside a reduction loop
 *   2: a ninth reduction variable (at most 8 per loop)
 * and CASE 0 the same file without a misuse, which compiles. */
#include "targetDP.h"

TDP_KERNEL void k(const double *a, int n, double *t) {
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0, s8 = 0, s9 = 0;
#if CASE == 1
  TDP_TLP_SUM(base, n, s1) {
    TDP_ILP(v) s1 += a[base + v];
  }
#elif CASE == 2
  TDP_TLP_SUM(base, n, s1, s2, s3, s4, s5, s6, s7, s8, s9) {
    TDP_ILP_REDUCE(v) s1 += a[base + v];
  }
#else
  TDP_TLP_SUM(base, n, s1, s2, s3, s4, s5, s6, s7, s8) {
    TDP_ILP_REDUCE(v) s1 += a[base + v];
  }
#endif
  targetBlockAddDouble(t, s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9);
}
