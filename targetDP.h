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
 */
#ifndef TARGETDP_H
#define TARGETDP_H

#include <stddef.h>

/* ---------------------------------------------------------------------- */
/* Build configuration (override with -D, normally through make variables) */

#ifdef __CUDACC__
#define TARGETDP_BACKEND "cuda"
#else
#define TARGETDP_BACKEND "c"
#endif

/* GPUs: one site per thread (VVL 1) and SoA give coalesced accesses.
 * CPUs: VVL equal to the SIMD width in doubles (4 for AVX2) and AoSoA with
 * SAL = VVL give unit-stride vector loads inside each short array. */
#ifndef VVL
#ifdef __CUDACC__
#define VVL 1
#else
#define VVL 4
#endif
#endif

#if !defined(TARGETDP_AOS) && !defined(TARGETDP_SOA) && !defined(TARGETDP_AOSOA)
#ifdef __CUDACC__
#define TARGETDP_SOA
#else
#define TARGETDP_AOSOA
#endif
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

#define TDP_STR_(x) #x
#define TDP_STR(x) TDP_STR_(x)

/* ---------------------------------------------------------------------- */
/* Layout: the position of component icomp (of ncomp) at site isite (of
 * nsites) in a field array. Arithmetic is in size_t so that 19 components
 * of a 512^3 lattice do not overflow int. Rank-2 components (i1 of n1,
 * i2 of n2, e.g. a 3x3 tensor) are stored as component i1*n2 + i2.
 * AoSoA groups sites into short arrays of SAL; a field therefore needs
 * TDP_NSITES_ALLOC(nsites) sites of storage (nsites rounded up to SAL). */

#if defined(TARGETDP_AOS)
#define TARGETDP_LAYOUT "AOS"
#define TDP_INDEX_(nsites, ncomp, isite, icomp) \
  ((size_t)(isite) * (size_t)(ncomp) + (size_t)(icomp))
#define TDP_NSITES_ALLOC(nsites) ((size_t)(nsites))
#elif defined(TARGETDP_SOA)
#define TARGETDP_LAYOUT "SOA"
#define TDP_INDEX_(nsites, ncomp, isite, icomp) \
  ((size_t)(icomp) * (size_t)(nsites) + (size_t)(isite))
#define TDP_NSITES_ALLOC(nsites) ((size_t)(nsites))
#else
#define TARGETDP_LAYOUT "AOSOA"
#define TDP_INDEX_(nsites, ncomp, isite, icomp)                       \
  (((size_t)(isite) / SAL) * (size_t)(ncomp) * SAL                    \
   + (size_t)(icomp) * SAL + (size_t)(isite) % SAL)
#define TDP_NSITES_ALLOC(nsites) ((((size_t)(nsites) + SAL - 1) / SAL) * SAL)
#endif

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
#define TDP_INDEX(nsites, ncomp, isite, icomp) \
  TDP_INDEX_(nsites, ncomp, isite, icomp)
#define TDP_INDEX2(nsites, n1, n2, isite, i1, i2) \
  TDP_INDEX(nsites, (n1) * (n2), isite, (i1) * (n2) + (i2))
#endif

/* The same position for site baseIndex + vecIndex inside a TLP/ILP loop,
 * with the stride base and the lane given apart. Under AoSoA the lanes of
 * a stride then lie in one short array (SAL a multiple of VVL), which the
 * compiler can see: unit-stride vector loads instead of the gathers that
 * (isite / SAL) in TDP_INDEX costs it. For site-local access only: a
 * neighbour (baseIndex + vecIndex + shift) needs TDP_INDEX. */
#if defined(TARGETDP_AOSOA) && SAL % VVL == 0 && !defined(TARGETDP_CHECK)
#define TDP_VINDEX(nsites, ncomp, baseIndex, icomp, vecIndex)                    \
  (((size_t)(baseIndex) / SAL) * (size_t)(ncomp) * SAL + (size_t)(icomp) * SAL   \
   + (size_t)(baseIndex) % SAL + (size_t)(vecIndex))
#define TDP_VINDEX2(nsites, n1, n2, baseIndex, i1, i2, vecIndex) \
  TDP_VINDEX(nsites, (n1) * (n2), baseIndex, (i1) * (n2) + (i2), vecIndex)
