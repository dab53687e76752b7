/*
 * targetDP_C.h -- the C backend's half of targetDP.h: what the qualifiers,
 * the TLP/ILP loops (OpenMP threads over strides, SIMD lanes inside one:
 * omp simd, GCC ivdep or the clang loop pragma), the launches (a function
 * call), the in-kernel reductions (OpenMP reduction clauses) and the
 * kernel hints are in a source compiled by a C or C++ compiler, with
 * OpenMP or without it (serial). targetDP.h lists each public name and the
 * loop or call it stands for; targetDP_CUDA.h is the same list for CUDA.
 * The C backend's host side is targetDP_C.c. Included by targetDP.h (never
 * on its own) after the configuration, the layout and the preprocessor
 * tools (targetDP/targetDP_macros.h) it may use; the host calls of its
 * launches (tdpLaunchBegin_, tdpProfileStart_) and of the checked build's
 * reduction registration (tdpReduceVars_, targetDP/targetDP_check.h) are
 * declared after it.
 */
#ifndef TARGETDP_H
#error "targetDP_C.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_C_H
#define TARGETDP_C_H


#define TDP_KERNEL
#define TDP_KERNEL_TPB(tpb)
#define TDP_KERNEL_OCC(minblocks)
#define TDP_KERNEL_LANES
#define TDP_DEVICE
#define TDP_HOST_DEVICE
#define TDP_CONST

/* With VVL 1 the sites themselves are the SIMD lanes: the TLP loop is the
 * simd loop and the ILP loop a single pass. */
#if !defined(_OPENMP)
#include <stdio.h>
#include <stdlib.h>
static inline int tdpNoBreak_(int st, const char *file, int line) {
  if (st != 2) {
    fprintf(stderr, "targetDP: break in a TDP_TLP loop at %s:%d: a parallel loop cannot be "
                    "left early\n", file, line);
    exit(1);
  }
  return st;
}
#endif

/* clang (14) unrolls the VVL-trip ILP loop away and vectorises the loop
 * over strides instead, so every access becomes a gather of VVL strides'
 * data by shuffles (0.66-0.80 of a native loop). Under clang the stride
 * loop is therefore kept scalar and the ILP loop is vectorised VVL wide,
 * not unrolled first: the code gcc makes from "omp simd". assume_safety
 * says what "omp simd" says (the lanes are independent), which clang's
 * loop pragma cannot be combined with. */
#if defined(__clang__) && VVL > 1
#define TDP_TLP_NOVEC_ _Pragma("clang loop vectorize(disable) interleave(disable)")
#define TDP_ILP_VEC_ TDP_PRAGMA(clang loop unroll(disable) vectorize(assume_safety) vectorize_width(VVL))
#else
#define TDP_TLP_NOVEC_
#define TDP_ILP_VEC_ TDP_OMP_SIMD_()
#endif
/* The rows of the box loops (TDP_TLP_2D/3D/4D, TDP_TLP_2D/3D_EDGE) under
 * clang: every site its own one-lane stride, the sites of a row segment one
 * "omp simd" loop (as with VVL 1), the form of a native "omp simd" row
 * loop, with one remainder per segment; the one-lane ILP loop is gone
 * before the vectoriser. In VVL strides (issue 28, clang 14, -O3
 * -march=native, the corpus ports' hot loops, a567685) every short stride
 * ran scalar (heat3d's 159-site interior rows: 19 strides and one of 7
 * lanes), each stride paid a stride loop and a one-trip vector loop around
 * its 29 instructions, and the ILP loop was vectorised VVL = 8 wide,
 * two ymm registers a value where clang's own width is 4: the LB
 * collisions spill (d3q19 876 instructions and 204 spills/reloads per 8
 * sites, at clang's width 424 and 64 per 4; d2q9 329 and 68 per 8, now 153
 * and 0 per 4). A stencil wants the width of 8 all the same: the
 * neighbours' index arithmetic and the TDP_CONST weights (reloaded every
 * iteration: the store may alias them) are shared by 8 sites, not 4
 * (stencil27 46 instructions per 4 sites against 71 per 8). Hence the
 * widths: a box row's simd loop clang's own (TDP_ROW_SIMDLEN_ 0), an edge
 * row's 16 sites an iteration (TDP_EDGE_IC_ below; VVL before), the edge
 * form being the stencil-with-walls form (docs/porting.md). Measured (one
 * thread of the 2-core Xeon box, process CPU time, bench_corpus --mb 4 to
 * 64, 2-3 rounds each, port / native): d3q19 0.70-0.77 -> 1.17-1.32
 * (6.0 -> 9.4 MLUPS at --mb 64), d2q9 0.87-1.01 -> 0.94-1.10, stencil27 1.03-1.10, heat3d
 * median 0.92 -> 0.99 of clang's serial original (--mb 64, 9 runs); at
 * one width for every row stencil27 fell to 0.92-0.98 of its native
 * (width 4) or d3q19 stayed at 0.81 (width 8).
 * Not under gcc (12): it does not vectorise the sites form once the body
 * holds a local array (d2q9's port 0.36 of the native). Diagnosis knobs
 * (benchmarks/corpus/run_rows_ab.sh): -DTDP_ROW_STRIDES_ (VVL strides, as
 * before), -DTDP_ROW_SIMDLEN_=n, -DTDP_EDGE_SIMDLEN_=n (0: clang's own). */
