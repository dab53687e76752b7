/*
 * stream_native.h -- the type-generic parts of the native STREAM
 * candidates (stream_kernels.h instantiates them per element type).
 *
 * The native side of the benchmark is not one kernel per operation but a
 * small set of the techniques public STREAM implementations use; the
 * benchmark times every candidate and measures targetDP against the
 * fastest (docs/performance.md names each technique and its source).
 *   CUDA: one element per thread in 1024-thread blocks (BabelStream's
 *         CUDA model); grid-stride loops with K = 1..8 independent
 *         elements per thread, a block apart so that every load of a warp
 *         stays coalesced (NVIDIA's grid-stride-loop advice plus ILP);
 *         16-byte vector loads/stores (double2 / float4); a fixed grid of
 *         a few blocks per SM; __restrict__ and __ldg for the inputs.
 *         Dot: a fixed grid, several accumulators per thread, a shuffle
 *         block reduction and one atomic per block.
 *   C:    "omp parallel for simd schedule(static)" (McCalpin's STREAM and
 *         BabelStream's OpenMP model), and the same loops with
 *         non-temporal (streaming) stores of whole 64-byte lines, which
 *         skip the write-allocate read of the destination (gcc ignores
 *         "omp simd nontemporal", hence intrinsics).
 */
#ifndef STREAM_NATIVE_H
#define STREAM_NATIVE_H

/* The element-wise kernels as dst[i] = op(x[i], y[i], dst[i]):
 * Copy c=a (x=a), Mul b=s*c (x=c), Add c=a+b, Triad a=b+s*c, Nstream
 * a+=b+s*c (x=b, y=c for the last three). */
enum { NOP_COPY, NOP_MUL, NOP_ADD, NOP_TRIAD, NOP_NSTREAM };

#ifdef __CUDACC__

template <int OP, typename T>
__device__ __forceinline__ T natOp(T s, T x, T y, T d) {
  switch (OP) {
  case NOP_COPY: return x;
  case NOP_MUL: return s * x;
  case NOP_ADD: return x + y;
  case NOP_TRIAD: return x + s * y;
  default: return d + (x + s * y);
  }
}
template <int OP> struct natReads {
  static const bool y = OP == NOP_ADD || OP == NOP_TRIAD || OP == NOP_NSTREAM;
  static const bool d = OP == NOP_NSTREAM;
};

/* K elements per thread, blockDim apart: a warp's j-th loads are 32
 * consecutive elements (coalesced), and a thread issues all K loads before
 * it needs any of them. Grid-stride over tiles of blockDim * K. I, the
 * index type: int as public STREAM codes have it, or long as targetDP's
 * sites are (the long form ran at 0.990-1.018 of the int one on the H100,
 * no lean either way: 64-bit indices cost nothing here). */
template <int OP, typename T, int K, typename I = int>
__global__ void natIlp(T *__restrict__ d, const T *__restrict__ x, const T *__restrict__ y, T s,
                       int n) {
  const I tile = (I) blockDim.x * K;
  for (I i0 = (I) blockIdx.x * tile + threadIdx.x; i0 < n; i0 += (I) gridDim.x * tile) {
    T xv[K], yv[K], dv[K];
#pragma unroll
    for (int j = 0; j < K; j++) {
      const I i = i0 + (I) j * blockDim.x;
      xv[j] = yv[j] = dv[j] = T(0);
      if (i < n) {
        xv[j] = __ldg(x + i);
        if (natReads<OP>::y) yv[j] = __ldg(y + i);
        if (natReads<OP>::d) dv[j] = d[i];
      }
    }
#pragma unroll
    for (int j = 0; j < K; j++) {
      const I i = i0 + (I) j * blockDim.x;
      if (i < n) d[i] = natOp<OP>(s, xv[j], yv[j], dv[j]);
    }
  }
}

/* 16-byte accesses: V = double2 or float4, K of them per thread (blockDim
 * apart), the n % L last elements by the first threads of the grid.
 * Needs 16-byte aligned arrays (cudaMalloc gives 256). */
