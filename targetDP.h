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
 * This file is the front door: the model, configuration, layouts
 * (TDP_INDEX) and every public name, each with the loop or call it stands
 * for. What differs by hardware is in the backend's header, included by
 * compiler: targetDP_C.h (OpenMP threads + SIMD, or serial) or
 * targetDP_CUDA.h; their host sides are targetDP_C.c and targetDP_CUDA.cu.
 * The capabilities are modules in targetDP/, one file (pair) each, included
 * here where their section stands (none is included on its own; each
 * file's first comment says what it holds and what it may use): macros
 * (preprocessor tools), layout (TDP_INDEX's functions), mark (the
 * configuration's name and link-time marks), reduce (in-kernel reduction
 * clauses), check (the checks in the program's own code), lanes (streaming
 * stores), atomics, host (the host functions behind the macros), types
 * (element types), launch (the launch checks), scan, profile, async
 * (streams, events, async copies, pinned memory, IPC, box packing), compat
 * (the 2014 API, off with -DTDP_NO_COMPAT), box (loops over a box), exact
 * (reproducible sums), team (teams), contract (batched contractions).
 * Programs using MPI also include targetDP_halo.h.
 */
#ifndef TARGETDP_H
#define TARGETDP_H

#include <stddef.h>
#include <stdint.h> /* uint32_t: targetStreamWriteFlag */
#include <stdio.h> /* FILE, and printf in target code */

/* An installed targetDP (make install) ships targetDP_config.h beside this
 * header: the layout, VVL, SAL and TPB its libraries were built with, so
 * that a build with only -I$PREFIX/include gets matching defaults. */
#if defined(__has_include)
#if __has_include("targetDP_config.h")
#include "targetDP_config.h"
#endif
#endif

#include "targetDP/targetDP_macros.h"

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
#include "targetDP/targetDP_layout.h" /* the inline functions, TARGETDP_LAYOUT */
/* position of (isite, icomp): AoS isite*ncomp + icomp, SoA icomp*nsites + isite,
 * AoSoA (isite/SAL)*ncomp*SAL + icomp*SAL + isite%SAL */
#define TDP_INDEX_(nsites, ncomp, isite, icomp) \
  tdpIndex_((size_t) (nsites), (size_t) (ncomp), (size_t) (isite), (size_t) (icomp))
#define TDP_NSITES_ALLOC(nsites) tdpNsitesAlloc_((size_t) (nsites))
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
#if TDP_VINDEX_DIRECT_ /* AoSoA, SAL % VVL == 0, unchecked, not CUDA at VVL > 1 */
#define TDP_VINDEX(nsites, ncomp, baseIndex, icomp, vecIndex) \
  tdpVIndex_((size_t) (nsites), (size_t) (ncomp), (size_t) (baseIndex), (size_t) (icomp), \
             (size_t) (vecIndex))
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
#define TDP_FIELD_SIZE(nsites, ncomp) tdpFieldSize_((size_t) (nsites), (size_t) (ncomp))

/* TARGETDP_CONFIG: one string naming the build ("backend=c layout=SOA VVL=8
 * SAL=8 TPB=128"), compared by targetInit() with the library's. Objects of
 * two configurations linked into one program fail to link, naming both
 * (-DTDP_NO_CONFIG_MARK for gcc -flto); so does the OpenMP library linked
 * into a program compiled without -fopenmp (targetDP/targetDP_mark.h). */
#include "targetDP/targetDP_mark.h"

/* ---------------------------------------------------------------------- */
/* Function qualifiers, parallel loops and launch, defined by the backend's
 * header below; each stands for (C backend / CUDA backend):
 *   TDP_KERNEL void k(...)     a kernel: a plain function / __global__ with
 *                              launch bounds TARGET_TPB (_TPB(tpb), _OCC(min
 *                              blocks), _LANES: lanes chosen per launch)
 *   TDP_DEVICE, TDP_HOST_DEVICE, TDP_CONST
 *                              nothing / __device__, __host__ __device__,
 *                              __constant__
 *   TDP_TLP(base, N)           for (base = 0; base < N; base += VVL), the
 *                              strides over the OpenMP threads / over the
 *                              CUDA threads, grid-stride
 *   TDP_ILP(v)                 for (v = 0; v < TDP_NLANE_; v++), vectorised
 *                              (omp simd, GCC ivdep) / a thread's lanes
 *   TDP_LANE(v)                the lane number 0 .. VVL-1 of v
 *   TDP_TLP_NOSTRIDE(i, N)     for (i = 0; i < N; i++), one site per thread
 *   TDP_TLP_REDUCE(base, N, TDP_RSUM(s), ...), TDP_ILP_REDUCE(v)
 *                              the loops with reduction(+ : s) ... / the
 *                              same, each thread's partial its own
 *   TDP_LAUNCH(k, N, args...)  k(args...) / k<<<blocks for N, TARGET_TPB>>>
 *                              (args...) then the launch checked; also
 *                              _NOSTRIDE, _REDUCE (the blocks resident once),
 *                              _TPB(k, N, tpb, ...), _LANES(k, N, lanes, ...)
 *   targetBlockAdd/Min/Max<Type>(t, p)
 *                              *t += p (min, max) once per thread's partial
 *                              after a TDP_TLP_REDUCE loop
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
 * break: a TLP loop is parallel, so break in its body is an error: the
 * OpenMP compiler refuses it; elsewhere TDP_NOBREAK_ stops the program with
 * its file:line (and folds away without a break). */

/* In-kernel reductions (docs/api.md; the clauses: targetDP/targetDP_reduce.h):
 *   tdpReduceOp: TDP_SUM, TDP_MIN, TDP_MAX   the operation of a reduction
 *   TDP_RSUM(v), TDP_RMIN(v), TDP_RMAX(v)    the clause reduction(+ (min, max) : v)
 *   TDP_TLP_SUM(base, N, a, b)   TDP_TLP_REDUCE(base, N, TDP_RSUM(a), TDP_RSUM(b));
 *                                also TDP_TLP_MIN, TDP_TLP_MAX
 *   TDP_ILP_SUM(v, ...)          TDP_ILP_REDUCE(v), the lane loop inside them */
#include "targetDP/targetDP_reduce.h"


#ifdef __CUDACC__
#include "targetDP_CUDA.h" /* the CUDA backend */
#else
#include "targetDP_C.h" /* the C backend: OpenMP threads + SIMD, or serial */
#endif

/* Atomics for target code, both backends (their own file: targetAtomic*). */
#include "targetDP/targetDP_atomics.h"

TDP_BLOCK_OPS_(Double, double)
TDP_BLOCK_OPS_(Float, float)
TDP_BLOCK_OPS_(Int, int)
TDP_BLOCK_OPS_(Long, long)

#include "targetDP/targetDP_check.h"

/* ---------------------------------------------------------------------- */
/* Backend hints for kernels, so that application code needs no backend
 * #ifdef of its own (docs/api.md, "Kernel hints"), defined by the backend's
 * header (C backend / CUDA backend):
 *   TDP_GPU                     0 / 1
 *   TDP_RESTRICT                restrict for kernel pointers (__restrict__)
 *   TDP_UNROLL(n)               #pragma GCC unroll n / unroll n
 *   TDP_CONST_VALUE(t_x, lit)   the literal (folded) / the TDP_CONST symbol
 *   TDP_ILP_STAGED(v, T, dest, value...)
 *                               every lane's value loaded before any store
 *   TDP_STREAM_LANES(f, nsites, ncomp, site, icomp, r)
 *                               a stride's r[TDP_LANE(v)] stored: streaming
 *                               stores where the CPU has them / plain
 *   TDP_HAVE_STREAM_STORE, tdpStreamStore8(dst, src), tdpStreamFence()
 *                               8 doubles to a 64-byte aligned dst without
 *                               reading its line (AVX, unchecked builds);
 *                               fence before anything reads the data
 *   TDP_INLINE                  a helper a lane loop calls, always inlined
 *                               (a call keeps the loop from vectorising)
 *   TDP_LOAD_ONCE(p)            *p / __ldcs(p): not kept in cache
 *   TDP_STORE_ONCE(p, x)        *p = x / __stcs(p, x): evict first
 *   tdpDouble2                  two doubles .x, .y aligned to 16 bytes
 *                               (double2): (re, im) pairs in one access */

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

#define TDP_AT_ __FILE__, __LINE__

/* targetDP/targetDP_host.h: the element types and the host functions behind
 * the macros below, with these public names:
 *   tdpType: TDP_TYPE_INT, TDP_TYPE_LONG, TDP_TYPE_DOUBLE, TDP_TYPE_FLOAT,
 *            TDP_TYPE_DOUBLE_COMPLEX, TDP_TYPE_FLOAT_COMPLEX
 *   tdpDoubleComplex, tdpFloatComplex   double/float _Complex (C), {re, im} (C++)
 *   tdpTypeSize(type)                   sizeof one element of type
 *   targetSetErrorAbort(0)              failing calls return the error code
 *   targetLastError(), targetLastErrorString()   the last failure
 *   targetConfigString()                library build + device, for logs
 *   tdpInit, tdpMalloc, tdpCopy, tdpReduceDouble, ...   generic forms (the macros'
 *                                       callees, docs/api.md "Generic forms") */
#include "targetDP/targetDP_host.h"

/*   targetInit(), targetFinalize()      start (the build checked) / end a session
 *   targetMalloc(&t_p, nbytes), targetCalloc, targetMallocUnified, targetCallocUnified,
 *   targetFree(t_p)                     target memory: cudaMalloc(Managed) / aligned host
 *   copyToTarget(t_dst, src, nbytes), copyFromTarget(dst, t_src, nbytes)   memcpy across
 *   copyConstToTarget(&t_x, src, nbytes)   a TDP_CONST variable = src (cudaMemcpyToSymbol) */
#define targetInit() tdpInit(TARGETDP_CONFIG, TDP_AT_)
#define targetFinalize() tdpFinalize(TDP_AT_)

#define targetMalloc(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 0, 0, TDP_AT_)
#define targetCalloc(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 1, 0, TDP_AT_)
#define targetMallocUnified(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 0, 1, TDP_AT_)
#define targetCallocUnified(pp, nbytes) tdpMalloc((void **) (pp), (nbytes), 1, 1, TDP_AT_)
#define targetFree(t_ptr) tdpFree((t_ptr), TDP_AT_)

/* Untyped (bytes): the host side is held to what the compiler knows of it. */
#define copyToTarget(t_dst, src, nbytes) \
  tdpCopy((t_dst), (src), (nbytes), 1, TDP_OBJECT_SIZE_(src), TDP_AT_)
#define copyFromTarget(dst, t_src, nbytes) \
  tdpCopy((dst), (t_src), (nbytes), 0, TDP_OBJECT_SIZE_(dst), TDP_AT_)
/* t_symbol: the address of a TDP_CONST variable (&t_x, or the array t_a);
 * nbytes may not exceed the bytes from there to the variable's end, which
 * the compiler knows from the expression (TDP_OBJECT_SIZE_: &t_x is
 * sizeof t_x, t_a the whole array, &t_a[2] the rest of it). The CUDA
 * backend also asks the runtime (cudaGetSymbolSize). */
#define copyConstToTarget(t_symbol, src, nbytes)                                        \
  tdpCopyConst((void *) (t_symbol), TDP_OBJECT_SIZE_(t_symbol), (src), TDP_OBJECT_SIZE_(src), \
               (nbytes), TDP_AT_)

/* Fills, subset copies, reductions and conversions of double fields: the
 * double names of the typed helpers, defined with them (targetDP_types.h,
 * which has every element type and the extents' conventions):
 *   targetZero(t_a, n), targetSetConstant(t_a, value, n)   t_a[i] = 0 (value), i < n
 *   copyToTargetSites(t_dst, src, nsites, ncomp, sites, nlist), copyFromTargetSites
 *                               copy the listed sites' components, nothing else
 *   copyToTargetMasked(t_dst, src, nsites, ncomp, mask), copyFromTargetMasked
 *                               copy the sites with mask[i] != 0
 *   copyToTarget3DHalo(t_dst, src, extents, nhalo, ncomp), copyFromTarget3DEdge
 *                               copy the halo in / the edge (what neighbours need) out
 *   targetDoubleSum(&r, t_a, n), targetDoubleMin, targetDoubleMax, targetIntSum,
 *   targetIntMin, targetIntMax  r = the sum (min, max) of t_a[0 .. n), fixed order
 *   targetAoS2SoA(t_soa, t_aos, nsites, ncomp), targetSoA2AoS   layout conversion */

/* ---------------------------------------------------------------------- */
/* Element types: the typed names of the helpers above (targetSetConstantFloat,
 * targetLongSum, copyToTargetSitesInt, ...), generated per type. */
#include "targetDP/targetDP_types.h"

/* targetDP/targetDP_launch.h: the checks of every launch form
 * (tdpLaunchBegin_, tdpLaunchCheck_, ...) and tdpSynchronize. */
#include "targetDP/targetDP_launch.h"
#define targetSynchronize() tdpSynchronize("targetSynchronize", TDP_AT_)
#define checkTargetError(what) tdpSynchronize((what), TDP_AT_)

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
                   TDP_OBJECT_SIZE_(t_symbol), (nbytes), TDP_AT_)
