/*
 * The multi-component kernels where the memory layout matters, for the
 * layout x VVL x TPB sweep (one build per configuration: LAYOUT, VVL and
 * TPB are compile-time). Each run also times STREAM Triad (the native one,
 * from stream_kernels.h) so that "% of Triad" compares with a bandwidth
 * measured in the same run.
 *
 *   Scale3    the paper's Fig 1: a 3-vector field scaled in place
 *   LBCollide a D3Q19 BGK collision: 19 components in, 19 out per site,
 *             shaped like the site-local part of a lattice-Boltzmann step
 *   SU3MatVec MILC's "Extract and Mult": a complex 3x3 matrix times a
 *             complex 3-vector per site; also as SU3MatVecOnce (the loads
 *             and stores evict-first: TDP_LOAD_ONCE / TDP_STORE_ONCE) and
 *             SU3MatVecPair (the fields as (re, im) pairs of tdpDouble2:
 *             16-byte accesses, QUDA's double2 field order; evict-first);
 *             SU3MatVecPairT128/T512/T1024 the same at a fixed block size,
 *             SU3MatVecPairOcc(Grid) at full occupancy (and a capped grid);
 *             SU3MatVecRow (and T192/T384/T768) three work items per site,
 *             one row of the matrix each, on the pair fields
 *
 * Every result is validated before any bandwidth is printed: Scale3 and
 * SU3MatVec exactly (powers of two, small integers), LBCollide against the
 * same collision computed on the host.
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

#define DEFAULT_SITES (1L << 22)
#ifdef __CUDACC__
#define DEFAULT_TRIAD (1L << 27)
#else
#define DEFAULT_TRIAD (1L << 25)
#endif
/* Scale3 moves 48 bytes a site, LBCollide 304 and SU3MatVec 240: Scale3
 * gets this many times the sites so that all three move a similar amount,
 * well beyond any last-level cache. (An in-place field that fits in a big
 * L3 looks faster than memory: its write-backs land in the next kernel.) */
#define SCALE3_SITES_FACTOR 8

static const char *const usage =
    "usage: bench_layout [--size SITES] [--triad-size N] [--reps R] [--batch K] [--csv FILE]\n"
    "  Scale3, LBCollide (D3Q19) and SU3MatVec in this build's layout and VVL,\n"
    "  as bandwidth and % of the native STREAM Triad timed in the same run.\n"
    "  --size SITES    lattice sites (default 2^22; Scale3 runs on 8x as many)\n"
    "  --triad-size N  Triad elements per array (default 2^25 / 2^27)\n"
    "  --reps R        timed repetitions after one untimed warm-up (default 20)\n"
    "  --kernels LIST  comma-separated kernels to run (default all; Triad always runs)\n"
    "  --batch K       each repetition times K calls back to back and one synchronisation\n"
    "                  (default 1), every kernel and the Triad alike\n"
    "  --csv FILE      append one row per kernel\n";

#define NVEL 19      /* D3Q19 */
#define NSU3 18      /* 3x3 complex */
#define NVEC 6       /* 3 complex */
#define SCALE 2.0    /* exact in any power: Scale3 stays exact after any reps */
#define OMEGA 1.25   /* BGK relaxation rate 1/tau */

TDP_CONST double t_scale;
TDP_CONST double t_cv[NVEL][3];
TDP_CONST double t_wv[NVEL];

static const double cv[NVEL][3] = {
    {0, 0, 0},  {1, 0, 0},   {-1, 0, 0}, {0, 1, 0},  {0, -1, 0}, {0, 0, 1},  {0, 0, -1},
    {1, 1, 0},  {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}, {1, 0, 1},  {-1, 0, -1}, {1, 0, -1},
    {-1, 0, 1}, {0, 1, 1},   {0, -1, -1}, {0, 1, -1}, {0, -1, 1}};
static double wv[NVEL]; /* 1/3, 1/18 (x6), 1/36 (x12): set in main */

/* ---------------------------------------------------------------------- */
/* Kernels */

TDP_KERNEL void scale3(double *field, int nsites) {
  TDP_TLP(base, nsites) {
    for (int c = 0; c < 3; c++) {
      TDP_ILP(v) field[TDP_VINDEX(nsites, 3, base, c, v)] *= t_scale;
    }
  }
}

