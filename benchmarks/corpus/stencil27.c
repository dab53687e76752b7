/*
 * stencil27 -- a 27-point stencil (the 3x3x3 neighbourhood, weights by the
 * distance class: centre, 6 faces, 12 edges, 8 corners; a smoothing or
 * compact-Laplacian step) on the interior of an nx x ny x nz lattice whose
 * outer layer is held (copied every step). The legacy form sums over the
 * offsets with three small loops and a weight table; every implementation
 * sums in that order (di, dj, dk), so the results are bitwise equal on the
 * host. Algebraic rewrites (partial sums shared between neighbours) change
 * the rounding and the algorithm, not the loop form: out of scope here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/corpus/corpus.h"

/* weight of an offset by |di| + |dj| + |dk| */
#define W0 0.4
#define W1 0.05
#define W2 0.02
#define W3 0.01

/* ---------------------------------------------------------------------- */
/* The serial original. */
static void serial_step(double *unew, const double *u, int nx, int ny, int nz) {
  const double w[4] = {W0, W1, W2, W3};
  for (int i = 0; i < nx; i++) {
    for (int j = 0; j < ny; j++) {
      for (int k = 0; k < nz; k++) {
        int s = (i * ny + j) * nz + k;
        if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
          unew[s] = u[s];
          continue;
        }
        double acc = 0.0;
        for (int di = -1; di <= 1; di++)
          for (int dj = -1; dj <= 1; dj++)
            for (int dk = -1; dk <= 1; dk++)
              acc += w[abs(di) + abs(dj) + abs(dk)] * u[s + (di * ny + dj) * nz + dk];
        unew[s] = acc;
      }
    }
  }
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md: one kernel over the whole lattice
 * (TDP_TLP_3D_EDGE over targetBoxAll in a TDP_KERNEL_STENCIL,
 * TDP_LAUNCH_STENCIL), as heat3d's: on the H100 0.99 of the native
 * (benchmarks/results/h100-80317e5-block0/; as a marching TDP_KERNEL, 0.95);
 * the body, its offset loops and the TDP_CONST weight table as the legacy
 * code has them. Issue 28 (H100 + 16-core host, port / best native): the
 * interior march plus a shell pass ("port-march") 0.93 on one host thread
 * (gcc 13) and 0.83 on the GPU; this kernel launched by TDP_LAUNCH_BOX
 * ("port-edge-box": on CUDA TDP_TLP_3D's rows, no march) 1.04 on the host
 * but 0.52 on the GPU. */
TDP_CONST double t_w[4];

/* The legacy body: three offset loops and the weight table; the wall copy. */
static TDP_DEVICE TDP_INLINE double st27_port_sum(const double *u, long s, long ny, long nz,
                                                  long nsites) {
  double acc = 0.0;
  for (int di = -1; di <= 1; di++)
    for (int dj = -1; dj <= 1; dj++)
      for (int dk = -1; dk <= 1; dk++)
        acc += t_w[abs(di) + abs(dj) + abs(dk)] *
               u[TDP_INDEX(nsites, 1, s + (di * ny + dj) * nz + dk, 0)];
  (void) nsites; /* not every layout needs it */
  return acc;
}
static TDP_DEVICE TDP_INLINE void st27_wall(double *unew, const double *u, long s, long nsites) {
  unew[TDP_INDEX(nsites, 1, s, 0)] = u[TDP_INDEX(nsites, 1, s, 0)];
  (void) nsites;
}

/* The port: interior and walls in one kernel ("port", and "port-edge-box"). */
TDP_KERNEL_STENCIL void st27_edge(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), ny = box.extent[1], nz = box.extent[2];
  TDP_TLP_3D_EDGE(box, 1, x, y, z0, base, edge) {
    if (edge) {
      TDP_ILP(v) st27_wall(unew, u, base + v, nsites);
    } else {
      TDP_ILP(v) unew[TDP_INDEX(nsites, 1, base + v, 0)] = st27_port_sum(u, base + v, ny, nz, nsites);
    }
  }
}

/* The two-kernel forms timed beside it: the interior as TDP_TLP_3D_MARCH
 * in a TDP_KERNEL_STENCIL launched by TDP_LAUNCH_STENCIL ("port-march": on
 * CUDA one site per thread; until 375b8bf marching) or a plain box loop
 * ("port-row", as heat3d's), the walls a pass over the shell. */
