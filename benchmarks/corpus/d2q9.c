/*
 * d2q9 -- a D2Q9 lattice-Boltzmann step (BGK), pull streaming fused with
 * the collision, on the interior of an nx x ny lattice whose edge ring is
 * held at its initial distributions (a fixed boundary: set once in every
 * output, never written). Distributions f[p][site] (structure of arrays,
 * as LB codes keep them for vector loads). Unlike benchmarks/d2q9.c (a
 * helical, branch-free 1-D lattice), the legacy form here has coordinates
 * and loop bounds, which the recipe turns into a division and a test.
 * Validation: bitwise on the host (the same arithmetic, one collide()).
 */
#include <math.h>
#include <stdlib.h>

#include "benchmarks/corpus/corpus.h"

#define NQ 9
#define OMEGA 1.7
#define CX9 {0, 1, 0, -1, 0, 1, -1, -1, 1}
#define CY9 {0, 0, 1, 0, -1, 1, 1, -1, -1}
static const int cx[NQ] = CX9;
static const int cy[NQ] = CY9;

/* The collision of one site, the legacy code's function (also the port's:
 * TDP_HOST_DEVICE so that a kernel can call it). */
static TDP_HOST_DEVICE inline void collide9(double f[NQ]) {
  const double w[NQ] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9,
                        1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
  const double ex[NQ] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const double ey[NQ] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  double rho = 0, ux = 0, uy = 0;
  for (int p = 0; p < NQ; p++) {
    rho += f[p];
    ux += ex[p] * f[p];
    uy += ey[p] * f[p];
  }
  ux /= rho;
  uy /= rho;
  const double usq = 1.5 * (ux * ux + uy * uy);
  for (int p = 0; p < NQ; p++) {
    const double cu = 3.0 * (ex[p] * ux + ey[p] * uy);
    const double feq = w[p] * rho * (1.0 + cu + 0.5 * cu * cu - usq);
    f[p] += OMEGA * (feq - f[p]);
  }
}

