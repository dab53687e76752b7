/*
 * box_choice.c -- a choice per site in a box row (TDP_TLP_3D), written two
 * ways: choose_stores (two stores, the legacy form) and choose_value (read
 * first, then choose). Compiled, not run, to read clang's vectorisation
 * remarks (README.md, "A choice per site"):
 *   clang -std=c99 -O3 -march=sapphirerapids -fopenmp -I. -DTARGETDP_SOA -DVVL=8 \
 *     -Rpass=loop-vectorize -Rpass-missed=loop-vectorize -c box_choice.c
 */
#include "targetDP.h"

TDP_KERNEL void choose_stores(targetBox box, double *out, const double *x, const int *flag) {
  TDP_TLP_3D(box, x0, y0, z0, base) {
    TDP_ILP(v) {
      long s = base + v;
      if (flag[s]) out[s] = x[s] * 0.5;
      else out[s] = x[s];
    }
  }
}

TDP_KERNEL void choose_value(targetBox box, double *out, const double *x, const int *flag) {
  TDP_TLP_3D(box, x0, y0, z0, base) {
    TDP_ILP(v) {
      long s = base + v;
      const double xs = x[s];
      out[s] = flag[s] ? xs * 0.5 : xs;
    }
  }
}