#else
#define TDP_VINDEX(nsites, ncomp, baseIndex, icomp, vecIndex) \
  TDP_INDEX(nsites, ncomp, (baseIndex) + (vecIndex), icomp)
#define TDP_VINDEX2(nsites, n1, n2, baseIndex, i1, i2, vecIndex) \
  TDP_INDEX2(nsites, n1, n2, (baseIndex) + (vecIndex), i1, i2)
#endif

/* Elements to allocate for a field of ncomp components on nsites sites. */
#define TDP_FIELD_SIZE(nsites, ncomp) (TDP_NSITES_ALLOC(nsites) * (size_t)(ncomp))

/* One string naming the build, compared by targetInit() with the library's. */
#ifdef TARGETDP_CHECK
#define TDP_CHECK_NAME_ " checked"
#else
#define TDP_CHECK_NAME_ ""
#endif
#define TARGETDP_CONFIG                                                    \
  "backend=" TARGETDP_BACKEND " layout=" TARGETDP_LAYOUT                   \
  " VVL=" TDP_STR(VVL) " SAL=" TDP_STR(SAL) " TPB=" TDP_STR(TARGET_TPB)   \
  TDP_CHECK_NAME_

/* ---------------------------------------------------------------------- */
/* Function qualifiers, parallel loops and launch.
 *
 * TDP_TLP walks the sites in strides of VVL; the hidden inner loop
 * runs once and fixes tdp_nlane_, the number of valid sites in this stride
 * (VVL except in the last stride when N is not a multiple of VVL).
 * TDP_ILP then loops over those lanes. For every full stride the trip
 * count is VVL, so the vectorised body is what runs; the short tail stride
 * takes the compiler's remainder path. */

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
#if VVL == 1
#define TDP_LANES_(base, N) for (int tdp_nlane_ = 1, tdp_once_ = 1; tdp_once_; tdp_once_ = 0)
#else
#define TDP_LANES_(base, N) \
  for (int tdp_nlane_ = ((N) - (base) < VVL) ? (int)((N) - (base)) : VVL, \
       tdp_once_ = 1; tdp_once_; tdp_once_ = 0)
#endif

#ifdef __CUDACC__

#define TDP_KERNEL __global__
#define TDP_DEVICE __device__
#define TDP_HOST_DEVICE __host__ __device__
#define TDP_CONST __constant__

#define TDP_THREAD_ ((int)(blockIdx.x * blockDim.x + threadIdx.x))
#define TDP_NTHREADS_ ((int)(gridDim.x * blockDim.x))

#define TDP_TLP(baseIndex, N)                                        \
  for (int baseIndex = VVL * TDP_THREAD_; baseIndex < (N);                 \
       baseIndex += VVL * TDP_NTHREADS_) TDP_LANES_(baseIndex, N)
#define TDP_TLP_NOSTRIDE(index, N) \
  for (int index = TDP_THREAD_; index < (N); index += TDP_NTHREADS_)
#define TDP_ILP(vecIndex) \
  _Pragma("unroll") for (int vecIndex = 0; vecIndex < tdp_nlane_; vecIndex++)

