/*
 * targetDP.h -- one header that lets a structured-grid C code run on
 * multicore CPUs (OpenMP threads + SIMD) and on NVIDIA GPUs (CUDA).
 *
 * The model (Gray & Stratford, IJHPCA 2018): grid-level parallelism is
 * exposed as threads (TLP) striding by a virtual vector length VVL, and the
 * VVL sites inside a stride as an innermost loop the compiler vectorises
 * (ILP). Multi-component fields are 1-D arrays addressed through TDP_INDEX so
 * the memory layout (AoS, SoA, AoSoA) is a build option. Host and target
 * memory are distinct and synchronised explicitly.
 *
 * The backend follows the compiler: code compiled by nvcc (as CUDA, -x cu)
 * gets the CUDA macros, anything else the C/OpenMP macros. targetInit()
 * checks that the library was built with the same backend, layout and VVL
 * as the caller, so a mismatched build fails loudly instead of silently.
 * Documentation: docs/api.md.
 *
 * This file is the front door: configuration, layout (TDP_INDEX), the
 * qualifiers, TLP/ILP loops and launch of each backend, block reductions,
 * kernel hints and the core host API. The rest is in headers it includes
 * where their section stood (none is included on its own):
 *   targetDP_lanes.h    how a stride's lanes store: TDP_STREAM_LANES (streaming
 *                       stores), TDP_ILP_STAGED (every load before any store)
 *   targetDP_atomics.h  targetAtomic* for target code, both backends
 *   targetDP_types.h    the typed host helpers (targetSetConstantFloat, ...)
 *   targetDP_scan.h     scans and stream compaction
 *   targetDP_async.h    streams, events, async copies, pinned memory, IPC,
 *                       packing boxes of a field
 *   targetDP_compat.h   the 2014 API (off with -DTDP_NO_COMPAT)
 *   targetDP_box.h      TLP loops over a box of a 2-4-D lattice
 * (targetDP_halo.h, the MPI halo exchange, is included by programs.)
 */
#ifndef TARGETDP_H
#define TARGETDP_H

#include <stddef.h>
#include <stdio.h> /* FILE, and printf in target code */

/* An installed targetDP (make install) ships targetDP_config.h beside this
 * header: the layout, VVL, SAL and TPB its libraries were built with, so
 * that a build with only -I$PREFIX/include gets matching defaults. */
#if defined(__has_include)
#if __has_include("targetDP_config.h")
#include "targetDP_config.h"
#endif
#endif

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
#define TDP_EACH_(m, ...) TDP_CAT_(TDP_EACH_, TDP_NARG_(__VA_ARGS__))(m, __VA_ARGS__)
#define TDP_EACH_1(m, x) m(x)
#define TDP_EACH_2(m, x, ...) m(x) TDP_EACH_1(m, __VA_ARGS__)
#define TDP_EACH_3(m, x, ...) m(x) TDP_EACH_2(m, __VA_ARGS__)
#define TDP_EACH_4(m, x, ...) m(x) TDP_EACH_3(m, __VA_ARGS__)
#define TDP_EACH_5(m, x, ...) m(x) TDP_EACH_4(m, __VA_ARGS__)
#define TDP_EACH_6(m, x, ...) m(x) TDP_EACH_5(m, __VA_ARGS__)
#define TDP_EACH_7(m, x, ...) m(x) TDP_EACH_6(m, __VA_ARGS__)
#define TDP_EACH_8(m, x, ...) m(x) TDP_EACH_7(m, __VA_ARGS__)

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

/* ---------------------------------------------------------------------- */
/* Build configuration (override with -D, normally through make variables) */

#ifdef __CUDACC__
#define TARGETDP_BACKEND "cuda"
#else
#define TARGETDP_BACKEND "c"
#endif

/* GPUs: one site per thread (VVL 1) and SoA give coalesced accesses.
 * CPUs: SoA with VVL 8 (two AVX2 or one AVX-512 vector of doubles): a
 * stencil's neighbour read TDP_INDEX(n, nc, base + v - shift, c) is a
 * unit-stride vector load only in SoA (in AoSoA it is a gather), and the
 * lb app's fused step ran 4.6x faster than with AoSoA VVL 4 on a 16-core
 * Xeon (docs/performance.md, "The C default build"). AoSoA remains the
 * choice for site-local kernels written with TDP_VINDEX. */
#ifndef VVL
#ifdef __CUDACC__
#define VVL 1
#else
#define VVL 8
#endif
#endif

#if !defined(TARGETDP_AOS) && !defined(TARGETDP_SOA) && !defined(TARGETDP_AOSOA)
#define TARGETDP_SOA
#endif

#ifndef SAL
#define SAL VVL
#endif

/* CUDA threads per block (the paper found 128 good; tune per kernel). */
#ifndef TARGET_TPB
#define TARGET_TPB 128
#endif

#if (defined(TARGETDP_AOS) + defined(TARGETDP_SOA) + defined(TARGETDP_AOSOA)) != 1
#error "define exactly one of TARGETDP_AOS, TARGETDP_SOA, TARGETDP_AOSOA"
#endif
#if VVL < 1 || SAL < 1 || TARGET_TPB < 32 || TARGET_TPB > 1024 || TARGET_TPB % 32
#error "need VVL >= 1, SAL >= 1 and TARGET_TPB a multiple of 32 in [32, 1024]"
#endif

/* ---------------------------------------------------------------------- */
/* Layout: the position of component icomp (of ncomp) at site isite (of
 * nsites) in a field array. Arithmetic is in size_t so that 19 components
 * of a 512^3 lattice do not overflow int. Rank-2 components (i1 of n1,
 * i2 of n2, e.g. a 3x3 tensor) are stored as component i1*n2 + i2.
 * AoSoA groups sites into short arrays of SAL; a field therefore needs
 * TDP_NSITES_ALLOC(nsites) sites of storage (nsites rounded up to SAL).
 * They are inline functions, so each argument is evaluated once
 * (TDP_INDEX(n, 3, i++, c) moves i by one); the macros are their public
 * names and add the caller's file:line in a checked build. Inlined, they
 * compile to the same vector code as the arithmetic written out. */

#if defined(TARGETDP_AOS)
#define TARGETDP_LAYOUT "AOS"
static TDP_HD_ inline size_t tdpIndex_(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
  (void) nsites;
  return isite * ncomp + icomp;
}
static TDP_HD_ inline size_t tdpNsitesAlloc_(size_t nsites) { return nsites; }
#elif defined(TARGETDP_SOA)
#define TARGETDP_LAYOUT "SOA"
static TDP_HD_ inline size_t tdpIndex_(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
  (void) ncomp;
  return icomp * nsites + isite;
}
static TDP_HD_ inline size_t tdpNsitesAlloc_(size_t nsites) { return nsites; }
#else
#define TARGETDP_LAYOUT "AOSOA"
static TDP_HD_ inline size_t tdpIndex_(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
  (void) nsites;
  return (isite / (SAL)) * ncomp * (SAL) + icomp * (SAL) + isite % (SAL);
}
static TDP_HD_ inline size_t tdpNsitesAlloc_(size_t nsites) {
  return ((nsites + (SAL) - 1) / (SAL)) * (SAL);
}
#endif
#define TDP_INDEX_(nsites, ncomp, isite, icomp) \
  tdpIndex_((size_t) (nsites), (size_t) (ncomp), (size_t) (isite), (size_t) (icomp))
#define TDP_NSITES_ALLOC(nsites) tdpNsitesAlloc_((size_t) (nsites))

static TDP_HD_ inline size_t tdpIndex2_(size_t nsites, size_t n1, size_t n2, size_t isite,
                                        size_t i1, size_t i2) {
  return tdpIndex_(nsites, n1 * n2, isite, i1 * n2 + i2);
}

