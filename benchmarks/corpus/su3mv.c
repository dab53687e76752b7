/*
 * su3mv -- a 3x3 complex matrix times a complex 3-vector at every site
 * (lattice QCD's mult_su3_mat_vec: a link times a colour vector), with the
 * data as MILC keeps it: an array of structures of complex numbers. The
 * port keeps the arithmetic and puts the matrix (18 doubles per site) and
 * the vectors (6) behind TDP_INDEX, so the layout is a build option.
 * Every implementation sums in the same order (j = 0, 1, 2 per row).
 * Validation: bitwise on the host.
 */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/corpus/corpus.h"

/* ---------------------------------------------------------------------- */
/* The serial original, MILC style. */
typedef struct {
  double re, im;
} cplx;
typedef struct {
  cplx e[3][3];
} su3_matrix;
typedef struct {
  cplx c[3];
} su3_vector;

static void mult_su3_mat_vec(const su3_matrix *a, const su3_vector *b, su3_vector *c) {
  for (int i = 0; i < 3; i++) {
    double re = 0.0, im = 0.0;
    for (int j = 0; j < 3; j++) {
      re += a->e[i][j].re * b->c[j].re - a->e[i][j].im * b->c[j].im;
      im += a->e[i][j].re * b->c[j].im + a->e[i][j].im * b->c[j].re;
    }
    c->c[i].re = re;
    c->c[i].im = im;
  }
}

static void serial_step(su3_vector *w, const su3_matrix *U, const su3_vector *v, int n) {
  for (int s = 0; s < n; s++) mult_su3_mat_vec(&U[s], &v[s], &w[s]);
}

/* ---------------------------------------------------------------------- */
/* The port by docs/porting.md: the per-site code inside TDP_ILP, the
 * structures now fields: the matrix component (i, j, re/im) is
 * TDP_INDEX2(nsites, 9, 2, s, 3 * i + j, 0/1), a vector's (j, re/im)
 * TDP_INDEX2(nsites, 3, 2, s, j, 0/1); the site index a long (see
 * masked.c). */