#if defined(__clang__) && VVL > 1 && !defined(TDP_ROW_SITES_) && !defined(TDP_ROW_STRIDES_)
#define TDP_ROW_SITES_ 1
#endif
/* gcc's edge rows (TDP_TLP_2D/3D_EDGE) take the sites form too
 * (TDP_EDGE_SITES_; its box rows keep strides, TDP_ROW_VVL_ below): an
 * edge body is a stencil, with no local array, and gcc vectorises it; in
 * strides each row ended in a short stride of up to 7 lanes and 1-site
 * edge pieces. Measured on the GPU machine's 16-core host (gcc 13.3, one
 * thread, --mb 64, 5 rounds, CPU time, port / native, medians;
 * run_rows_ab.sh ROWS_CC=gcc at 1e62117): heat3d 0.91 -> 0.95 (the whole
 * sites form 0.99), stencil27 1.01 -> 0.96, the other box shapes the same.
 * -DTDP_EDGE_STRIDES_: the strides. */
#if defined(__GNUC__) && !defined(__clang__) && VVL > 1 && !defined(TDP_EDGE_SITES_) && \
    !defined(TDP_EDGE_STRIDES_)
#define TDP_EDGE_SITES_ 1
#endif
#ifndef TDP_ROW_SIMDLEN_
#define TDP_ROW_SIMDLEN_ 0
#endif
/* The stride widths of gcc's box rows (the strides form, not clang's
 * sites form): a box row (TDP_TLP_2D/3D/4D) in strides of 4 sites, an edge
 * row (TDP_TLP_2D/3D_EDGE, with -DTDP_EDGE_STRIDES_) in strides of VVL.
 * gcc -O3 -march=native on x86 vectorises 256 bits wide (4 doubles) even
 * on AVX-512 parts; a VVL = 8 stride is then two vectors plus, at the end
 * of every row, a short stride
 * of up to 7 lanes run as a 4 + 2 + 1 cascade, each piece with its own
 * address set-up (d3q19's 19 pointers spilled). Measured (issue 28, gcc 12,
 * one thread of the 2-core Xeon box, --cpu-time, 3 runs, port / native):
 * the hot loops of d3q19 are the same per site at either width (426
 * instructions per 4 sites, the native's 423 per 4; 859 per 8 at width
 * 8), but at width 8 a 14-site row spent 56% of the port's time in its
 * short stride and its set-up; at width 4 d3q19 0.70 -> 0.88 (--mb 1),
 * 0.89 -> 0.94 (--mb 16), 0.94 -> 0.98 (--mb 64), d2q9 0.98 -> 1.00. Not
 * the edge rows: a stencil's weights and neighbour offsets are shared by a
 * stride's sites (stencil27's edge port 1.10-1.15 at 8, 1.00 at 4; its box
 * row form "port-row" 1.06 -> 1.00 at --mb 1). Not with 512-bit vectors
 * (the gcc-avx512 preset keeps VVL: at 4 its d2q9 fell to 0.73). Diagnosis
 * knob: -DTDP_ROW_VVL_=n (n <= VVL). */
