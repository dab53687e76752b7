/*
 * corpus.c -- the one driver of the legacy-kernel corpus (corpus.h): every
 * implementation of each shape timed in the same run, in a rotating order,
 * then validated against the serial original; a table and CSV rows only
 * for shapes whose every result is right.
 *
 *   bench_corpus [--shape a,b,...|all] [--sites N | --mb M] [--reps R]
 *                [--csv FILE] [--inject-error] [--list]
 *
 * Exit status: 0 when every shape validated, 1 when one did not (the other
 * shapes still run and report), 2 on a usage error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime; the value nvcc's headers also set */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/corpus/corpus.h"
#include "common/cli.h"
#include "common/timer.h"

#ifndef BENCH_CONFIG /* the make preset, passed in by benchmarks/build.mk */
#define BENCH_CONFIG "unknown"
#endif

const char *const corpusKindName[4] = {"serial", "port", "proto", "native"};

static const corpusShape *const shapes[] = {
    &corpusJacobi2d, &corpusHeat3d, &corpusStencil27, &corpusD2q9, &corpusD3q19,
    &corpusMasked,   &corpusGather, &corpusSu3mv,     &corpusNorm};
enum { NSHAPES = sizeof(shapes) / sizeof(shapes[0]) };

/* ---------------------------------------------------------------------- */
/* Memory of the three families */

double *corpusAlloc(corpusFamily fam, size_t n) {
  double *p = NULL;
  size_t nbytes = (n ? n : 1) * sizeof(double);
  if (fam == CORPUS_TARGET) {
    targetMalloc(&p, nbytes);
    targetZero(p, n ? n : 1);
  } else if (fam == CORPUS_NAT) {
    p = (double *) nativeMalloc(nbytes);
    nativeZero(p, nbytes);
  } else {
    p = (double *) calloc(n ? n : 1, sizeof(double));
    if (!p) {
      fprintf(stderr, "bench_corpus: out of memory (%zu bytes)\n", nbytes);
      exit(1);
    }
  }
  return p;
}

void corpusFree(corpusFamily fam, void *p) {
  if (fam == CORPUS_TARGET) targetFree(p);
  else if (fam == CORPUS_NAT) nativeFree(p);
  else free(p);
}

/* Host to a family: copyToTarget, or the native copy (cudaMemcpy / memcpy). */
static void put_bytes(corpusFamily fam, void *dst, const void *host, size_t nbytes) {
  if (fam == CORPUS_TARGET) copyToTarget(dst, host, nbytes);
  else if (fam == CORPUS_NAT) {
#ifdef __CUDACC__
    if (cudaMemcpy(dst, host, nbytes, cudaMemcpyHostToDevice) != cudaSuccess) {
      fprintf(stderr, "bench_corpus: cudaMemcpy to the device failed\n");
      exit(1);
    }
#else
    memcpy(dst, host, nbytes);
#endif
  } else {
    memcpy(dst, host, nbytes);
  }
}

void corpusPut(corpusFamily fam, double *dst, const double *host, size_t n) {
  put_bytes(fam, dst, host, n * sizeof(double));
}

void corpusGet(corpusFamily fam, double *host, const double *src, size_t n) {
  if (fam == CORPUS_HOST) memcpy(host, src, n * sizeof(double));
  else benchToHost(fam == CORPUS_TARGET ? BENCH_TDP : BENCH_NATIVE, host, src, n * sizeof(double));
}

int *corpusAllocInt(corpusFamily fam, size_t n) {
  int *p = NULL;
  size_t nbytes = (n ? n : 1) * sizeof(int);
  if (fam == CORPUS_TARGET) targetMalloc(&p, nbytes);
  else if (fam == CORPUS_NAT) p = (int *) nativeMalloc(nbytes);
  else p = (int *) malloc(nbytes);
  if (!p) {
    fprintf(stderr, "bench_corpus: out of memory (%zu bytes)\n", nbytes);
    exit(1);
  }
  return p;
}

void corpusPutInt(corpusFamily fam, int *dst, const int *host, size_t n) {
  put_bytes(fam, dst, host, n * sizeof(int));
}

double *corpusFieldAlloc(long nsites, int ncomp) {
  return corpusAlloc(CORPUS_TARGET, TDP_FIELD_SIZE(nsites, ncomp));
}

