/*
 * MILC's mult_su3_nn pattern (su3_bench): for every site i and direction
 * j = 0..3, C[i].link[j] = A[i].link[j] x B[j], complex 3x3 matrices in
 * double precision; B is 4 matrices shared by all sites.
 *
 * Several variants of each side run in one binary and one process, the
 * order rotating every repetition (docs/milc.md, "The mult_su3_nn
 * benchmark", names each and where its technique comes from):
 *   targetDP  kernels written with the layer only (A and C addressed by
 *             TDP_INDEX / TDP_VINDEX, so the build's layout; B in
 *             TDP_CONST): per element as MILC writes it, a link at a time,
 *             one link per thread, evict-first loads and stores
 *             (TDP_LOAD_ONCE / TDP_STORE_ONCE), (re, im) pairs as 16-byte
 *             tdpDouble2, a padded site count;
 *   native    plain CUDA as one would write it by hand, with the
 *             techniques of public implementations (SoA one site per
 *             thread, 4 threads per site, __ldcs/__stcs, double2 pairs,
 *             two sites per thread, su3_bench's AoS with 36 threads per
 *             site, 128/256/512 threads per block); on a CPU MILC's own AoS
 *             in an "omp parallel for simd" loop.
 * "native" in the summary is the fastest native variant, "targetDP" the
 * fastest targetDP one. Every variant's result is checked against the
 * host's product at every element (1e-13) before any bandwidth is printed.
 *
 * Bytes per site: A read, C written, 2 x 4 x 18 doubles = 1152 (B stays in
 * cache). Flops per site: 4 x 198 (27 complex multiplies, 18 adds). A
 * native STREAM triad (one element per thread) is timed in the same run
 * and the same way, for the "% of triad" column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/cli.h"
#include "common/timer.h"
/* su3MulNN: the app's product of two links (MILC's mult_su3_nn), one home for both */
#include "apps/milc/su3.h"

#define NL 72 /* 4 links x 9 complex: doubles per site */
#define NP 36 /* (re, im) pairs per site */

#ifdef __CUDACC__
#define DEFAULT_SIZE (1L << 20) /* 32^4 sites: 604 MB per array */
#define DEFAULT_TRIAD (1L << 27)
#else
#define DEFAULT_SIZE (1L << 18)
#define DEFAULT_TRIAD (1L << 22)
#endif
/* Sites of padding for the *-pad variants: a component's stream then
 * starts 1152 bytes (9 lines of 128 B) further than a power of two. */
#define DEFAULT_PAD 144

static const char *const usage =
    "usage: bench_su3 [--size SITES] [--reps R] [--batch K] [--variants LIST] [--pad P]\n"
    "                 [--triad-size N] [--csv FILE] [--list]\n"
    "  C[i].link[j] = A[i].link[j] x B[j] (MILC's mult_su3_nn), targetDP and native variants.\n"
    "  --size N        lattice sites (default 2^20 = 32^4 on CUDA, 2^18 on the C build)\n"
    "  --reps R        timed repetitions after one untimed warm-up (default 20)\n"
    "  --batch K       each repetition times K calls back to back, one synchronisation\n"
    "                  (default 1); the triad likewise\n"
    "  --variants L    comma-separated variant names, or all (default); --list names them\n"
    "  --pad P         sites of padding of the *-pad variants (default 144)\n"
    "  --triad-size N  elements of the native triad of the same run (default 2^27 CUDA,\n"
    "                  2^22 C; 0: none)\n";

/* Exactly representable inputs, distinct per element. */
static TDP_HOST_DEVICE double aval(long i, int c) {
  return (double) ((i * 7 + c * 3) % 17 - 8) / 8.0;
}
static double bval(int c) {
  return (double) ((c * 5) % 13 - 6) / 4.0;
}

/* ---------------------------------------------------------------- targetDP */

TDP_CONST double t_B[NL];

/* "tdp": as MILC writes it, element by element, loads inside the ILP loop. */
TDP_KERNEL void tdp_su3(const double *A, double *C, int n) {
  TDP_TLP(base, n) {
    for (int j = 0; j < 4; j++) {
      BENCH_UNROLL
      for (int i = 0; i < 3; i++) {
        BENCH_UNROLL
        for (int k = 0; k < 3; k++) {
          TDP_ILP(v) {
            double re = 0.0, im = 0.0;
            for (int l = 0; l < 3; l++) {
              const double ar = A[TDP_VINDEX(n, NL, base, 18 * j + 2 * (3 * i + l), v)];
              const double ai = A[TDP_VINDEX(n, NL, base, 18 * j + 2 * (3 * i + l) + 1, v)];
              const double br = t_B[18 * j + 2 * (3 * l + k)],
                           bi = t_B[18 * j + 2 * (3 * l + k) + 1];
              re += ar * br - ai * bi;
              im += ar * bi + ai * br;
            }
            C[TDP_VINDEX(n, NL, base, 18 * j + 2 * (3 * i + k), v)] = re;
            C[TDP_VINDEX(n, NL, base, 18 * j + 2 * (3 * i + k) + 1, v)] = im;
          }
        }
      }
    }
  }
}