#ifndef TDP_ROW_VVL_
#if defined(__GNUC__) && !defined(__clang__) && VVL > 4
#define TDP_ROW_VVL_ 4
#else
#define TDP_ROW_VVL_ (VVL)
#endif
#endif
#if TDP_ROW_VVL_ > VVL || TDP_ROW_VVL_ < 1
#error "targetDP: TDP_ROW_VVL_ must be 1..VVL"
#endif
#if TDP_ROW_SIMDLEN_ > 0
#define TDP_ROW_SIMD_() TDP_OMP_SIMD_(simdlen(TDP_ROW_SIMDLEN_))
#else
#define TDP_ROW_SIMD_() TDP_OMP_SIMD_()
#endif
/* clang's edge rows: 16 sites an iteration as clang's own width (4
 * doubles at its default 256-bit preference) interleaved 4 times, where
 * "omp simd simdlen(8)" gave 8 wide interleaved 4 (32 sites an iteration;
 * heat3d's rows at --mb 64 have 158 interior sites): "clang loop vectorize
 * (assume_safety)", the "omp simd" of clang's own pragma (OpenMP's simd
 * construct takes no interleave count, and clang refuses both on one
 * loop). A stencil's weights and index arithmetic are shared by 16 sites.
 * Measured (issue 28, the GPU machine's 16-core host, clang 14, one
 * thread, CPU time, 9 interleaved rounds, port / native, --mb 16 / 64 /
 * 256; benchmarks/results/h100-edgewidth/): heat3d 0.94 / 0.87 / 0.93 ->
 * 1.06 / 0.92 / 1.02, stencil27 1.12 / 1.01 / 1.08 -> 1.22 / 0.97 / 1.17;
 * width 4 by vectorize_width(4) the same code; clang's own interleave
 * (omp simd without simdlen) stencil27 0.92-0.95. Knobs:
 * -DTDP_EDGE_IC_=n, -DTDP_EDGE_VW_=n (a width), -DTDP_EDGE_SIMDLEN_=n (the
 * "omp simd" form, as gcc's; 0: clang's own width). */
#if defined(__clang__) && !defined(TDP_EDGE_SIMDLEN_) && \
    (defined(_OPENMP) || defined(TDP_OPENMP_SIMD))
#ifndef TDP_EDGE_IC_
#define TDP_EDGE_IC_ 4
#endif
#ifdef TDP_EDGE_VW_
#define TDP_EDGE_SIMD_()                                                                \
  TDP_PRAGMA(clang loop vectorize(assume_safety) vectorize_width(TDP_EDGE_VW_) \
                 interleave_count(TDP_EDGE_IC_))
#else
#define TDP_EDGE_SIMD_() \
  TDP_PRAGMA(clang loop vectorize(assume_safety) interleave_count(TDP_EDGE_IC_))
#endif
/* clang's pragma takes any loop: the edge row declares base and edge in its
 * own loop (TDP_EDGE_SITES_LOOP_, targetDP/targetDP_box.h: clang 22).
 * Diagnosis knob: -DTDP_EDGE_ONE_LOOP_=0, the one-trip loop of before. */
#ifndef TDP_EDGE_ONE_LOOP_
#define TDP_EDGE_ONE_LOOP_ 1
#endif
#else /* gcc's edge rows (TDP_EDGE_SITES_), and clang's "omp simd" form */
#undef TDP_EDGE_ONE_LOOP_
#define TDP_EDGE_ONE_LOOP_ 0 /* "omp simd" wants a canonical loop: one variable */
#ifndef TDP_EDGE_SIMDLEN_
#define TDP_EDGE_SIMDLEN_ VVL
#endif
#if TDP_EDGE_SIMDLEN_ > 0
#define TDP_EDGE_SIMD_() TDP_OMP_SIMD_(simdlen(TDP_EDGE_SIMDLEN_))
#else
#define TDP_EDGE_SIMD_() TDP_OMP_SIMD_()
#endif
#endif
/* gcc (12, 13) does not vectorise an "omp simd" loop whose body passes a
 * local array to a function, the README recipe's per-site code
 * (collide(q)): OpenMP makes such a local an "omp simd array" q[lane][..],
 * the inlined callee reaches it through a pointer, and the vectoriser gives
 * up ("statement clobbers memory: .GOMP_SIMD_LANE"). The body then runs one
 * lane at a time (benchmarks/d2q9.c tdp_step, docs/performance.md). "GCC
 * ivdep" says the same about the lanes (no dependence between iterations)
 * without privatising anything, and the loop vectorises VVL wide. It needs
 * a plain exit test, so the lane count is computed once in the loop's
 * first clause. The default on gcc since measured on the Sapphire Rapids
 * host (2026-11-25, benchmarks/run_d2q9_probe.sh): the recipe's D2Q9 went
 * from 0.76x to 2.40x its serial original on one thread, lb's update the
 * same within noise. TDP_ILP_SIMD (make ILP=simd) keeps "omp simd". */
