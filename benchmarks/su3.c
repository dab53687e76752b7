/*
 * MILC's mult_su3_nn pattern (su3_bench): for every site i and direction
 * j = 0..3, C[i].link[j] = A[i].link[j] x B[j], complex 3x3 matrices in
 * double precision; B is 4 matrices shared by all sites. Through targetDP
 * (A and C addressed by TDP_INDEX, so the build's layout; B in TDP_CONST)
 * beside a native version (plain CUDA kernel on SoA, or an "omp parallel
 * for simd" loop on AoS; B in __constant__ / a local copy), in one binary and
 * one run, alternating which goes first. Both results are checked against
 * the host's product at every element before any bandwidth is printed.
 *
 * Bytes per site: A read, C written, 2 x 4 x 18 doubles = 1152 (B stays in
 * cache). Flops per site: 4 x 198 (27 complex multiplies, 18 adds).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "common/timer.h"

#define NL 72 /* 4 links x 9 complex */

#ifdef __CUDACC__
#define DEFAULT_SIZE (1L << 20) /* 32^4 sites: 604 MB per array */
#else
#define DEFAULT_SIZE (1L << 18)
#endif

static const char *const usage =
    "usage: bench_su3 [--size SITES] [--reps R] [--csv FILE]\n"
    "  C[i].link[j] = A[i].link[j] x B[j] (MILC's mult_su3_nn), targetDP and native.\n"
    "  --size N   lattice sites (default 2^20 = 32^4 on CUDA, 2^18 on the C build)\n"
    "  --reps R   timed repetitions after one untimed warm-up (default 20)\n";

/* Exactly representable inputs, distinct per element. */
static TDP_HOST_DEVICE double aval(long i, int c) {
  return (double) ((i * 7 + c * 3) % 17 - 8) / 8.0;
}
static double bval(int c) {
  return (double) ((c * 5) % 13 - 6) / 4.0;
}

/* ---------------------------------------------------------------- targetDP */

TDP_CONST double t_B[NL];

TDP_KERNEL void tdp_init(double *A, int n) {
  TDP_TLP(base, n) {
    for (int c = 0; c < NL; c++) {
      TDP_ILP(v) A[TDP_VINDEX(n, NL, base, c, v)] = aval(base + v, c);
    }
  }
}

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

/* ---------------------------------------------------------------- native
 * As one would write it by hand for each machine: SoA on the GPU (a
 * warp's loads coalesce), MILC's own AoS on a CPU (a site's 4 links are
 * 576 contiguous bytes; SoA there means 144 streams a lattice apart). */
#ifdef __CUDACC__
#define NAT_IDX(n, s, c) ((size_t) (c) * (size_t) (n) + (size_t) (s))
#else
#define NAT_IDX(n, s, c) ((size_t) (s) *NL + (size_t) (c))
#endif

#ifdef __CUDACC__
__constant__ double nat_B[NL];

__global__ void nat_init(double *A, int n) {
  for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < n; s += gridDim.x * blockDim.x)
    for (int c = 0; c < NL; c++) A[NAT_IDX(n, s, c)] = aval(s, c);
}

__global__ void __launch_bounds__(256)
    nat_su3(const double *__restrict__ A, double *__restrict__ C, int n) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    double a[18];
#pragma unroll
    for (int c = 0; c < 18; c++) a[c] = A[NAT_IDX(n, s, 18 * j + c)];
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
      for (int k = 0; k < 3; k++) {
        double re = 0.0, im = 0.0;
#pragma unroll
        for (int l = 0; l < 3; l++) {
          const double ar = a[2 * (3 * i + l)], ai = a[2 * (3 * i + l) + 1];
          const double br = nat_B[18 * j + 2 * (3 * l + k)],
                       bi = nat_B[18 * j + 2 * (3 * l + k) + 1];
          re += ar * br - ai * bi;
          im += ar * bi + ai * br;
        }
        C[NAT_IDX(n, s, 18 * j + 2 * (3 * i + k))] = re;
        C[NAT_IDX(n, s, 18 * j + 2 * (3 * i + k) + 1)] = im;
      }
  }
}

static void native_setB(const double *b) {
  cudaMemcpyToSymbol(nat_B, b, NL * sizeof(double));
}
static void native_init(double *A, int n) {
  nat_init<<<(n + 255) / 256, 256>>>(A, n);
}
static void native_su3(const double *A, double *C, int n, const double *b) {
  (void) b;
  nat_su3<<<(n + 255) / 256, 256>>>(A, C, n);
}
#else
static void native_setB(const double *b) {
  (void) b;
}
static void native_init(double *A, int n) {
  BENCH_HOST_PARALLEL_FOR(schedule(static))
  for (int s = 0; s < n; s++)
    for (int c = 0; c < NL; c++) A[NAT_IDX(n, s, c)] = aval(s, c);
}
static void native_su3(const double *restrict A, double *restrict C, int n, const double *b) {
  double B[NL];
  for (int c = 0; c < NL; c++) B[c] = b[c];
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
  for (int s = 0; s < n; s++) {
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
          double re = 0.0, im = 0.0;
          for (int l = 0; l < 3; l++) {
            const double ar = A[NAT_IDX(n, s, 18 * j + 2 * (3 * i + l))];
            const double ai = A[NAT_IDX(n, s, 18 * j + 2 * (3 * i + l) + 1)];
            const double br = B[18 * j + 2 * (3 * l + k)], bi = B[18 * j + 2 * (3 * l + k) + 1];
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
          }
          C[NAT_IDX(n, s, 18 * j + 2 * (3 * i + k))] = re;
          C[NAT_IDX(n, s, 18 * j + 2 * (3 * i + k) + 1)] = im;
        }
  }
}
#endif

