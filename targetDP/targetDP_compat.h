/*
 * targetDP_compat.h -- the 2014 targetDP API (Gray & Stratford; the
 * targetDP.h shipped with Ludwig 2014-2016) on top of today's. Included by
 * targetDP.h unless -DTDP_NO_COMPAT. Every name here is a thin wrapper over
 * the current API: no second implementation, and the same checks (a
 * misuse stops with file:line). docs/migration.md maps every 2014 name to
 * today's and lists the differences.
 *
 * Where a 2014 name is also today's name with another arity (targetInit,
 * copyToTarget3DHalo, copyFromTarget3DEdge, targetAoS2SoA, targetSoA2AoS)
 * the macro dispatches on the number of arguments: the 2014 form and the
 * current form both compile and do what they did.
 */
#ifndef TARGETDP_COMPAT_H
#define TARGETDP_COMPAT_H

/* The 2014 header included these, and 2014 codes call malloc/printf/memcpy
 * relying on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Dispatch on the argument count (1 to 8): TDP_OVERLOAD_(f_, a, b) is f_2_(a, b).
 * An empty argument list counts as one (empty) argument. */
#define TDP_NARG_(...) TDP_NARG_I_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TDP_NARG_I_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n
#define TDP_CAT_(a, b) TDP_CAT_I_(a, b)
#define TDP_CAT_I_(a, b) a##b
#define TDP_OVERLOAD_(name, ...) TDP_CAT_(TDP_CAT_(name, TDP_NARG_(__VA_ARGS__)), _)(__VA_ARGS__)
/* A compile-time error unless the macro argument x is empty. */
#define TDP_EMPTY_ARG_(x) ((void) sizeof(char[sizeof(#x) == 1 ? 1 : -1]))

/* ---- lifecycle: targetInit(extents, nfieldsmax, nhalo) / targetInit() ---- */
/* 2014: targetInit(extents, nfieldsmax, nhalo) (alias targetInit3D) set up
 * the "3D" halo and edge copies for a lattice of the given extents (halo
 * included) and halo depth; targetFinalize3D() ended it. Here the 3-argument
 * form also does today's targetInit() (the configuration check), and
 * targetFinalize3D() also today's targetFinalize(). */
int tdpInit3D_(const int extents[3], size_t extents_known, size_t nfieldsmax, int nhalo,
               const char *caller_config, const char *f, int l);
int tdpFinalize3D_(const char *f, int l);
#undef targetInit
#define targetInit(...) TDP_OVERLOAD_(tdpInitArgs_, __VA_ARGS__)
#define tdpInitArgs_1_(empty) (TDP_EMPTY_ARG_(empty), tdpInit(TARGETDP_CONFIG, TDP_AT_))
#define tdpInitArgs_3_(extents, nfieldsmax, nhalo) targetInit3D(extents, nfieldsmax, nhalo)
#define targetInit3D(extents, nfieldsmax, nhalo)                                          \
  tdpInit3D_(TDP_TYPED_(int, extents), TDP_OBJECT_SIZE_(extents), (nfieldsmax), (nhalo),   \
             TARGETDP_CONFIG, TDP_AT_)
#define targetFinalize3D() tdpFinalize3D_(TDP_AT_)

/* ---- halo / edge copies: 2014 arity (4) uses targetInit's nhalo ---- */
/* The lattice (extents) must be the one given to targetInit. 2014 fields
 * were SoA; here the field is in the build's layout (the same for SoA). */
int tdpCopy3DInit_(double *dst, const double *src, const int extents[3], size_t nfields,
                   int to_target, size_t host_known, size_t extents_known, const char *f, int l);
#undef copyToTarget3DHalo
#undef copyFromTarget3DEdge
#define copyToTarget3DHalo(...) TDP_OVERLOAD_(tdpHaloArgs_, __VA_ARGS__)
#define copyFromTarget3DEdge(...) TDP_OVERLOAD_(tdpEdgeArgs_, __VA_ARGS__)
#define tdpHaloArgs_4_(t_dst, src, extents, nfields)                                         \
  tdpCopy3DInit_(TDP_TYPED_(double, t_dst), TDP_TYPED_(double, src), TDP_TYPED_(int, extents), \
                 (nfields), 1, TDP_OBJECT_SIZE_(src), TDP_OBJECT_SIZE_(extents), TDP_AT_)