/* A link at a time: its 18 values loaded (all loads issued before the
 * first multiply), the product, 18 stores. once (a literal in every
 * caller, so folded): evict-first loads and stores. nalloc: the site count
 * the field is laid out for (n, or n + pad). */
static TDP_DEVICE inline void tdpLink(const double *TDP_RESTRICT A, double *TDP_RESTRICT C,
                                      int nalloc, long base, long v, int j, int once) {
  double a[18], c[18];
  TDP_UNROLL(18)
  for (int e = 0; e < 18; e++) {
    const double *p = A + TDP_VINDEX(nalloc, NL, base, 18 * j + e, v);
    a[e] = once ? TDP_LOAD_ONCE(p) : *p;
  }
  su3MulNN(a, t_B + 18 * j, c);
  TDP_UNROLL(18)
  for (int e = 0; e < 18; e++) {
    double *p = C + TDP_VINDEX(nalloc, NL, base, 18 * j + e, v);
    if (once) TDP_STORE_ONCE(p, c[e]);
    else *p = c[e];
  }
}
/* The same on a field of (re, im) pairs: 9 tdpDouble2 per link. */
static TDP_DEVICE inline void tdpLinkPair(const tdpDouble2 *TDP_RESTRICT A,
                                          tdpDouble2 *TDP_RESTRICT C, int nalloc, long base,
                                          long v, int j, int once) {
  double a[18], c[18];
  TDP_UNROLL(9)
  for (int e = 0; e < 9; e++) {
    const tdpDouble2 *p = A + TDP_VINDEX(nalloc, NP, base, 9 * j + e, v);
    const tdpDouble2 x = once ? TDP_LOAD_ONCE(p) : *p;
    a[2 * e] = x.x;
    a[2 * e + 1] = x.y;
  }
  su3MulNN(a, t_B + 18 * j, c);
  TDP_UNROLL(9)
  for (int e = 0; e < 9; e++) {
    tdpDouble2 *p = C + TDP_VINDEX(nalloc, NP, base, 9 * j + e, v);
    tdpDouble2 x;
    x.x = c[2 * e];
    x.y = c[2 * e + 1];
    if (once) TDP_STORE_ONCE(p, x);
    else *p = x;
  }
}

/* One site per lane, its 4 links in turn. */
#define TDP_SITE_KERNEL(name, T, link, once)                                       \
  TDP_KERNEL void name(const T *TDP_RESTRICT A, T *TDP_RESTRICT C, int n, int nalloc) { \
    TDP_TLP(base, n) {                                                             \
      TDP_UNROLL(4)                                                                \
      for (int j = 0; j < 4; j++) {                                                \
        TDP_ILP(v) link(A, C, nalloc, base, v, j, once);                           \
      }                                                                            \
    }                                                                              \
  }
/* One link per lane: 4 n work items, link-major (item w is link w / n of
 * site w % n), so neighbouring lanes and threads take neighbouring sites
 * of the same link, as the site kernels do. */
#define TDP_LINK_KERNEL(name, T, link, once)                                       \
  TDP_KERNEL void name(const T *TDP_RESTRICT A, T *TDP_RESTRICT C, int n, int nalloc) { \
    TDP_TLP(base, 4L * n) {                                                        \
      TDP_ILP(v) {                                                                 \
        const long w = base + v, j = w / n;                                        \
        link(A, C, nalloc, w - j * n, 0, (int) j, once);                           \
      }                                                                            \
    }                                                                              \
  }
TDP_SITE_KERNEL(tdp_site, double, tdpLink, 0)
TDP_SITE_KERNEL(tdp_site_once, double, tdpLink, 1)
TDP_LINK_KERNEL(tdp_link, double, tdpLink, 0)
TDP_LINK_KERNEL(tdp_link_once, double, tdpLink, 1)
TDP_SITE_KERNEL(tdp_pair, tdpDouble2, tdpLinkPair, 0)
TDP_SITE_KERNEL(tdp_pair_once, tdpDouble2, tdpLinkPair, 1)
TDP_LINK_KERNEL(tdp_pair_link_once, tdpDouble2, tdpLinkPair, 1)

/* One complex element of C per work item, 36 per site, site-major:
 * su3_bench's mapping (nat_aos36 below) through the layer. Coalesced in an
 * AoS build, where a site's 36 items share its 576 contiguous bytes (each
 * row of A is read by three neighbouring threads, from L1); valid, not
 * fast, in SoA. B from a global array: a warp reads many different
 * elements of B at once, which constant memory would serialise. */
