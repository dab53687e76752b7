/*
 * reduce.c -- in-kernel and library reductions through the layer, written
 * as docs/api.md tells a user to write them, beside the OpenMP loops they
 * replace (C backend only; issue 25 items 1 and 3). benchmarks/run_reduce.sh
 * builds it against this tree and against an older commit of the layer and
 * runs both in interleaved rounds.
 *
 *   bench_reduce [--size=N] [--reps=R]     one line per kernel:
 *   reduce,<kernel>,<size>,<threads>,<median s>,<best s>,<ok|WRONG>
 *
 * Kernels (double): dot (TDP_TLP_SUM, sum a*b), csum (a sum over the
 * sites that pass a test), jacobi (a Jacobi sweep storing the new field
 * and summing the squared residual over the interior sites only: the body
 * clang 14 got wrong through `omp parallel for simd`), min (TDP_TLP_MIN,
 * m = a < m ? a : m), nanmin (the NaN-propagating body of docs/api.md),
 * libmin and libsum (targetDoubleMin, targetDoubleSum); native_dot and
 * native_jacobi are plain `omp parallel for simd` loops (the layer's form
 * before issue 25), native_jacobi_pf the Jacobi sweep as `omp parallel
 * for` (a form clang gets right), serial_dot the plain loop. Each result is checked
 * against a serial loop (exactly: integer-valued data); a wrong one is
 * printed as WRONG, never as a time alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "targetDP.h"

#ifdef _OPENMP
#define NAT_PFS_(x) _Pragma(TDP_STR(omp parallel for simd schedule(static) x))
int omp_get_max_threads(void);
#define NTHREADS_() omp_get_max_threads()
#else
#define NAT_PFS_(x)
#define NTHREADS_() 1
#endif

#define NY 64 /* sites per row of the Jacobi lattice */
#define INTERIOR(i, n) ((i) % NY != 0 && (i) % NY != NY - 1 && (i) >= NY && (i) + NY < (n))

TDP_KERNEL void kDot(const double *a, const double *b, long n, double *t_r) {
  double s = 0.0;
  TDP_TLP_SUM(base, n, s) {
    TDP_ILP_REDUCE(v) s += a[base + v] * b[base + v];
  }
  targetBlockAddDouble(t_r, s);
}
TDP_KERNEL void kCsum(const double *a, long n, double *t_r) {
  double s = 0.0;
  TDP_TLP_SUM(base, n, s) {
    TDP_ILP_REDUCE(v) {
      if (a[base + v] > 3.0) s += a[base + v];
    }
  }
  targetBlockAddDouble(t_r, s);
}
TDP_KERNEL void kJacobi(const double *u, double *un, long n, double *t_r) {
  double res = 0.0;
  TDP_TLP_SUM(base, n, res) {
    TDP_ILP_REDUCE(v) {
      long i = base + v;
      if (INTERIOR(i, n)) {
        double nv = 0.25 * (u[i - NY] + u[i + NY] + u[i - 1] + u[i + 1]);
        un[i] = nv;
        res += (nv - u[i]) * (nv - u[i]);
      }
    }
  }
  targetBlockAddDouble(t_r, res);
}
TDP_KERNEL void kMin(const double *a, long n, double first, double *t_r) {
  double m = first;
  TDP_TLP_MIN(base, n, m) {
    TDP_ILP_REDUCE(v) m = a[base + v] < m ? a[base + v] : m;
  }
  targetBlockMinDouble(t_r, m);
}
TDP_KERNEL void kNanMin(const double *a, long n, double first, double *t_r) {
  double m = first;
  TDP_TLP_MIN(base, n, m) {
    TDP_ILP_REDUCE(v) {
      double x = a[base + v];
      m = (x < m || x != x) ? x : m;
    }
  }
  targetBlockMinDouble(t_r, m);
}