/* Every element of C (copied to the host) against the host's product. */
static long check(int impl, const double *h_C, int n, const double *b) {
  long bad = 0;
  BENCH_HOST_PARALLEL_FOR(reduction(+ : bad) schedule(static))
  for (int s = 0; s < n; s++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
          double re = 0.0, im = 0.0;
          for (int l = 0; l < 3; l++) {
            const double ar = aval(s, 18 * j + 2 * (3 * i + l)),
                         ai = aval(s, 18 * j + 2 * (3 * i + l) + 1);
            const double br = b[18 * j + 2 * (3 * l + k)], bi = b[18 * j + 2 * (3 * l + k) + 1];
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
          }
          for (int r = 0; r < 2; r++) {
            const int c = 18 * j + 2 * (3 * i + k) + r;
            const size_t idx = impl == BENCH_TDP ? TDP_INDEX(n, NL, s, c) : NAT_IDX(n, s, c);
            const double want = r ? im : re;
            if (!(fabs(h_C[idx] - want) <= 1e-13 * (1.0 + fabs(want))))
              bad += benchWrong(impl == BENCH_TDP ? "su3 targetDP" : "su3 native", (long) idx,
                                h_C[idx], want);
          }
        }
  return bad;
}

int main(int argc, char **argv) {
  benchOptions o = benchParse(argc, argv, "su3", NULL, DEFAULT_SIZE, usage);
  targetInit();
  const int n = (int) o.size, nt = o.reps + 1;
  double b[NL];
  for (int c = 0; c < NL; c++) b[c] = bval(c);
  copyConstToTarget(t_B, b, sizeof(b));
  native_setB(b);

  /* Both implementations' arrays from targetMalloc (cudaMalloc, or 64-byte
   * aligned host memory): what native code would call too. */
  const size_t bytes = TDP_FIELD_SIZE(n, NL) * sizeof(double);
  double *A[2], *C[2];
  for (int impl = 0; impl < 2; impl++) {
    targetMalloc(&A[impl], bytes);
    targetMalloc(&C[impl], bytes);
    targetZero(C[impl], bytes / sizeof(double));
  }
  TDP_LAUNCH(tdp_init, n, A[BENCH_TDP], n);
  native_init(A[BENCH_NATIVE], n);
  targetSynchronize();
  double *times = (double *) calloc(2 * (size_t) nt, sizeof(double));
  double *h_C = (double *) malloc(bytes);
  if (!times || !h_C) {
    fprintf(stderr, "su3: out of host memory\n");
    return 1;
  }

  long bad = 0;
  for (int it = 0; it < nt; it++) {
    for (int jj = 0; jj < 2; jj++) {
      const int impl = it % 2 ? 1 - jj : jj;
      targetSynchronize();
      nativeSynchronize();
      const double t0 = timerNow();
      if (impl == BENCH_TDP) {
        TDP_LAUNCH(tdp_su3, n, A[impl], C[impl], n);
        targetSynchronize();
      } else {
        native_su3(A[impl], C[impl], n, b);
        nativeSynchronize();
        checkTargetError("native su3");
      }
      times[(size_t) impl * nt + it] = timerNow() - t0;
      if (it == 0) { /* validate the warm-up's result, both implementations */
        if (o.inject_error && impl == BENCH_TDP)
          benchCorrupt(C[impl], TDP_INDEX(n, NL, n - 1, NL - 1), 0);
        copyFromTarget(h_C, C[impl], bytes);
        bad += check(impl, h_C, n, b);
      }
    }
  }
  if (bad) {
    fprintf(stderr, "su3: %ld wrong elements: no timings reported\n", bad);
    return 1;
  }

  benchTiming kt[2];
  benchStats ks[2];
  for (int impl = 0; impl < 2; impl++) {
    kt[impl].kernel = "mult_su3_nn";
    kt[impl].impl = impl;
    kt[impl].size = n;
    kt[impl].bytes = 2.0 * NL * sizeof(double) * n;
    kt[impl].t = times + (size_t) impl * nt;
    kt[impl].t_ref = impl == BENCH_TDP ? times : NULL;
    kt[impl].variant = NULL;
    ks[impl] = benchSummarise(&kt[impl], o.reps);
    benchCsvRow(&o, "double", &kt[impl], &ks[impl], 0.0);
  }
  printf(
      "# su3: mult_su3_nn, %d sites (%.1f MiB per array), %d timed repetitions after 1 warm-up\n",
      n, bytes / 1048576.0, o.reps);
  benchPrintConfig(stdout, &o);
  printf("# all results validated (every element, 1e-13)\n");
  printf("%-9s %10s %10s %10s %10s\n", "impl", "best GB/s", "median", "GFLOP/s", "tdp/native");
  for (int impl = 0; impl < 2; impl++)
    printf("%-9s %10.2f %10.2f %10.2f %10s\n", benchImplName[impl], ks[impl].best_gbs,
           ks[impl].median_gbs, 4.0 * 198.0 * n / ks[impl].best_s * 1e-9, "");
  printf("ratio targetDP/native (median of paired repetitions): %.4f\n", ks[BENCH_TDP].ratio);
  for (int impl = 0; impl < 2; impl++) {
    targetFree(A[impl]);
    targetFree(C[impl]);
  }
  free(times);
  free(h_C);
  targetFinalize();
  return 0;
}
