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

#include "targetDP/targetDP_internal.h"

#include <cuda.h> /* CUstream, CUresult: the stream-flag entry points (no link to libcuda) */

#ifdef TARGETDP_PROFILE
#include <nvtx3/nvToolsExt.h> /* NVTX v3: header-only, in the CUDA toolkit */
#endif

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
int tdpSmCount_ = 1;
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


int tdpBackendInit(tdpSite at) {
  int ndevice = 0;
  CUDA_TRY(cudaGetDeviceCount(&ndevice), at);
  if (ndevice < 1) return tdpFail(TARGET_ERROR_DEVICE, at, "no CUDA device found");
  /* One GPU per MPI rank on a multi-GPU node: the node-local rank comes
   * from the launcher's environment (tdpLocalRank), so the layer needs no
   * MPI. TARGETDP_DEVICE overrides. */
  const char *from = NULL;
  int rank = tdpLocalRank(&from);
  int dev = rank % ndevice;
  CUDA_TRY(cudaSetDevice(dev), at);
  cudaDeviceProp prop;
  CUDA_TRY(cudaGetDeviceProperties(&prop, dev), at);
  nblocks_max = 8 * prop.multiProcessorCount; /* enough blocks to fill the GPU */
  tdpSmCount_ = prop.multiProcessorCount;
  tdpGridBlocksMax_ = 2L * prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / TARGET_TPB);
  snprintf(device_name, sizeof(device_name), "%.200s (device %d of %d, sm_%d%d)", prop.name, dev,
           ndevice, prop.major, prop.minor);
  if (getenv("TARGETDP_VERBOSE")) {
    char bus[32] = "?";
    cudaDeviceGetPCIBusId(bus, (int) sizeof(bus), dev);
    fprintf(stderr, "targetDP: local rank %d (from %s) -> GPU %d of %d (%s, PCI %s)\n", rank, from,
            dev, ndevice, prop.name, bus);
  }
  return grow_scratch((REDUCE_BLOCKS + 1) * sizeof(long long), 0, at);
}

static void profile_finalize(void);

void tdpBackendFinalize(void) {
  profile_finalize();
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
  size_t symbol_bytes = 0;
  CUDA_TRY(cudaGetSymbolSize(&symbol_bytes, (const void *) t_symbol), at);
  if (nbytes > symbol_bytes)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%zu bytes into a constant of %zu bytes (cudaGetSymbolSize)", nbytes,
                   symbol_bytes);
  CUDA_TRY(cudaMemcpyToSymbol((const void *) t_symbol, src, nbytes), at);
  return TARGET_SUCCESS;
}

/* Element moves: one implementation over the element size (4, 8 or 16
 * bytes, checked by the common half), a template instantiated per size. */
struct tdpE16_ {
  unsigned long long w[2];
};
template <typename E> static __global__ void set_kernel(E *a, E value, size_t n) {
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    a[i] = value;
}

template <typename E> static int set_n(void *t_a, const void *value, size_t n, tdpSite at) {
  E v;
  memcpy(&v, value, sizeof(E));
  set_kernel<E><<<lib_blocks(n), LIB_TPB>>>((E *) t_a, v, n);
  CUDA_TRY(cudaGetLastError(), at);
  return TARGET_SUCCESS;
}

int tdpBackendSetConstant(void *t_a, const void *value, size_t esz, size_t n, tdpSite at) {
  if (esz == 4) return set_n<unsigned int>(t_a, value, n, at);
  if (esz == 8) return set_n<unsigned long long>(t_a, value, n, at);
  return set_n<tdpE16_>(t_a, value, n, at);
}

/* Subset copies move only the listed sites: packed as buf[c * nlist + k]
 * so that consecutive threads touch consecutive elements of the buffer. */