static double *t_Bg;
TDP_KERNEL void tdp_elem(const double *TDP_RESTRICT A, const double *TDP_RESTRICT B,
                         double *TDP_RESTRICT C, int n, int nalloc) {
  TDP_TLP(base, 36L * n) {
    TDP_ILP(v) {
      const int id = (int) (base + v), i = id / 36, j = (id % 36) / 9, k = (id % 9) / 3,
                l = id % 3;
      double re = 0.0, im = 0.0;
      TDP_UNROLL(3)
      for (int m = 0; m < 3; m++) {
        const double ar = A[TDP_INDEX(nalloc, NL, i, 18 * j + 6 * k + 2 * m)],
                     ai = A[TDP_INDEX(nalloc, NL, i, 18 * j + 6 * k + 2 * m + 1)];
        const double br = B[18 * j + 6 * m + 2 * l], bi = B[18 * j + 6 * m + 2 * l + 1];
        re += ar * br - ai * bi;
        im += ar * bi + ai * br;
      }
      C[TDP_INDEX(nalloc, NL, i, 18 * j + 6 * k + 2 * l)] = re;
      C[TDP_INDEX(nalloc, NL, i, 18 * j + 6 * k + 2 * l + 1)] = im;
    }
  }
}

/* The layer's launches of each, with one signature. */
static void run_tdp(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_su3, n, A, C, n); (void) na; }
static void run_tdp_site(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_site, n, A, C, n, na); }
static void run_tdp_site_once(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_site_once, n, A, C, n, na); }
static void run_tdp_link(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_link, 4L * n, A, C, n, na); }
static void run_tdp_link_once(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_link_once, 4L * n, A, C, n, na); }
#define PAIRS(A, C) (const tdpDouble2 *) (const void *) (A), (tdpDouble2 *) (void *) (C)
static void run_tdp_pair(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_pair, n, PAIRS(A, C), n, na); }
static void run_tdp_pair_once(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_pair_once, n, PAIRS(A, C), n, na); }
static void run_tdp_pair_link_once(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_pair_link_once, 4L * n, PAIRS(A, C), n, na); }
static void run_tdp_elem(const double *A, double *C, int n, int na) { TDP_LAUNCH(tdp_elem, 36L * n, A, t_Bg, C, n, na); }

/* ---------------------------------------------------------------- native
 * As one would write it by hand for each machine. On the GPU: SoA (a
 * warp's loads coalesce) in the variants below; on a CPU MILC's own AoS (a
 * site's 4 links are 576 contiguous bytes; SoA there means 144 streams a
 * lattice apart, 20x slower on the development box). */

/* Where element c (0..71) of site s lies in each layout (in doubles). */
enum { LAY_TDP,      /* the build's layout, TDP_INDEX(n, 72, s, c) */
       LAY_TDP_PAD,  /* the same laid out for n + pad sites */
       LAY_TDP_PAIR, /* pairs: TDP_INDEX(n, 36, s, c / 2) in tdpDouble2 */
       LAY_NAT,      /* CUDA: SoA c n + s; C: AoS 72 s + c */
       LAY_NAT_PAD,  /* SoA for n + pad sites */
       LAY_NAT_PAIR, /* SoA of double2: pair (c / 2) n + s */
       LAY_NAT_AOS,  /* su3_bench's site array: 72 s + c */
       NLAY };
#ifdef __CUDACC__
#define LAY_NAT_NAME "SoA"
#else
#define LAY_NAT_NAME "AoS"
#endif
static const char *const layName[NLAY] = {
    "targetDP " TARGETDP_LAYOUT, "targetDP " TARGETDP_LAYOUT " padded",
    "targetDP " TARGETDP_LAYOUT " of tdpDouble2", LAY_NAT_NAME, "SoA padded", "SoA of double2",
    "AoS"};

static size_t layIndex(int lay, int n, int nalloc, long s, int c) {
  switch (lay) {
  case LAY_TDP: return TDP_INDEX(n, NL, s, c);
  case LAY_TDP_PAD: return TDP_INDEX(nalloc, NL, s, c);
  case LAY_TDP_PAIR: return 2 * TDP_INDEX(n, NP, s, c / 2) + c % 2;
#ifdef __CUDACC__
  case LAY_NAT: return (size_t) c * n + s;
#else
  case LAY_NAT: return (size_t) s * NL + c;
#endif
  case LAY_NAT_PAD: return (size_t) c * nalloc + s;
  case LAY_NAT_PAIR: return 2 * ((size_t) (c / 2) * n + s) + c % 2;
  default: return (size_t) s * NL + c;
  }
}
static size_t layElems(int lay, int n, int nalloc) {
  switch (lay) {
  case LAY_TDP: return TDP_FIELD_SIZE(n, NL);
  case LAY_TDP_PAD: return TDP_FIELD_SIZE(nalloc, NL);
  case LAY_TDP_PAIR: return 2 * TDP_FIELD_SIZE(n, NP);
  case LAY_NAT_PAD: return (size_t) nalloc * NL;
  default: return (size_t) n * NL;
  }
}

#ifdef __CUDACC__
__constant__ double nat_B[NL];
static double *nat_Bg; /* B in global memory, as su3_bench passes it */

/* Loads and stores with or without the evict-first hint (CUDA C++
 * Programming Guide, "Load Functions Using Cache Hints" / "Store Functions
 * Using Cache Hints": __ldcs / __stcs are ld.global.cs / st.global.cs). */
template <bool CS, typename T> __device__ __forceinline__ T natLd(const T *p) {
  return CS ? __ldcs(p) : *p;
}
template <bool CS, typename T> __device__ __forceinline__ void natSt(T *p, T x) {
  if (CS) __stcs(p, x);
  else *p = x;
}

