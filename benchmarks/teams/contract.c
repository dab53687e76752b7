/*
 * contract.c -- the nine Intrepid tensor contractions (issue 30), through
 * targetDP beside the best native code, in one binary and one run:
 *
 *   out[c][l][r] (=, or += in sum-into mode) sum_k left[c][l][k] * right[c][r][k]
 *
 * (DataData: nl = nr = 1; DataField: nr = 1; FieldField: both fields; k
 * over points x components). Implementations:
 *   tdp-flat     a TDP_TLP kernel, one thread per output (below)
 *   tdp-team     the layer's team kernels (targetContractPath(..., TEAM)):
 *                output tiles through team scratch, or a dot per thread
 *                with vector lanes when nl or nr is 1
 *   tdp-helper   targetContract (AUTO): the team kernel or the vendor path
 *                by the crossover
 *   CUDA build:  cuda-flat, cuda-tiled (the same two algorithms written
 *                directly in CUDA: native_cuda.h), cublas
 *                (cublasDgemmStridedBatched, FieldField shapes), and copy
 *                (cudaMemcpy device to device of the case's bytes: the
 *                ceiling)
 *   C build:     serial (the reference loop, one thread), omp-plain (a
 *                parallel loop over outputs, simd over k), omp-blocked
 *                (4 x 4 register blocks of outputs), copy (an OpenMP copy)
 *
 * Every implementation is validated against the serial reference (to a
 * relative 1e-12: the data are positive) in both modes before any time is
 * taken; a wrong result prints VALIDATION FAILED and exits 1. Timing:
 * rounds interleaved over the implementations, each sample the time per
 * call over reps calls; the CSV holds the median, min and max.
 *
 *   bench_contract [--cases LIST] [--mb LIST] [--modes set,add] [--rounds R]
 *                  [--reps N] [--impls LIST] [--csv FILE] [--validate]
 *                  [--crossover] [--inject-error]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "benchmarks/teams/native_cuda.h"
#include "benchmarks/teams/tbench.h"
#include "common/cli.h"
#include "common/timer.h"

static const char *const usage =
    "usage: bench_contract [options]\n"
    "  --cases LIST   comma-separated case names, or: issue (default; the issue's table),\n"
    "                 nine (one case of each contraction), all\n"
    "  --mb LIST      memory per case in MiB (left + right + out), comma-separated (default 256)\n"
    "  --modes LIST   set, add or set,add: which modes to time (both are validated; default set)\n"
    "  --rounds R     interleaved rounds (default 3)\n"
    "  --reps N       calls per sample (default 0: enough for about 20 ms)\n"
    "  --impls LIST   only these implementations (default: all of this build)\n"
    "  --csv FILE     append one row per case, size, mode and implementation\n"
    "  --validate     validate every implementation, time nothing (the test suite's mode)\n"
    "  --crossover    time TEAM against VENDOR over a sweep of L = R and K at --mb (default\n"
    "                 64) and print the crossover that loses least\n"
    "  --inject-error corrupt one result of tdp-team: the run must fail\n";

/* ---------------------------------------------------------------------- */
/* Cases: (nl, nr, nk) and P for the charts. */

typedef struct {
  const char *name;
  long nl, nr, nk, P;
  int issue; /* in the issue's table */
} shapeT;