void corpusFieldPut(double *t_dst, const double *plain, long nsites, int ncomp) {
  size_t n = TDP_FIELD_SIZE(nsites, ncomp);
  double *h = (double *) calloc(n, sizeof(double));
  for (int c = 0; c < ncomp; c++)
    for (long s = 0; s < nsites; s++) h[TDP_INDEX(nsites, ncomp, s, c)] = plain[c * nsites + s];
  copyToTarget(t_dst, h, n * sizeof(double));
  free(h);
}

void corpusFieldGet(double *plain, const double *t_src, long nsites, int ncomp) {
  size_t n = TDP_FIELD_SIZE(nsites, ncomp);
  double *h = (double *) malloc(n * sizeof(double));
  copyFromTarget(h, t_src, n * sizeof(double));
  for (int c = 0; c < ncomp; c++)
    for (long s = 0; s < nsites; s++) plain[c * nsites + s] = h[TDP_INDEX(nsites, ncomp, s, c)];
  free(h);
}

corpusFamily corpusFamilyOf(corpusKind k) {
  return k == CORPUS_SERIAL ? CORPUS_HOST : k == CORPUS_NATIVE ? CORPUS_NAT : CORPUS_TARGET;
}

double *corpusNewField(corpusKind k, long nsites, int ncomp, const double *plain) {
  const corpusFamily fam = corpusFamilyOf(k);
  double *f = fam == CORPUS_TARGET ? corpusFieldAlloc(nsites, ncomp)
                                   : corpusAlloc(fam, (size_t) nsites * ncomp);
  if (plain && fam == CORPUS_TARGET) corpusFieldPut(f, plain, nsites, ncomp);
  else if (plain) corpusPut(fam, f, plain, (size_t) nsites * ncomp);
  return f;
}

void corpusFetchField(corpusKind k, double *plain, const double *f, long nsites, int ncomp) {
  const corpusFamily fam = corpusFamilyOf(k);
  if (fam == CORPUS_TARGET) corpusFieldGet(plain, f, nsites, ncomp);
  else corpusGet(fam, plain, f, (size_t) nsites * ncomp);
}

void corpusFreeField(corpusKind k, double *f) { corpusFree(corpusFamilyOf(k), f); }

/* ---------------------------------------------------------------------- */
/* Values and validation */

double corpusValue(long i, int seed) {
  unsigned long h = (unsigned long) i * 2654435761UL + (unsigned long) seed * 40503UL + 12345UL;
  h ^= h >> 13;
  h *= 0x5bd1e995UL;
  h ^= h >> 15;
  return 0.5 + (double) (h & 0xffff) / 65536.0;
}

long corpusCompare(const char *shape, const char *impl, const char *what, const double *got,
                   const double *want, long n, double tol) {
  char name[160];
  snprintf(name, sizeof(name), "%s %s %s", shape, impl, what);
  long bad = 0;
  for (long i = 0; i < n; i++) {
    double g = got[i], w = want[i];
    int ok = tol == 0.0 ? g == w : fabs(g - w) <= tol * (1.0 + fabs(w));
    if (!ok) bad += benchWrong(name, n == 1 ? -1 : i, g, w);
  }
  return bad;
}

double corpusTolSame(void) {
#if defined(__cplusplus)
  return 1e-13; /* nvcc, and g++ / clang++ (FP contraction on by default in C++) */
#else
  return 0.0;
#endif
}

