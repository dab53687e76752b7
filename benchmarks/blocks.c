/*
 * The layer's building blocks beside a plain copy through the layer, in one
 * run: inclusive and exclusive scans of double, long and int arrays,
 * stream compaction (targetCompactIndices) at mask density 1/2 (on CUDA
 * also through the backend's other kernel shapes, TARGETDP_COMPACT=t256r4
 * etc., and CUB's select, TARGETDP_COMPACT=cub, for comparison), and box
 * launches on a cubic lattice with a halo of 1: the whole lattice through
 * TDP_TLP_3D against the same update through the 1-D TDP_TLP, and the
 * interior only through TDP_TLP_3D against a 1-D loop that tests each
 * site's coordinates. The last column is best bandwidth as % of the copy's
 * best (the goal for a scan: >= 80% at 2^27 on the H100).
 *
 * Every result is checked on the host against a serial reference after
 * the warm-up call, before any bandwidth is printed; --inject-error
 * corrupts one element of the double inclusive scan first.
 */
#define _POSIX_C_SOURCE 200809L /* setenv; the value nvcc's headers also set */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "common/timer.h"

#ifdef __CUDACC__
#define DEFAULT_SIZE (1L << 27)
#else
#define DEFAULT_SIZE (1L << 25)
#endif

static const char *const usage =
    "usage: bench_blocks [--size N] [--reps R] [--csv FILE] [--inject-error]\n"
    "  Scans, compaction and 3-D box launches through targetDP, beside a copy.\n"
    "  --size N   elements per array, and about the sites of the lattice (default 2^25 on\n"
    "             the C build, 2^27 on CUDA)\n"
    "  --reps R   timed repetitions after one untimed warm-up (default 20)\n"
    "  --csv FILE append one row per kernel\n";

TDP_KERNEL void bk_copy(double *c, const double *a, long n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) c[base + v] = a[base + v];
  }
}

#define BK_SCALE 1.5

/* b = s * a over a 3-D box, over all sites in 1-D, and over the interior
 * in 1-D with a coordinate test: the same update, three ways. */
TDP_KERNEL void bk_box3d(targetBox box, double *b, const double *a) {
  TDP_TLP_3D(box, x, y, z0, base) {
    TDP_ILP(v) b[base + v] = BK_SCALE * a[base + v];
  }
}

TDP_KERNEL void bk_flat(double *b, const double *a, long n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) b[base + v] = BK_SCALE * a[base + v];
  }
}

TDP_KERNEL void bk_flat_test(double *b, const double *a, long L, long n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      long s = base + v, z = s % L, y = (s / L) % L, x = s / (L * L);
      if (x > 0 && x < L - 1 && y > 0 && y < L - 1 && z > 0 && z < L - 1)
        b[s] = BK_SCALE * a[s];
    }
  }
}

/* The compaction rows run from K_COMPACT (TARGETDP_COMPACT unset: the
 * default kernel) to K_COMPACT_CUB; compact_env gives each row's value. */
enum { K_COPY, K_SCAN_ID, K_SCAN_ED, K_SCAN_IL, K_SCAN_EL, K_SCAN_II, K_SCAN_EI, K_COMPACT,
       K_COMPACT_T256R4, K_COMPACT_T256R2, K_COMPACT_V2, K_COMPACT_V2CS, K_COMPACT_T512R2,
       K_COMPACT_CUB, K_FLAT, K_BOX_ALL, K_FLAT_TEST, K_BOX_INT, NK };
static const char *const kname[NK] = {
    "Copy",           "ScanInclDouble",    "ScanExclDouble",  "ScanInclLong",
    "ScanExclLong",   "ScanInclInt",       "ScanExclInt",     "CompactIdx",
    "CompactIdxT256r4", "CompactIdxT256r2", "CompactIdxV2",   "CompactIdxV2cs",
    "CompactIdxT512r2", "CompactIdxCUB", "Flat1D",          "Box3D",
    "Interior1DTest", "Interior3D"};
#define IS_COMPACT(k) ((k) >= K_COMPACT && (k) <= K_COMPACT_CUB)
static const char *const compact_env[K_COMPACT_CUB - K_COMPACT + 1] = {
    NULL, "t256r4", "t256r2", "t512r2v2", "t512r2v2cs", "t512r2", "cub"};

/* Input of the scans: small integers, so every prefix sum is exact in all
 * three types and the reference is exact too. */
static int scan_input(long i) { return (int) (i % 7) - 3 + (i % 5 == 0); }
static int mask_at(long i) { return ((i * 2654435761UL) >> 7) & 1; }