#if !defined(TDP_ILP_SIMD) && defined(__GNUC__) && !defined(__clang__) && VVL > 1
#undef TDP_ILP_VEC_
#define TDP_ILP_VEC_ _Pragma("GCC ivdep") _Pragma("GCC unroll 1")
#define TDP_ILP_HOISTED_ 1
#endif

#if VVL == 1
#define TDP_NLANE_ 1
#define TDP_TLP(baseIndex, N) \
  TDP_OMP_PFS_()              \
  for (long baseIndex = 0; baseIndex < (N); baseIndex++) TDP_NOBREAK_
#else
/* Two passes inside one parallel region: the full strides, then the short
 * one (N % VVL lanes, so the lane count needs no site index). Once the
 * compiler unrolls the two-pass loop, the lane count of the first is the
 * constant VVL and its ILP loops compile like plain vector code (measured:
 * 0.94-0.98 of a native triad with a run-time lane count in every stride,
 * 1.00 this way). The lane count is loop-invariant, so gcc hoists it and
 * would not version the loop on it: the unroll pragma asks for the two
 * copies. A compiler that ignores it still runs correctly. */
#ifdef __GNUC__
#define TDP_UNROLL_PASSES_ TDP_PRAGMA(GCC unroll 2)
#else
#define TDP_UNROLL_PASSES_
#endif
/* The once-loop around the passes: tdp_fence_ = 1 says that this loop
 * fences its thread's streaming stores when the thread is done (tdpTlpEnd_,
 * once per thread, before the region's barrier), so TDP_STREAM_LANES may
 * stream. (Not in the pass loop's own exit test: gcc then ignores the
 * unroll pragma.) */
#define TDP_NLANE_ (tdp_pass_ ? (int) (tdp_n_ % (VVL)) : (VVL))
#define TDP_TLP(baseIndex, N)                                                         \
  TDP_OMP_(parallel)                                                                  \
  for (long tdp_fence_ = 1; tdp_fence_; tdp_fence_ = tdpTlpEnd_(tdp_fence_))          \
  TDP_UNROLL_PASSES_                                                                  \
  for (long tdp_n_ = (N), tdp_pass_ = 0; tdp_pass_ < 2; tdp_pass_++)                  \
    TDP_OMP_(for schedule(static) nowait)                                             \
    TDP_TLP_NOVEC_                                                                    \
    for (long baseIndex = tdp_pass_ ? tdp_n_ / (VVL) * (VVL) : 0;                       \
         baseIndex < (tdp_pass_ ? tdp_n_ : tdp_n_ / (VVL) * (VVL)); baseIndex += (VVL)) \
      TDP_NOBREAK_
#endif
#define TDP_TLP_NOSTRIDE(index, N) \
  TDP_OMP_PFS_()                   \
  for (long index = 0; index < (N); index++) TDP_NOBREAK_

/* Telling the compiler 1 <= lanes <= VVL lets it emit the full-stride
 * vector body without a general remainder loop around it. A function, not
 * an if-else in the macro: TDP_ILP stays one for statement, with no else
 * for an enclosing if to trip over. */
static inline int tdpLanes_(int nlane) {
#ifdef __GNUC__
  if (nlane < 1 || nlane > (VVL)) __builtin_unreachable();
#endif
  return nlane;
}
#if VVL == 1
#define TDP_ILP(vecIndex) for (int vecIndex = 0; vecIndex < 1; vecIndex++)
#elif defined(TDP_ILP_HOISTED_)
#define TDP_ILP(vecIndex)                                                              \
  TDP_ILP_VEC_ for (int vecIndex = 0, TDP_CAT_(tdp_nl_, vecIndex) = tdpLanes_(TDP_NLANE_); \
                    vecIndex < TDP_CAT_(tdp_nl_, vecIndex); vecIndex++)