/* ---------------------------------------------------------------------- */
/* The compiler of this build, without commas (a CSV field). */
static const char *compiler_name(void) {
  static char name[128];
#if defined(__CUDACC__)
  snprintf(name, sizeof(name), "nvcc %d.%d", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
#elif defined(__clang__)
  snprintf(name, sizeof(name), "clang %d.%d.%d", __clang_major__, __clang_minor__,
           __clang_patchlevel__);
#elif defined(__GNUC__)
  snprintf(name, sizeof(name), "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  snprintf(name, sizeof(name), "unknown");
#endif
#ifdef __cplusplus
  if (!TDP_GPU) strncat(name, " c++", sizeof(name) - strlen(name) - 1);
#endif
  return name;
}

/* --cpu-time: the process's CPU seconds instead of wall-clock seconds, for
 * diagnosis at one thread on a machine shared with other work (time spent
 * descheduled is not counted; the caches are still shared). */
static int use_cpu_time = 0;
static double now(void) {
  if (!use_cpu_time) return timerNow();
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1.0e-9 * (double) ts.tv_nsec;
}

typedef struct {
  double best, median;    /* seconds per step */
  double r_serial, r_nat; /* median over repetitions of the paired time ratios */
} implStats;

/* Median over repetitions 1..reps of t_ref[i] / t[i]: each repetition runs
 * every implementation once, back to back, so a disturbance hits a pair
 * (not one with the serial original where it ran apart: its repetitions
 * are paired by number). */
static double paired_ratio(const double *t_ref, const double *t, int reps) {
  double *r = (double *) malloc(reps * sizeof(double)), best, median;
  for (int i = 0; i < reps; i++) r[i] = t_ref[i + 1] / t[i + 1];
  timerStats(r, reps, &best, &median);
  free(r);
  return median;
}

static void csv_row(const char *csv, const corpusShape *sh, const corpusSize *sz, int k,
                    int reps, const implStats *s, const char *native) {
  FILE *f = fopen(csv, "a");
  if (!f) {
    fprintf(stderr, "bench_corpus: cannot append to %s\n", csv);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  if (ftell(f) == 0)
    fprintf(f, "bench,device,commit,compiler,config,backend,layout,vvl,threads,shape,impl,kind,"
               "sites,dims,reps,best_s,median_s,best_mlups,median_mlups,median_gbs,"
               "ratio_serial,ratio_native,native\n");
  const char *commit = getenv("BENCH_COMMIT");
  char threads[16] = "";
  if (!TDP_GPU) snprintf(threads, sizeof(threads), "%d", benchHostThreads());
  fprintf(f, "corpus,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%ld,%s,%d,%.6e,%.6e,%.2f,%.2f,%.3f,%.4f,%.4f,%s\n",
          benchDeviceName(), commit ? commit : "", compiler_name(), BENCH_CONFIG,
          TARGETDP_BACKEND, TARGETDP_LAYOUT, VVL, threads, sh->name, sh->impl[k].name,
          corpusKindName[sh->impl[k].kind], sz->sites, sz->dims, reps, s->best, s->median,
          sz->sites / s->best * 1e-6, sz->sites / s->median * 1e-6, sz->bytes / s->median * 1e-9,
          s->r_serial, s->r_nat, native);
  fclose(f);
}

/* The order of the timed steps (--order). ORDER_ROTATE: every repetition
 * runs every implementation once, starting one further along each time;
 * the successor of each implementation is then always the same one, so
 * the port (implementation 1) followed the one-thread serial original in
 * all but one repetition of n. On all 16 threads of the H100's VM host, at
 * 64 MiB, every implementation ran slower in that rotation than with the
 * serial original apart, the ports most (gcc: natives 1.1-1.6x, ports
 * 1.4-2.1x), and most ports 1.02-1.45x slower right after the serial step:
 * masked, gather, su3mv, norm and jacobi2d read 0.63-0.84 of their natives,
 * 0.94-1.03 apart (issue 28, benchmarks/results/h100-order/; why the ports
 * more is not isolated). ORDER_APART, the default: with more than one host
 * thread the serial original's steps run in a block of their own before
 * the others rotate, so no timed parallel step follows a serial one; with
 * one thread, or on a GPU build, it is ORDER_ROTATE. */
typedef enum { ORDER_APART, ORDER_ROTATE } stepOrder;
static const char *const order_names[] = {"apart", "rotate", NULL};

/* --steps FILE: one row per step (shape, threads, repetition, position,
 * the implementation, the one that ran just before it, seconds), written
 * after the timed steps, so a carry-over from one implementation to the
 * next can be seen. */
static void steps_rows(const char *steps, const corpusShape *sh, int nsteps, const int *seq_it,
                       const int *seq_k, const double *t, int nt) {
  FILE *f = fopen(steps, "a");
  if (!f) {
    fprintf(stderr, "bench_corpus: cannot append to %s\n", steps);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  if (ftell(f) == 0) fprintf(f, "shape,threads,rep,pos,impl,prev,seconds\n");
  for (int p = 0; p < nsteps; p++)
    fprintf(f, "%s,%d,%d,%d,%s,%s,%.6e\n", sh->name, TDP_GPU ? 0 : benchHostThreads(), seq_it[p],
            p, sh->impl[seq_k[p]].name, p ? sh->impl[seq_k[p - 1]].name : "",
            t[seq_k[p] * nt + seq_it[p]]);
  fclose(f);
}

/* Run, validate and report one shape; returns 1 if a result was wrong. */
static int run_shape(const corpusShape *sh, long sites, double mb, int reps, const char *csv,
                     int inject, stepOrder order, const char *steps) {
  if (mb > 0) sites = (long) (mb * 1e6 / sh->bytes_per_site);
  if (sites < 27) sites = 27;
  corpusSize sz;
  memset(&sz, 0, sizeof(sz));
  void *st = sh->create(sites, &sz);
  const int n = sh->nimpl, nt = reps + 1;
  double *t = (double *) malloc((size_t) n * nt * sizeof(double));
  /* On a GPU build the serial original (one host thread) is the reference
   * for validation only: it runs once, and that time stands for every
   * repetition (its ratio then says GPU / one host thread). */
  const int serial_once = TDP_GPU;
  const int apart = !serial_once && order == ORDER_APART && benchHostThreads() > 1;
  /* the steps in the order they ran: repetition and implementation */
  int *seq_it = (int *) malloc((size_t) n * nt * sizeof(int)), nsteps = 0;
  int *seq_k = (int *) malloc((size_t) n * nt * sizeof(int));
  if (serial_once) {
    const double t0 = now();
    sh->step(st, 0);
    const double once = now() - t0;
    for (int it = 0; it < nt; it++) t[it] = once;
    seq_it[nsteps] = 0, seq_k[nsteps++] = 0;
  }
  for (int it = 0; apart && it < nt; it++) {
    const double t0 = now();
    sh->step(st, 0);
    t[it] = now() - t0;
    seq_it[nsteps] = it, seq_k[nsteps++] = 0;
  }
  /* The rest rotate (the serial original too unless it ran apart or once):
   * none always runs first. Two alternate instead: rotated, one of them
   * would run twice in a row at every other repetition's start. */
  const int first = apart ? 1 : serial_once, nrot = n - first;
  for (int it = 0; it < nt; it++)
    for (int j = 0; j < nrot; j++) {
      const int k = first + (j + (nrot > 2 ? it : 0)) % nrot;
      const double t0 = now();
      sh->step(st, k);
      t[k * nt + it] = now() - t0;
      seq_it[nsteps] = it, seq_k[nsteps++] = k;
    }
  if (steps) steps_rows(steps, sh, nsteps, seq_it, seq_k, t, nt);
  free(seq_it);
  free(seq_k);

  /* Every implementation against the serial original: one that is wrong
   * gets no rate (nor CSV row) and fails the run; the others are still
   * reported, so one compiler's wrong answer does not hide the rest. */
  int *wrong = (int *) calloc(n, sizeof(int)), nwrong = 0;
  for (int k = 1; k < n; k++) {
    const long before = benchErrors();
    sh->check(st, k, inject && sh->impl[k].kind == CORPUS_PORT);
    wrong[k] = benchErrors() != before;
    nwrong += wrong[k];
  }
  sh->destroy(st);

  implStats *s = (implStats *) malloc(n * sizeof(implStats));
  int nat = -1; /* the fastest right native (by median) */
  for (int k = 0; k < n; k++) {
    timerStats(t + k * nt + 1, reps, &s[k].best, &s[k].median);
    if (sh->impl[k].kind == CORPUS_NATIVE && !wrong[k] && (nat < 0 || s[k].median < s[nat].median))
      nat = k;
  }
  printf("# %s: %s\n# %s, %ld sites, %d steps each after 1 warm-up, interleaved%s; %s\n",
         sh->name, sh->what, sz.dims, sz.sites, reps,
         apart ? " (the serial original apart)" : "",
         nwrong ? "VALIDATION FAILED (no rate for a wrong result)" : "validated");
  printf("%-12s %-7s %11s %11s %9s %9s %9s\n", "impl", "kind", "best MLUPS", "med MLUPS",
         "med GB/s", "x serial", "x native");
  for (int k = 0; k < n; k++) {
    if (wrong[k]) {
      printf("%-12s %-7s %11s\n", sh->impl[k].name, corpusKindName[sh->impl[k].kind], "WRONG");
      fprintf(stderr, "bench_corpus: %s %s: wrong results: no rate reported\n", sh->name,
              sh->impl[k].name);
      continue;
    }
    s[k].r_serial = paired_ratio(t + 0 * nt, t + k * nt, reps);
    s[k].r_nat = nat < 0 ? NAN : paired_ratio(t + nat * nt, t + k * nt, reps);
    printf("%-12s %-7s %11.1f %11.1f %9.2f %9.3f %9.3f\n", sh->impl[k].name,
           corpusKindName[sh->impl[k].kind], sz.sites / s[k].best * 1e-6,
           sz.sites / s[k].median * 1e-6, sz.bytes / s[k].median * 1e-9, s[k].r_serial,
           s[k].r_nat);
    if (csv) csv_row(csv, sh, &sz, k, reps, &s[k], nat < 0 ? "" : sh->impl[nat].name);
  }
  printf("\n");
  free(s);
  free(t);
  free(wrong);
  return nwrong != 0;
}

static const char *const usage =
    "usage: bench_corpus [--shape a,b,...|all] [--sites N | --mb M] [--reps R] [--csv FILE]\n"
    "                    [--order apart|rotate] [--steps FILE] [--inject-error] [--cpu-time]\n"
    "                    [--list]\n"
    "  The legacy-kernel corpus (benchmarks/corpus/): each shape's serial original, its\n"
    "  targetDP port (docs/porting.md), the prototype form and the best native code, timed\n"
    "  interleaved and validated against the serial original.\n"
    "  --sites: lattice sites per shape (default: from --mb); --mb: about M megabytes\n"
    "  moved per step (default 256); --reps: timed steps after one warm-up (default 10);\n"
    "  --order: apart (default): on more than one host thread the serial original's\n"
    "  steps run before the others rotate; rotate: every implementation in one rotation\n"
    "  (the order of runs before 2026-12-07); --steps: a CSV row per timed step.\n"
    "  --inject-error: corrupt one value of each port's result (validation must fail).\n"
    "  --cpu-time: time in process CPU seconds (diagnosis at one thread on a shared host).\n";

int main(int argc, char **argv) {
  static const char *const known[] = {"--shape=", "--sites=",        "--mb=",       "--reps=",
                                      "--csv=",   "--order=",        "--steps=",    "--inject-error",
                                      "--cpu-time", "--list",        "--help",      NULL};
  if (cliCheck(argc, argv, known) != 0) {
    fputs(usage, stderr);
    return 2;
  }
  if (cliFlag(argc, argv, "--help")) {
    fputs(usage, stdout);
    return 0;
  }
  if (cliFlag(argc, argv, "--list")) {
    for (int i = 0; i < NSHAPES; i++) printf("%-10s %s\n", shapes[i]->name, shapes[i]->what);
    return 0;
  }
  const char *list = cliString(argc, argv, "--shape", "all");
  const long sites = cliLong(argc, argv, "--sites", 0, 27, 1L << 31);
  const double mb = sites ? 0.0 : cliDouble(argc, argv, "--mb", 256.0);
  const int reps = (int) cliLong(argc, argv, "--reps", 10, 1, 10000);
  const char *csv = cliString(argc, argv, "--csv", NULL);
  const int inject = cliFlag(argc, argv, "--inject-error");
  const char *order_name = cliString(argc, argv, "--order", "apart");
  int order = -1;
  for (int i = 0; order_names[i]; i++)
    if (strcmp(order_name, order_names[i]) == 0) order = i;
  if (order < 0) {
    fprintf(stderr, "bench_corpus: --order %s: apart or rotate\n", order_name);
    return 2;
  }
  const char *steps = cliString(argc, argv, "--steps", NULL);
  use_cpu_time = cliFlag(argc, argv, "--cpu-time");
  if (use_cpu_time && (TDP_GPU || benchHostThreads() > 1)) {
    fprintf(stderr, "bench_corpus: --cpu-time is for one host thread (OMP_NUM_THREADS=1)\n");
    return 2;
  }
  if (!sites && !(mb > 0)) {
    fprintf(stderr, "bench_corpus: --mb must be positive\n");
    return 2;
  }

  /* every name in the list must be a shape: a typo never runs nothing */
  int run[NSHAPES] = {0};
  const int all = strcmp(list, "all") == 0;
  for (const char *p = list; !all && *p;) {
    size_t len = strcspn(p, ",");
    int found = 0;
    for (int i = 0; i < NSHAPES; i++)
      if (strlen(shapes[i]->name) == len && strncmp(p, shapes[i]->name, len) == 0)
        run[i] = found = 1;
    if (!found) {
      fprintf(stderr, "bench_corpus: no shape '%.*s' (--list lists them)\n", (int) len, p);
      return 2;
    }
    p += len + (p[len] == ',');
  }

  targetInit();
  benchPrintConfig(stdout, NULL);
  printf("# compiler: %s\n\n", compiler_name());
  int failed = 0;
  for (int i = 0; i < NSHAPES; i++)
    if (all || run[i])
      failed |= run_shape(shapes[i], sites, mb, reps, csv, inject, (stepOrder) order, steps);
  targetFinalize();
  return failed;
}
