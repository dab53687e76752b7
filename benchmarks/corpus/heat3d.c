/*
 * heat3d -- one explicit step of the 3-D heat equation, 7-point Laplacian,
 * on an nx x ny x nz box whose walls (the outer layer) hold their values:
 * the serial original copies them every step, as examples/heat_serial.c
 * does in 2-D; its port is examples/heat_targetDP.c's recipe in 3-D.
 * Validation: bitwise on the host (the same arithmetic).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/corpus/corpus.h"

#define ALPHA 0.1 /* stable for alpha <= 1/6 */

/* ---------------------------------------------------------------------- */
/* The serial original. */
static void serial_step(double *unew, const double *u, int nx, int ny, int nz, double alpha) {
  for (int i = 0; i < nx; i++) {
    for (int j = 0; j < ny; j++) {
      for (int k = 0; k < nz; k++) {
        int s = (i * ny + j) * nz + k;
        if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
          unew[s] = u[s];
        } else {
          double lap = u[s - ny * nz] + u[s + ny * nz] + u[s - nz] + u[s + nz] + u[s - 1] +
                       u[s + 1] - 6.0 * u[s];
          unew[s] = u[s] + alpha * lap;
        }
      }
    }
  }
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md: one kernel over the whole lattice
 * (TDP_TLP_3D_EDGE over targetBoxAll in a TDP_KERNEL_STENCIL, launched by
 * TDP_LAUNCH_STENCIL), the interior update where the loop says interior
 * and the wall copy where it says edge, with no coordinates and no wall
 * test of its own. On the host it is one pass in memory order; on CUDA one
 * site per thread in the native's blocks (0.96 of the native on the H100;
 * as a plain TDP_KERNEL marching through x, 0.88). Why this form
 * (issue 28, H100 + 16-core host, port / best native): the interior march
 * plus a shell pass ("port-march") 0.73 on one host thread (gcc 13; the
 * shell pass reads and writes both ends of every interior row again after
 * they left the cache) and 0.80 on the GPU; this kernel launched by
 * TDP_LAUNCH_BOX (then on CUDA TDP_TLP_3D's rows, no march) 0.87 on the
 * host but 0.71 on the GPU. Earlier (phase 1, gcc 12, one thread of the
 * 2-core CI box, 125x125x128): the recipe (one loop over every site,
 * coordinates by division, the wall test) 0.5x serial; a box loop over the
 * whole lattice with the test kept 1.4x; interior plus shell 3.2x. */
TDP_CONST double t_alpha;

/* The legacy body, TDP_INLINE helpers of the site for the port kernels
 * below (as stencil27.c's): the update and the wall copy. */
static TDP_DEVICE TDP_INLINE void heat_site(double *unew, const double *u, long s, long sx, long sy,
                                            long nsites) {
  size_t is = TDP_INDEX(nsites, 1, s, 0);
  double lap = u[TDP_INDEX(nsites, 1, s - sx, 0)] + u[TDP_INDEX(nsites, 1, s + sx, 0)]
             + u[TDP_INDEX(nsites, 1, s - sy, 0)] + u[TDP_INDEX(nsites, 1, s + sy, 0)]
             + u[TDP_INDEX(nsites, 1, s - 1, 0)] + u[TDP_INDEX(nsites, 1, s + 1, 0)]
             - 6.0 * u[is];
  unew[is] = u[is] + t_alpha * lap;
  (void) nsites; /* not every layout needs it */
}
static TDP_DEVICE TDP_INLINE void heat_wall(double *unew, const double *u, long s, long nsites) {
  unew[TDP_INDEX(nsites, 1, s, 0)] = u[TDP_INDEX(nsites, 1, s, 0)];
  (void) nsites;
}

/* The port: interior and walls in one kernel ("port"; the same kernel
 * launched by TDP_LAUNCH_BOX is "port-edge-box": on CUDA its marching
 * instance over TDP_LAUNCH_BOX's grid, each thread one plane). */
TDP_KERNEL_STENCIL void heat_edge(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), sy = box.extent[2],
             sx = box.extent[1] * box.extent[2];
  TDP_TLP_3D_EDGE(box, 1, x, y, z0, base, edge) {
    if (edge) {
      TDP_ILP(v) heat_wall(unew, u, base + v, nsites);
    } else {
      TDP_ILP(v) {
        heat_site(unew, u, base + v, sx, sy, nsites);
      }
    }
  }
}

