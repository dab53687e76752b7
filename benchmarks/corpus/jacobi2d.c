/*
 * jacobi2d -- a 2-D 5-point Jacobi sweep for Laplace's equation on an
 * nx x ny grid whose edge holds Dirichlet values, and the residual of the
 * sweep (the sum of the squared changes) that a solver tests for
 * convergence after every sweep. The shape issue 28 was filed on: the
 * recipe's port ran at 0.58x its serial original on one thread.
 *
 * Every implementation sweeps the interior only; the edge of every output
 * was set once from the input and is never written. The residual comes
 * back to the host after every sweep (the solver's test), so it is timed.
 * Validation: the field bitwise on the host (the same arithmetic), the
 * residual to CORPUS_TOL_SUM (a sum in another order).
 */
#include <math.h>
#include <stdlib.h>

#include "benchmarks/corpus/corpus.h"
#ifdef __CUDACC__
#include <cub/block/block_reduce.cuh>
#endif

/* ---------------------------------------------------------------------- */
/* The serial original: two nested loops over the interior. */
static double serial_sweep(double *unew, const double *u, int nx, int ny) {
  double res = 0.0;
  for (int i = 1; i < nx - 1; i++) {
    for (int j = 1; j < ny - 1; j++) {
      double v = 0.25 * (u[(i - 1) * ny + j] + u[(i + 1) * ny + j] + u[i * ny + j - 1] +
                         u[i * ny + j + 1]);
      double d = v - u[i * ny + j];
      unew[i * ny + j] = v;
      res += d * d;
    }
  }
  return res;
}

/* ---------------------------------------------------------------------- */
/* The port, as docs/porting.md tells a user to write it: the interior as a
 * box (targetBoxInterior), the residual a box sum (TDP_TLP_2D_SUM,
 * targetBlockAddDouble, TDP_LAUNCH_BOX_REDUCE). No coordinates from the
 * site index, no boundary test: the recipe of phase 1 (one loop over every
 * site, i = s / ny, j = s % ny and the old bounds a test) ran at 0.58x
 * this serial original on one thread (gcc 12: "control flow in loop"). */
TDP_KERNEL void jacobi_port(targetBox box, double *unew, const double *u, double *t_res) {
  const long nsites = targetBoxLatticeSites(&box), ny = box.extent[1];
  double res = 0.0;
  TDP_TLP_2D_SUM(box, x, y0, base, res) {
    TDP_ILP_REDUCE(v) {
      long s = base + v;
      double val = 0.25 * (u[TDP_INDEX(nsites, 1, s - ny, 0)] + u[TDP_INDEX(nsites, 1, s + ny, 0)] +
                           u[TDP_INDEX(nsites, 1, s - 1, 0)] + u[TDP_INDEX(nsites, 1, s + 1, 0)]);
      double d = val - u[TDP_INDEX(nsites, 1, s, 0)];
      unew[TDP_INDEX(nsites, 1, s, 0)] = val;
      res += d * d;
    }
  }
  targetBlockAddDouble(t_res, res);
}

/* ---------------------------------------------------------------------- */
/* Native. */
#ifdef __CUDACC__
/* The CUDA Jacobi of NVIDIA's multi-gpu-programming-models (jacobi_kernel):
 * 2-D thread blocks over the grid, a warp along a row (coalesced), one site
 * per thread, the residual summed per block by cub::BlockReduce and added
 * with one atomicAdd per block. Two block shapes, the faster counts: 32 x 32
 * (that code's) and 32 x 8 (four times the atomics, four times the blocks
 * in flight). */
template <int BX, int BY>
__global__ void __launch_bounds__(BX * BY)
    nat_jacobi(double *__restrict__ un, const double *__restrict__ u, int nx, int ny,
               double *__restrict__ res) {
  typedef cub::BlockReduce<double, BX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, BY> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  const int j = blockIdx.x * BX + threadIdx.x + 1, i = blockIdx.y * BY + threadIdx.y + 1;
  double d2 = 0.0;
  if (i < nx - 1 && j < ny - 1) {
    const long s = (long) i * ny + j;
    double v = 0.25 * (u[s - ny] + u[s + ny] + u[s - 1] + u[s + 1]);
    double d = v - u[s];
    un[s] = v;
    d2 = d * d;
  }
  double b = Reduce(tmp).Sum(d2);
  if (threadIdx.x == 0 && threadIdx.y == 0) atomicAdd(res, b);
}
template <int BX, int BY> static void nat_launch(double *un, const double *u, int nx, int ny,
                                                 double *n_res) {
  dim3 grid((ny - 2 + BX - 1) / BX, (nx - 2 + BY - 1) / BY);
  nat_jacobi<BX, BY><<<grid, dim3(BX, BY)>>>(un, u, nx, ny, n_res);
}
static double nat_sweep(double *un, const double *u, int nx, int ny, double *n_res, int variant) {
  double res = 0.0;
  cudaMemsetAsync(n_res, 0, sizeof(double));
  if (variant == 0) nat_launch<32, 32>(un, u, nx, ny, n_res);
  else nat_launch<32, 8>(un, u, nx, ny, n_res);
  cudaMemcpy(&res, n_res, sizeof(double), cudaMemcpyDeviceToHost);
  nativeSynchronize();
  return res;
}
#else
/* The OpenMP Jacobi of the literature (the host version of NVIDIA's
 * laplace2d OpenACC/OpenMP teaching code, the OpenMP examples' Jacobi):
 * threads over rows, SIMD along a row, the residual a reduction of both;
 * restrict pointers so the row loop needs no alias check. */