static const shapeT cases[] = {
    /* the issue's table */
    {"FFS_L8_P8", 8, 8, 8, 8, 1},
    {"FFS_L27_P64", 27, 27, 64, 64, 1},
    {"FFS_L125_P216", 125, 125, 216, 216, 1},
    {"FFT_L16_D4_P16", 16, 16, 16 * 16, 16, 1},
    {"FFT_L16_D4_P32", 16, 16, 32 * 16, 32, 1},
    {"FFT_L16_D4_P64", 16, 16, 64 * 16, 64, 1},
    {"FFT_L16_D4_P128", 16, 16, 128 * 16, 128, 1},
    {"DDT_D3_P8", 1, 1, 8 * 9, 8, 1},
    {"DDT_D3_P27", 1, 1, 27 * 9, 27, 1},
    {"DDT_D6_P27", 1, 1, 27 * 36, 27, 1},
    /* the other six contractions, one shape each (P = 27 points, D = 3) */
    {"DDS_P27", 1, 1, 27, 27, 0},
    {"DDV_D3_P27", 1, 1, 27 * 3, 27, 0},
    {"DFS_F8_P27", 8, 1, 27, 27, 0},
    {"DFV_F8_D3_P27", 8, 1, 27 * 3, 27, 0},
    {"DFT_F8_D3_P27", 8, 1, 27 * 9, 27, 0},
    {"FFV_L8_D3_P27", 8, 8, 27 * 3, 27, 0},
};
static const int ncases = (int) (sizeof(cases) / sizeof(cases[0]));
/* one of each of the nine */
static const char *const nine[] = {"DDS_P27", "DDV_D3_P27", "DDT_D3_P27", "DFS_F8_P27",
                                   "DFV_F8_D3_P27", "DFT_F8_D3_P27", "FFS_L8_P8",
                                   "FFV_L8_D3_P27", "FFT_L16_D4_P16"};

/* ---------------------------------------------------------------------- */
/* targetDP flat: one thread per output, as a user would port the loop. */

TDP_KERNEL void tdpFlat(double *out, const double *a, const double *b, long nc, long nl, long nr,
                        long nk, int add) {
  const long n = nc * nl * nr;
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      const long o = base + v, c = o / (nl * nr), l = o / nr % nl, r = o % nr;
      const double *x = a + (c * nl + l) * nk, *y = b + (c * nr + r) * nk;
      double s = 0.0;
      for (long k = 0; k < nk; k++) s += x[k] * y[k];
      out[o] = add ? out[o] + s : s;
    }
  }
}

/* The serial reference: the loop nest of the definition. */
static void serialRef(double *out, const double *a, const double *b, long nc, long nl, long nr,
                      long nk, int add) {
  for (long c = 0; c < nc; c++)
    for (long l = 0; l < nl; l++)
      for (long r = 0; r < nr; r++) {
        const double *x = a + (c * nl + l) * nk, *y = b + (c * nr + r) * nk;
        double s = 0.0;
        for (long k = 0; k < nk; k++) s += x[k] * y[k];
        const long o = (c * nl + l) * nr + r;
        out[o] = add ? out[o] + s : s;
      }
}
/* The same, threaded over cells where the host has OpenMP: the reference
 * of the GPU runs (every output is the same serial sum). */
static void hostRef(double *out, const double *a, const double *b, long nc, long nl, long nr,
                    long nk, int add) {
  TB_HOST_PARALLEL_FOR(schedule(static))
  for (long c = 0; c < nc; c++) serialRef(out + c * nl * nr, a + c * nl * nk, b + c * nr * nk, 1,
                                          nl, nr, nk, add);
}

#ifndef __CUDACC__
/* Host baselines. omp-plain: a parallel loop over every output, the k
 * loop vectorised. */
static void ompPlain(double *out, const double *a, const double *b, long nc, long nl, long nr,
                     long nk, int add) {
  TB_HOST_PARALLEL_FOR(collapse(3) schedule(static))
  for (long c = 0; c < nc; c++)
    for (long l = 0; l < nl; l++)
      for (long r = 0; r < nr; r++) {
        const double *x = a + (c * nl + l) * nk, *y = b + (c * nr + r) * nk;
        double s = 0.0;
        TB_SIMD(reduction(+ : s))
        for (long k = 0; k < nk; k++) s += x[k] * y[k];
        const long o = (c * nl + l) * nr + r;
        out[o] = add ? out[o] + s : s;
      }
}
/* omp-blocked: 4 x 4 outputs at once, their 16 sums vectorised over k,
 * every row of the block read once per block (the register blocking of
 * the GEMM literature: Goto & van de Geijn, ACM TOMS 34 (2008)). */