/* (a) SoA, one site per thread, its 4 links in turn (the previous native
 * kernel; BabelStream's one-element-per-thread model): stride n, or
 * n + pad for the padded variant. */
/* Link j of SoA site s: its 18 values loaded, the product, 18 stores. */
template <bool CS>
__device__ inline void natLink(const double *__restrict__ A, double *__restrict__ C, int stride,
                               int s, int j) {
  double a[18], c[18];
#pragma unroll
  for (int e = 0; e < 18; e++) a[e] = natLd<CS>(A + (size_t) (18 * j + e) * stride + s);
  su3MulNN(a, nat_B + 18 * j, c);
#pragma unroll
  for (int e = 0; e < 18; e++) natSt<CS>(C + (size_t) (18 * j + e) * stride + s, c[e]);
}
template <int TPB, bool CS>
__global__ void __launch_bounds__(TPB)
    nat_site(const double *__restrict__ A, double *__restrict__ C, int n, int stride) {
  const int s = blockIdx.x * TPB + threadIdx.x;
  if (s >= n) return;
#pragma unroll
  for (int j = 0; j < 4; j++) natLink<CS>(A, C, stride, s, j);
}
/* Two sites per thread, a block apart (so each load of a warp stays
 * coalesced) in a grid-stride loop: twice the loads in flight per thread
 * (NVIDIA's grid-stride loop advice plus ILP, as the STREAM candidates). */
template <int TPB, bool CS>
__global__ void __launch_bounds__(TPB)
    nat_site_ilp2(const double *__restrict__ A, double *__restrict__ C, int n, int stride) {
  for (int s0 = blockIdx.x * 2 * TPB + threadIdx.x; s0 < n; s0 += gridDim.x * 2 * TPB) {
#pragma unroll
    for (int j = 0; j < 4; j++) {
      double a[2][18], c[18];
#pragma unroll
      for (int q = 0; q < 2; q++)
#pragma unroll
        for (int e = 0; e < 18; e++)
          a[q][e] = s0 + q * TPB < n ? natLd<CS>(A + (size_t) (18 * j + e) * stride + s0 + q * TPB)
                                     : 0.0;
#pragma unroll
      for (int q = 0; q < 2; q++) {
        su3MulNN(a[q], nat_B + 18 * j, c);
        if (s0 + q * TPB < n)
#pragma unroll
          for (int e = 0; e < 18; e++)
            natSt<CS>(C + (size_t) (18 * j + e) * stride + s0 + q * TPB, c[e]);
      }
    }
  }
}
/* (b) 4 threads per site, one link each, link-major so that a warp reads
 * 32 neighbouring sites of one link (su3_bench's threads-per-site idea on
 * SoA): 4x the threads, a quarter of the registers each. */
template <int TPB, bool CS>
__global__ void __launch_bounds__(TPB)
    nat_link(const double *__restrict__ A, double *__restrict__ C, int n, int stride) {
  const int w = blockIdx.x * TPB + threadIdx.x;
  if (w >= 4 * n) return;
  const int j = w / n, s = w - j * n;
  natLink<CS>(A, C, stride, s, j);
}
/* (d) SoA of double2: each (re, im) pair one 16-byte load or store, 36
 * streams instead of 72 (QUDA's FloatNOrder with N = 2 for double). */
template <int TPB, bool CS, bool LINK>
__global__ void __launch_bounds__(TPB)
    nat_pair(const double2 *__restrict__ A, double2 *__restrict__ C, int n) {
  const int w = blockIdx.x * TPB + threadIdx.x;
  if (w >= (LINK ? 4 * n : n)) return;
  const int j0 = LINK ? w / n : 0, s = LINK ? w - j0 * n : w;
#pragma unroll
  for (int jj = 0; jj < (LINK ? 1 : 4); jj++) {
    const int j = LINK ? j0 : jj;
    double a[18], c[18];
#pragma unroll
    for (int e = 0; e < 9; e++) {
      const double2 x = natLd<CS>(A + (size_t) (9 * j + e) * n + s);
      a[2 * e] = x.x;
      a[2 * e + 1] = x.y;
    }
    su3MulNN(a, nat_B + 18 * j, c);
#pragma unroll
    for (int e = 0; e < 9; e++) natSt<CS>(C + (size_t) (9 * j + e) * n + s, make_double2(c[2 * e], c[2 * e + 1]));
  }
}
/* (e) su3_bench's CUDA kernel (NERSC, D. Doerfler; mat_nn_cuda.hpp, also in
 * HeCBench su3-cuda): AoS sites, THREADS_PER_SITE 36, each thread one
 * complex element (row k of link j times column l of B[j]); B from global
 * memory through __restrict__. 288 threads per block (8 sites). */
__global__ void __launch_bounds__(288)
    nat_aos36(const double *__restrict__ A, const double *__restrict__ B, double *__restrict__ C,
              int n) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x, i = id / 36;
  if (i >= n) return;
  const int j = (id % 36) / 9, k = (id % 9) / 3, l = id % 3;
  const double *a = A + (size_t) i * NL + 18 * j + 6 * k, *b = B + 18 * j + 2 * l;
  double re = 0.0, im = 0.0;