#define tdpEdgeArgs_4_(dst, t_src, extents, nfields)                                         \
  tdpCopy3DInit_(TDP_TYPED_(double, dst), TDP_TYPED_(double, t_src), TDP_TYPED_(int, extents), \
                 (nfields), 0, TDP_OBJECT_SIZE_(dst), TDP_OBJECT_SIZE_(extents), TDP_AT_)
#define tdpHaloArgs_5_(t_dst, src, extents, nhalo, ncomp) \
  copyToTarget3DHaloDouble(t_dst, src, extents, nhalo, ncomp)
#define tdpEdgeArgs_5_(dst, t_src, extents, nhalo, ncomp) \
  copyFromTarget3DEdgeDouble(dst, t_src, extents, nhalo, ncomp)

/* ---- layout conversion: 2014 was in place (3 arguments) ---- */
int tdpConvertInPlace_(double *t_array, size_t nsites, size_t nfields, int aos2soa,
                       const char *f, int l);
#undef targetAoS2SoA
#undef targetSoA2AoS
#define targetAoS2SoA(...) TDP_OVERLOAD_(tdpAoS2SoAArgs_, __VA_ARGS__)
#define targetSoA2AoS(...) TDP_OVERLOAD_(tdpSoA2AoSArgs_, __VA_ARGS__)
#define tdpAoS2SoAArgs_3_(t_array, nsites, nfields) \
  tdpConvertInPlace_(TDP_TYPED_(double, t_array), (nsites), (nfields), 1, TDP_AT_)
#define tdpSoA2AoSArgs_3_(t_array, nsites, nfields) \
  tdpConvertInPlace_(TDP_TYPED_(double, t_array), (nsites), (nfields), 0, TDP_AT_)
#define tdpAoS2SoAArgs_4_(t_soa, t_aos, nsites, ncomp) \
  targetAoS2SoADouble(t_soa, t_aos, nsites, ncomp)
#define tdpSoA2AoSArgs_4_(t_aos, t_soa, nsites, ncomp) \
  targetSoA2AoSDouble(t_aos, t_soa, nsites, ncomp)

/* ---- constant memory ---- */
/* targetConstAddress(&t_ptr, t_const) and copyConstFromTarget(&host,
 * &t_const, nbytes) are today's calls with the 2014 arguments (targetDP.h). */

/* ---- deep copies: a double array hanging off a struct on the target ---- */
/* host_obj is the host copy of a struct, host_member the address of one of
 * its double * members; t_obj the target copy of the struct, whose member at
 * the same offset points to a target array of n doubles. */
int tdpCopyDeep_(void *t_obj, void *host_obj, size_t host_obj_known, void *host_member, int n,
                 int to_target, const char *f, int l);
#define copyDeepDoubleArrayToTarget(t_obj, host_obj, host_member, n) \
  tdpCopyDeep_((t_obj), (host_obj), TDP_OBJECT_SIZE_(host_obj), (host_member), (n), 1, TDP_AT_)
#define copyDeepDoubleArrayFromTarget(host_obj, t_obj, host_member, n) \
  tdpCopyDeep_((t_obj), (host_obj), TDP_OBJECT_SIZE_(host_obj), (host_member), (n), 0, TDP_AT_)

/* ---- subset copies: 2014 argument order ---- */
#define copyToTargetSubset(t_dst, src, sites, nsitessubset, nsites, nfields) \
  copyToTargetSites((t_dst), (src), (nsites), (nfields), (sites), (nsitessubset))
#define copyFromTargetSubset(dst, t_src, sites, nsitessubset, nsites, nfields) \
  copyFromTargetSites((dst), (t_src), (nsites), (nfields), (sites), (nsitessubset))

#ifdef __cplusplus
}
#endif

/* ---- the 2014 macro names ---- */
/* The 2014 names. Names that begin with two underscores belong to the
 * implementation: defining __target__ breaks clang's
 * __attribute__((__target__("avx2"))) in <immintrin.h> and libstdc++'s
 * <random> when they are included after targetDP.h. The TDP_ names of targetDP.h
 * are the API; the old ones stay as aliases for existing codes unless
 * -DTDP_NO_LEGACY_NAMES is given (do that in new code). */
