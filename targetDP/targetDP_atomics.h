/*
 * targetDP_atomics.h -- atomics for target code: targetAtomic{Add,Min,Max,
 * Exch,CAS,CompareExchange}{Int,Long,Float,Double} (docs/api.md,
 * "Atomics"), each backend's primitives and the four typed sets generated
 * from one macro per backend (CompareExchange: one macro for both).
 * Included by targetDP.h after the backend sections (qualifiers, loops,
 * launch, block reductions), not a header to include on its own. It may
 * use what targetDP.h defines before that point: TDP_OMP_ and the NaN tests
 * tdpIsNan<Type>_ on the C backend, and on CUDA tdpReduceOp and the bit
 * casts and compare-and-swap loop of the block reductions (tdpBits_,
 * tdpFromBits_, tdpAtomicCas_). It defines nothing else that targetDP.h uses.
 */
#ifndef TARGETDP_H
#error "targetDP_atomics.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_ATOMICS_H
#define TARGETDP_ATOMICS_H

#ifdef __CUDACC__

/* Atomics for target code (docs/api.md, "Atomics"): each returns the value
 * the location held before. The primitives map each type to the hardware
 * atomic (long through its 64-bit twin); float and double min/max go
 * through the compare-and-swap loop of the block reductions (targetDP.h,
 * which keeps a NaN), and a float/double compare-and-swap is atomicCAS on
 * the bits: it compares bits, as C++'s compare_exchange does, so a
 * location holding a NaN matches the same NaN (comparing values, NaN ==
 * NaN is false, and a CAS loop never ended there: issue 25 item 7). */
static __device__ inline int tdpAtomicAddN_(int *t, int v) { return atomicAdd(t, v); }
static __device__ inline long tdpAtomicAddN_(long *t, long v) {
  return (long) atomicAdd((unsigned long long *) t, (unsigned long long) v);
}
static __device__ inline float tdpAtomicAddN_(float *t, float v) { return atomicAdd(t, v); }
static __device__ inline double tdpAtomicAddN_(double *t, double v) { return atomicAdd(t, v); }
static __device__ inline int tdpAtomicExchN_(int *t, int v) { return atomicExch(t, v); }
static __device__ inline long tdpAtomicExchN_(long *t, long v) {
  return (long) atomicExch((unsigned long long *) t, (unsigned long long) v);
}
static __device__ inline float tdpAtomicExchN_(float *t, float v) { return atomicExch(t, v); }
static __device__ inline double tdpAtomicExchN_(double *t, double v) {
  return tdpFromBits_(atomicExch((unsigned long long *) t, tdpBits_(v)), v);
}
template <tdpReduceOp op> static __device__ inline int tdpAtomicMinMaxN_(int *t, int v) {
  return op == TDP_MIN ? atomicMin(t, v) : atomicMax(t, v);
}
template <tdpReduceOp op> static __device__ inline long tdpAtomicMinMaxN_(long *t, long v) {
  return (long) (op == TDP_MIN ? atomicMin((long long *) t, (long long) v)
                               : atomicMax((long long *) t, (long long) v));
}
template <tdpReduceOp op> static __device__ inline float tdpAtomicMinMaxN_(float *t, float v) {
  return tdpAtomicCas_<op>(t, v);
}
template <tdpReduceOp op> static __device__ inline double tdpAtomicMinMaxN_(double *t, double v) {
  return tdpAtomicCas_<op>(t, v);
}
static __device__ inline int tdpAtomicCasN_(int *t, int e, int d) { return atomicCAS(t, e, d); }
static __device__ inline long tdpAtomicCasN_(long *t, long e, long d) {
  return (long) atomicCAS((unsigned long long *) t, (unsigned long long) e,
                          (unsigned long long) d);
}
template <typename T> static __device__ inline T tdpAtomicCasBits_(T *t, T e, T d) {
  typedef decltype(tdpBits_(e)) Bits;
  return tdpFromBits_(atomicCAS((Bits *) t, tdpBits_(e), tdpBits_(d)), e);
}
static __device__ inline float tdpAtomicCasN_(float *t, float e, float d) {
  return tdpAtomicCasBits_(t, e, d);
}
static __device__ inline double tdpAtomicCasN_(double *t, double e, double d) {
  return tdpAtomicCasBits_(t, e, d);
}
/* Same bits (the success test of a compare-and-swap). */
static __device__ inline int tdpSameBitsInt_(int a, int b) { return a == b; }
static __device__ inline int tdpSameBitsLong_(long a, long b) { return a == b; }
static __device__ inline int tdpSameBitsFloat_(float a, float b) { return tdpBits_(a) == tdpBits_(b); }
static __device__ inline int tdpSameBitsDouble_(double a, double b) {
  return tdpBits_(a) == tdpBits_(b);
}
#define TDP_ATOMICS_(Name, T)                                                               \
  static __device__ inline T targetAtomicAdd##Name(T *t, T v) { return tdpAtomicAddN_(t, v); } \
  static __device__ inline T targetAtomicMin##Name(T *t, T v) {                             \
    return tdpAtomicMinMaxN_<TDP_MIN>(t, v);                                                \
  }                                                                                         \
  static __device__ inline T targetAtomicMax##Name(T *t, T v) {                             \
    return tdpAtomicMinMaxN_<TDP_MAX>(t, v);                                                \
  }                                                                                         \
  static __device__ inline T targetAtomicExch##Name(T *t, T v) { return tdpAtomicExchN_(t, v); } \
  static __device__ inline T targetAtomicCAS##Name(T *t, T expected, T desired) {           \
    return tdpAtomicCasN_(t, expected, desired);                                            \
  }

