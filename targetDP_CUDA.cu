/*
 * targetDP_CUDA.cu -- the CUDA backend. Target memory is GPU memory; the
 * copies are cudaMemcpys; kernels the user writes with TDP_KERNEL are
 * CUDA kernels launched by TDP_LAUNCH. This file holds what the
 * library itself runs on the GPU: fills, subset copies, reductions and
 * layout conversion. Every CUDA call is checked and reported with the API
 * call it served and the caller's file and line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP_internal.h"

#define LIB_TPB 256        /* threads per block of the library's own kernels */
#define REDUCE_BLOCKS 1024 /* fixed, so the summation order is too */

/* A failed CUDA call becomes a targetDP error naming the call. */
#define CUDA_TRY(expr, at)                                                         \
  do {                                                                             \
    cudaError_t err_ = (expr);                                                     \
    if (err_ != cudaSuccess) {                                                     \
      cudaGetLastError(); /* clear a non-sticky error so the caller can go on */   \
      return tdpFail(err_ == cudaErrorMemoryAllocation ? TARGET_ERROR_MEMORY       \
                                                       : TARGET_ERROR_DEVICE,      \
                     at, "%s: %s (%s)", #expr, cudaGetErrorString(err_),           \
                     cudaGetErrorName(err_));                                      \
    }                                                                              \
  } while (0)

static char device_name[256] = "no CUDA device initialised";
extern "C" {
long tdpGridBlocksMax_ = 65535; /* until targetInit knows the GPU */
}
static int nblocks_max = 1024;

/* Reusable scratch: site lists and packed values for subset copies, block
 * partials for reductions. Grown on demand, freed in targetFinalize, so a
 * call never leaks (the original's targetDoubleSum did). */
static void *d_scratch = NULL, *h_scratch = NULL;
static size_t d_scratch_bytes = 0, h_scratch_bytes = 0;

static int grow_scratch(size_t dbytes, size_t hbytes, tdpSite at) {
  if (dbytes > d_scratch_bytes) {
    cudaFree(d_scratch);
    d_scratch = NULL;
    d_scratch_bytes = 0;
    CUDA_TRY(cudaMalloc(&d_scratch, dbytes), at);
    d_scratch_bytes = dbytes;
  }
  if (hbytes > h_scratch_bytes) {
    free(h_scratch);
    h_scratch = malloc(hbytes);
    h_scratch_bytes = h_scratch ? hbytes : 0;
    if (!h_scratch)
      return tdpFail(TARGET_ERROR_MEMORY, at, "no host memory for %zu bytes of staging", hbytes);
  }
  return TARGET_SUCCESS;
}

static unsigned int lib_blocks(size_t n) {
  size_t nb = (n + LIB_TPB - 1) / LIB_TPB;
  return (unsigned int) (nb < 1 ? 1 : (nb > (size_t) nblocks_max ? nblocks_max : nb));
}

/* One GPU per MPI rank on a multi-GPU node: the node-local rank comes from
 * the launcher's environment, so the layer needs no MPI. TARGETDP_DEVICE
 * overrides. */
static int local_rank(void) {
  const char *vars[] = {"TARGETDP_DEVICE", "OMPI_COMM_WORLD_LOCAL_RANK",
                        "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
  for (int i = 0; i < 5; i++) {
    if (getenv(vars[i])) return atoi(getenv(vars[i]));
  }
  return 0;
}

int tdpBackendInit(tdpSite at) {
  int ndevice = 0;
  CUDA_TRY(cudaGetDeviceCount(&ndevice), at);
  if (ndevice < 1) return tdpFail(TARGET_ERROR_DEVICE, at, "no CUDA device found");
  int dev = local_rank() % ndevice;
  CUDA_TRY(cudaSetDevice(dev), at);
  cudaDeviceProp prop;
  CUDA_TRY(cudaGetDeviceProperties(&prop, dev), at);
  nblocks_max = 8 * prop.multiProcessorCount; /* enough blocks to fill the GPU */
  tdpGridBlocksMax_ = 2L * prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / TARGET_TPB);
  snprintf(device_name, sizeof(device_name), "%.200s (device %d of %d, sm_%d%d)", prop.name, dev,
           ndevice, prop.major, prop.minor);
  return grow_scratch((REDUCE_BLOCKS + 1) * sizeof(long long), 0, at);
}

void tdpBackendFinalize(void) {
  cudaFree(d_scratch);
  free(h_scratch);
  d_scratch = h_scratch = NULL;
  d_scratch_bytes = h_scratch_bytes = 0;
}

const char *tdpBackendDevice(void) { return device_name; }
const char *tdpBackendConfig(void) { return TARGETDP_CONFIG; }

