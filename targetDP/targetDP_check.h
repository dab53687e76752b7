/*
 * targetDP_check.h -- the checks that run in the program's own code. Every
 * host call of the layer is passed what the compiler knows of each host
 * buffer's size (TDP_OBJECT_SIZE_) and each element pointer through
 * TDP_TYPED_ / TDP_MASK_ (another element type does not compile); in the
 * checked build (TARGETDP_CHECK) TDP_INDEX is bounds-checked
 * (tdpIndexChecked_, stopping with the kernel's file:line) and the C
 * backend's targetBlock* calls check their partial against the loop's
 * reduction clauses (tdpReduceCheck_). The library's own checks (the
 * registry of allocations, each call's arguments) are in
 * targetDP_common.c. Included by targetDP.h (never on its own) after the
 * backend's header, whose qualifiers and block reductions it uses.
 */
#ifndef TARGETDP_H
#error "targetDP_check.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_CHECK_H
#define TARGETDP_CHECK_H

#if defined(TARGETDP_CHECK) && !defined(__CUDACC__)
/* Checked C build: the partial passed to targetBlock* must be a variable
 * that an in-kernel reduction of this kernel named in a clause.
 * Any other was shared by the OpenMP threads of the loop, and the value
 * that arrives here is a race's. (On CUDA every thread has its own copy,
 * so there is nothing to race; the rule is the same for portability.) */
#ifdef __cplusplus
extern "C" {
#endif
int tdpReduceVars_(const char *file, int line, ...);
void tdpReduceClear_(void);
void tdpReduceCheck_(const void *partial, tdpReduceOp op, const char *call, const char *name,
                     const char *file, int line);
#ifdef __cplusplus
}
#endif
/* The operation of the call must be the clause's: TDP_RMAX(s) then
 * targetBlockAddDouble(t, s) summed the threads' maxima on the C backend
 * and the threads' partial sums on CUDA (issue 25 item 2). Not a compile
 * error: the clause and the call are separate statements, the clause's
 * scope ends with the loop and the variable's type does not carry it. */
