/*
 * exact.c -- bench_exact: the cost of exact, reproducible sums
 * (targetDP_exact.h; docs/performance.md, "Exact sums").
 *
 *   bench_exact [--size N] [--reps R] [--float] [--hard] [--csv FILE] [--inject-error]
 *
 * Each timed call is a whole reduction as a program does it: zero the
 * result, launch, read the value on the host. In pairs, interleaved:
 *   SumPlain  TDP_TLP_SUM of a double accumulator + targetBlockAddDouble
 *             (the fast, order-dependent in-kernel sum), copy back 8 bytes
 *   SumExact  the same loop with tdpExactAcc (TDP_TLP_EXACT,
 *             targetBlockAddExact), targetExactValue
 *   LibSum    targetDoubleSum / targetFloatSum (exact since issue 25)
 *   DotPlain, DotExact: sum(a*b), as SumPlain and SumExact
 * ratio (CSV) = plain time / exact time of the paired repetitions: the
 * exact form's share of the plain one's bandwidth. --hard fills a with
 * magnitudes from 2^-990 to 2^990 that cancel: every summand takes the
 * rare path (its digits), the worst case.
 *
 * Validation (exit 1 on failure): SumExact, LibSum and targetDoubleSumExact
 * give the same bits; the plain sums agree with them to 1e-10 of the sum
 * of magnitudes (in --hard, not checked: the plain sum is then garbage).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/cli.h"
#include "common/timer.h"

/* One set of kernels per element type. */
#define EXACT_KERNELS_(T, S)                                                               \
  TDP_KERNEL void kSumPlain##S(const T *a, long n, double *t_s) {                          \
    double s = 0.0;                                                                        \
    TDP_TLP_SUM(base, n, s) {                                                              \
      TDP_ILP_REDUCE(v) s += (double) a[base + v];                                         \
    }                                                                                      \
    targetBlockAddDouble(t_s, s);                                                          \
  }                                                                                        \
  TDP_KERNEL void kSumExact##S(const T *a, long n, tdpExactSum *t_s) {                     \
    tdpExactAcc s = tdpExactAccOn(t_s);                                                    \
    TDP_TLP_EXACT(base, n, s) {                                                            \
      TDP_ILP_REDUCE(v) tdpExactAdd(&s, (double) a[base + v]);                             \
    }                                                                                      \
    targetBlockAddExact(&s);                                                               \
  }                                                                                        \
  TDP_KERNEL void kDotPlain##S(const T *a, const T *b, long n, double *t_s) {              \
    double s = 0.0;                                                                        \
    TDP_TLP_SUM(base, n, s) {                                                              \
      TDP_ILP_REDUCE(v) s += (double) a[base + v] * b[base + v];                           \
    }                                                                                      \
    targetBlockAddDouble(t_s, s);                                                          \
  }                                                                                        \
  TDP_KERNEL void kDotExact##S(const T *a, const T *b, long n, tdpExactSum *t_s) {         \
    tdpExactAcc s = tdpExactAccOn(t_s);                                                    \
    TDP_TLP_EXACT(base, n, s) {                                                            \
      TDP_ILP_REDUCE(v) tdpExactAdd(&s, (double) a[base + v] * b[base + v]);               \
    }                                                                                      \
    targetBlockAddExact(&s);                                                               \
  }
EXACT_KERNELS_(double, D)
EXACT_KERNELS_(float, F)

enum { K_SUM_PLAIN, K_SUM_EXACT, K_LIB_SUM, K_DOT_PLAIN, K_DOT_EXACT, K_N };
static const char *const kname[K_N] = {"SumPlain", "SumExact", "LibSum", "DotPlain", "DotExact"};
static const int kplain[K_N] = {-1, K_SUM_PLAIN, K_SUM_PLAIN, -1, K_DOT_PLAIN}; /* pair of each */

typedef struct {
  int is_float;
  long n;
  void *a, *b;
  double *t_plain;
  tdpExactSum *t_exact;
} ctx;