static void ompBlocked(double *out, const double *a, const double *b, long nc, long nl, long nr,
                       long nk, int add) {
  const long nlb = (nl + 3) / 4;
  TB_HOST_PARALLEL_FOR(collapse(2) schedule(static))
  for (long c = 0; c < nc; c++)
    for (long lb = 0; lb < nlb; lb++)
      for (long r0 = 0; r0 < nr; r0 += 4) {
        const long l0 = lb * 4;
        const int ml = (int) (nl - l0 < 4 ? nl - l0 : 4), mr = (int) (nr - r0 < 4 ? nr - r0 : 4);
        const double *x = a + (c * nl + l0) * nk, *y = b + (c * nr + r0) * nk;
        double *o = out + (c * nl + l0) * nr + r0;
        if (ml == 4 && mr == 4) {
          /* 16 scalar sums: gcc vectorises the k loop only when each sum is
           * its own variable (an array reduction it vectorises over j, with
           * gathers) */
          const double *x0 = x, *x1 = x + nk, *x2 = x + 2 * nk, *x3 = x + 3 * nk;
          const double *y0 = y, *y1 = y + nk, *y2 = y + 2 * nk, *y3 = y + 3 * nk;
          double p00 = 0, p01 = 0, p02 = 0, p03 = 0, p10 = 0, p11 = 0, p12 = 0, p13 = 0;
          double p20 = 0, p21 = 0, p22 = 0, p23 = 0, p30 = 0, p31 = 0, p32 = 0, p33 = 0;
          TB_SIMD(reduction(+ : p00, p01, p02, p03, p10, p11, p12, p13, p20, p21, p22, p23, p30, \
                            p31, p32, p33))
          for (long k = 0; k < nk; k++) {
            const double u0 = x0[k], u1 = x1[k], u2 = x2[k], u3 = x3[k];
            const double v0 = y0[k], v1 = y1[k], v2 = y2[k], v3 = y3[k];
            p00 += u0 * v0, p01 += u0 * v1, p02 += u0 * v2, p03 += u0 * v3;
            p10 += u1 * v0, p11 += u1 * v1, p12 += u1 * v2, p13 += u1 * v3;
            p20 += u2 * v0, p21 += u2 * v1, p22 += u2 * v2, p23 += u2 * v3;
            p30 += u3 * v0, p31 += u3 * v1, p32 += u3 * v2, p33 += u3 * v3;
          }
          const double acc[16] = {p00, p01, p02, p03, p10, p11, p12, p13,
                                  p20, p21, p22, p23, p30, p31, p32, p33};
          for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) o[i * nr + j] = add ? o[i * nr + j] + acc[i * 4 + j] : acc[i * 4 + j];
        } else {
          for (int i = 0; i < ml; i++)
            for (int j = 0; j < mr; j++) {
              double s = 0.0;
              for (long k = 0; k < nk; k++) s += x[i * nk + k] * y[j * nk + k];
              o[i * nr + j] = add ? o[i * nr + j] + s : s;
            }
        }
      }
}
static void hostCopy(double *dst, const double *src, long n) {
  TB_HOST_PARALLEL_FOR(schedule(static))
  for (long i = 0; i < n; i++) dst[i] = src[i];
}
#endif

/* ---------------------------------------------------------------------- */
/* Implementations. */

/* tdp-vendor: targetContractPath(..., VENDOR), for the crossover sweep
 * (not in the tables: tdp-helper shows what AUTO makes of it). */
enum { I_SERIAL, I_OMP_PLAIN, I_OMP_BLOCKED, I_TDP_FLAT, I_TDP_TEAM, I_TDP_HELPER, I_CUDA_FLAT,
       I_CUDA_TILED, I_CUBLAS, I_TDP_VENDOR, NIMPL };