#pragma unroll
  for (int m = 0; m < 3; m++) {
    const double ar = a[2 * m], ai = a[2 * m + 1], br = b[6 * m], bi = b[6 * m + 1];
    re += ar * br - ai * bi;
    im += ar * bi + ai * br;
  }
  double *c = C + (size_t) i * NL + 18 * j + 6 * k + 2 * l;
  c[0] = re;
  c[1] = im;
}

template <int TPB, bool CS> static void run_site(const double *A, double *C, int n, int na) {
  nat_site<TPB, CS><<<(n + TPB - 1) / TPB, TPB>>>(A, C, n, na);
}
template <int TPB, bool CS> static void run_site_ilp2(const double *A, double *C, int n, int na) {
  nat_site_ilp2<TPB, CS><<<(n + 2 * TPB - 1) / (2 * TPB), TPB>>>(A, C, n, na);
}
template <int TPB, bool CS> static void run_link(const double *A, double *C, int n, int na) {
  nat_link<TPB, CS><<<(4 * n + TPB - 1) / TPB, TPB>>>(A, C, n, na);
}
template <int TPB, bool CS, bool LINK> static void run_pair(const double *A, double *C, int n, int na) {
  (void) na;
  const int items = LINK ? 4 * n : n;
  nat_pair<TPB, CS, LINK><<<(items + TPB - 1) / TPB, TPB>>>((const double2 *) A, (double2 *) C, n);
}
static void run_aos36(const double *A, double *C, int n, int na) {
  (void) na;
  nat_aos36<<<(int) ((36L * n + 287) / 288), 288>>>(A, nat_Bg, C, n);
}
static void native_setB(const double *b) {
  cudaMemcpyToSymbol(nat_B, b, NL * sizeof(double));
  targetMalloc(&nat_Bg, NL * sizeof(double));
  copyToTarget(nat_Bg, b, NL * sizeof(double));
}
static void native_done(void) { targetFree(nat_Bg); }

/* The reference bandwidth: STREAM triad a = b + s c, one element per
 * thread, 256 threads per block (BabelStream's CUDA model; the fastest
 * double Triad candidate of bench_stream on the H100 is within 0.3% of it). */
__global__ void nat_triad(double *__restrict__ a, const double *__restrict__ b,
                          const double *__restrict__ c, double s, long n) {
  const long i = (long) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}
