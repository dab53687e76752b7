/*
 * STREAM through targetDP, beside the same kernels written natively, in one
 * binary and one run: Copy c=a, Mul b=s*c, Add c=a+b, Triad a=b+s*c,
 * Dot sum(a*b), Nstream a+=b+s*c; and through targetDP only, Sum
 * (targetDoubleSum), DotPlain (CUDA) and Dot2 (sum(a*b) and sum(a*a) in one
 * pass: the bytes of Dot, two reduction variables). Each repetition runs every kernel
 * natively and through targetDP back to back, on two sets of arrays that
 * the two swap every repetition (and which goes first alternates too), so
 * neither gains from where its arrays landed in memory or from what the
 * other left in the cache; their time ratio is taken pair by pair.
 *
 * Every result is checked against its closed form before any bandwidth is
 * printed: each array is coef * w(i) (bench.h), the coefficients follow
 * from the kernels' arithmetic, and Dot is coef_a * coef_b * sum(w^2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/cli.h"
#include "common/timer.h"

#define REAL double
#define R(name) name##_d
#include "stream_kernels.h"
#undef REAL
#undef R
#define REAL float
#define R(name) name##_f
#include "stream_kernels.h"
#undef REAL
#undef R

#ifdef __CUDACC__
#define DEFAULT_SIZE (1L << 27) /* 1 GiB per array: 20x the H100's L2 */
#else
#define DEFAULT_SIZE (1L << 25) /* 256 MiB per array */
#endif

static const char *const usage =
    "usage: bench_stream [--size N] [--reps R] [--float] [--csv FILE]\n"
    "  STREAM Copy, Mul, Add, Triad, Dot, Nstream through targetDP and natively.\n"
    "  --size N   elements per array (default 2^25 on the C build, 2^27 on CUDA)\n"
    "  --reps R   timed repetitions after one untimed warm-up (default 20)\n"
    "  --float    single precision (default double)\n"
    "  --csv FILE append one row per kernel and implementation\n"
    "  --native V keep native candidate V (0 = the plain loop) instead of the fastest\n"
    "  --lanes L  sites per thread of the targetDP launches (TDP_LAUNCH_LANES): tuned\n"
    "             (default: per kernel, below), vvl, or a count 1, 2, 4 .. VVL for all\n"
    "  --inject-native-error  corrupt the last native Triad candidate's result (a test)\n";

typedef struct {
  void (*init)(int impl, const streamSet *x, int n, double ka, double kb, double kc);
  void (*launch)(int impl, int k, const streamSet *x, int n, double scalar);
  int (*native_count)(int k);
  const char *(*native_name)(int k, int v);
} streamOps;

/* The closed form: array a holds coef[0] * w(i), b coef[1] * w(i), c coef[2] * w(i). */
typedef struct {
  double coef[3];
} streamState;

/* Which array kernel k writes (-1: none), and its coefficient afterwards. */
static int stream_update(int k, streamState *st, double s) {
  double *ka = &st->coef[0], *kb = &st->coef[1], *kc = &st->coef[2];
  switch (k) {
  case STREAM_COPY: *kc = *ka; return 2;
  case STREAM_MUL: *kb = s * *kc; return 1;
  case STREAM_ADD: *kc = *ka + *kb; return 2;
  case STREAM_TRIAD: *ka = *kb + s * *kc; return 0;
  case STREAM_NSTREAM: *ka += *kb + s * *kc; return 0;
  default: return -1;
  }
}

/* sum of w(i) (p = 1) or w(i)^2 (p = 2) over n elements: w has period 16. */
static double weight_sum(long n, int p) {
  double period = 0.0, rest = 0.0;
  for (int j = 0; j < 16; j++) {
    double w = p == 1 ? streamWeight(j) : streamWeight(j) * streamWeight(j);
    period += w;
    if (j < n % 16) rest += w;
  }
  return (double) (n / 16) * period + rest;
}