#else
#define TDP_ILP(vecIndex) \
  TDP_ILP_VEC_ for (int vecIndex = 0; vecIndex < tdpLanes_(TDP_NLANE_); vecIndex++)
#endif
/* Here a lane's offset from baseIndex is its number (on CUDA it is not). */
#define TDP_LANE(vecIndex) (vecIndex)

/* clang's reduction loops (the chunks below and the box rows,
 * targetDP/targetDP_box.h) are interleaved TDP_REDUCE_IC_ times. Left to
 * itself clang interleaves them half as often as the same loop written
 * without the lane's one-trip loop (TDP_ILP_REDUCE) and the row's `base`:
 * a Jacobi residual's row 2 times where the native's is 4 (clang 14), 1
 * where it is 2 (clang 22). With the one-trip loop the body's address
 * arithmetic reaches the vectoriser ahead of all its loads (the IR of
 * -mllvm -print-before=loop-vectorize; without it each address sits by
 * its load), and the vectoriser's register estimate, which follows the
 * order, counts every address live at once. The loop's accumulator
 * is one chain of dependent adds per interleave; 4 is what clang 14
 * gives the native loop (-Rpass=loop-vectorize; benchmarks/results/
 * reduce-ic/: on the 2-core box, one thread, clang 14's jacobi2d port
 * 0.92 -> 0.98 of its native; not yet timed on the GPU machine's host).
 * Diagnosis knob: -DTDP_REDUCE_IC_=n (0: clang's own count). */
#if defined(__clang__) && (defined(_OPENMP) || defined(TDP_OPENMP_SIMD))
#ifndef TDP_REDUCE_IC_
#define TDP_REDUCE_IC_ 4
#endif
#if TDP_REDUCE_IC_ > 0
#define TDP_RIC_() TDP_PRAGMA(clang loop interleave_count(TDP_REDUCE_IC_))
#endif
#endif
#ifndef TDP_RIC_
#define TDP_RIC_()
#endif
#define TDP_NO_RIC_()

/* A reduction vectorises over the sites themselves, whatever VVL: a
 * VVL-wide simd reduction per stride would end every stride in a
 * horizontal sum (measured: 0.75-0.9 of a native dot product at VVL 4-8,
 * parity this way). Each site is still base + vec exactly once. Variables
 * declared before the loop are shared by the OpenMP threads: only those
 * named in a clause are reduced, any other one written here is a race
 * (the checked build catches the partial of targetBlock* that is not). */
#if defined(__clang__) && defined(_OPENMP)
/* clang (14 and 16; icx and other LLVM compilers define __clang__ too)
 * miscompiles `omp for simd` with a reduction, alone or in `omp parallel
 * for simd`, when the body stores and reduces under a condition (if, if
 * else, continue): a Jacobi residual summed over the interior sites came
 * out a sixth to a third of the true value, min and max wrong too, also on
 * one thread. Its `omp parallel for` and its `omp simd`, each with the
 * reduction, are right on every body (issue 25, docs/reliability.md; the
 * plain OpenMP reproducer is in tests/compilers/omp_cond_reduce.c). So on
 * clang the threads share out chunks of TDP_RCHUNK_ sites and each chunk
 * is one simd loop: one horizontal combine per chunk, and clang vectorises
 * that loop, which it did not for the old form: a dot product became 5.5x
 * faster (docs/performance.md, "Issue 25"). gcc (12) gets the combined
 * form right and keeps it. */
#define TDP_RCHUNK_ 2048L
static inline long tdpRChunkEnd_(long c, long n) { return n - c > TDP_RCHUNK_ ? c + TDP_RCHUNK_ : n; }
/* ic: TDP_RIC_ (the interleave count above) or TDP_NO_RIC_ (TDP_TLP_EXACT,
 * whose simdlen(1) loop is not to be unrolled either). */
#define TDP_TLP_REDUCE_IC_(opts, ic, baseIndex, N, ...)                              \
  TDP_RREGISTER_(TDP_EACH_(TDP_RADDR_, __VA_ARGS__))                                 \
  TDP_OMP_(parallel for schedule(static) TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))       \
  for (long tdp_c_ = 0; tdp_c_ < (N); tdp_c_ += TDP_RCHUNK_)                          \
    TDP_OMP_SIMD_(opts TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))                          \
    ic()                                                                             \
    for (long baseIndex = tdp_c_; baseIndex < tdpRChunkEnd_(tdp_c_, (N)); baseIndex++) \
      TDP_NOBREAK_
