/*
 * bench.h -- what the STREAM and layout benchmarks share: the common
 * options, the memory calls of the native (layer-free) code, validation
 * reports, and the result table and CSV.
 *
 * Like every program source this is compiled as C99 by the C build and as
 * CUDA C++ (nvcc -x cu) by the CUDA build.
 */
#ifndef BENCH_H
#define BENCH_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "targetDP.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BENCH_NATIVE = 0, BENCH_TDP = 1 };

/* Host loops of set-up and validation, threaded where OpenMP is on (the
 * C build; nvcc's host compiler runs without it). */
#ifdef _OPENMP
#define BENCH_HOST_PARALLEL_FOR(clauses) _Pragma(TDP_STR(omp parallel for clauses))
#else
#define BENCH_HOST_PARALLEL_FOR(clauses)
#endif

/* Loops over components that must unroll on the GPU so per-site arrays
 * stay in registers (gcc's vectoriser needs no such hint). */
#ifdef __CUDACC__
#define BENCH_UNROLL _Pragma("unroll")
#else
#define BENCH_UNROLL
#endif
extern const char *const benchImplName[2]; /* "native", "targetDP" */

typedef struct {
  const char *bench;     /* "stream" or "layout": first CSV column */
  long size;             /* elements per array (stream) or lattice sites (layout) */
  int reps;              /* timed repetitions; one untimed warm-up runs first */
  int is_float;          /* stream --float */
  int inject_error;      /* corrupt one result: the validation must catch it */
  const char *csv;       /* append result rows here (NULL: none) */
} benchOptions;

/* Options every benchmark takes; the caller's own come first in known[]
 * (NULL-terminated, cli.h style) and it reads them itself. Prints usage
 * and exits(2) on an unknown option. */
#define BENCH_COMMON_OPTIONS "--size=", "--reps=", "--csv=", "--inject-error", "--help"
benchOptions benchParse(int argc, char **argv, const char *bench, const char *const *known,
                        long default_size, const char *usage);

/* Native memory: cudaMalloc'd on the GPU build, 64-byte aligned host memory
 * (as targetMalloc's) on the C build. Any failure exits with a message. */
void *nativeMalloc(size_t nbytes);
void nativeFree(void *p);
void nativeZero(void *p, size_t nbytes);
void nativeSynchronize(void);
int nativeSMs(void); /* CUDA: the GPU's multiprocessors (fixed grids of the native candidates); C: 0 */
/* Copy nbytes of impl's memory (native or target) to host memory. */
void benchToHost(int impl, void *dst, const void *src, size_t nbytes);
/* Make element index of a target array wrong (--inject-error). */
void benchCorrupt(void *t_arr, size_t index, int is_float);

/* Validation. benchClose is the per-element test (inline: it runs over
 * hundreds of millions of elements); benchWrong reports a failure, printing
 * the first few per run, and returns 1 so callers can count. Thread-safe. */
static inline int benchClose(double got, double want, double rtol) {
  return fabs(got - want) <= rtol * fabs(want);
}
int benchWrong(const char *what, long index, double got, double want); /* index < 0: a scalar */
long benchErrors(void); /* failures reported so far */

/* Compare n elements (double, or float if is_float) of a host copy with
 * coef * streamWeight(i): the closed form every STREAM array keeps. */
long benchCheckStream(const char *what, const void *host, long n, int is_float, double coef,
                      double rtol);

/* ---------------------------------------------------------------------- */
/* STREAM, shared by stream.c and layout.c (which measures Triad as its
 * reference). The kernels themselves are in stream_kernels.h. */

enum { STREAM_COPY, STREAM_MUL, STREAM_ADD, STREAM_TRIAD, STREAM_DOT, STREAM_NSTREAM,
       STREAM_SUM,      /* extra: targetDoubleSum of a, through the layer only */
       STREAM_DOT_PLAIN, /* extra, CUDA: the layer's Dot through TDP_LAUNCH */
       STREAM_DOT2,      /* extra: sum(a*b) and sum(a*a) in one pass, through the layer */
       STREAM_NKERNEL };
extern const char *const streamName[STREAM_NKERNEL];
extern const int streamNArrays[STREAM_NKERNEL]; /* arrays moved per call */
/* Which native candidate (stream_native.h) each kernel runs: 0 until
 * bench_stream has timed them all and picked the fastest. */
extern int streamNativeChoice[STREAM_NKERNEL];
/* Sites per thread of each targetDP STREAM launch (TDP_LAUNCH_LANES); 0
 * (the default) is VVL, as TDP_LAUNCH. bench_stream --lanes sets them. */
extern int streamLanes[STREAM_NKERNEL];

/* A set of arrays and a Dot accumulator, in native or target memory. */
typedef struct {
  void *a, *b, *c;
  double *sum; /* two doubles: Dot's sum, and Dot2's two */
} streamSet;

/* STREAM's scalar, chosen so that one pass of Copy, Mul, Add, Triad and
 * Nstream multiplies a by 4s + 2s^2 = 1.00125: values stay O(1) for any
 * number of repetitions. */
#define STREAM_SCALAR 0.225

/* Every STREAM array holds coef * w(i). The weights make each element
 * distinct enough that a wrong index shows, and are exact in float. */
static inline TDP_HOST_DEVICE double streamWeight(long i) { return 1.0 + (double) (i & 15) / 16.0; }

/* One measured kernel. Times are per call, t[0] the warm-up. */
typedef struct {
  const char *kernel;
  int impl;
  long size;           /* elements per array, or sites */
  double bytes;        /* moved per call, STREAM convention (each array once) */
  const double *t;     /* reps + 1 samples */
  const double *t_ref; /* paired native samples for the ratio, or NULL */
  const char *variant; /* native: the candidate that ran (stream_native.h), or NULL */
} benchTiming;

typedef struct {
  double best_gbs, median_gbs, best_s, median_s;
  double ratio; /* median over pairs of reps of t_ref / t (targetDP/native bandwidth); NAN if unpaired */
} benchStats;

benchStats benchSummarise(const benchTiming *k, int reps);

/* Write one CSV row (and the header if the file is new or empty). pct_triad
 * is best bandwidth / best Triad bandwidth of the same run, in %. */
void benchCsvRow(const benchOptions *o, const char *precision, const benchTiming *k,
                 const benchStats *s, double pct_triad);

/* The GPU's name, or the CPU's model name, without commas (a CSV field);
 * the OpenMP threads of the host (1 without OpenMP). */
const char *benchDeviceName(void);
int benchHostThreads(void);

/* "backend c, AOSOA VVL 4 SAL 4 TPB 128, <device>": the first line of a table. */
void benchPrintConfig(FILE *f, const benchOptions *o);

#ifdef __cplusplus
}
#endif
#endif