/* Each thread keeps its own partial; combine with targetBlockAdd*(). */
#define TDP_TLP_SUM(baseIndex, N, var) TDP_TLP(baseIndex, N)
#define TDP_ILP_SUM(vecIndex, var) TDP_ILP(vecIndex)

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
#define TDP_LAUNCH_WITH_(chevrons, kernel, N, ...)      \
  do {                                                  \
    kernel chevrons(N)(__VA_ARGS__);                    \
    tdpLaunchCheck(#kernel, __FILE__, __LINE__);        \
  } while (0)
#define TDP_LAUNCH(kernel, N, ...) TDP_LAUNCH_WITH_(TDP_CHEVRONS_, kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_NOSTRIDE(kernel, N, ...) \
  TDP_LAUNCH_WITH_(TDP_CHEVRONS_NOSTRIDE_, kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_REDUCE(kernel, N, ...) \
  TDP_LAUNCH_WITH_(TDP_CHEVRONS_REDUCE_, kernel, N, __VA_ARGS__)

extern "C" long tdpGridBlocksMax_; /* two fills of the GPU, set by targetInit */
static inline unsigned int tdpNumBlocks(long n, long per_block, int capped) {
  long nb = (n + per_block - 1) / per_block;
  if (capped && nb > tdpGridBlocksMax_) nb = tdpGridBlocksMax_;
  return (unsigned int) (nb < 1 ? 1 : nb);
}

static __device__ inline void targetAtomicAddDouble(double *t, double v) {
  atomicAdd(t, v);
}
static __device__ inline void targetAtomicAddInt(int *t, int v) {
  atomicAdd(t, v);
}

/* Add every thread's partial into *t_sum: warp shuffles, then one value
 * per warp through shared memory, then one atomic per block. Every thread
 * of the block must call it (it synchronises the block). */
static __device__ inline double tdpBlockSum_(double v) {
  __shared__ double warp_sum[TARGET_TPB / 32];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / 32) ? warp_sum[threadIdx.x] : 0.0;
  if (threadIdx.x < 32) {
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  }
  return v;
}
static __device__ inline void targetBlockAddDouble(double *t_sum, double partial) {
  double s = tdpBlockSum_(partial);
  if (threadIdx.x == 0) atomicAdd(t_sum, s);
}
static __device__ inline void targetBlockAddInt(int *t_sum, int partial) {
  double s = tdpBlockSum_((double) partial); /* exact below 2^53 */
  if (threadIdx.x == 0) atomicAdd(t_sum, (int) s);
}

#else /* C backend: OpenMP threads + omp simd, or serial without OpenMP */

#define TDP_KERNEL
#define TDP_DEVICE
#define TDP_HOST_DEVICE
#define TDP_CONST

/* With VVL 1 the sites themselves are the SIMD lanes: the TLP loop is the
 * simd loop and the ILP loop a single pass. */
#if VVL == 1
#define TDP_ILP_SIMD_(clauses)
#else
#define TDP_ILP_SIMD_(clauses) TDP_OMP_SIMD_(clauses)
#endif
/* Telling the compiler 1 <= tdp_nlane_ <= VVL lets it emit the full-stride
 * vector body without a general remainder loop around it. The trailing
 * else keeps TDP_ILP one statement (usable as an unbraced loop body). */
#ifdef __GNUC__
#define TDP_LANES_HINT_ if (tdp_nlane_ < 1 || tdp_nlane_ > VVL) __builtin_unreachable(); else
#else
#define TDP_LANES_HINT_
#endif

#if VVL == 1
#define TDP_TLP(baseIndex, N)                                   \
  TDP_OMP_PFS_()                  \
  for (int baseIndex = 0; baseIndex < (N); baseIndex++) TDP_LANES_(baseIndex, N)
#else
/* Two passes inside one parallel region: the full strides, then the short
 * one. Once the compiler unrolls the two-pass loop, the lane count of the
 * first is the constant VVL and its ILP loops compile like plain vector
 * code (measured: 0.94-0.98 of a native triad with a run-time lane count
 * in every stride, 1.00 this way). A large kernel that is not unrolled
 * still runs correctly. */
#define TDP_TLP(baseIndex, N)                                               \
  TDP_OMP_(parallel)                                                        \
  for (int tdp_pass_ = 0; tdp_pass_ < 2; tdp_pass_++)                             \
    TDP_OMP_(for schedule(static) nowait)                                   \
    for (int baseIndex = tdp_pass_ ? ((N) / VVL) * VVL : 0;                       \
         baseIndex < (tdp_pass_ ? (N) : ((N) / VVL) * VVL); baseIndex += VVL)     \
      for (int tdp_nlane_ = tdp_pass_ ? (int) ((N) - baseIndex) : VVL, tdp_once_ = 1; \
           tdp_once_; tdp_once_ = 0)
#endif
#define TDP_TLP_NOSTRIDE(index, N)              \
  TDP_OMP_PFS_() \
  for (int index = 0; index < (N); index++)
#define TDP_ILP(vecIndex)                 \
  TDP_LANES_HINT_ TDP_ILP_SIMD_()               \
  for (int vecIndex = 0; vecIndex < tdp_nlane_; vecIndex++)

/* A reduction vectorises over the sites themselves, whatever VVL: a
 * VVL-wide simd reduction per stride would end every stride in a
 * horizontal sum (measured: 0.75-0.9 of a native dot product at VVL 4-8,
 * parity this way). Each site is still base + vec exactly once. */
#define TDP_TLP_SUM(baseIndex, N, var)                                    \
  TDP_OMP_PFS_(reduction(+:var))          \
  for (int baseIndex = 0; baseIndex < (N); baseIndex++)                        \
    for (int tdp_nlane_ = 1, tdp_once_ = 1; tdp_once_; tdp_once_ = 0)
#define TDP_ILP_SUM(vecIndex, var) \
  for (int vecIndex = 0; vecIndex < tdp_nlane_; vecIndex++)

/* A kernel is a function call; N is still evaluated (once), so a
 * parameter used only in the launch is not unused here. */
#define TDP_LAUNCH(kernel, N, ...) \
  do {                             \
    (void) (N);                    \
    kernel(__VA_ARGS__);           \
  } while (0)
#define TDP_LAUNCH_NOSTRIDE(kernel, N, ...) TDP_LAUNCH(kernel, N, __VA_ARGS__)
#define TDP_LAUNCH_REDUCE(kernel, N, ...) TDP_LAUNCH(kernel, N, __VA_ARGS__)
#define TDP_CHEVRONS_(N)
#define TDP_CHEVRONS_NOSTRIDE_(N)
#define TDP_CHEVRONS_REDUCE_(N)

static inline void targetAtomicAddDouble(double *t, double v) {
  TDP_OMP_(atomic update)
  *t += v;
}
static inline void targetAtomicAddInt(int *t, int v) {
  TDP_OMP_(atomic update)
  *t += v;
}
/* Called after the TLP loop, where the reduction clause has already
 * combined the threads' partials: one atomic per call. */
static inline void targetBlockAddDouble(double *t_sum, double partial) {
  targetAtomicAddDouble(t_sum, partial);
}
static inline void targetBlockAddInt(int *t_sum, int partial) {
  targetAtomicAddInt(t_sum, partial);
}

#endif /* __CUDACC__ */

/* ---------------------------------------------------------------------- */
/* The 2014 names. Names that begin with two underscores belong to the
 * implementation: defining __target__ breaks clang's
 * __attribute__((__target__("avx2"))) in <immintrin.h> and libstdc++'s
 * <random> when they are included after this header. The TDP_ names above
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
/* kernel __targetLaunch__(N) (args); -- the launch is not checked here */
#define __targetLaunch__(N) TDP_CHEVRONS_(N)
#define __targetLaunchNoStride__(N) TDP_CHEVRONS_NOSTRIDE_(N)
#define __targetLaunchReduce__(N) TDP_CHEVRONS_REDUCE_(N)
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
  TARGET_ERROR_NOT_AVAILABLE  /* not provided by this backend (e.g. CUDA IPC on the C backend) */
} targetError_t;