int tdpBackendMalloc(void **t_ptr, size_t nbytes, int zero, int unified, tdpSite at) {
  cudaError_t err = unified ? cudaMallocManaged(t_ptr, nbytes) : cudaMalloc(t_ptr, nbytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    *t_ptr = NULL;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    return tdpFail(err == cudaErrorMemoryAllocation ? TARGET_ERROR_MEMORY : TARGET_ERROR_DEVICE,
                   at, "%s of %zu bytes (%.3g GiB): %s; the GPU has %.3g GiB free of %.3g GiB",
                   unified ? "cudaMallocManaged" : "cudaMalloc", nbytes, nbytes / 1073741824.0,
                   cudaGetErrorString(err), free_b / 1073741824.0, total_b / 1073741824.0);
  }
  if (zero) CUDA_TRY(cudaMemset(*t_ptr, 0, nbytes), at);
  if (zero && unified) CUDA_TRY(cudaDeviceSynchronize(), at); /* the host may read it next */
  return TARGET_SUCCESS;
}

int tdpBackendFree(void *t_ptr, tdpSite at) {
  CUDA_TRY(cudaFree(t_ptr), at);
  return TARGET_SUCCESS;
}

int tdpBackendCopy(void *dst, const void *src, size_t nbytes, int to_target, tdpSite at) {
  CUDA_TRY(cudaMemcpy(dst, src, nbytes, to_target ? cudaMemcpyHostToDevice
                                                  : cudaMemcpyDeviceToHost), at);
  return TARGET_SUCCESS;
}

/* t_symbol is the address of a TDP_CONST (__constant__) variable: the
 * runtime maps that host-side address to the device symbol. */
int tdpBackendCopyConst(void *t_symbol, const void *src, size_t nbytes, tdpSite at) {
  CUDA_TRY(cudaMemcpyToSymbol((const void *) t_symbol, src, nbytes), at);
  return TARGET_SUCCESS;
}

static __global__ void set_kernel(double *a, double value, size_t n) {
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    a[i] = value;
}

int tdpBackendSetConstant(double *t_a, double value, size_t n, tdpSite at) {
  set_kernel<<<lib_blocks(n), LIB_TPB>>>(t_a, value, n);
  CUDA_TRY(cudaGetLastError(), at);
  return TARGET_SUCCESS;
}

/* Subset copies move only the listed sites: packed as buf[c * nlist + k]
 * so that consecutive threads touch consecutive words of the buffer. */
static __global__ void sites_kernel(double *field, double *buf, const int *sites, int nlist,
                                    int nsites, int ncomp, int unpack) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nlist; k += gridDim.x * blockDim.x) {
    for (int c = 0; c < ncomp; c++) {
      size_t i = TDP_INDEX(nsites, ncomp, sites[k], c);
      if (unpack) field[i] = buf[(size_t) c * nlist + k];
      else buf[(size_t) c * nlist + k] = field[i];
    }
  }
}

int tdpBackendCopySites(double *dst, const double *src, int nsites, int ncomp,
                        const int *sites, int nlist, int to_target, tdpSite at) {
  size_t nval = (size_t) nlist * ncomp;
  size_t sites_bytes = ((nlist * sizeof(int) + 255) / 256) * 256; /* keep buf aligned */
  int rc = grow_scratch(sites_bytes + nval * sizeof(double), nval * sizeof(double), at);
  if (rc) return rc;
  int *d_sites = (int *) d_scratch;
  double *d_buf = (double *) ((char *) d_scratch + sites_bytes);
  double *h_buf = (double *) h_scratch;
  CUDA_TRY(cudaMemcpy(d_sites, sites, nlist * sizeof(int), cudaMemcpyHostToDevice), at);
  if (to_target) {
    for (int k = 0; k < nlist; k++)
      for (int c = 0; c < ncomp; c++)
        h_buf[(size_t) c * nlist + k] = src[TDP_INDEX(nsites, ncomp, sites[k], c)];
    CUDA_TRY(cudaMemcpy(d_buf, h_buf, nval * sizeof(double), cudaMemcpyHostToDevice), at);
    sites_kernel<<<lib_blocks(nlist), LIB_TPB>>>(dst, d_buf, d_sites, nlist, nsites, ncomp, 1);
    CUDA_TRY(cudaGetLastError(), at);
  } else {
    sites_kernel<<<lib_blocks(nlist), LIB_TPB>>>((double *) src, d_buf, d_sites, nlist, nsites,
                                                 ncomp, 0);
    CUDA_TRY(cudaGetLastError(), at);
    CUDA_TRY(cudaMemcpy(h_buf, d_buf, nval * sizeof(double), cudaMemcpyDeviceToHost), at);
    for (int k = 0; k < nlist; k++)
      for (int c = 0; c < ncomp; c++)
        dst[TDP_INDEX(nsites, ncomp, sites[k], c)] = h_buf[(size_t) c * nlist + k];
  }
  return TARGET_SUCCESS;
}

