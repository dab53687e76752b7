/*
 * native_cuda.h -- the hand-written CUDA baselines of the team benchmarks
 * (no targetDP in them): the flat and tiled contraction kernels and the
 * dot-per-row kernel, the same algorithms as the layer's team kernels
 * (targetDP_contract.c) written directly in CUDA; cuBLAS's strided batched
 * GEMM; cuSPARSE's generic SpMV. Sources of the techniques:
 *   flat and shared-memory tiled contractions: Edwards, Trott & Sunderland,
 *     "Kokkos: Enabling manycore performance portability through
 *     polymorphic memory access patterns", JPDC 74 (2014), the Intrepid
 *     case study (a thread per output; a 16 x 16 output tile per block
 *     with the operands staged through shared memory 16 deep);
 *   shared-memory tiling of matrix products: Kirk & Hwu, "Programming
 *     Massively Parallel Processors", ch. 4-5, and Volkov & Demmel, SC08
 *     (one row of padding per tile against bank conflicts);
 *   a dot product per row by a group of lanes with a shuffle reduction:
 *     Bell & Garland, "Implementing sparse matrix-vector multiplication on
 *     throughput-oriented processors", SC09 (CSR-vector).
 * Only in the CUDA build (nvcc): the C build's baselines are OpenMP loops
 * in contract.c and spmv.c.
 */
#ifndef NATIVE_CUDA_H
#define NATIVE_CUDA_H
#ifdef __CUDACC__

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static void natCheck(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "native CUDA: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}
static void natCublasCheck(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "native cuBLAS: %s: status %d\n", what, (int) s);
    exit(1);
  }
}

#define NAT_TK 16

/* A thread per output (c, l, r): its dot product over k. */
__global__ void natFlat(double *out, const double *a, const double *b, long nc, long nl, long nr,
                        long nk, int add) {
  const long o = (long) blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= nc * nl * nr) return;
  const long c = o / (nl * nr), l = o / nr % nl, r = o % nr;
  const double *x = a + (c * nl + l) * nk, *y = b + (c * nr + r) * nk;
  double s = 0.0;
  for (long k = 0; k < nk; k++) s += x[k] * y[k];
  out[o] = add ? out[o] + s : s;
}
static void natFlatLaunch(double *out, const double *a, const double *b, long nc, long nl, long nr,
                          long nk, int add) {
  const long n = nc * nl * nr;
  natFlat<<<(unsigned int) ((n + 255) / 256), 256>>>(out, a, b, nc, nl, nr, nk, add);
}

/* A row per thread of nl lanes (blockDim = (lanes, rows per block)). */
__global__ __launch_bounds__(256) void natDotRows(double *out, const double *rows,
                                                  const double *vecs, long nrows, long per, long nk,
                                                  int add) {
  const long row = (long) blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= nrows) return; /* a thread's lanes leave together */
  const double *a = rows + row * nk, *b = vecs + (per == 1 ? row : row / per) * nk;
  double s = 0.0;
  for (int k = threadIdx.x; k < (int) nk; k += blockDim.x) s += a[k] * b[k];
  const unsigned int nl = blockDim.x, lane = (threadIdx.y * nl + threadIdx.x) % 32;
  const unsigned int mask = nl == 32 ? 0xffffffffu : ((1u << nl) - 1u) << (lane & ~(nl - 1u));
  for (unsigned int off = nl / 2; off > 0; off /= 2) s += __shfl_xor_sync(mask, s, off, (int) nl);
  if (threadIdx.x == 0) out[row] = add ? out[row] + s : s;
}

/* An output tile of tl x tr of one cell per block, a thread per output, the
 * operands through shared memory NAT_TK deep (rows padded by one). */
