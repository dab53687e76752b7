/*
 * masked -- an update with a condition per site: a relaxation on the fluid
 * sites of a flag field (solid sites keep their value), as LB and porous-
 * medium codes have it. About a quarter of the sites are solid, scattered
 * at random, so a branch per site is unpredictable and the compilers must
 * turn the condition into a blend or masked store to vectorise.
 * Validation: bitwise on the host (the same arithmetic).
 */
#include <stdlib.h>

#include "benchmarks/corpus/corpus.h"

#define OMEGA 0.7
enum { SOLID = 0, FLUID = 1 };

/* ---------------------------------------------------------------------- */
/* The serial original. */
static void serial_step(double *out, const double *x, const double *y, const int *flag, int n) {
  for (int s = 0; s < n; s++) {
    if (flag[s] == FLUID) out[s] = x[s] + OMEGA * (y[s] - x[s]);
    else out[s] = x[s];
  }
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md: the body whole inside TDP_ILP, the fields
 * (the flags too) through TDP_INDEX, the constant a TDP_CONST, the site
 * index a long as TDP_TLP gives it: "int s = baseIndex + vecIndex"
 * truncates the 64-bit index, after which gcc 12 cannot see that s moves
 * by one per lane and vectorises every access as a gather (and the stores
 * as scatters). The choice is porting.md's "read first, then choose": one
 * store per site. */
TDP_CONST double t_omega;

TDP_KERNEL void masked_port(double *out, const double *x, const double *y, const int *flag,
                            int nsites) {
  TDP_TLP(baseIndex, nsites) {
    TDP_ILP(vecIndex) {
      long s = baseIndex + vecIndex;
      size_t is = TDP_INDEX(nsites, 1, s, 0);
      const double xs = x[is];
      out[is] = flag[is] == FLUID ? xs + t_omega * (y[is] - xs) : xs;
    }
  }
}

/* "port-if": the legacy body as it stands, a store in each arm. clang 14
 * and 16 vectorise it behind run-time alias checks on every 8-site stride
 * (their MergedLoadStoreMotion sinks the two stores into one without the
 * loop's llvm.access.group; fixed in clang 20): 0.83-0.92 of the serial
 * original on one thread of the GPU machine's host, where the port reads
 * first and has one store. gcc and clang 22 vectorise both forms alike. */
TDP_KERNEL void masked_port_if(double *out, const double *x, const double *y, const int *flag,
                               int nsites) {
  TDP_TLP(baseIndex, nsites) {
    TDP_ILP(vecIndex) {
      long s = baseIndex + vecIndex;
      size_t is = TDP_INDEX(nsites, 1, s, 0);
      if (flag[is] == FLUID) out[is] = x[is] + t_omega * (y[is] - x[is]);
      else out[is] = x[is];
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Native. */
#ifdef __CUDACC__
/* A grid-stride loop, one site per thread per pass (BabelStream's CUDA
 * kernels, NVIDIA's grid-stride idiom); the branch is a select. */
__global__ void __launch_bounds__(256)
    nat_masked(double *__restrict__ out, const double *__restrict__ x,
               const double *__restrict__ y, const int *__restrict__ flag, int n) {
  for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < n; s += gridDim.x * blockDim.x) {
    const double xs = x[s];
    out[s] = flag[s] == FLUID ? xs + OMEGA * (y[s] - xs) : xs;
  }
}
static void nat_step(double *out, const double *x, const double *y, const int *flag, int n) {
  nat_masked<<<(n + 255) / 256, 256>>>(out, x, y, flag, n);
  nativeSynchronize();
}
#else
/* One "omp parallel for simd" loop (McCalpin's STREAM, BabelStream's
 * OpenMP model), the condition written as a select so it blends. */
static void nat_step(double *__restrict__ out, const double *__restrict__ x,
                     const double *__restrict__ y, const int *__restrict__ flag, int n) {
#pragma omp parallel for simd schedule(static)
  for (int s = 0; s < n; s++) {
    const double xs = x[s];
    out[s] = flag[s] == FLUID ? xs + OMEGA * (y[s] - xs) : xs;
  }
}
#endif

/* ---------------------------------------------------------------------- */
static const corpusImpl impls[] = {
    {"serial", CORPUS_SERIAL},
    {"port", CORPUS_PORT},
    {"port-if", CORPUS_PROTO},
    {CORPUS_NAT_NAME, CORPUS_NATIVE}};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };

typedef struct {
  int n;
  double *x[NIMPL], *y[NIMPL], *out[NIMPL];
  int *flag[NIMPL];
} masked;

static void *create(long sites, corpusSize *size) {
  masked *M = (masked *) calloc(1, sizeof(masked));
  M->n = (int) sites;
  double *x = (double *) malloc(2 * sites * sizeof(double)), *y = x + sites;
  int *flag = (int *) malloc(sites * sizeof(int));
  for (long s = 0; s < sites; s++) {
    x[s] = corpusValue(s, 6);
    y[s] = corpusValue(s, 7);
    flag[s] = corpusValue(s, 8) < 0.75 ? SOLID : FLUID; /* values are in [0.5, 1.5) */
  }
  for (int k = 0; k < NIMPL; k++) {
    M->x[k] = corpusNewField(impls[k].kind, sites, 1, x);
    M->y[k] = corpusNewField(impls[k].kind, sites, 1, y);
    M->out[k] = corpusNewField(impls[k].kind, sites, 1, NULL);
    /* a scalar field of ints: TDP_INDEX(nsites, 1, ...) is the site */
    M->flag[k] = corpusAllocInt(corpusFamilyOf(impls[k].kind), TDP_FIELD_SIZE(sites, 1));
    corpusPutInt(corpusFamilyOf(impls[k].kind), M->flag[k], flag, sites);
  }
  free(x);
  free(flag);
  const double omega = OMEGA;
  copyConstToTarget(&t_omega, &omega, sizeof(double));
  size->sites = sites;
  size->bytes = (3.0 * sizeof(double) + sizeof(int)) * sites;
  snprintf(size->dims, sizeof(size->dims), "%ld", sites);
  return M;
}

static void destroy(void *p) {
  masked *M = (masked *) p;
  for (int k = 0; k < NIMPL; k++) {
    corpusFreeField(impls[k].kind, M->x[k]);
    corpusFreeField(impls[k].kind, M->y[k]);
    corpusFreeField(impls[k].kind, M->out[k]);
    corpusFree(corpusFamilyOf(impls[k].kind), M->flag[k]);
  }
  free(M);
}

static void step(void *p, int k) {
  masked *M = (masked *) p;
  switch (impls[k].kind) {
  case CORPUS_SERIAL: serial_step(M->out[k], M->x[k], M->y[k], M->flag[k], M->n); break;
  case CORPUS_PORT:
    TDP_LAUNCH(masked_port, M->n, M->out[k], M->x[k], M->y[k], M->flag[k], M->n);
    targetSynchronize();
    break;
  case CORPUS_PROTO:
    TDP_LAUNCH(masked_port_if, M->n, M->out[k], M->x[k], M->y[k], M->flag[k], M->n);
    targetSynchronize();
    break;
  default: nat_step(M->out[k], M->x[k], M->y[k], M->flag[k], M->n); break;
  }
}

static long check(void *p, int k, int inject) {
  masked *M = (masked *) p;
  double *h = (double *) malloc(M->n * sizeof(double));
  corpusFetchField(impls[k].kind, h, M->out[k], M->n, 1);
  if (inject) h[M->n - 1] += 1.0;
  long bad = corpusCompare("masked", impls[k].name, "out", h, M->out[0], M->n, corpusTolSame());
  free(h);
  return bad;
}

const corpusShape corpusMasked = {
    "masked", "relaxation on fluid sites only (a flag per site, a quarter solid at random)", 28.0,
    create, destroy, step, check, NIMPL, impls};