/* Reductions: each thread folds a grid-stride slice, the block combines
 * with warp shuffles, block results go to a partial array, and one block
 * folds that. No atomics: the same input gives the same bits every time. */
template <typename A> __device__ A combine(int op, A x, A y) {
  if (op == TDP_SUM) return x + y;
  if (op == TDP_MIN) return y < x ? y : x;
  return y > x ? y : x;
}

template <typename A> __device__ A block_fold(A v, int op) {
  __shared__ A warp_val[LIB_TPB / 32];
  for (int off = 16; off > 0; off /= 2) v = combine(op, v, __shfl_down_sync(0xffffffffu, v, off));
  if (threadIdx.x % 32 == 0) warp_val[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    /* Lanes past the last warp hold an identity: 0 for a sum, any element
     * for min and max. */
    v = threadIdx.x < LIB_TPB / 32 ? warp_val[threadIdx.x] : (op == TDP_SUM ? (A) 0 : warp_val[0]);
    for (int off = 16; off > 0; off /= 2) v = combine(op, v, __shfl_down_sync(0xffffffffu, v, off));
  }
  return v;
}

template <typename T, typename A>
__global__ void reduce_kernel(const T *a, size_t n, int op, A *out) {
  /* The identity of min and max is the first element: valid for any type. */
  A acc = (op == TDP_SUM) ? (A) 0 : (A) a[0];
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    acc = combine(op, acc, (A) a[i]);
  acc = block_fold(acc, op);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <typename T, typename A>
static int reduce(A *res, const T *t_a, size_t n, int op, tdpSite at) {
  int rc = grow_scratch((REDUCE_BLOCKS + 1) * sizeof(A), 0, at);
  if (rc) return rc;
  A *partial = (A *) d_scratch;
  unsigned int nb = lib_blocks(n) < REDUCE_BLOCKS ? lib_blocks(n) : REDUCE_BLOCKS;
  reduce_kernel<T, A><<<nb, LIB_TPB>>>(t_a, n, op, partial);
  reduce_kernel<A, A><<<1, LIB_TPB>>>(partial, nb, op, partial + REDUCE_BLOCKS);
  CUDA_TRY(cudaGetLastError(), at);
  CUDA_TRY(cudaMemcpy(res, partial + REDUCE_BLOCKS, sizeof(A), cudaMemcpyDeviceToHost), at);
  return TARGET_SUCCESS;
}

int tdpBackendReduceDouble(double *res, const double *t_a, size_t n, int op, tdpSite at) {
  return reduce<double, double>(res, t_a, n, op, at);
}

int tdpBackendReduceInt(long long *res, const int *t_a, size_t n, int op, tdpSite at) {
  return reduce<int, long long>(res, t_a, n, op, at);
}

/* One thread per SoA element: the SoA side is read or written coalesced. */
static __global__ void convert_kernel(double *dst, const double *src, int nsites, int ncomp,
                                      int aos2soa) {
  size_t n = (size_t) nsites * ncomp;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x) {
    size_t c = i / nsites, s = i % nsites, aos = s * ncomp + c;
    if (aos2soa) dst[i] = src[aos];
    else dst[aos] = src[i];
  }
}

int tdpBackendConvert(double *t_dst, const double *t_src, int nsites, int ncomp, int aos2soa,
                      tdpSite at) {
  convert_kernel<<<lib_blocks((size_t) nsites * ncomp), LIB_TPB>>>(t_dst, t_src, nsites, ncomp,
                                                                   aos2soa);
  CUDA_TRY(cudaGetLastError(), at);
  return TARGET_SUCCESS;
}

/* A launch that failed (too many threads or registers, a bad grid) leaves
 * a non-sticky error: report it with the kernel's name now, not at the
 * next call. Peeking first keeps the common path to one cheap query. */
int tdpBackendLaunchCheck(const char *kernel, tdpSite at) {
  cudaError_t err = cudaPeekAtLastError();
  if (err == cudaSuccess) return TARGET_SUCCESS;
  cudaGetLastError();
  return tdpFail(TARGET_ERROR_DEVICE, at, "kernel %s failed to launch: %s (%s)", kernel,
                 cudaGetErrorString(err), cudaGetErrorName(err));
}

/* A launch error shows at cudaGetLastError, a fault inside the kernel at
 * the synchronisation: report both with the caller's name for the point. */