#ifdef TARGETDP_CHECK /* checked build: every access is bounds-checked */
#define TDP_INDEX(nsites, ncomp, isite, icomp)                                   \
  tdpIndexChecked_((long) (nsites), (long) (ncomp), (long) (isite), (long) (icomp), \
                   __func__, __FILE__, __LINE__)
/* Each index of a rank-2 component on its own: (i1, n2) of n1 x n2 is
 * inside the flattened range whenever i1 < n1 - 1, yet it is a bug. */
#define TDP_INDEX2(nsites, n1, n2, isite, i1, i2)                                \
  tdpIndex2Checked_((long) (nsites), (long) (n1), (long) (n2), (long) (isite),    \
                    (long) (i1), (long) (i2), __func__, __FILE__, __LINE__)
#else
#define TDP_INDEX(nsites, ncomp, isite, icomp) TDP_INDEX_(nsites, ncomp, isite, icomp)
#define TDP_INDEX2(nsites, n1, n2, isite, i1, i2)                                      \
  tdpIndex2_((size_t) (nsites), (size_t) (n1), (size_t) (n2), (size_t) (isite), \
             (size_t) (i1), (size_t) (i2))
#endif

/* The same position for site baseIndex + vecIndex inside a TLP/ILP loop,
 * with the stride base and the lane given apart. Under AoSoA the lanes of
 * a stride then lie in one short array (SAL a multiple of VVL), which the
 * compiler can see: unit-stride vector loads instead of the gathers that
 * (isite / SAL) in TDP_INDEX costs it. For site-local access only: a
 * neighbour (baseIndex + vecIndex + shift) needs TDP_INDEX. */
/* Not on CUDA at VVL > 1: there a thread's lanes are a block apart
 * (vecIndex = lane * blockDim, see TDP_ILP), not in one short array. */
#if defined(TARGETDP_AOSOA) && (SAL) % (VVL) == 0 && !defined(TARGETDP_CHECK) && \
    !(defined(__CUDACC__) && VVL > 1)
static TDP_HD_ inline size_t tdpVIndex_(size_t nsites, size_t ncomp, size_t base, size_t icomp,
                                        size_t vec) {
  (void) nsites;
  return (base / (SAL)) * ncomp * (SAL) + icomp * (SAL) + base % (SAL) + vec;
}
#define TDP_VINDEX(nsites, ncomp, baseIndex, icomp, vecIndex) \
  tdpVIndex_((size_t) (nsites), (size_t) (ncomp), (size_t) (baseIndex), (size_t) (icomp), \
             (size_t) (vecIndex))
static TDP_HD_ inline size_t tdpVIndex2_(size_t nsites, size_t n1, size_t n2, size_t base,
                                         size_t i1, size_t i2, size_t vec) {
  return tdpVIndex_(nsites, n1 * n2, base, i1 * n2 + i2, vec);
}
#define TDP_VINDEX2(nsites, n1, n2, baseIndex, i1, i2, vecIndex)                      \
  tdpVIndex2_((size_t) (nsites), (size_t) (n1), (size_t) (n2), (size_t) (baseIndex), \
              (size_t) (i1), (size_t) (i2), (size_t) (vecIndex))
#else
#define TDP_VINDEX(nsites, ncomp, baseIndex, icomp, vecIndex) \
  TDP_INDEX(nsites, ncomp, (baseIndex) + (vecIndex), icomp)
#define TDP_VINDEX2(nsites, n1, n2, baseIndex, i1, i2, vecIndex) \
  TDP_INDEX2(nsites, n1, n2, (baseIndex) + (vecIndex), i1, i2)
#endif

/* Elements to allocate for a field of ncomp components on nsites sites. */
static TDP_HD_ inline size_t tdpFieldSize_(size_t nsites, size_t ncomp) {
  return tdpNsitesAlloc_(nsites) * ncomp;
}
#define TDP_FIELD_SIZE(nsites, ncomp) tdpFieldSize_((size_t) (nsites), (size_t) (ncomp))

/* One string naming the build, compared by targetInit() with the library's. */
#ifdef TARGETDP_CHECK
#define TDP_CHECK_NAME_ " checked"
#else
#define TDP_CHECK_NAME_ ""
#endif
/* A profiling build times every launch: caller and library must agree. */
#ifdef TARGETDP_PROFILE
#define TDP_PROFILE_NAME_ " profile"
#else
#define TDP_PROFILE_NAME_ ""
#endif
#define TARGETDP_CONFIG                                                    \
  "backend=" TARGETDP_BACKEND " layout=" TARGETDP_LAYOUT                   \
  " VVL=" TDP_STR(VVL) " SAL=" TDP_STR(SAL) " TPB=" TDP_STR(TARGET_TPB)   \
  TDP_CHECK_NAME_ TDP_PROFILE_NAME_

/* Objects compiled in different configurations must not be linked into one
 * program: their macros disagree on layout, VVL and launch shape, and the
 * result runs wrong without any error. Every translation unit that includes
 * this header defines the one symbol below in a .gnu.linkonce section named
 * after its configuration. The linker keeps one section of each name, so
 * objects of one configuration share one definition; objects of two
 * configurations give two definitions and the link fails, naming both:
 *   b.o:(.gnu.linkonce.d.targetDP_config_c_SOA_VVL1_SAL1_TPB128_unchecked+0x0):
 *   multiple definition of `tdp_objects_built_with_different_targetDP_configurations';
 *   a.o:(.gnu.linkonce.d.targetDP_config_c_AOSOA_VVL4_SAL4_TPB128_unchecked+0x0):
 *   first defined here
 * The library's backend object carries its own, so a program and a library
 * built differently fail the same way (targetInit still checks at run time,
 * e.g. for a shared library or a linker without linkonce sections).
 * gcc -flto: the linker plugin ignores section names, so even objects of
 * one configuration collide; build with -DTDP_NO_CONFIG_MARK there. */
#ifdef TARGETDP_CHECK
#define TDP_CHECK_TAG_ "checked"
#else
#define TDP_CHECK_TAG_ "unchecked"
#endif
#define TARGETDP_CONFIG_TAG                                                      \
  "targetDP_config_" TARGETDP_BACKEND "_" TARGETDP_LAYOUT "_VVL" TDP_STR(VVL)   \
  "_SAL" TDP_STR(SAL) "_TPB" TDP_STR(TARGET_TPB) "_" TDP_CHECK_TAG_
#if defined(__ELF__) && defined(__GNUC__) && !defined(TDP_NO_CONFIG_MARK)
#ifdef __cplusplus
extern "C" {
#endif
extern int tdp_objects_built_with_different_targetDP_configurations;
__attribute__((section(".gnu.linkonce.d." TARGETDP_CONFIG_TAG), used))
int tdp_objects_built_with_different_targetDP_configurations = 1;
#ifdef __cplusplus
}
#endif
#endif

/* ---------------------------------------------------------------------- */
/* Function qualifiers, parallel loops and launch.
 *
 * TDP_TLP walks the sites in strides of VVL; TDP_NLANE_ is the number of
 * valid sites in the current stride (VVL except in the last stride when N
 * is not a multiple of VVL) and TDP_ILP loops over those lanes. For every
 * full stride the trip count is VVL, so the vectorised body is what runs;
 * the short tail stride takes the compiler's remainder path.
 *
 * Indices and extents are long: N may exceed 2^31 (int callers convert
 * without a warning). N is the kernel's extent, a plain variable: it may be
 * evaluated more than once (TDP_LAUNCH evaluates its N once).
 *
 * break: a TLP loop is parallel, it has no "rest of the loop" to skip, so
 * break in its body is an error. Under OpenMP the body is the body of the
 * omp for loop and the compiler refuses it. Elsewhere (serial C, CUDA, where
 * it would leave only this thread's slice) TDP_NOBREAK_ wraps the body in a
 * loop pair that notices a break and stops with its file:line; without a
 * break the pair folds away at compile time. */