static void run_triad(double *a, const double *b, const double *c, double s, long n) {
  nat_triad<<<(unsigned int) ((n + 255) / 256), 256>>>(a, b, c, s, n);
}
#else
static double nat_Bh[NL];
static void native_setB(const double *b) { memcpy(nat_Bh, b, sizeof(nat_Bh)); }
static void native_done(void) {}
/* MILC's AoS in an "omp parallel for simd" loop, B a local copy. */
static void run_aos_omp(const double *restrict A, double *restrict C, int n, int na) {
  (void) na;
  double B[NL];
  for (int c = 0; c < NL; c++) B[c] = nat_Bh[c];
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
  for (int s = 0; s < n; s++) {
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
          double re = 0.0, im = 0.0;
          for (int l = 0; l < 3; l++) {
            const double ar = A[(size_t) s * NL + 18 * j + 2 * (3 * i + l)];
            const double ai = A[(size_t) s * NL + 18 * j + 2 * (3 * i + l) + 1];
            const double br = B[18 * j + 2 * (3 * l + k)], bi = B[18 * j + 2 * (3 * l + k) + 1];
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
          }
          C[(size_t) s * NL + 18 * j + 2 * (3 * i + k)] = re;
          C[(size_t) s * NL + 18 * j + 2 * (3 * i + k) + 1] = im;
        }
  }
}
/* STREAM's triad as McCalpin writes it. */
static void run_triad(double *restrict a, const double *restrict b, const double *restrict c,
                      double s, long n) {
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
  for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
#endif

/* ---------------------------------------------------------------- variants */

typedef struct {
  const char *name;
  int impl;   /* BENCH_TDP or BENCH_NATIVE */
  int layout; /* LAY_* */
  void (*run)(const double *A, double *C, int n, int nalloc); /* nalloc: n, or n + pad */
  const char *what;
} su3Variant;

static const su3Variant variants[] = {
    {"tdp", BENCH_TDP, LAY_TDP, run_tdp, "element by element as MILC writes it (TDP_VINDEX)"},
    {"tdp-site", BENCH_TDP, LAY_TDP, run_tdp_site, "a link at a time: 18 loads, product, 18 stores"},
    {"tdp-once", BENCH_TDP, LAY_TDP, run_tdp_site_once, "tdp-site with TDP_LOAD_ONCE / TDP_STORE_ONCE"},
    {"tdp-pad", BENCH_TDP, LAY_TDP_PAD, run_tdp_site, "tdp-site on a field laid out for n + pad sites"},
    {"tdp-pad-once", BENCH_TDP, LAY_TDP_PAD, run_tdp_site_once, "tdp-once, n + pad sites"},
    {"tdp-link", BENCH_TDP, LAY_TDP, run_tdp_link, "one link per lane: TDP_TLP over 4 n items"},
    {"tdp-link-once", BENCH_TDP, LAY_TDP, run_tdp_link_once, "tdp-link with TDP_LOAD_ONCE / TDP_STORE_ONCE"},
    {"tdp-pair", BENCH_TDP, LAY_TDP_PAIR, run_tdp_pair, "(re, im) as tdpDouble2: 16-byte accesses"},
    {"tdp-pair-once", BENCH_TDP, LAY_TDP_PAIR, run_tdp_pair_once, "tdp-pair, evict-first"},
    {"tdp-pair-link-once", BENCH_TDP, LAY_TDP_PAIR, run_tdp_pair_link_once, "tdp-pair, one link per lane, evict-first"},
    {"tdp-elem", BENCH_TDP, LAY_TDP, run_tdp_elem, "one complex element per lane, 36 per site (su3_bench's mapping; fast in an AoS build)"},
#ifdef __CUDACC__
    {"soa", BENCH_NATIVE, LAY_NAT, run_site<256, false>, "SoA, one site per thread, 256 per block (the previous native)"},
    {"soa-t128", BENCH_NATIVE, LAY_NAT, run_site<128, false>, "soa, 128 threads per block"},
    {"soa-t512", BENCH_NATIVE, LAY_NAT, run_site<512, false>, "soa, 512 threads per block"},
    {"soa-cs", BENCH_NATIVE, LAY_NAT, run_site<256, true>, "soa with __ldcs / __stcs (evict first)"},
    {"soa-cs-t512", BENCH_NATIVE, LAY_NAT, run_site<512, true>, "soa-cs, 512 threads per block"},
    {"soa-pad-cs", BENCH_NATIVE, LAY_NAT_PAD, run_site<256, true>, "soa-cs, SoA stride n + pad"},
    {"soa-ilp2-cs", BENCH_NATIVE, LAY_NAT, run_site_ilp2<256, true>, "two sites per thread a block apart, grid-stride, __ldcs / __stcs"},
    {"soa-link", BENCH_NATIVE, LAY_NAT, run_link<256, false>, "4 threads per site, one link each"},
    {"soa-link-cs", BENCH_NATIVE, LAY_NAT, run_link<256, true>, "soa-link with __ldcs / __stcs"},
    {"pair", BENCH_NATIVE, LAY_NAT_PAIR, run_pair<256, false, false>, "SoA of double2 (QUDA's double2 order), one site per thread"},
    {"pair-cs", BENCH_NATIVE, LAY_NAT_PAIR, run_pair<256, true, false>, "pair with __ldcs / __stcs"},
    {"pair-cs-t512", BENCH_NATIVE, LAY_NAT_PAIR, run_pair<512, true, false>, "pair-cs, 512 threads per block"},
    {"pair-link-cs", BENCH_NATIVE, LAY_NAT_PAIR, run_pair<256, true, true>, "pair-cs, 4 threads per site"},
    {"aos36", BENCH_NATIVE, LAY_NAT_AOS, run_aos36, "su3_bench: AoS, 36 threads per site, B in global memory"},
#else
    {"aos-omp", BENCH_NATIVE, LAY_NAT, run_aos_omp, "MILC's AoS, omp parallel for simd"},
#endif
};
#define NVAR ((int) (sizeof(variants) / sizeof(variants[0])))

/* Which variants --variants names (all by default); exits on an unknown one. */
static int pickVariants(const char *list, int *pick) {
  int np = 0;
  if (!list || !strcmp(list, "all")) {
    for (int v = 0; v < NVAR; v++) pick[np++] = v;
    return np;
  }
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", list);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    int found = -1;
    for (int v = 0; v < NVAR; v++)
      if (!strcmp(tok, variants[v].name)) found = v;
    if (found < 0) {
      fprintf(stderr, "su3: no variant '%s' in this build (--list names them)\n", tok);
      exit(2);
    }
    if (np < NVAR + 64) pick[np++] = found;
  }
  return np;
}

/* The host's product, site by site (72 s + c), computed once. */
static void product(double *want, int n, const double *b) {
  BENCH_HOST_PARALLEL_FOR(schedule(static))
  for (int s = 0; s < n; s++) {
    double a[NL];
    for (int e = 0; e < NL; e++) a[e] = aval(s, e);
    for (int j = 0; j < 4; j++) su3MulNN(a + 18 * j, b + 18 * j, want + (size_t) s * NL + 18 * j);
  }
}
/* Every element of C (a host copy, in layout lay) against it. */
static long check(const char *what, int lay, const double *h_C, int n, int nalloc,
                  const double *want) {
  long bad = 0;
  BENCH_HOST_PARALLEL_FOR(reduction(+ : bad) schedule(static))
  for (int s = 0; s < n; s++)
    for (int e = 0; e < NL; e++) {
      const size_t idx = layIndex(lay, n, nalloc, s, e);
      const double w = want[(size_t) s * NL + e];
      if (!(fabs(h_C[idx] - w) <= 1e-13 * (1.0 + fabs(w)))) bad += benchWrong(what, (long) idx, h_C[idx], w);
    }
  return bad;
}

