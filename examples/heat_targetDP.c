/* heat_targetDP.c -- heat_serial.c ported to targetDP: the same grid,
 * scheme and output, running on CPU threads + SIMD or on a GPU. The port
 * (docs/porting.md): the (i, j) nest over the interior became a kernel
 * over a box (TDP_TLP_2D over targetBoxInterior: no coordinates from a
 * site index, no boundary test, so it vectorises), the boundary copy a
 * pass over the shell of the grid (TDP_TLP_2D_SHELL); the field went
 * behind TDP_INDEX and into target memory (targetMalloc, copyToTarget/
 * copyFromTarget), the constant into TDP_CONST, the calls into
 * TDP_LAUNCH_BOX and TDP_LAUNCH_SHELL. The results agree with heat_serial
 * to round-off (tests/suites/install.sh compares them).
 *   heat_targetDP [NX NY NSTEPS [OUT]] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "targetDP.h"

TDP_CONST double t_alpha;

/* The interior: site base + v is (i, j0 + v). */
TDP_KERNEL void step(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), ny = box.extent[1];
  TDP_TLP_2D(box, i, j0, base) {
    TDP_ILP(v) {
      long s = base + v;
      size_t is = TDP_INDEX(nsites, 1, s, 0);
      double lap = u[TDP_INDEX(nsites, 1, s + ny, 0)] + u[TDP_INDEX(nsites, 1, s - ny, 0)]
                 + u[TDP_INDEX(nsites, 1, s + 1, 0)] + u[TDP_INDEX(nsites, 1, s - 1, 0)]
                 - 4.0 * u[is];
      unew[is] = u[is] + t_alpha * lap;
    }
  }
}

/* The boundary (the outer layer of the grid) keeps its values. */
TDP_KERNEL void boundary(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box);
  TDP_TLP_2D_SHELL(box, 1, i, j0, base) {
    TDP_ILP(v) unew[TDP_INDEX(nsites, 1, base + v, 0)] = u[TDP_INDEX(nsites, 1, base + v, 0)];
  }
}

int main(int argc, char **argv) {
  int nx = argc > 1 ? atoi(argv[1]) : 200, ny = argc > 2 ? atoi(argv[2]) : 150;
  int nsteps = argc > 3 ? atoi(argv[3]) : 500;
  const double alpha = 0.2, pi = 3.14159265358979323846; /* stable for alpha <= 0.25 */
  int nsites = nx * ny;
  size_t nbytes = TDP_FIELD_SIZE(nsites, 1) * sizeof(double);
  double *u = (double *) malloc(nbytes), *t_u = NULL, *t_unew = NULL;
  if (nx < 3 || ny < 3 || nsteps < 0 || !u) {
    fprintf(stderr, "heat_targetDP: need NX, NY >= 3 and NSTEPS >= 0\n");
    return 1;
  }

  targetInit();
  const long extent[2] = {nx, ny};
  targetBox all, interior;
  targetBoxAll(&all, 2, extent);
  targetBoxInterior(&interior, 2, extent, 1);
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      u[TDP_INDEX(nsites, 1, i * ny + j, 0)] = sin(pi * i / (nx - 1)) * sin(pi * j / (ny - 1));
  targetMalloc(&t_u, nbytes);
  targetMalloc(&t_unew, nbytes);
  copyToTarget(t_u, u, nbytes);
  copyConstToTarget(&t_alpha, &alpha, sizeof(double));

  for (int n = 0; n < nsteps; n++) {
    TDP_LAUNCH_BOX(step, interior, t_unew, t_u);
    TDP_LAUNCH_SHELL(boundary, all, 1, t_unew, t_u);
    double *t = t_u;
    t_u = t_unew;
    t_unew = t;
  }
  targetSynchronize();
  copyFromTarget(u, t_u, nbytes);

  double sum = 0.0;
  for (int s = 0; s < nsites; s++) sum += u[TDP_INDEX(nsites, 1, s, 0)];
  printf("heat_targetDP: %d x %d, %d steps: sum %.15e (%s)\n", nx, ny, nsteps, sum,
         targetConfigString());
  if (argc > 4) {
    FILE *out = fopen(argv[4], "w");
    if (!out) { perror(argv[4]); return 1; }
    for (int s = 0; s < nsites; s++) fprintf(out, "%.17g\n", u[TDP_INDEX(nsites, 1, s, 0)]);
    fclose(out);
  }
  targetFree(t_u);
  targetFree(t_unew);
  targetFinalize();
  free(u);
  return 0;
}
