/* break in a TLP body must not compile under OpenMP (tests/suites/macros.sh
 * compiles this once per -DLOOP=1,2,3 and expects an error naming break). */
#include "targetDP.h"

TDP_KERNEL void kernel_break(double *a, int n, double *t_sum) {
  double s = 0.0;
#if LOOP == 1
  TDP_TLP(base, n) {
    if (a[base] < 0.0) break;
    TDP_ILP(v) a[base + v] = 1.0;
  }
#elif LOOP == 2
  TDP_TLP_NOSTRIDE(i, n) {
    if (a[i] < 0.0) break;
    a[i] = 1.0;
  }
#else
  TDP_TLP_SUM(base, n, s) {
    if (a[base] < 0.0) break;
    TDP_ILP_SUM(v, s) s += a[base + v];
  }
#endif
  targetBlockAddDouble(t_sum, s);
}