template <typename T> struct natVec16;
template <> struct natVec16<double> { typedef double2 type; };
template <> struct natVec16<float> { typedef float4 type; };

template <int OP, typename T, int K>
__global__ void natVec(T *__restrict__ d, const T *__restrict__ x, const T *__restrict__ y, T s,
                       int n) {
  typedef typename natVec16<T>::type V;
  const int L = (int) (sizeof(V) / sizeof(T)), nv = n / L, tile = blockDim.x * K;
  for (int i0 = blockIdx.x * tile + threadIdx.x; i0 < nv; i0 += gridDim.x * tile) {
    V xv[K], yv[K], dv[K];
#pragma unroll
    for (int j = 0; j < K; j++) {
      const int i = i0 + j * blockDim.x;
      if (i < nv) {
        xv[j] = __ldg((const V *) x + i);
        if (natReads<OP>::y) yv[j] = __ldg((const V *) y + i);
        if (natReads<OP>::d) dv[j] = ((const V *) d)[i];
      }
    }
#pragma unroll
    for (int j = 0; j < K; j++) {
      const int i = i0 + j * blockDim.x;
      if (i < nv) {
        V r;
        T *rp = (T *) &r;
        const T *xp = (const T *) &xv[j], *yp = (const T *) &yv[j], *dp = (const T *) &dv[j];
#pragma unroll
        for (int l = 0; l < L; l++)
          rp[l] = natOp<OP>(s, xp[l], natReads<OP>::y ? yp[l] : T(0),
                            natReads<OP>::d ? dp[l] : T(0));
        ((V *) d)[i] = r;
      }
    }
  }
  const int t = blockIdx.x * blockDim.x + threadIdx.x, i = nv * L + t;
  if (i < n)
    d[i] = natOp<OP>(s, x[i], natReads<OP>::y ? y[i] : T(0), natReads<OP>::d ? d[i] : T(0));
}

/* Dot: K accumulators per thread, loads blockDim apart, then warp
 * shuffles, one value per warp in shared memory, one atomic per block. */
template <typename T, int K>
__global__ void natDot(double *sum, const T *__restrict__ a, const T *__restrict__ b, int n) {
  __shared__ double warp_sum[32];
  double acc[K];
#pragma unroll
  for (int j = 0; j < K; j++) acc[j] = 0.0;
  const int tile = blockDim.x * K;
  for (int i0 = blockIdx.x * tile + threadIdx.x; i0 < n; i0 += gridDim.x * tile) {
#pragma unroll
    for (int j = 0; j < K; j++) {
      const int i = i0 + j * blockDim.x;
      if (i < n) acc[j] += (double) __ldg(a + i) * (double) __ldg(b + i);
    }
  }
  double v = 0.0;
#pragma unroll
  for (int j = 0; j < K; j++) v += acc[j];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warp_sum[threadIdx.x] : 0.0;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) atomicAdd(sum, v);
  }
}

/* The candidates: how many elements per thread, block size, grid. */
typedef struct {
  const char *name;
  int vec;      /* 16-byte accesses */
  int k;        /* elements (or vectors) per thread per grid stride */
  int tpb;
  int fixed;    /* 0: a grid that covers n once; f > 0: f blocks per SM, grid-stride */
  int wide;     /* 64-bit indices, as targetDP's sites (natIlp's I) */
} natVariant;