/* One whole reduction: zero, run, the value on the host. */
static double run(const ctx *c, int k) {
  double r = 0.0;
  const long n = c->n;
  switch (k) {
  case K_SUM_PLAIN:
  case K_DOT_PLAIN:
    targetZero(c->t_plain, 1);
    if (k == K_SUM_PLAIN) {
      if (c->is_float) TDP_LAUNCH_REDUCE(kSumPlainF, n, (const float *) c->a, n, c->t_plain);
      else TDP_LAUNCH_REDUCE(kSumPlainD, n, (const double *) c->a, n, c->t_plain);
    } else {
      if (c->is_float)
        TDP_LAUNCH_REDUCE(kDotPlainF, n, (const float *) c->a, (const float *) c->b, n, c->t_plain);
      else
        TDP_LAUNCH_REDUCE(kDotPlainD, n, (const double *) c->a, (const double *) c->b, n,
                          c->t_plain);
    }
    copyFromTarget(&r, c->t_plain, sizeof r);
    break;
  case K_SUM_EXACT:
  case K_DOT_EXACT:
    targetExactZero(c->t_exact, 1);
    if (k == K_SUM_EXACT) {
      if (c->is_float) TDP_LAUNCH_REDUCE(kSumExactF, n, (const float *) c->a, n, c->t_exact);
      else TDP_LAUNCH_REDUCE(kSumExactD, n, (const double *) c->a, n, c->t_exact);
    } else {
      if (c->is_float)
        TDP_LAUNCH_REDUCE(kDotExactF, n, (const float *) c->a, (const float *) c->b, n, c->t_exact);
      else
        TDP_LAUNCH_REDUCE(kDotExactD, n, (const double *) c->a, (const double *) c->b, n,
                          c->t_exact);
    }
    targetExactValue(&r, c->t_exact, 1);
    break;
  case K_LIB_SUM:
    if (c->is_float) {
      float f = 0.0f;
      targetFloatSum(&f, (const float *) c->a, (size_t) n);
      r = f;
    } else {
      targetDoubleSum(&r, (const double *) c->a, (size_t) n);
    }
    break;
  }
  return r;
}

