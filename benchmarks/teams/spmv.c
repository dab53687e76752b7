/*
 * spmv.c -- CSR sparse matrix-vector product y = A x (issue 30 item 5):
 * targetDP teams over row blocks beside cuSPARSE's SpMV (CUDA) or a plain
 * OpenMP CSR loop (host), in one binary and one run. Matrices: the 3-D
 * 7-point Laplacian (Dirichlet, n^3 rows) and a random matrix whose row
 * lengths follow a power law (Pareto, shape 1.2, 3 to 4096 entries, a
 * fixed seed: mean about 14, a few rows of thousands), columns uniform.
 *
 * Implementations:
 *   tdp-flat     TDP_TLP over rows, a thread per row (CSR-scalar)
 *   tdp-team     teams over row blocks of about the same number of entries
 *                (a partition made once per matrix, as cuSPARSE's buffer
 *                is): a thread per row, its entries over the thread's
 *                lanes with a vector sum (CSR-vector: Bell & Garland,
 *                SC09), or in a plain loop where a thread has one lane
 *                (short rows: CSR-scalar in teams, spmvTeam1); a row of more than 8
 *                lanes' worth is a block of its own, summed by the whole
 *                team (a team reduction). --lanes N other than the
 *                automatic choice names its rows tdp-team-lN
 *   CUDA build:  cusparse-alg1, cusparse-alg2 (cusparseSpMV, generic API,
 *                CUSPARSE_SPMV_CSR_ALG1 / ALG2)
 *   C build:     omp (a parallel for over rows, static schedule)
 * Every result is validated against a serial CSR loop (relative 1e-12:
 * positive data) before any time is taken.
 *
 *   bench_spmv [--matrix lap3d,powerlaw] [--n N] [--rows R] [--lanes L]
 *              [--rounds R] [--reps N] [--csv FILE] [--validate] [--inject-error]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/teams/tbench.h"
#include "common/cli.h"
#include "common/timer.h"

#ifdef __CUDACC__
#include <cusparse.h>
#endif

static const char *const usage =
    "usage: bench_spmv [options]\n"
    "  --matrix LIST  lap3d, powerlaw or both (default lap3d,powerlaw)\n"
    "  --n N          the Laplacian's grid edge: N^3 rows (default 160 on CUDA, 96 on the host)\n"
    "  --rows R       rows of the power-law matrix (default 2^21 on CUDA, 2^20 on the host)\n"
    "  --lanes L      lanes per team thread (1, 2, 4, .. 32; default 0: from the mean row)\n"
    "  --rounds R     interleaved rounds (default 3)\n"
    "  --reps N       calls per sample (default 0: enough for about 20 ms)\n"
    "  --csv FILE     append one row per matrix and implementation\n"
    "  --validate     validate every implementation, time nothing\n"
    "  --inject-error corrupt one result of tdp-team: the run must fail\n";

/* ---------------------------------------------------------------------- */
/* The matrices, on the host. */

typedef struct {
  const char *name;
  long n, nnz;
  int *rp, *ci; /* CSR, 0-based, sorted columns */
  double *v;
} csrT;

static void csrAlloc(csrT *a, long n, long nnz) {
  if (n >= 2147483647L || nnz >= 2147483647L) {
    fprintf(stderr, "bench_spmv: %ld rows and %ld entries: int indices hold fewer than 2^31\n", n,
            nnz);
    exit(2);
  }
  a->n = n;
  a->nnz = nnz;
  a->rp = (int *) malloc((size_t) (n + 1) * sizeof(int));
  a->ci = (int *) malloc((size_t) (nnz > 0 ? nnz : 1) * sizeof(int));
  a->v = (double *) malloc((size_t) (nnz > 0 ? nnz : 1) * sizeof(double));
  if (!a->rp || !a->ci || !a->v) {
    fprintf(stderr, "bench_spmv: no host memory for %ld entries\n", nnz);
    exit(1);
  }
}