static const natVariant natEltVariants[] = {
    {"1/thread tpb1024 (BabelStream)", 0, 1, 1024, 0, 0},
    {"1/thread tpb256", 0, 1, 256, 0, 0},
    {"ilp2 tpb256", 0, 2, 256, 0, 0},
    {"ilp4 tpb256", 0, 4, 256, 0, 0},
    {"ilp8 tpb256", 0, 8, 256, 0, 0},
    {"vec16B x1 tpb256", 1, 1, 256, 0, 0},
    {"vec16B x2 tpb256", 1, 2, 256, 0, 0},
    {"ilp4 tpb256 grid 8/SM", 0, 4, 256, 8, 0},
    {"vec16B x2 tpb256 grid 8/SM", 1, 2, 256, 8, 0},
    {"ilp2 tpb256 64-bit index", 0, 2, 256, 0, 1},
    {"ilp4 tpb256 64-bit index", 0, 4, 256, 0, 1},
};
static const natVariant natDotVariants[] = {
    {"tpb1024 grid 4/SM (BabelStream)", 0, 1, 1024, 4, 0},
    {"ilp4 tpb256 grid 8/SM", 0, 4, 256, 8, 0},
    {"ilp8 tpb256 grid 8/SM", 0, 8, 256, 8, 0},
    {"ilp4 tpb512 grid 4/SM", 0, 4, 512, 4, 0},
    {"ilp4 tpb256 grid 16/SM", 0, 4, 256, 16, 0},
};
#define NAT_NELT ((int) (sizeof(natEltVariants) / sizeof(natEltVariants[0])))
#define NAT_NDOT ((int) (sizeof(natDotVariants) / sizeof(natDotVariants[0])))

/* units: elements, or 16-byte vectors (plus one for the tail) */
static inline unsigned int natGrid(const natVariant *v, long units) {
  if (v->fixed) return (unsigned int) (v->fixed * nativeSMs());
  long per = (long) v->tpb * v->k, nb = (units + per - 1) / per;
  return (unsigned int) (nb < 1 ? 1 : nb);
}

template <int OP, typename T>
static void natLaunchElt(int variant, T *d, const T *x, const T *y, T s, int n) {
  const natVariant *v = &natEltVariants[variant];
  const unsigned int grid = natGrid(v, v->vec ? n / (long) (16 / sizeof(T)) + 1 : n);
#define NAT_K_(kernel, K) kernel<OP, T, K><<<grid, v->tpb>>>(d, x, y, s, n)
  if (v->vec) {
    if (v->k == 1) NAT_K_(natVec, 1);
    else NAT_K_(natVec, 2);
  } else if (v->wide) {
    if (v->k == 2) natIlp<OP, T, 2, long><<<grid, v->tpb>>>(d, x, y, s, n);
    else natIlp<OP, T, 4, long><<<grid, v->tpb>>>(d, x, y, s, n);
  } else {
    switch (v->k) {
    case 1: NAT_K_(natIlp, 1); break;
    case 2: NAT_K_(natIlp, 2); break;
    case 4: NAT_K_(natIlp, 4); break;
    default: NAT_K_(natIlp, 8); break;
    }
  }
#undef NAT_K_
}

template <typename T>
static void natLaunchDot(int variant, double *sum, const T *a, const T *b, int n) {
  const natVariant *v = &natDotVariants[variant];
  const unsigned int grid = natGrid(v, n);
  switch (v->k) {
  case 1: natDot<T, 1><<<grid, v->tpb>>>(sum, a, b, n); break;
  case 4: natDot<T, 4><<<grid, v->tpb>>>(sum, a, b, n); break;
  default: natDot<T, 8><<<grid, v->tpb>>>(sum, a, b, n); break;
  }
}

#else /* C */

#include <stdint.h>
#if defined(__AVX__) && !defined(TARGETDP_CHECK)
#include <immintrin.h>
#define NAT_HAVE_NT 1
/* Write one 64-byte line from src (any element type) to the 64-byte
 * aligned dst without reading it first. */
static inline void natStreamLine(void *dst, const void *src) {
#ifdef __AVX512F__
  _mm512_stream_si512((__m512i *) dst, _mm512_loadu_si512(src));
#else
  _mm256_stream_si256((__m256i *) dst, _mm256_loadu_si256((const __m256i *) src));
  _mm256_stream_si256((__m256i *) dst + 1, _mm256_loadu_si256((const __m256i *) src + 1));
#endif
}
static inline void natStreamFence(void) { _mm_sfence(); }
#else
#define NAT_HAVE_NT 0
#endif

#endif /* __CUDACC__ */
#endif /* STREAM_NATIVE_H */