__global__ __launch_bounds__(1024) void natTiled(double *out, const double *left,
                                                 const double *right, long nl, long nr, long nk,
                                                 long ntl, long ntr, int tl, int tr, int add) {
  extern __shared__ double nat_sm[];
  double *as = nat_sm, *bs = nat_sm + tl * (NAT_TK + 1);
  const long team = blockIdx.x, c = team / (ntl * ntr), tile = team % (ntl * ntr);
  const long l0 = tile / ntr * tl, r0 = tile % ntr * tr;
  const int ml = (int) (nl - l0 < tl ? nl - l0 : tl), mr = (int) (nr - r0 < tr ? nr - r0 : tr);
  const double *a = left + (c * nl + l0) * nk, *b = right + (c * nr + r0) * nk;
  const int t = threadIdx.x, ll = t / tr, rr = t % tr;
  double acc = 0.0;
  for (long k0 = 0; k0 < nk; k0 += NAT_TK) {
    const int mk = (int) (nk - k0 < NAT_TK ? nk - k0 : NAT_TK);
    for (int i = t; i < tl * NAT_TK; i += blockDim.x) {
      const int l = i / NAT_TK, kk = i % NAT_TK;
      as[l * (NAT_TK + 1) + kk] = l < ml && kk < mk ? a[l * nk + k0 + kk] : 0.0;
    }
    for (int i = t; i < tr * NAT_TK; i += blockDim.x) {
      const int r = i / NAT_TK, kk = i % NAT_TK;
      bs[r * (NAT_TK + 1) + kk] = r < mr && kk < mk ? b[r * nk + k0 + kk] : 0.0;
    }
    __syncthreads();
    if (ll < tl) {
      double s = 0.0;
#pragma unroll
      for (int kk = 0; kk < NAT_TK; kk++) s += as[ll * (NAT_TK + 1) + kk] * bs[rr * (NAT_TK + 1) + kk];
      acc += s;
    }
    __syncthreads();
  }
  if (ll < ml && rr < mr) {
    const long o = (c * nl + l0 + ll) * nr + r0 + rr;
    out[o] = add ? out[o] + acc : acc;
  }
}

/* The tiled form for a shape, as the layer's team path picks it: a dot per
 * row when nl or nr is 1, else one tile per cell when nl x nr fits a block,
 * else 16 x 16 tiles. */
static void natTiledLaunch(double *out, const double *left, const double *right, long nc, long nl,
                           long nr, long nk, int add) {
  if (nl == 1 || nr == 1) {
    const int rows_left = nr == 1;
    const long per = rows_left ? nl : nr, nrows = nc * per;
    long lanes = 1;
    while (lanes < nk && lanes < 32) lanes *= 2;
    const long rpb = 256 / lanes;
    natDotRows<<<(unsigned int) ((nrows + rpb - 1) / rpb), dim3((unsigned int) lanes,
                                                               (unsigned int) rpb)>>>(
        out, rows_left ? left : right, rows_left ? right : left, nrows, per, nk, add);
    return;
  }
  const int whole = nl * nr <= 1024;
  const int tl = whole ? (int) nl : 16, tr = whole ? (int) nr : 16;
  const int nthreads = (tl * tr + 31) / 32 * 32;
  const long ntl = (nl + tl - 1) / tl, ntr = (nr + tr - 1) / tr, nteams = nc * ntl * ntr;
  const size_t bytes = (size_t) (tl + tr) * (NAT_TK + 1) * sizeof(double);
  static size_t attr = 48 * 1024; /* raised once, as the layer does */
  if (bytes > attr) {
    natCheck(cudaFuncSetAttribute(natTiled, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int) bytes), "cudaFuncSetAttribute");
    attr = bytes;
  }
  natTiled<<<(unsigned int) nteams, nthreads, bytes>>>(out, left, right, nl, nr, nk, ntl, ntr, tl,
                                                       tr, add);
}

/* cuBLAS: row-major out_c = left_c right_c^T is column-major
 * out_c^T = right_c^T left_c (see targetDP_contract.c). */
static cublasHandle_t nat_cublas;
static int nat_have_cublas = 0;
static void natCublas(double *out, const double *left, const double *right, long nc, long nl,
                      long nr, long nk, int add) {
  if (!nat_have_cublas) {
    natCublasCheck(cublasCreate(&nat_cublas), "cublasCreate");
    nat_have_cublas = 1;
  }
  const double one = 1.0, beta = add ? 1.0 : 0.0;
  const int ld = nk > 1 ? (int) nk : 1;
  natCublasCheck(cublasDgemmStridedBatched(nat_cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int) nr, (int) nl,
                                           (int) nk, &one, right, ld, nr * nk, left, ld, nl * nk,
                                           &beta, out, (int) nr, nl * nr, (int) nc),
                 "cublasDgemmStridedBatched");
}
static void natCublasDone(void) {
  if (nat_have_cublas) cublasDestroy(nat_cublas);
  nat_have_cublas = 0;
}

/* The copy ceiling: a device-to-device copy of n bytes (n read, n written). */
static void natCopy(void *dst, const void *src, size_t n) {
  natCheck(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, 0), "cudaMemcpyAsync");
}

#endif /* __CUDACC__ */
#endif