template <typename E>
static __global__ void sites_kernel(E *field, E *buf, const long *sites, long nlist,
                                    long nsites, long ncomp, int unpack) {
  for (long k = (long) blockIdx.x * blockDim.x + threadIdx.x; k < nlist;
       k += (long) gridDim.x * blockDim.x) {
    for (long c = 0; c < ncomp; c++) {
      size_t i = TDP_INDEX(nsites, ncomp, sites[k], c);
      if (unpack) field[i] = buf[(size_t) c * nlist + k];
      else buf[(size_t) c * nlist + k] = field[i];
    }
  }
}

template <typename E>
static int copy_sites(void *dstv, const void *srcv, long nsites, long ncomp, const long *sites,
                      long nlist, int to_target, tdpSite at) {
  E *dst = (E *) dstv;
  const E *src = (const E *) srcv;
  size_t nval = (size_t) nlist * ncomp;
  size_t sites_bytes = ((nlist * sizeof(long) + 255) / 256) * 256; /* keep buf aligned */
  int rc = grow_scratch(sites_bytes + nval * sizeof(E), nval * sizeof(E), at);
  if (rc) return rc;
  long *d_sites = (long *) d_scratch;
  E *d_buf = (E *) ((char *) d_scratch + sites_bytes);
  E *h_buf = (E *) h_scratch;
  CUDA_TRY(cudaMemcpy(d_sites, sites, nlist * sizeof(long), cudaMemcpyHostToDevice), at);
  if (to_target) {
    for (long k = 0; k < nlist; k++)
      for (long c = 0; c < ncomp; c++)
        h_buf[(size_t) c * nlist + k] = src[TDP_INDEX(nsites, ncomp, sites[k], c)];
    CUDA_TRY(cudaMemcpy(d_buf, h_buf, nval * sizeof(E), cudaMemcpyHostToDevice), at);
    sites_kernel<E><<<lib_blocks(nlist), LIB_TPB>>>(dst, d_buf, d_sites, nlist, nsites, ncomp, 1);
    CUDA_TRY(cudaGetLastError(), at);
  } else {
    sites_kernel<E><<<lib_blocks(nlist), LIB_TPB>>>((E *) src, d_buf, d_sites, nlist, nsites,
                                                    ncomp, 0);
    CUDA_TRY(cudaGetLastError(), at);
    CUDA_TRY(cudaMemcpy(h_buf, d_buf, nval * sizeof(E), cudaMemcpyDeviceToHost), at);
    for (long k = 0; k < nlist; k++)
      for (long c = 0; c < ncomp; c++)
        dst[TDP_INDEX(nsites, ncomp, sites[k], c)] = h_buf[(size_t) c * nlist + k];
  }
  return TARGET_SUCCESS;
}

int tdpBackendCopySites(void *dst, const void *src, long nsites, long ncomp, size_t esz,
                        const long *sites, long nlist, int to_target, tdpSite at) {
  if (esz == 4)
    return copy_sites<unsigned int>(dst, src, nsites, ncomp, sites, nlist, to_target, at);
  if (esz == 8)
    return copy_sites<unsigned long long>(dst, src, nsites, ncomp, sites, nlist, to_target, at);
  return copy_sites<tdpE16_>(dst, src, nsites, ncomp, sites, nlist, to_target, at);
}

/* Reductions: each thread folds a grid-stride slice, the block combines
 * (tdpBlockReduce_, the block reduction of targetDP.h), block results go to
 * a partial array, and one block folds that. No atomics: the same input
 * gives the same bits every time. The operation is a template argument, so
 * the loop holds no run-time branch on it. */