/* The targetDP style for per-site temporaries: one value per lane. */
TDP_KERNEL void lbCollide(double *fout, const double *fin, int nsites, double omega) {
  TDP_TLP(base, nsites) {
    double f[NVEL][VVL], rho[VVL], ux[VVL], uy[VVL], uz[VVL];
    TDP_ILP(v) rho[TDP_LANE(v)] = ux[TDP_LANE(v)] = uy[TDP_LANE(v)] = uz[TDP_LANE(v)] = 0.0;
    BENCH_UNROLL
    for (int p = 0; p < NVEL; p++) {
      TDP_ILP(v) {
        f[p][TDP_LANE(v)] = fin[TDP_VINDEX(nsites, NVEL, base, p, v)];
        rho[TDP_LANE(v)] += f[p][TDP_LANE(v)];
        ux[TDP_LANE(v)] += f[p][TDP_LANE(v)] * t_cv[p][0];
        uy[TDP_LANE(v)] += f[p][TDP_LANE(v)] * t_cv[p][1];
        uz[TDP_LANE(v)] += f[p][TDP_LANE(v)] * t_cv[p][2];
      }
    }
    TDP_ILP(v) {
      double rinv = 1.0 / rho[TDP_LANE(v)];
      ux[TDP_LANE(v)] *= rinv;
      uy[TDP_LANE(v)] *= rinv;
      uz[TDP_LANE(v)] *= rinv;
    }
    BENCH_UNROLL
    for (int p = 0; p < NVEL; p++) {
      TDP_ILP(v) {
        double cu = t_cv[p][0] * ux[TDP_LANE(v)] + t_cv[p][1] * uy[TDP_LANE(v)] + t_cv[p][2] * uz[TDP_LANE(v)];
        double usq = ux[TDP_LANE(v)] * ux[TDP_LANE(v)] + uy[TDP_LANE(v)] * uy[TDP_LANE(v)] + uz[TDP_LANE(v)] * uz[TDP_LANE(v)];
        double feq = t_wv[p] * rho[TDP_LANE(v)] * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq);
        fout[TDP_VINDEX(nsites, NVEL, base, p, v)] = f[p][TDP_LANE(v)] + omega * (feq - f[p][TDP_LANE(v)]);
      }
    }
  }
}

/* Component (i, j, re/im) of the matrix is 6i + 2j + re/im; of a vector 2j + re/im. */
TDP_KERNEL void su3MatVec(double *out, const double *u, const double *x, int nsites) {
  TDP_TLP(base, nsites) {
    for (int i = 0; i < 3; i++) {
      TDP_ILP(v) {
        double re = 0.0, im = 0.0;
        for (int j = 0; j < 3; j++) {
          double ur = u[TDP_VINDEX(nsites, NSU3, base, 6 * i + 2 * j, v)];
          double ui = u[TDP_VINDEX(nsites, NSU3, base, 6 * i + 2 * j + 1, v)];
          double xr = x[TDP_VINDEX(nsites, NVEC, base, 2 * j, v)];
          double xi = x[TDP_VINDEX(nsites, NVEC, base, 2 * j + 1, v)];
          re += ur * xr - ui * xi;
          im += ur * xi + ui * xr;
        }
        out[TDP_VINDEX(nsites, NVEC, base, 2 * i, v)] = re;
        out[TDP_VINDEX(nsites, NVEC, base, 2 * i + 1, v)] = im;
      }
    }
  }
}