static const char *const implName[NIMPL] = {"serial", "omp-plain", "omp-blocked", "tdp-flat",
                                            "tdp-team", "tdp-helper", "cuda-flat", "cuda-tiled",
                                            "cublas", "tdp-vendor"};

static int implOn[NIMPL]; /* --impls */

static int available(int impl, const shapeT *s) {
  if (!implOn[impl]) return 0;
  switch (impl) {
  case I_SERIAL: case I_OMP_PLAIN: case I_OMP_BLOCKED: return !TDP_GPU;
  case I_CUDA_FLAT: case I_CUDA_TILED: return TDP_GPU;
  case I_CUBLAS: return TDP_GPU && s->nl > 1 && s->nr > 1; /* the FieldField kernels */
  case I_TDP_VENDOR: return 0; /* the crossover sweep runs it itself */
  default: return 1;
  }
}

typedef struct {
  const shapeT *s;
  long nc;
  int add, impl;
  double *a, *b, *o; /* target */
} runT;

static void runImpl(void *arg) {
  const runT *x = (const runT *) arg;
  const long nc = x->nc, nl = x->s->nl, nr = x->s->nr, nk = x->s->nk;
  const tdpContractMode mode = x->add ? TDP_CONTRACT_ADD : TDP_CONTRACT_SET;
  switch (x->impl) {
  case I_TDP_FLAT: TDP_LAUNCH(tdpFlat, nc * nl * nr, x->o, x->a, x->b, nc, nl, nr, nk, x->add); break;
  case I_TDP_TEAM:
    targetContractPath(x->o, x->a, x->b, nc, nl, nr, nk, mode, TDP_CONTRACT_TEAM);
    break;
  case I_TDP_HELPER: targetContract(x->o, x->a, x->b, nc, nl, nr, nk, mode); break;
  case I_TDP_VENDOR:
    targetContractPath(x->o, x->a, x->b, nc, nl, nr, nk, mode, TDP_CONTRACT_VENDOR);
    break;
#ifdef __CUDACC__
  case I_CUDA_FLAT: natFlatLaunch(x->o, x->a, x->b, nc, nl, nr, nk, x->add); break;
  case I_CUDA_TILED: natTiledLaunch(x->o, x->a, x->b, nc, nl, nr, nk, x->add); break;
  case I_CUBLAS: natCublas(x->o, x->a, x->b, nc, nl, nr, nk, x->add); break;
#else
  case I_SERIAL: serialRef(x->o, x->a, x->b, nc, nl, nr, nk, x->add); break;
  case I_OMP_PLAIN: ompPlain(x->o, x->a, x->b, nc, nl, nr, nk, x->add); break;
  case I_OMP_BLOCKED: ompBlocked(x->o, x->a, x->b, nc, nl, nr, nk, x->add); break;
#endif
  default: break;
  }
}

typedef struct {
  double *dst, *src;
  long n;
} copyT;
static void runCopy(void *arg) {
  const copyT *c = (const copyT *) arg;
#ifdef __CUDACC__
  natCopy(c->dst, c->src, (size_t) c->n * sizeof(double));
#else
  hostCopy(c->dst, c->src, c->n);
#endif
}

/* ---------------------------------------------------------------------- */
/* One case at one size: data, reference, validation, timing. */

typedef struct {
  const shapeT *s;
  long nc;
  double *h_a, *h_b, *h_init, *h_ref_set, *h_ref_add, *h_got;
  double *a, *b, *o;
  size_t na, nb, no;
} caseT;