#ifndef TDP_NO_LEGACY_NAMES
#define __targetEntry__ TDP_KERNEL
#define __target__ TDP_DEVICE
#define __targetHost__ TDP_HOST_DEVICE
#define __targetConst__ TDP_CONST
#define __targetTLP__(baseIndex, N) TDP_TLP(baseIndex, N)
#define __targetTLPNoStride__(index, N) TDP_TLP_NOSTRIDE(index, N)
#define __targetILP__(vecIndex) TDP_ILP(vecIndex)
#define __targetTLPSum__(baseIndex, N, var) TDP_TLP_SUM(baseIndex, N, var)
#define __targetILPSum__(vecIndex, var) TDP_ILP_SUM(vecIndex, var)
/* kernel __targetLaunch__(N) (args); is checked as TDP_LAUNCH is (issue
 * 25: it ran before targetInit, after targetFinalize and over a negative
 * N): TDP_LEGACY_LAUNCH_ (below) */
#define __targetLaunch__(N) TDP_LEGACY_LAUNCH_(N, VVL * TARGET_TPB, 0)
#define __targetLaunchNoStride__(N) TDP_LEGACY_LAUNCH_(N, TARGET_TPB, 0)
#define __targetLaunchReduce__(N) TDP_LEGACY_LAUNCH_(N, VVL * TARGET_TPB, 1)
#endif

/* The 2014 launch, kernel __targetLaunch__(N) (args), where the macro
 * sees N but not the kernel. CUDA: the grid, from tdpLegacyBlocks_, which
 * refuses (targetDP error, file:line) before the layer is live or for a
 * negative N, and then gives a grid of 0 blocks: the runtime refuses that
 * launch, and the kernel does not run (the next targetSynchronize also
 * reports it, in error-code mode). C: the kernel is a plain call, which no
 * tokens after its name can skip; the check is made while its first
 * argument is evaluated, before the call, and a refusal stops the program
 * (tdpLegacyLaunch_) in either error mode: running the kernel after
 * targetFinalize would write freed memory. (So a 2014 kernel without
 * arguments, which has nothing to carry it, launches with TDP_LAUNCH.) */
#ifdef __CUDACC__
static inline unsigned int tdpLegacyBlocks_(long n, long per_block, int capped, const char *f,
                                            int l) {
  return tdpLegacyLaunch_(n, f, l) == TARGET_SUCCESS ? tdpNumBlocks_(n, per_block, capped) : 0u;
}
#define TDP_LEGACY_LAUNCH_(N, per_block, capped) \
  <<<tdpLegacyBlocks_((N), (per_block), (capped), __FILE__, __LINE__), TARGET_TPB>>>
#else
/* K __targetLaunch__(N) (a0, a1) is K(((void) tdpLegacyLaunch_(N, ..), a0), a1) */
#define TDP_LEGACY_LAUNCH_(N, per_block, capped) \
  (((void) tdpLegacyLaunch_((N), __FILE__, __LINE__), TDP_LEGACY_ARGS_
#define TDP_LEGACY_ARGS_(...) TDP_LEGACY_FIRST_(__VA_ARGS__)
#define TDP_LEGACY_FIRST_(a0, ...) a0), ##__VA_ARGS__)
#endif

/* ---- names and helpers ---- */
#define NILP VVL /* instruction-level parallelism: the lanes of a TLP stride */
enum { TARGET_HALO, TARGET_EDGE };

/* HOST marked host functions called from both languages (CUDA: C linkage). */
#ifdef __CUDACC__
#define HOST extern "C" __host__
#else
#define HOST
#endif

/* Site (x, y, z) of a lattice with extents[3] (halo included) is
 * (x*ny + y)*nz + z; targetCoords3D is the inverse. Usable in kernels. */
static TDP_HOST_DEVICE inline int tdpIndex3D_(int x, int y, int z, const int *extents) {
  return (x * extents[1] + y) * extents[2] + z;
}
static TDP_HOST_DEVICE inline void tdpCoords3D_(int *coords, const int *extents, int index) {
  coords[0] = index / (extents[1] * extents[2]);
  coords[1] = (index / extents[2]) % extents[1];
  coords[2] = index % extents[2];
}
#define targetIndex3D(x, y, z, extents) tdpIndex3D_((x), (y), (z), (extents))
#define targetCoords3D(coords, extents, index) tdpCoords3D_((coords), (extents), (index))

#endif /* TARGETDP_COMPAT_H */
