/* Built with VVL and SAL given as expressions (-DVVL=2+2 -DSAL=4*2): every
 * use in targetDP.h must be parenthesised. Checks a TLP/ILP sweep and the
 * layout functions against the arithmetic written out; exit status 0 when
 * right. Compiled together with the library sources by macros.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "targetDP.h"

#define VV ((int) (VVL))
#define SA ((int) (SAL))

TDP_KERNEL void kernel_fill(double *t_f, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) t_f[TDP_VINDEX(n, 2, base, 1, v)] += 1.0 + (double) (base % VV) + 0 * v;
  }
}

int main(void) {
  const int n = 101;
  int bad = 0;
  if (targetInit() != TARGET_SUCCESS) return 2;
  for (int s = 0; s < n; s++)
    for (int c = 0; c < 3; c++) {
      size_t want = (size_t) (s / SA) * 3 * SA + (size_t) c * SA + (size_t) (s % SA);
      if (TDP_INDEX(n, 3, s, c) != want) bad++;
      if (TDP_VINDEX(n, 3, s - s % VV, c, s % VV) != want) bad++;
    }
  if (TDP_NSITES_ALLOC(n) != (size_t) ((n + SA - 1) / SA * SA)) bad++;
  size_t size = TDP_FIELD_SIZE(n, 2);
  double *f = (double *) calloc(size, sizeof(double)), *t_f = NULL;
  targetMalloc(&t_f, size * sizeof(double));
  copyToTarget(t_f, f, size * sizeof(double));
  TDP_LAUNCH(kernel_fill, n, t_f, n);
  targetSynchronize();
  copyFromTarget(f, t_f, size * sizeof(double));
  for (int s = 0; s < n; s++) {
    /* base % VVL is 0 for a stride base: every site once, value 1 */
    if (f[TDP_INDEX(n, 2, s, 1)] != 1.0 || f[TDP_INDEX(n, 2, s, 0)] != 0.0) bad++;
  }
  targetFree(t_f);
  free(f);
  targetFinalize();
  printf("VVL=%s (%d) SAL=%s (%d): %d wrong\n", TDP_STR(VVL), VV, TDP_STR(SAL), SA, bad);
  return bad != 0;
}