static void caseSetup(caseT *k, const shapeT *s, double mb) {
  const double per = 8.0 * (double) (s->nl * s->nk + s->nr * s->nk + s->nl * s->nr);
  k->s = s;
  k->nc = (long) (mb * 1048576.0 / per);
  if (k->nc < 1) k->nc = 1;
  k->na = (size_t) (k->nc * s->nl * s->nk);
  k->nb = (size_t) (k->nc * s->nr * s->nk);
  k->no = (size_t) (k->nc * s->nl * s->nr);
  k->h_a = (double *) malloc(k->na * sizeof(double));
  k->h_b = (double *) malloc(k->nb * sizeof(double));
  k->h_init = (double *) malloc(k->no * sizeof(double));
  k->h_ref_set = (double *) malloc(k->no * sizeof(double));
  k->h_ref_add = (double *) malloc(k->no * sizeof(double));
  k->h_got = (double *) malloc(k->no * sizeof(double));
  if (!k->h_a || !k->h_b || !k->h_init || !k->h_ref_set || !k->h_ref_add || !k->h_got) {
    fprintf(stderr, "bench_contract: no host memory for %s at %.0f MiB\n", s->name, mb);
    exit(1);
  }
  /* positive values in [0.5, 1.5), different per element: no cancellation,
   * so a relative 1e-12 is a fair test of any summation order */
  TB_HOST_PARALLEL_FOR(schedule(static))
  for (long i = 0; i < (long) k->na; i++) k->h_a[i] = 0.5 + (double) ((i * 7919 + 13) % 1000) / 1000.0;
  TB_HOST_PARALLEL_FOR(schedule(static))
  for (long i = 0; i < (long) k->nb; i++) k->h_b[i] = 0.5 + (double) ((i * 104729 + 7) % 997) / 997.0;
  TB_HOST_PARALLEL_FOR(schedule(static))
  for (long i = 0; i < (long) k->no; i++) {
    k->h_init[i] = 1.0 + (double) (i % 17);
    k->h_ref_add[i] = k->h_init[i];
  }
  hostRef(k->h_ref_set, k->h_a, k->h_b, k->nc, s->nl, s->nr, s->nk, 0);
  hostRef(k->h_ref_add, k->h_a, k->h_b, k->nc, s->nl, s->nr, s->nk, 1);
  targetMalloc(&k->a, k->na * sizeof(double) + 8);
  targetMalloc(&k->b, k->nb * sizeof(double) + 8);
  targetMalloc(&k->o, k->no * sizeof(double) + 8);
  copyToTarget(k->a, k->h_a, k->na * sizeof(double));
  copyToTarget(k->b, k->h_b, k->nb * sizeof(double));
}

static void caseFree(caseT *k) {
  targetFree(k->a);
  targetFree(k->b);
  targetFree(k->o);
  free(k->h_a);
  free(k->h_b);
  free(k->h_init);
  free(k->h_ref_set);
  free(k->h_ref_add);
  free(k->h_got);
}

/* Run impl once in both modes and compare; 0 if right. */
static int validate(const tbOptions *opt, caseT *k, int impl) {
  int bad = 0;
  for (int add = 0; add <= 1; add++) {
    runT x = {k->s, k->nc, add, impl, k->a, k->b, k->o};
    if (add) copyToTarget(k->o, k->h_init, k->no * sizeof(double));
    else targetSetConstant(k->o, -7.0, k->no); /* not the answer anywhere */
    runImpl(&x);
    if (opt->inject_error && impl == I_TDP_TEAM) targetSetConstant(k->o + k->no - 1, 12345.0, 1);
    targetSynchronize();
    copyFromTarget(k->h_got, k->o, k->no * sizeof(double));
    const double *want = add ? k->h_ref_add : k->h_ref_set;
    char what[160];
    snprintf(what, sizeof(what), "%s %s (%ld cells) %s", k->s->name, implName[impl], k->nc,
             add ? "add" : "set");
    long nbad = 0;
    TB_HOST_PARALLEL_FOR(reduction(+ : nbad) schedule(static))
    for (long i = 0; i < (long) k->no; i++)
      if (!(fabs(k->h_got[i] - want[i]) <= 1e-12 * fabs(want[i]))) nbad += tbWrong(what, i, k->h_got[i], want[i]);
    bad += nbad > 0;
  }
  return bad;
}