/* Sites per thread of each targetDP launch. "tuned", the choice a CUDA
 * user writes at each launch: 16 bytes per thread of each array for the
 * one-input kernels (Copy, Mul: 2 doubles, 4 floats), 8 bytes for those
 * that read two or three arrays (Add, Triad, Nstream: 1 double, 2
 * floats). Measured on the H100 (docs/performance.md, 3cf2800), double:
 * Copy and Mul 0.96 of the best native at 1 lane, 1.000 at 2, 0.997 at 4;
 * Add and Triad 1.000-1.004 at 1 lane, 0.99 at 4. Dot keeps
 * TDP_LAUNCH_REDUCE (VVL lanes, a grid of two GPU fills). The C backend's
 * lanes are its SIMD width whatever is asked. */
static void set_lanes(const char *spec, size_t esize) {
  const char *end = NULL;
  long all = strcmp(spec, "vvl") == 0 ? VVL : strtol(spec, (char **) &end, 10);
  if (strcmp(spec, "tuned") != 0 && (all < 1 || (end && *end))) {
    fprintf(stderr, "stream: --lanes %s: want tuned, vvl or a count\n", spec);
    exit(2);
  }
  for (int k = 0; k < STREAM_NKERNEL; k++) {
    long l = all;
    int elementwise = k == STREAM_COPY || k == STREAM_MUL || k == STREAM_ADD ||
                      k == STREAM_TRIAD || k == STREAM_NSTREAM;
    if (!elementwise) l = VVL; /* the reductions keep TDP_LAUNCH_REDUCE */
    else if (strcmp(spec, "tuned") == 0) {
      int two_inputs = k == STREAM_ADD || k == STREAM_TRIAD || k == STREAM_NSTREAM;
      l = (long) ((two_inputs ? 8 : 16) / esize);
    }
#ifndef __CUDACC__
    l = VVL; /* what the C backend runs, and so what the report says */
#endif
    streamLanes[k] = (int) (l < VVL ? l : VVL);
  }
}

/* What choose_native measured, printed with the results (no bandwidth is
 * printed before every result has been validated). */
static char candidates[8192];

/* The samples of kernel k, implementation impl: reps + 1 of them. */
#define T(k, impl) (times + ((size_t) (k) * 2 + (impl)) * nt)

static int has_impl(int k, int impl) {
  return impl == BENCH_TDP || (k != STREAM_SUM && k != STREAM_DOT_PLAIN && k != STREAM_DOT2);
}

/* The table and the CSV rows: bandwidth relative to the native Triad's
 * best, as STREAM quotes it. */