/* The same, its loads and stores evict-first (each value is used once). */
TDP_KERNEL void su3MatVecOnce(double *TDP_RESTRICT out, const double *TDP_RESTRICT u,
                              const double *TDP_RESTRICT x, int nsites) {
  TDP_TLP(base, nsites) {
    TDP_ILP(v) {
      double xv[NVEC];
      BENCH_UNROLL
      for (int c = 0; c < NVEC; c++) xv[c] = TDP_LOAD_ONCE(x + TDP_VINDEX(nsites, NVEC, base, c, v));
      BENCH_UNROLL
      for (int i = 0; i < 3; i++) {
        double re = 0.0, im = 0.0;
        BENCH_UNROLL
        for (int j = 0; j < 3; j++) {
          double ur = TDP_LOAD_ONCE(u + TDP_VINDEX(nsites, NSU3, base, 6 * i + 2 * j, v));
          double ui = TDP_LOAD_ONCE(u + TDP_VINDEX(nsites, NSU3, base, 6 * i + 2 * j + 1, v));
          re += ur * xv[2 * j] - ui * xv[2 * j + 1];
          im += ur * xv[2 * j + 1] + ui * xv[2 * j];
        }
        TDP_STORE_ONCE(out + TDP_VINDEX(nsites, NVEC, base, 2 * i, v), re);
        TDP_STORE_ONCE(out + TDP_VINDEX(nsites, NVEC, base, 2 * i + 1, v), im);
      }
    }
  }
}

/* r += a * b for complex (re, im) pairs: the multiply-add of both pair kernels. */
TDP_DEVICE static inline void cmulAdd(tdpDouble2 *r, tdpDouble2 a, tdpDouble2 b) {
  r->x += a.x * b.x - a.y * b.y;
  r->y += a.x * b.y + a.y * b.x;
}

/* On fields of (re, im) pairs: 9 per matrix, 3 per vector, 16 bytes each.
 * One body, several block sizes: SU3MatVecPair at the build's TARGET_TPB
 * (TDP_LAUNCH), SU3MatVecPairT<tpb> at a fixed one (TDP_KERNEL_TPB and
 * TDP_LAUNCH_TPB), so that one run compares block sizes at 2^20 sites,
 * where the last partial wave of blocks is a visible part of the time. */
