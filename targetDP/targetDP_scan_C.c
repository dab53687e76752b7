/*
 * targetDP_scan_C.c -- prefix sums and stream compaction on the C backend:
 * two passes over fixed blocks. Pass 1 sums each block (in parallel), the
 * block sums are scanned in order on one thread, pass 2 scans each block
 * from its offset (in parallel). The blocks are fixed, not per thread, so
 * a double scan gives the same bits for any thread count.
 *
 * One implementation, instantiated per element type by SCAN_DEFINE. The
 * sums of integer types run in the unsigned type of the same width, so an
 * overflow wraps as it does on the GPU instead of being undefined.
 */
#include <stdlib.h>

#include "targetDP_internal.h"

#define SCAN_BLOCK 8192 /* elements: fixed, so the bits do not depend on the threads */
#define SCAN_WAYS 4      /* blocks scanned side by side by one thread */

/* A prefix sum is a chain of dependent adds (4 cycles each for doubles):
 * one thread scans SCAN_WAYS blocks at once, interleaved, so that the
 * chains overlap and the loop runs at memory speed, not add latency.
 * Pass 1 sums each block with omp simd (the offsets' rounding then differs
 * from a serial scan's, but not between runs or thread counts). */
#define SCAN_STEP_(T, A, acc, in, out, i, mode)  \
  do {                                        \
    A v_ = (A) (in)[i];                       \
    if ((mode) == TDP_SCAN_INCLUSIVE) {       \
      acc += v_;                              \
      (out)[i] = (T) acc;                       \
    } else { /* in may be out: read first */  \
      (out)[i] = (T) acc;                       \
      acc += v_;                              \
    }                                         \
  } while (0)

#define SCAN_DEFINE(T, A, NAME)                                                            \
  static int scan_##NAME(T *out, const T *in, size_t n, tdpScanMode mode, tdpSite at) {    \
    size_t nb = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;                                         \
    A *off = (A *) malloc(nb * sizeof(A));                                                 \
    if (!off) return tdpFail(TARGET_ERROR_MEMORY, at, "no memory for %zu block sums", nb); \
    TDP_OMP_(parallel for schedule(static))                                                \
    for (size_t b = 0; b < nb; b++) {                                                      \
      size_t lo = b * SCAN_BLOCK, hi = lo + SCAN_BLOCK < n ? lo + SCAN_BLOCK : n;          \
      A s = 0;                                                                             \
      TDP_OMP_SIMD_(reduction(+:s))                                                        \
      for (size_t i = lo; i < hi; i++) s += (A) in[i];                                     \
      off[b] = s;                                                                          \
    }                                                                                      \
    A run = 0;                                                                             \
    for (size_t b = 0; b < nb; b++) {                                                      \
      A s = off[b];                                                                        \
      off[b] = run;                                                                        \
      run += s;                                                                            \
    }                                                                                      \
    size_t ng = (nb + SCAN_WAYS - 1) / SCAN_WAYS;                                          \
    TDP_OMP_(parallel for schedule(static))                                                \
    for (size_t g = 0; g < ng; g++) {                                                      \
      size_t b0 = g * SCAN_WAYS, lo = b0 * SCAN_BLOCK;                                     \
      if (lo + SCAN_WAYS * SCAN_BLOCK <= n) { /* SCAN_WAYS full blocks, interleaved */     \
        A a0 = off[b0], a1 = off[b0 + 1], a2 = off[b0 + 2], a3 = off[b0 + 3];              \
        for (size_t j = lo; j < lo + SCAN_BLOCK; j++) {                                    \
          SCAN_STEP_(T, A, a0, in, out, j, mode);                                             \
          SCAN_STEP_(T, A, a1, in, out, j + SCAN_BLOCK, mode);                                \
          SCAN_STEP_(T, A, a2, in, out, j + 2 * SCAN_BLOCK, mode);                            \
          SCAN_STEP_(T, A, a3, in, out, j + 3 * SCAN_BLOCK, mode);                            \
        }                                                                                  \
      } else { /* the last group: block by block */                                        \
        for (size_t b = b0; b < nb && b < b0 + SCAN_WAYS; b++) {                           \
          size_t blo = b * SCAN_BLOCK, bhi = blo + SCAN_BLOCK < n ? blo + SCAN_BLOCK : n;  \
          A acc = off[b];                                                                  \
          for (size_t i = blo; i < bhi; i++) SCAN_STEP_(T, A, acc, in, out, i, mode);         \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
    free(off);                                                                             \
    return TARGET_SUCCESS;                                                                 \
  }

SCAN_DEFINE(int, unsigned int, int)
SCAN_DEFINE(long, unsigned long, long)
SCAN_DEFINE(double, double, double)

int tdpBackendScan(void *t_out, const void *t_in, size_t n, tdpScanType_ type, tdpScanMode mode,
                   tdpSite at) {
  switch (type) {
  case TDP_TYPE_INT: return scan_int((int *) t_out, (const int *) t_in, n, mode, at);
  case TDP_TYPE_LONG: return scan_long((long *) t_out, (const long *) t_in, n, mode, at);
  case TDP_TYPE_DOUBLE: return scan_double((double *) t_out, (const double *) t_in, n, mode, at);
  default: break; /* the common half refuses other types */
  }
  return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "unknown element type %d", (int) type);
}

/* The same two passes, counting set flags, then writing their indices. */
int tdpBackendCompact(long *t_index, size_t *count, const char *t_mask, size_t n, tdpSite at) {
  size_t nb = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
  size_t *off = (size_t *) malloc(nb * sizeof(size_t));
  if (!off) return tdpFail(TARGET_ERROR_MEMORY, at, "no memory for %zu block counts", nb);
  TDP_OMP_(parallel for schedule(static))
  for (size_t b = 0; b < nb; b++) {
    size_t lo = b * SCAN_BLOCK, hi = lo + SCAN_BLOCK < n ? lo + SCAN_BLOCK : n, c = 0;
    TDP_OMP_SIMD_(reduction(+:c))
    for (size_t i = lo; i < hi; i++) c += t_mask[i] != 0;
    off[b] = c;
  }
  size_t run = 0;
  for (size_t b = 0; b < nb; b++) {
    size_t c = off[b];
    off[b] = run;
    run += c;
  }
  TDP_OMP_(parallel for schedule(static))
  for (size_t b = 0; b < nb; b++) {
    size_t lo = b * SCAN_BLOCK, hi = lo + SCAN_BLOCK < n ? lo + SCAN_BLOCK : n, k = off[b];
    for (size_t i = lo; i < hi; i++) {
      if (t_mask[i]) t_index[k++] = (long) i;
    }
  }
  free(off);
  *count = run;
  return TARGET_SUCCESS;
}

void tdpBackendScanFinalize(void) {} /* no scratch kept between calls */