int main(int argc, char **argv) {
  static const char *const known[] = {"--batch=", "--variants=", "--pad=", "--triad-size=", "--list",
                                      NULL};
  benchOptions o = benchParse(argc, argv, "su3", known, DEFAULT_SIZE, usage);
  if (cliFlag(argc, argv, "--list")) {
    for (int v = 0; v < NVAR; v++)
      printf("%-20s %-9s %s\n", variants[v].name, benchImplName[variants[v].impl], variants[v].what);
    return 0;
  }
  const int batch = (int) cliLong(argc, argv, "--batch", 1, 1, 1000);
  const int pad = (int) cliLong(argc, argv, "--pad", DEFAULT_PAD, 0, 1L << 20);
  const long ntriad = cliLong(argc, argv, "--triad-size", DEFAULT_TRIAD, 0, 1L << 30);
  int pick[sizeof(variants) / sizeof(variants[0]) + 64];
  const int nv = pickVariants(cliString(argc, argv, "--variants", "all"), pick);
  targetInit();
  const int n = (int) o.size, nalloc = n + pad, nt = o.reps + 1;
  double b[NL];
  for (int c = 0; c < NL; c++) b[c] = bval(c);
  copyConstToTarget(t_B, b, sizeof(b));
  targetMalloc(&t_Bg, NL * sizeof(double));
  copyToTarget(t_Bg, b, NL * sizeof(double));
  native_setB(b);

  /* One A and C per layout in use, from targetMalloc (cudaMalloc, or
   * 64-byte aligned host memory): what native code would call too. A is
   * filled on the host, padding zero, and copied. */
  double *A[NLAY] = {NULL}, *C[NLAY] = {NULL};
  size_t hmax = 0;
  for (int lay = 0; lay < NLAY; lay++)
    if (layElems(lay, n, nalloc) > hmax) hmax = layElems(lay, n, nalloc);
  if ((size_t) ntriad > hmax) hmax = ntriad; /* the triad's check copies it here too */
  double *h = (double *) malloc(hmax * sizeof(double));
  double *want = (double *) malloc((size_t) n * NL * sizeof(double));
  double *times = (double *) calloc((size_t) (nv + 1) * nt, sizeof(double));
  if (!h || !want || !times) {
    fprintf(stderr, "su3: out of host memory\n");
    return 1;
  }
  for (int iv = 0; iv < nv; iv++) {
    const int lay = variants[pick[iv]].layout;
    if (A[lay]) continue;
    const size_t ne = layElems(lay, n, nalloc);
    targetMalloc(&A[lay], ne * sizeof(double));
    targetMalloc(&C[lay], ne * sizeof(double));
    targetZero(C[lay], ne);
    memset(h, 0, ne * sizeof(double));
    BENCH_HOST_PARALLEL_FOR(schedule(static))
    for (int s = 0; s < n; s++)
      for (int c = 0; c < NL; c++) h[layIndex(lay, n, nalloc, s, c)] = aval(s, c);
    copyToTarget(A[lay], h, ne * sizeof(double));
  }
  double *ta = NULL, *tb = NULL, *tc = NULL;
  if (ntriad > 0) {
    targetMalloc(&ta, ntriad * sizeof(double));
    targetMalloc(&tb, ntriad * sizeof(double));
    targetMalloc(&tc, ntriad * sizeof(double));
    double *hb = (double *) malloc(ntriad * sizeof(double));
    for (long i = 0; i < ntriad; i++) hb[i] = 2.0 * streamWeight(i);
    copyToTarget(tb, hb, ntriad * sizeof(double));
    for (long i = 0; i < ntriad; i++) hb[i] = 0.5 * streamWeight(i);
    copyToTarget(tc, hb, ntriad * sizeof(double));
    free(hb);
  }
  product(want, n, b);
  targetSynchronize();

  /* Each repetition runs every variant (and the triad, last slot), the
   * order rotating by one per repetition; the warm-up's results are
   * checked. */
  const int nslot = nv + (ntriad > 0);
  for (int it = 0; it < nt; it++) {
    for (int jj = 0; jj < nslot; jj++) {
      const int slot = (jj + it) % nslot;
      targetSynchronize();
      nativeSynchronize();
      const double t0 = timerNow();
      if (slot == nv) {
        for (int k = 0; k < batch; k++) run_triad(ta, tb, tc, STREAM_SCALAR, ntriad);
        nativeSynchronize();
        checkTargetError("triad");
      } else {
        const su3Variant *var = &variants[pick[slot]];
        const int na = var->layout == LAY_TDP_PAD || var->layout == LAY_NAT_PAD ? nalloc : n;
        for (int k = 0; k < batch; k++) var->run(A[var->layout], C[var->layout], n, na);
        targetSynchronize();
        checkTargetError(var->name);
      }
      times[(size_t) slot * nt + it] = (timerNow() - t0) / batch;
      if (it > 0) continue;
      if (slot == nv) {
        copyFromTarget(h, ta, ntriad * sizeof(double));
        benchCheckStream("triad native", h, ntriad, 0, 2.0 + STREAM_SCALAR * 0.5, 1e-12);
        continue;
      }
      const su3Variant *var = &variants[pick[slot]];
      const int lay = var->layout;
      if (o.inject_error && slot == 0)
        benchCorrupt(C[lay], layIndex(lay, n, nalloc, n - 1, NL - 1), 0);
      copyFromTarget(h, C[lay], layElems(lay, n, nalloc) * sizeof(double));
      char what[64];
      snprintf(what, sizeof(what), "su3 %s %s", benchImplName[var->impl], var->name);
      check(what, lay, h, n, nalloc, want);
      targetZero(C[lay], layElems(lay, n, nalloc)); /* the next variant on it must write it all */
      targetSynchronize();
    }
  }
  if (benchErrors()) {
    fprintf(stderr, "su3: %ld wrong elements: no timings reported\n", benchErrors());
    return 1;
  }

  benchTiming kt[sizeof(variants) / sizeof(variants[0]) + 64];
  benchStats ks[sizeof(variants) / sizeof(variants[0]) + 64];
  double triad_gbs = 0.0;
  if (ntriad > 0) {
    benchTiming tt = {"Triad", BENCH_NATIVE, ntriad, 3.0 * sizeof(double) * ntriad,
                      times + (size_t) nv * nt, NULL, "1/thread tpb256"};
    benchStats ts = benchSummarise(&tt, o.reps);
    triad_gbs = ts.best_gbs;
    benchCsvRow(&o, "double", &tt, &ts, 100.0);
  }
  int best[2] = {-1, -1};
  for (int iv = 0; iv < nv; iv++) {
    const su3Variant *var = &variants[pick[iv]];
    kt[iv].kernel = "mult_su3_nn";
    kt[iv].impl = var->impl;
    kt[iv].size = n;
    kt[iv].bytes = 2.0 * NL * sizeof(double) * n;
    kt[iv].t = times + (size_t) iv * nt;
    kt[iv].t_ref = NULL;
    kt[iv].variant = var->name;
    ks[iv] = benchSummarise(&kt[iv], o.reps);
    if (best[var->impl] < 0 || ks[iv].best_gbs > ks[best[var->impl]].best_gbs) best[var->impl] = iv;
  }
  printf("# su3: mult_su3_nn, %d sites (%.1f MiB per array), %d timed repetitions after 1 "
         "warm-up, %d call%s per repetition\n",
         n, layElems(LAY_TDP, n, nalloc) * sizeof(double) / 1048576.0, o.reps, batch,
         batch > 1 ? "s" : "");
  benchPrintConfig(stdout, &o);
  printf("# all results validated (every element, 1e-13)\n");
  printf("%-20s %-9s %10s %10s %10s %8s  %s\n", "variant", "impl", "best GB/s", "median",
         "GFLOP/s", "% triad", "layout: what");
  if (ntriad > 0)
    printf("%-20s %-9s %10.2f %10s %10s %8.1f  %ld doubles per array\n", "triad", "native",
           triad_gbs, "", "", 100.0, ntriad);
  for (int iv = 0; iv < nv; iv++) {
    const su3Variant *var = &variants[pick[iv]];
    const double pct = triad_gbs > 0 ? 100.0 * ks[iv].best_gbs / triad_gbs : 0.0;
    printf("%-20s %-9s %10.2f %10.2f %10.2f %8.1f  %s: %s\n", var->name, benchImplName[var->impl],
           ks[iv].best_gbs, ks[iv].median_gbs, 4.0 * 198.0 * n / ks[iv].best_s * 1e-9, pct,
           layName[var->layout], var->what);
    benchCsvRow(&o, "double", &kt[iv], &ks[iv], pct);
  }
  for (int impl = 0; impl < 2; impl++)
    if (best[impl] >= 0)
      printf("best %-8s %-20s %10.2f GB/s best, %10.2f median\n", benchImplName[impl],
             variants[pick[best[impl]]].name, ks[best[impl]].best_gbs, ks[best[impl]].median_gbs);
  if (best[0] >= 0 && best[1] >= 0) {
    /* the two fastest, paired repetition by repetition */
    benchTiming pair = kt[best[BENCH_TDP]];
    pair.t_ref = kt[best[BENCH_NATIVE]].t;
    const benchStats ps = benchSummarise(&pair, o.reps);
    printf("ratio targetDP/native (best variants; best GB/s %.4f, median of paired repetitions "
           "%.4f)\n", ks[best[BENCH_TDP]].best_gbs / ks[best[BENCH_NATIVE]].best_gbs, ps.ratio);
  }
  for (int lay = 0; lay < NLAY; lay++) {
    if (A[lay]) targetFree(A[lay]);
    if (C[lay]) targetFree(C[lay]);
  }
  if (ta) {
    targetFree(ta);
    targetFree(tb);
    targetFree(tc);
  }
  native_done();
  targetFree(t_Bg);
  free(times);
  free(want);
  free(h);
  targetFinalize();
  return 0;
}
