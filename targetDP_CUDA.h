/*
 * targetDP_CUDA.h -- the CUDA backend's half of targetDP.h: what the
 * qualifiers, the TLP/ILP loops, the launches, the in-kernel reductions'
 * block combines and the kernel hints are in a source compiled by nvcc
 * (targetDP.h lists each public name and the loop or call it stands for;
 * targetDP_C.h is the same list for the C backend). The CUDA backend's host
 * side and the library's own kernels are in targetDP_CUDA.cu. Included by
 * targetDP.h (never on its own) after the configuration, the layout and
 * the preprocessor tools (targetDP/targetDP_macros.h) it may use; the host
 * calls of its launches (tdpLaunchBegin_, tdpLaunchCheck_, tdpProfileStart_)
 * are declared by targetDP.h after it. A third backend is one more such
 * pair: docs/hip.md.
 */
#ifndef TARGETDP_H
#error "targetDP_CUDA.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_CUDA_H
#define TARGETDP_CUDA_H


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
 * by targetBlockAdd/Min/Max*(). The clauses are not needed here.
 * At one lane (the CUDA default) a thread takes its strides TDP_RSTRIDES_
 * at a time, the body written out that many times with no test between
 * them, then the rest one by one: the strides' loads are then in flight
 * together. With one stride per trip each load waited for the last: the
 * corpus's norm ran at 0.94 of a native with four partial sums per thread
 * (H100, 2^26 doubles), 1.00 with this (issue 28). The strides are visited
 * in the same order, so a thread's partial is bitwise what it was. At
 * lanes > 1 the lanes are the loads in flight. */
#if VVL == 1
#define TDP_RSTRIDES_ 4
#define TDP_TLP_REDUCE(baseIndex, N, ...)                                                   \
  for (long tdp_n_ = (N), tdp_nt_ = TDP_NTHREADS_, tdp_g_ = TDP_THREAD_, tdp_o6_ = 1; tdp_o6_; \
       tdp_o6_ = 0)                                                                         \
    _Pragma("unroll") for (int tdp_pass_ = 0; tdp_pass_ < 2; tdp_pass_++)                   \
      for (; tdp_pass_ ? tdp_g_ < tdp_n_ : tdp_g_ + (TDP_RSTRIDES_ - 1) * tdp_nt_ < tdp_n_;    \
           tdp_g_ += (tdp_pass_ ? 1 : TDP_RSTRIDES_) * tdp_nt_)                             \
        _Pragma("unroll") for (long tdp_u_ = 0, baseIndex = tdp_g_;                         \
                               tdp_u_ < (tdp_pass_ ? 1 : TDP_RSTRIDES_);                    \
                               tdp_u_++, baseIndex += tdp_nt_)                              \
            TDP_NOBREAK_LANES_(TDP_RLANE1_)
#define TDP_RLANE1_ int tdp_rlane_ = 1, tdp_lstride_ = (int) blockDim.x
#else
#define TDP_TLP_REDUCE(baseIndex, N, ...)                                              \
  TDP_TLP_PASSES_(baseIndex, N, TDP_FULL_REDUCE_(tdp_n_),                              \
                  tdp_full_ + (blockIdx.x == 0 ? 0L : tdp_n_))                         \
  TDP_NOBREAK_LANES_(TDP_LANES_DECL_(tdp_rlane_, tdp_n_, baseIndex))
#endif
/* TDP_TLP_REDUCE with extra OpenMP clauses (C backend; ignored here). */
#define TDP_TLP_REDUCE_OPT_(opts, baseIndex, N, ...) TDP_TLP_REDUCE(baseIndex, N, __VA_ARGS__)

/* One thread per stride: blocks then sweep the lattice in order, which
 * keeps the many streams of a stencil kernel close together in DRAM. */
#define TDP_CHEVRONS_(N) <<<tdpNumBlocks_((N), VVL * TARGET_TPB, 0), TARGET_TPB>>>
#define TDP_CHEVRONS_NOSTRIDE_(N) <<<tdpNumBlocks_((N), TARGET_TPB, 0), TARGET_TPB>>>
/* For kernels that end in targetBlockAdd*: a grid that fills the GPU twice
 * and no more (the grid-stride TLP loop covers the rest), so the kernel
 * pays one atomic per resident block, not one per TPB sites. */
#define TDP_CHEVRONS_REDUCE_(N) <<<tdpNumBlocks_((N), VVL * TARGET_TPB, 1), TARGET_TPB>>>

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
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                    \
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
      <<<tdpNumBlocks_((n), TDP_LANES_MIN_(l) * (long) TARGET_TPB, 0), TARGET_TPB>>>(__VA_ARGS__)
#define TDP_LAUNCH_LANES(kernel, N, lanes, ...)                                     \
  do {                                                                          \
    const long tdp_lanes_n_ = (N);                                              \
    const int tdp_lanes_ = (lanes);                                             \
    if (tdpLaunchLanesCheck_(#kernel, tdp_lanes_, VVL, __FILE__, __LINE__) == TARGET_SUCCESS && \
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
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                              \
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
    if (tdpLaunchTpbCheck_(#kernel, tdp_tpb_, __FILE__, __LINE__) == TARGET_SUCCESS && \
        tdpLaunchBegin_("TDP_LAUNCH_TPB", #kernel, tdp_tpb_n_, __FILE__, __LINE__) == \
            TARGET_SUCCESS) {                                                   \
      kernel<<<tdpNumBlocks_(tdp_tpb_n_, VVL * tdp_tpb_, 0), (unsigned int) tdp_tpb_>>>(__VA_ARGS__); \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                              \
    }                                                                           \
  } while (0)

extern "C" long tdpGridBlocksMax_; /* two fills of the GPU, set by targetInit */
static inline unsigned int tdpNumBlocks_(long n, long per_block, int capped) {
  if (per_block < 1) return 1; /* the launch itself then reports the bad block */
  long nb = (n + per_block - 1) / per_block;
  if (capped && nb > tdpGridBlocksMax_) nb = tdpGridBlocksMax_;
  return (unsigned int) (nb < 1 ? 1 : nb);
}
/* A launch on a stream with a share below 1 (targetStreamSetShare): nb
 * blocks, at most share of one wave of this kernel (its resident blocks
 * per SM at TARGET_TPB threads, from its registers and shared memory), at
 * least one. */
extern "C" int tdpSmCount_; /* the device's SMs, set by targetInit */
template <typename K> static inline unsigned int tdpShareBlocks_(K kernel, unsigned int nb,
                                                                 double share) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, TARGET_TPB, 0) != cudaSuccess ||
      per_sm < 1)
    per_sm = 1; /* the launch then reports what is wrong with the kernel */
  long cap = (long) (share * tdpSmCount_ * per_sm);
  if (cap < 1) cap = 1;
  return (long) nb > cap ? (unsigned int) cap : nb;
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

#endif /* TARGETDP_CUDA_H */
