/*
 * targetDP_internal.h -- the interface between targetDP_common.c (argument
 * checks, errors, bookkeeping: everything that does not depend on the
 * hardware) and the backends targetDP_C.c and targetDP_CUDA.cu (everything
 * that does). Not for applications.
 */
#ifndef TARGETDP_INTERNAL_H
#define TARGETDP_INTERNAL_H

/* The library's own sources: no -fopenmp mark of a program (targetDP.h). */
#ifndef TDP_LIBRARY_
#define TDP_LIBRARY_ 1
#endif
#include "targetDP.h"
#include "targetDP_error.h" /* tdpSite, tdpFail, tdpLocalRank: the backends' only calls out */

#ifdef __cplusplus
extern "C" {
#endif

/* Implemented by each backend; arguments are already checked. */
int tdpBackendInit(tdpSite at);
void tdpBackendFinalize(void);
const char *tdpBackendDevice(void);
const char *tdpBackendConfig(void); /* TARGETDP_CONFIG as the backend was compiled */
int tdpBackendMalloc(void **t_ptr, size_t nbytes, int zero, int unified, tdpSite at);
int tdpBackendFree(void *t_ptr, tdpSite at);
int tdpBackendCopy(void *dst, const void *src, size_t nbytes, int to_target, tdpSite at);
int tdpBackendCopyConst(void *t_symbol, const void *src, size_t nbytes, tdpSite at);
/* Element-typed helpers: moves over the element size esz (4, 8 or 16
 * bytes); the reduction per arithmetic type (res: see tdpReduceT). */
int tdpBackendSetConstant(void *t_a, const void *value, size_t esz, size_t n, tdpSite at);
int tdpBackendCopySites(void *dst, const void *src, long nsites, long ncomp, size_t esz,
                        const long *sites, long nlist, int to_target, tdpSite at);
int tdpBackendReduce(void *res, const void *t_a, size_t n, tdpType type, tdpReduceOp op,
                     tdpSite at);
int tdpBackendConvert(void *t_dst, const void *t_src, long nsites, long ncomp, size_t esz,
                      int aos2soa, tdpSite at);
int tdpBackendSynchronize(tdpSite at);
/* Exact sums (targetDP_exact.h): t_a holds n elements of ncomp (1 or 2:
 * complex) interleaved float or double components; res[c] += the exact sum
 * of component c, every digit carried (the caller zeroed res). */
int tdpBackendExactSum(tdpExactSum *res, const void *t_a, size_t n, int ncomp, tdpType type,
                       tdpSite at);
/* targetDP_exact.c: tdpReduceT's float and double sums (real, complex),
 * and the refusal of a sum with too many contributions to trust. */
int tdpExactReduce(void *res, const void *t_a, size_t n, tdpType type, tdpSite at);
int tdpExactCheckOps(const tdpExactSum *s, size_t n, tdpSite at);
int tdpBackendLaunchCheck(const char *kernel, tdpSite at); /* right after a launch */

/* Constants and target-to-target copies (arguments checked). */
int tdpBackendCopyConstFrom(void *dst, const void *t_symbol, size_t nbytes, tdpSite at);
int tdpBackendCopyConstFromArray(void *t_symbol, const void *t_src, size_t nbytes, tdpSite at);
int tdpBackendConstAddress(void **t_ptr, const void *t_symbol, tdpSite at);
int tdpBackendCopyTargetToTarget(void *t_dst, const void *t_src, size_t nbytes, tdpSite at);

/* Scans and compaction (targetDP_scan_C.c, targetDP_scan_CUDA.cu); n > 0.
 * tdpBackendScanFinalize frees their scratch (called by targetFinalize). */
int tdpBackendScan(void *t_out, const void *t_in, size_t n, tdpScanType_ type, tdpScanMode mode,
                   tdpSite at);
int tdpBackendCompact(long *t_index, size_t *count, const char *t_mask, size_t n, tdpSite at);
void tdpBackendScanFinalize(void);

/* Profiling (targetDP_profile.c keeps the table): start a timer for the
 * call at nesting depth `depth`, and stop it, returning seconds. CUDA also
 * opens and closes an NVTX range named `name`. */
void tdpBackendProfileStart(int depth, const char *name);
double tdpBackendProfileStop(int depth);
void tdpProfileFinalize_(void); /* targetFinalize: print the table, reset */
#ifdef TARGETDP_PROFILE
#define TDP_PROFILED_(name, bytes, call) \
  (tdpProfileStart_((name), (bytes)), tdpProfileStop_((name), (call)))
#else
#define TDP_PROFILED_(name, bytes, call) (call)
#endif

/* ---------------------------------------------------------------------- */
/* The asynchronous layer (targetDP_async.c holds its checks).
 *
 * Registry of allocations (targetDP_common.c), shared with it: each live
 * allocation has a kind, so that pinned host memory is host memory to the
 * checks and a peer's IPC mapping is target memory that targetFree refuses. */
typedef enum { TDP_ALLOC_TARGET = 0, TDP_ALLOC_UNIFIED, TDP_ALLOC_PINNED, TDP_ALLOC_IPC } tdpAllocKind;
void tdpTrackAdd(void *p, size_t nbytes, tdpAllocKind kind, tdpSite from);
int tdpTrackRemove(void *p);
/* Kind of the live allocation that contains p, its start and size; -1 if none. */
int tdpTrackFind(const void *p, char **base, size_t *nbytes);
/* The argument checks of every host entry point, one helper each, the
 * same in every file and every build (targetDP_common.c):
 *   tdpCheckLive    targetInit called, targetFinalize not yet
 *   tdpCheckPtrs    a and b not NULL, 0 < n <= SIZE_MAX / 64 (not a negative
 *                   count converted)
 *   tdpCheckTarget  t is target memory with room for nbytes (must be ours in
 *                   a checked build); a pointer just past an allocation has 0
 *   tdpCheckHost    h has room for nbytes: known (what the caller's compiler
 *                   knows of it, TDP_OBJECT_SIZE_, or TDP_SIZE_UNKNOWN_), and
 *                   inside an allocation of ours the rest of it; not target
 *                   memory (checked build) */
int tdpCheckLive(tdpSite at);
int tdpCheckPtrs(const void *a, const void *b, size_t n, tdpSite at);
int tdpCheckTarget(const void *t, size_t nbytes, const char *what, tdpSite at);
int tdpCheckHost(const void *h, size_t nbytes, size_t known, const char *what, tdpSite at);
/* The current session: 1, 2, ... for each targetInit that made the layer
 * live, 0 while it is not (the 2014 targetInit's extents belong to one). */
unsigned long tdpSession(void);
void tdpAsyncFinalize(void); /* called by targetFinalize and on exit after an error */
int tdpCheckStream(targetStream_t stream, tdpSite at);
/* targetDP_pack.c: the halo or edge of a 3-D field (checked by tdpCopy3D_)
 * moved as a few boxes through one contiguous buffer each way. */
int tdpCopy3DBoxes(void *dst, const void *src, const long extents[3], int nhalo, int ncomp,
                   size_t esz, int to_target, tdpSite at);
/* Checked handles (targetDP_async.c): streams, events, and the objects of
 * modules built on the layer (tdpHandleNew_ in targetDP_async.h). */
void tdpPackFinalize(void);

/* Backend part. Streams and events are the backend's own objects
 * (cudaStream_t, cudaEvent_t); NULL native stream = the default stream. */
int tdpBackendStreamCreate(void **native, targetStreamPriority_t priority, tdpSite at);
int tdpBackendStreamDestroy(void *native, tdpSite at);
int tdpBackendStreamSynchronize(void *native, tdpSite at);
int tdpBackendEventCreate(void **native, int timed, tdpSite at);
/* seconds from start to stop, both timed events; waits for stop */
int tdpBackendEventElapsed(double *seconds, void *start, void *stop, tdpSite at);
int tdpBackendEventDestroy(void *native, tdpSite at);
int tdpBackendEventRecord(void *event, void *stream, tdpSite at);
int tdpBackendStreamWaitEvent(void *stream, void *event, tdpSite at);
int tdpBackendEventSynchronize(void *event, tdpSite at);
int tdpBackendCopyAsync(void *dst, const void *src, size_t nbytes, tdpCopyKind_ kind,
                        void *stream, tdpSite at);
int tdpBackendMallocHost(void **p, size_t nbytes, tdpSite at);
int tdpBackendFreeHost(void *p, tdpSite at);
int tdpBackendIpcAvailable(void);
int tdpBackendIpcGetHandle(unsigned char bytes[64], void *t_base, tdpSite at);
int tdpBackendIpcOpenHandle(void **t_base, const unsigned char bytes[64], tdpSite at);
int tdpBackendIpcCloseHandle(void *t_base, tdpSite at);
/* Stream-ordered flags: wait 0 writes value after the stream's work
 * (fenced), wait 1 holds the stream until (int32_t) (*flag - value) >= 0. */
int tdpBackendFlagsAvailable(void);
int tdpBackendStreamFlag(uint32_t *flag, uint32_t value, int wait, void *stream, tdpSite at);
int tdpBackendDeviceCount(void);
int tdpBackendDeviceId(void);

#ifdef __cplusplus
}
#endif

#endif