TDP_KERNEL_STENCIL void st27_interior(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), ny = box.extent[1], nz = box.extent[2];
  TDP_TLP_3D_MARCH(box, x, y, z0, base) {
    TDP_ILP(v) unew[TDP_INDEX(nsites, 1, base + v, 0)] = st27_port_sum(u, base + v, ny, nz, nsites);
  }
}
TDP_KERNEL void st27_interior_row(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), ny = box.extent[1], nz = box.extent[2];
  TDP_TLP_3D(box, x, y, z0, base) {
    TDP_ILP(v) unew[TDP_INDEX(nsites, 1, base + v, 0)] = st27_port_sum(u, base + v, ny, nz, nsites);
  }
}
/* The marching interior held to 4 blocks of 256 per multiprocessor
 * (TDP_KERNEL_OCC(4): 64 registers, no spill; "port-occ"): the march's
 * walk keeps the 27 addresses in registers (80 of them, 3 blocks per
 * multiprocessor, sm_90); which count is faster is this row's question. */
TDP_KERNEL_OCC(4) void st27_interior_occ(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), ny = box.extent[1], nz = box.extent[2];
  TDP_TLP_3D_MARCH(box, x, y, z0, base) {
    TDP_ILP(v) unew[TDP_INDEX(nsites, 1, base + v, 0)] = st27_port_sum(u, base + v, ny, nz, nsites);
  }
}
TDP_KERNEL void st27_walls(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box);
  TDP_TLP_3D_SHELL(box, 1, x, y, z0, base) {
    TDP_ILP(v) st27_wall(unew, u, base + v, nsites);
  }
}

/* ---------------------------------------------------------------------- */
/* Native: the offsets unrolled by hand, in the legacy order (the form
 * stencil benchmarks write, e.g. the 27-point kernels of Datta et al.,
 * SC08), the weights literals. */
static TDP_HOST_DEVICE inline double st27_sum(const double *__restrict__ u, long s, long sx,
                                               long sy) {
  double acc = 0.0;
  acc += W3 * u[s - sx - sy - 1];
  acc += W2 * u[s - sx - sy];
  acc += W3 * u[s - sx - sy + 1];
  acc += W2 * u[s - sx - 1];
  acc += W1 * u[s - sx];
  acc += W2 * u[s - sx + 1];
  acc += W3 * u[s - sx + sy - 1];
  acc += W2 * u[s - sx + sy];
  acc += W3 * u[s - sx + sy + 1];
  acc += W2 * u[s - sy - 1];
  acc += W1 * u[s - sy];
  acc += W2 * u[s - sy + 1];
  acc += W1 * u[s - 1];
  acc += W0 * u[s];
  acc += W1 * u[s + 1];
  acc += W2 * u[s + sy - 1];
  acc += W1 * u[s + sy];
  acc += W2 * u[s + sy + 1];
  acc += W3 * u[s + sx - sy - 1];
  acc += W2 * u[s + sx - sy];
  acc += W3 * u[s + sx - sy + 1];
  acc += W2 * u[s + sx - 1];
  acc += W1 * u[s + sx];
  acc += W2 * u[s + sx + 1];
  acc += W3 * u[s + sx + sy - 1];
  acc += W2 * u[s + sx + sy];
  acc += W3 * u[s + sx + sy + 1];
  return acc;
}

#ifdef __CUDACC__
/* One thread per site in 3-D blocks, z along the warp, the walls in the
 * same kernel (as heat3d's nat_heat). */
__global__ void __launch_bounds__(256)
    nat_st27(double *__restrict__ un, const double *__restrict__ u, int nx, int ny, int nz) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
            i = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  const long sx = (long) ny * nz, sy = nz, s = i * sx + (long) j * nz + k;
  if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) un[s] = u[s];
  else un[s] = st27_sum(u, s, sx, sy);
}
static void nat_step(double *un, const double *u, int nx, int ny, int nz) {
  dim3 block(32, 4, 2), grid((nz + 31) / 32, (ny + 3) / 4, (nx + 1) / 2);
  nat_st27<<<grid, block>>>(un, u, nx, ny, nz);
  nativeSynchronize();
}
#else
/* Threads over (x, y) rows, SIMD along z (as heat3d's native). */
static void nat_step(double *__restrict__ un, const double *__restrict__ u, int nx, int ny,
                     int nz) {
  const long sx = (long) ny * nz, sy = nz;
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < nx; i++) {
    for (int j = 0; j < ny; j++) {
      const long r = i * sx + (long) j * nz;
      if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        memcpy(un + r, u + r, nz * sizeof(double));
        continue;
      }
      un[r] = u[r];
#pragma omp simd
      for (int k = 1; k < nz - 1; k++) {
        const long s = r + k;
        un[s] = st27_sum(u, s, sx, sy);
      }
      un[r + nz - 1] = u[r + nz - 1]; /* after the row: in the order of the stores' stream */
    }
  }
}
#endif