/* a TDP_CONST variable <- a target array (no trip through the host) */
#define copyTargetToConst(t_symbol, t_src, nbytes) \
  tdpCopyConstFromArray((void *) (t_symbol), TDP_OBJECT_SIZE_(t_symbol), (t_src), (nbytes), TDP_AT_)
/* *t_ptr = the target address of a TDP_CONST variable (the variable itself,
 * as in 2014: targetConstAddress(&t_ptr, t_table)), for target code to read
 * through (a kernel argument); it is not targetMalloc memory */
#define targetConstAddress(t_ptr, t_object) \
  tdpConstAddress((void **) (t_ptr), (const void *) &(t_object), TDP_AT_)
#define copyTargetToTarget(t_dst, t_src, nbytes) \
  tdpCopyTargetToTarget((t_dst), (t_src), (nbytes), TDP_AT_)

/* ---------------------------------------------------------------------- */
/* Scans and stream compaction of target arrays (targetScan*, targetCompactIndices). */
#include "targetDP/targetDP_scan.h"

/* Profiling (make PROFILE=1, -DTARGETDP_PROFILE; nothing otherwise):
 *   targetProfileBytes(name, bytes)     each later call of name moves bytes
 *   targetProfilePrint(file)            the table so far (targetFinalize prints it) */
#include "targetDP/targetDP_profile.h"

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
/* Loops over a 2-D/3-D/4-D box: targetBox, targetBoxMake/Interior/All, TDP_TLP_2D/3D/4D
 * (and _SUM, _MIN, _MAX, _REDUCE, _SHELL), TDP_LAUNCH_BOX(_STREAM, _REDUCE), TDP_LAUNCH_SHELL. */
#include "targetDP/targetDP_box.h"
/* Exact, reproducible sums: tdpExactSum, tdpExactAcc, TDP_TLP_EXACT, targetDoubleSumExact. */
#include "targetDP/targetDP_exact.h"
#include "targetDP/targetDP_team.h"     /* teams, team scratch, barriers, team reductions */
#include "targetDP/targetDP_contract.h" /* batched contractions (team kernels or the vendor's GEMM) */

#endif /* TARGETDP_H */