#define TDP_RCHECKED_(fn, op, t, p) \
  (tdpReduceCheck_(&(p), op, #fn, #p, __FILE__, __LINE__), fn(t, p))
#define targetBlockAddDouble(t, p) TDP_RCHECKED_(targetBlockAddDouble, TDP_SUM, t, p)
#define targetBlockMinDouble(t, p) TDP_RCHECKED_(targetBlockMinDouble, TDP_MIN, t, p)
#define targetBlockMaxDouble(t, p) TDP_RCHECKED_(targetBlockMaxDouble, TDP_MAX, t, p)
#define targetBlockAddFloat(t, p) TDP_RCHECKED_(targetBlockAddFloat, TDP_SUM, t, p)
#define targetBlockMinFloat(t, p) TDP_RCHECKED_(targetBlockMinFloat, TDP_MIN, t, p)
#define targetBlockMaxFloat(t, p) TDP_RCHECKED_(targetBlockMaxFloat, TDP_MAX, t, p)
#define targetBlockAddInt(t, p) TDP_RCHECKED_(targetBlockAddInt, TDP_SUM, t, p)
#define targetBlockMinInt(t, p) TDP_RCHECKED_(targetBlockMinInt, TDP_MIN, t, p)
#define targetBlockMaxInt(t, p) TDP_RCHECKED_(targetBlockMaxInt, TDP_MAX, t, p)
#define targetBlockAddLong(t, p) TDP_RCHECKED_(targetBlockAddLong, TDP_SUM, t, p)
#define targetBlockMinLong(t, p) TDP_RCHECKED_(targetBlockMinLong, TDP_MIN, t, p)
#define targetBlockMaxLong(t, p) TDP_RCHECKED_(targetBlockMaxLong, TDP_MAX, t, p)
#endif

/* What the compiler knows of the object that pointer p points into: the
 * bytes from p to its end, TDP_SIZE_UNKNOWN_ when it does not know (a
 * pointer from elsewhere). Every host entry point is passed it for each
 * host buffer and each TDP_CONST it is given, and refuses a count past it
 * (targetDP_common.c): a TDP_CONST (&t_x, t_a, &t_a[2]), a local or global
 * array (h, h + 60), a struct are known at every optimisation level; a
 * malloc of a known size, or a pointer the compiler can follow back to one
 * of those, when optimising. __builtin_dynamic_object_size where the
 * compiler has it (gcc 12, clang 9, nvcc's host compiler) also knows sizes
 * computed at run time (malloc(n * 8) at -O2). Neither evaluates p (one
 * with side effects is "unknown"), so each macro argument is still
 * evaluated once. */
#define TDP_SIZE_UNKNOWN_ ((size_t) -1)
#if defined(__has_builtin)
#if __has_builtin(__builtin_dynamic_object_size)
#define TDP_OBJECT_SIZE_(p) __builtin_dynamic_object_size((const void *) (p), 0)
#endif
#endif
#if !defined(TDP_OBJECT_SIZE_) && (defined(__GNUC__) || defined(__clang__))
#define TDP_OBJECT_SIZE_(p) __builtin_object_size((const void *) (p), 0)
#endif
#ifndef TDP_OBJECT_SIZE_
#define TDP_OBJECT_SIZE_(p) TDP_SIZE_UNKNOWN_ /* unknown: not checked */
#endif

/* Element types checked at compile time (issue 25): TDP_TYPED_(T, p) is p
 * when it points to T (const or not) and a compile error otherwise. In C
 * a _Generic selection (C11; gcc and clang take it in C99 mode too), which
 * also admits void * (a typeless buffer converts in C): the typed
 * parameter behind it would only warn, and a cast in a macro would say
 * nothing (targetScanInclusiveInt on a double array ran). In C++ and CUDA
 * the typed parameter of the inline wrapper refuses another type itself.
 * TDP_MASK_ admits the byte types of a mask. */
#if !defined(__cplusplus) && \
    ((defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L) || defined(__GNUC__))
#define TDP_TYPED_(T, p) _Generic((p), T *: (p), const T *: (p), void *: (p), const void *: (p))
#define TDP_MASK_(p)                                                                    \
  _Generic((p), char *: (const char *) (p), const char *: (const char *) (p),            \
           signed char *: (const char *) (p), const signed char *: (const char *) (p),   \
           unsigned char *: (const char *) (p), const unsigned char *: (const char *) (p), \
           _Bool *: (const char *) (p), const _Bool *: (const char *) (p),               \
           void *: (const char *) (p), const void *: (const char *) (p))
#else
#define TDP_TYPED_(T, p) (p)
#define TDP_MASK_(p) (p)
#endif

#ifdef TARGETDP_CHECK
#include <stdio.h>
#include <stdlib.h>
/* An out-of-range site or component names the kernel, file and line, then
 * stops: exit on the host, a trap (reported by targetSynchronize) on a GPU.
 * On the host only the first thread to get here reports and exits: exit()
 * called by several OpenMP threads at once is undefined behaviour (the
 * atexit handlers and stdio teardown would run concurrently); the others
 * wait in the critical section until the process is gone. */
#define TDP_OOB_ "targetDP: index out of bounds in %s at %s:%d: site %ld of %ld, "
#ifdef __CUDA_ARCH__
#define TDP_OOB_STOP_(...)  \
  do {                      \
    printf(__VA_ARGS__);    \
    __trap();               \
  } while (0)
#else
#ifdef _OPENMP
#define TDP_OOB_ONE_THREAD_ TDP_OMP_(critical(tdp_index_oob_))
#else
#define TDP_OOB_ONE_THREAD_
#endif
#define TDP_OOB_STOP_(...)             \
  do {                                 \
    TDP_OOB_ONE_THREAD_ {              \
      fprintf(stderr, __VA_ARGS__);    \
      exit(1);                         \
    }                                  \
  } while (0)
#endif
static TDP_HOST_DEVICE inline size_t tdpIndexChecked_(long nsites, long ncomp, long isite,
                                                     long icomp, const char *func,
                                                     const char *file, int line) {
  if (isite < 0 || isite >= nsites || icomp < 0 || icomp >= ncomp)
    TDP_OOB_STOP_(TDP_OOB_ "component %ld of %ld\n", func, file, line, isite, nsites, icomp,
                  ncomp);
  return TDP_INDEX_(nsites, ncomp, isite, icomp);
}
static TDP_HOST_DEVICE inline size_t tdpIndex2Checked_(long nsites, long n1, long n2, long isite,
                                                      long i1, long i2, const char *func,
                                                      const char *file, int line) {
  if (isite < 0 || isite >= nsites || i1 < 0 || i1 >= n1 || i2 < 0 || i2 >= n2)
    TDP_OOB_STOP_(TDP_OOB_ "component (%ld, %ld) of %ld x %ld\n", func, file, line, isite,
                  nsites, i1, i2, n1, n2);
  return TDP_INDEX_(nsites, n1 * n2, isite, i1 * n2 + i2);
}
#endif

#endif /* TARGETDP_CHECK_H */