/* Auto reps: enough calls for about 20 ms, 1 to 2000 (a slow serial loop
 * is timed once per round). */
static int autoReps(const tbOptions *opt, void (*run)(void *), void *arg) {
  if (opt->reps > 0) return opt->reps;
  const double t = tbTime(run, arg, 1);
  int r = t > 0.0 ? (int) (0.02 / t) : 2000;
  return r < 1 ? 1 : r > 2000 ? 2000 : r;
}

static void timeCase(const tbOptions *opt, caseT *k, double mb, int add) {
  const shapeT *s = k->s;
  double t[NIMPL][32], tc[32];
  int reps[NIMPL], on[NIMPL], crep;
  runT x[NIMPL];
  copyT cp = {NULL, NULL, 0};
  /* the copy ceiling: the same bytes moved (half read, half written) */
  const double bytes = 8.0 * (double) (k->na + k->nb + k->no * (add ? 2 : 1));
  const double flops = 2.0 * (double) k->nc * s->nl * s->nr * s->nk;
  cp.n = (long) (bytes / 16.0);
  targetMalloc(&cp.dst, (size_t) cp.n * sizeof(double) + 8);
  targetMalloc(&cp.src, (size_t) cp.n * sizeof(double) + 8);
  targetSetConstant(cp.src, 1.0, cp.n);
  for (int i = 0; i < NIMPL; i++) {
    on[i] = available(i, s);
    x[i].s = s, x[i].nc = k->nc, x[i].add = add, x[i].impl = i, x[i].a = k->a, x[i].b = k->b,
    x[i].o = k->o;
    if (on[i]) reps[i] = autoReps(opt, runImpl, &x[i]);
  }
  crep = autoReps(opt, runCopy, &cp);
  if (add) copyToTarget(k->o, k->h_init, k->no * sizeof(double));
  for (int r = 0; r < opt->rounds; r++) {
    for (int i = 0; i < NIMPL; i++)
      if (on[i]) t[i][r] = tbTime(runImpl, &x[i], reps[i]);
    tc[r] = tbTime(runCopy, &cp, crep);
  }
  char shape[96];
  snprintf(shape, sizeof(shape), "%ld,%ld,%ld,%ld", s->nl, s->nr, s->nk, s->P);
  const char *mode = add ? "add" : "set";
  double med, lo, hi, cmed;
  tbStats(tc, opt->rounds, &cmed, &lo, &hi);
  printf("%-16s %7.1f MiB %6ld cells %s   copy %7.1f GB/s\n", s->name, mb, k->nc, mode,
         bytes / cmed * 1e-9);
  for (int i = 0; i < NIMPL; i++) {
    if (!on[i]) continue;
    tbStats(t[i], opt->rounds, &med, &lo, &hi);
    printf("  %-12s %9.3f ms  %8.1f GB/s  %8.1f GFLOP/s  %5.1f%% of copy  (%d x %d)\n",
           implName[i], med * 1e3, bytes / med * 1e-9, flops / med * 1e-9, 100.0 * cmed / med,
           opt->rounds, reps[i]);
    tbCsvRow(opt, s->name, shape, k->nc, mb, mode, implName[i], t[i], opt->rounds, bytes, flops);
  }
  tbCsvRow(opt, s->name, shape, k->nc, mb, mode, "copy", tc, opt->rounds, bytes, 0.0);
  fflush(stdout);
  targetFree(cp.dst);
  targetFree(cp.src);
}

/* ---------------------------------------------------------------------- */
/* The crossover: TEAM against VENDOR over L = R and K. */