/* The operation of a reduction: the library's targetDoubleSum etc. and
 * the block reductions of in-kernel reductions (targetBlockAdd/Min/Max). */
typedef enum { TDP_SUM = 0, TDP_MIN = 1, TDP_MAX = 2 } tdpReduceOp;

/* In-kernel reductions (docs/api.md). TDP_TLP_REDUCE takes one clause per
 * variable, TDP_RSUM(v), TDP_RMIN(v) or TDP_RMAX(v), at most 8; a clause is
 * the triple (OpenMP operator, tdpReduceOp, v), from which each backend
 * builds what it needs: the OpenMP reduction clause, and in the checked C
 * build the variable's operation, name, size and address (for the checks).
 * TDP_EACH_(m, a, b) is m(a) m(b). A ninth clause names a macro
 * TDP_EACH_<ninth> that does not exist: a compile error, not a dropped
 * variable. Min and max are the layer's own OpenMP reductions tdp_min_ and
 * tdp_max_ (declared with the C backend's loops), which keep a NaN: the
 * built-in min and max combine the threads' and lanes' partials in an
 * unspecified way for NaN, and gcc's dropped it (issue 25 item 3). */
#define TDP_RSUM(v) (+, TDP_SUM, v)
#define TDP_RMIN(v) (tdp_min_, TDP_MIN, v)
#define TDP_RMAX(v) (tdp_max_, TDP_MAX, v)
/* TDP_TLP_SUM(base, N, a, b) is TDP_TLP_REDUCE(base, N, TDP_RSUM(a), TDP_RSUM(b)). */
#define TDP_RSUM_EACH_(v) , TDP_RSUM(v)
#define TDP_RMIN_EACH_(v) , TDP_RMIN(v)
#define TDP_RMAX_EACH_(v) , TDP_RMAX(v)
#define TDP_TLP_REDUCE_ALL_(baseIndex, N, each, ...) \
  TDP_TLP_REDUCE_LIST_(baseIndex, N TDP_EACH_(each, __VA_ARGS__))
#define TDP_TLP_REDUCE_LIST_(...) TDP_TLP_REDUCE(__VA_ARGS__)
#define TDP_TLP_SUM(baseIndex, N, ...) TDP_TLP_REDUCE_ALL_(baseIndex, N, TDP_RSUM_EACH_, __VA_ARGS__)
#define TDP_TLP_MIN(baseIndex, N, ...) TDP_TLP_REDUCE_ALL_(baseIndex, N, TDP_RMIN_EACH_, __VA_ARGS__)
#define TDP_TLP_MAX(baseIndex, N, ...) TDP_TLP_REDUCE_ALL_(baseIndex, N, TDP_RMAX_EACH_, __VA_ARGS__)
/* The lane loop inside a reduction. Its lane count has its own name, so
 * TDP_ILP (which needs TDP_TLP's) inside TDP_TLP_REDUCE does not compile. */
#define TDP_ILP_SUM(vecIndex, ...) TDP_ILP_REDUCE(vecIndex)


/* make PROFILE=1 (-DTARGETDP_PROFILE): every launch is timed and, on CUDA,
 * an NVTX range named after the kernel; the table is printed by
 * targetFinalize (targetDP_profile.c). Nothing at all otherwise. */
#ifdef TARGETDP_PROFILE
#define TDP_PROFILE_START_(name) tdpProfileStart(name, 0.0)
#define TDP_PROFILE_STOP_(name) tdpProfileStop(name, 0)
#else
#define TDP_PROFILE_START_(name) ((void) 0)
#define TDP_PROFILE_STOP_(name) ((void) 0)
#endif

#ifdef __CUDACC__

#include <stdio.h> /* device printf */

/* Launch bounds: the compiler then fits every kernel to TARGET_TPB threads
 * per block (registers), or refuses at compile time; never a launch that
 * fails at run time for want of registers. A kernel meant for another block
 * size says so with TDP_KERNEL_TPB(tpb) and is launched by TDP_LAUNCH_TPB. */
#define TDP_KERNEL __global__ __launch_bounds__(TARGET_TPB)
#define TDP_KERNEL_TPB(tpb) __global__ __launch_bounds__(tpb)
/* TDP_KERNEL_OCC(minblocks): a TDP_KERNEL (launched by TDP_LAUNCH*, the
 * build's TARGET_TPB) that asks the compiler to fit at least minblocks
 * blocks per multiprocessor: registers are capped at 64K / (minblocks *
 * TARGET_TPB), spilling if it must (ptxas -v says). Nothing on C. */
#define TDP_KERNEL_OCC(minblocks) __global__ __launch_bounds__(TARGET_TPB, minblocks)
/* TDP_KERNEL_LANES: a TDP_KERNEL whose sites per thread (the lanes of its
 * TDP_TLP loops, coalesced as above) each launch chooses: TDP_LAUNCH_LANES
 * instantiates it for that count, TDP_LAUNCH runs it at VVL. The choice
 * is per kernel because the best one is (H100, docs/performance.md):
 * one-input STREAM kernels want 4 sites per thread, two-input ones 1. */
#define TDP_KERNEL_LANES template <int tdp_vvl_ = VVL> __global__ __launch_bounds__(TARGET_TPB)
#define TDP_DEVICE __device__
#define TDP_HOST_DEVICE __host__ __device__
#define TDP_CONST __constant__

/* 64-bit site indices: one wide multiply-add at the start of the loop, one
 * per further stride (usually none: the launch gives each thread one). */
#define TDP_THREAD_ ((long) blockIdx.x * blockDim.x + threadIdx.x)
#define TDP_NTHREADS_ ((long) gridDim.x * blockDim.x)

static __device__ inline int tdpNoBreak_(int st, const char *file, int line) {
  if (st != 2) {
    printf("targetDP: break in a TDP_TLP loop at %s:%d: a parallel loop cannot be left "
           "early (thread %u of block %u)\n", file, line, threadIdx.x, blockIdx.x);
    __trap();
  }
  return st;
}

/* Several sites per thread, still coalesced (VVL > 1): a block takes
 * VVL * blockDim consecutive sites per stride of the grid; thread t's lane
 * l is site chunk + t + l * blockDim. So baseIndex = chunk + t and
 * vecIndex = l * blockDim: baseIndex + vecIndex is the site, as everywhere,
 * and the 32 threads of a warp touch 32 adjacent sites in every lane (the
 * VVL consecutive sites per thread of the C mapping put a warp's accesses
 * VVL elements apart; run_device.sh times STREAM at VVL 2 and 4).
 * TDP_LANE(vecIndex) is the lane number 0 .. VVL-1, for per-lane local
 * arrays. The valid lanes are a prefix: l * blockDim < N - baseIndex.
 *
 * tdp_vvl_ is the kernel's lanes per thread: VVL, except in a
 * TDP_KERNEL_LANES kernel, whose template parameter of the same name hides
 * this constant (TDP_LAUNCH_LANES picks it per launch, 1 .. VVL). */
static constexpr int tdp_vvl_ = VVL;
static __device__ inline int tdpLanesCuda_(long left, int vvl) {
  const long bd = blockDim.x;
  return left >= vvl * bd ? vvl : (int) ((left + bd - 1) / bd);
}
/* Two passes at lanes > 1, as on the C backend: first the strides whose
 * lanes are all valid (lane count the constant tdp_vvl_, so the unrolled
 * lanes carry no branches and their loads can be issued together), up to
 * the bound `full`; then the one short stride at the end, from `tail`
 * (block 0 only). At one lane the first pass is the whole loop and the
 * second is not there: the pass count and bounds are constants the
 * compiler folds. */
