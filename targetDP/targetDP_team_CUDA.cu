/*
 * targetDP_team_CUDA.cu -- teams on the CUDA backend (targetDP_team.h): a
 * team is a thread block. Before each launch: what the kernel allows
 * (cudaFuncGetAttributes: its launch bounds and registers, its static
 * shared memory) and what the device allows (shared memory per block with
 * the opt-in), remembered per kernel and device; a scratch above the 48 KB
 * a kernel gets by default raises the kernel's dynamic shared memory limit
 * (cudaFuncSetAttribute), once.
 */
#include <pthread.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "targetDP_internal.h"

typedef struct {
  const void *func;
  int dev;
  long max_threads;   /* launch bounds and registers */
  size_t static_smem; /* the kernel's own __shared__ (team reductions included) */
  size_t dyn_max;     /* its dynamic shared memory limit now */
} kernelInfo;
#define NINFO 256
static kernelInfo info[NINFO];
static int ninfo = 0;
static int optin_dev = -1;
static size_t optin_bytes = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int fill(kernelInfo *k, const void *func, int dev, const char *kernel, tdpSite at) {
  cudaFuncAttributes a;
  cudaError_t err = cudaFuncGetAttributes(&a, func);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return tdpFail(TARGET_ERROR_DEVICE, at, "kernel %s: cudaFuncGetAttributes: %s (%s)", kernel,
                   cudaGetErrorString(err), cudaGetErrorName(err));
  }
  k->func = func;
  k->dev = dev;
  k->max_threads = a.maxThreadsPerBlock;
  k->static_smem = a.sharedSizeBytes;
  k->dyn_max = (size_t) a.maxDynamicSharedSizeBytes;
  return TARGET_SUCCESS;
}

static int begin(const void *func, const char *kernel, long nteams, long nthreads, long nlanes,
                 size_t scratch_bytes, const char *f, int l) {
  tdpSite at = {"TDP_LAUNCH_TEAMS", f, l};
  int rc = tdpCheckLive(at);
  if (rc) return rc;
  int dev = 0;
  cudaGetDevice(&dev);
  if (optin_dev != dev) {
    int v = 0;
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    optin_bytes = (size_t) v;
    optin_dev = dev;
  }
  kernelInfo *k = NULL, tmp;
  for (int i = 0; i < ninfo && !k; i++)
    if (info[i].func == func && info[i].dev == dev) k = &info[i];
  if (!k) {
    k = ninfo < NINFO ? &info[ninfo] : &tmp; /* a full table still works, uncached */
    rc = fill(k, func, dev, kernel, at);
    if (rc) return rc;
    if (k != &tmp) ninfo++;
  }
  const size_t smax = optin_bytes > k->static_smem ? optin_bytes - k->static_smem : 0;
  char why[200];
  snprintf(why, sizeof(why), "the device allows per team (%zu bytes of shared memory per block "
           "less the kernel's own %zu)", optin_bytes, k->static_smem);
  rc = tdpTeamCheck_(kernel, nteams, nthreads, nlanes, scratch_bytes, k->max_threads,
                     "its launch bounds (TDP_TEAM_KERNEL) and registers", smax, why, f, l);
  if (rc) return rc;
  if (scratch_bytes > k->dyn_max) {
    /* the whole opt-in at once: no second call for a larger scratch */
    cudaError_t err = cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int) smax);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return tdpFail(TARGET_ERROR_DEVICE, at, "kernel %s: cudaFuncSetAttribute(max dynamic shared "
                     "memory %zu): %s", kernel, smax, cudaGetErrorString(err));
    }
    k->dyn_max = smax;
  }
  return TARGET_SUCCESS;
}

extern "C" int tdpTeamLaunchBegin_(const void *func, const char *kernel, long nteams,
                                   long nthreads, long nlanes, size_t scratch_bytes,
                                   const char *f, int l) {
  pthread_mutex_lock(&lock);
  int rc = begin(func, kernel, nteams, nthreads, nlanes, scratch_bytes, f, l);
  pthread_mutex_unlock(&lock);
  return rc;
}

extern "C" void tdpTeamLaunchEnd_(void) {}

extern "C" void tdpTeamFinalize_(void) {
  pthread_mutex_lock(&lock);
  ninfo = 0;
  optin_dev = -1;
  pthread_mutex_unlock(&lock);
}