#define TDP_AT __FILE__, __LINE__

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

int tdpCopy(void *dst, const void *src, size_t nbytes, int to_target, const char *f, int l);
int tdpCopyConst(void *t_symbol, const void *src, size_t nbytes, const char *f, int l);
#define copyToTarget(t_dst, src, nbytes) tdpCopy((t_dst), (src), (nbytes), 1, TDP_AT)
#define copyFromTarget(dst, t_src, nbytes) tdpCopy((dst), (t_src), (nbytes), 0, TDP_AT)
#define copyConstToTarget(t_symbol, src, nbytes) \
  tdpCopyConst((void *) (t_symbol), (src), (nbytes), TDP_AT)

int tdpSetConstant(double *t_array, double value, size_t n, const char *f, int l);
#define targetZero(t_array, n) tdpSetConstant((t_array), 0.0, (n), TDP_AT)
#define targetSetConstant(t_array, value, n) tdpSetConstant((t_array), (value), (n), TDP_AT)

/* Subset copies of a field of ncomp doubles per site in the build's layout:
 * all components of the listed sites move, nothing else. */
int tdpCopySites(double *dst, const double *src, int nsites, int ncomp,
                 const int *sites, int nlist, int to_target, const char *f, int l);
int tdpCopyMasked(double *dst, const double *src, int nsites, int ncomp,
                  const char *mask, int to_target, const char *f, int l);
int tdpCopy3D(double *dst, const double *src, const int extents[3], int nhalo,
              int ncomp, int to_target, const char *f, int l);
