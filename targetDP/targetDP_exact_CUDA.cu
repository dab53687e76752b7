/*
 * targetDP_exact_CUDA.cu -- the CUDA backend's exact sums of float and
 * double arrays (targetDoubleSum, targetFloatSum, their complex and Exact
 * forms; targetDP_exact.h says why and how).
 *
 * One kernel over a capped grid (two fills of the GPU, as TDP_LAUNCH_REDUCE):
 * each thread folds its grid-stride slice into a two-term expansion
 * (tdpExactAdd: TwoSum, a rare summand into the digits by atomics), four
 * loads in flight per thread; then tdpExactBlockAdd_ (targetDP_exact.h):
 * per warp an integer sum of the digits in a window, a few atomics. The
 * digits are integers, so the atomics' order does not matter: the same
 * bits every run and on every GPU, and the same as the C backend's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "targetDP_internal.h"

#define XTPB 256 /* threads per block (even: a thread keeps one component) */

extern "C" long tdpGridBlocksMax_;

/* The result of every sum: two (complex) target sums, no allocation. */
static __device__ tdpExactSum xsum_out[2];

/* Element k of the flat array (n elements of ncomp components) is
 * component k % ncomp; the grid has an even number of threads, so a
 * thread's elements all belong to the same component. */
template <typename T>
__global__ void __launch_bounds__(XTPB) xsum_kernel(const T *a, size_t nflat, int ncomp) {
  const size_t g = (size_t) gridDim.x * blockDim.x;
  const size_t tid = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  const int mine = ncomp == 2 ? (int) (threadIdx.x & 1) : 0;
  tdpExactAcc acc = tdpExactAccOn(&xsum_out[mine]);
  size_t k = tid;
  for (; k + 3 * g < nflat; k += 4 * g) { /* the loads first: four in flight */
    const double x0 = (double) a[k], x1 = (double) a[k + g], x2 = (double) a[k + 2 * g],
                 x3 = (double) a[k + 3 * g];
    tdpExactAdd(&acc, x0);
    tdpExactAdd(&acc, x1);
    tdpExactAdd(&acc, x2);
    tdpExactAdd(&acc, x3);
  }
  for (; k < nflat; k += g) tdpExactAdd(&acc, (double) a[k]);
  /* a warp's accumulators must be on one sum: one pass per component */
  for (int c = 0; c < ncomp; c++) {
    tdpExactAcc part = c == mine ? acc : tdpExactAccOn(&xsum_out[c]);
    tdpExactBlockAdd_(&part);
  }
}

static int cuda_check(cudaError_t err, const char *what, tdpSite at) {
  if (err == cudaSuccess) return TARGET_SUCCESS;
  cudaGetLastError();
  return tdpFail(TARGET_ERROR_DEVICE, at, "%s: %s (%s)", what, cudaGetErrorString(err),
                 cudaGetErrorName(err));
}

extern "C" int tdpBackendExactSum(tdpExactSum *res, const void *t_a, size_t n, int ncomp,
                                  tdpType type, tdpSite at) {
  const size_t nflat = n * (size_t) ncomp;
  void *out = NULL;
  int rc = cuda_check(cudaGetSymbolAddress(&out, xsum_out), "cudaGetSymbolAddress", at);
  if (rc == TARGET_SUCCESS) rc = cuda_check(cudaMemset(out, 0, sizeof xsum_out), "cudaMemset", at);
  if (rc) return rc;
  size_t nb = (nflat + XTPB - 1) / XTPB;
  if (nb > (size_t) tdpGridBlocksMax_) nb = (size_t) tdpGridBlocksMax_;
  if (nb < 1) nb = 1;
  if (type == TDP_TYPE_FLOAT)
    xsum_kernel<float><<<(unsigned) nb, XTPB>>>((const float *) t_a, nflat, ncomp);
  else
    xsum_kernel<double><<<(unsigned) nb, XTPB>>>((const double *) t_a, nflat, ncomp);
  rc = cuda_check(cudaGetLastError(), "the exact sum's kernel", at);
  tdpExactSum h[2];
  if (rc == TARGET_SUCCESS)
    rc = cuda_check(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpy", at);
  if (rc) return rc;
  for (int c = 0; c < ncomp; c++) {
    tdpExactSumMerge(&res[c], &h[c]);
    tdpExactNormalise_(&res[c]);
  }
  return TARGET_SUCCESS;
}