#define TDP_TLP_PASSES_(baseIndex, N, full, tail)                                    \
  _Pragma("unroll") for (int tdp_pass_ = 0; tdp_pass_ < (tdp_vvl_ > 1 ? 2 : 1); tdp_pass_++) \
  for (long tdp_n_ = (N), tdp_full_ = (full),                                         \
            baseIndex = (tdp_pass_ ? (tail) : tdp_vvl_ * (long) blockIdx.x * blockDim.x) + \
                        threadIdx.x;                                                 \
       baseIndex < (tdp_pass_ ? tdp_n_ : tdp_full_); baseIndex += tdp_vvl_ * TDP_NTHREADS_)
/* n rounded down to whole chunks (lanes * blockDim sites): the short chunk's start */
#define TDP_CHUNK_FLOOR_(n) ((n) - (n) % (tdp_vvl_ * (long) blockDim.x))
/* The first pass's bound. TDP_TLP: a stride is full if its chunk
 * (baseIndex - threadIdx.x) ends by N, i.e. baseIndex < N - (lanes *
 * blockDim - 1) + threadIdx.x: no division. TDP_LAUNCH gives a thread one
 * stride, so its prologue is what counts: a 64-bit remainder in every
 * thread had cost 0.5% of a float Add and Triad at 2 lanes (H100).
 * TDP_TLP_REDUCE: N rounded down to chunks, one remainder per thread, as
 * its grid is capped and a thread takes many strides: with the first
 * bound nvcc recomputed addresses and strides in the loop (40 PTX
 * instructions a stride instead of 32), 5% of a float Dot. */
#define TDP_FULL_TLP_(n) \
  (tdp_vvl_ > 1 ? (n) - (tdp_vvl_ * (long) blockDim.x - 1) + threadIdx.x : (n))
#define TDP_FULL_REDUCE_(n) (tdp_vvl_ > 1 ? TDP_CHUNK_FLOOR_(n) : (n))
#define TDP_LANES_DECL_(nlane, n, base)                                              \
  int nlane = tdp_pass_ ? tdpLanesCuda_((n) - (base), tdp_vvl_) : tdp_vvl_,           \
      tdp_lstride_ = (int) blockDim.x
#define TDP_TLP(baseIndex, N)                                                          \
  TDP_TLP_PASSES_(baseIndex, N, TDP_FULL_TLP_(tdp_n_),                                 \
                  blockIdx.x == 0 ? TDP_CHUNK_FLOOR_(tdp_n_) : tdp_n_)                  \
  TDP_NOBREAK_LANES_(TDP_LANES_DECL_(tdp_nlane_, tdp_n_, baseIndex))
#define TDP_TLP_NOSTRIDE(index, N)                                                    \
  for (long tdp_n_ = (N), index = TDP_THREAD_; index < tdp_n_; index += TDP_NTHREADS_) \
    TDP_NOBREAK_
/* tdp_lstride_ is the offset between lanes: blockDim here, 1 in the box
 * loops of targetDP_box.h (their lanes are consecutive sites of a row).
 * The lane number rides along as tdp_lane_<vecIndex>, a constant once the
 * loop is unrolled, so per-lane arrays indexed by TDP_LANE stay registers:
 * the bound VVL lets nvcc unroll it fully, the lane count only ends it. */
#define TDP_ILP_LANES_(vecIndex, nlane)                                              \
  _Pragma("unroll") for (int TDP_CAT_(tdp_lane_, vecIndex) = 0, vecIndex = 0;         \
                         TDP_CAT_(tdp_lane_, vecIndex) < (VVL) &&                     \
                         TDP_CAT_(tdp_lane_, vecIndex) < (nlane);                     \
                         TDP_CAT_(tdp_lane_, vecIndex)++, vecIndex += tdp_lstride_)
#define TDP_ILP(vecIndex) TDP_ILP_LANES_(vecIndex, tdp_nlane_)
#define TDP_LANE(vecIndex) TDP_CAT_(tdp_lane_, vecIndex)

/* Each thread keeps its own copy of every variable declared before the
 * loop: the reduction variables are its partials, combined after the loop
 * by targetBlockAdd/Min/Max*(). The clauses are not needed here. */
#define TDP_TLP_REDUCE(baseIndex, N, ...)                                              \
  TDP_TLP_PASSES_(baseIndex, N, TDP_FULL_REDUCE_(tdp_n_),                              \
                  tdp_full_ + (blockIdx.x == 0 ? 0L : tdp_n_))                         \
  TDP_NOBREAK_LANES_(TDP_LANES_DECL_(tdp_rlane_, tdp_n_, baseIndex))
/* TDP_TLP_REDUCE with extra OpenMP clauses (C backend; ignored here). */
#define TDP_TLP_REDUCE_OPT_(opts, baseIndex, N, ...) TDP_TLP_REDUCE(baseIndex, N, __VA_ARGS__)

/* One thread per stride: blocks then sweep the lattice in order, which
 * keeps the many streams of a stencil kernel close together in DRAM. */
#define TDP_CHEVRONS_(N) <<<tdpNumBlocks((N), VVL * TARGET_TPB, 0), TARGET_TPB>>>
#define TDP_CHEVRONS_NOSTRIDE_(N) <<<tdpNumBlocks((N), TARGET_TPB, 0), TARGET_TPB>>>
/* For kernels that end in targetBlockAdd*: a grid that fills the GPU twice
 * and no more (the grid-stride TLP loop covers the rest), so the kernel
 * pays one atomic per resident block, not one per TPB sites. */
#define TDP_CHEVRONS_REDUCE_(N) <<<tdpNumBlocks((N), VVL * TARGET_TPB, 1), TARGET_TPB>>>

/* TDP_LAUNCH(kernel, N, args...) is kernel<<<blocks, TPB>>>(args...) and
 * then a check of the launch itself (a bad grid, too many resources), which
 * is reported with the kernel's name and the file:line of the launch, not
 * blamed on the next call. A fault inside the kernel shows at the next
 * targetSynchronize(). N is evaluated once. */
