/* The paper's Fig 1 and 2: scale a 3-vector field, written once for CPU and GPU. */
#include <stdio.h>
#include <stdlib.h>
#include "targetDP.h"

#define NCOMP 3

TDP_CONST double t_a; /* the scale factor, in constant memory on a GPU */

TDP_KERNEL void scale(double *field, int nsites) {
  TDP_TLP(baseIndex, nsites) {
    for (int icomp = 0; icomp < NCOMP; icomp++) {
      TDP_ILP(vecIndex) {
        field[TDP_INDEX(nsites, NCOMP, baseIndex + vecIndex, icomp)] *= t_a;
      }
    }
  }
}

int main(int argc, char **argv) {
  int nsites = argc > 1 ? atoi(argv[1]) : 1000003; /* need not be a multiple of VVL */
  size_t nbytes = TDP_FIELD_SIZE(nsites, NCOMP) * sizeof(double);
  double a = 2.5, *field = (double *) malloc(nbytes), *t_field = NULL;

  targetInit();
  for (int s = 0; s < nsites; s++)
    for (int c = 0; c < NCOMP; c++) field[TDP_INDEX(nsites, NCOMP, s, c)] = s + 0.25 * c;

  targetMalloc(&t_field, nbytes);
  copyToTarget(t_field, field, nbytes);
  copyConstToTarget(&t_a, &a, sizeof(double));
  TDP_LAUNCH(scale, nsites, t_field, nsites);
  targetSynchronize();
  copyFromTarget(field, t_field, nbytes);

  int bad = 0;
  for (int s = 0; s < nsites; s++)
    for (int c = 0; c < NCOMP; c++)
      bad += field[TDP_INDEX(nsites, NCOMP, s, c)] != a * (s + 0.25 * c);
  printf("scale: %d sites, %s: %s\n", nsites, targetConfigString(), bad ? "WRONG" : "correct");
  targetFree(t_field);
  targetFinalize();
  free(field);
  return bad != 0;
}