#define SU3_PAIR_KERNEL(name, qualifiers)                                                     \
  qualifiers void name(tdpDouble2 *TDP_RESTRICT out, const tdpDouble2 *TDP_RESTRICT u,       \
                       const tdpDouble2 *TDP_RESTRICT x, int nsites) {                        \
    TDP_TLP(base, nsites) {                                                                   \
      TDP_ILP(v) {                                                                            \
        tdpDouble2 xv[3];                                                                     \
        BENCH_UNROLL                                                                          \
        for (int j = 0; j < 3; j++) xv[j] = TDP_LOAD_ONCE(x + TDP_VINDEX(nsites, 3, base, j, v)); \
        BENCH_UNROLL                                                                          \
        for (int i = 0; i < 3; i++) {                                                         \
          tdpDouble2 r;                                                                       \
          r.x = r.y = 0.0;                                                                    \
          BENCH_UNROLL                                                                        \
          for (int j = 0; j < 3; j++) {                                                       \
            const tdpDouble2 a = TDP_LOAD_ONCE(u + TDP_VINDEX(nsites, 9, base, 3 * i + j, v)); \
            cmulAdd(&r, a, xv[j]);                                                            \
          }                                                                                   \
          TDP_STORE_ONCE(out + TDP_VINDEX(nsites, 3, base, i, v), r);                         \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
  }
SU3_PAIR_KERNEL(su3MatVecPair, TDP_KERNEL)
SU3_PAIR_KERNEL(su3MatVecPairT128, TDP_KERNEL_TPB(128))
SU3_PAIR_KERNEL(su3MatVecPairT512, TDP_KERNEL_TPB(512))
SU3_PAIR_KERNEL(su3MatVecPairT1024, TDP_KERNEL_TPB(1024))
/* SU3MatVecPairOcc: asks for a full multiprocessor of TARGET_TPB blocks
 * (2048 threads on an H100: 32 registers a thread; SU3MatVecPair takes 40
 * at TPB 256, so 6 blocks, 1536 threads, fit; at 32 nvcc 13 spills 76
 * bytes to the stack, which L1 holds). SU3MatVecPairOccGrid is the
 * same kernel launched by TDP_LAUNCH_REDUCE: a grid of two fills of the GPU
 * (targetInit's cap) that the TLP loop strides over, ~2 sites a thread at
 * 2^20 sites, every block the same work. */
SU3_PAIR_KERNEL(su3MatVecPairOcc, TDP_KERNEL_OCC(2048 / TARGET_TPB))

/* Three work items per site, one row of the matrix each (the idea of
 * su3_bench's 36 threads per site for mult_su3_nn; bench_su3's tdp-elem):
 * 3x the threads, so 2^20 sites are ~12 waves of the H100's resident
 * threads rather than ~4, and each item is a third of the work, so the
 * last wave's tail is shorter. Item id -> (site, row) in chunks of
 * SU3_ROW_W sites: id = 3 SU3_ROW_W c + SU3_ROW_W i + w is row i of site
 * SU3_ROW_W c + w. On a GPU with SU3_ROW_W 32 every warp is one row of 32
 * consecutive sites: its loads and stores are whole 512-byte coalesced
 * runs in SoA, as in SU3MatVecPair, and the three rows of a site are three
 * neighbouring warps of one block (a block size that is a multiple of 96
 * keeps every chunk in one block). The row's u pairs are read once
 * (TDP_LOAD_ONCE); the site's x is read by all three rows, so a plain load
 * that L1 can keep for the other two; the result TDP_STORE_ONCE. The items
 * past the last site (nsites not a multiple of SU3_ROW_W) do nothing. */
#define SU3_ROW_W 32
#define SU3_ROW_ITEMS(nsites) (3L * SU3_ROW_W * (((long) (nsites) + SU3_ROW_W - 1) / SU3_ROW_W))
#define SU3_ROW_KERNEL(name, qualifiers)                                                      \
  qualifiers void name(tdpDouble2 *TDP_RESTRICT out, const tdpDouble2 *TDP_RESTRICT u,       \
                       const tdpDouble2 *TDP_RESTRICT x, int nsites) {                        \
    TDP_TLP(base, SU3_ROW_ITEMS(nsites)) {                                                    \
      TDP_ILP(v) {                                                                            \
        const long id = base + v;                                                             \
        const long s = id / (3 * SU3_ROW_W) * SU3_ROW_W + id % SU3_ROW_W;                     \
        const int i = (int) (id / SU3_ROW_W % 3);                                             \
        if (s < nsites) {                                                                     \
          tdpDouble2 r;                                                                       \
          r.x = r.y = 0.0;                                                                    \
          BENCH_UNROLL                                                                        \
          for (int j = 0; j < 3; j++) {                                                       \
            const tdpDouble2 a = TDP_LOAD_ONCE(u + TDP_INDEX(nsites, 9, s, 3 * i + j));       \
            const tdpDouble2 b = x[TDP_INDEX(nsites, 3, s, j)];                               \
            cmulAdd(&r, a, b);                                                                \
          }                                                                                   \
          TDP_STORE_ONCE(out + TDP_INDEX(nsites, 3, s, i), r);                                \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
  }
SU3_ROW_KERNEL(su3MatVecRow, TDP_KERNEL)
SU3_ROW_KERNEL(su3MatVecRowT192, TDP_KERNEL_TPB(192))
SU3_ROW_KERNEL(su3MatVecRowT384, TDP_KERNEL_TPB(384))
SU3_ROW_KERNEL(su3MatVecRowT768, TDP_KERNEL_TPB(768))

/* ---------------------------------------------------------------------- */
/* Initial values (deterministic, different per site and component) and the
 * host's expectations. Integers or dyadic fractions where exactness helps. */

static double vec_init(long s, int c) { return 1.0 + (double) ((3 * s + c) % 8) / 8.0; }
static double f_init(long s, int p) { return wv[p] * (1.0 + (double) ((7 * s + 3 * p) % 11) / 22.0); }
static double u_init(long s, int c) { return (double) ((s + 5 * c) % 7) - 3.0; }
static double x_init(long s, int c) { return (double) ((3 * s + c) % 5) - 2.0; }

static void lb_reference(long s, double out[NVEL]) {
  double f[NVEL], rho = 0.0, u[3] = {0.0, 0.0, 0.0};
  for (int p = 0; p < NVEL; p++) {
    f[p] = f_init(s, p);
    rho += f[p];
    for (int d = 0; d < 3; d++) u[d] += f[p] * cv[p][d];
  }
  for (int d = 0; d < 3; d++) u[d] /= rho;
  double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  for (int p = 0; p < NVEL; p++) {
    double cu = cv[p][0] * u[0] + cv[p][1] * u[1] + cv[p][2] * u[2];
    double feq = wv[p] * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq);
    out[p] = f[p] + OMEGA * (feq - f[p]);
  }
}

static void su3_reference(long s, double out[NVEC]) {
  for (int i = 0; i < 3; i++) {
    out[2 * i] = out[2 * i + 1] = 0.0;
    for (int j = 0; j < 3; j++) {
      double ur = u_init(s, 6 * i + 2 * j), ui = u_init(s, 6 * i + 2 * j + 1);
      double xr = x_init(s, 2 * j), xi = x_init(s, 2 * j + 1);
      out[2 * i] += ur * xr - ui * xi;
      out[2 * i + 1] += ur * xi + ui * xr;
    }
  }
}

/* Where component c of site s is: the build's layout, or (pair) a field
 * of ncomp / 2 tdpDouble2 (re, im) pairs in it, counted in doubles. */
static size_t fidx(int pair, int nsites, int ncomp, long s, int c) {
  return pair ? 2 * TDP_INDEX(nsites, ncomp / 2, s, c / 2) + c % 2 : TDP_INDEX(nsites, ncomp, s, c);
}

/* A target field of ncomp components, filled from init(s, c) in this build's layout. */
static double *field_new(int nsites, int ncomp, double (*init)(long, int), double *host, int pair) {
  size_t nbytes = TDP_FIELD_SIZE(nsites, ncomp) * sizeof(double);
  if (pair) nbytes = TDP_FIELD_SIZE(nsites, ncomp / 2) * sizeof(tdpDouble2);
  double *t_field = NULL;
  targetMalloc(&t_field, nbytes);
  long nelem = (long) (nbytes / sizeof(double));
  BENCH_HOST_PARALLEL_FOR(schedule(static))
  for (long i = 0; i < nelem; i++) host[i] = 0.0; /* AoSoA's padding sites stay zero */
  if (init) {
    BENCH_HOST_PARALLEL_FOR(schedule(static))
    for (long s = 0; s < nsites; s++)
      for (int c = 0; c < ncomp; c++) host[fidx(pair, nsites, ncomp, s, c)] = init(s, c);
  }
  copyToTarget(t_field, host, nbytes);
  return t_field;
}

enum {
  K_TRIAD, K_SCALE3, K_LB, K_SU3, K_SU3_ONCE, K_SU3_PAIR,
  K_SU3_PAIR_T128, K_SU3_PAIR_T512, K_SU3_PAIR_T1024, K_SU3_PAIR_OCC, K_SU3_PAIR_OCC_GRID,
  K_SU3_ROW, K_SU3_ROW_T192, K_SU3_ROW_T384, K_SU3_ROW_T768, NK
};
static const char *const kname[NK] = {
    "Triad", "Scale3", "LBCollide", "SU3MatVec", "SU3MatVecOnce", "SU3MatVecPair",
    "SU3MatVecPairT128", "SU3MatVecPairT512", "SU3MatVecPairT1024", "SU3MatVecPairOcc",
    "SU3MatVecPairOccGrid",
    "SU3MatVecRow", "SU3MatVecRowT192", "SU3MatVecRowT384", "SU3MatVecRowT768"};
/* the SU(3) kernels on fields of (re, im) pairs */
static int is_pair(int k) { return k >= K_SU3_PAIR; }
static int is_su3(int k) { return k >= K_SU3; }

typedef struct {
  int nsites, nscale, ntriad, ncalls_scale; /* Scale3 calls so far: it works in place */
  int batch;                                /* calls per timed repetition */
  int on[NK];                               /* --kernels */
  streamSet triad;
  double *vec, *fin, *fout, *u, *x, *ux, *u2, *x2, *ux2; /* *2: fields of pairs */
  double *host;
} layoutRun;

/* Kernel k, batch times back to back, then one synchronisation. */
static void run_kernel(int k, layoutRun *r, int batch) {
  int n = r->nsites;
  if (k == K_TRIAD && batch == 1) { /* as before --batch: bench_stream's call */
    streamLaunch_d(BENCH_NATIVE, STREAM_TRIAD, &r->triad, r->ntriad, STREAM_SCALAR);
    return;
  }
  for (int b = 0; b < batch; b++) {
    switch (k) {
    case K_TRIAD: /* the chosen native candidate, without bench_stream's synchronisation per call */
      nat_run_d(STREAM_TRIAD, streamNativeChoice[STREAM_TRIAD], &r->triad, r->ntriad, STREAM_SCALAR);
      break;
    case K_SCALE3: TDP_LAUNCH(scale3, r->nscale, r->vec, r->nscale); r->ncalls_scale++; break;
    case K_LB: TDP_LAUNCH(lbCollide, n, r->fout, r->fin, n, OMEGA); break;
    case K_SU3: TDP_LAUNCH(su3MatVec, n, r->ux, r->u, r->x, n); break;
    case K_SU3_ONCE: TDP_LAUNCH(su3MatVecOnce, n, r->ux, r->u, r->x, n); break;
#define PAIR_ARGS_ (tdpDouble2 *) (void *) r->ux2, (const tdpDouble2 *) (void *) r->u2, \
                   (const tdpDouble2 *) (void *) r->x2, n
    case K_SU3_PAIR: TDP_LAUNCH(su3MatVecPair, n, PAIR_ARGS_); break;
    case K_SU3_PAIR_T128: TDP_LAUNCH_TPB(su3MatVecPairT128, n, 128, PAIR_ARGS_); break;
    case K_SU3_PAIR_T512: TDP_LAUNCH_TPB(su3MatVecPairT512, n, 512, PAIR_ARGS_); break;
    case K_SU3_PAIR_T1024: TDP_LAUNCH_TPB(su3MatVecPairT1024, n, 1024, PAIR_ARGS_); break;
    case K_SU3_PAIR_OCC: TDP_LAUNCH(su3MatVecPairOcc, n, PAIR_ARGS_); break;
    case K_SU3_PAIR_OCC_GRID: TDP_LAUNCH_REDUCE(su3MatVecPairOcc, n, PAIR_ARGS_); break;
    case K_SU3_ROW: TDP_LAUNCH(su3MatVecRow, SU3_ROW_ITEMS(n), PAIR_ARGS_); break;
    case K_SU3_ROW_T192: TDP_LAUNCH_TPB(su3MatVecRowT192, SU3_ROW_ITEMS(n), 192, PAIR_ARGS_); break;
    case K_SU3_ROW_T384: TDP_LAUNCH_TPB(su3MatVecRowT384, SU3_ROW_ITEMS(n), 384, PAIR_ARGS_); break;
    case K_SU3_ROW_T768: TDP_LAUNCH_TPB(su3MatVecRowT768, SU3_ROW_ITEMS(n), 768, PAIR_ARGS_); break;
#undef PAIR_ARGS_
    }
  }
  if (k == K_TRIAD) nativeSynchronize();
  else targetSynchronize();
}

/* Compare kernel k's output with the expectation, every site and component. */
static void check_kernel(int k, layoutRun *r, int inject_error) {
  double *h = r->host;
  if (k == K_TRIAD) {
    benchToHost(BENCH_NATIVE, h, r->triad.a, r->ntriad * sizeof(double));
    benchCheckStream("Triad native", h, r->ntriad, 0, 2.0 + STREAM_SCALAR * 0.5, 1e-12);
    return;
  }
  int n = k == K_SCALE3 ? r->nscale : r->nsites;
  int ncomp = k == K_SCALE3 ? 3 : k == K_LB ? NVEL : NVEC;
  int pair = is_pair(k);
  double *t_out = k == K_SCALE3 ? r->vec : k == K_LB ? r->fout : pair ? r->ux2 : r->ux;
  if (inject_error && k == K_LB) benchCorrupt(t_out, TDP_INDEX(n, NVEL, n - 1, NVEL - 1), 0);
  copyFromTarget(h, t_out, TDP_FIELD_SIZE(n, ncomp) * sizeof(double));
  /* The SU(3) kernels share their output field: zeroed after each check,
   * so that a kernel that writes nothing cannot pass on another's result. */
  if (is_su3(k)) targetZero(t_out, TDP_FIELD_SIZE(n, ncomp));
  double rtol = k == K_LB ? 1e-12 : 0.0; /* Scale3 and SU3MatVec are exact */
  double factor = ldexp(1.0, r->ncalls_scale);
  BENCH_HOST_PARALLEL_FOR(schedule(static))
  for (long s = 0; s < n; s++) {
    double want[NVEL];
    if (k == K_SCALE3)
      for (int c = 0; c < 3; c++) want[c] = vec_init(s, c) * factor;
    else if (k == K_LB) lb_reference(s, want);
    else su3_reference(s, want);
    for (int c = 0; c < ncomp; c++) {
      double got = h[fidx(pair, n, ncomp, s, c)];
      if (!benchClose(got, want[c], rtol)) {
        char what[64];
        snprintf(what, sizeof(what), "%s site %ld component %d", kname[k], s, c);
        benchWrong(what, (long) fidx(pair, n, ncomp, s, c), got, want[c]);
      }
    }
  }
}

static void report(const benchOptions *o, const layoutRun *r, const double *times) {
  const int nt = o->reps + 1;
  double bytes_per_site[NK] = {0, 2 * 3 * 8, 2 * NVEL * 8};
  for (int k = K_SU3; k < NK; k++) bytes_per_site[k] = (NSU3 + 2 * NVEC) * 8; /* u, x, out once */
  benchTiming kt[NK];
  benchStats ks[NK];
  for (int k = 0; k < NK; k++) {
    kt[k].kernel = kname[k];
    kt[k].impl = k == K_TRIAD ? BENCH_NATIVE : BENCH_TDP;
    kt[k].size = k == K_TRIAD ? r->ntriad : k == K_SCALE3 ? r->nscale : r->nsites;
    kt[k].bytes = k == K_TRIAD ? 3.0 * sizeof(double) * r->ntriad : bytes_per_site[k] * kt[k].size;
    kt[k].t = times + k * nt;
    kt[k].t_ref = NULL;
    kt[k].variant = NULL;
    ks[k] = benchSummarise(&kt[k], o->reps);
  }
  double triad = ks[K_TRIAD].best_gbs;

  printf("# layout: %d sites (Scale3 %d), Triad on %d doubles, %d timed repetitions after 1 "
         "warm-up, %d call%s per repetition\n", r->nsites, r->nscale, r->ntriad, o->reps, r->batch,
         r->batch > 1 ? "s" : "");
  benchPrintConfig(stdout, o);
  printf("# all results validated (Scale3, SU3MatVec exact; LBCollide rtol 1e-12)\n");
  printf("%-18s %-9s %10s %10s %10s %9s\n", "kernel", "impl", "bytes", "best", "median", "% of");
  printf("%-18s %-9s %10s %10s %10s %9s\n", "", "", "per site", "GB/s", "GB/s", "Triad");
  for (int k = 0; k < NK; k++) {
    if (!r->on[k]) continue;
    double pct = 100.0 * ks[k].best_gbs / triad;
    printf("%-18s %-9s %10.0f %10.2f %10.2f %9.1f\n", kname[k], benchImplName[kt[k].impl],
           k == K_TRIAD ? 24.0 : bytes_per_site[k], ks[k].best_gbs, ks[k].median_gbs, pct);
    benchCsvRow(o, "double", &kt[k], &ks[k], pct);
  }

}

int main(int argc, char **argv) {
  static const char *const known[] = {"--triad-size=", "--batch=", "--kernels=", NULL};
  benchOptions o = benchParse(argc, argv, "layout", known, DEFAULT_SITES, usage);
  targetInit();

  layoutRun r;
  r.nsites = (int) o.size;
  r.nscale = (int) (o.size * SCALE3_SITES_FACTOR < (1L << 30) ? o.size * SCALE3_SITES_FACTOR
                                                               : (1L << 30));
  r.ntriad = (int) cliLong(argc, argv, "--triad-size", DEFAULT_TRIAD, 1, 1L << 30);
  r.ncalls_scale = 0;
  r.batch = (int) cliLong(argc, argv, "--batch", 1, 1, 1000);
  const char *klist = cliString(argc, argv, "--kernels", NULL);
  for (int k = 0; k < NK; k++) {
    char padded[256];
    snprintf(padded, sizeof(padded), ",%s,", klist ? klist : "");
    char name[32];
    snprintf(name, sizeof(name), ",%s,", kname[k]);
    r.on[k] = !klist || k == K_TRIAD || strstr(padded, name) != NULL;
  }
  const int nt = o.reps + 1;

  for (int p = 0; p < NVEL; p++) {
    int speed2 = (int) (cv[p][0] * cv[p][0] + cv[p][1] * cv[p][1] + cv[p][2] * cv[p][2]);
    wv[p] = speed2 == 0 ? 1.0 / 3.0 : speed2 == 1 ? 1.0 / 18.0 : 1.0 / 36.0;
  }
  double scale = SCALE;
  copyConstToTarget(&t_scale, &scale, sizeof(double));
  copyConstToTarget(t_cv, cv, sizeof(cv));
  copyConstToTarget(t_wv, wv, sizeof(wv));

  size_t hsize = TDP_FIELD_SIZE(r.nsites, NVEL);
  if (hsize < TDP_FIELD_SIZE(r.nscale, 3)) hsize = TDP_FIELD_SIZE(r.nscale, 3);
  if (hsize < (size_t) r.ntriad) hsize = r.ntriad;
  r.host = (double *) malloc(hsize * sizeof(double));
  double *times = (double *) calloc((size_t) NK * nt, sizeof(double));
  if (!r.host || !times) {
    fprintf(stderr, "layout: out of host memory\n");
    return 1;
  }
  r.vec = r.fin = r.fout = r.u = r.x = r.ux = r.u2 = r.x2 = r.ux2 = NULL; /* the fields in use: */
  if (r.on[K_SCALE3]) r.vec = field_new(r.nscale, 3, vec_init, r.host, 0);
  if (r.on[K_LB]) {
    r.fin = field_new(r.nsites, NVEL, f_init, r.host, 0);
    r.fout = field_new(r.nsites, NVEL, NULL, r.host, 0);
  }
  if (r.on[K_SU3] || r.on[K_SU3_ONCE]) {
    r.u = field_new(r.nsites, NSU3, u_init, r.host, 0);
    r.x = field_new(r.nsites, NVEC, x_init, r.host, 0);
    r.ux = field_new(r.nsites, NVEC, NULL, r.host, 0);
  }
  int any_pair = 0;
  for (int k = K_SU3_PAIR; k < NK; k++) any_pair |= r.on[k];
  if (any_pair) {
    r.u2 = field_new(r.nsites, NSU3, u_init, r.host, 1);
    r.x2 = field_new(r.nsites, NVEC, x_init, r.host, 1);
    r.ux2 = field_new(r.nsites, NVEC, NULL, r.host, 1);
  }
  r.triad.a = nativeMalloc(r.ntriad * sizeof(double));
  r.triad.b = nativeMalloc(r.ntriad * sizeof(double));
  r.triad.c = nativeMalloc(r.ntriad * sizeof(double));
  r.triad.sum = NULL;
  streamInit_d(BENCH_NATIVE, &r.triad, r.ntriad, 0.0, 2.0, 0.5);

  for (int it = 0; it < nt; it++) {
    for (int k = 0; k < NK; k++) {
      if (!r.on[k]) continue;
      double t0 = timerNow();
      run_kernel(k, &r, r.batch);
      times[k * nt + it] = (timerNow() - t0) / r.batch;
      if (it == 0) check_kernel(k, &r, o.inject_error);
    }
  }
  if (r.on[K_SCALE3]) check_kernel(K_SCALE3, &r, 0); /* in place: its state after every call */
  int wrong = benchErrors() != 0;
  if (wrong) fprintf(stderr, "layout: %ld wrong results: no bandwidth reported\n", benchErrors());
  else report(&o, &r, times);

  double *fields[] = {r.vec, r.fin, r.fout, r.u, r.x, r.ux, r.u2, r.x2, r.ux2};
  for (int i = 0; i < 9; i++) targetFree(fields[i]);
  nativeFree(r.triad.a);
  nativeFree(r.triad.b);
  nativeFree(r.triad.c);
  free(r.host);
  free(times);
  targetFinalize();
  return wrong;
}