#define copyToTargetSites(t_dst, src, nsites, ncomp, sites, nlist) \
  tdpCopySites((t_dst), (src), (nsites), (ncomp), (sites), (nlist), 1, TDP_AT)
#define copyFromTargetSites(dst, t_src, nsites, ncomp, sites, nlist) \
  tdpCopySites((dst), (t_src), (nsites), (ncomp), (sites), (nlist), 0, TDP_AT)
#define copyToTargetMasked(t_dst, src, nsites, ncomp, mask) \
  tdpCopyMasked((t_dst), (src), (nsites), (ncomp), (mask), 1, TDP_AT)
#define copyFromTargetMasked(dst, t_src, nsites, ncomp, mask) \
  tdpCopyMasked((dst), (t_src), (nsites), (ncomp), (mask), 0, TDP_AT)
/* extents: local lattice including the halo, site (x,y,z) at (x*ny + y)*nz + z.
 * The halo is every site within nhalo of a face; the edge is the interior
 * layer of depth nhalo next to it: what neighbours need from us. */
#define copyToTarget3DHalo(t_dst, src, extents, nhalo, ncomp) \
  tdpCopy3D((t_dst), (src), (extents), (nhalo), (ncomp), 1, TDP_AT)
#define copyFromTarget3DEdge(dst, t_src, extents, nhalo, ncomp) \
  tdpCopy3D((dst), (t_src), (extents), (nhalo), (ncomp), 0, TDP_AT)

/* Reductions of n values of a target array, result on the host. The order
 * of summation is fixed, so a run is bitwise reproducible on one device. */
int tdpReduceDouble(double *result, const double *t_a, size_t n, int op, const char *f, int l);
int tdpReduceInt(long long *result, const int *t_a, size_t n, int op, const char *f, int l);
enum { TDP_SUM = 0, TDP_MIN = 1, TDP_MAX = 2 };
#define targetDoubleSum(res, t_a, n) tdpReduceDouble((res), (t_a), (n), TDP_SUM, TDP_AT)
#define targetDoubleMin(res, t_a, n) tdpReduceDouble((res), (t_a), (n), TDP_MIN, TDP_AT)
#define targetDoubleMax(res, t_a, n) tdpReduceDouble((res), (t_a), (n), TDP_MAX, TDP_AT)
#define targetIntSum(res, t_a, n) tdpReduceInt((res), (t_a), (n), TDP_SUM, TDP_AT)
#define targetIntMin(res, t_a, n) tdpReduceInt((res), (t_a), (n), TDP_MIN, TDP_AT)
#define targetIntMax(res, t_a, n) tdpReduceInt((res), (t_a), (n), TDP_MAX, TDP_AT)

/* Layout conversion between target arrays (dst and src distinct). */
int tdpConvert(double *t_dst, const double *t_src, int nsites, int ncomp, int aos2soa,
               const char *f, int l);
#define targetAoS2SoA(t_soa, t_aos, nsites, ncomp) \
  tdpConvert((t_soa), (t_aos), (nsites), (ncomp), 1, TDP_AT)
#define targetSoA2AoS(t_aos, t_soa, nsites, ncomp) \
  tdpConvert((t_aos), (t_soa), (nsites), (ncomp), 0, TDP_AT)

/* Called by TDP_LAUNCH on CUDA right after kernel<<<...>>>: a launch that
 * failed is reported with the kernel's name and the launch's file:line. */
int tdpLaunchCheck(const char *kernel, const char *f, int l);

/* Wait for the target; on CUDA also reports a failed kernel launch. */
int tdpSynchronize(const char *what, const char *f, int l);
#define targetSynchronize() tdpSynchronize("targetSynchronize", TDP_AT)
#define checkTargetError(what) tdpSynchronize((what), TDP_AT)

/* ---------------------------------------------------------------------- */
/* Asynchronous work: streams, events, asynchronous copies, pinned host
 * memory, CUDA IPC handles and packing of boxes of a field (faces, for
 * halo exchange). On CUDA a stream is a cudaStream_t; on the C backend it
 * is a real handle whose operations run in order, each finished when its
 * call returns. The stream argument may be TARGET_STREAM_DEFAULT (NULL):
 * the default stream (on CUDA the legacy stream 0, which waits for and is
 * waited for by all other work of the device). */