#define TDP_TLP_REDUCE_OPT_(opts, baseIndex, N, ...) \
  TDP_TLP_REDUCE_IC_(opts, TDP_NO_RIC_, baseIndex, N, __VA_ARGS__)
#define TDP_TLP_REDUCE(baseIndex, N, ...) TDP_TLP_REDUCE_IC_(, TDP_RIC_, baseIndex, N, __VA_ARGS__)
#else
/* opts: extra clauses of the loop's pragma (TDP_TLP_EXACT's simdlen(1)). */
#define TDP_TLP_REDUCE_OPT_(opts, baseIndex, N, ...)                   \
  TDP_RREGISTER_(TDP_EACH_(TDP_RADDR_, __VA_ARGS__))                   \
  TDP_OMP_PFS_(opts TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))              \
  for (long baseIndex = 0; baseIndex < (N); baseIndex++) TDP_NOBREAK_
#define TDP_TLP_REDUCE(baseIndex, N, ...) TDP_TLP_REDUCE_OPT_(, baseIndex, N, __VA_ARGS__)
#endif
/* The min and max of TDP_RMIN/TDP_RMAX: OpenMP's own leave a NaN partial
 * unspecified (gcc dropped it), these keep it, as a sum does; a private
 * copy starts at the variable's value (rule 2 of docs/api.md: an element
 * of the data, so an identity). gcc vectorises them as it does min and
 * max (docs/performance.md, "Issue 25"). */
#if defined(_OPENMP) || defined(TDP_OPENMP_SIMD)
#define TDP_DECLARE_MINMAX_(T, nan)                                                       \
  TDP_PRAGMA(omp declare reduction(tdp_min_ : T : omp_out =                              \
             ((omp_in < omp_out) nan) ? omp_in : omp_out)                                \
             initializer(omp_priv = omp_orig))                                           \
  TDP_PRAGMA(omp declare reduction(tdp_max_ : T : omp_out =                              \
             ((omp_in > omp_out) nan) ? omp_in : omp_out)                                \
             initializer(omp_priv = omp_orig))
TDP_DECLARE_MINMAX_(double, || omp_in != omp_in)
TDP_DECLARE_MINMAX_(float, || omp_in != omp_in)
TDP_DECLARE_MINMAX_(int, )
TDP_DECLARE_MINMAX_(long, )
#endif
#ifdef TARGETDP_CHECK
/* The checked build records which variables the loop reduces (their
 * addresses and operations), before the loop; targetBlock* then refuses
 * any other, and one whose operation is not the clause's. It also refuses
 * a sum that does not start at 0: on CUDA each thread starts from the
 * initial value, so it would count once per thread. */
#define TDP_RREGISTER_(...)                                                           \
  for (int tdp_rreg_ = tdpReduceVars_(__FILE__, __LINE__ __VA_ARGS__, -1);            \
       tdp_rreg_; tdp_rreg_ = 0)
#else
#define TDP_RREGISTER_(...)
#endif

/* A kernel is a function call; N is still evaluated (once) and checked,
 * so a parameter used only in the launch is not unused here. No launch can
 * fail here, but one before targetInit, after targetFinalize or over a
 * negative N is refused as on CUDA (and then the kernel does not run). */
