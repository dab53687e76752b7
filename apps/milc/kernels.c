/* Kernels of the solver (kernels.h). Compiled as C (OpenMP) or as CUDA. */
#include <stdlib.h>

#include "common/timer.h"
#include "kernels.h"
#include "su3.h"

void milcOpsCreate(milcOps *o, const milcLattice *L, MPI_Comm comm) {
  o->L = L;
  o->comm = comm;
  targetMalloc(&o->t_sum, sizeof(double));
  targetStreamCreate(&o->interior);
  for (int k = 0; k < MILC_K_NKIND; k++) {
    o->cnt.seconds[k] = o->cnt.flops[k] = o->cnt.bytes[k] = 0.0;
    o->cnt.calls[k] = 0;
  }
}

void milcOpsFree(milcOps *o) {
  targetFree(o->t_sum);
  o->t_sum = NULL;
  targetStreamDestroy(o->interior);
  o->interior = NULL;
}

/* Staggered phase eta_mu(x) = (-1)^(x_0 + ... + x_{mu-1}), global x. */
TDP_HOST_DEVICE static inline double milcEta(const milcGeom *g, const int x[4], int mu) {
  int s = 0;
  for (int d = 0; d < mu; d++) s += g->offset[d] + x[d];
  return (s & 1) ? -1.0 : 1.0;
}

/* ---------------------------------------------------------------- host */

static void account(milcOps *o, milcKernelKind k, double t0, double flops_site, double bytes_site) {
  targetSynchronize();
  o->cnt.seconds[k] += timerNow() - t0;
  o->cnt.flops[k] += flops_site * o->L->g.nhalf;
  o->cnt.bytes[k] += bytes_site * o->L->g.nhalf;
  o->cnt.calls[k]++;
}

/* The halo of parity p of a vector field (esize bytes per value), timed
 * and counted as halo; nothing on a lattice without halo. */
static void halo_fill(milcOps *o, void *t_f, int p, size_t esize) {
  if (!o->L->halo) return;
  const double t1 = timerNow();
  milcHaloStart(o->L, t_f, MILC_NV, p, esize);
  milcHaloWait(o->L, t_f, MILC_NV, p, esize);
  o->cnt.seconds[MILC_K_HALO] += timerNow() - t1;
  o->cnt.calls[MILC_K_HALO]++;
}

static double global_sum(milcOps *o) {
  double local = 0.0, total = 0.0;
  copyFromTarget(&local, o->t_sum, sizeof(double));
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, o->comm);
  return total;
}

#define MILC_EACH_REAL_FILE "kernels_impl.h"
#include "each_real.h"