template <tdpReduceOp op, typename T, typename A>
__global__ void reduce_kernel(const T *a, size_t n, size_t stride, A *out) {
  /* The identity of min and max is the first element: valid for any type. */
  A acc = (op == TDP_SUM) ? (A) 0 : (A) a[0];
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    acc = tdpCombine_<op>(acc, (A) a[i * stride]);
  acc = tdpBlockReduce_<op>(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <tdpReduceOp op, typename T, typename A>
static void reduce_launch(const T *t_a, size_t n, size_t stride, A *partial, unsigned int nb) {
  reduce_kernel<op, T, A><<<nb, LIB_TPB>>>(t_a, n, stride, partial);
  reduce_kernel<op, A, A><<<1, LIB_TPB>>>(partial, nb, 1, partial + REDUCE_BLOCKS);
}

/* Every stride-th element of t_a (a complex sum is two strided real sums),
 * accumulated in A, the result stored as R. */
template <typename T, typename A, typename R>
static int reduce(void *resv, const void *t_av, size_t n, size_t stride, tdpReduceOp op,
                  tdpSite at) {
  const T *t_a = (const T *) t_av;
  R *res = (R *) resv;
  int rc = grow_scratch((REDUCE_BLOCKS + 1) * sizeof(A), 0, at);
  if (rc) return rc;
  A *partial = (A *) d_scratch;
  unsigned int nb = lib_blocks(n) < REDUCE_BLOCKS ? lib_blocks(n) : REDUCE_BLOCKS;
  switch (op) {
  case TDP_SUM: reduce_launch<TDP_SUM>(t_a, n, stride, partial, nb); break;
  case TDP_MIN: reduce_launch<TDP_MIN>(t_a, n, stride, partial, nb); break;
  case TDP_MAX: reduce_launch<TDP_MAX>(t_a, n, stride, partial, nb); break;
  }
  CUDA_TRY(cudaGetLastError(), at);
  A r;
  CUDA_TRY(cudaMemcpy(&r, partial + REDUCE_BLOCKS, sizeof(A), cudaMemcpyDeviceToHost), at);
  *res = (R) r;
  return TARGET_SUCCESS;
}

int tdpBackendReduce(void *res, const void *t_a, size_t n, tdpType type, tdpReduceOp op,
                     tdpSite at) {
  int rc;
  switch (type) {
  case TDP_TYPE_INT: return reduce<int, long long, long long>(res, t_a, n, 1, op, at);
  case TDP_TYPE_LONG: return reduce<long, long, long>(res, t_a, n, 1, op, at);
  case TDP_TYPE_FLOAT: return reduce<float, double, float>(res, t_a, n, 1, op, at);
  case TDP_TYPE_DOUBLE: return reduce<double, double, double>(res, t_a, n, 1, op, at);
  case TDP_TYPE_DOUBLE_COMPLEX:
    rc = reduce<double, double, double>(res, t_a, n, 2, op, at);
    return rc ? rc : reduce<double, double, double>((double *) res + 1, (const double *) t_a + 1,
                                                     n, 2, op, at);
  case TDP_TYPE_FLOAT_COMPLEX:
    rc = reduce<float, double, float>(res, t_a, n, 2, op, at);
    return rc ? rc : reduce<float, double, float>((float *) res + 1, (const float *) t_a + 1, n,
                                                   2, op, at);
  }
  return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "unknown element type %d", (int) type);
}

/* One thread per SoA element: the SoA side is read or written coalesced. */
template <typename E>
static __global__ void convert_kernel(E *dst, const E *src, long nsites, long ncomp,
                                      int aos2soa) {
  size_t n = (size_t) nsites * ncomp;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x) {
    size_t c = i / nsites, s = i % nsites, aos = s * ncomp + c;
    if (aos2soa) dst[i] = src[aos];
    else dst[aos] = src[i];
  }
}

