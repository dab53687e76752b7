/* Sizes the compiler knows, checked at every optimisation level (issue 25
 * item 5). A TDP_CONST and a host array passed by name (&t_x, t_a, &t_a[2],
 * a local array h, h + 60, a global) have a size the compiler knows at -O0
 * as at -O2; a call that asks for more is refused by every constant call
 * and every host entry point, and the right sizes pass. tests/suites/
 * macros.sh builds this at -O0 and -O2 with gcc, clang, g++ and clang++
 * (with the library sources) and runs it: exit status 0 and "PASS" when
 * every refusal happened; scripts/device_issue25.sh does the same with
 * nvcc on a GPU. On main copyTargetToConst and copyConstFromTarget
 * were unchecked and the host side of copies only checked inside the
 * layer's own allocations: each bad call below overran its object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"

TDP_CONST double os_scalar;
TDP_CONST double os_table[8];
static double os_global[16];

static int nrefused = 0, nbad = 0;

/* rc must be an error whose message holds sub. */
static void refused(int rc, const char *call, const char *sub) {
  if (rc != TARGET_SUCCESS && strstr(targetLastErrorString(), sub)) {
    nrefused++;
  } else {
    nbad++;
    fprintf(stderr, "object_sizes: %s: rc %d, message \"%s\" (want \"%s\")\n", call, rc,
            rc ? targetLastErrorString() : "", sub);
  }
}
#define REFUSED(call, sub) refused((call), #call, sub)
#define PASSES(call)                                                                   \
  do {                                                                                 \
    int rc_ = (call);                                                                  \
    if (rc_ != TARGET_SUCCESS) {                                                       \
      nbad++;                                                                          \
      fprintf(stderr, "object_sizes: %s refused: %s\n", #call, targetLastErrorString()); \
    }                                                                                  \
  } while (0)

int main(void) {
  double h[64], small[2], *t = NULL;
  int sites[2] = {0, 1};
  char mask[8];
  memset(h, 0, sizeof(h));
  memset(small, 0, sizeof(small));
  memset(mask, 1, sizeof(mask));
  if (targetInit() != TARGET_SUCCESS || targetMalloc(&t, 128 * sizeof(double)) != TARGET_SUCCESS)
    return 2;
  targetSetErrorAbort(0);
  PASSES(targetZero(t, 128));

  /* constants, every call */
  REFUSED(copyConstToTarget(&os_scalar, h, 16), "16 bytes into a constant of 8");
  REFUSED(copyConstToTarget(os_table, h, 72), "72 bytes into a constant of 64");
  REFUSED(copyConstToTarget(&os_table[2], h, 56), "56 bytes into a constant of 48");
  REFUSED(copyTargetToConst(&os_scalar, t, 16), "16 bytes into a constant of 8");
  REFUSED(copyTargetToConst(os_table, t, 72), "72 bytes into a constant of 64");
  REFUSED(copyConstFromTarget(h, &os_scalar, 16), "16 bytes from a constant of 8");
  REFUSED(copyConstFromTarget(h, os_table, 72), "72 bytes from a constant of 64");
  REFUSED(copyConstFromTarget(small, os_table, 64), "64 bytes asked of the host value");
  /* host arrays */
  REFUSED(copyFromTarget(h, t, 800), "800 bytes asked of the host array but it holds 512");
  REFUSED(copyToTarget(t, h + 60, 40), "40 bytes asked of the host array but it holds 32");
  REFUSED(copyFromTarget(os_global, t, 136), "136 bytes asked of the host array but it holds 128");
  REFUSED(copyFromTargetAsync(h, t, 800, TARGET_STREAM_DEFAULT), "holds 512");
  REFUSED(copyFromTargetSites(small, t, 8, 1, sites, 2), "asked of the host field but it holds 16");
  REFUSED(copyToTargetMasked(t, h, 16, 1, mask), "16 bytes asked of the mask but it holds 8");

  /* the right sizes */
  PASSES(copyConstToTarget(&os_scalar, h, sizeof(double)));
  PASSES(copyConstToTarget(os_table, h, sizeof(os_table)));
#ifndef __CUDACC__ /* CUDA's symbol copies take the whole variable (docs/api.md) */
  PASSES(copyTargetToConst(&os_table[2], t, 6 * sizeof(double)));
#endif
  PASSES(copyConstFromTarget(h, os_table, sizeof(os_table)));
  PASSES(copyFromTarget(h, t, sizeof(h)));
  PASSES(copyFromTarget(os_global, t, sizeof(os_global)));
  PASSES(copyToTarget(t, h + 60, 4 * sizeof(double)));
  PASSES(copyFromTargetMasked(h, t, 8, 1, mask));

  targetSetErrorAbort(1);
  targetFree(t);
  targetFinalize();
  printf("object_sizes: %s: %d refusals, %d wrong\n", nbad ? "FAIL" : "PASS", nrefused, nbad);
  return nbad ? 1 : 0;
}
