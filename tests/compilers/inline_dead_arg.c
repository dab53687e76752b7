/*
 * inline_dead_arg.c -- a lane loop that calls a TDP_INLINE helper with an
 * argument the helper does not read (nsites: TDP_INDEX of component 0
 * under SoA does not use it), the shape of the corpus's stencil27 port.
 * Compiled, not run, by tests/suites/compilers.sh with clang to LLVM IR:
 * the lane loop must vectorise without a run-time alias check
 * ("vector.memcheck"), as the loop pragma's assume_safety says it may.
 * clang 14's dead-argument elimination dropped the call's access group,
 * and with it that promise (targetDP_macros.h, TDP_INLINE).
 */
#include "targetDP.h"

TDP_CONST double t_w[2];

static TDP_DEVICE TDP_INLINE double smooth(const double *u, long s, long nsites) {
  double acc = 0.0;
  for (int d = -1; d <= 1; d++)
    acc += t_w[d != 0] * u[TDP_INDEX(nsites, 1, s + d, 0)];
  return acc;
}

TDP_KERNEL void smooth_kernel(long nsites, double *unew, const double *u) {
  TDP_TLP(base, nsites) {
    TDP_ILP(v) unew[TDP_INDEX(nsites, 1, base + v, 0)] = smooth(u, base + v, nsites);
  }
}