static double nat_sweep(double *__restrict__ un, const double *__restrict__ u, int nx, int ny,
                        double *n_res, int variant) {
  (void) n_res;
  (void) variant;
  double res = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : res)
  for (int i = 1; i < nx - 1; i++) {
#pragma omp simd reduction(+ : res)
    for (int j = 1; j < ny - 1; j++) {
      const long s = (long) i * ny + j;
      double v = 0.25 * (u[s - ny] + u[s + ny] + u[s - 1] + u[s + 1]);
      double d = v - u[s];
      un[s] = v;
      res += d * d;
    }
  }
  return res;
}
#endif

/* ---------------------------------------------------------------------- */
static const corpusImpl impls[] = {
    {"serial", CORPUS_SERIAL}, {"port", CORPUS_PORT}, {CORPUS_NAT_NAME, CORPUS_NATIVE},
#ifdef __CUDACC__
    {"cuda-32x8", CORPUS_NATIVE}
#endif
};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };

typedef struct {
  int nx, ny;
  long n;
  double *in[NIMPL], *out[NIMPL]; /* in[k]: k's family's copy (shared within it) */
  double res[NIMPL];
  double *t_res, *n_res;
  targetBox interior;
} jacobi;

static void *create(long sites, corpusSize *size) {
  jacobi *J = (jacobi *) calloc(1, sizeof(jacobi));
  J->nx = (int) sqrt((double) sites);
  if (J->nx < 3) J->nx = 3;
  J->ny = (int) (sites / J->nx);
  if (J->ny < 3) J->ny = 3;
  J->n = (long) J->nx * J->ny;
  double *u = (double *) malloc(J->n * sizeof(double));
  for (long s = 0; s < J->n; s++) { /* edge: 1 on the first row, 0 elsewhere */
    long i = s / J->ny, j = s % J->ny;
    int edge = i == 0 || j == 0 || i == J->nx - 1 || j == J->ny - 1;
    u[s] = edge ? (i == 0 ? 1.0 : 0.0) : corpusValue(s, 1);
  }
  for (int k = 0; k < NIMPL; k++) {
    J->in[k] = corpusNewField(impls[k].kind, J->n, 1, u);
    J->out[k] = corpusNewField(impls[k].kind, J->n, 1, u);
  }
  J->t_res = corpusAlloc(CORPUS_TARGET, 1);
  J->n_res = corpusAlloc(CORPUS_NAT, 1);
  const long extent[2] = {J->nx, J->ny};
  targetBoxInterior(&J->interior, 2, extent, 1);
  free(u);
  size->sites = J->n;
  size->bytes = 2.0 * sizeof(double) * J->n;
  snprintf(size->dims, sizeof(size->dims), "%dx%d", J->nx, J->ny);
  return J;
}

static void destroy(void *p) {
  jacobi *J = (jacobi *) p;
  for (int k = 0; k < NIMPL; k++) {
    corpusFreeField(impls[k].kind, J->in[k]);
    corpusFreeField(impls[k].kind, J->out[k]);
  }
  corpusFree(CORPUS_TARGET, J->t_res);
  corpusFree(CORPUS_NAT, J->n_res);
  free(J);
}

static void step(void *p, int k) {
  jacobi *J = (jacobi *) p;
  double *un = J->out[k];
  const double *u = J->in[k];
  switch (impls[k].kind) {
  case CORPUS_SERIAL: J->res[k] = serial_sweep(un, u, J->nx, J->ny); break;
  case CORPUS_PORT:
    targetZero(J->t_res, 1);
    TDP_LAUNCH_BOX_REDUCE(jacobi_port, J->interior, un, u, J->t_res);
    copyFromTarget(&J->res[k], J->t_res, sizeof(double));
    break;
  case CORPUS_NATIVE: J->res[k] = nat_sweep(un, u, J->nx, J->ny, J->n_res, k - 2); break;
  default: break;
  }
}

static long check(void *p, int k, int inject) {
  jacobi *J = (jacobi *) p;
  double *h = (double *) malloc(J->n * sizeof(double));
  corpusFetchField(impls[k].kind, h, J->out[k], J->n, 1);
  if (inject) h[J->n - J->ny - 2] += 1.0; /* the last interior site */
  long bad = corpusCompare("jacobi2d", impls[k].name, "field", h, J->out[0], J->n,
                           corpusTolSame());
  bad += corpusCompare("jacobi2d", impls[k].name, "residual", &J->res[k], &J->res[0], 1,
                       CORPUS_TOL_SUM);
  free(h);
  return bad;
}

const corpusShape corpusJacobi2d = {
    "jacobi2d", "2-D 5-point Jacobi sweep, Dirichlet edge, residual of the sweep", 16.0,
    create, destroy, step, check, NIMPL, impls};