static void crossover(const tbOptions *opt, double mb) {
  static const long ls[] = {2, 4, 8, 12, 16, 24, 32, 64};
  static const long ks[] = {8, 16, 32, 64, 128, 256, 512};
  enum { NL = sizeof(ls) / sizeof(ls[0]), NK = sizeof(ks) / sizeof(ks[0]) };
  double tt[NL][NK], tv[NL][NK];
  for (int i = 0; i < NL; i++)
    for (int j = 0; j < NK; j++) {
      char name[64];
      snprintf(name, sizeof(name), "XO_L%ld_K%ld", ls[i], ks[j]);
      shapeT s = {name, ls[i], ls[i], ks[j], ks[j], 0};
      caseT k;
      caseSetup(&k, &s, mb);
      if (validate(opt, &k, I_TDP_TEAM)) exit(1);
      if (validate(opt, &k, I_TDP_VENDOR)) exit(1);
      runT xt = {&s, k.nc, 0, I_TDP_TEAM, k.a, k.b, k.o};
      runT xv = {&s, k.nc, 0, I_TDP_VENDOR, k.a, k.b, k.o};
      const int rt = autoReps(opt, runImpl, &xt), rv = autoReps(opt, runImpl, &xv);
      double st[32], sv[32], lo, hi;
      for (int r = 0; r < opt->rounds; r++) {
        st[r] = tbTime(runImpl, &xt, rt);
        sv[r] = tbTime(runImpl, &xv, rv);
      }
      char shape[96];
      snprintf(shape, sizeof(shape), "%ld,%ld,%ld,%ld", s.nl, s.nr, s.nk, s.P);
      const double bytes = 8.0 * (double) (k.na + k.nb + k.no), flops = 2.0 * k.nc * s.nl * s.nr * s.nk;
      tbCsvRow(opt, name, shape, k.nc, mb, "set", "team", st, opt->rounds, bytes, flops);
      tbCsvRow(opt, name, shape, k.nc, mb, "set", "vendor", sv, opt->rounds, bytes, flops);
      tbStats(st, opt->rounds, &tt[i][j], &lo, &hi);
      tbStats(sv, opt->rounds, &tv[i][j], &lo, &hi);
      printf("crossover L=R=%3ld K=%4ld: team %9.1f GFLOP/s, vendor %9.1f GFLOP/s  (%s)\n", ls[i],
             ks[j], flops / tt[i][j] * 1e-9, flops / tv[i][j] * 1e-9,
             tt[i][j] <= tv[i][j] ? "team" : "vendor");
      fflush(stdout);
      caseFree(&k);
    }
  /* The rule is: vendor iff L >= lr and K >= k. Pick (lr, k) from the
   * grid that minimises the worst slowdown against the faster path, then
   * the total. */
  double best_worst = 1e300, best_sum = 1e300;
  long blr = 1, bk = 1;
  long cur_lr, cur_k;
  targetContractGetCrossover(&cur_lr, &cur_k);
  double cur_worst = 0.0;
  for (int a = 0; a <= NL; a++)
    for (int b = 0; b <= NK; b++) {
      const long lr = a < NL ? ls[a] : 1L << 30, kk = b < NK ? ks[b] : 1L << 30;
      double worst = 0.0, sum = 0.0;
      for (int i = 0; i < NL; i++)
        for (int j = 0; j < NK; j++) {
          const double chosen = ls[i] >= lr && ks[j] >= kk ? tv[i][j] : tt[i][j];
          const double best = tt[i][j] < tv[i][j] ? tt[i][j] : tv[i][j];
          worst = chosen / best > worst ? chosen / best : worst;
          sum += chosen / best;
        }
      if (worst < best_worst - 1e-9 || (worst < best_worst + 1e-9 && sum < best_sum)) {
        best_worst = worst, best_sum = sum, blr = lr, bk = kk;
      }
    }
  for (int i = 0; i < NL; i++)
    for (int j = 0; j < NK; j++) {
      const double chosen = ls[i] >= cur_lr && ks[j] >= cur_k ? tv[i][j] : tt[i][j];
      const double best = tt[i][j] < tv[i][j] ? tt[i][j] : tv[i][j];
      cur_worst = chosen / best > cur_worst ? chosen / best : cur_worst;
    }
  printf("crossover: suggested TARGETDP_CONTRACT_CROSSOVER=%ld,%ld (the vendor path for L, R >= "
         "%ld and K >= %ld): at worst %.3fx the time of the faster path; the build's default "
         "%ld,%ld: at worst %.3fx\n", blr, bk, blr, bk, best_worst, cur_lr, cur_k, cur_worst);
}

