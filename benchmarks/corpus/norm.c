/*
 * norm -- the 2-norm of a field, a reduction and nothing else (a CG
 * solver's |r|, a convergence test). The serial original sums in order;
 * every other implementation sums in another order. Each result, the
 * serial original's too, is held to the correctly rounded norm (the
 * layer's exact sum of the same squares) within the bound of recursive
 * summation of positive terms, n eps / 2 relative, and CORPUS_TOL_SUM at
 * least: at 2^26 sites (H100 runs, --mb 512) the serial original itself
 * is 4.2e-10 off, the GPU's tree sums 1e-15, and a comparison with the
 * serial sum to 1e-10 failed the correct ones. A dropped term (1/n
 * relative) stays above the bound up to 9e7 sites.
 */
#include <math.h>
#include <stdlib.h>

#include "benchmarks/corpus/corpus.h"
#include "benchmarks/corpus/proto_layer.h"

/* ---------------------------------------------------------------------- */
/* The serial original. */
static double serial_norm(const double *x, int n) {
  double sum = 0.0;
  for (int s = 0; s < n; s++) sum += x[s] * x[s];
  return sqrt(sum);
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md, "Reductions": TDP_TLP_SUM, targetBlockAddDouble,
 * TDP_LAUNCH_REDUCE; the square root on the host. */
TDP_KERNEL void norm_port(const double *x, int nsites, double *t_sum) {
  double sum = 0.0;
  TDP_TLP_SUM(baseIndex, nsites, sum) {
    TDP_ILP_REDUCE(vecIndex) {
      double xs = x[TDP_INDEX(nsites, 1, baseIndex + vecIndex, 0)];
      sum += xs * xs;
    }
  }
  targetBlockAddDouble(t_sum, sum);
}

/* The proto: the same body in PROTO_TLP_SUM (a two-level reduction that
 * clang vectorises). */
TDP_KERNEL void norm_proto(const double *x, int nsites, double *t_sum) {
  double sum = 0.0;
  PROTO_TLP_SUM(baseIndex, nsites, sum) {
    TDP_ILP_REDUCE(vecIndex) {
      double xs = x[TDP_INDEX(nsites, 1, baseIndex + vecIndex, 0)];
      sum += xs * xs;
    }
  }
  targetBlockAddDouble(t_sum, sum);
}

/* ---------------------------------------------------------------------- */
/* Native. */
#ifdef __CUDACC__
/* A capped grid (two fills of the GPU) of grid-stride threads with four
 * independent partial sums each, a warp-shuffle block reduction and one
 * atomicAdd per block (NVIDIA's "Faster Parallel Reductions on Kepler"; the
 * fixed grid of BabelStream's CUDA dot). */
__global__ void __launch_bounds__(256) nat_norm(const double *__restrict__ x, int n, double *sum) {
  __shared__ double part[256 / 32];
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  const long stride = (long) gridDim.x * blockDim.x;
  long s = (long) blockIdx.x * blockDim.x + threadIdx.x;
  for (; s + 3 * stride < n; s += 4 * stride) {
    const double x0 = x[s], x1 = x[s + stride], x2 = x[s + 2 * stride], x3 = x[s + 3 * stride];
    a0 += x0 * x0;
    a1 += x1 * x1;
    a2 += x2 * x2;
    a3 += x3 * x3;
  }
  for (; s < n; s += stride) a0 += x[s] * x[s];
  double a = (a0 + a1) + (a2 + a3);
  for (int o = 16; o > 0; o /= 2) a += __shfl_down_sync(0xffffffffu, a, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x < 32) {
    a = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0;
    for (int o = 16; o > 0; o /= 2) a += __shfl_down_sync(0xffffffffu, a, o);
    if (threadIdx.x == 0) atomicAdd(sum, a);
  }
}
static double nat_norm_step(const double *x, int n, double *n_sum, int variant) {
  (void) variant;
  static int blocks = 0;
  if (!blocks) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, nat_norm, 256, 0);
    blocks = 2 * per_sm * nativeSMs();
  }
  double sum = 0.0;
  cudaMemsetAsync(n_sum, 0, sizeof(double));
  nat_norm<<<blocks, 256>>>(x, n, n_sum);
  cudaMemcpy(&sum, n_sum, sizeof(double), cudaMemcpyDeviceToHost);
  nativeSynchronize();
  return sqrt(sum);
}
#else
/* "omp": BabelStream's OpenMP dot, one "omp parallel for simd reduction"
 * loop. "omp-2lvl": threads over blocks of the array, each block an "omp
 * simd reduction" into a local: the form clang 14 vectorises (it does not
 * vectorise the combined construct's reduction over doubles). */
