/* lbcmp: compare two lb checkpoints value by value. Both are verified
 * first (header, length, checksum). Exit 0 if every distribution agrees
 * within the tolerance (default 0: bitwise), 1 if not, 2 on bad input.
 * Used by the tests to compare runs across layouts, VVL, kernels, backends
 * and rank counts: the file order does not depend on any of them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chkformat.h"
#include "model.h"

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: %s A.chk B.chk [tolerance]\n", argv[0]);
    return 2;
  }
  double tol = 0.0;
  if (argc == 4) { /* atof would turn a typo into tolerance 0 */
    char *end = NULL;
    errno = 0;
    tol = strtod(argv[3], &end);
    if (errno || end == argv[3] || *end != '\0' || !isfinite(tol) || tol < 0.0) {
      fprintf(stderr, "lbcmp: the tolerance must be a finite number >= 0, not '%s'\n", argv[3]);
      return 2;
    }
  }
  lbChkHeader ha, hb;
  double *a = NULL, *b = NULL;
  char err[1200];
  if (lbChkReadFile(argv[1], &ha, &a, err, sizeof(err)) ||
      lbChkReadFile(argv[2], &hb, &b, err, sizeof(err))) {
    fprintf(stderr, "lbcmp: %s\n", err);
    free(a);
    return 2;
  }
  if (ha.size[0] != hb.size[0] || ha.size[1] != hb.size[1] || ha.size[2] != hb.size[2]) {
    fprintf(stderr, "lbcmp: grids differ: %d x %d x %d vs %d x %d x %d\n", ha.size[0],
            ha.size[1], ha.size[2], hb.size[0], hb.size[1], hb.size[2]);
    free(a);
    free(b);
    return 2;
  }
  const uint64_t n = lbChkCount(&ha);
  double worst = 0.0;
  uint64_t at = 0, ndiff = 0;
  for (uint64_t i = 0; i < n; i++) {
    const double d = fabs(a[i] - b[i]);
    if (a[i] != b[i]) ndiff++;
    if (d > worst || d != d) {
      worst = d;
      at = i;
    }
  }
  const uint64_t site = at / NVEL;
  const int nz = ha.size[2], ny = ha.size[1];
  printf("lbcmp: steps %lld / %lld, %llu values, %llu differ, max |a - b| = %.3e", (long long) ha.step,
         (long long) hb.step, (unsigned long long) n, (unsigned long long) ndiff, worst);
  if (ndiff)
    printf(" at (%d,%d,%d) p=%d", (int) (site / nz / ny), (int) (site / nz % ny),
           (int) (site % nz), (int) (at % NVEL));
  printf(" (tolerance %.1e)\n", tol);
  free(a);
  free(b);
  return (worst <= tol && ha.step == hb.step) ? 0 : 1;
}
