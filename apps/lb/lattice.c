#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "kernels.h"
#include "lattice.h"
#include "targetDP.h"

void lbGeomInit(lbGeom *g, const decompInfo *dc) {
  memset(g, 0, sizeof(*g));
  for (int d = 0; d < 3; d++) {
    g->n[d] = dc->local[d];
    g->nh[d] = dc->local[d] + 2;
    g->offset[d] = dc->offset[d];
    g->global[d] = dc->global[d];
  }
  g->str[2] = 1;
  g->str[1] = g->nh[2];
  g->str[0] = g->nh[1] * g->nh[2];
  /* Front padding that puts (1,1,1) on a multiple of LB_ALIGN. */
  const int first = g->str[0] + g->str[1] + 1;
  g->base = (LB_ALIGN - first % LB_ALIGN) % LB_ALIGN;
  g->s0 = lbSite(g, 1, 1, 1);
  const int last = lbSite(g, g->n[0], g->n[1], g->n[2]);
  g->nrange = ((last - g->s0 + 1 + VVL - 1) / VVL) * VVL;
  /* The sites past (n0,n1,n2) in the last stride pull from at most
   * VVL - 1 sites beyond the last halo site: pad for them. */
  const int end = g->base + g->nh[0] * g->nh[1] * g->nh[2] + VVL;
  /* nall = 8 (mod 32): each SoA component starts on a 64-byte line, and
   * the components are an odd number of lines apart modulo 4 KiB, so the
   * 38 streams of the update do not share cache sets (nor 4K-alias). */
  g->nall = ((end + LB_ALIGN - 1) / LB_ALIGN) * LB_ALIGN + 8;
}

int lbLatticeCreate(lbLattice *L, const decompInfo *dc) {
  memset(L, 0, sizeof(*L));
  /* The geometry counts sites in an int: the block with its halo layers
   * and padding, checked in 64 bits first (params.c caps the grid at 2e9
   * sites, which leaves room; this keeps it so). */
  const long long ext[3] = {dc->local[0] + 2LL, dc->local[1] + 2LL, dc->local[2] + 2LL};
  long long nh = 0;
  if (cliProduct(ext, 3, INT_MAX - 4LL * LB_ALIGN - 4LL * VVL, &nh)) {
    char n[64];
    fprintf(stderr, "lb: a %d x %d x %d block with its halo has %s sites: more than an int "
                    "indexes\n", dc->local[0], dc->local[1], dc->local[2],
            cliProductText(ext, 3, n, sizeof(n)));
    return -1;
  }
  lbGeomInit(&L->g, dc);
  const int nall = L->g.nall;
  L->fbytes = TDP_FIELD_SIZE(nall, NVEL) * sizeof(double);
  targetMalloc(&L->t_f, L->fbytes);
  targetMalloc(&L->t_fn, L->fbytes);
  /* First touch by the update's own partition of the sites rather than by
   * a serial memcpy (or a flat parallel fill, which in SoA would give each
   * thread a velocity, not a block of sites), so a CPU's pages sit near
   * the threads that will sweep them. */
  lbZero(&L->g, L->t_f);
  lbZero(&L->g, L->t_fn);
  targetCalloc(&L->t_rho, nall * sizeof(double));
  targetCalloc(&L->t_u, 3 * (size_t) nall * sizeof(double));
  targetCalloc(&L->t_umag, nall * sizeof(double));
  L->h_f = (double *) calloc(1, L->fbytes);
  L->h_rho = (double *) calloc(nall, sizeof(double));
  L->h_u = (double *) calloc(3 * (size_t) nall, sizeof(double));
  if (!L->h_f || !L->h_rho || !L->h_u) {
    fprintf(stderr, "lb: out of host memory for a %d x %d x %d block\n", L->g.n[0], L->g.n[1],
            L->g.n[2]);
    return -1;
  }
  return 0;
}

void lbLatticeFree(lbLattice *L) {
  targetFree(L->t_f);
  targetFree(L->t_fn);
  targetFree(L->t_rho);
  targetFree(L->t_u);
  targetFree(L->t_umag);
  free(L->h_f);
  free(L->h_rho);
  free(L->h_u);
  memset(L, 0, sizeof(*L));
}

void lbLatticeInitial(lbLattice *L, const lbParams *p) {
  const lbGeom *g = &L->g;
  const double k = 2.0 * LB_PI / g->global[0];
  /* Padding sites: a rest state, so that the few halo results computed
   * from them stay finite. Then every real site. */
  const double u0[3] = {0.0, 0.0, 0.0};
  for (int s = 0; s < g->nall; s++) {
    if (s >= g->base && s < lbSite(g, g->nh[0], 0, 0)) s = lbSite(g, g->nh[0], 0, 0);
    for (int q = 0; q < NVEL; q++) L->h_f[TDP_INDEX(g->nall, NVEL, s, q)] = lbFeq(q, p->rho, u0);
  }
  /* Halo sites too get a plausible state (rest at rho): the update sweeps
   * some halo columns, whose results are discarded but must stay finite. */
  for (int x = 0; x < g->nh[0]; x++) {
    for (int y = 0; y < g->nh[1]; y++) {
      for (int z = 0; z < g->nh[2]; z++) {
        const int s = lbSite(g, x, y, z);
        const int inside = x >= 1 && x <= g->n[0] && y >= 1 && y <= g->n[1] && z >= 1 &&
                           z <= g->n[2];
        double u[3] = {0.0, 0.0, 0.0};
        if (inside && p->lbcase == LB_CASE_UNIFORM) {
          for (int d = 0; d < 3; d++) u[d] = p->velocity[d];
        } else if (inside && p->lbcase == LB_CASE_SHEARWAVE) {
          u[1] = p->amplitude * sin(k * (g->offset[0] + x - 1));
        }
        for (int q = 0; q < NVEL; q++)
          L->h_f[TDP_INDEX(g->nall, NVEL, s, q)] = lbFeq(q, p->rho, u);
      }
    }
  }
}

void lbLatticeUpload(lbLattice *L) {
  copyToTarget(L->t_f, L->h_f, L->fbytes);
  copyToTarget(L->t_fn, L->h_f, L->fbytes);
}

void lbLatticeDownload(lbLattice *L) { copyFromTarget(L->h_f, L->t_f, L->fbytes); }

void lbLatticeMomentsToHost(lbLattice *L) {
  lbMoments(&L->g, L->t_f, L->t_rho, L->t_u, L->t_umag);
  copyFromTarget(L->h_rho, L->t_rho, L->g.nall * sizeof(double));
  copyFromTarget(L->h_u, L->t_u, 3 * (size_t) L->g.nall * sizeof(double));
}