int tdpBackendConvert(void *t_dst, const void *t_src, long nsites, long ncomp, size_t esz,
                      int aos2soa, tdpSite at) {
  unsigned int nb = lib_blocks((size_t) nsites * ncomp);
  if (esz == 4)
    convert_kernel<<<nb, LIB_TPB>>>((unsigned int *) t_dst, (const unsigned int *) t_src, nsites,
                                    ncomp, aos2soa);
  else if (esz == 8)
    convert_kernel<<<nb, LIB_TPB>>>((unsigned long long *) t_dst,
                                    (const unsigned long long *) t_src, nsites, ncomp, aos2soa);
  else
    convert_kernel<<<nb, LIB_TPB>>>((tdpE16_ *) t_dst, (const tdpE16_ *) t_src, nsites, ncomp,
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
/* Constants: t_symbol is the host-side address of a __constant__ variable,
 * which the runtime maps to the device symbol. */

int tdpBackendCopyConstFrom(void *dst, const void *t_symbol, size_t nbytes, tdpSite at) {
  CUDA_TRY(cudaMemcpyFromSymbol(dst, t_symbol, nbytes), at);
  return TARGET_SUCCESS;
}

int tdpBackendCopyConstFromArray(void *t_symbol, const void *t_src, size_t nbytes, tdpSite at) {
  /* (const void *): a plain void * would pick the runtime's C++ template
   * overload, which takes the pointer variable itself as the symbol */
  CUDA_TRY(cudaMemcpyToSymbol((const void *) t_symbol, t_src, nbytes, 0,
                              cudaMemcpyDeviceToDevice), at);
  return TARGET_SUCCESS;
}

int tdpBackendConstAddress(void **t_ptr, const void *t_symbol, tdpSite at) {
  CUDA_TRY(cudaGetSymbolAddress(t_ptr, t_symbol), at);
  return TARGET_SUCCESS;
}

int tdpBackendCopyTargetToTarget(void *t_dst, const void *t_src, size_t nbytes, tdpSite at) {
  CUDA_TRY(cudaMemcpy(t_dst, t_src, nbytes, cudaMemcpyDeviceToDevice), at);
  return TARGET_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Profiling: an event before and after each call, then a wait for the
 * second, so each launch is timed alone (this synchronisation is why it is
 * a separate build). Event pairs are created once per nesting depth. */
#define PROFILE_DEPTH 16
static cudaEvent_t prof_ev[PROFILE_DEPTH][2];
static int prof_have[PROFILE_DEPTH];

void tdpBackendProfileStart(int depth, const char *name) {
#ifdef TARGETDP_PROFILE
  nvtxRangePushA(name);
#else
  (void) name;
#endif
  if (depth < 0 || depth >= PROFILE_DEPTH) return;
  if (!prof_have[depth]) {
    if (cudaEventCreate(&prof_ev[depth][0]) != cudaSuccess ||
        cudaEventCreate(&prof_ev[depth][1]) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    prof_have[depth] = 1;
  }
  cudaEventRecord(prof_ev[depth][0], 0);
}

double tdpBackendProfileStop(int depth) {
  float ms = 0.0f;
  if (depth >= 0 && depth < PROFILE_DEPTH && prof_have[depth]) {
    cudaEventRecord(prof_ev[depth][1], 0);
    /* A failure here belongs to the kernel: the next targetSynchronize
     * reports it; the timing only must not hide it, so peek, not clear. */
    if (cudaEventSynchronize(prof_ev[depth][1]) == cudaSuccess)
      cudaEventElapsedTime(&ms, prof_ev[depth][0], prof_ev[depth][1]);
  }
#ifdef TARGETDP_PROFILE
  nvtxRangePop();
#endif
  return 1e-3 * ms;
}

static void profile_finalize(void) {
  for (int d = 0; d < PROFILE_DEPTH; d++) {
    if (!prof_have[d]) continue;
    cudaEventDestroy(prof_ev[d][0]);
    cudaEventDestroy(prof_ev[d][1]);
    prof_have[d] = 0;
  }
}

/* Asynchronous layer. Streams are blocking streams (cudaStreamCreate):
 * they run concurrently with each other but still order against the
 * legacy default stream, which the synchronous calls of the layer use, so
 * mixing the two keeps program order. */

int tdpBackendStreamCreate(void **native, targetStreamPriority_t priority, tdpSite at) {
  cudaStream_t s;
  int least = 0, greatest = 0; /* greatest: the numerically lowest, the highest priority */
  CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest), at);
  CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamDefault,
                                        priority == TARGET_STREAM_PRIORITY_HIGH ? greatest : least),
           at);
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
int tdpBackendEventCreate(void **native, int timed, tdpSite at) {
  cudaEvent_t e;
  CUDA_TRY(cudaEventCreateWithFlags(&e, timed ? cudaEventDefault : cudaEventDisableTiming), at);
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
int tdpBackendEventElapsed(double *seconds, void *start, void *stop, tdpSite at) {
  float ms = 0.0f;
  CUDA_TRY(cudaEventSynchronize((cudaEvent_t) stop), at);
  CUDA_TRY(cudaEventElapsedTime(&ms, (cudaEvent_t) start, (cudaEvent_t) stop), at);
  *seconds = 1e-3 * ms;
  return TARGET_SUCCESS;
}

/* Target to target is cudaMemcpyDefault: with unified addressing the
 * runtime then also copies to a peer GPU's IPC mapping (over NVLink where
 * there is one). */
int tdpBackendCopyAsync(void *dst, const void *src, size_t nbytes, tdpCopyKind_ kind,
                        void *stream, tdpSite at) {
  cudaMemcpyKind k = kind == TDP_COPY_TO_TARGET_     ? cudaMemcpyHostToDevice
                     : kind == TDP_COPY_FROM_TARGET_ ? cudaMemcpyDeviceToHost
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

/* Stream-ordered flags: the driver's stream memory operations
 * (cuStreamWriteValue32 / cuStreamWaitValue32, CUDA 11.7 and later on
 * every GPU), found through the runtime (cudaGetDriverEntryPoint) so that
 * nothing links libcuda. They run in the stream's front end: a wait holds
 * no SM, and neither waits for a block of another kernel to retire. The
 * write's default flags fence the stream's earlier writes first (the
 * semantics of __threadfence_system for the stream), as NVSHMEM's
 * put-with-signal relies on. */
typedef CUresult (*tdp_streamValue32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
static tdp_streamValue32_fn flag_fn[2];
static int flag_state; /* 0 not looked up, 1 found, -1 missing */

static void *driver_entry(const char *name) {
  void *fn = NULL;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess)
    fn = NULL;
#else
  if (cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q) != cudaSuccess) fn = NULL;
#endif
  cudaGetLastError();
  return q == cudaDriverEntryPointSuccess ? fn : NULL;
}

int tdpBackendFlagsAvailable(void) {
  if (flag_state == 0) {
    flag_fn[0] = (tdp_streamValue32_fn) driver_entry("cuStreamWriteValue32");
    flag_fn[1] = (tdp_streamValue32_fn) driver_entry("cuStreamWaitValue32");
    flag_state = flag_fn[0] && flag_fn[1] ? 1 : -1;
  }
  return flag_state == 1;
}

int tdpBackendStreamFlag(uint32_t *flag, uint32_t value, int wait, void *stream, tdpSite at) {
  if (!tdpBackendFlagsAvailable())
    return tdpFail(TARGET_ERROR_NOT_AVAILABLE, at,
                   "the driver has no cuStreamWriteValue32 / cuStreamWaitValue32 (CUDA 11.7 "
                   "or later needed)");
  const CUresult r = flag_fn[wait != 0]((CUstream) stream, (CUdeviceptr) flag, (cuuint32_t) value,
                                        wait ? (unsigned) CU_STREAM_WAIT_VALUE_GEQ
                                             : (unsigned) CU_STREAM_WRITE_VALUE_DEFAULT);
  if (r != CUDA_SUCCESS)
    return tdpFail(TARGET_ERROR_DEVICE, at, "%s of flag %p (value %u): CUresult %d",
                   wait ? "cuStreamWaitValue32" : "cuStreamWriteValue32", (void *) flag,
                   (unsigned) value, (int) r);
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