static double nativeDot(const double *a, const double *b, long n) {
  double s = 0.0;
  NAT_PFS_(reduction(+ : s))
  for (long i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
static double nativeJacobi(const double *u, double *un, long n) {
  double res = 0.0;
  NAT_PFS_(reduction(+ : res))
  for (long i = 0; i < n; i++) {
    if (INTERIOR(i, n)) {
      double nv = 0.25 * (u[i - NY] + u[i + NY] + u[i - 1] + u[i + 1]);
      un[i] = nv;
      res += (nv - u[i]) * (nv - u[i]);
    }
  }
  return res;
}
/* omp parallel for without simd: a form clang gets right on this body */
static double nativeJacobiPf(const double *u, double *un, long n) {
  double res = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : res)
#endif
  for (long i = 0; i < n; i++) {
    if (INTERIOR(i, n)) {
      double nv = 0.25 * (u[i - NY] + u[i + NY] + u[i - 1] + u[i + 1]);
      un[i] = nv;
      res += (nv - u[i]) * (nv - u[i]);
    }
  }
  return res;
}
static double serialDot(const double *a, const double *b, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

enum { K_DOT, K_CSUM, K_JACOBI, K_MIN, K_NANMIN, K_LIBMIN, K_LIBSUM, K_NDOT, K_NJACOBI,
       K_NJACOBIPF, K_SDOT, NK };
static const char *kname[NK] = {"dot",        "csum",          "jacobi",           "min",
                                "nanmin",     "libmin",        "libsum",           "native_dot",
                                "native_jacobi", "native_jacobi_pf", "serial_dot"};

/* One call of kernel k; its result. */
static double run(int k, const double *t_a, const double *t_b, double *t_un, double *t_r, long n) {
  double r = 0.0, first = 1e300;
  /* a copy, not targetZero: one parallel region per call, the kernel's */
  if (k <= K_NANMIN) copyToTarget(t_r, k == K_MIN || k == K_NANMIN ? &first : &r, sizeof(double));
  switch (k) {
  case K_DOT: TDP_LAUNCH_REDUCE(kDot, n, t_a, t_b, n, t_r); break;
  case K_CSUM: TDP_LAUNCH_REDUCE(kCsum, n, t_a, n, t_r); break;
  case K_JACOBI: TDP_LAUNCH_REDUCE(kJacobi, n, t_b, t_un, n, t_r); break;
  case K_MIN: TDP_LAUNCH_REDUCE(kMin, n, t_a, n, first, t_r); break;
  case K_NANMIN: TDP_LAUNCH_REDUCE(kNanMin, n, t_a, n, first, t_r); break;
  case K_LIBMIN: targetDoubleMin(&r, t_a, n); return r;
  case K_LIBSUM: targetDoubleSum(&r, t_a, n); return r;
  case K_NDOT: return nativeDot(t_a, t_b, n);
  case K_NJACOBI: return nativeJacobi(t_b, t_un, n);
  case K_NJACOBIPF: return nativeJacobiPf(t_b, t_un, n);
  case K_SDOT: return serialDot(t_a, t_b, n);
  }
  targetSynchronize();
  copyFromTarget(&r, t_r, sizeof(double));
  return r;
}

/* name is one of the comma-separated names of list */
static int listed(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0')) return 1;
  return 0;
}

int main(int argc, char **argv) {
  long n = 1L << 15;
  int reps = 200;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--size=", 7) == 0) n = atol(argv[i] + 7);
    else if (strncmp(argv[i], "--reps=", 7) == 0) reps = atoi(argv[i] + 7);
    else if (strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
    else {
      fprintf(stderr, "usage: bench_reduce [--size=N] [--reps=R] [--only=kernel,...]\n");
      return 2;
    }
  }
  if (n < 2 * NY || reps < 2) {
    fprintf(stderr, "bench_reduce: need --size >= %d and --reps >= 2\n", 2 * NY);
    return 2;
  }
  if (targetInit() != TARGET_SUCCESS) return 1;
  double *a = (double *) malloc(n * sizeof(double)), *b = (double *) malloc(n * sizeof(double));
  double *t_a, *t_b, *t_un, *t_r, want[NK];
  /* integers: every sum is exact in any order */
  for (long i = 0; i < n; i++) {
    a[i] = (double) ((i * 7919) % 13);
    b[i] = (double) ((i * 31 + i / 5) % 3);
  }
  targetMalloc(&t_a, n * sizeof(double));
  targetMalloc(&t_b, n * sizeof(double));
  targetCalloc(&t_un, n * sizeof(double));
  targetMalloc(&t_r, sizeof(double));
  copyToTarget(t_a, a, n * sizeof(double));
  copyToTarget(t_b, b, n * sizeof(double));
  {
    double dot = 0, cs = 0, jac = 0, mn = 1e300, sum = 0;
    for (long i = 0; i < n; i++) {
      dot += a[i] * b[i];
      cs += a[i] > 3.0 ? a[i] : 0.0;
      sum += a[i];
      mn = a[i] < mn ? a[i] : mn;
      if (INTERIOR(i, n)) {
        double nv = 0.25 * (b[i - NY] + b[i + NY] + b[i - 1] + b[i + 1]);
        jac += (nv - b[i]) * (nv - b[i]);
      }
    }
    double w[NK] = {dot, cs, jac, mn, mn, mn, sum, dot, jac, jac, dot};
    memcpy(want, w, sizeof(w));
  }
  double *t = (double *) malloc(reps * sizeof(double));
  for (int k = 0; k < NK; k++) {
    if (only && !listed(only, kname[k])) continue;
    int ok = 1;
    for (int r = 0; r <= reps; r++) { /* r = 0: the warm-up, not timed */
      double t0 = timerNow();
      double got = run(k, t_a, t_b, t_un, t_r, n);
      if (r > 0) t[r - 1] = timerNow() - t0;
      if (got != want[k]) ok = 0;
    }
    double best, med;
    timerStats(t, reps, &best, &med);
    printf("reduce,%s,%ld,%d,%.4e,%.4e,%s\n", kname[k], n, NTHREADS_(), med, best,
           ok ? "ok" : "WRONG");
  }
  free(t);
  targetFree(t_r);
  targetFree(t_un);
  targetFree(t_b);
  targetFree(t_a);
  free(b);
  free(a);
  targetFinalize();
  return 0;
}
