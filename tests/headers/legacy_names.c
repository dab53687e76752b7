/* The 2014 double-underscore names still compile (on by default). */
#include "targetDP.h"

__targetConst__ double t_scale;

__target__ static double square(double x) { return x * x; }

__targetEntry__ void legacy_kernel(double *a, int n) {
  __targetTLP__(base, n) {
    __targetILP__(v) { a[base + v] = square(a[base + v]) * t_scale; }
  }
}

int main(void) { return 0; }