#define TDP_LAUNCH_WITH_(form, chevrons, kernel, N, ...)                               \
  do {                                                                                \
    const long tdp_launch_n_ = (N);                                                   \
    if (tdpLaunchBegin_(form, #kernel, tdp_launch_n_, __FILE__, __LINE__) == TARGET_SUCCESS) { \
      TDP_PROFILE_START_(#kernel);                                                    \
      kernel chevrons(tdp_launch_n_)(__VA_ARGS__);                                    \
      tdpLaunchCheck(#kernel, __FILE__, __LINE__);                                    \
      TDP_PROFILE_STOP_(#kernel);                                                     \
    }                                                                                 \
  } while (0)
#define TDP_LAUNCH(kernel, N, ...) \
  TDP_LAUNCH_WITH_("TDP_LAUNCH", TDP_CHEVRONS_, kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_NOSTRIDE(kernel, N, ...) \
  TDP_LAUNCH_WITH_("TDP_LAUNCH_NOSTRIDE", TDP_CHEVRONS_NOSTRIDE_, kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_REDUCE(kernel, N, ...) \
  TDP_LAUNCH_WITH_("TDP_LAUNCH_REDUCE", TDP_CHEVRONS_REDUCE_, kernel, N, __VA_ARGS__)
/* TDP_LAUNCH_LANES(kernel, N, lanes, args...): a TDP_KERNEL_LANES kernel
 * at `lanes` sites per thread: 1, 2, 4, 8 or 16 below VVL, or VVL; any
 * other count is refused before the launch, on both backends. The C
 * backend runs the kernel as TDP_LAUNCH does (its lanes are the SIMD
 * width, VVL). lanes and N are evaluated once. */
#define TDP_LANES_MIN_(l) ((l) < (VVL) ? (l) : (VVL))
#define TDP_LAUNCH_LANES_AT_(kernel, l, n, ...)                                      \
  kernel<TDP_LANES_MIN_(l)>                                                          \
      <<<tdpNumBlocks((n), TDP_LANES_MIN_(l) * (long) TARGET_TPB, 0), TARGET_TPB>>>(__VA_ARGS__)
#define TDP_LAUNCH_LANES(kernel, N, lanes, ...)                                     \
  do {                                                                          \
    const long tdp_lanes_n_ = (N);                                              \
    const int tdp_lanes_ = (lanes);                                             \
    if (tdpLaunchLanesCheck(#kernel, tdp_lanes_, VVL, __FILE__, __LINE__) == TARGET_SUCCESS && \
        tdpLaunchBegin_("TDP_LAUNCH_LANES", #kernel, tdp_lanes_n_, __FILE__, __LINE__) ==  \
            TARGET_SUCCESS) {                                                   \
      TDP_PROFILE_START_(#kernel);                                              \
      switch (tdp_lanes_) {                                                     \
      case 1: TDP_LAUNCH_LANES_AT_(kernel, 1, tdp_lanes_n_, __VA_ARGS__); break;  \
      case 2: TDP_LAUNCH_LANES_AT_(kernel, 2, tdp_lanes_n_, __VA_ARGS__); break;  \
      case 4: TDP_LAUNCH_LANES_AT_(kernel, 4, tdp_lanes_n_, __VA_ARGS__); break;  \
      case 8: TDP_LAUNCH_LANES_AT_(kernel, 8, tdp_lanes_n_, __VA_ARGS__); break;  \
      case 16: TDP_LAUNCH_LANES_AT_(kernel, 16, tdp_lanes_n_, __VA_ARGS__); break; \
      default: TDP_LAUNCH_LANES_AT_(kernel, VVL, tdp_lanes_n_, __VA_ARGS__); break; \
      }                                                                         \
      tdpLaunchCheck(#kernel, __FILE__, __LINE__);                              \
      TDP_PROFILE_STOP_(#kernel);                                               \
    }                                                                           \
  } while (0)
/* TDP_LAUNCH_TPB(kernel, N, tpb, args...): tpb threads per block (a
 * TDP_KERNEL_TPB(tpb) kernel), blocks enough for N sites in strides of VVL.
 * tpb is evaluated once. A tpb that is not a multiple of 32 in [32, 1024]
 * is refused before the launch, on both backends (the warp shuffles of the
 * block reductions need whole warps); more threads than the kernel's launch
 * bounds is reported like any failed launch. */
#define TDP_LAUNCH_TPB(kernel, N, tpb, ...)                                       \
  do {                                                                          \
    const long tdp_tpb_n_ = (N);                                                \
    const long tdp_tpb_ = (tpb);                                                \
    if (tdpLaunchTpbCheck(#kernel, tdp_tpb_, __FILE__, __LINE__) == TARGET_SUCCESS && \
        tdpLaunchBegin_("TDP_LAUNCH_TPB", #kernel, tdp_tpb_n_, __FILE__, __LINE__) == \
            TARGET_SUCCESS) {                                                   \
      kernel<<<tdpNumBlocks(tdp_tpb_n_, VVL * tdp_tpb_, 0), (unsigned int) tdp_tpb_>>>(__VA_ARGS__); \
      tdpLaunchCheck(#kernel, __FILE__, __LINE__);                              \
    }                                                                           \
  } while (0)

extern "C" long tdpGridBlocksMax_; /* two fills of the GPU, set by targetInit */
static inline unsigned int tdpNumBlocks(long n, long per_block, int capped) {
  if (per_block < 1) return 1; /* the launch itself then reports the bad block */
  long nb = (n + per_block - 1) / per_block;
  if (capped && nb > tdpGridBlocksMax_) nb = tdpGridBlocksMax_;
  return (unsigned int) (nb < 1 ? 1 : nb);
}


#include <stdio.h> /* device printf, for the block-size trap below */

/* Block reductions: one implementation, a template over the operation and
 * the element type, used by targetBlock{Add,Min,Max}{Double,Float,Int,Long}
 * and by the library's own reductions (targetDP_CUDA.cu). Min and max
 * propagate a NaN wherever it is (y NaN wins; x NaN stays), as a sum does
 * and as the C backend does (docs/api.md, "NaN"); one more compare per
 * element, in code bound by memory. */
template <typename T> static __device__ inline bool tdpIsNan_(T x) {
  (void) x; /* integers have none */
  return false;
}
static __device__ inline bool tdpIsNan_(double x) { return x != x; }
static __device__ inline bool tdpIsNan_(float x) { return x != x; }
template <tdpReduceOp op, typename T> static __device__ inline T tdpCombine_(T x, T y) {
  if (op == TDP_SUM) return x + y;
  if (op == TDP_MIN) return (y < x || tdpIsNan_(y)) ? y : x;
  return (y > x || tdpIsNan_(y)) ? y : x;
}

/* The op of every thread's v, valid in thread 0. Warp shuffles, then one
 * value per warp through shared memory, then a shuffle in warp 0. Every
 * thread of the block must call it, blockDim.x a multiple of 32 (at most
 * 1024; any other size traps, reported by the next targetSynchronize). The shared array belongs to the instantiation, so two calls in a
 * row for the same op and type share it: the barrier before the write
 * waits until warp 0 of the previous call has read it (without it, a
 * kernel with two sums raced: issue 9). */
template <tdpReduceOp op, typename T> static __device__ inline T tdpBlockReduce_(T v) {
  __shared__ T warp_val[32];
  /* A TDP_LAUNCH_TPB size: the full-warp shuffles would be wrong. The
   * message has no arguments: a printf argument buffer is an 8-byte stack
   * frame (local memory) in every kernel that reduces. */
  if (blockDim.x % 32) {
    if (threadIdx.x == 0)
      printf("targetDP: a block reduction (targetBlock*) needs a block size that is a multiple "
             "of 32\n");
    __trap();
  }
  const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarp = blockDim.x / 32;
  for (int off = 16; off > 0; off /= 2) v = tdpCombine_<op>(v, __shfl_down_sync(0xffffffffu, v, off));
  __syncthreads();
  if (lane == 0) warp_val[warp] = v;
  __syncthreads();
  if (warp == 0) {
    /* Lanes past the last warp hold the identity: 0 for a sum, any of
     * the values (warp 0's) for min and max. */
    v = lane < nwarp ? warp_val[lane] : (op == TDP_SUM ? (T) 0 : warp_val[0]);
    for (int off = 16; off > 0; off /= 2) v = tdpCombine_<op>(v, __shfl_down_sync(0xffffffffu, v, off));
  }
  return v;
}

/* Atomics per operation. Sums and integer min/max are hardware atomics
 * (long through its 64-bit twin; Linux long is 64 bits). Floating min and
 * max have no hardware atomic: a compare-and-swap loop on the bits, which
 * stops as soon as the stored value is already at least as good, so the
 * loop runs once per block in practice. A NaN wins (tdpCombine_), and the
 * loop compares bits, never values: a location holding a NaN is "already
 * as good" when the combine gives back its bits, so the loop ends there
 * too (comparing values, NaN == NaN is false and it spun; issue 25). */
static_assert(sizeof(long) == sizeof(long long), "targetBlock*Long needs a 64-bit long");
static __device__ inline unsigned long long tdpBits_(double x) {
  return (unsigned long long) __double_as_longlong(x);
}
static __device__ inline unsigned int tdpBits_(float x) { return (unsigned int) __float_as_int(x); }
static __device__ inline double tdpFromBits_(unsigned long long b, double) {
  return __longlong_as_double((long long) b);
}
static __device__ inline float tdpFromBits_(unsigned int b, float) { return __int_as_float((int) b); }
/* Returns the value it replaced (or found, when v changed nothing). */
template <tdpReduceOp op, typename T> static __device__ inline T tdpAtomicCas_(T *t, T v) {
  typedef decltype(tdpBits_(v)) Bits;
  Bits *tb = (Bits *) t, old = *tb;
  for (;;) {
    T cur = tdpFromBits_(old, v);
    Bits want = tdpBits_(tdpCombine_<op>(cur, v));
    if (want == old) return cur; /* v would change nothing */
    Bits seen = atomicCAS(tb, old, want);
    if (seen == old) return cur;
    old = seen;
  }
}
template <tdpReduceOp op> static __device__ inline void tdpAtomic_(double *t, double v) {
  if (op == TDP_SUM) atomicAdd(t, v);
  else tdpAtomicCas_<op>(t, v);
}
template <tdpReduceOp op> static __device__ inline void tdpAtomic_(float *t, float v) {
  if (op == TDP_SUM) atomicAdd(t, v);
  else tdpAtomicCas_<op>(t, v);
}
template <tdpReduceOp op> static __device__ inline void tdpAtomic_(int *t, int v) {
  if (op == TDP_SUM) atomicAdd(t, v);
  else if (op == TDP_MIN) atomicMin(t, v);
  else atomicMax(t, v);
}
template <tdpReduceOp op> static __device__ inline void tdpAtomic_(long *t, long v) {
  if (op == TDP_SUM) atomicAdd((unsigned long long *) t, (unsigned long long) v);
  else if (op == TDP_MIN) atomicMin((long long *) t, (long long) v);
  else atomicMax((long long *) t, (long long) v);
}
template <tdpReduceOp op, typename T> static __device__ inline void tdpBlockOp_(T *t, T partial) {
  T r = tdpBlockReduce_<op>(partial);
  if (threadIdx.x == 0) tdpAtomic_<op>(t, r);
}
#define TDP_BLOCK_OPS_(Name, T)                                                              \
  static __device__ inline void targetBlockAdd##Name(T *t, T p) { tdpBlockOp_<TDP_SUM>(t, p); } \
  static __device__ inline void targetBlockMin##Name(T *t, T p) { tdpBlockOp_<TDP_MIN>(t, p); } \
  static __device__ inline void targetBlockMax##Name(T *t, T p) { tdpBlockOp_<TDP_MAX>(t, p); }

/* The lane loop inside a reduction: lanes a block apart, as TDP_ILP. */
#define TDP_ILP_REDUCE(vecIndex) TDP_ILP_LANES_(vecIndex, tdp_rlane_)

/* Kernel hints (the list: targetDP.h) */
#define TDP_GPU 1
#define TDP_LOAD_ONCE(p) __ldcs(p)
#define TDP_STORE_ONCE(p, x) __stcs((p), (x))
#define TDP_CONST_VALUE(t_expr, literal_expr) (t_expr)
typedef double2 tdpDouble2;
#define TDP_HAVE_STREAM_STORE 0

#else /* C backend: OpenMP threads + omp simd, or serial without OpenMP */

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
#define TDP_TLP_REDUCE_OPT_(opts, baseIndex, N, ...)                                 \
  TDP_RREGISTER_(TDP_EACH_(TDP_RADDR_, __VA_ARGS__))                                 \
  TDP_OMP_(parallel for schedule(static) TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))       \
  for (long tdp_c_ = 0; tdp_c_ < (N); tdp_c_ += TDP_RCHUNK_)                          \
    TDP_OMP_SIMD_(opts TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))                          \
    for (long baseIndex = tdp_c_; baseIndex < tdpRChunkEnd_(tdp_c_, (N)); baseIndex++) \
      TDP_NOBREAK_
#else
/* opts: extra clauses of the loop's pragma (TDP_TLP_EXACT's simdlen(1)). */
#define TDP_TLP_REDUCE_OPT_(opts, baseIndex, N, ...)                   \
  TDP_RREGISTER_(TDP_EACH_(TDP_RADDR_, __VA_ARGS__))                   \
  TDP_OMP_PFS_(opts TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))              \
  for (long baseIndex = 0; baseIndex < (N); baseIndex++) TDP_NOBREAK_
#endif
#define TDP_TLP_REDUCE(baseIndex, N, ...) TDP_TLP_REDUCE_OPT_(, baseIndex, N, __VA_ARGS__)
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
    if (tdpLaunchLanesCheck(#kernel, (lanes), VVL, __FILE__, __LINE__) == TARGET_SUCCESS) \
      TDP_LAUNCH_AS_("TDP_LAUNCH_LANES", kernel, N, __VA_ARGS__);              \
  } while (0)
#define TDP_LAUNCH_TPB(kernel, N, tpb, ...)                                    \
  do {                                                                         \
    if (tdpLaunchTpbCheck(#kernel, (tpb), __FILE__, __LINE__) == TARGET_SUCCESS) \
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

#endif /* __CUDACC__ */

/* Atomics for target code, both backends (their own file: targetAtomic*). */
#include "targetDP/targetDP_atomics.h"

TDP_BLOCK_OPS_(Double, double)
TDP_BLOCK_OPS_(Float, float)
TDP_BLOCK_OPS_(Int, int)
TDP_BLOCK_OPS_(Long, long)

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

/* ---------------------------------------------------------------------- */
/* Backend hints for kernels, so that application code needs no backend
 * #ifdef of its own (docs/api.md, "Kernel hints").
 *   TDP_GPU            1 when kernels run on a GPU (CUDA), else 0
 *   TDP_RESTRICT       restrict for kernel pointer arguments, in C, C++ and
 *                      CUDA alike (__restrict__; empty where unknown)
 *   TDP_UNROLL(n)      unroll the next loop n times (n >= its trip count:
 *                      fully); nvcc and clang "unroll n", gcc "GCC unroll n"
 *   TDP_CONST_VALUE(t_expr, literal_expr)
 *                      a constant as the backend reads it best: on a GPU
 *                      from the TDP_CONST symbol (constant cache); on a CPU
 *                      from the literal, which the compiler can fold (a
 *                      TDP_CONST there is a plain global it cannot)
 *   TDP_ILP_STAGED(vecIndex, T, dest, value...)
 *                      dest = value for every lane of the stride (both may
 *                      use vecIndex), every lane's value (its loads) before
 *                      any lane's store (targetDP_lanes.h)
 *   TDP_STREAM_LANES(field, nsites, ncomp, site, icomp, r)
 *                      a stride's lane values r[TDP_LANE(v)] stored to the
 *                      field, as streaming stores where the CPU can
 *                      (targetDP_lanes.h, after the checked index functions)
 *   TDP_HAVE_STREAM_STORE, tdpStreamStore8(dst, src), tdpStreamFence()
 *                      streaming (non-temporal) stores of 8 doubles to a
 *                      64-byte aligned dst, where the CPU has them (AVX,
 *                      unchecked builds): no read of the destination line
 *                      first. gcc ignores "omp simd nontemporal", hence
 *                      intrinsics. Call tdpStreamFence() after the kernel,
 *                      before anything reads the data.
 *   TDP_LOAD_ONCE(p)   *p for data a kernel reads once and nothing reads
 *                      soon after (e.g. a stencil's links): on a GPU a
 *                      cache-streaming load (__ldcs, ld.global.cs: evict
 *                      first in L1 and L2), so that it does not push out
 *                      data that is read again (the neighbours' fields);
 *                      a plain load on a CPU. p: const double *, float * or
 *                      tdpDouble2 *.
 *   TDP_STORE_ONCE(p, x)  *p = x for results that nothing reads soon after
 *                      (a field written once per sweep and read by a later
 *                      kernel beyond L2): on a GPU a cache-streaming store
 *                      (__stcs, st.global.cs: evict first); a plain store on
 *                      a CPU (CPU streaming stores: TDP_STREAM_LANES). An
 *                      expression of type void. p: double *, float * or
 *                      tdpDouble2 *.
 *   tdpDouble2         two doubles .x, .y aligned to 16 bytes (CUDA's
 *                      double2): a complex field stored as (re, im) pairs is
 *                      then read and written 16 bytes per access (QUDA's
 *                      double2 field order), half the instructions of two
 *                      8-byte ones. A field of ncomp pairs is indexed by
 *                      TDP_INDEX(nsites, ncomp, ...) on a tdpDouble2 pointer. */

/* ---------------------------------------------------------------------- */
/* TDP_STREAM_LANES: a stride's lanes stored as streaming stores where the
 * CPU has them (its own file: the loop it serves is shown there). */
#include "targetDP/targetDP_lanes.h"

/* ---------------------------------------------------------------------- */
/* Host API. Every call is checked; on failure the default is to print the
 * call, the caller's file and line and the reason, and exit(1). After
 * targetSetErrorAbort(0) a failing call returns the error code instead and
 * targetLastErrorString() holds the message. The public names are macros
 * that pass the caller's __FILE__ and __LINE__. */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TARGET_SUCCESS = 0,
  TARGET_ERROR_INVALID_VALUE, /* NULL pointer, bad size or extent */
  TARGET_ERROR_MEMORY,        /* allocation failed */
  TARGET_ERROR_CONFIG,        /* library and caller built differently */
  TARGET_ERROR_DEVICE,        /* the CUDA runtime reported an error */
  TARGET_ERROR_NOT_INITIALISED, /* called before targetInit or after targetFinalize */
  TARGET_ERROR_NOT_AVAILABLE  /* not provided by this backend (e.g. CUDA IPC on the C backend) */
} targetError_t;

#define TDP_AT __FILE__, __LINE__

/* Element types of the typed helpers (docs/api.md, "Element types"). Each
 * helper has one implementation over the element size (moves: fills,
 * copies, packs, conversions) or one per arithmetic type generated from one
 * definition (reductions). The complex types are C99 double _Complex and
 * float _Complex in C; in C++ (and CUDA) a struct of the same layout, two
 * doubles or floats (real, imaginary), as cuDoubleComplex / cuFloatComplex. */
typedef enum {
  TDP_TYPE_INT = 0,
  TDP_TYPE_LONG = 1,
  TDP_TYPE_DOUBLE = 2,
  TDP_TYPE_FLOAT = 3,
  TDP_TYPE_DOUBLE_COMPLEX = 4,
  TDP_TYPE_FLOAT_COMPLEX = 5
} tdpType;
typedef tdpType tdpScanType; /* the scans take int, long and double */
#ifdef __cplusplus
typedef struct { double re, im; } tdpDoubleComplex;
typedef struct { float re, im; } tdpFloatComplex;
#else
typedef double _Complex tdpDoubleComplex;
typedef float _Complex tdpFloatComplex;
#endif
size_t tdpTypeSize(tdpType type); /* bytes of one element; 0 for an unknown type */

int tdpInit(const char *caller_config, const char *file, int line);
int tdpFinalize(const char *file, int line);
#define targetInit() tdpInit(TARGETDP_CONFIG, TDP_AT)
#define targetFinalize() tdpFinalize(TDP_AT)

void targetSetErrorAbort(int abort_on_error);
targetError_t targetLastError(void);
const char *targetLastErrorString(void);
const char *targetConfigString(void); /* library build + device, for logs */

int tdpMalloc(void **t_ptr, size_t nbytes, int zero, int unified, const char *f, int l);
int tdpFree(void *t_ptr, const char *f, int l);
#define targetMalloc(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 0, 0, TDP_AT)
#define targetCalloc(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 1, 0, TDP_AT)
#define targetMallocUnified(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 0, 1, TDP_AT)
#define targetCallocUnified(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 1, 1, TDP_AT)
#define targetFree(t_ptr) tdpFree((t_ptr), TDP_AT)

int tdpCopy(void *dst, const void *src, size_t nbytes, int to_target, size_t host_known,
            const char *f, int l);
int tdpCopyConst(void *t_symbol, size_t symbol_bytes, const void *src, size_t src_known,
                 size_t nbytes, const char *f, int l);
/* Untyped (bytes): the host side is held to what the compiler knows of it. */
#define copyToTarget(t_dst, src, nbytes) \
  tdpCopy((t_dst), (src), (nbytes), 1, TDP_OBJECT_SIZE_(src), TDP_AT)
#define copyFromTarget(dst, t_src, nbytes) \
  tdpCopy((dst), (t_src), (nbytes), 0, TDP_OBJECT_SIZE_(dst), TDP_AT)
/* t_symbol: the address of a TDP_CONST variable (&t_x, or the array t_a);
 * nbytes may not exceed the bytes from there to the variable's end, which
 * the compiler knows from the expression (TDP_OBJECT_SIZE_: &t_x is
 * sizeof t_x, t_a the whole array, &t_a[2] the rest of it). The CUDA
 * backend also asks the runtime (cudaGetSymbolSize). */
#define copyConstToTarget(t_symbol, src, nbytes)                                        \
  tdpCopyConst((void *) (t_symbol), TDP_OBJECT_SIZE_(t_symbol), (src), TDP_OBJECT_SIZE_(src), \
               (nbytes), TDP_AT)

/* Fills, subset copies, reductions and conversions of double fields: the
 * double names of the typed helpers (targetDP_types.h, which has every
 * element type), so that each is checked the same way. */
#define targetZero(t_array, n) targetZeroDouble(t_array, n)
#define targetSetConstant(t_array, value, n) targetSetConstantDouble(t_array, value, n)

/* Subset copies of a field of ncomp doubles per site in the build's layout:
 * all components of the listed sites move, nothing else. Extents are long
 * (int arguments convert); the entries of a site list are int, so a listed
 * site is below 2^31 -- masked and 3-D copies have no such limit. */
#define copyToTargetSites(t_dst, src, nsites, ncomp, sites, nlist) \
  copyToTargetSitesDouble(t_dst, src, nsites, ncomp, sites, nlist)
#define copyFromTargetSites(dst, t_src, nsites, ncomp, sites, nlist) \
  copyFromTargetSitesDouble(dst, t_src, nsites, ncomp, sites, nlist)
#define copyToTargetMasked(t_dst, src, nsites, ncomp, mask) \
  copyToTargetMaskedDouble(t_dst, src, nsites, ncomp, mask)
#define copyFromTargetMasked(dst, t_src, nsites, ncomp, mask) \
  copyFromTargetMaskedDouble(dst, t_src, nsites, ncomp, mask)
/* extents: local lattice including the halo, site (x,y,z) at (x*ny + y)*nz + z;
 * each extent is an int, their product (the site count) may exceed 2^31.
 * The halo is every site within nhalo of a face; the edge is the interior
 * layer of depth nhalo next to it: what neighbours need from us. */
#define copyToTarget3DHalo(t_dst, src, extents, nhalo, ncomp) \
  copyToTarget3DHaloDouble(t_dst, src, extents, nhalo, ncomp)
#define copyFromTarget3DEdge(dst, t_src, extents, nhalo, ncomp) \
  copyFromTarget3DEdgeDouble(dst, t_src, extents, nhalo, ncomp)

/* Reductions of n values of a target array, result on the host. The order
 * of summation is fixed, so a run is bitwise reproducible on one device.
 * An int reduction gives a long long. */
#define targetDoubleSum(res, t_a, n) \
  tdpReduceDouble_(TDP_TYPED_(double, res), TDP_TYPED_(double, t_a), (n), TDP_SUM, TDP_AT)
#define targetDoubleMin(res, t_a, n) \
  tdpReduceDouble_(TDP_TYPED_(double, res), TDP_TYPED_(double, t_a), (n), TDP_MIN, TDP_AT)
#define targetDoubleMax(res, t_a, n) \
  tdpReduceDouble_(TDP_TYPED_(double, res), TDP_TYPED_(double, t_a), (n), TDP_MAX, TDP_AT)
#define targetIntSum(res, t_a, n) \
  tdpReduceInt_(TDP_TYPED_(long long, res), TDP_TYPED_(int, t_a), (n), TDP_SUM, TDP_AT)
#define targetIntMin(res, t_a, n) \
  tdpReduceInt_(TDP_TYPED_(long long, res), TDP_TYPED_(int, t_a), (n), TDP_MIN, TDP_AT)
#define targetIntMax(res, t_a, n) \
  tdpReduceInt_(TDP_TYPED_(long long, res), TDP_TYPED_(int, t_a), (n), TDP_MAX, TDP_AT)

/* Layout conversion between target arrays (dst and src distinct). */
#define targetAoS2SoA(t_soa, t_aos, nsites, ncomp) targetAoS2SoADouble(t_soa, t_aos, nsites, ncomp)
#define targetSoA2AoS(t_aos, t_soa, nsites, ncomp) targetSoA2AoSDouble(t_aos, t_soa, nsites, ncomp)

/* The double calls as functions (the 2014 layer, targetDP_compat.c, calls
 * them; they cannot know the host side's size). */
int tdpSetConstant(double *t_array, double value, size_t n, const char *f, int l);
int tdpCopySites(double *dst, const double *src, long nsites, long ncomp,
                 const int *sites, long nlist, int to_target, const char *f, int l);
int tdpCopyMasked(double *dst, const double *src, long nsites, long ncomp,
                  const char *mask, int to_target, const char *f, int l);
int tdpCopy3D(double *dst, const double *src, const int extents[3], long nhalo,
              long ncomp, int to_target, const char *f, int l);
int tdpReduceDouble(double *result, const double *t_a, size_t n, tdpReduceOp op, const char *f,
                    int l);
int tdpReduceInt(long long *result, const int *t_a, size_t n, tdpReduceOp op, const char *f,
                 int l);
int tdpConvert(double *t_dst, const double *t_src, long nsites, long ncomp, int aos2soa,
               const char *f, int l);

/* ---------------------------------------------------------------------- */
/* Element types: the typed names of the helpers above (targetSetConstantFloat,
 * targetLongSum, copyToTargetSitesInt, ...), generated per type. */
#include "targetDP/targetDP_types.h"

/* Called by every launch form before the kernel (form names it: "TDP_LAUNCH",
 * "TDP_LAUNCH_STREAM", ...): the layer is live (targetInit called, not yet
 * targetFinalize) and the extent n is not negative, which only an int
 * product that overflowed gives (nx * ny * nz past 2^31); refused, the
 * kernel does not run. */
int tdpLaunchBegin_(const char *form, const char *kernel, long n, const char *f, int l);
/* Called by TDP_LAUNCH on CUDA right after kernel<<<...>>>: a launch that
 * failed is reported with the kernel's name and the launch's file:line. */
int tdpLaunchCheck(const char *kernel, const char *f, int l);
/* The 2014 launch, kernel __targetLaunch__(N) (args) (targetDP_compat.h):
 * tdpLaunchBegin_'s checks, with no kernel name to give. On the C backend
 * the check rides in the kernel's first argument and cannot skip the call,
 * so a refusal stops the program in either error mode. */
int tdpLegacyLaunch_(long n, const char *f, int l);
/* Called by TDP_LAUNCH_TPB before the launch: tpb a multiple of 32 in [32, 1024]. */
int tdpLaunchTpbCheck(const char *kernel, long tpb, const char *f, int l);
/* Called by TDP_LAUNCH_LANES before the launch: 1, 2, 4, 8 or 16 below vvl, or vvl. */
int tdpLaunchLanesCheck(const char *kernel, long lanes, int vvl, const char *f, int l);

/* Wait for the target; on CUDA also reports a failed kernel launch. */
int tdpSynchronize(const char *what, const char *f, int l);
#define targetSynchronize() tdpSynchronize("targetSynchronize", TDP_AT)
#define checkTargetError(what) tdpSynchronize((what), TDP_AT)

/* ---------------------------------------------------------------------- */
/* Constants beyond copyConstToTarget, and copies between target arrays. */

int tdpCopyConstFrom(void *dst, size_t dst_known, const void *t_symbol, size_t symbol_bytes,
                     size_t nbytes, const char *f, int l);
int tdpCopyConstFromArray(void *t_symbol, size_t symbol_bytes, const void *t_src, size_t nbytes,
                          const char *f, int l);
int tdpConstAddress(void **t_ptr, const void *t_symbol, const char *f, int l);
int tdpCopyTargetToTarget(void *t_dst, const void *t_src, size_t nbytes, const char *f, int l);
/* host <- a TDP_CONST variable */
#define copyConstFromTarget(dst, t_symbol, nbytes)                                       \
  tdpCopyConstFrom((dst), TDP_OBJECT_SIZE_(dst), (const void *) (t_symbol),                \
                   TDP_OBJECT_SIZE_(t_symbol), (nbytes), TDP_AT)
/* a TDP_CONST variable <- a target array (no trip through the host) */
#define copyTargetToConst(t_symbol, t_src, nbytes) \
  tdpCopyConstFromArray((void *) (t_symbol), TDP_OBJECT_SIZE_(t_symbol), (t_src), (nbytes), TDP_AT)
/* *t_ptr = the target address of a TDP_CONST variable (the variable itself,
 * as in 2014: targetConstAddress(&t_ptr, t_table)), for target code to read
 * through (a kernel argument); it is not targetMalloc memory */
#define targetConstAddress(t_ptr, t_object) \
  tdpConstAddress((void **) (t_ptr), (const void *) &(t_object), TDP_AT)
#define copyTargetToTarget(t_dst, t_src, nbytes) \
  tdpCopyTargetToTarget((t_dst), (t_src), (nbytes), TDP_AT)

/* ---------------------------------------------------------------------- */
/* Scans and stream compaction of target arrays (targetScan*, targetCompactIndices). */
#include "targetDP/targetDP_scan.h"

/* ---------------------------------------------------------------------- */
/* Profiling (targetDP_profile.c). In a build with PROFILE=1 every launch
 * and library call is timed (CUDA: events, and an NVTX range named after
 * it) and targetFinalize prints one line per name: calls, total time,
 * declared bytes, GB/s. targetProfileBytes declares the bytes that each
 * later call of `name` moves. Without PROFILE=1 these do nothing. */
void targetProfileBytes(const char *name, double bytes);
void targetProfilePrint(FILE *file); /* the table so far */
void tdpProfileStart(const char *name, double bytes);
int tdpProfileStop(const char *name, int rc);

/* Asynchronous work: streams, events, asynchronous copies, pinned host memory,
 * CUDA IPC handles, packing boxes of a field (targetStream*, TDP_LAUNCH_STREAM,
 * copy*Async, targetMallocHost, targetIpc*, targetPackBox*, targetFaceBox). */
#include "targetDP/targetDP_async.h"

/* GPUs visible to this process and the one it uses (C backend: 0 and -1). */
int targetDeviceCount(void);
int targetDeviceId(void);

#ifdef __cplusplus
}
#endif

/* The 2014 API: the __target*__ macro names (off with -DTDP_NO_LEGACY_NAMES)
 * and the 2014 calls (targetInit(extents, nfields, nhalo), in-place AoS<->SoA,
 * targetConstAddress, ...) as thin wrappers; all off with -DTDP_NO_COMPAT. */
#ifndef TDP_NO_COMPAT
#include "targetDP/targetDP_compat.h"
#endif
#include "targetDP/targetDP_box.h"
/* Exact, reproducible sums: tdpExactSum, tdpExactAcc, TDP_TLP_EXACT, targetDoubleSumExact. */
#include "targetDP/targetDP_exact.h"
#include "targetDP/targetDP_team.h"     /* teams, team scratch, barriers, team reductions */
#include "targetDP/targetDP_contract.h" /* batched contractions (team kernels or the vendor's GEMM) */

#endif /* TARGETDP_H */