/* ---------------------------------------------------------------------- */
static const corpusImpl impls[] = {{"serial", CORPUS_SERIAL},
                                   {"port", CORPUS_PORT},
                                   {"port-march", CORPUS_PROTO},
                                   {"port-edge-box", CORPUS_PROTO},
                                   {"port-row", CORPUS_PROTO},
                                   {"port-occ", CORPUS_PROTO},
                                   {CORPUS_NAT_NAME, CORPUS_NATIVE}};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };

typedef struct {
  int nx, ny, nz;
  long n;
  double *in[NIMPL], *out[NIMPL];
  targetBox all, interior;
} st27;

static void *create(long sites, corpusSize *size) {
  st27 *S = (st27 *) calloc(1, sizeof(st27));
  S->nx = S->ny = (int) cbrt((double) sites);
  if (S->nx < 3) S->nx = S->ny = 3;
  S->nz = (int) (sites / ((long) S->nx * S->ny));
  if (S->nz < 3) S->nz = 3;
  S->n = (long) S->nx * S->ny * S->nz;
  double *u = (double *) malloc(S->n * sizeof(double));
  for (long s = 0; s < S->n; s++) u[s] = corpusValue(s, 3);
  for (int k = 0; k < NIMPL; k++) {
    S->in[k] = corpusNewField(impls[k].kind, S->n, 1, u);
    S->out[k] = corpusNewField(impls[k].kind, S->n, 1, NULL);
  }
  free(u);
  const double w[4] = {W0, W1, W2, W3};
  copyConstToTarget(t_w, w, sizeof(w));
  const long extent[3] = {S->nx, S->ny, S->nz};
  targetBoxInterior(&S->interior, 3, extent, 1);
  targetBoxAll(&S->all, 3, extent);
  size->sites = S->n;
  size->bytes = 2.0 * sizeof(double) * S->n;
  snprintf(size->dims, sizeof(size->dims), "%dx%dx%d", S->nx, S->ny, S->nz);
  return S;
}

static void destroy(void *p) {
  st27 *S = (st27 *) p;
  for (int k = 0; k < NIMPL; k++) {
    corpusFreeField(impls[k].kind, S->in[k]);
    corpusFreeField(impls[k].kind, S->out[k]);
  }
  free(S);
}

static void step(void *p, int k) {
  st27 *S = (st27 *) p;
  double *un = S->out[k];
  const double *u = S->in[k];
  switch (impls[k].kind) {
  case CORPUS_SERIAL: serial_step(un, u, S->nx, S->ny, S->nz); break;
  case CORPUS_PORT:
    TDP_LAUNCH_STENCIL(st27_edge, S->all, un, u);
    targetSynchronize();
    break;
  case CORPUS_PROTO:
    if (strcmp(impls[k].name, "port-edge-box") == 0) {
      TDP_LAUNCH_BOX(st27_edge, S->all, un, u);
      targetSynchronize();
      break;
    }
    if (strcmp(impls[k].name, "port-march") == 0) TDP_LAUNCH_STENCIL(st27_interior, S->interior, un, u);
    else if (strcmp(impls[k].name, "port-occ") == 0) TDP_LAUNCH_BOX_MARCH(st27_interior_occ, S->interior, un, u);
    else TDP_LAUNCH_BOX(st27_interior_row, S->interior, un, u);
    TDP_LAUNCH_SHELL(st27_walls, S->all, 1, un, u);
    targetSynchronize();
    break;
  default: break;
  case CORPUS_NATIVE: nat_step(un, u, S->nx, S->ny, S->nz); break;
  }
}

static long check(void *p, int k, int inject) {
  st27 *S = (st27 *) p;
  double *h = (double *) malloc(S->n * sizeof(double));
  corpusFetchField(impls[k].kind, h, S->out[k], S->n, 1);
  if (inject) h[S->n / 2] += 1.0;
  long bad =
      corpusCompare("stencil27", impls[k].name, "field", h, S->out[0], S->n, corpusTolSame());
  free(h);
  return bad;
}

const corpusShape corpusStencil27 = {
    "stencil27", "3-D 27-point stencil (weights by distance class), walls copied", 16.0,
    create, destroy, step, check, NIMPL, impls};