static void report(const benchOptions *o, const int *klist, int nk, double *times, size_t esize,
                   double rtol, double rtol_sum, const char *const *chosen) {
  char lanes_name[STREAM_NKERNEL][24], lanes_line[256];
  size_t ll = (size_t) snprintf(lanes_line, sizeof(lanes_line), "# targetDP sites per thread:");
  const int n = (int) o->size, nt = o->reps + 1;
  const char *precision = o->is_float ? "float" : "double";
  benchTiming kt[STREAM_NKERNEL][2];
  benchStats ks[STREAM_NKERNEL][2];
  for (int i = 0; i < nk; i++) {
    int k = klist[i];
    const int l = streamLanes[k] > 0 ? streamLanes[k] : VVL;
    snprintf(lanes_name[k], sizeof(lanes_name[k]), "lanes=%d", l);
    if (ll < sizeof(lanes_line) && k <= STREAM_NSTREAM)
      ll += (size_t) snprintf(lanes_line + ll, sizeof(lanes_line) - ll, " %s %d", streamName[k], l);
    for (int impl = 0; impl < 2; impl++) {
      if (!has_impl(k, impl)) continue;
      benchTiming *t = &kt[k][impl];
      t->kernel = streamName[k];
      t->impl = impl;
      t->size = n;
      t->bytes = (double) streamNArrays[k] * n * esize;
      t->t = T(k, impl);
      t->t_ref = (impl == BENCH_TDP && has_impl(k, BENCH_NATIVE)) ? T(k, BENCH_NATIVE) : NULL;
      t->variant = impl == BENCH_NATIVE ? chosen[k] : lanes_name[k];
      ks[k][impl] = benchSummarise(t, o->reps);
    }
  }
  double triad = ks[STREAM_TRIAD][BENCH_NATIVE].best_gbs;

  fputs(candidates, stdout);
  printf("# stream: %d %ss per array (%.1f MiB), %d timed repetitions after 1 warm-up\n", n,
         precision, n * esize / 1048576.0, o->reps);
  benchPrintConfig(stdout, o);
  printf("%s\n", lanes_line);
  printf("# all results validated (rtol %.0e per element, %.0e for sums)\n", rtol, rtol_sum);
  printf("%-8s %10s %10s %10s %10s %10s %9s\n", "", "native", "GB/s", "targetDP", "GB/s",
         "targetDP/", "% of");
  printf("%-8s %10s %10s %10s %10s %10s %9s\n", "kernel", "best", "median", "best", "median",
         "native", "Triad");
  for (int i = 0; i < nk; i++) {
    int k = klist[i];
    const benchStats *nat = &ks[k][BENCH_NATIVE], *tdp = &ks[k][BENCH_TDP];
    if (has_impl(k, BENCH_NATIVE))
      printf("%-8s %10.2f %10.2f %10.2f %10.2f %10.4f %9.1f\n", streamName[k], nat->best_gbs,
             nat->median_gbs, tdp->best_gbs, tdp->median_gbs, tdp->ratio,
             100.0 * tdp->best_gbs / triad);
    else
      printf("%-8s %10s %10s %10.2f %10.2f %10s %9.1f\n", streamName[k], "-", "-", tdp->best_gbs,
             tdp->median_gbs, "-", 100.0 * tdp->best_gbs / triad);
    for (int impl = 0; impl < 2; impl++)
      if (has_impl(k, impl))
        benchCsvRow(o, precision, &kt[k][impl], &ks[k][impl],
                    100.0 * ks[k][impl].best_gbs / triad);
  }
  printf("# targetDP/native: median over pairs of repetitions of native time / targetDP time\n");
  printf("# Dot2/Dot through targetDP, bandwidth per byte (two reduction variables vs one): "
         "best %.4f, median %.4f\n", ks[STREAM_DOT2][BENCH_TDP].best_gbs / ks[STREAM_DOT][BENCH_TDP].best_gbs,
         ks[STREAM_DOT2][BENCH_TDP].median_gbs / ks[STREAM_DOT][BENCH_TDP].median_gbs);
  printf("# native = the fastest candidate of each kernel (listed above)\n");
}

/* The native side is the fastest of several candidates (stream_native.h):
 * each is run on set 0, its first call validated element by element (and
 * every Dot result), then timed ncal times; the lowest median wins and is
 * what the interleaved measurement below runs as "native". */
static void choose_native(const benchOptions *o, const streamOps *ops, streamSet *x,
                          streamState *st, int n, double s, double rtol, double rtol_sum,
                          void *host, const char **chosen, int inject, int force) {
  const size_t esize = o->is_float ? sizeof(float) : sizeof(double);
  const int ncal = o->reps < 5 ? o->reps : 5;
  double *t = (double *) malloc((ncal + 1) * sizeof(double));
  char what[160];
  size_t len = 0;
  len += snprintf(candidates + len, sizeof(candidates) - len,
                  "# native candidates: median of %d calls each after 1 validated call; "
                  "* = the native below%s\n", ncal, force >= 0 ? " (chosen by --native)" : "");
  for (int k = STREAM_COPY; k <= STREAM_NSTREAM; k++) {
    int nv = ops->native_count(k), best = 0;
    double best_t = 0.0, gbs[64];
    for (int v = 0; v < nv && v < 64; v++) {
      streamNativeChoice[k] = v;
      snprintf(what, sizeof(what), "%s native candidate '%s'", streamName[k],
               ops->native_name(k, v));
      for (int c = 0; c <= ncal; c++) {
        if (k == STREAM_DOT) {
          nativeZero(x->sum, sizeof(double));
          nativeSynchronize();
        }
        double t0 = timerNow();
        ops->launch(BENCH_NATIVE, k, x, n, s);
        t[c] = timerNow() - t0;
        double *coef = st->coef;
        if (k == STREAM_DOT) {
          double result;
          benchToHost(BENCH_NATIVE, &result, x->sum, sizeof(double));
          double want = coef[0] * coef[1] * weight_sum(n, 2);
          if (!benchClose(result, want, rtol_sum)) benchWrong(what, -1, result, want);
        }
        int out = stream_update(k, st, s);
        if (c == 0 && out >= 0) {
          void *arr = out == 0 ? x->a : out == 1 ? x->b : x->c;
          if (inject && k == STREAM_TRIAD && v == nv - 1) benchCorrupt(arr, n / 2, o->is_float);
          benchToHost(BENCH_NATIVE, host, arr, n * esize);
          benchCheckStream(what, host, n, o->is_float, coef[out], rtol);
        }
      }
      double tb, tm;
      timerStats(t + 1, ncal, &tb, &tm);
      gbs[v] = (double) streamNArrays[k] * n * esize / tm * 1e-9;
      if (v == 0 || tm < best_t) best = v, best_t = tm;
    }
    if (force >= 0) best = force < nv ? force : nv - 1;
    streamNativeChoice[k] = best;
    chosen[k] = ops->native_name(k, best);
    for (int v = 0; v < nv && v < 64; v++)
      if (len < sizeof(candidates))
        len += snprintf(candidates + len, sizeof(candidates) - len, "#   %-8s %c %-34s %10.2f GB/s\n",
                        streamName[k], v == best ? '*' : ' ', ops->native_name(k, v), gbs[v]);
  }
  free(t);
}

