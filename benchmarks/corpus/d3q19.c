/*
 * d3q19 -- a D3Q19 lattice-Boltzmann step (BGK), pull streaming fused with
 * the collision, on the interior of an nx x ny x nz lattice whose outer
 * layer is held at its initial distributions (set once in every output,
 * never written). f[p][site], site (i, j, k) at (i * ny + j) * nz + k.
 * Validation: bitwise on the host (the same arithmetic, one collide()).
 */
#include <math.h>
#include <stdlib.h>

#include "benchmarks/corpus/corpus.h"

#define NQ 19
#define OMEGA 1.6
#define CX19 {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0}
#define CY19 {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1}
#define CZ19 {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1}
static const int cx[NQ] = CX19;
static const int cy[NQ] = CY19;
static const int cz[NQ] = CZ19;

/* The collision of one site (the legacy code's; TDP_HOST_DEVICE for the
 * port), and the same with its loops over the velocities unrolled
 * (TDP_UNROLL): gcc unrolls a loop completely only up to 16 trips
 * (--param max-completely-peel-times), so the legacy loops of 19 stay
 * loops over arrays in memory, and a loop over sites around them does not
 * vectorise ("multiple nested loops"); and clang 14 does not inline the
 * unrolled function into a loop (TDP_INLINE). The arithmetic is the same. */
#define COLLIDE19(name, QUAL, UNROLL)                                                          \
  static QUAL void name(double f[NQ]) {                                                    \
    const double w[NQ] = {1.0 / 3,  1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18,       \
                          1.0 / 18, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36,       \
                          1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36,       \
                          1.0 / 36};                                                        \
    const double ex[NQ] = CX19, ey[NQ] = CY19, ez[NQ] = CZ19;                               \
    double rho = 0, ux = 0, uy = 0, uz = 0;                                                \
    UNROLL for (int p = 0; p < NQ; p++) {                                                  \
      rho += f[p];                                                                         \
      ux += ex[p] * f[p];                                                                  \
      uy += ey[p] * f[p];                                                                  \
      uz += ez[p] * f[p];                                                                  \
    }                                                                                      \
    ux /= rho;                                                                             \
    uy /= rho;                                                                             \
    uz /= rho;                                                                             \
    const double usq = 1.5 * (ux * ux + uy * uy + uz * uz);                                \
    UNROLL for (int p = 0; p < NQ; p++) {                                                  \
      const double cu = 3.0 * (ex[p] * ux + ey[p] * uy + ez[p] * uz);                      \
      const double feq = w[p] * rho * (1.0 + cu + 0.5 * cu * cu - usq);                    \
      f[p] += OMEGA * (feq - f[p]);                                                        \
    }                                                                                      \
  }
COLLIDE19(collide19, TDP_HOST_DEVICE inline, )
COLLIDE19(collide19u, TDP_DEVICE TDP_INLINE, TDP_UNROLL(NQ)) /* target code only on CUDA */