int main(int argc, char **argv) {
  static const char *const known[] = {"--float", "--hard", NULL};
  const char *usage =
      "usage: bench_exact [--size N] [--reps R] [--float] [--hard] [--csv FILE] [--inject-error]\n"
      "  plain vs exact sums and dot products (in-kernel), and targetDoubleSum\n";
  benchOptions o = benchParse(argc, argv, "exact", known, 1L << 24, usage);
  const int hard = cliFlag(argc, argv, "--hard");
  targetInit();
  ctx c;
  c.is_float = o.is_float;
  c.n = o.size;
  const size_t esz = c.is_float ? sizeof(float) : sizeof(double);
  targetMalloc(&c.a, c.n * esz);
  targetMalloc(&c.b, c.n * esz);
  targetMalloc(&c.t_plain, sizeof(double));
  targetMalloc(&c.t_exact, sizeof(tdpExactSum));
  /* a: uniform in [0.5, 1.5) (or --hard), b: 1 + i/16 pattern; on the host, then copied */
  void *ha = malloc(c.n * esz), *hb = malloc(c.n * esz);
  double mag = 0.0;
  unsigned long long x = 88172645463325252ull;
  for (long i = 0; i < c.n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const double u = (double) (x >> 11) * (1.0 / 9007199254740992.0);
    double va = 0.5 + u, vb = 1.0 + (double) (i & 15) / 16.0;
    if (hard) va = ldexp(1.0 + u, (int) (x % 1981) - 990) * ((x >> 20) & 1 ? 1.0 : -1.0);
    if (c.is_float) {
      if (hard) va = ldexp(1.0 + u, (int) (x % 201) - 100) * ((x >> 20) & 1 ? 1.0 : -1.0);
      ((float *) ha)[i] = (float) va;
      ((float *) hb)[i] = (float) vb;
      mag += fabs((double) (float) va) * 2.0;
    } else {
      ((double *) ha)[i] = va;
      ((double *) hb)[i] = vb;
      mag += fabs(va) * 2.0;
    }
  }
  copyToTarget(c.a, ha, c.n * esz);
  copyToTarget(c.b, hb, c.n * esz);
  free(ha);
  free(hb);

  double *t[K_N], val[K_N];
  for (int k = 0; k < K_N; k++) t[k] = (double *) calloc(o.reps + 1, sizeof(double));
  for (int rep = 0; rep <= o.reps; rep++) {
    for (int j = 0; j < K_N; j++) { /* the order alternates between repetitions */
      const int k = rep % 2 ? K_N - 1 - j : j;
      targetSynchronize();
      const double t0 = timerNow();
      val[k] = run(&c, k);
      t[k][rep] = timerNow() - t0;
    }
  }
  /* validation (--inject-error: the in-kernel exact sum one ulp off, which it must catch) */
  if (o.inject_error) val[K_SUM_EXACT] = nextafter(val[K_SUM_EXACT], INFINITY);
  tdpExactSum xs;
  targetSetErrorAbort(1);
  if (c.is_float) targetFloatSumExact(&xs, (const float *) c.a, (size_t) c.n);
  else targetDoubleSumExact(&xs, (const double *) c.a, (size_t) c.n);
  const double exact = tdpExactSumValue(&xs);
  const double libv = c.is_float ? (double) (float) exact : exact;
  if (memcmp(&val[K_SUM_EXACT], &exact, sizeof exact))
    benchWrong("SumExact vs targetDoubleSumExact (bits)", -1, val[K_SUM_EXACT], exact);
  if (memcmp(&val[K_LIB_SUM], &libv, sizeof libv))
    benchWrong("LibSum vs targetDoubleSumExact (bits)", -1, val[K_LIB_SUM], libv);
  if (!hard) {
    if (!(fabs(val[K_SUM_PLAIN] - exact) <= 1e-10 * mag))
      benchWrong("SumPlain vs the exact sum", -1, val[K_SUM_PLAIN], exact);
    if (!(fabs(val[K_DOT_PLAIN] - val[K_DOT_EXACT]) <= 1e-10 * mag * 2.0))
      benchWrong("DotPlain vs DotExact", -1, val[K_DOT_PLAIN], val[K_DOT_EXACT]);
  }
  if (benchErrors()) { /* no timings of a wrong result */
    fprintf(stderr, "bench_exact: %ld validation failure(s)\n", benchErrors());
    targetFree(c.a);
    targetFree(c.b);
    targetFree(c.t_plain);
    targetFree(c.t_exact);
    targetFinalize();
    return 1;
  }
  const char *prec = c.is_float ? (hard ? "float-hard" : "float") : (hard ? "double-hard" : "double");
  printf("# bench_exact: %s, %s, n = %ld, %d reps%s\n", targetConfigString(), prec, c.n, o.reps,
         hard ? ", hard data (every summand to the digits)" : "");
  printf("# %-9s %12s %12s %10s %8s\n", "kernel", "best_ms", "median_ms", "best_GB/s", "ratio");
  for (int k = 0; k < K_N; k++) {
    benchTiming bt;
    bt.kernel = kname[k];
    bt.impl = BENCH_TDP;
    bt.size = c.n;
    bt.bytes = (double) c.n * esz * (k >= K_DOT_PLAIN ? 2 : 1);
    bt.t = t[k];
    bt.t_ref = kplain[k] >= 0 ? t[kplain[k]] : NULL;
    bt.variant = NULL;
    const benchStats s = benchSummarise(&bt, o.reps);
    printf("  %-9s %12.4f %12.4f %10.2f %8.3f\n", kname[k], s.best_s * 1e3, s.median_s * 1e3,
           s.best_gbs, s.ratio);
    benchCsvRow(&o, prec, &bt, &s, 0.0);
  }
  printf("# values: plain %.17g, exact %.17g (%a)\n", val[K_SUM_PLAIN], exact, exact);
  for (int k = 0; k < K_N; k++) free(t[k]);
  targetFree(c.a);
  targetFree(c.b);
  targetFree(c.t_plain);
  targetFree(c.t_exact);
  targetFinalize();
  printf("bench_exact: validation passed\n");
  return 0;
}
