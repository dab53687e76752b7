/*
 * targetDP_exact_C.c -- the C backend's exact sums of float and double
 * arrays (targetDoubleSum, targetFloatSum, their complex and Exact forms;
 * targetDP_exact.h says why and how).
 *
 * Each OpenMP thread sums a contiguous run of blocks in XL lanes (SIMD
 * width and then some: independent TwoSum chains, so the adds' latency is
 * hidden), each lane a two-term expansion hi + lo. A block of XB strides
 * runs without a branch, noting in `bad` any lane whose second TwoSum left
 * an error (or a NaN or Inf); such a block (rare: a summand 2^52 below the
 * lane's sum, or finer than its lo) is run again from its start one summand
 * at a time, depositing those summands into the thread's digits. At the
 * end every lane's hi and lo go to the digits, and the threads' digits are
 * added: the same integers whatever the thread count, so the same result.
 * Lane l of a block takes components l % ncomp (blocks start at multiples
 * of XL), so a complex array is summed in one pass.
 */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "targetDP_internal.h"

#define XL 16  /* lanes: two AVX-512 or four AVX2 vectors of doubles */
#define XB 128 /* strides per block: 2048 summands between branches (16: 1.3x slower) */
/* The loop is bound by its additions, not by memory (in L2, one thread
 * of this 2-core Xeon: 10.6 GB/s in AVX2 vectors, 15.5 in AVX-512 ones,
 * beside a plain sum's 19-21; memory gives 11 a core): gcc's preference
 * for 256-bit vectors on AVX-512 CPUs (frequency) is the wrong trade here.
 * clang has no such attribute and keeps its choice. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#define XWIDE_ __attribute__((target("prefer-vector-width=512")))
#else
#define XWIDE_
#endif

/* One summand into lane (h, l) exactly, or into the digits. */
static inline void xstep(double *h, double *l, double x, tdpExactSum *digits) {
  const double s = *h + x, bb = s - *h, e = (*h - (s - bb)) + (x - bb);
  const double t = *l + e;
  if (t - *l == e && t - e == *l) { /* exact (tdpExactAdd says why) */
    *h = s;
    *l = t;
  } else {
    tdpExactSumAdd(digits, x);
  }
}

/* The sum of a[lo, hi) (flat indices, lo a multiple of XL) into acc[k %
 * ncomp], for one element type. One implementation, generated per type. */
#define XSUM_RANGE_(NAME, T)                                                                \
  static XWIDE_ void NAME(const T *a, size_t lo, size_t hi, int ncomp, tdpExactSum *acc) {  \
    double s[XL], c[XL];                                                                    \
    for (int l = 0; l < XL; l++) s[l] = c[l] = 0.0;                                         \
    size_t k = lo;                                                                          \
    for (; k + XL * XB <= hi; k += XL * XB) {                                               \
      double s0[XL], c0[XL];                                                                \
      long bad[XL];                                                                         \
      for (int l = 0; l < XL; l++) {                                                        \
        s0[l] = s[l];                                                                       \
        c0[l] = c[l];                                                                       \
        bad[l] = 0;                                                                         \
      }                                                                                     \
      for (int j = 0; j < XB; j++) {                                                        \
        const T *x = a + k + (size_t) j * XL;                                               \
        TDP_OMP_SIMD_()                                                                     \
        for (int l = 0; l < XL; l++) {                                                      \
          const double xv = (double) x[l];                                                  \
          const double sn = s[l] + xv, bb = sn - s[l], e = (s[l] - (sn - bb)) + (xv - bb);  \
          const double cn = c[l] + e;                                                       \
          bad[l] |= (cn - c[l] != e) | (cn - e != c[l]);                                    \
          s[l] = sn;                                                                        \
          c[l] = cn;                                                                        \
        }                                                                                   \
      }                                                                                     \
      long any = 0;                                                                         \
      for (int l = 0; l < XL; l++) any |= bad[l];                                           \
      if (any) { /* again, one summand at a time */                                         \
        for (int l = 0; l < XL; l++) {                                                      \
          s[l] = s0[l];                                                                     \
          c[l] = c0[l];                                                                     \
        }                                                                                   \
        for (int j = 0; j < XB; j++)                                                        \
          for (int l = 0; l < XL; l++)                                                      \
            xstep(&s[l], &c[l], (double) a[k + (size_t) j * XL + l], &acc[l % ncomp]);      \
      }                                                                                     \
      /* hi + lo again with |lo| <= ulp(hi) / 2 (TwoSum: exact; kept if finite), so lo    \
       * does not grow into the range where it rounds */                                   \
      for (int l = 0; l < XL; l++) {                                                        \
        const double sn = s[l] + c[l], bb = sn - s[l];                                      \
        const double cn = (s[l] - (sn - bb)) + (c[l] - bb);                                 \
        const int fin = sn - sn == 0.0;                                                     \
        s[l] = fin ? sn : s[l];                                                             \
        c[l] = fin ? cn : c[l];                                                             \
      }                                                                                     \
    }                                                                                       \
    for (; k < hi; k++) {                                                                   \
      const size_t l = (k - lo) % XL;                                                       \
      xstep(&s[l], &c[l], (double) a[k], &acc[l % ncomp]);                                  \
    }                                                                                       \
    for (int l = 0; l < XL; l++) {                                                          \
      tdpExactSumAdd(&acc[l % ncomp], s[l]);                                                \
      tdpExactSumAdd(&acc[l % ncomp], c[l]);                                                \
    }                                                                                       \
  }
XSUM_RANGE_(xsum_double, double)
XSUM_RANGE_(xsum_float, float)

int tdpBackendExactSum(tdpExactSum *res, const void *t_a, size_t n, int ncomp, tdpType type,
                       tdpSite at) {
  const size_t nflat = n * (size_t) ncomp, nblk = nflat / (XL * XB);
  int failed = 0;
  TDP_OMP_(parallel)
  {
    int nt = 1, id = 0;
#ifdef _OPENMP
    nt = omp_get_num_threads();
    id = omp_get_thread_num();
#endif
    /* thread id: blocks [nblk id / nt, nblk (id + 1) / nt), the last also the tail */
    const size_t lo = nblk * id / nt * (XL * XB);
    const size_t hi = id == nt - 1 ? nflat : nblk * (id + 1) / nt * (XL * XB);
    tdpExactSum *acc = (tdpExactSum *) calloc(2, sizeof(tdpExactSum));
    if (!acc) {
      TDP_OMP_(atomic write)
      failed = 1;
    } else {
      if (type == TDP_TYPE_FLOAT) xsum_float((const float *) t_a, lo, hi, ncomp, acc);
      else xsum_double((const double *) t_a, lo, hi, ncomp, acc);
      TDP_OMP_(critical(tdp_exact_sum_))
      for (int c = 0; c < ncomp; c++) tdpExactSumMerge(&res[c], &acc[c]);
      free(acc);
    }
  }
  if (failed) return tdpFail(TARGET_ERROR_MEMORY, at, "no memory for the partial sums");
  for (int c = 0; c < ncomp; c++) tdpExactNormalise_(&res[c]);
  return TARGET_SUCCESS;
}
