/*
 * tbench.h -- what the team benchmarks (contract.c, spmv.c) share: timing
 * in interleaved rounds, the CSV row, the device name and commit, and
 * validation reports. Compiled as C99 on the C build and as CUDA C++
 * (nvcc -x cu) on the CUDA build, like every program source.
 */
#ifndef TBENCH_H
#define TBENCH_H

#include <stdio.h>

#include "targetDP.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host loops of set-up and validation: threaded where the host compiler
 * has OpenMP (the C build; the CUDA build passes -Xcompiler -fopenmp for
 * these benchmarks, benchmarks/teams/build.mk). */
#ifdef _OPENMP
#define TB_HOST_PARALLEL_FOR(clauses) _Pragma(TDP_STR(omp parallel for clauses))
#else
#define TB_HOST_PARALLEL_FOR(clauses)
#endif
/* omp simd for the host baselines' inner loops (also under -fopenmp-simd) */
#if defined(_OPENMP) || defined(TDP_OPENMP_SIMD)
#define TB_SIMD(clauses) _Pragma(TDP_STR(omp simd clauses))
#else
#define TB_SIMD(clauses)
#endif

typedef struct {
  const char *bench;  /* "contract" or "spmv": the first CSV column */
  const char *csv;    /* append rows here, or NULL */
  int reps, rounds;   /* calls per timing sample; samples (interleaved rounds) */
  int inject_error;   /* corrupt one result of the targetDP team path: must be caught */
  char device[160];   /* the GPU's name, or "host, N threads" */
  const char *commit; /* $BENCH_COMMIT, or "unknown" */
} tbOptions;

void tbSetup(tbOptions *o, const char *bench, const char *csv, int reps, int rounds, int inject);

/* Seconds per call of run(arg) over reps calls, the target synchronised
 * before and after. */
double tbTime(void (*run)(void *), void *arg, int reps);

/* The median, smallest and largest of n samples. */
void tbStats(const double *s, int n, double *median, double *lo, double *hi);

/* One CSV row (the header first when the file is new). what: the case's
 * name; shape: "nl,nr,nk,P" (or the matrix's "rows,nnz,,"); bytes and
 * flops per call; t: the samples (seconds per call). */
void tbCsvRow(const tbOptions *o, const char *what, const char *shape, long count, double mbytes,
              const char *mode, const char *impl, const double *t, int n, double bytes,
              double flops);

/* Validation: report the first few failures, count them all. */
int tbWrong(const char *what, long index, double got, double want);
long tbErrors(void);

#ifdef __cplusplus
}
#endif
#endif