/* 6 on the diagonal, -1 for each of the 6 neighbours inside the grid:
 * positive data are easier to validate, so |entries| (the product of
 * the absolute values has the same access pattern). */
static void lap3d(csrT *a, long m) {
  const long n = m * m * m;
  const long nnz = 7 * n - 6 * m * m; /* each face's m^2 sites lack one neighbour */
  csrAlloc(a, n, nnz);
  a->name = "lap3d";
  a->rp[0] = 0;
  for (long i = 0; i < n; i++) {
    const long x = i / (m * m), y = i / m % m, z = i % m;
    a->rp[i + 1] = a->rp[i] + 1 + (x > 0) + (x < m - 1) + (y > 0) + (y < m - 1) + (z > 0) + (z < m - 1);
  }
  TB_HOST_PARALLEL_FOR(schedule(static))
  for (long i = 0; i < n; i++) {
    const long x = i / (m * m), y = i / m % m, z = i % m;
    long j = a->rp[i];
    const long nb[7] = {x > 0 ? i - m * m : -1, y > 0 ? i - m : -1, z > 0 ? i - 1 : -1, i,
                        z < m - 1 ? i + 1 : -1, y < m - 1 ? i + m : -1,
                        x < m - 1 ? i + m * m : -1};
    for (int q = 0; q < 7; q++)
      if (nb[q] >= 0) {
        a->ci[j] = (int) nb[q];
        a->v[j] = nb[q] == i ? 6.0 : 1.0 + 0.001 * (double) ((i + q) % 7);
        j++;
      }
  }
}

