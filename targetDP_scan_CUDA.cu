/*
 * targetDP_scan_CUDA.cu -- prefix sums and stream compaction on CUDA,
 * through CUB (CCCL, part of the CUDA toolkit): cub::DeviceScan (a
 * single-pass decoupled look-back scan, near copy bandwidth) and
 * cub::DeviceSelect::Flagged over the site indices. One template per
 * operation, instantiated per element type. CUB's temporary storage is
 * kept between calls and freed by targetFinalize.
 */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <limits.h>

#include "targetDP_internal.h"

static void *d_temp = NULL;
static size_t d_temp_bytes = 0;

/* Room for `bytes` of CUB temporary storage plus one trailing long. */
static int grow_temp(size_t bytes, tdpSite at) {
  bytes = (bytes + 255) / 256 * 256 + 256;
  if (bytes <= d_temp_bytes) return TARGET_SUCCESS;
  cudaFree(d_temp);
  d_temp = NULL;
  d_temp_bytes = 0;
  cudaError_t err = cudaMalloc(&d_temp, bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return tdpFail(TARGET_ERROR_MEMORY, at, "cudaMalloc of %zu bytes of scan scratch: %s", bytes,
                   cudaGetErrorString(err));
  }
  d_temp_bytes = bytes;
  return TARGET_SUCCESS;
}

static int cuda_check(cudaError_t err, const char *what, tdpSite at) {
  if (err == cudaSuccess) return TARGET_SUCCESS;
  cudaGetLastError();
  return tdpFail(TARGET_ERROR_DEVICE, at, "%s: %s (%s)", what, cudaGetErrorString(err),
                 cudaGetErrorName(err));
}

/* CUB scans in place when out == in (the common layer has refused any
 * other overlap). N is CUB's offset type: int below 2^31 items (CUB's
 * kernels are leaner with 32-bit offsets), long beyond. */
template <typename T, typename N>
static int scan(T *out, const T *in, N n, tdpScanMode mode, tdpSite at) {
  size_t bytes = 0;
  cudaError_t err = mode == TDP_SCAN_INCLUSIVE
                        ? cub::DeviceScan::InclusiveSum(NULL, bytes, in, out, n)
                        : cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, n);
  int rc = cuda_check(err, "cub::DeviceScan (temporary storage size)", at);
  if (rc == TARGET_SUCCESS) rc = grow_temp(bytes, at);
  if (rc) return rc;
  bytes = d_temp_bytes;
  err = mode == TDP_SCAN_INCLUSIVE ? cub::DeviceScan::InclusiveSum(d_temp, bytes, in, out, n)
                                   : cub::DeviceScan::ExclusiveSum(d_temp, bytes, in, out, n);
  return cuda_check(err, "cub::DeviceScan", at);
}

template <typename T>
static int scan_n(void *t_out, const void *t_in, size_t n, tdpScanMode mode, tdpSite at) {
  if (n <= INT_MAX) return scan((T *) t_out, (const T *) t_in, (int) n, mode, at);
  return scan((T *) t_out, (const T *) t_in, (long) n, mode, at);
}

int tdpBackendScan(void *t_out, const void *t_in, size_t n, tdpScanType type, tdpScanMode mode,
                   tdpSite at) {
  switch (type) {
  case TDP_TYPE_INT: return scan_n<int>(t_out, t_in, n, mode, at);
  case TDP_TYPE_LONG: return scan_n<long>(t_out, t_in, n, mode, at);
  case TDP_TYPE_DOUBLE: return scan_n<double>(t_out, t_in, n, mode, at);
  default: break; /* the common half refuses other types */
  }
  return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "unknown element type %d", (int) type);
}

template <typename N>
static int compact(long *t_index, size_t *count, const char *t_mask, N n, tdpSite at) {
  size_t bytes = 0;
  thrust::counting_iterator<long> sites(0);
  int rc = cuda_check(cub::DeviceSelect::Flagged(NULL, bytes, sites, t_mask, t_index,
                                                 (N *) NULL, n),
                      "cub::DeviceSelect::Flagged (temporary storage size)", at);
  if (rc == TARGET_SUCCESS) rc = grow_temp(bytes, at);
  if (rc) return rc;
  /* the count goes in the last 256 bytes of the scratch */
  N *d_count = (N *) ((char *) d_temp + d_temp_bytes - 256);
  bytes = d_temp_bytes - 256;
  rc = cuda_check(cub::DeviceSelect::Flagged(d_temp, bytes, sites, t_mask, t_index, d_count, n),
                  "cub::DeviceSelect::Flagged", at);
  N c = 0;
  if (rc == TARGET_SUCCESS)
    rc = cuda_check(cudaMemcpy(&c, d_count, sizeof(N), cudaMemcpyDeviceToHost),
                    "cudaMemcpy of the count", at);
  if (rc == TARGET_SUCCESS) *count = (size_t) c;
  return rc;
}

int tdpBackendCompact(long *t_index, size_t *count, const char *t_mask, size_t n, tdpSite at) {
  if (n <= INT_MAX) return compact(t_index, count, t_mask, (int) n, at);
  return compact(t_index, count, t_mask, (long) n, at);
}

void tdpBackendScanFinalize(void) {
  cudaFree(d_temp);
  d_temp = NULL;
  d_temp_bytes = 0;
}