/* ---------------------------------------------------------------------- */

static int listHas(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

int main(int argc, char **argv) {
  static const char *const known[] = {"--cases=", "--mb=", "--modes=", "--rounds=", "--reps=",
                                      "--impls=", "--csv=", "--validate", "--crossover",
                                      "--inject-error", "--help", NULL};
  if (cliCheck(argc, argv, known) != 0) {
    fputs(usage, stderr);
    return 2;
  }
  if (cliFlag(argc, argv, "--help")) {
    fputs(usage, stdout);
    return 0;
  }
  const char *clist = cliString(argc, argv, "--cases", "issue");
  const int do_cross = cliFlag(argc, argv, "--crossover");
  const char *mblist = cliString(argc, argv, "--mb", do_cross ? "64" : "256");
  const char *modes = cliString(argc, argv, "--modes", "set");
  const char *impls = cliString(argc, argv, "--impls", NULL);
  const int validate_only = cliFlag(argc, argv, "--validate");
  tbOptions opt;
  targetInit();
  tbSetup(&opt, "contract", cliString(argc, argv, "--csv", NULL),
          (int) cliLong(argc, argv, "--reps", 0, 0, 100000),
          (int) cliLong(argc, argv, "--rounds", 3, 1, 32), cliFlag(argc, argv, "--inject-error"));
  for (int i = 0; i < NIMPL; i++) implOn[i] = impls ? listHas(impls, implName[i]) : 1;
  printf("bench_contract: %s; %s; rounds %d\n", opt.device, targetConfigString(), opt.rounds);

  if (do_cross) {
    crossover(&opt, atof(mblist));
    targetFinalize();
    return tbErrors() ? 1 : 0;
  }
  for (int c = 0; c < ncases; c++) {
    const shapeT *s = &cases[c];
    int want = strcmp(clist, "all") == 0 || (strcmp(clist, "issue") == 0 && s->issue) ||
               listHas(clist, s->name);
    if (strcmp(clist, "nine") == 0)
      for (size_t q = 0; q < sizeof(nine) / sizeof(nine[0]); q++) want |= !strcmp(nine[q], s->name);
    if (!want) continue;
    for (const char *m = mblist; m && *m; m = strchr(m, ',') ? strchr(m, ',') + 1 : NULL) {
      const double mb = atof(m);
      if (mb <= 0.0) {
        fprintf(stderr, "bench_contract: --mb %s: want sizes in MiB above 0\n", mblist);
        return 2;
      }
      caseT k;
      caseSetup(&k, s, mb);
      int bad = 0;
      for (int i = 0; i < NIMPL; i++)
        if (available(i, s)) bad += validate(&opt, &k, i);
      if (bad) {
        fprintf(stderr, "VALIDATION FAILED: %s at %.1f MiB: %d implementation(s) wrong; no "
                "timings\n", s->name, mb, bad);
        return 1;
      }
      if (validate_only) {
        printf("%-16s %7.2f MiB %6ld cells: every implementation right in both modes\n", s->name,
               mb, k.nc);
      } else {
        if (listHas(modes, "set")) timeCase(&opt, &k, mb, 0);
        if (listHas(modes, "add")) timeCase(&opt, &k, mb, 1);
      }
      caseFree(&k);
    }
  }
#ifdef __CUDACC__
  natCublasDone();
#endif
  targetFinalize();
  return tbErrors() ? 1 : 0;
}