static uint64_t mix(uint64_t x) { /* splitmix64 */
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
static double unif(uint64_t *s) { /* (0, 1) */
  *s = mix(*s);
  return ((double) (*s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static int cmpInt(const void *p, const void *q) {
  const int a = *(const int *) p, b = *(const int *) q;
  return (a > b) - (a < b);
}

/* Row i's length from a Pareto law drawn with row i's own seed (so rows
 * can be made in parallel and the matrix is the same on every machine). */
static long plLength(long i) {
  uint64_t s = 12345u + (uint64_t) i * 7919u;
  const double len = 3.0 * pow(unif(&s), -1.0 / 1.2);
  return len > 4096.0 ? 4096 : (long) len;
}
static void powerlaw(csrT *a, long n) {
  long nnz = 0;
  int *len = (int *) malloc((size_t) n * sizeof(int));
  TB_HOST_PARALLEL_FOR(reduction(+ : nnz) schedule(static))
  for (long i = 0; i < n; i++) {
    len[i] = (int) (plLength(i) < n ? plLength(i) : n);
    nnz += len[i];
  }
  csrAlloc(a, n, nnz);
  a->name = "powerlaw";
  a->rp[0] = 0;
  for (long i = 0; i < n; i++) a->rp[i + 1] = a->rp[i] + len[i];
  free(len);
  TB_HOST_PARALLEL_FOR(schedule(dynamic, 256))
  for (long i = 0; i < n; i++) {
    uint64_t s = 987654321u + (uint64_t) i * 104729u;
    int *c = a->ci + a->rp[i];
    const int m = a->rp[i + 1] - a->rp[i];
    for (int q = 0; q < m; q++) c[q] = (int) (unif(&s) * (double) n) % (int) n;
    qsort(c, (size_t) m, sizeof(int), cmpInt);
    for (int q = 0; q < m; q++) a->v[a->rp[i] + q] = 0.5 + unif(&s);
  }
}

static void csrFree(csrT *a) {
  free(a->rp);
  free(a->ci);
  free(a->v);
}

/* ---------------------------------------------------------------------- */
/* The row blocks of the team kernel: rows in order, a block closing once
 * it holds `target` entries; a row of more than `longrow` entries is a
 * block of its own, summed by the whole team (left to one thread's lanes,
 * a row of a few hundred entries kept its team's other threads idle). */
static long partition(const csrT *a, long target, long longrow, long **blocks) {
  long nb = 0, cap = a->nnz / (target > 0 ? target : 1) + a->n / 64 + 16;
  long *b = (long *) malloc((size_t) (cap + 1) * sizeof(long));
  long start = 0, acc = 0;
  b[0] = 0;
  for (long i = 0; i < a->n; i++) {
    const long len = a->rp[i + 1] - a->rp[i];
    if (len > longrow && i > start) { /* close the block before a long row */
      b[++nb] = i;
      start = i;
      acc = 0;
    }
    acc += len;
    if (acc >= target || i - start + 1 >= 4096 || len > longrow) {
      b[++nb] = i + 1;
      start = i + 1;
      acc = 0;
    }
    if (nb + 2 > cap) {
      cap *= 2;
      b = (long *) realloc(b, (size_t) (cap + 1) * sizeof(long));
    }
  }
  if (start < a->n) b[++nb] = a->n;
  *blocks = b;
  return nb;
}

/* ---------------------------------------------------------------------- */
/* targetDP kernels. */

/* CSR-scalar: a thread per row. */
TDP_KERNEL void spmvFlat(double *y, const int *rp, const int *ci, const double *v, const double *x,
                         long n) {
  TDP_TLP(base, n) {
    TDP_ILP(q) {
      const long i = base + q;
      double s = 0.0;
      for (int j = rp[i]; j < rp[i + 1]; j++) s += v[j] * x[ci[j]];
      y[i] = s;
    }
  }
}

/* Teams over row blocks: rows of the block over the team's threads, a
 * row's entries over the thread's lanes. A block of one long row: its
 * entries in chunks of lanes over every thread, a team sum. */
TDP_TEAM_KERNEL(256) void spmvTeam(double *y, const int *rp, const int *ci, const double *v,
                                   const double *x, const long *blocks, long nblocks, int longrow) {
  TDP_TEAMS(team, nblocks) {
    const long r0 = blocks[team], nrow = blocks[team + 1] - r0;
    const int len0 = rp[r0 + 1] - rp[r0];
    if (nrow == 1 && len0 > longrow) {
      const int j0 = rp[r0], nl = TDP_TEAM_LANES(), nchunk = (len0 + nl - 1) / nl;
      double s = 0.0;
      TDP_TEAM_THREADS_SUM(c, nchunk, s) {
        const int first = j0 + c * nl, m = len0 - c * nl < nl ? len0 - c * nl : nl;
        double t = 0.0;
        TDP_TEAM_VECTOR_SUM(q, m, t) { t += v[first + q] * x[ci[first + q]]; }
        s += t;
      }
      TDP_TEAM_ONE_THREAD { y[r0] = s; }
    } else {
      TDP_TEAM_THREADS(i, nrow) {
        const long row = r0 + i;
        const int j0 = rp[row], m = rp[row + 1] - j0;
        double s = 0.0;
        TDP_TEAM_VECTOR_SUM(q, m, s) { s += v[j0 + q] * x[ci[j0 + q]]; }
        TDP_TEAM_ONE_LANE { y[row] = s; }
      }
    }
  }
}

/* The same with one lane per thread (short rows): a row in a plain loop.
 * An `omp simd` reduction over a row of 7 (the C backend's vector loop)
 * took 1.6x a plain loop's time on the development box (gcc 12, AVX-512,
 * 7-entry rows in cache; 2.3x with 512-bit vectors): the 16-thread host's
 * lap3d, in its L3, ran at half the OpenMP loop's speed so. A kernel of
 * its own: a lanes test in spmvTeam took it from 32 registers to 40
 * (nvcc 13.0, sm_90; this one: 32). */
TDP_TEAM_KERNEL(256) void spmvTeam1(double *y, const int *rp, const int *ci, const double *v,
                                    const double *x, const long *blocks, long nblocks, int longrow) {
  TDP_TEAMS(team, nblocks) {
    const long r0 = blocks[team], nrow = blocks[team + 1] - r0;
    const int len0 = rp[r0 + 1] - rp[r0];
    if (nrow == 1 && len0 > longrow) {
      const int j0 = rp[r0];
      double s = 0.0;
      TDP_TEAM_THREADS_SUM(q, len0, s) { s += v[j0 + q] * x[ci[j0 + q]]; }
      TDP_TEAM_ONE_THREAD { y[r0] = s; }
    } else {
      TDP_TEAM_THREADS(i, nrow) {
        const long row = r0 + i;
        const int j0 = rp[row], m = rp[row + 1] - j0;
        double s = 0.0;
        /* nvcc's own unrolling (4) took 40 registers, 2 takes 32 (full
         * occupancy at 256 threads: 8 blocks per SM) */
        TDP_UNROLL(2)
        for (int q = 0; q < m; q++) s += v[j0 + q] * x[ci[j0 + q]];
        y[row] = s;
      }
    }
  }
}

/* ---------------------------------------------------------------------- */

enum { I_TDP_FLAT, I_TDP_TEAM, I_OMP, I_CUSP1, I_CUSP2, NIMPL };
static const char *const implName[NIMPL] = {"tdp-flat", "tdp-team", "omp", "cusparse-alg1",
                                            "cusparse-alg2"};

typedef struct {
  const csrT *h;
  long n, nnz;
  int *rp, *ci; /* target */
  double *v, *x, *y;
  long *blocks, nblocks;
  int lanes, longrow, impl;
  const char *team_name; /* tdp-team, or tdp-team-lN for --lanes N */
  char team_lanes_name[24];
#ifdef __CUDACC__
  cusparseHandle_t sp;
  cusparseSpMatDescr_t A[2]; /* one per algorithm: each keeps its own preprocessing */
  cusparseDnVecDescr_t vx, vy;
  void *buf[2];
#endif
} spT;

#ifdef __CUDACC__
static void spCheck(cusparseStatus_t s, const char *what) {
  if (s != CUSPARSE_STATUS_SUCCESS) {
    fprintf(stderr, "cuSPARSE: %s: %s\n", what, cusparseGetErrorString(s));
    exit(1);
  }
}
static const cusparseSpMVAlg_t cuspAlg[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
#endif

static void runSpmv(void *arg) {
  const spT *p = (const spT *) arg;
  switch (p->impl) {
  case I_TDP_FLAT: TDP_LAUNCH(spmvFlat, p->n, p->y, p->rp, p->ci, p->v, p->x, p->n); break;
  case I_TDP_TEAM:
    if (p->lanes == 1)
      TDP_LAUNCH_TEAMS(spmvTeam1, p->nblocks, 256, 1, 0, p->y, p->rp, p->ci, p->v, p->x,
                       p->blocks, p->nblocks, p->longrow);
    else
      TDP_LAUNCH_TEAMS(spmvTeam, p->nblocks, 256 / p->lanes, p->lanes, 0, p->y, p->rp, p->ci,
                       p->v, p->x, p->blocks, p->nblocks, p->longrow);
    break;
#ifdef __CUDACC__
  case I_CUSP1:
  case I_CUSP2: {
    const double one = 1.0, zero = 0.0;
    const int k = p->impl == I_CUSP2;
    spCheck(cusparseSpMV(p->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->A[k], p->vx, &zero, p->vy,
                         CUDA_R_64F, cuspAlg[k], p->buf[k]),
            "cusparseSpMV");
    break;
  }
#else
  case I_OMP: {
    const int *rp = p->rp, *ci = p->ci;
    const double *v = p->v, *x = p->x;
    double *y = p->y;
    TB_HOST_PARALLEL_FOR(schedule(static))
    for (long i = 0; i < p->n; i++) {
      double s = 0.0;
      for (int j = rp[i]; j < rp[i + 1]; j++) s += v[j] * x[ci[j]];
      y[i] = s;
    }
    break;
  }
#endif
  default: break;
  }
}

static int available(int impl) {
  if (impl == I_OMP) return !TDP_GPU;
  if (impl == I_CUSP1 || impl == I_CUSP2) return TDP_GPU;
  return 1;
}

static int autoReps(const tbOptions *o, spT *p) {
  if (o->reps > 0) return o->reps;
  const double t = tbTime(runSpmv, p, 1);
  int r = t > 0.0 ? (int) (0.02 / t) : 2000;
  return r < 1 ? 1 : r > 2000 ? 2000 : r;
}

static int benchMatrix(const tbOptions *o, const csrT *h, int lanes_opt, int validate_only) {
  spT p;
  memset(&p, 0, sizeof(p));
  p.h = h;
  p.n = h->n;
  p.nnz = h->nnz;
  /* lanes: one below a mean row of 8 (a thread per row: on the H100's
   * lap3d, 7 a row, the one-lane TDP_TLP kernel ran at 2757 GB/s, the team
   * kernel at 1622 with 8 lanes and 2088 with 4: h100-7fbb5af-teams),
   * else the mean row rounded up to a power of two, to 32 (the power law,
   * 14 a row: 1028 GB/s with 16 lanes, 804 with 32) */
  const double mean = (double) h->nnz / (double) (h->n > 0 ? h->n : 1);
  int lanes = lanes_opt;
  if (lanes == 0 && mean < 8.0) lanes = 1;
  if (lanes == 0)
    for (lanes = 2; lanes < 32 && lanes < mean; lanes *= 2) {
    }
  p.lanes = lanes;
  p.team_name = implName[I_TDP_TEAM];
  if (lanes_opt > 0) {
    snprintf(p.team_lanes_name, sizeof(p.team_lanes_name), "tdp-team-l%d", lanes);
    p.team_name = p.team_lanes_name;
  }
  /* a block of 4 entries per hardware thread, and at least a row per team
   * thread; a row longer than 8 lanes' worth goes to the whole team */
  long *hb = NULL;
  const double per_team = (256.0 / lanes) * mean;
  p.longrow = 8 * lanes;
  p.nblocks = partition(h, per_team > 4.0 * 256 ? (long) per_team : 4L * 256, p.longrow, &hb);
  targetMalloc(&p.rp, (size_t) (p.n + 1) * sizeof(int));
  targetMalloc(&p.ci, (size_t) (p.nnz + 1) * sizeof(int));
  targetMalloc(&p.v, (size_t) (p.nnz + 1) * sizeof(double));
  targetMalloc(&p.x, (size_t) p.n * sizeof(double));
  targetMalloc(&p.y, (size_t) p.n * sizeof(double));
  targetMalloc(&p.blocks, (size_t) (p.nblocks + 1) * sizeof(long));
  copyToTarget(p.rp, h->rp, (size_t) (p.n + 1) * sizeof(int));
  copyToTarget(p.ci, h->ci, (size_t) p.nnz * sizeof(int));
  copyToTarget(p.v, h->v, (size_t) p.nnz * sizeof(double));
  copyToTarget(p.blocks, hb, (size_t) (p.nblocks + 1) * sizeof(long));
  double *hx = (double *) malloc((size_t) p.n * sizeof(double));
  double *ref = (double *) malloc((size_t) p.n * sizeof(double));
  double *got = (double *) malloc((size_t) p.n * sizeof(double));
  for (long i = 0; i < p.n; i++) hx[i] = 0.5 + (double) ((i * 7919) % 1009) / 1009.0;
  copyToTarget(p.x, hx, (size_t) p.n * sizeof(double));
  TB_HOST_PARALLEL_FOR(schedule(dynamic, 1024))
  for (long i = 0; i < p.n; i++) { /* the serial reference, row by row */
    double s = 0.0;
    for (int j = h->rp[i]; j < h->rp[i + 1]; j++) s += h->v[j] * hx[h->ci[j]];
    ref[i] = s;
  }
#ifdef __CUDACC__
  spCheck(cusparseCreate(&p.sp), "cusparseCreate");
  for (int k = 0; k < 2; k++)
    spCheck(cusparseCreateCsr(&p.A[k], p.n, p.n, p.nnz, p.rp, p.ci, p.v, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            "cusparseCreateCsr");
  spCheck(cusparseCreateDnVec(&p.vx, p.n, p.x, CUDA_R_64F), "cusparseCreateDnVec");
  spCheck(cusparseCreateDnVec(&p.vy, p.n, p.y, CUDA_R_64F), "cusparseCreateDnVec");
  for (int k = 0; k < 2; k++) {
    const double one = 1.0, zero = 0.0;
    size_t bytes = 0;
    spCheck(cusparseSpMV_bufferSize(p.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p.A[k], p.vx,
                                    &zero, p.vy, CUDA_R_64F, cuspAlg[k], &bytes),
            "cusparseSpMV_bufferSize");
    if (cudaMalloc(&p.buf[k], bytes > 0 ? bytes : 8) != cudaSuccess) {
      fprintf(stderr, "cudaMalloc of cuSPARSE's buffer failed\n");
      exit(1);
    }
    /* the analysis cuSPARSE may do once per matrix (optional: without it
     * cusparseSpMV does any it needs on each call) */
    const cusparseStatus_t st =
        cusparseSpMV_preprocess(p.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p.A[k], p.vx, &zero,
                                p.vy, CUDA_R_64F, cuspAlg[k], p.buf[k]);
    if (st != CUSPARSE_STATUS_SUCCESS)
      printf("(cusparseSpMV_preprocess for %s: %s; timed without it)\n", implName[I_CUSP1 + k],
             cusparseGetErrorString(st));
  }
#endif
  int longest = 0;
  for (long i = 0; i < p.n; i++)
    longest = h->rp[i + 1] - h->rp[i] > longest ? h->rp[i + 1] - h->rp[i] : longest;
  printf("%s: %ld rows, %ld entries (mean %.1f, longest %d), %d lanes, %ld row blocks\n",
         h->name, p.n, p.nnz, mean, longest, lanes, p.nblocks);
  /* validate */
  int bad = 0;
  for (int i = 0; i < NIMPL; i++) {
    if (!available(i)) continue;
    p.impl = i;
    targetSetConstant(p.y, -7.0, p.n);
    runSpmv(&p);
    if (o->inject_error && i == I_TDP_TEAM) targetSetConstant(p.y + p.n / 2, 12345.0, 1);
    targetSynchronize();
    copyFromTarget(got, p.y, (size_t) p.n * sizeof(double));
    char what[96];
    snprintf(what, sizeof(what), "spmv %s %s", h->name, i == I_TDP_TEAM ? p.team_name : implName[i]);
    long nbad = 0;
    TB_HOST_PARALLEL_FOR(reduction(+ : nbad) schedule(static))
    for (long r = 0; r < p.n; r++)
      if (!(fabs(got[r] - ref[r]) <= 1e-12 * fabs(ref[r]))) nbad += tbWrong(what, r, got[r], ref[r]);
    bad += nbad > 0;
  }
  if (bad) {
    fprintf(stderr, "VALIDATION FAILED: spmv %s: %d implementation(s) wrong; no timings\n",
            h->name, bad);
  } else if (validate_only) {
    printf("spmv %s: every implementation right\n", h->name);
  } else {
    double t[NIMPL][32];
    int reps[NIMPL];
    for (int i = 0; i < NIMPL; i++)
      if (available(i)) {
        p.impl = i;
        reps[i] = autoReps(o, &p);
      }
    for (int r = 0; r < o->rounds; r++)
      for (int i = 0; i < NIMPL; i++)
        if (available(i)) {
          p.impl = i;
          t[i][r] = tbTime(runSpmv, &p, reps[i]);
        }
    const double bytes = 12.0 * p.nnz + 4.0 * (p.n + 1) + 16.0 * p.n, flops = 2.0 * p.nnz;
    char shape[64];
    snprintf(shape, sizeof(shape), "%ld,%ld,,%d", p.n, p.nnz, lanes);
    for (int i = 0; i < NIMPL; i++) {
      if (!available(i)) continue;
      double med, lo, hi;
      tbStats(t[i], o->rounds, &med, &lo, &hi);
      const char *name = i == I_TDP_TEAM ? p.team_name : implName[i];
      printf("  %-14s %9.3f ms  %8.1f GB/s  %8.1f GFLOP/s  (%d x %d)\n", name, med * 1e3,
             bytes / med * 1e-9, flops / med * 1e-9, o->rounds, reps[i]);
      tbCsvRow(o, h->name, shape, p.nblocks, bytes / 1048576.0, "set", name, t[i], o->rounds,
               bytes, flops);
    }
  }
  fflush(stdout);
#ifdef __CUDACC__
  cusparseDestroySpMat(p.A[0]);
  cusparseDestroySpMat(p.A[1]);
  cusparseDestroyDnVec(p.vx);
  cusparseDestroyDnVec(p.vy);
  cusparseDestroy(p.sp);
  cudaFree(p.buf[0]);
  cudaFree(p.buf[1]);
#endif
  targetFree(p.rp);
  targetFree(p.ci);
  targetFree(p.v);
  targetFree(p.x);
  targetFree(p.y);
  targetFree(p.blocks);
  free(hb);
  free(hx);
  free(ref);
  free(got);
  return bad;
}

int main(int argc, char **argv) {
  static const char *const known[] = {"--matrix=", "--n=", "--rows=", "--lanes=", "--rounds=",
                                      "--reps=", "--csv=", "--validate", "--inject-error",
                                      "--help", NULL};
  if (cliCheck(argc, argv, known) != 0) {
    fputs(usage, stderr);
    return 2;
  }
  if (cliFlag(argc, argv, "--help")) {
    fputs(usage, stdout);
    return 0;
  }
  const char *mats = cliString(argc, argv, "--matrix", "lap3d,powerlaw");
  const long m = cliLong(argc, argv, "--n", TDP_GPU ? 160 : 96, 2, 1200);
  const long rows = cliLong(argc, argv, "--rows", TDP_GPU ? 1L << 21 : 1L << 20, 1, 1L << 30);
  const int lanes = (int) cliLong(argc, argv, "--lanes", 0, 0, 32);
  if (lanes & (lanes - 1)) {
    fprintf(stderr, "bench_spmv: --lanes %d: want 0 (automatic) or a power of two up to 32\n", lanes);
    return 2;
  }
  tbOptions opt;
  targetInit();
  tbSetup(&opt, "spmv", cliString(argc, argv, "--csv", NULL),
          (int) cliLong(argc, argv, "--reps", 0, 0, 100000),
          (int) cliLong(argc, argv, "--rounds", 3, 1, 32), cliFlag(argc, argv, "--inject-error"));
  printf("bench_spmv: %s; %s; rounds %d\n", opt.device, targetConfigString(), opt.rounds);
  int bad = 0;
  if (strstr(mats, "lap3d")) {
    csrT a;
    lap3d(&a, m);
    bad += benchMatrix(&opt, &a, lanes, cliFlag(argc, argv, "--validate"));
    csrFree(&a);
  }
  if (strstr(mats, "powerlaw")) {
    csrT a;
    powerlaw(&a, rows);
    bad += benchMatrix(&opt, &a, lanes, cliFlag(argc, argv, "--validate"));
    csrFree(&a);
  }
  targetFinalize();
  return bad || tbErrors() ? 1 : 0;
}