/* ---------------------------------------------------------------------- */
/* The serial original. */
static void serial_step(double *fn, const double *f, int nx, int ny, int nz) {
  const long n = (long) nx * ny * nz;
  for (int i = 1; i < nx - 1; i++) {
    for (int j = 1; j < ny - 1; j++) {
      for (int k = 1; k < nz - 1; k++) {
        double q[NQ];
        for (int p = 0; p < NQ; p++)
          q[p] = f[p * n + ((i - cx[p]) * ny + (j - cy[p])) * nz + (k - cz[p])];
        collide19(q);
        for (int p = 0; p < NQ; p++) fn[p * n + (i * ny + j) * nz + k] = q[p];
      }
    }
  }
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md: the interior a box loop; the loops over the
 * velocities unrolled (TDP_UNROLL, as apps/lb does) and the collision an
 * always-inlined helper (TDP_INLINE). */
TDP_CONST int t_off19[NQ];

TDP_KERNEL void d3q19_port(targetBox box, double *fn, const double *f) {
  const long nsites = targetBoxLatticeSites(&box);
  TDP_TLP_3D(box, x, y, z0, base) {
    TDP_ILP(v) {
      long s = base + v;
      double q[NQ];
      TDP_UNROLL(NQ) for (int p = 0; p < NQ; p++) q[p] = f[TDP_INDEX(nsites, NQ, s - t_off19[p], p)];
      collide19u(q);
      TDP_UNROLL(NQ) for (int p = 0; p < NQ; p++) fn[TDP_INDEX(nsites, NQ, s, p)] = q[p];
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Native. */
#ifdef __CUDACC__
/* One thread per site, z along the warp, SoA, pull fused with the
 * collision (Tolke 2010; Obrecht et al. 2011: pull faster than push). */
__global__ void __launch_bounds__(256)
    nat_d3q19(double *__restrict__ fn, const double *__restrict__ f, int nx, int ny, int nz) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x + 1,
            j = blockIdx.y * blockDim.y + threadIdx.y + 1,
            i = blockIdx.z * blockDim.z + threadIdx.z + 1;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  const int ex[NQ] = CX19, ey[NQ] = CY19, ez[NQ] = CZ19;
  const long n = (long) nx * ny * nz, s = ((long) i * ny + j) * nz + k;
  double q[NQ];
#pragma unroll
  for (int p = 0; p < NQ; p++) q[p] = f[p * n + s - ((long) ex[p] * ny + ey[p]) * nz - ez[p]];
  collide19u(q);
#pragma unroll
  for (int p = 0; p < NQ; p++) fn[p * n + s] = q[p];
}
static void nat_step(double *fn, const double *f, int nx, int ny, int nz) {
  dim3 block(32, 4, 2), grid((nz - 2 + 31) / 32, (ny - 2 + 3) / 4, (nx - 2 + 1) / 2);
  nat_d3q19<<<grid, block>>>(fn, f, nx, ny, nz);
  nativeSynchronize();
}
#else
/* Threads over the (x, y) rows, SIMD along z, the pull offsets hoisted per
 * row, the velocity loops unrolled (the SoA pull kernels of
 * LbmBenchKernels, Wittmann et al., whose code is generated unrolled). */
static void nat_step(double *__restrict__ fn, const double *__restrict__ f, int nx, int ny,
                     int nz) {
  const long n = (long) nx * ny * nz;
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 1; i < nx - 1; i++) {
    for (int j = 1; j < ny - 1; j++) {
      const double *src[NQ];
      for (int p = 0; p < NQ; p++)
        src[p] = f + p * n + ((long) (i - cx[p]) * ny + (j - cy[p])) * nz - cz[p];
      double *dst = fn + ((long) i * ny + j) * nz;
      CORPUS_SIMD_CALL
      for (int k = 1; k < nz - 1; k++) {
        double q[NQ];
        TDP_UNROLL(NQ) for (int p = 0; p < NQ; p++) q[p] = src[p][k];
        collide19u(q);
        TDP_UNROLL(NQ) for (int p = 0; p < NQ; p++) dst[p * n + k] = q[p];
      }
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
  int nx, ny, nz;
  long n;
  double *in[NIMPL], *out[NIMPL];
  targetBox interior;
} d3q19;

static void *create(long sites, corpusSize *size) {
  d3q19 *D = (d3q19 *) calloc(1, sizeof(d3q19));
  D->nx = D->ny = (int) cbrt((double) sites);
  if (D->nx < 3) D->nx = D->ny = 3;
  D->nz = (int) (sites / ((long) D->nx * D->ny));
  if (D->nz < 3) D->nz = 3;
  D->n = (long) D->nx * D->ny * D->nz;
  const double w[NQ] = {1.0 / 3,  1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18,
                        1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36,
                        1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
  double *f = (double *) malloc(NQ * D->n * sizeof(double));
  for (int p = 0; p < NQ; p++)
    for (long s = 0; s < D->n; s++) f[p * D->n + s] = w[p] * corpusValue(s * NQ + p, 5);
  for (int k = 0; k < NIMPL; k++) {
    D->in[k] = corpusNewField(impls[k].kind, D->n, NQ, f);
    D->out[k] = corpusNewField(impls[k].kind, D->n, NQ, f);
  }
  free(f);
  int off[NQ];
  for (int p = 0; p < NQ; p++) off[p] = (cx[p] * D->ny + cy[p]) * D->nz + cz[p];
  copyConstToTarget(t_off19, off, sizeof(off));
  const long extent[3] = {D->nx, D->ny, D->nz};
  targetBoxInterior(&D->interior, 3, extent, 1);
  size->sites = D->n;
  size->bytes = 2.0 * NQ * sizeof(double) * D->n;
  snprintf(size->dims, sizeof(size->dims), "%dx%dx%d", D->nx, D->ny, D->nz);
  return D;
}

static void destroy(void *p) {
  d3q19 *D = (d3q19 *) p;
  for (int k = 0; k < NIMPL; k++) {
    corpusFreeField(impls[k].kind, D->in[k]);
    corpusFreeField(impls[k].kind, D->out[k]);
  }
  free(D);
}

static void step(void *p, int k) {
  d3q19 *D = (d3q19 *) p;
  double *fn = D->out[k];
  const double *f = D->in[k];
  switch (impls[k].kind) {
  case CORPUS_SERIAL: serial_step(fn, f, D->nx, D->ny, D->nz); break;
  case CORPUS_PORT:
    TDP_LAUNCH_BOX(d3q19_port, D->interior, fn, f);
    targetSynchronize();
    break;
  default: break;
  case CORPUS_NATIVE: nat_step(fn, f, D->nx, D->ny, D->nz); break;
  }
}

static long check(void *p, int k, int inject) {
  d3q19 *D = (d3q19 *) p;
  double *h = (double *) malloc(NQ * D->n * sizeof(double));
  corpusFetchField(impls[k].kind, h, D->out[k], D->n, NQ);
  if (inject) h[NQ * D->n - ((long) D->ny + 1) * D->nz - 2] += 1.0; /* last interior site, p 18 */
  long bad =
      corpusCompare("d3q19", impls[k].name, "f", h, D->out[0], NQ * D->n, corpusTolSame());
  free(h);
  return bad;
}

const corpusShape corpusD3q19 = {
    "d3q19", "D3Q19 BGK step, pull streaming fused with collision, fixed outer layer", 304.0,
    create, destroy, step, check, NIMPL, impls};
