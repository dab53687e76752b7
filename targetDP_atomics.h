/*
 * targetDP_atomics.h -- atomics for target code: targetAtomic{Add,Min,Max,
 * Exch,CAS}{Int,Long,Float,Double} (docs/api.md, "Atomics"), each backend's
 * primitives and the four typed sets generated from one macro per backend.
 * Included by targetDP.h after the backend sections (qualifiers, loops,
 * launch, block reductions), not a header to include on its own. It may
 * use what targetDP.h defines before that point: TDP_OMP_ on the C backend,
 * and on CUDA tdpReduceOp and the bit casts and compare-and-swap loop of the
 * block reductions (tdpBits_, tdpFromBits_, tdpAtomicCas_). It defines
 * nothing else that targetDP.h uses.
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
 * through the compare-and-swap loop of the block reductions (targetDP.h), and a
 * float/double compare-and-swap compares values (==) in a loop on the bits,
 * as the C backend's omp atomic compare does. */
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
template <typename T> static __device__ inline T tdpAtomicCasValue_(T *t, T e, T d) {
  typedef decltype(tdpBits_(e)) Bits;
  Bits *tb = (Bits *) t, old = *tb;
  for (;;) {
    T cur = tdpFromBits_(old, e);
    if (!(cur == e)) return cur;
    Bits seen = atomicCAS(tb, old, tdpBits_(d));
    if (seen == old) return cur;
    old = seen;
  }
}
static __device__ inline float tdpAtomicCasN_(float *t, float e, float d) {
  return tdpAtomicCasValue_(t, e, d);
}
static __device__ inline double tdpAtomicCasN_(double *t, double e, double d) {
  return tdpAtomicCasValue_(t, e, d);
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
 * the location held before. Add and exchange are omp atomic capture; min,
 * max and compare-and-swap are OpenMP 5.1 omp atomic compare capture where
 * the compiler has it (gcc >= 12, clang >= 16, or any compiler announcing
 * OpenMP 5.1). Elsewhere (clang 14 of the dev box) all five take one named
 * critical section instead: a critical section excludes only other critical
 * sections, so an atomic add beside a critical min on the same location
 * would race; one mechanism for all of them keeps them exclusive. */
#if defined(_OPENMP) &&                                                          \
    (_OPENMP >= 202011 || (defined(__clang__) && __clang_major__ >= 16) ||       \
     (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 12))
#define TDP_ATOMIC_CAPTURE_ TDP_OMP_(atomic capture)
#define TDP_ATOMIC_COMPARE_ TDP_OMP_(atomic compare capture)
#else
#define TDP_ATOMIC_CAPTURE_ TDP_OMP_(critical(tdp_atomic_))
#define TDP_ATOMIC_COMPARE_ TDP_OMP_(critical(tdp_atomic_))
#endif
/* (void) desired: gcc 12 calls it unused inside a compare capture. */
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
  static inline T targetAtomicMin##Name(T *t, T v) {                           \
    T old;                                                                     \
    TDP_ATOMIC_COMPARE_ { old = *t; if (v < *t) { *t = v; } }                  \
    return old;                                                                \
  }                                                                            \
  static inline T targetAtomicMax##Name(T *t, T v) {                           \
    T old;                                                                     \
    TDP_ATOMIC_COMPARE_ { old = *t; if (v > *t) { *t = v; } }                  \
    return old;                                                                \
  }                                                                            \
  static inline T targetAtomicCAS##Name(T *t, T expected, T desired) {         \
    T old;                                                                     \
    (void) desired;                                                            \
    TDP_ATOMIC_COMPARE_ { old = *t; if (*t == expected) { *t = desired; } }    \
    return old;                                                                \
  }

#endif /* __CUDACC__ */

TDP_ATOMICS_(Int, int)
TDP_ATOMICS_(Long, long)
TDP_ATOMICS_(Float, float)
TDP_ATOMICS_(Double, double)

#endif /* TARGETDP_ATOMICS_H */