#define TDP_LAUNCH_AS_(form, kernel, N, ...)                                            \
  do {                                                                                 \
    if (tdpLaunchBegin_(form, #kernel, (N), __FILE__, __LINE__) == TARGET_SUCCESS) {   \
      TDP_PROFILE_START_(#kernel);                                                     \
      kernel(__VA_ARGS__);                                                             \
      TDP_PROFILE_STOP_(#kernel);                                                      \
    }                                                                                  \
  } while (0)
#define TDP_LAUNCH(kernel, N, ...) TDP_LAUNCH_AS_("TDP_LAUNCH", kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_NOSTRIDE(kernel, N, ...) \
  TDP_LAUNCH_AS_("TDP_LAUNCH_NOSTRIDE", kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_REDUCE(kernel, N, ...) TDP_LAUNCH_AS_("TDP_LAUNCH_REDUCE", kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_LANES(kernel, N, lanes, ...)                                \
  do {                                                                         \
    if (tdpLaunchLanesCheck_(#kernel, (lanes), VVL, __FILE__, __LINE__) == TARGET_SUCCESS) \
      TDP_LAUNCH_AS_("TDP_LAUNCH_LANES", kernel, N, __VA_ARGS__);              \
  } while (0)
#define TDP_LAUNCH_TPB(kernel, N, tpb, ...)                                    \
  do {                                                                         \
    if (tdpLaunchTpbCheck_(#kernel, (tpb), __FILE__, __LINE__) == TARGET_SUCCESS) \
      TDP_LAUNCH_AS_("TDP_LAUNCH_TPB", kernel, N, __VA_ARGS__);                \
  } while (0)
#define TDP_CHEVRONS_(N)
#define TDP_CHEVRONS_NOSTRIDE_(N)
#define TDP_CHEVRONS_REDUCE_(N)

/* x is a NaN (integers have none; a function per type, since x != x on an
 * int is a warning). */
#define TDP_ISNAN_(Name, T, test) \
  static inline int tdpIsNan##Name##_(T x) { return test; }
TDP_ISNAN_(Double, double, x != x)
TDP_ISNAN_(Float, float, x != x)
TDP_ISNAN_(Int, int, ((void) x, 0))
TDP_ISNAN_(Long, long, ((void) x, 0))

/* Called after the TLP loop, where the reduction clause has already
 * combined the threads' partials: one atomic (or, for min and max, which
 * have no omp atomic before OpenMP 5.1, one critical section) per call.
 * Min and max keep a NaN, as the CUDA backend's do. */
#define TDP_BLOCK_OPS_(Name, T)                                        \
  static inline void targetBlockAdd##Name(T *t, T p) {                 \
    TDP_OMP_(atomic update)                                            \
    *t += p;                                                           \
  }                                                                    \
  static inline void targetBlockMin##Name(T *t, T p) {                 \
    TDP_OMP_(critical(tdp_block_minmax_))                              \
    if (p < *t || tdpIsNan##Name##_(p)) *t = p;                        \
  }                                                                    \
  static inline void targetBlockMax##Name(T *t, T p) {                 \
    TDP_OMP_(critical(tdp_block_minmax_))                              \
    if (p > *t || tdpIsNan##Name##_(p)) *t = p;                        \
  }

/* The lane loop inside a reduction: the C reduction loop vectorises over
 * sites, one lane per site. */
#define TDP_ILP_REDUCE(vecIndex) for (int vecIndex = 0; vecIndex < 1; vecIndex++)

#define TDP_RCLAUSE_(r) TDP_RCLAUSE_I_ r
#define TDP_RCLAUSE_I_(op, kind, v) reduction(op : v)
#define TDP_RADDR_(r) TDP_RADDR_I_ r
#define TDP_RADDR_I_(op, kind, v) , (int) (kind), #v, sizeof(v), (const void *) &(v)

/* Kernel hints (the list: targetDP.h) */
#define TDP_GPU 0
#define TDP_LOAD_ONCE(p) (*(p))
#define TDP_STORE_ONCE(p, x) ((void) (*(p) = (x)))
#define TDP_CONST_VALUE(t_expr, literal_expr) (literal_expr)
#if defined(__GNUC__)
typedef struct {
  double x, y;
} __attribute__((aligned(16))) tdpDouble2;
#else
typedef struct {
  double x, y;
} tdpDouble2;
#endif

#if defined(__AVX__) && !defined(TARGETDP_CHECK)
#define TDP_HAVE_STREAM_STORE 1
#include <immintrin.h>
static inline void tdpStreamStore8(double *dst, const double *src) {
#ifdef __AVX512F__
  _mm512_stream_pd(dst, _mm512_loadu_pd(src));
#else
  _mm256_stream_pd(dst, _mm256_loadu_pd(src));
  _mm256_stream_pd(dst + 4, _mm256_loadu_pd(src + 4));
#endif
}
/* Streaming stores are weakly ordered: every thread fences its own. */
static inline void tdpStreamFence(void) {
  TDP_OMP_(parallel)
  _mm_sfence();
}
#else
#define TDP_HAVE_STREAM_STORE 0
#endif

#endif /* TARGETDP_C_H */