int main(int argc, char **argv) {
  static const char *const known[] = {"--float", "--inject-native-error", "--native=", "--lanes=",
                                      NULL};
  benchOptions o = benchParse(argc, argv, "stream", known, DEFAULT_SIZE, usage);
  targetInit();

  const int n = (int) o.size, nt = o.reps + 1;
  const size_t esize = o.is_float ? sizeof(float) : sizeof(double);
  const char *precision = o.is_float ? "float" : "double";
  streamOps ops;
  ops.init = o.is_float ? streamInit_f : streamInit_d;
  ops.launch = o.is_float ? streamLaunch_f : streamLaunch_d;
  ops.native_count = o.is_float ? streamNativeCount_f : streamNativeCount_d;
  ops.native_name = o.is_float ? streamNativeName_f : streamNativeName_d;
  /* float kernels use s rounded to float: so does the expectation */
  const double s = o.is_float ? (double) (float) STREAM_SCALAR : STREAM_SCALAR;
  const double rtol = o.is_float ? 1e-3 : 1e-10;      /* per element, any reps */
  const double rtol_sum = o.is_float ? 1e-3 : 1e-8;   /* sums of up to 2^30 terms */
  set_lanes(cliString(argc, argv, "--lanes", "tuned"), esize);

  /* The kernels run: the six of STREAM, then the extra rows. Sum takes
   * double arrays only; DotPlain differs from Dot only on CUDA. */
  int klist[STREAM_NKERNEL], nk = 0;
  for (int k = STREAM_COPY; k <= STREAM_NSTREAM; k++) klist[nk++] = k;
  if (!o.is_float) klist[nk++] = STREAM_SUM;
#ifdef __CUDACC__
  klist[nk++] = STREAM_DOT_PLAIN;
#endif
  klist[nk++] = STREAM_DOT2;

  /* Both array sets come from targetMalloc (cudaMalloc, or 64-byte aligned
   * host memory: what native code would call too) so that they can swap.
   * Each implementation keeps its own Dot accumulator. */
  streamSet set[2];
  streamState st[2]; /* the closed form of each set */
  double *sum[2];
  for (int si = 0; si < 2; si++) {
    targetMalloc(&set[si].a, n * esize);
    targetMalloc(&set[si].b, n * esize);
    targetMalloc(&set[si].c, n * esize);
    set[si].sum = NULL;
    st[si].coef[0] = 1.0;
    st[si].coef[1] = 2.0;
    st[si].coef[2] = 0.0;
    ops.init(BENCH_TDP, &set[si], n, 1.0, 2.0, 0.0);
  }
  sum[BENCH_NATIVE] = (double *) nativeMalloc(2 * sizeof(double));
  targetMalloc(&sum[BENCH_TDP], 2 * sizeof(double));
  void *host = malloc(n * esize);
  double *times = (double *) calloc((size_t) STREAM_NKERNEL * 2 * nt, sizeof(double));
  if (!host || !times) {
    fprintf(stderr, "stream: out of host memory\n");
    return 1;
  }

  const char *chosen[STREAM_NKERNEL] = {NULL};
  streamSet cal = set[0];
  cal.sum = sum[BENCH_NATIVE];
  choose_native(&o, &ops, &cal, &st[0], n, s, rtol, rtol_sum, host, chosen,
                cliFlag(argc, argv, "--inject-native-error"),
                (int) cliLong(argc, argv, "--native", -1, -1, 63));

  char what[128];
  for (int it = 0; it < nt; it++) {
    for (int i = 0; i < nk; i++) {
      int k = klist[i];
      for (int j = 0; j < 2; j++) {
        int impl = it % 2 ? 1 - j : j, si = impl ^ (it % 2);
        if (!has_impl(k, impl)) continue;
        streamSet xs = set[si], *x = &xs;
        x->sum = sum[impl];
        int is_dot = k == STREAM_DOT || k == STREAM_DOT_PLAIN || k == STREAM_DOT2;
        if (is_dot && impl == BENCH_TDP) { /* untimed: zero the accumulators, wait */
          targetZero(x->sum, 2);
          targetSynchronize();
        } else if (is_dot) {
          nativeZero(x->sum, 2 * sizeof(double));
          nativeSynchronize();
        }
        double result = 0.0, t0 = timerNow();
        if (k == STREAM_SUM) targetDoubleSum(&result, (const double *) x->a, n);
        else ops.launch(impl, k, x, n, s);
        T(k, impl)[it] = timerNow() - t0;

        snprintf(what, sizeof(what), "%s %s %s", streamName[k], benchImplName[impl], precision);
        double *coef = st[si].coef;
        if (is_dot || k == STREAM_SUM) {
          if (is_dot) benchToHost(impl, &result, x->sum, sizeof(double));
          double want = is_dot ? coef[0] * coef[1] * weight_sum(n, 2) : coef[0] * weight_sum(n, 1);
          if (!benchClose(result, want, rtol_sum)) benchWrong(what, -1, result, want);
          if (k == STREAM_DOT2) { /* the second sum: sum(a*a) */
            benchToHost(impl, &result, x->sum + 1, sizeof(double));
            want = coef[0] * coef[0] * weight_sum(n, 2);
            strncat(what, ", sum(a*a)", sizeof(what) - strlen(what) - 1);
            if (!benchClose(result, want, rtol_sum)) benchWrong(what, -1, result, want);
          }
        }
        int out = stream_update(k, &st[si], s);
        if (it == 0 && out >= 0) { /* the warm-up result of each kernel, element by element */
          void *arr = out == 0 ? x->a : out == 1 ? x->b : x->c;
          if (o.inject_error && impl == BENCH_TDP && k == STREAM_TRIAD)
            benchCorrupt(arr, n - 1, o.is_float);
          benchToHost(BENCH_TDP, host, arr, n * esize);
          benchCheckStream(what, host, n, o.is_float, coef[out], rtol);
        }
      }
    }
  }
  /* The state after every repetition: catches a kernel wrong only later. */
  for (int si = 0; si < 2; si++) {
    void *arr[3] = {set[si].a, set[si].b, set[si].c};
    for (int j = 0; j < 3; j++) {
      snprintf(what, sizeof(what), "array %c of set %d, after all repetitions", 'a' + j, si);
      benchToHost(BENCH_TDP, host, arr[j], n * esize);
      benchCheckStream(what, host, n, o.is_float, st[si].coef[j], rtol);
    }
  }
  int wrong = benchErrors() != 0;
  if (wrong) fprintf(stderr, "stream: %ld wrong results: no bandwidth reported\n", benchErrors());
  else report(&o, klist, nk, times, esize, rtol, rtol_sum, chosen);

  for (int si = 0; si < 2; si++) {
    targetFree(set[si].a);
    targetFree(set[si].b);
    targetFree(set[si].c);
  }
  nativeFree(sum[BENCH_NATIVE]);
  targetFree(sum[BENCH_TDP]);
  free(host);
  free(times);
  targetFinalize();
  return wrong;
}