#else /* C backend */

/* Atomics for target code (docs/api.md, "Atomics"): each returns the value
 * the location held before. Add and exchange are omp atomic capture;
 * compare-and-swap is the compilers' __atomic_compare_exchange (the
 * lock-free instruction that omp atomic compiles to) where OpenMP 5.1 omp
 * atomic compare is there too (gcc >= 12, clang >= 16, or any compiler
 * announcing OpenMP 5.1), so that the two mechanisms are known to agree.
 * Elsewhere (clang 14 of the dev box) all of them take one named critical
 * section instead: a critical section excludes only other critical
 * sections, so an atomic add beside a critical min on the same location
 * would race; one mechanism for all of them keeps them exclusive.
 * A compare-and-swap compares bits (omp atomic compare can only compare
 * values, and NaN == NaN is false: a CAS loop on a NaN never ended; issue
 * 25 item 7). Min and max are a compare-and-swap loop, as on CUDA (x86 has
 * no atomic min: omp atomic compare is such a loop too), which keeps a
 * NaN: gcc 12's omp atomic compare `if (v < x) x = v` replaced a stored NaN
 * by v. */
#include <string.h> /* memcmp */
#if defined(_OPENMP) &&                                                          \
    (_OPENMP >= 202011 || (defined(__clang__) && __clang_major__ >= 16) ||       \
     (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 12))
#define TDP_ATOMIC_CAPTURE_ TDP_OMP_(atomic capture)
#define TDP_ATOMIC_COMPARE_ TDP_OMP_(atomic compare capture)
#define TDP_ATOMIC_CAS_BUILTIN_ 1
#else
#define TDP_ATOMIC_CAPTURE_ TDP_OMP_(critical(tdp_atomic_))
#define TDP_ATOMIC_COMPARE_ TDP_OMP_(critical(tdp_atomic_))
#define TDP_ATOMIC_CAS_BUILTIN_ 0
#endif
#define TDP_SAMEBITS_(Name, T) \
  static inline int tdpSameBits##Name##_(T a, T b) { return memcmp(&a, &b, sizeof(T)) == 0; }