/* The two-kernel form timed beside it ("port-march"): the interior
 * (TDP_TLP_3D_MARCH over targetBoxInterior in a TDP_KERNEL_STENCIL,
 * TDP_LAUNCH_STENCIL: on CUDA one site per thread; until 375b8bf a plain
 * TDP_KERNEL launched by TDP_LAUNCH_BOX_MARCH, marching along x), the walls
 * a pass over the shell (TDP_TLP_3D_SHELL, TDP_LAUNCH_SHELL). On the C
 * backend the interior loop is TDP_TLP_3D. */
TDP_KERNEL_STENCIL void heat_interior(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), sy = box.extent[2],
             sx = box.extent[1] * box.extent[2];
  TDP_TLP_3D_MARCH(box, x, y, z0, base) {
    TDP_ILP(v) {
      heat_site(unew, u, base + v, sx, sy, nsites);
    }
  }
}
/* The same with the plain box loop (TDP_TLP_3D, TDP_LAUNCH_BOX; "port-row",
 * timed beside it: on CUDA a block is a row of TPB strides, so every y and
 * x neighbour is another block's load, from L2). */
TDP_KERNEL void heat_interior_row(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), sy = box.extent[2],
             sx = box.extent[1] * box.extent[2];
  TDP_TLP_3D(box, x, y, z0, base) {
    TDP_ILP(v) {
      heat_site(unew, u, base + v, sx, sy, nsites);
    }
  }
}
TDP_KERNEL void heat_walls(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box);
  TDP_TLP_3D_SHELL(box, 1, x, y, z0, base) {
    TDP_ILP(v) heat_wall(unew, u, base + v, nsites);
  }
}

/* ---------------------------------------------------------------------- */
/* Native. */
#ifdef __CUDACC__
/* One thread per site in 3-D blocks, z (unit stride) along the warp, the
 * walls copied by the same kernel (the textbook CUDA 7-point stencil, e.g.
 * the naive kernel of Micikevicius, "3D finite difference computation on
 * GPUs using CUDA", GPGPU-2 2009). */
__global__ void __launch_bounds__(256)
    nat_heat(double *__restrict__ un, const double *__restrict__ u, int nx, int ny, int nz,
             double alpha) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
            i = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  const long sx = (long) ny * nz, s = i * sx + (long) j * nz + k;
  if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
    un[s] = u[s];
  } else {
    double lap = u[s - sx] + u[s + sx] + u[s - nz] + u[s + nz] + u[s - 1] + u[s + 1] - 6.0 * u[s];
    un[s] = u[s] + alpha * lap;
  }
}
/* The same marching along x (the slowest dimension): each thread owns a
 * (y, z) column and keeps u at x-1, x, x+1 in registers, so a site costs 5
 * loads, not 7 (Micikevicius 2009, the register queue of his 2.5-D
 * blocking, without the shared-memory tile: the H100's L1 serves the y, z
 * neighbours). */
__global__ void __launch_bounds__(256)
    nat_heat_march(double *__restrict__ un, const double *__restrict__ u, int nx, int ny, int nz,
                   double alpha) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (j >= ny || k >= nz) return;
  const long sx = (long) ny * nz;
  const bool wall = j == 0 || k == 0 || j == ny - 1 || k == nz - 1;
  long s = (long) j * nz + k;
  double below = u[s], here = u[s + sx];
  un[s] = below;
  for (int i = 1; i < nx - 1; i++) {
    s += sx;
    double above = u[s + sx];
    if (wall) {
      un[s] = here;
    } else {
      double lap = below + above + u[s - nz] + u[s + nz] + u[s - 1] + u[s + 1] - 6.0 * here;
      un[s] = here + alpha * lap;
    }
    below = here;
    here = above;
  }
  un[s + sx] = here;
}
static void nat_step(double *un, const double *u, int nx, int ny, int nz, int march) {
  if (march) {
    dim3 block(32, 8), grid((nz + 31) / 32, (ny + 7) / 8);
    nat_heat_march<<<grid, block>>>(un, u, nx, ny, nz, ALPHA);
  } else {
    dim3 block(32, 4, 2), grid((nz + 31) / 32, (ny + 3) / 4, (nx + 1) / 2);
    nat_heat<<<grid, block>>>(un, u, nx, ny, nz, ALPHA);
  }
  nativeSynchronize();
}
#else
/* The OpenMP 7-point stencil of the literature (e.g. Datta et al., SC08,
 * and the OpenMP examples of stencil codes): threads over the (x, y) rows,
 * SIMD along z, restrict; a wall row is one memcpy, an interior row copies
 * its first site, updates the rest and copies its last site, in memory
 * order: with the last site stored before the row (issue 28) the step took
 * 9.8 ms at 161^3 on one thread of the 2-core box, in order 7.6-8.3 ms
 * (clang 14, gcc 12), the serial original's time under clang. */
