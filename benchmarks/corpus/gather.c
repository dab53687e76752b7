/*
 * gather -- an update over a site list: for each listed site (the fluid
 * sites of a flag field, compacted in order, as codes with indirect
 * addressing keep them) a weighted interpolation between the site and its
 * next neighbour, y[k] = w[k] x[s] + (1 - w[k]) x[s + 1] with s = list[k].
 * The loop runs over the list; x is read through the list (a gather).
 * Validation: bitwise on the host (the same arithmetic).
 */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "benchmarks/corpus/corpus.h"

/* ---------------------------------------------------------------------- */
/* The serial original. */
static void serial_step(double *y, const double *x, const double *w, const int *list, int nlist) {
  for (int k = 0; k < nlist; k++) {
    int s = list[k];
    y[k] = w[k] * x[s] + (1.0 - w[k]) * x[s + 1];
  }
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md: a loop over the list entries (the "sites"
 * of y, w and the list), x addressed by the listed site; the list index a
 * long (an int one makes gcc 12 gather every access: see masked.c). */
TDP_KERNEL void gather_port(double *y, const double *x, const double *w, const int *list,
                            int nlist, int nsites) {
  TDP_TLP(baseIndex, nlist) {
    TDP_ILP(vecIndex) {
      long k = baseIndex + vecIndex;
      int s = list[TDP_INDEX(nlist, 1, k, 0)];
      double wk = w[TDP_INDEX(nlist, 1, k, 0)];
      y[TDP_INDEX(nlist, 1, k, 0)] =
          wk * x[TDP_INDEX(nsites, 1, s, 0)] + (1.0 - wk) * x[TDP_INDEX(nsites, 1, s + 1, 0)];
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Native: Spatter's gather kernels (hpcgarage/spatter: an index buffer
 * read in order, the data through it). */
#ifdef __CUDACC__
__global__ void __launch_bounds__(256)
    nat_gather(double *__restrict__ y, const double *__restrict__ x, const double *__restrict__ w,
               const int *__restrict__ list, int nlist) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nlist; k += gridDim.x * blockDim.x) {
    const int s = list[k];
    const double wk = w[k];
    y[k] = wk * __ldg(x + s) + (1.0 - wk) * __ldg(x + s + 1);
  }
}
static void nat_step(double *y, const double *x, const double *w, const int *list, int nlist,
                     int scalar) {
  (void) scalar;
  nat_gather<<<(nlist + 255) / 256, 256>>>(y, x, w, list, nlist);
  nativeSynchronize();
}
#else
/* "omp": Spatter's OpenMP gather, "omp parallel for simd" (vector gathers);
 * "omp-scalar": the same threads with scalar loads, which beat AVX2/AVX-512
 * gathers on Skylake-SP (the dev box: the serial original ran at 1.5x the
 * vectorised loop). The faster counts. */
static void nat_gather_simd(double *__restrict__ y, const double *__restrict__ x,
                            const double *__restrict__ w, const int *__restrict__ list,
                            int nlist) {
#pragma omp parallel for simd schedule(static)
  for (int k = 0; k < nlist; k++) {
    const int s = list[k];
    y[k] = w[k] * x[s] + (1.0 - w[k]) * x[s + 1];
  }
}
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static void nat_gather_scalar(double *__restrict__ y, const double *__restrict__ x,
                              const double *__restrict__ w, const int *__restrict__ list,
                              int nlist) {
#pragma omp parallel
  {
    int k0 = 0, k1 = nlist; /* this thread's block of the list, as schedule(static) */
#ifdef _OPENMP
    const int nt = omp_get_num_threads(), it = omp_get_thread_num();
    k0 = (int) ((long) nlist * it / nt);
    k1 = (int) ((long) nlist * (it + 1) / nt);
#endif
#ifdef __clang__
#pragma clang loop vectorize(disable)
#endif
    for (int k = k0; k < k1; k++) {
      const int s = list[k];
      y[k] = w[k] * x[s] + (1.0 - w[k]) * x[s + 1];
    }
  }
}
static void nat_step(double *y, const double *x, const double *w, const int *list, int nlist,
                     int scalar) {
  if (scalar) nat_gather_scalar(y, x, w, list, nlist);
  else nat_gather_simd(y, x, w, list, nlist);
}
#endif

/* ---------------------------------------------------------------------- */
static const corpusImpl impls[] = {
    {"serial", CORPUS_SERIAL}, {"port", CORPUS_PORT}, {CORPUS_NAT_NAME, CORPUS_NATIVE},
#ifndef __CUDACC__
    {"omp-scalar", CORPUS_NATIVE}
#endif
};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };

typedef struct {
  int n, nlist;
  double *x[NIMPL], *w[NIMPL], *y[NIMPL];
  int *list[NIMPL];
} gather;

static void *create(long sites, corpusSize *size) {
  gather *G = (gather *) calloc(1, sizeof(gather));
  G->n = (int) sites;
  double *x = (double *) malloc(sites * sizeof(double)), *w = (double *) malloc(sites * sizeof(double));
  int *list = (int *) malloc(sites * sizeof(int));
  for (long s = 0; s < sites; s++) x[s] = corpusValue(s, 9);
  for (long s = 0; s + 1 < sites; s++) /* the fluid sites (three quarters), in order */
    if (corpusValue(s, 10) >= 0.75) list[G->nlist++] = (int) s;
  for (int k = 0; k < G->nlist; k++) w[k] = corpusValue(k, 11) - 0.5;
  for (int k = 0; k < NIMPL; k++) {
    G->x[k] = corpusNewField(impls[k].kind, G->n, 1, x);
    G->w[k] = corpusNewField(impls[k].kind, G->nlist, 1, w);
    G->y[k] = corpusNewField(impls[k].kind, G->nlist, 1, NULL);
    G->list[k] = corpusAllocInt(corpusFamilyOf(impls[k].kind), TDP_FIELD_SIZE(G->nlist, 1));
    corpusPutInt(corpusFamilyOf(impls[k].kind), G->list[k], list, G->nlist);
  }
  free(x);
  free(w);
  free(list);
  size->sites = G->nlist;
  size->bytes = (3.0 * sizeof(double) + sizeof(int)) * G->nlist;
  snprintf(size->dims, sizeof(size->dims), "%dof%d", G->nlist, G->n);
  return G;
}

static void destroy(void *p) {
  gather *G = (gather *) p;
  for (int k = 0; k < NIMPL; k++) {
    corpusFreeField(impls[k].kind, G->x[k]);
    corpusFreeField(impls[k].kind, G->w[k]);
    corpusFreeField(impls[k].kind, G->y[k]);
    corpusFree(corpusFamilyOf(impls[k].kind), G->list[k]);
  }
  free(G);
}

static void step(void *p, int k) {
  gather *G = (gather *) p;
  switch (impls[k].kind) {
  case CORPUS_SERIAL: serial_step(G->y[k], G->x[k], G->w[k], G->list[k], G->nlist); break;
  case CORPUS_PORT:
    TDP_LAUNCH(gather_port, G->nlist, G->y[k], G->x[k], G->w[k], G->list[k], G->nlist, G->n);
    targetSynchronize();
    break;
  default:
    nat_step(G->y[k], G->x[k], G->w[k], G->list[k], G->nlist, k == NIMPL - 1 && !TDP_GPU);
    break;
  }
}

static long check(void *p, int k, int inject) {
  gather *G = (gather *) p;
  double *h = (double *) malloc((G->nlist + 1) * sizeof(double));
  corpusFetchField(impls[k].kind, h, G->y[k], G->nlist, 1);
  if (inject && G->nlist > 0) h[G->nlist - 1] += 1.0;
  long bad = corpusCompare("gather", impls[k].name, "y", h, G->y[0], G->nlist, corpusTolSame());
  free(h);
  return bad;
}

const corpusShape corpusGather = {
    "gather", "interpolation over a list of sites (3/4 of the lattice, in order)", 28.0,
    create, destroy, step, check, NIMPL, impls};
