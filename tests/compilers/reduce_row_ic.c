/*
 * reduce_row_ic.c -- a Jacobi sweep with its residual: the corpus's
 * jacobi2d port (a box sum, TDP_TLP_2D_SUM, included from the corpus) and
 * the same body in a 1-D sum (TDP_TLP_SUM). Compiled, not run, by
 * tests/suites/compilers.sh with clang -Rpass=loop-vectorize: both
 * reduction loops must be vectorised and
 * interleaved TDP_REDUCE_IC_ (4) times. Left to itself clang interleaved
 * them half as often as the same loop without the lane's one-trip loop
 * (clang 14: 2, its native's 4; clang 22: 1, its native's 2), the
 * vectoriser counting the body's addresses live at once (targetDP_C.h,
 * TDP_REDUCE_IC_; issue 28, benchmarks/results/reduce-ic/).
 */
/* The box sum: the corpus's port itself (its TDP_TLP_2D_SUM row). */
#include "benchmarks/corpus/jacobi2d.c"

/* The same body over sites ny .. n - ny - 1 of a flat loop. */
TDP_KERNEL void flat_residual(long n, long ny, double *unew, const double *u, double *t_res) {
  double res = 0.0;
  TDP_TLP_SUM(base, n - 2 * ny, res) { /* FLAT_ROW */
    TDP_ILP_REDUCE(v) {
      long s = ny + base + v;
      double val = 0.25 * (u[s - ny] + u[s + ny] + u[s - 1] + u[s + 1]);
      double d = val - u[s];
      unew[s] = val;
      res += d * d;
    }
  }
  targetBlockAddDouble(t_res, res);
}