typedef struct tdpStream_ *targetStream_t;
typedef struct tdpEvent_ *targetEvent_t;
#define TARGET_STREAM_DEFAULT ((targetStream_t) 0)

int tdpStreamCreate(targetStream_t *stream, const char *f, int l);
int tdpStreamDestroy(targetStream_t stream, const char *f, int l);
int tdpStreamSynchronize(targetStream_t stream, const char *f, int l);
#define targetStreamCreate(pstream) tdpStreamCreate((pstream), TDP_AT)
#define targetStreamDestroy(stream) tdpStreamDestroy((stream), TDP_AT)
#define targetStreamSynchronize(stream) tdpStreamSynchronize((stream), TDP_AT)

int tdpEventCreate(targetEvent_t *event, const char *f, int l);
int tdpEventDestroy(targetEvent_t event, const char *f, int l);
int tdpEventRecord(targetEvent_t event, targetStream_t stream, const char *f, int l);
int tdpStreamWaitEvent(targetStream_t stream, targetEvent_t event, const char *f, int l);
int tdpEventSynchronize(targetEvent_t event, const char *f, int l);
#define targetEventCreate(pevent) tdpEventCreate((pevent), TDP_AT)
#define targetEventDestroy(event) tdpEventDestroy((event), TDP_AT)
/* Work on stream queued after this call completes the event ... */
#define targetEventRecord(event, stream) tdpEventRecord((event), (stream), TDP_AT)
/* ... and work queued on stream after this call waits for it. */
#define targetStreamWaitEvent(stream, event) tdpStreamWaitEvent((stream), (event), TDP_AT)
#define targetEventSynchronize(event) tdpEventSynchronize((event), TDP_AT)

/* The backend's own stream behind a handle, after checking it is live
 * (used by TDP_LAUNCH_STREAM; *native is a cudaStream_t on CUDA). */
int tdpStreamNative(targetStream_t stream, void **native, const char *f, int l);

/* TDP_LAUNCH_STREAM(kernel, N, stream, args...): TDP_LAUNCH on a stream.
 * The launch returns at once on CUDA; on the C backend the kernel has run.
 * A stream that is not live is an error and the kernel is not launched. */
