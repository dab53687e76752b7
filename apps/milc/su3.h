/* SU(3) matrix x colour vector on one site, in registers. A matrix is 18
 * doubles (row i, column j: re at 2 (3 i + j), im after it), a vector 6
 * (colour c: re at 2 c, im after it). Callable on the host (tests, gauge
 * generation) and in kernels. */
#ifndef MILC_SU3_H
#define MILC_SU3_H

#include "targetDP.h"

/* y = U v  (66 flops) */
TDP_HOST_DEVICE static inline void su3MulVec(const double u[18], const double v[6], double y[6]) {
  for (int i = 0; i < 3; i++) {
    double re = 0.0, im = 0.0;
    for (int j = 0; j < 3; j++) {
      const double ar = u[2 * (3 * i + j)], ai = u[2 * (3 * i + j) + 1];
      re += ar * v[2 * j] - ai * v[2 * j + 1];
      im += ar * v[2 * j + 1] + ai * v[2 * j];
    }
    y[2 * i] = re;
    y[2 * i + 1] = im;
  }
}

/* y = U^dagger v  (66 flops) */
TDP_HOST_DEVICE static inline void su3AdjMulVec(const double u[18], const double v[6],
                                                double y[6]) {
  for (int i = 0; i < 3; i++) {
    double re = 0.0, im = 0.0;
    for (int j = 0; j < 3; j++) {
      const double ar = u[2 * (3 * j + i)], ai = -u[2 * (3 * j + i) + 1];
      re += ar * v[2 * j] - ai * v[2 * j + 1];
      im += ar * v[2 * j + 1] + ai * v[2 * j];
    }
    y[2 * i] = re;
    y[2 * i + 1] = im;
  }
}

/* C = A B  and  C = A B^dagger (host: gauge transformations, tests). */
TDP_HOST_DEVICE static inline void su3MulNN(const double a[18], const double b[18], double c[18]) {
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      double re = 0.0, im = 0.0;
      for (int j = 0; j < 3; j++) {
        const double ar = a[2 * (3 * i + j)], ai = a[2 * (3 * i + j) + 1];
        const double br = b[2 * (3 * j + k)], bi = b[2 * (3 * j + k) + 1];
        re += ar * br - ai * bi;
        im += ar * bi + ai * br;
      }
      c[2 * (3 * i + k)] = re;
      c[2 * (3 * i + k) + 1] = im;
    }
}

TDP_HOST_DEVICE static inline void su3MulNA(const double a[18], const double b[18], double c[18]) {
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      double re = 0.0, im = 0.0;
      for (int j = 0; j < 3; j++) {
        const double ar = a[2 * (3 * i + j)], ai = a[2 * (3 * i + j) + 1];
        const double br = b[2 * (3 * k + j)], bi = -b[2 * (3 * k + j) + 1];
        re += ar * br - ai * bi;
        im += ar * bi + ai * br;
      }
      c[2 * (3 * i + k)] = re;
      c[2 * (3 * i + k) + 1] = im;
    }
}

#endif
