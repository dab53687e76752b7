/*
 * corpus.h -- the corpus of legacy kernel shapes (issue 28): what every
 * shape module gives the one driver (corpus.c), and the helpers they share.
 *
 * A shape is one kernel a legacy grid code has (a Jacobi sweep, an LB
 * update, a gather, ...), written several ways, one per "implementation":
 *   serial  the original: plain C loops, as the legacy code has them
 *   port    its targetDP port written exactly as docs/porting.md tells a
 *           user today (the user's path: what the issue measures)
 *   proto   the same port in the form a layer fix would lead with
 *           (proto_layer.h: prototypes that are not in the layer yet)
 *   native  the best hand-written code found: OpenMP + SIMD in the C build,
 *           CUDA in the CUDA build (each file says where its technique
 *           comes from); a shape may have several, the fastest counts
 * BabelStream style: the driver times every implementation of a shape in
 * the same run, in a rotating order, and validates each against the serial
 * original before it prints a rate.
 *
 * Every implementation computes out = step(in) from one input that never
 * changes, so every repetition does the same work, the serial original
 * needs one pass to give the reference, and the result of the last timed
 * repetition is the one compared (a kernel that only works the first time,
 * or a residual that is not reset between launches, fails).
 *
 * Memory "families": the serial original's arrays are plain host memory;
 * the port's and proto's are targetMalloc'd, in the build's layout
 * (TDP_INDEX); the native's are nativeMalloc'd (host memory on the C build,
 * cudaMalloc on CUDA), plain layout. Each family reads its own copy of the
 * input; each implementation writes its own output.
 *
 * Like every program source this is compiled as C99 (C build), C++17
 * (gxx-openmp, clangxx-openmp) or CUDA C++ (nvcc -x cu).
 */
#ifndef CORPUS_H
#define CORPUS_H

#include <stddef.h>

#include "benchmarks/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CORPUS_SERIAL, CORPUS_PORT, CORPUS_PROTO, CORPUS_NATIVE } corpusKind;
extern const char *const corpusKindName[4];

typedef enum { CORPUS_HOST, CORPUS_TARGET, CORPUS_NAT } corpusFamily;

/* The native implementation's name in this build. */
#ifdef __CUDACC__
#define CORPUS_NAT_NAME "cuda"
#else
#define CORPUS_NAT_NAME "omp"
#endif

/* The loop pragma under which a native SIMD loop whose body passes a local
 * array to an inlined function (an LB collision) vectorises: gcc does not
 * vectorise such a loop under "omp simd" (the array becomes an "omp simd
 * array" reached through a pointer: docs/performance.md), it does under
 * "GCC ivdep"; clang does under "omp simd". */
#if defined(__GNUC__) && !defined(__clang__)
#define CORPUS_SIMD_CALL _Pragma("GCC ivdep")
#else
#define CORPUS_SIMD_CALL _Pragma("omp simd")
#endif

typedef struct {
  const char *name; /* the CSV's impl column: "serial", "port", "omp", ... */
  corpusKind kind;
} corpusImpl;

/* What create() tells the driver about the problem it set up. */
typedef struct {
  long sites;    /* lattice sites (or list entries): MLUPS counts these */
  double bytes;  /* nominal bytes one step moves, each array once */
  char dims[64]; /* "2048x2048": no commas (a CSV field) */
} corpusSize;

typedef struct {
  const char *name;      /* --shape */
  const char *what;      /* one line for the listing */
  double bytes_per_site; /* for --mb: sites = mb * 1e6 / bytes_per_site */
  /* Set up a problem of about `sites` sites (at least 27, any number: the
   * dimensions need not be multiples of VVL), every implementation's
   * input and output. */
  void *(*create)(long sites, corpusSize *size);
  void (*destroy)(void *st);
  /* implementation k's step (k indexes impl[]); returns when the result
   * is complete (synchronised) and any scalar result is on the host */
  void (*step)(void *st, int k);
  /* Implementation k's last result against the serial original's
   * (impl[0]): the number of wrong values, each reported by benchWrong.
   * inject: make one value of k's result wrong first (--inject-error). */
  long (*check)(void *st, int k, int inject);
  int nimpl;
  const corpusImpl *impl; /* impl[0] is the serial original */
} corpusShape;

/* The shapes (one file each). */
extern const corpusShape corpusJacobi2d, corpusHeat3d, corpusStencil27, corpusD2q9,
    corpusD3q19, corpusMasked, corpusGather, corpusSu3mv, corpusNorm;

/* ---------------------------------------------------------------------- */
/* Helpers (corpus.c). Sizes are in doubles. Every failure exits with a
 * message. */

/* Memory of a family; filled with zeros. */
double *corpusAlloc(corpusFamily fam, size_t n);
void corpusFree(corpusFamily fam, void *p);
/* n doubles from / to host memory. */
void corpusPut(corpusFamily fam, double *dst, const double *host, size_t n);
void corpusGet(corpusFamily fam, double *host, const double *src, size_t n);
/* Integer arrays (site lists, masks) in the same families. */
int *corpusAllocInt(corpusFamily fam, size_t n);
void corpusPutInt(corpusFamily fam, int *dst, const int *host, size_t n);

/* A field of ncomp doubles per site in the build's layout (TDP_INDEX),
 * in target memory, from / to host arrays in the plain layout
 * comp * nsites + site (what the serial original and natives use). */
double *corpusFieldAlloc(long nsites, int ncomp);
void corpusFieldPut(double *t_dst, const double *plain, long nsites, int ncomp);
void corpusFieldGet(double *plain, const double *t_src, long nsites, int ncomp);

/* A field of an implementation of kind k: the serial original's in host
 * memory, the port's and proto's in target memory in the build's layout,
 * the native's in native memory; plain: comp * nsites + site values to
 * fill it with (NULL: zeros). Fetch copies it back into that plain form. */
double *corpusNewField(corpusKind k, long nsites, int ncomp, const double *plain);
void corpusFetchField(corpusKind k, double *plain, const double *f, long nsites, int ncomp);
void corpusFreeField(corpusKind k, double *f);
/* The family of kind k's memory (scalars, lists). */
corpusFamily corpusFamilyOf(corpusKind k);

/* A deterministic value in [0.5, 1.5) for element i of array `seed`:
 * distinct enough that a wrong index shows. */
double corpusValue(long i, int seed);

/* Compare n values against the serial original's: tol 0 is bitwise (the
 * same arithmetic), else |got - want| <= tol * (1 + |want|). Each wrong
 * value is reported (benchWrong, the first few) as "shape impl what". */
long corpusCompare(const char *shape, const char *impl, const char *what, const double *got,
                   const double *want, long n, double tol);

/* The tolerance of a result computed with the serial original's arithmetic
 * in the same order: bitwise in the C builds (gcc in ISO C mode contracts
 * nothing; clang contracts a * b + c within one expression, the same
 * expression in every implementation); 1e-13 where the compiler may
 * contract a * b + c into an FMA in one form of the code and not another:
 * nvcc (device against host), and g++ / clang++, whose C++ default lets
 * the optimiser contract after unrolling (measured: d3q19 with its loops
 * unrolled differed from the loop form in the last bit under g++ 12). */
double corpusTolSame(void);
/* Sums in another order (residuals, norms of positive terms). */
#define CORPUS_TOL_SUM 1e-10

#ifdef __cplusplus
}
#endif
#endif