static double nat_norm_step(const double *__restrict__ x, int n, double *n_sum, int variant) {
  (void) n_sum;
  double sum = 0.0;
  if (variant == 0) {
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (int s = 0; s < n; s++) sum += x[s] * x[s];
  } else {
    const int block = 4096;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int b = 0; b < n; b += block) {
      const int e = n - b < block ? n : b + block;
      double part = 0.0;
#pragma omp simd reduction(+ : part)
      for (int s = b; s < e; s++) part += x[s] * x[s];
      sum += part;
    }
  }
  return sqrt(sum);
}
#endif

/* ---------------------------------------------------------------------- */
static const corpusImpl impls[] = {{"serial", CORPUS_SERIAL},
                                   {"port", CORPUS_PORT},
                                   {"proto", CORPUS_PROTO},
                                   {CORPUS_NAT_NAME, CORPUS_NATIVE},
#ifndef __CUDACC__
                                   {"omp-2lvl", CORPUS_NATIVE}
#endif
};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };

typedef struct {
  int n;
  double *x[NIMPL];
  double norm[NIMPL];
  double exact; /* the correctly rounded norm of the same squares */
  double *t_sum, *n_sum;
} normState;

static void *create(long sites, corpusSize *size) {
  normState *N = (normState *) calloc(1, sizeof(normState));
  N->n = (int) sites;
  double *x = (double *) malloc(sites * sizeof(double));
  tdpExactSum e;
  tdpExactSumZero(&e);
  for (long s = 0; s < sites; s++) {
    x[s] = corpusValue(s, 14) - 1.0;
    tdpExactSumAdd(&e, x[s] * x[s]);
  }
  N->exact = sqrt(tdpExactSumValue(&e));
  for (int k = 0; k < NIMPL; k++) N->x[k] = corpusNewField(impls[k].kind, sites, 1, x);
  free(x);
  N->t_sum = corpusAlloc(CORPUS_TARGET, 1);
  N->n_sum = corpusAlloc(CORPUS_NAT, 1);
  size->sites = sites;
  size->bytes = sizeof(double) * (double) sites;
  snprintf(size->dims, sizeof(size->dims), "%ld", sites);
  return N;
}

static void destroy(void *p) {
  normState *N = (normState *) p;
  for (int k = 0; k < NIMPL; k++) corpusFreeField(impls[k].kind, N->x[k]);
  corpusFree(CORPUS_TARGET, N->t_sum);
  corpusFree(CORPUS_NAT, N->n_sum);
  free(N);
}

static void step(void *p, int k) {
  normState *N = (normState *) p;
  switch (impls[k].kind) {
  case CORPUS_SERIAL: N->norm[k] = serial_norm(N->x[k], N->n); break;
  case CORPUS_PORT:
  case CORPUS_PROTO: {
    double sum = 0.0;
    targetZero(N->t_sum, 1);
    if (impls[k].kind == CORPUS_PORT)
      TDP_LAUNCH_REDUCE(norm_port, N->n, N->x[k], N->n, N->t_sum);
    else TDP_LAUNCH_REDUCE(norm_proto, N->n, N->x[k], N->n, N->t_sum);
    copyFromTarget(&sum, N->t_sum, sizeof(double));
    N->norm[k] = sqrt(sum);
    break;
  }
  default: N->norm[k] = nat_norm_step(N->x[k], N->n, N->n_sum, k - 3); break;
  }
}

static long check(void *p, int k, int inject) {
  normState *N = (normState *) p;
  double got = N->norm[k] + (inject ? 1.0 : 0.0);
  double tol = 0.5 * (double) N->n * 0x1p-53;
  if (tol < CORPUS_TOL_SUM) tol = CORPUS_TOL_SUM;
  return corpusCompare("norm", impls[k].name, "norm", &got, &N->exact, 1, tol);
}

const corpusShape corpusNorm = {"norm", "2-norm of a field (a reduction only)", 8.0,
                                create, destroy, step, check, NIMPL, impls};