int tdpBackendSynchronize(tdpSite at) {
  CUDA_TRY(cudaGetLastError(), at);
  CUDA_TRY(cudaDeviceSynchronize(), at);
  return TARGET_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Asynchronous layer. Streams are blocking streams (cudaStreamCreate):
 * they run concurrently with each other but still order against the
 * legacy default stream, which the synchronous calls of the layer use, so
 * mixing the two keeps program order. */

int tdpBackendStreamCreate(void **native, tdpSite at) {
  cudaStream_t s;
  CUDA_TRY(cudaStreamCreate(&s), at);
  *native = (void *) s;
  return TARGET_SUCCESS;
}
int tdpBackendStreamDestroy(void *native, tdpSite at) {
  CUDA_TRY(cudaStreamDestroy((cudaStream_t) native), at);
  return TARGET_SUCCESS;
}
/* A fault in a kernel of the stream shows here: report it for this call. */
int tdpBackendStreamSynchronize(void *native, tdpSite at) {
  CUDA_TRY(cudaStreamSynchronize((cudaStream_t) native), at);
  return TARGET_SUCCESS;
}
int tdpBackendEventCreate(void **native, tdpSite at) {
  cudaEvent_t e;
  CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), at);
  *native = (void *) e;
  return TARGET_SUCCESS;
}
int tdpBackendEventDestroy(void *native, tdpSite at) {
  CUDA_TRY(cudaEventDestroy((cudaEvent_t) native), at);
  return TARGET_SUCCESS;
}
int tdpBackendEventRecord(void *event, void *stream, tdpSite at) {
  CUDA_TRY(cudaEventRecord((cudaEvent_t) event, (cudaStream_t) stream), at);
  return TARGET_SUCCESS;
}
int tdpBackendStreamWaitEvent(void *stream, void *event, tdpSite at) {
  CUDA_TRY(cudaStreamWaitEvent((cudaStream_t) stream, (cudaEvent_t) event, 0), at);
  return TARGET_SUCCESS;
}
int tdpBackendEventSynchronize(void *event, tdpSite at) {
  CUDA_TRY(cudaEventSynchronize((cudaEvent_t) event), at);
  return TARGET_SUCCESS;
}

/* Target to target is cudaMemcpyDefault: with unified addressing the
 * runtime then also copies to a peer GPU's IPC mapping (over NVLink where
 * there is one). */
int tdpBackendCopyAsync(void *dst, const void *src, size_t nbytes, targetCopyKind_t kind,
                        void *stream, tdpSite at) {
  cudaMemcpyKind k = kind == TARGET_COPY_TO_TARGET     ? cudaMemcpyHostToDevice
                     : kind == TARGET_COPY_FROM_TARGET ? cudaMemcpyDeviceToHost
                                                       : cudaMemcpyDefault;
  CUDA_TRY(cudaMemcpyAsync(dst, src, nbytes, k, (cudaStream_t) stream), at);
  return TARGET_SUCCESS;
}

int tdpBackendMallocHost(void **p, size_t nbytes, tdpSite at) {
  cudaError_t err = cudaMallocHost(p, nbytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    return tdpFail(err == cudaErrorMemoryAllocation ? TARGET_ERROR_MEMORY : TARGET_ERROR_DEVICE,
                   at, "cudaMallocHost of %zu bytes (%.3g GiB): %s", nbytes,
                   nbytes / 1073741824.0, cudaGetErrorString(err));
  }
  return TARGET_SUCCESS;
}
int tdpBackendFreeHost(void *p, tdpSite at) {
  CUDA_TRY(cudaFreeHost(p), at);
  return TARGET_SUCCESS;
}

int tdpBackendIpcAvailable(void) { return 1; }
int tdpBackendIpcGetHandle(unsigned char bytes[64], void *t_base, tdpSite at) {
  static_assert(sizeof(cudaIpcMemHandle_t) <= 64, "targetIpcHandle_t too small");
  cudaIpcMemHandle_t h;
  CUDA_TRY(cudaIpcGetMemHandle(&h, t_base), at);
  memcpy(bytes, &h, sizeof(h));
  return TARGET_SUCCESS;
}
int tdpBackendIpcOpenHandle(void **t_base, const unsigned char bytes[64], tdpSite at) {
  cudaIpcMemHandle_t h;
  memcpy(&h, bytes, sizeof(h));
  CUDA_TRY(cudaIpcOpenMemHandle(t_base, h, cudaIpcMemLazyEnablePeerAccess), at);
  return TARGET_SUCCESS;
}
int tdpBackendIpcCloseHandle(void *t_base, tdpSite at) {
  CUDA_TRY(cudaIpcCloseMemHandle(t_base), at);
  return TARGET_SUCCESS;
}
int tdpBackendDeviceCount(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}
int tdpBackendDeviceId(void) {
  int d = -1;
  if (cudaGetDevice(&d) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return d;
}