#ifdef __CUDACC__
#define TDP_LAUNCH_STREAM(kernel, N, stream, ...)                                   \
  do {                                                                              \
    void *tdp_native_ = 0;                                                          \
    if (tdpStreamNative((stream), &tdp_native_, __FILE__, __LINE__) == TARGET_SUCCESS) { \
      kernel<<<tdpNumBlocks((N), VVL * TARGET_TPB, 0), TARGET_TPB, 0,               \
               (cudaStream_t) tdp_native_>>>(__VA_ARGS__);                          \
      tdpLaunchCheck(#kernel, __FILE__, __LINE__);                                  \
    }                                                                               \
  } while (0)
#else
#define TDP_LAUNCH_STREAM(kernel, N, stream, ...)                                   \
  do {                                                                              \
    void *tdp_native_ = 0;                                                          \
    (void) (N);                                                                     \
    if (tdpStreamNative((stream), &tdp_native_, __FILE__, __LINE__) == TARGET_SUCCESS) \
      kernel(__VA_ARGS__);                                                          \
  } while (0)
#endif

/* Copies queued on a stream. From or to pageable host memory they are
 * correct but may not overlap anything; use pinned memory (below). */
typedef enum {
  TARGET_COPY_TO_TARGET = 0,     /* host -> target */
  TARGET_COPY_FROM_TARGET = 1,   /* target -> host */
  TARGET_COPY_TARGET_TO_TARGET = 2 /* target -> target, also to a peer's IPC mapping */
} targetCopyKind_t;
int tdpCopyAsync(void *dst, const void *src, size_t nbytes, targetCopyKind_t kind,
                 targetStream_t stream, int wait, const char *f, int l);
#define copyToTargetAsync(t_dst, src, nbytes, stream) \
  tdpCopyAsync((t_dst), (src), (nbytes), TARGET_COPY_TO_TARGET, (stream), 0, TDP_AT)
#define copyFromTargetAsync(dst, t_src, nbytes, stream) \
  tdpCopyAsync((dst), (t_src), (nbytes), TARGET_COPY_FROM_TARGET, (stream), 0, TDP_AT)
#define copyTargetToTargetAsync(t_dst, t_src, nbytes, stream) \
  tdpCopyAsync((t_dst), (t_src), (nbytes), TARGET_COPY_TARGET_TO_TARGET, (stream), 0, TDP_AT)
#define copyTargetToTarget(t_dst, t_src, nbytes)                                  \
  tdpCopyAsync((t_dst), (t_src), (nbytes), TARGET_COPY_TARGET_TO_TARGET,         \
               TARGET_STREAM_DEFAULT, 1, TDP_AT)

/* Pinned (page-locked) host memory: cudaMallocHost on CUDA, 64-byte
 * aligned memory on the C backend. Host memory in every other respect;
 * freed only with targetFreeHost. */
int tdpMallocHost(void **p, size_t nbytes, const char *f, int l);
int tdpFreeHost(void *p, const char *f, int l);
#define targetMallocHost(pp, nbytes) tdpMallocHost((void **) (pp), (nbytes), TDP_AT)
#define targetFreeHost(p) tdpFreeHost((p), TDP_AT)

/* CUDA IPC: another process on the node maps a target allocation of ours
 * and copies to or from it directly (copyTargetToTargetAsync). The handle
 * is plain bytes, to be sent with MPI_BYTE. On the C backend every call
 * fails with TARGET_ERROR_NOT_AVAILABLE; targetIpcAvailable() says 0. */
typedef struct {
  unsigned char bytes[64]; /* cudaIpcMemHandle_t */
  size_t nbytes;           /* the allocation's size from offset on */
  size_t offset;           /* of the pointer inside its allocation */
} targetIpcHandle_t;
int targetIpcAvailable(void);
int tdpIpcGetHandle(targetIpcHandle_t *handle, void *t_ptr, const char *f, int l);
int tdpIpcOpenHandle(void **t_peer, const targetIpcHandle_t *handle, const char *f, int l);
int tdpIpcCloseHandle(void *t_peer, const char *f, int l);
#define targetIpcGetHandle(phandle, t_ptr) tdpIpcGetHandle((phandle), (t_ptr), TDP_AT)
#define targetIpcOpenHandle(pt_peer, phandle) \
  tdpIpcOpenHandle((void **) (pt_peer), (phandle), TDP_AT)
#define targetIpcCloseHandle(t_peer) tdpIpcCloseHandle((t_peer), TDP_AT)

/* Boxes of a field, for halo exchange: the sites lo[d] <= x[d] < hi[d]
 * of a lattice of ndim (1 to 4) extents, site index row-major (the last
 * coordinate fastest: (x*ny + y)*nz + z in 3-D), all ncomp components in
 * the build's layout, to or from a contiguous target buffer: component c
 * of the k-th site of the box (row-major in the box) at buf[c*nbox + k].
 * targetDP kernels queued on stream. */
int tdpPackBox(double *t_dst, const double *t_src, int ndim, const long extents[],
               const long lo[], const long hi[], int ncomp, int unpack, targetStream_t stream,
               const char *f, int l);
#define targetPackBox(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream) \
  tdpPackBox((t_buf), (t_field), (ndim), (extents), (lo), (hi), (ncomp), 0, (stream), TDP_AT)
#define targetUnpackBox(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream) \
  tdpPackBox((t_field), (t_buf), (ndim), (extents), (lo), (hi), (ncomp), 1, (stream), TDP_AT)
/* The box of one face: along dim, side 0 (low) or 1 (high), the halo
 * (the outer nhalo layers) or the edge (the nhalo layers inside them:
 * what the neighbour's halo is filled from); every other axis whole, halo
 * included (exchanging the axes one after the other then fills edges and
 * corners too). Returns the number of sites. */
typedef enum { TARGET_FACE_EDGE = 0, TARGET_FACE_HALO = 1 } targetFaceRegion_t;
long targetFaceBox(int ndim, const long extents[], int nhalo, int dim, int side,
                   targetFaceRegion_t region, long lo[], long hi[]);

/* GPUs visible to this process and the one it uses (C backend: 0 and -1). */
int targetDeviceCount(void);
int targetDeviceId(void);

#ifdef __cplusplus
}
#endif

#endif /* TARGETDP_H */