TDP_SAMEBITS_(Int, int)
TDP_SAMEBITS_(Long, long)
TDP_SAMEBITS_(Float, float)
TDP_SAMEBITS_(Double, double)
#if TDP_ATOMIC_CAS_BUILTIN_
#define TDP_ATOMIC_CAS_(Name, T)                                               \
  static inline T targetAtomicCAS##Name(T *t, T expected, T desired) {         \
    /* on failure expected becomes the value found; on success it was it */    \
    __atomic_compare_exchange(t, &expected, &desired, 0, __ATOMIC_SEQ_CST,     \
                              __ATOMIC_SEQ_CST);                               \
    return expected;                                                           \
  }
#else
#define TDP_ATOMIC_CAS_(Name, T)                                               \
  static inline T targetAtomicCAS##Name(T *t, T expected, T desired) {         \
    T old;                                                                     \
    TDP_ATOMIC_COMPARE_ {                                                      \
      old = *t;                                                                \
      if (tdpSameBits##Name##_(old, expected)) *t = desired;                   \
    }                                                                          \
    return old;                                                                \
  }
#endif
#define TDP_ATOMICS_(Name, T)                                                  \
  static inline T targetAtomicAdd##Name(T *t, T v) {                           \
    T old;                                                                     \
    TDP_ATOMIC_CAPTURE_ { old = *t; *t += v; }                                 \
    return old;                                                                \
  }                                                                            \
  static inline T targetAtomicExch##Name(T *t, T v) {                          \
    T old;                                                                     \
    TDP_ATOMIC_CAPTURE_ { old = *t; *t = v; }                                  \
    return old;                                                                \
  }                                                                            \
  TDP_ATOMIC_CAS_(Name, T)                                                     \
  static inline T tdpAtomicMinMax##Name##_(T *t, T v, int max) {               \
    T old = targetAtomicCAS##Name(t, v, v); /* an atomic read */               \
    for (;;) {                                                                 \
      T want = (max ? v > old : v < old) || tdpIsNan##Name##_(v) ? v : old;    \
      if (tdpSameBits##Name##_(want, old)) return old;                         \
      T seen = targetAtomicCAS##Name(t, old, want);                            \
      if (tdpSameBits##Name##_(seen, old)) return old;                         \
      old = seen;                                                              \
    }                                                                          \
  }                                                                            \
  static inline T targetAtomicMin##Name(T *t, T v) {                           \
    return tdpAtomicMinMax##Name##_(t, v, 0);                                  \
  }                                                                            \
  static inline T targetAtomicMax##Name(T *t, T v) {                           \
    return tdpAtomicMinMax##Name##_(t, v, 1);                                  \
  }

#endif /* __CUDACC__ */

/* targetAtomicCompareExchange: C11's atomic_compare_exchange_strong, the
 * form of a CAS loop that needs no comparison of its own (docs/api.md):
 * 1 if *t had the bits of *expected and now holds desired, else 0 with
 * *expected set to the value found. */
#define TDP_ATOMIC_CX_(Name, T)                                                              \
  static TDP_DEVICE inline int targetAtomicCompareExchange##Name(T *t, T *expected,          \
                                                                 T desired) {                \
    T old = targetAtomicCAS##Name(t, *expected, desired);                                    \
    int ok = tdpSameBits##Name##_(old, *expected);                                           \
    *expected = old;                                                                         \
    return ok;                                                                               \
  }

TDP_ATOMICS_(Int, int)
TDP_ATOMICS_(Long, long)
TDP_ATOMICS_(Float, float)
TDP_ATOMICS_(Double, double)
TDP_ATOMIC_CX_(Int, int)
TDP_ATOMIC_CX_(Long, long)
TDP_ATOMIC_CX_(Float, float)
TDP_ATOMIC_CX_(Double, double)

#endif /* TARGETDP_ATOMICS_H */