int main(int argc, char **argv) {
  static const char *const known[] = {NULL};
  benchOptions o = benchParse(argc, argv, "blocks", known, DEFAULT_SIZE, usage);
  targetInit();
  const long n = o.size, nt = o.reps + 1;
  long L = 1;
  while ((L + 1) * (L + 1) * (L + 1) <= n) L++;
  const long nsites = L * L * L;
  if (L < 3) {
    fprintf(stderr, "blocks: --size %ld: need 27 or more for a lattice with a halo\n", n);
    return 2;
  }

  /* target arrays, each of n 8-byte elements (doubles, longs or ints) */
  void *t_a = NULL, *t_b = NULL;
  char *t_mask = NULL;
  long *t_idx = NULL;
  targetMalloc(&t_a, n * sizeof(double));
  targetMalloc(&t_b, n * sizeof(double));
  targetMalloc(&t_mask, n);
  targetMalloc(&t_idx, n * sizeof(long));
  void *h = malloc(n * sizeof(double)), *h2 = malloc(n * sizeof(double));
  char *mask = (char *) malloc(n);
  double *times = (double *) calloc((size_t) NK * nt, sizeof(double));
  if (!h || !h2 || !mask || !times) {
    fprintf(stderr, "blocks: out of host memory\n");
    return 1;
  }
  for (long i = 0; i < n; i++) mask[i] = (char) mask_at(i);
  copyToTarget(t_mask, mask, n);
  targetBox all, interior;
  const long ext[3] = {L, L, L};
  targetBoxAll(&all, 3, ext);
  targetBoxInterior(&interior, 3, ext, 1);
  const long ninterior = targetBoxSites(&interior);

  double bytes[NK];
  char what[128];
  for (int k = 0; k < NK; k++) {
    double *hd = (double *) h, *hd2 = (double *) h2;
    long *hl = (long *) h, *hl2 = (long *) h2;
    int *hi = (int *) h, *hi2 = (int *) h2;
    int is_scan = k >= K_SCAN_ID && k <= K_SCAN_EI, excl = is_scan && (k - K_SCAN_ID) % 2;
    int type = k <= K_SCAN_ED ? 0 : k <= K_SCAN_EL ? 1 : 2; /* double, long, int */
    size_t esize = is_scan && type == 2 ? sizeof(int) : 8;
    /* inputs: a holds the scan input in the kernel's type, or doubles */
    for (long i = 0; i < n; i++) {
      if (is_scan && type == 1) hl[i] = scan_input(i);
      else if (is_scan && type == 2) hi[i] = scan_input(i);
      else hd[i] = is_scan ? scan_input(i) : 1.0 + (double) (i % 1000) / 1000.0;
    }
    copyToTarget(t_a, h, n * esize);
    targetSetConstant((double *) t_b, -1.0, n); /* untouched sites stay -1 */
    /* the compaction rows share t_idx: none may pass on the row before's indices */
    if (IS_COMPACT(k)) targetSetConstantLong(t_idx, -1, n);
    targetSynchronize();
    long count_want = 0;
    size_t count = 0;
    for (int it = 0; it < nt; it++) {
      double t0 = timerNow();
      switch (k) {
      case K_COPY: TDP_LAUNCH(bk_copy, n, (double *) t_b, (const double *) t_a, n); break;
      /* t_a, t_b: typeless buffers, typed per row (C++ and CUDA need the cast) */
      case K_SCAN_ID: targetScanInclusiveDouble((double *) t_b, (const double *) t_a, n); break;
      case K_SCAN_ED: targetScanExclusiveDouble((double *) t_b, (const double *) t_a, n); break;
      case K_SCAN_IL: targetScanInclusiveLong((long *) t_b, (const long *) t_a, n); break;
      case K_SCAN_EL: targetScanExclusiveLong((long *) t_b, (const long *) t_a, n); break;
      case K_SCAN_II: targetScanInclusiveInt((int *) t_b, (const int *) t_a, n); break;
      case K_SCAN_EI: targetScanExclusiveInt((int *) t_b, (const int *) t_a, n); break;
      case K_COMPACT: targetCompactIndices(t_idx, &count, t_mask, n); break;
      case K_COMPACT_T256R4:
      case K_COMPACT_T256R2:
      case K_COMPACT_V2:
      case K_COMPACT_V2CS:
      case K_COMPACT_T512R2:
      case K_COMPACT_CUB: /* the C backend ignores the variable: CompactIdx again */
        setenv("TARGETDP_COMPACT", compact_env[k - K_COMPACT], 1);
        targetCompactIndices(t_idx, &count, t_mask, n);
        unsetenv("TARGETDP_COMPACT");
        break;
      case K_FLAT: TDP_LAUNCH(bk_flat, nsites, (double *) t_b, (const double *) t_a, nsites); break;
      case K_BOX_ALL: TDP_LAUNCH_BOX(bk_box3d, all, (double *) t_b, (const double *) t_a); break;
      case K_FLAT_TEST:
        TDP_LAUNCH(bk_flat_test, nsites, (double *) t_b, (const double *) t_a, L, nsites);
        break;
      case K_BOX_INT:
        TDP_LAUNCH_BOX(bk_box3d, interior, (double *) t_b, (const double *) t_a);
        break;
      }
      targetSynchronize();
      times[(size_t) k * nt + it] = timerNow() - t0;
      if (it > 0) continue;
      /* validate the warm-up call's result */
      snprintf(what, sizeof(what), "%s targetDP", kname[k]);
      if (o.inject_error && k == K_SCAN_ID) benchCorrupt(t_b, n - 1, 0);
      if (IS_COMPACT(k)) {
        for (long i = 0; i < n; i++) count_want += mask[i] != 0;
        if ((long) count != count_want) benchWrong(what, -1, (double) count, count_want);
        else if (count > 0) copyFromTarget(h2, t_idx, count * sizeof(long));
        long j = 0;
        for (long i = 0; i < n && (long) count == count_want; i++) {
          if (mask[i] && hl2[j] != i) benchWrong(what, j, (double) hl2[j], (double) i);
          j += mask[i] != 0;
        }
        continue;
      }
      copyFromTarget(h2, t_b, n * esize);
      long acc = 0;
      for (long i = 0; i < n; i++) {
        double got, want;
        if (is_scan) {
          long prev = acc;
          acc += scan_input(i);
          want = (double) (excl ? prev : acc);
          got = type == 0 ? hd2[i] : type == 1 ? (double) hl2[i] : (double) hi2[i];
        } else if (k == K_COPY) {
          got = hd2[i], want = hd[i];
        } else {
          int in = i < nsites;
          if (in && (k == K_FLAT_TEST || k == K_BOX_INT)) {
            long z = i % L, y = (i / L) % L, x = i / (L * L);
            in = x > 0 && x < L - 1 && y > 0 && y < L - 1 && z > 0 && z < L - 1;
          }
          got = hd2[i], want = in ? BK_SCALE * hd[i] : -1.0;
        }
        if (got != want) benchWrong(what, i, got, want);
      }
    }
    double moved = (is_scan ? 2.0 * esize * n
                    : k == K_COPY ? 16.0 * n
                    : IS_COMPACT(k) ? (double) n + 8.0 * count_want
                    : k == K_FLAT || k == K_BOX_ALL ? 16.0 * nsites
                    : 16.0 * ninterior);
    bytes[k] = moved;
  }

  int wrong = benchErrors() != 0;
  if (wrong) {
    fprintf(stderr, "blocks: %ld wrong results: no bandwidth reported\n", benchErrors());
  } else {
    printf("# blocks: %ld elements per array; lattice %ld^3 (%ld sites, %ld interior), %d timed "
           "repetitions after 1 warm-up\n", n, L, nsites, ninterior, o.reps);
    benchPrintConfig(stdout, &o);
    printf("# all results validated (exact)\n");
    printf("%-18s %10s %10s %9s\n", "kernel", "best GB/s", "median", "% of Copy");
    benchStats st[NK];
    for (int k = 0; k < NK; k++) {
      benchTiming t;
      t.kernel = kname[k];
      t.impl = BENCH_TDP;
      t.size = k >= K_FLAT ? nsites : n;
      t.bytes = bytes[k];
      t.t = times + (size_t) k * nt;
      t.t_ref = NULL;
      t.variant = NULL;
      st[k] = benchSummarise(&t, o.reps);
      double pct = 100.0 * st[k].best_gbs / st[K_COPY].best_gbs;
      printf("%-18s %10.2f %10.2f %9.1f\n", kname[k], st[k].best_gbs, st[k].median_gbs, pct);
      benchCsvRow(&o, k >= K_SCAN_IL && k <= K_SCAN_EL ? "long"
                      : k >= K_SCAN_II && k <= K_SCAN_EI ? "int" : "double",
                  &t, &st[k], pct);
    }
    printf("# bytes: scans read and write n elements, CompactIdx reads the mask and writes the "
           "indices, the box kernels move 16 B per site updated; %% of Copy: best / Copy's best\n");
  }
  targetFree(t_a);
  targetFree(t_b);
  targetFree(t_mask);
  targetFree(t_idx);
  free(h);
  free(h2);
  free(mask);
  free(times);
  targetFinalize();
  return wrong;
}
