/* Shared helpers of the team benchmarks: see tbench.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tbench.h"
#include "common/timer.h"

#ifndef BENCH_CONFIG /* the make preset, passed in by the build fragment */
#define BENCH_CONFIG "unknown"
#endif

void tbSetup(tbOptions *o, const char *bench, const char *csv, int reps, int rounds, int inject) {
  o->bench = bench;
  o->csv = csv;
  o->reps = reps;
  o->rounds = rounds;
  o->inject_error = inject;
  o->commit = getenv("BENCH_COMMIT") ? getenv("BENCH_COMMIT") : "unknown";
  /* the device from targetConfigString(): ... device="NAME (device 0 of 1, sm_90)" */
  const char *cs = targetConfigString(), *d = strstr(cs, "device=\"");
  snprintf(o->device, sizeof(o->device), "%s", d ? d + 8 : "unknown");
  char *end = strpbrk(o->device, "(\"");
  if (end) *end = '\0';
  size_t n = strlen(o->device);
  while (n > 0 && o->device[n - 1] == ' ') o->device[--n] = '\0';
  for (char *p = o->device; *p; p++)
    if (*p == ',') *p = ';'; /* a CSV field */
}

double tbTime(void (*run)(void *), void *arg, int reps) {
  targetSynchronize();
  const double t0 = timerNow();
  for (int r = 0; r < reps; r++) run(arg);
  targetSynchronize();
  return (timerNow() - t0) / reps;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void tbStats(const double *s, int n, double *median, double *lo, double *hi) {
  double *c = (double *) malloc(sizeof(double) * (n > 0 ? n : 1));
  memcpy(c, s, sizeof(double) * n);
  qsort(c, n, sizeof(double), cmp);
  *median = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  *lo = c[0];
  *hi = c[n - 1];
  free(c);
}

void tbCsvRow(const tbOptions *o, const char *what, const char *shape, long count, double mbytes,
              const char *mode, const char *impl, const double *t, int n, double bytes,
              double flops) {
  if (!o->csv) return;
  FILE *f = fopen(o->csv, "a");
  if (!f) {
    fprintf(stderr, "benchmark: cannot open %s for appending\n", o->csv);
    exit(1);
  }
  if (ftell(f) == 0)
    fprintf(f, "bench,device,commit,config,case,nl_or_rows,nr_or_nnz,nk,P,cells,mbytes,mode,impl,"
               "median_s,min_s,max_s,gbs,gflops,rounds,reps\n");
  double med, lo, hi;
  tbStats(t, n, &med, &lo, &hi);
  fprintf(f, "%s,%s,%s,%s,%s,%s,%ld,%.3f,%s,%s,%.6e,%.6e,%.6e,%.2f,%.2f,%d,%d\n", o->bench,
          o->device, o->commit, BENCH_CONFIG, what, shape, count, mbytes, mode, impl, med, lo, hi,
          bytes / med * 1e-9, flops / med * 1e-9, n, o->reps);
  fclose(f);
}

static long nwrong = 0;
int tbWrong(const char *what, long index, double got, double want) {
  long k;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
  k = nwrong++;
  if (k < 5)
    fprintf(stderr, "VALIDATION FAILED: %s: element %ld = %.17g, want %.17g\n", what, index, got,
            want);
  return 1;
}
long tbErrors(void) { return nwrong; }
