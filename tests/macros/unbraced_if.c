/* The loop macros used as the unbraced body of an if, with and without an
 * else: one statement each, no -Wdangling-else (-Wparentheses) warning,
 * and the else binds to the caller's if. */
#include "targetDP.h"

TDP_KERNEL void kernel_unbraced(double *a, int n, int flag) {
  TDP_TLP(base, n) {
    if (flag) TDP_ILP(v) a[base + v] = 1.0;
    if (flag > 1) TDP_ILP(v) a[base + v] += 1.0;
    else TDP_ILP(v) a[base + v] -= 1.0;
  }
  if (flag) TDP_TLP_NOSTRIDE(i, n) a[i] *= 2.0;
}