static void nat_step(double *__restrict__ un, const double *__restrict__ u, int nx, int ny,
                     int nz, int march) {
  (void) march;
  const long sx = (long) ny * nz;
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
        double lap = u[s - sx] + u[s + sx] + u[s - nz] + u[s + nz] + u[s - 1] + u[s + 1] -
                     6.0 * u[s];
        un[s] = u[s] + ALPHA * lap;
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
                                   {CORPUS_NAT_NAME, CORPUS_NATIVE},
#ifdef __CUDACC__
                                   {"cuda-march", CORPUS_NATIVE}
#endif
};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };

typedef struct {
  int nx, ny, nz;
  long n;
  double *in[NIMPL], *out[NIMPL];
  targetBox all, interior;
} heat;

static void *create(long sites, corpusSize *size) {
  heat *H = (heat *) calloc(1, sizeof(heat));
  H->nx = H->ny = (int) cbrt((double) sites);
  if (H->nx < 3) H->nx = H->ny = 3;
  H->nz = (int) (sites / ((long) H->nx * H->ny));
  if (H->nz < 3) H->nz = 3;
  H->n = (long) H->nx * H->ny * H->nz;
  double *u = (double *) malloc(H->n * sizeof(double));
  for (long s = 0; s < H->n; s++) u[s] = corpusValue(s, 2);
  for (int k = 0; k < NIMPL; k++) {
    H->in[k] = corpusNewField(impls[k].kind, H->n, 1, u);
    H->out[k] = corpusNewField(impls[k].kind, H->n, 1, NULL);
  }
  free(u);
  const double alpha = ALPHA;
  copyConstToTarget(&t_alpha, &alpha, sizeof(double));
  const long extent[3] = {H->nx, H->ny, H->nz};
  targetBoxAll(&H->all, 3, extent);
  targetBoxInterior(&H->interior, 3, extent, 1);
  size->sites = H->n;
  size->bytes = 2.0 * sizeof(double) * H->n;
  snprintf(size->dims, sizeof(size->dims), "%dx%dx%d", H->nx, H->ny, H->nz);
  return H;
}

static void destroy(void *p) {
  heat *H = (heat *) p;
  for (int k = 0; k < NIMPL; k++) {
    corpusFreeField(impls[k].kind, H->in[k]);
    corpusFreeField(impls[k].kind, H->out[k]);
  }
  free(H);
}

static void step(void *p, int k) {
  heat *H = (heat *) p;
  double *un = H->out[k];
  const double *u = H->in[k];
  const char *name = impls[k].name;
  if (impls[k].kind == CORPUS_SERIAL) {
    serial_step(un, u, H->nx, H->ny, H->nz, ALPHA);
  } else if (impls[k].kind == CORPUS_PORT) {
    TDP_LAUNCH_STENCIL(heat_edge, H->all, un, u);
    targetSynchronize();
  } else if (strcmp(name, "port-edge-box") == 0) {
    TDP_LAUNCH_BOX(heat_edge, H->all, un, u);
    targetSynchronize();
  } else if (strcmp(name, "port-march") == 0) {
    TDP_LAUNCH_STENCIL(heat_interior, H->interior, un, u);
    TDP_LAUNCH_SHELL(heat_walls, H->all, 1, un, u);
    targetSynchronize();
  } else if (impls[k].kind == CORPUS_PROTO) {
    TDP_LAUNCH_BOX(heat_interior_row, H->interior, un, u);
    TDP_LAUNCH_SHELL(heat_walls, H->all, 1, un, u);
    targetSynchronize();
  } else {
    nat_step(un, u, H->nx, H->ny, H->nz, strcmp(name, "cuda-march") == 0);
  }
}

static long check(void *p, int k, int inject) {
  heat *H = (heat *) p;
  double *h = (double *) malloc(H->n * sizeof(double));
  corpusFetchField(impls[k].kind, h, H->out[k], H->n, 1);
  if (inject) h[H->n / 2] += 1.0;
  long bad = corpusCompare("heat3d", impls[k].name, "field", h, H->out[0], H->n, corpusTolSame());
  free(h);
  return bad;
}

const corpusShape corpusHeat3d = {
    "heat3d", "3-D 7-point heat step, walls copied every step", 16.0,
    create, destroy, step, check, NIMPL, impls};