/* ---------------------------------------------------------------------- */
/* The serial original: site (i, j) at i * ny + j, pulls from (i - cx, j - cy). */
static void serial_step(double *fn, const double *f, int nx, int ny) {
  const long n = (long) nx * ny;
  for (int i = 1; i < nx - 1; i++) {
    for (int j = 1; j < ny - 1; j++) {
      double q[NQ];
      for (int p = 0; p < NQ; p++) q[p] = f[p * n + (i - cx[p]) * ny + (j - cy[p])];
      collide9(q);
      for (int p = 0; p < NQ; p++) fn[p * n + i * ny + j] = q[p];
    }
  }
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md: the interior a box loop (no coordinates
 * from the site index, no bounds test), the pull offsets a TDP_CONST
 * table, the legacy collision called per site. */
TDP_CONST int t_off9[NQ];

TDP_KERNEL void d2q9_port(targetBox box, double *fn, const double *f) {
  const long nsites = targetBoxLatticeSites(&box);
  TDP_TLP_2D(box, x, y0, base) {
    TDP_ILP(v) {
      long s = base + v;
      double q[NQ];
      for (int p = 0; p < NQ; p++) q[p] = f[TDP_INDEX(nsites, NQ, s - t_off9[p], p)];
      collide9(q);
      for (int p = 0; p < NQ; p++) fn[TDP_INDEX(nsites, NQ, s, p)] = q[p];
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Native. */
#ifdef __CUDACC__
/* One thread per site, 2-D blocks, SoA: every load and store coalesced;
 * pull streaming fused with the collision, offsets known at compile time
 * (the GPU LB kernels of Tolke 2010 and Obrecht et al. 2011, with the pull
 * ("gather") scheme that Obrecht et al. measured faster than push). */
__global__ void __launch_bounds__(256)
    nat_d2q9(double *__restrict__ fn, const double *__restrict__ f, int nx, int ny) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x + 1,
            i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  const int ex[NQ] = CX9, ey[NQ] = CY9;
  const long n = (long) nx * ny, s = (long) i * ny + j;
  double q[NQ];
#pragma unroll
  for (int p = 0; p < NQ; p++) q[p] = f[p * n + s - (ex[p] * ny + ey[p])];
  collide9(q);
#pragma unroll
  for (int p = 0; p < NQ; p++) fn[p * n + s] = q[p];
}
static void nat_step(double *fn, const double *f, int nx, int ny) {
  dim3 block(32, 8), grid((ny - 2 + 31) / 32, (nx - 2 + 7) / 8);
  nat_d2q9<<<grid, block>>>(fn, f, nx, ny);
  nativeSynchronize();
}
#else
/* Threads over rows, SIMD along a row; the serial's per-site code with the
 * pull offsets hoisted per row (the SoA pull kernels of LbmBenchKernels,
 * Wittmann et al., which vectorise along the innermost dimension). */
static void nat_step(double *__restrict__ fn, const double *__restrict__ f, int nx, int ny) {
  const long n = (long) nx * ny;
#pragma omp parallel for schedule(static)
  for (int i = 1; i < nx - 1; i++) {
    const double *src[NQ];
    for (int p = 0; p < NQ; p++) src[p] = f + p * n + (long) (i - cx[p]) * ny - cy[p];
    double *dst = fn + (long) i * ny;
    CORPUS_SIMD_CALL
    for (int j = 1; j < ny - 1; j++) {
      double q[NQ];
      for (int p = 0; p < NQ; p++) q[p] = src[p][j];
      collide9(q);
      for (int p = 0; p < NQ; p++) dst[p * n + j] = q[p];
    }
  }
}
#endif

/* ---------------------------------------------------------------------- */
static const corpusImpl impls[] = {{"serial", CORPUS_SERIAL},
                                   {"port", CORPUS_PORT},
                                   {CORPUS_NAT_NAME, CORPUS_NATIVE}};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };

typedef struct {
  int nx, ny;
  long n;
  double *in[NIMPL], *out[NIMPL];
  targetBox interior;
} d2q9;

static void *create(long sites, corpusSize *size) {
  d2q9 *D = (d2q9 *) calloc(1, sizeof(d2q9));
  D->nx = (int) sqrt((double) sites);
  if (D->nx < 3) D->nx = 3;
  D->ny = (int) (sites / D->nx);
  if (D->ny < 3) D->ny = 3;
  D->n = (long) D->nx * D->ny;
  const double w[NQ] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9,
                        1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
  double *f = (double *) malloc(NQ * D->n * sizeof(double));
  for (int p = 0; p < NQ; p++)
    for (long s = 0; s < D->n; s++) f[p * D->n + s] = w[p] * corpusValue(s * NQ + p, 4);
  for (int k = 0; k < NIMPL; k++) { /* the edge ring of every output: the input's */
    D->in[k] = corpusNewField(impls[k].kind, D->n, NQ, f);
    D->out[k] = corpusNewField(impls[k].kind, D->n, NQ, f);
  }
  free(f);
  int off[NQ];
  for (int p = 0; p < NQ; p++) off[p] = cx[p] * D->ny + cy[p];
  copyConstToTarget(t_off9, off, sizeof(off));
  const long extent[2] = {D->nx, D->ny};
  targetBoxInterior(&D->interior, 2, extent, 1);
  size->sites = D->n;
  size->bytes = 2.0 * NQ * sizeof(double) * D->n;
  snprintf(size->dims, sizeof(size->dims), "%dx%d", D->nx, D->ny);
  return D;
}

static void destroy(void *p) {
  d2q9 *D = (d2q9 *) p;
  for (int k = 0; k < NIMPL; k++) {
    corpusFreeField(impls[k].kind, D->in[k]);
    corpusFreeField(impls[k].kind, D->out[k]);
  }
  free(D);
}

static void step(void *p, int k) {
  d2q9 *D = (d2q9 *) p;
  double *fn = D->out[k];
  const double *f = D->in[k];
  switch (impls[k].kind) {
  case CORPUS_SERIAL: serial_step(fn, f, D->nx, D->ny); break;
  case CORPUS_PORT:
    TDP_LAUNCH_BOX(d2q9_port, D->interior, fn, f);
    targetSynchronize();
    break;
  default: break;
  case CORPUS_NATIVE: nat_step(fn, f, D->nx, D->ny); break;
  }
}

static long check(void *p, int k, int inject) {
  d2q9 *D = (d2q9 *) p;
  double *h = (double *) malloc(NQ * D->n * sizeof(double));
  corpusFetchField(impls[k].kind, h, D->out[k], D->n, NQ);
  if (inject) h[NQ * D->n - D->ny - 2] += 1.0; /* p = 8 at the last interior site */
  long bad = corpusCompare("d2q9", impls[k].name, "f", h, D->out[0], NQ * D->n, corpusTolSame());
  free(h);
  return bad;
}

const corpusShape corpusD2q9 = {
    "d2q9", "D2Q9 BGK step, pull streaming fused with collision, fixed edge", 144.0,
    create, destroy, step, check, NIMPL, impls};
