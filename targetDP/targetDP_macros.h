/*
 * targetDP_macros.h -- the preprocessor tools every other file of the layer
 * uses: stringify (TDP_STR), paste and count arguments, apply a macro to
 * each argument (TDP_EACH_), pragmas from macros (TDP_PRAGMA, and the
 * OpenMP ones only where OpenMP is on: TDP_OMP_*), the host-and-device
 * qualifier of the layout functions (TDP_HD_), the break catcher of the
 * parallel loops (TDP_NOBREAK_), and the compiler spellings of restrict,
 * unroll and forced inlining (TDP_RESTRICT, TDP_UNROLL, TDP_INLINE). What it
 * holds depends on the compiler only, never on the layer's configuration. Included first by targetDP.h;
 * it may use nothing of the layer.
 */
#ifndef TARGETDP_MACROS_H
#define TARGETDP_MACROS_H

#define TDP_STR_(x) #x
#define TDP_STR(x) TDP_STR_(x)

/* Callable from host and target code (TDP_HOST_DEVICE, defined with the
 * other qualifiers below, is the public spelling). */
#ifdef __CUDACC__
#define TDP_HD_ __host__ __device__
#else
#define TDP_HD_
#endif

#define TDP_PRAGMA(x) _Pragma(TDP_STR(x))
/* OpenMP pragmas appear only where OpenMP is on, so a build without it gets
 * no unknown-pragma warnings. The simd ones also under -fopenmp-simd, which
 * defines no macro of its own: the serial preset adds -DTDP_OPENMP_SIMD.
 *   TDP_OMP_(x)       omp x                    (threads: OpenMP only)
 *   TDP_OMP_SIMD_(x)  omp simd x               (vector lanes)
 *   TDP_OMP_PFS_(x)   omp parallel for simd x  (or omp simd x) */
#if defined(_OPENMP)
#define TDP_OMP_(x) TDP_PRAGMA(omp x)
#define TDP_OMP_SIMD_(x) TDP_PRAGMA(omp simd x)
#define TDP_OMP_PFS_(x) TDP_PRAGMA(omp parallel for simd schedule(static) x)
#elif defined(TDP_OPENMP_SIMD)
#define TDP_OMP_(x)
#define TDP_OMP_SIMD_(x) TDP_PRAGMA(omp simd x)
#define TDP_OMP_PFS_(x) TDP_PRAGMA(omp simd x)
#else
#define TDP_OMP_(x)
#define TDP_OMP_SIMD_(x)
#define TDP_OMP_PFS_(x)
#endif
#define TDP_CAT_(a, b) TDP_CAT_I_(a, b)
#define TDP_CAT_I_(a, b) a##b
#define TDP_NARG_(...) TDP_NARG_I_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TDP_NARG_I_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n
#define TDP_EACH_(m, ...) TDP_CAT_(TDP_CAT_(TDP_EACH_, TDP_NARG_(__VA_ARGS__)), _)(m, __VA_ARGS__)
#define TDP_EACH_1_(m, x) m(x)
#define TDP_EACH_2_(m, x, ...) m(x) TDP_EACH_1_(m, __VA_ARGS__)
#define TDP_EACH_3_(m, x, ...) m(x) TDP_EACH_2_(m, __VA_ARGS__)
#define TDP_EACH_4_(m, x, ...) m(x) TDP_EACH_3_(m, __VA_ARGS__)
#define TDP_EACH_5_(m, x, ...) m(x) TDP_EACH_4_(m, __VA_ARGS__)
#define TDP_EACH_6_(m, x, ...) m(x) TDP_EACH_5_(m, __VA_ARGS__)
#define TDP_EACH_7_(m, x, ...) m(x) TDP_EACH_6_(m, __VA_ARGS__)
#define TDP_EACH_8_(m, x, ...) m(x) TDP_EACH_7_(m, __VA_ARGS__)

#if defined(_OPENMP) && !defined(__CUDACC__)
#define TDP_NOBREAK_
#else
/* A normal pass (or continue) ends the inner loop through tdp_st_ = 2; a
 * break leaves it with tdp_st_ == 0, which tdpNoBreak_ reports. */
#define TDP_NOBREAK_LANES_(decl)                                                  \
  for (int tdp_st_ = 0; tdp_st_ < 2; tdp_st_ = tdpNoBreak_(tdp_st_, __FILE__, __LINE__)) \
    for (decl; tdp_st_ == 0; tdp_st_ = 2)
#define TDP_NOBREAK_ TDP_NOBREAK_LANES_((void) 0)
#endif

#if defined(__GNUC__) || defined(__CUDACC__)
#define TDP_RESTRICT __restrict__
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define TDP_RESTRICT restrict
#else
#define TDP_RESTRICT
#endif
#if defined(__CUDACC__) || defined(__clang__)
#define TDP_UNROLL(n) TDP_PRAGMA(unroll n)
#elif defined(__GNUC__)
#define TDP_UNROLL(n) TDP_PRAGMA(GCC unroll n)
#else
#define TDP_UNROLL(n)
#endif
/* A helper a lane loop calls (an LB collision): always inlined, as a call
 * keeps the loop from vectorising (clang 14 left an unrolled D3Q19
 * collision a call: issue 28). */
/* On clang also "used": clang 14's dead-argument elimination (which runs
 * before its inliner) rewrites a call whose callee has an unused argument
 * (nsites under SoA: TDP_INDEX of component 0 does not read it) and drops
 * the call's llvm.access.group, the mark of the loop pragma's
 * assume_safety; the inlined body then lost it, and clang versioned every
 * VVL stride of the lane loop with a run-time alias check of each load
 * against the store (corpus stencil27 port: 26 pointer compares and spills
 * per 8 sites, 0.61x the native on one thread). A "used" function's
 * arguments are never rewritten; the cost is one unreferenced copy of the
 * helper per object. */
#if defined(__CUDACC__)
#define TDP_INLINE __forceinline__
#elif defined(__clang__)
#define TDP_INLINE inline __attribute__((always_inline, used))
#elif defined(__GNUC__)
#define TDP_INLINE inline __attribute__((always_inline))
#else
#define TDP_INLINE inline
#endif

#endif /* TARGETDP_MACROS_H */
