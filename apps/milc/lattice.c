#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lattice.h"

int milcLatticeCreate(milcLattice *L, const int global[4], const int n[4], const int offset[4],
                      char *err, size_t errlen) {
  memset(L, 0, sizeof(*L));
  milcGeom *g = &L->g;
  long vhalo = 1, nint = 1;
  for (int d = 0; d < 4; d++) {
    /* Staggered fermions need even extents: the phases and the even/odd
     * split must be the same on the periodic images. */
    if (n[d] < 2 || n[d] % 2) {
      snprintf(err, errlen, "local extent %d along %c must be even and >= 2", n[d], "xyzt"[d]);
      return -1;
    }
    L->global[d] = global[d];
    g->n[d] = n[d];
    g->nh[d] = n[d] + 2;
    g->offset[d] = offset[d];
    vhalo *= g->nh[d];
    nint *= n[d];
  }
  if (vhalo > (1L << 30)) {
    snprintf(err, errlen, "local lattice of %ld sites (halo included) is too large for int indices",
             vhalo);
    return -1;
  }
  g->str[0] = 1;
  for (int d = 1; d < 4; d++) g->str[d] = g->str[d - 1] * g->nh[d - 1];
  g->par0 = (offset[0] + offset[1] + offset[2] + offset[3]) & 1;
  g->nhalf = (int) (nint / 2);
  /* Each parity starts on a 64-site (and SAL) boundary: aligned vectors. */
  int m = 64;
  while (m % SAL) m += 64;
  g->vh = (int) (((vhalo / 2 + m - 1) / m) * m);
  g->nall = 2 * g->vh;

  /* Halo lists: every halo site (any coordinate outside the interior) and
   * its periodic image inside. With one rank per axis this is the whole
   * exchange; the image has the same parity because the extents are even. */
  long nh = vhalo - nint;
  int *dst[2], *src[2];
  for (int p = 0; p < 2; p++) {
    dst[p] = (int *) malloc((nh / 2 + 1) * sizeof(int));
    src[p] = (int *) malloc((nh / 2 + 1) * sizeof(int));
    if (!dst[p] || !src[p]) {
      snprintf(err, errlen, "out of host memory for the halo lists");
      return -1;
    }
  }
  int xh[4];
  for (xh[3] = 0; xh[3] < g->nh[3]; xh[3]++)
    for (xh[2] = 0; xh[2] < g->nh[2]; xh[2]++)
      for (xh[1] = 0; xh[1] < g->nh[1]; xh[1]++)
        for (xh[0] = 0; xh[0] < g->nh[0]; xh[0]++) {
          int img[4], inside = 1;
          for (int d = 0; d < 4; d++) {
            img[d] = xh[d];
            if (xh[d] == 0) img[d] = n[d];
            if (xh[d] == n[d] + 1) img[d] = 1;
            inside = inside && img[d] == xh[d];
          }
          if (inside) continue;
          const int p = (xh[0] + xh[1] + xh[2] + xh[3] + g->par0) & 1;
          dst[p][L->nhalo[p]] = milcSiteHalo(g, xh);
          src[p][L->nhalo[p]++] = milcSiteHalo(g, img);
        }
  for (int p = 0; p < 2; p++) {
    targetMalloc(&L->t_hdst[p], L->nhalo[p] * sizeof(int));
    targetMalloc(&L->t_hsrc[p], L->nhalo[p] * sizeof(int));
    copyToTarget(L->t_hdst[p], dst[p], L->nhalo[p] * sizeof(int));
    copyToTarget(L->t_hsrc[p], src[p], L->nhalo[p] * sizeof(int));
    free(dst[p]);
    free(src[p]);
  }
  return 0;
}

void milcLatticeFree(milcLattice *L) {
  for (int p = 0; p < 2; p++) {
    targetFree(L->t_hdst[p]);
    targetFree(L->t_hsrc[p]);
  }
  memset(L, 0, sizeof(*L));
}

size_t milcFieldBytes(const milcLattice *L, int ncomp, size_t esize) {
  return TDP_FIELD_SIZE(L->g.nall, ncomp) * esize;
}

void *milcFieldAlloc(const milcLattice *L, int ncomp, size_t esize) {
  void *t_f = NULL;
  targetCalloc(&t_f, milcFieldBytes(L, ncomp, esize));
  return t_f;
}

size_t milcPrecisionSize(milcPrecision prec) {
  return prec == MILC_SINGLE ? sizeof(float) : sizeof(double);
}

void milcUpload(const milcLattice *L, void *t_f, const double *h_f, int ncomp, milcPrecision prec) {
  const size_t n = TDP_FIELD_SIZE(L->g.nall, ncomp);
  if (prec == MILC_DOUBLE) {
    copyToTarget(t_f, h_f, n * sizeof(double));
    return;
  }
  float *tmp = (float *) malloc(n * sizeof(float));
  if (!tmp) {
    fprintf(stderr, "milc: out of host memory for a %zu-value field\n", n);
    exit(1);
  }
  for (size_t i = 0; i < n; i++) tmp[i] = (float) h_f[i];
  copyToTarget(t_f, tmp, n * sizeof(float));
  free(tmp);
}

void milcDownload(const milcLattice *L, double *h_f, const void *t_f, int ncomp,
                  milcPrecision prec) {
  const size_t n = TDP_FIELD_SIZE(L->g.nall, ncomp);
  if (prec == MILC_DOUBLE) {
    copyFromTarget(h_f, t_f, n * sizeof(double));
    return;
  }
  float *tmp = (float *) malloc(n * sizeof(float));
  if (!tmp) {
    fprintf(stderr, "milc: out of host memory for a %zu-value field\n", n);
    exit(1);
  }
  copyFromTarget(tmp, t_f, n * sizeof(float));
  for (size_t i = 0; i < n; i++) h_f[i] = tmp[i];
  free(tmp);
}