TDP_KERNEL void su3_port(double *w, const double *U, const double *v, int nsites) {
  TDP_TLP(baseIndex, nsites) {
    TDP_ILP(vecIndex) {
      long s = baseIndex + vecIndex;
      for (int i = 0; i < 3; i++) {
        double re = 0.0, im = 0.0;
        for (int j = 0; j < 3; j++) {
          double ar = U[TDP_INDEX2(nsites, 9, 2, s, 3 * i + j, 0)];
          double ai = U[TDP_INDEX2(nsites, 9, 2, s, 3 * i + j, 1)];
          double br = v[TDP_INDEX2(nsites, 3, 2, s, j, 0)];
          double bi = v[TDP_INDEX2(nsites, 3, 2, s, j, 1)];
          re += ar * br - ai * bi;
          im += ar * bi + ai * br;
        }
        w[TDP_INDEX2(nsites, 3, 2, s, i, 0)] = re;
        w[TDP_INDEX2(nsites, 3, 2, s, i, 1)] = im;
      }
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Native: two candidates, the faster counts. "aos": su3_bench's kernel
 * (NERSC su3_bench, after MILC: a thread per site over the array of
 * structures); "soa": the same arithmetic over a structure of arrays (each
 * real component an array), vectorised across sites, the layout QPhiX and
 * Grid use on CPUs and that coalesces on GPUs (QUDA's field orders). */
#define SU3_ROWS(A, B, C)                                        \
  for (int i = 0; i < 3; i++) {                                 \
    double re = 0.0, im = 0.0;                                  \
    for (int j = 0; j < 3; j++) {                               \
      re += A(3 * i + j, 0) * B(j, 0) - A(3 * i + j, 1) * B(j, 1); \
      im += A(3 * i + j, 0) * B(j, 1) + A(3 * i + j, 1) * B(j, 0); \
    }                                                           \
    C(i, 0) = re;                                               \
    C(i, 1) = im;                                               \
  }
#define AOS_U(m, c) U[s * 18 + 2 * (m) + (c)]
#define AOS_V(j, c) v[s * 6 + 2 * (j) + (c)]
#define AOS_W(j, c) w[s * 6 + 2 * (j) + (c)]
#define SOA_U(m, c) U[(2 * (m) + (c)) * (long) n + s]
#define SOA_V(j, c) v[(2 * (j) + (c)) * (long) n + s]
#define SOA_W(j, c) w[(2 * (j) + (c)) * (long) n + s]

#ifdef __CUDACC__
__global__ void __launch_bounds__(256)
    nat_su3_aos(double *__restrict__ w, const double *__restrict__ U, const double *__restrict__ v,
                int n) {
  for (long s = blockIdx.x * blockDim.x + threadIdx.x; s < n; s += gridDim.x * blockDim.x) {
    SU3_ROWS(AOS_U, AOS_V, AOS_W)
  }
}
__global__ void __launch_bounds__(256)
    nat_su3_soa(double *__restrict__ w, const double *__restrict__ U, const double *__restrict__ v,
                int n) {
  for (long s = blockIdx.x * blockDim.x + threadIdx.x; s < n; s += gridDim.x * blockDim.x) {
    SU3_ROWS(SOA_U, SOA_V, SOA_W)
  }
}
static void nat_step(double *w, const double *U, const double *v, int n, int soa) {
  if (soa) nat_su3_soa<<<(n + 255) / 256, 256>>>(w, U, v, n);
  else nat_su3_aos<<<(n + 255) / 256, 256>>>(w, U, v, n);
  nativeSynchronize();
}
#else
static void nat_step(double *__restrict__ w, const double *__restrict__ U,
                     const double *__restrict__ v, int n, int soa) {
  if (soa) {
#pragma omp parallel for simd schedule(static)
    for (long s = 0; s < n; s++) {
      SU3_ROWS(SOA_U, SOA_V, SOA_W)
    }
  } else {
#pragma omp parallel for schedule(static)
    for (long s = 0; s < n; s++) {
      SU3_ROWS(AOS_U, AOS_V, AOS_W)
    }
  }
}
#endif

/* ---------------------------------------------------------------------- */
static const corpusImpl impls[] = {{"serial", CORPUS_SERIAL},
                                   {"port", CORPUS_PORT},
                                   {CORPUS_NAT_NAME "-aos", CORPUS_NATIVE},
                                   {CORPUS_NAT_NAME "-soa", CORPUS_NATIVE}};
enum { NIMPL = sizeof(impls) / sizeof(impls[0]) };
enum { IMPL_AOS = 2, IMPL_SOA = 3 };

typedef struct {
  int n;
  double *U[NIMPL], *v[NIMPL], *w[NIMPL];
} su3;

/* plain (comp * n + s) to an array of structures (s * ncomp + comp) */
static double *aos_of(const double *plain, long n, int ncomp) {
  double *a = (double *) malloc(n * ncomp * sizeof(double));
  for (long s = 0; s < n; s++)
    for (int c = 0; c < ncomp; c++) a[s * ncomp + c] = plain[c * n + s];
  return a;
}

static void *create(long sites, corpusSize *size) {
  su3 *S = (su3 *) calloc(1, sizeof(su3));
  S->n = (int) sites;
  double *U = (double *) malloc(18 * sites * sizeof(double));
  double *v = (double *) malloc(6 * sites * sizeof(double));
  for (long i = 0; i < 18 * sites; i++) U[i] = corpusValue(i, 12) - 1.0;
  for (long i = 0; i < 6 * sites; i++) v[i] = corpusValue(i, 13) - 1.0;
  double *Ua = aos_of(U, sites, 18), *va = aos_of(v, sites, 6);
  for (int k = 0; k < NIMPL; k++) {
    const corpusKind kind = impls[k].kind;
    const corpusFamily fam = corpusFamilyOf(kind);
    if (kind == CORPUS_PORT) {
      S->U[k] = corpusNewField(kind, sites, 18, U);
      S->v[k] = corpusNewField(kind, sites, 6, v);
      S->w[k] = corpusNewField(kind, sites, 6, NULL);
    } else { /* n x 18 and n x 6 doubles, the arrays of structures or SoA */
      const int soa = k == IMPL_SOA;
      S->U[k] = corpusAlloc(fam, 18 * sites);
      S->v[k] = corpusAlloc(fam, 6 * sites);
      S->w[k] = corpusAlloc(fam, 6 * sites);
      corpusPut(fam, S->U[k], soa ? U : Ua, 18 * sites);
      corpusPut(fam, S->v[k], soa ? v : va, 6 * sites);
    }
  }
  free(U);
  free(v);
  free(Ua);
  free(va);
  size->sites = sites;
  size->bytes = 30.0 * sizeof(double) * sites;
  snprintf(size->dims, sizeof(size->dims), "%ld", sites);
  return S;
}

static void destroy(void *p) {
  su3 *S = (su3 *) p;
  for (int k = 0; k < NIMPL; k++) {
    const corpusFamily fam = corpusFamilyOf(impls[k].kind);
    corpusFree(fam, S->U[k]);
    corpusFree(fam, S->v[k]);
    corpusFree(fam, S->w[k]);
  }
  free(S);
}

static void step(void *p, int k) {
  su3 *S = (su3 *) p;
  switch (impls[k].kind) {
  case CORPUS_SERIAL:
    serial_step((su3_vector *) S->w[k], (const su3_matrix *) S->U[k],
                (const su3_vector *) S->v[k], S->n);
    break;
  case CORPUS_PORT:
    TDP_LAUNCH(su3_port, S->n, S->w[k], S->U[k], S->v[k], S->n);
    targetSynchronize();
    break;
  default: nat_step(S->w[k], S->U[k], S->v[k], S->n, k == IMPL_SOA); break;
  }
}

static long check(void *p, int k, int inject) {
  su3 *S = (su3 *) p;
  const long n = S->n;
  double *h = (double *) malloc(6 * n * sizeof(double));
  double *want = (double *) malloc(6 * n * sizeof(double)); /* the serial's, plain */
  for (long s = 0; s < n; s++)
    for (int c = 0; c < 6; c++) want[c * n + s] = S->w[0][s * 6 + c];
  if (impls[k].kind == CORPUS_PORT) {
    corpusFetchField(impls[k].kind, h, S->w[k], n, 6);
  } else {
    double *g = (double *) malloc(6 * n * sizeof(double));
    corpusGet(corpusFamilyOf(impls[k].kind), g, S->w[k], 6 * n);
    for (long s = 0; s < n; s++)
      for (int c = 0; c < 6; c++) h[c * n + s] = k == IMPL_SOA ? g[c * n + s] : g[s * 6 + c];
    free(g);
  }
  if (inject) h[6 * n - 1] += 1.0;
  long bad = corpusCompare("su3mv", impls[k].name, "w", h, want, 6 * n, corpusTolSame());
  free(h);
  free(want);
  return bad;
}

const corpusShape corpusSu3mv = {
    "su3mv", "3x3 complex matrix times 3-vector per site (MILC mult_su3_mat_vec)", 240.0,
    create, destroy, step, check, NIMPL, impls};
