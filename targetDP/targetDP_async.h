/*
 * targetDP_async.h -- asynchronous work: streams (with priorities), events
 * and timing on the target's clock, TDP_LAUNCH_STREAM, asynchronous copies,
 * pinned host memory, CUDA IPC handles, and packing boxes of a field
 * (faces, for halo exchange; typed per element type). Implemented in
 * targetDP_async.c (handles, checks), the backends and targetDP_pack.c.
 * Included by targetDP.h inside its extern "C" block, after the core host
 * API and launch macros it uses (TDP_AT_, tdpType, tdpLaunchBegin_, tdpLaunchCheck_,
 * tdpNumBlocks_, TDP_PROFILE_START_/STOP_, VVL, TARGET_TPB); not a header to
 * include on its own. Declarations and macros only; the one backend
 * difference is how TDP_LAUNCH_STREAM launches (#ifdef __CUDACC__ below).
 */
#ifndef TARGETDP_H
#error "targetDP_async.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_ASYNC_H
#define TARGETDP_ASYNC_H

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

/* A stream's priority. On CUDA the blocks of a high-priority stream are
 * dispatched before the waiting blocks of normal ones: a halo exchange's
 * small pack and unpack kernels, launched while a large interior update
 * fills the device, then run beside it instead of queueing behind it
 * (2 H200s, lb 256^3 per GPU: the overlapped step waited 1.52 ms for its
 * exchange behind the interior kernel). The C backend runs each stream's
 * work in order when it is queued and has nothing to reorder. */
typedef enum {
  TARGET_STREAM_PRIORITY_NORMAL = 0,
  TARGET_STREAM_PRIORITY_HIGH = 1
} targetStreamPriority_t;

int tdpStreamCreate(targetStream_t *stream, const char *f, int l);
int tdpStreamCreatePriority(targetStream_t *stream, targetStreamPriority_t priority,
                            const char *f, int l);
int tdpStreamDestroy(targetStream_t stream, const char *f, int l);
int tdpStreamSynchronize(targetStream_t stream, const char *f, int l);
#define targetStreamCreate(pstream) tdpStreamCreate((pstream), TDP_AT_)
/* targetStreamCreateWithPriority(&halo, TARGET_STREAM_PRIORITY_HIGH) */
#define targetStreamCreateWithPriority(pstream, priority) \
  tdpStreamCreatePriority((pstream), (priority), TDP_AT_)
/* A stream's share of the device: kernels launched on it by
 * TDP_LAUNCH_STREAM and TDP_LAUNCH_REDUCE_STREAM get at most that share
 * of the blocks the device holds at once (one wave: the SMs times the
 * kernel's resident blocks per SM, from its registers), at least one
 * block, and stride over the rest of their sites. The SMs' room left over
 * takes another stream's kernels the moment they are queued: a halo
 * exchange's pack and unpack beside an interior sweep whose waves of
 * 128-register blocks would otherwise hold every SM to the wave's end
 * (docs/milc.md, "Where the exchange's time went"). share in (0, 1]; 1 (a
 * new stream's) leaves the grid as TDP_LAUNCH_STREAM makes it. Not for
 * the default stream. The C backend checks and keeps it; it changes
 * nothing there (a stream's work runs when queued). */
int tdpStreamSetShare(targetStream_t stream, double share, const char *f, int l);
/* targetStreamSetShare(interior, 0.9) */
#define targetStreamSetShare(stream, share) tdpStreamSetShare((stream), (share), TDP_AT_)
#define targetStreamDestroy(stream) tdpStreamDestroy((stream), TDP_AT_)
#define targetStreamSynchronize(stream) tdpStreamSynchronize((stream), TDP_AT_)

int tdpEventCreate(targetEvent_t *event, const char *f, int l);
int tdpEventDestroy(targetEvent_t event, const char *f, int l);
int tdpEventRecord(targetEvent_t event, targetStream_t stream, const char *f, int l);
int tdpStreamWaitEvent(targetStream_t stream, targetEvent_t event, const char *f, int l);
int tdpEventSynchronize(targetEvent_t event, const char *f, int l);
#define targetEventCreate(pevent) tdpEventCreate((pevent), TDP_AT_)
#define targetEventDestroy(event) tdpEventDestroy((event), TDP_AT_)
/* Work on stream queued after this call completes the event ... */
#define targetEventRecord(event, stream) tdpEventRecord((event), (stream), TDP_AT_)
/* ... and work queued on stream after this call waits for it. */
#define targetStreamWaitEvent(stream, event) tdpStreamWaitEvent((stream), (event), TDP_AT_)
#define targetEventSynchronize(event) tdpEventSynchronize((event), TDP_AT_)
/* Timing on the target's clock: two events made by targetEventCreateTimed
 * and recorded on streams; *seconds is the time from start to stop (waits
 * for stop). Kernels are timed so without synchronising the host around
 * them (CUDA: cudaEventElapsedTime, ~0.5 us resolution; C: the host clock
 * at each record, where the work before it is done). */
int tdpEventCreateTimed(targetEvent_t *event, const char *f, int l);
int tdpEventElapsed(double *seconds, targetEvent_t start, targetEvent_t stop, const char *f,
                    int l);
#define targetEventCreateTimed(pevent) tdpEventCreateTimed((pevent), TDP_AT_)
#define targetEventElapsed(pseconds, start, stop) \
  tdpEventElapsed((pseconds), (start), (stop), TDP_AT_)

/* Checked handles for modules built on the layer (targetDP_halo.c keeps
 * its halos under them): an object registered by tdpHandleNew_ gets a
 * serial number that is never reused, as streams and events do, so a freed
 * or made-up handle is reported, never dereferenced. tdpHandleGet_ returns
 * the object of a live handle of that kind, or fails (the layer's error,
 * naming call and file:line: "halo 0x3 is not a live halo from
 * targetHaloCreate (freed by targetHaloFree?)") and returns NULL;
 * tdpHandleDrop_ ends a handle. targetFinalize forgets every handle. */
typedef enum { TDP_HANDLE_STREAM_ = 0, TDP_HANDLE_EVENT_ = 1, TDP_HANDLE_HALO_ = 2 } tdpHandleKind_;
void *tdpHandleNew_(void *object, tdpHandleKind_ kind); /* NULL: no memory */
void *tdpHandleGet_(const void *handle, tdpHandleKind_ kind, const char *call, const char *f,
                    int l);
void tdpHandleDrop_(const void *handle, tdpHandleKind_ kind);

/* The backend's own stream behind a handle, after checking it is live
 * (used by TDP_LAUNCH_STREAM; *native is a cudaStream_t on CUDA). */
int tdpStreamNative_(targetStream_t stream, void **native, const char *f, int l);
/* The same and the stream's share (targetStreamSetShare; 1 for the
 * default stream), for the launches that honour it. */
int tdpStreamLaunch_(targetStream_t stream, void **native, double *share, const char *f, int l);

/* TDP_LAUNCH_STREAM(kernel, N, stream, args...): TDP_LAUNCH on a stream.
 * The launch returns at once on CUDA; on the C backend the kernel has run.
 * A stream that is not live is an error and the kernel is not launched. */
/* TDP_LAUNCH_REDUCE_STREAM(kernel, N, stream, args...): TDP_LAUNCH_REDUCE
 * (a kernel ending in targetBlockAdd*) on a stream. */
#define TDP_LAUNCH_STREAM(kernel, N, stream, ...) \
  TDP_LAUNCH_STREAM_WITH_("TDP_LAUNCH_STREAM", 0, kernel, N, stream, __VA_ARGS__)
#define TDP_LAUNCH_REDUCE_STREAM(kernel, N, stream, ...) \
  TDP_LAUNCH_STREAM_WITH_("TDP_LAUNCH_REDUCE_STREAM", 1, kernel, N, stream, __VA_ARGS__)
#ifdef __CUDACC__
#define TDP_LAUNCH_STREAM_WITH_(form, capped, kernel, N, stream, ...)               \
  do {                                                                              \
    void *tdp_native_ = 0;                                                          \
    double tdp_share_ = 1.0;                                                        \
    const long tdp_stream_n_ = (N);                                                 \
    if (tdpLaunchBegin_(form, #kernel, tdp_stream_n_, __FILE__, __LINE__) == TARGET_SUCCESS && \
        tdpStreamLaunch_((stream), &tdp_native_, &tdp_share_, __FILE__, __LINE__) ==  \
            TARGET_SUCCESS) {                                                       \
      unsigned int tdp_nb_ = tdpNumBlocks_(tdp_stream_n_, VVL * TARGET_TPB, (capped)); \
      if (tdp_share_ < 1.0) tdp_nb_ = tdpShareBlocks_(kernel, tdp_nb_, tdp_share_);   \
      TDP_PROFILE_START_(#kernel);                                                  \
      kernel<<<tdp_nb_, TARGET_TPB, 0, (cudaStream_t) tdp_native_>>>(__VA_ARGS__);   \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                  \
      TDP_PROFILE_STOP_(#kernel);                                                   \
    }                                                                               \
  } while (0)
#else
#define TDP_LAUNCH_STREAM_WITH_(form, capped, kernel, N, stream, ...)               \
  do {                                                                              \
    void *tdp_native_ = 0;                                                          \
    if (tdpLaunchBegin_(form, #kernel, (N), __FILE__, __LINE__) == TARGET_SUCCESS &&  \
        tdpStreamNative_((stream), &tdp_native_, __FILE__, __LINE__) == TARGET_SUCCESS) { \
      TDP_PROFILE_START_(#kernel);                                                  \
      kernel(__VA_ARGS__);                                                          \
      TDP_PROFILE_STOP_(#kernel);                                                   \
    }                                                                               \
  } while (0)
#endif

/* Copies queued on a stream. From or to pageable host memory they are
 * correct but may not overlap anything; use pinned memory (below). */
typedef enum {
  TDP_COPY_TO_TARGET_ = 0,     /* host -> target */
  TDP_COPY_FROM_TARGET_ = 1,   /* target -> host */
  TDP_COPY_TARGET_TO_TARGET_ = 2 /* target -> target, also to a peer's IPC mapping */
} tdpCopyKind_;
/* host_known: what the caller's compiler knows of the host side's size
 * (TDP_OBJECT_SIZE_), TDP_SIZE_UNKNOWN_ when nothing or no host side. */
int tdpCopyAsync_(void *dst, const void *src, size_t nbytes, tdpCopyKind_ kind,
                 targetStream_t stream, int wait, size_t host_known, const char *f, int l);
#define copyToTargetAsync(t_dst, src, nbytes, stream)                                      \
  tdpCopyAsync_((t_dst), (src), (nbytes), TDP_COPY_TO_TARGET_, (stream), 0,               \
               TDP_OBJECT_SIZE_(src), TDP_AT_)
#define copyFromTargetAsync(dst, t_src, nbytes, stream)                                    \
  tdpCopyAsync_((dst), (t_src), (nbytes), TDP_COPY_FROM_TARGET_, (stream), 0,             \
               TDP_OBJECT_SIZE_(dst), TDP_AT_)
#define copyTargetToTargetAsync(t_dst, t_src, nbytes, stream)                              \
  tdpCopyAsync_((t_dst), (t_src), (nbytes), TDP_COPY_TARGET_TO_TARGET_, (stream), 0,      \
               TDP_SIZE_UNKNOWN_, TDP_AT_)

/* Pinned (page-locked) host memory: cudaMallocHost on CUDA, 64-byte
 * aligned memory on the C backend. Host memory in every other respect;
 * freed only with targetFreeHost. */
int tdpMallocHost(void **p, size_t nbytes, const char *f, int l);
int tdpFreeHost(void *p, const char *f, int l);
#define targetMallocHost(pp, nbytes) tdpMallocHost((void **) (pp), (nbytes), TDP_AT_)
#define targetFreeHost(p) tdpFreeHost((p), TDP_AT_)

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
#define targetIpcGetHandle(phandle, t_ptr) tdpIpcGetHandle((phandle), (t_ptr), TDP_AT_)
#define targetIpcOpenHandle(pt_peer, phandle) \
  tdpIpcOpenHandle((void **) (pt_peer), (phandle), TDP_AT_)
#define targetIpcCloseHandle(t_peer) tdpIpcCloseHandle((t_peer), TDP_AT_)

/* Stream-ordered flags between processes: a 32-bit word in target memory
 * (ours, or a peer's IPC mapping) written once the work queued on the
 * stream before it is done, with a memory fence first (whoever sees the
 * value also sees the writes before it: a kernel's stores into a peer's
 * buffer), and a wait that holds back what is queued on the stream after
 * it until the word reaches value: (int32_t) (*t_flag - value) >= 0, so
 * sequence numbers may wrap. Neither makes the host wait on CUDA (driver
 * stream memory operations cuStreamWriteValue32 / cuStreamWaitValue32,
 * found with cudaGetDriverEntryPoint: no link to libcuda); no SM waits
 * either, so a kernel filling the GPU does not delay the wait. On the C
 * backend a write is a release store and a wait a host spin with acquire
 * loads, for memory shared between the processes of a node (an MPI shared
 * window, registered with tdpTrackShared_); a wait that is not met within
 * TARGETDP_FLAG_TIMEOUT seconds (default 120) fails with the flag's value,
 * never hangs. targetStreamFlagsAvailable(): 1 where both work. */
int targetStreamFlagsAvailable(void);
int tdpStreamWriteFlag_(uint32_t *t_flag, uint32_t value, targetStream_t stream, const char *f,
                       int l);
int tdpStreamWaitFlag_(const uint32_t *t_flag, uint32_t value, targetStream_t stream,
                      const char *f, int l);
#define targetStreamWriteFlag(t_flag, value, stream) \
  tdpStreamWriteFlag_((t_flag), (value), (stream), TDP_AT_)
#define targetStreamWaitFlag(t_flag, value, stream) \
  tdpStreamWaitFlag_((t_flag), (value), (stream), TDP_AT_)
/* Memory another process of the node shares with us (the C backend's
 * stand-in for an IPC mapping: an MPI shared window), registered (add 1)
 * or forgotten (add 0) so that the layer's checks take it as a peer's
 * target memory of nbytes; the halo module's put transport uses it. */
int tdpTrackShared_(void *p, size_t nbytes, int add);

/* Boxes of a field, for halo exchange: the sites lo[d] <= x[d] < hi[d]
 * of a lattice of ndim (1 to 4) extents, site index row-major (the last
 * coordinate fastest: (x*ny + y)*nz + z in 3-D), all ncomp components in
 * the build's layout, to or from a contiguous target buffer: component c
 * of the k-th site of the box (row-major in the box) at buf[c*nbox + k].
 * targetDP kernels queued on stream. */
/* extents, lo, hi: ndim entries each, held to what the caller's compiler
 * knows of each array (TDP_OBJECT_SIZE_). The double names are the Double
 * ones; tdpPackBox_ is the double call as a function (sizes unknown). */
int tdpPackBox_(double *t_dst, const double *t_src, int ndim, const long extents[],
               const long lo[], const long hi[], int ncomp, int unpack, targetStream_t stream,
               const char *f, int l);
#define targetPackBox(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream) \
  targetPackBoxDouble(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream)
#define targetUnpackBox(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream) \
  targetUnpackBoxDouble(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream)
int tdpPackBoxT(void *t_dst, const void *t_src, int ndim, const long extents[], size_t ext_known,
                const long lo[], size_t lo_known, const long hi[], size_t hi_known, int ncomp,
                tdpType type, size_t esz, int unpack, targetStream_t stream, const char *f,
                int l);
#define TDP_TYPED_PACK_(Name, T, TYPE)                                                          \
  static inline int tdpPackBox##Name##_(T *t_dst, const T *t_src, int ndim,                    \
                                        const long extents[], size_t ext_known,                 \
                                        const long lo[], size_t lo_known, const long hi[],      \
                                        size_t hi_known, int ncomp, int unpack,                 \
                                        targetStream_t stream, const char *f, int l) {          \
    return tdpPackBoxT(t_dst, t_src, ndim, extents, ext_known, lo, lo_known, hi, hi_known,      \
                       ncomp, TYPE, sizeof(T), unpack, stream, f, l);                           \
  }
TDP_TYPED_PACK_(Double, double, TDP_TYPE_DOUBLE)
TDP_TYPED_PACK_(Float, float, TDP_TYPE_FLOAT)
TDP_TYPED_PACK_(Int, int, TDP_TYPE_INT)
TDP_TYPED_PACK_(Long, long, TDP_TYPE_LONG)
TDP_TYPED_PACK_(DoubleComplex, tdpDoubleComplex, TDP_TYPE_DOUBLE_COMPLEX)
TDP_TYPED_PACK_(FloatComplex, tdpFloatComplex, TDP_TYPE_FLOAT_COMPLEX)
/* The box arrays of a pack call: typed, with their known sizes. */
#define TDP_BOX_ARGS_(extents, lo, hi)                                                        \
  TDP_TYPED_(long, extents), TDP_OBJECT_SIZE_(extents), TDP_TYPED_(long, lo),                 \
      TDP_OBJECT_SIZE_(lo), TDP_TYPED_(long, hi), TDP_OBJECT_SIZE_(hi)
#define targetPackBoxDouble(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream)                \
  tdpPackBoxDouble_(TDP_TYPED_(double, t_buf), TDP_TYPED_(double, t_field), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 0, (stream), TDP_AT_)
#define targetUnpackBoxDouble(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream)              \
  tdpPackBoxDouble_(TDP_TYPED_(double, t_field), TDP_TYPED_(double, t_buf), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 1, (stream), TDP_AT_)
#define targetPackBoxFloat(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream)                \
  tdpPackBoxFloat_(TDP_TYPED_(float, t_buf), TDP_TYPED_(float, t_field), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 0, (stream), TDP_AT_)
#define targetUnpackBoxFloat(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream)              \
  tdpPackBoxFloat_(TDP_TYPED_(float, t_field), TDP_TYPED_(float, t_buf), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 1, (stream), TDP_AT_)
#define targetPackBoxInt(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream)                \
  tdpPackBoxInt_(TDP_TYPED_(int, t_buf), TDP_TYPED_(int, t_field), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 0, (stream), TDP_AT_)
#define targetUnpackBoxInt(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream)              \
  tdpPackBoxInt_(TDP_TYPED_(int, t_field), TDP_TYPED_(int, t_buf), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 1, (stream), TDP_AT_)
#define targetPackBoxLong(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream)                \
  tdpPackBoxLong_(TDP_TYPED_(long, t_buf), TDP_TYPED_(long, t_field), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 0, (stream), TDP_AT_)
#define targetUnpackBoxLong(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream)              \
  tdpPackBoxLong_(TDP_TYPED_(long, t_field), TDP_TYPED_(long, t_buf), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 1, (stream), TDP_AT_)
#define targetPackBoxDoubleComplex(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream)                \
  tdpPackBoxDoubleComplex_(TDP_TYPED_(tdpDoubleComplex, t_buf), TDP_TYPED_(tdpDoubleComplex, t_field), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 0, (stream), TDP_AT_)
#define targetUnpackBoxDoubleComplex(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream)              \
  tdpPackBoxDoubleComplex_(TDP_TYPED_(tdpDoubleComplex, t_field), TDP_TYPED_(tdpDoubleComplex, t_buf), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 1, (stream), TDP_AT_)
#define targetPackBoxFloatComplex(t_buf, t_field, ndim, extents, lo, hi, ncomp, stream)                \
  tdpPackBoxFloatComplex_(TDP_TYPED_(tdpFloatComplex, t_buf), TDP_TYPED_(tdpFloatComplex, t_field), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 0, (stream), TDP_AT_)
#define targetUnpackBoxFloatComplex(t_field, t_buf, ndim, extents, lo, hi, ncomp, stream)              \
  tdpPackBoxFloatComplex_(TDP_TYPED_(tdpFloatComplex, t_field), TDP_TYPED_(tdpFloatComplex, t_buf), (ndim),                    \
      TDP_BOX_ARGS_(extents, lo, hi), (ncomp), 1, (stream), TDP_AT_)
/* The box of one face: along dim, side 0 (low) or 1 (high), the halo
 * (the outer nhalo layers) or the edge (the nhalo layers inside them:
 * what the neighbour's halo is filled from); every other axis whole, halo
 * included (exchanging the axes one after the other then fills edges and
 * corners too). Returns the number of sites. */
typedef enum { TARGET_FACE_EDGE = 0, TARGET_FACE_HALO = 1 } targetFaceRegion_t;
/* Refused (-1, the error as for every call: file:line, exit by default):
 * ndim outside 1 to 4, an extent below 1, nhalo below 1 or more than half
 * the extent along dim (the halo and edge of both sides must fit), dim
 * outside [0, ndim), side not 0 or 1, an unknown region; extents, lo and
 * hi shorter than ndim entries where the compiler knows their size. */
long tdpFaceBox(int ndim, const long extents[], size_t ext_known, int nhalo, int dim, int side,
                targetFaceRegion_t region, long lo[], size_t lo_known, long hi[],
                size_t hi_known, const char *f, int l);
#define targetFaceBox(ndim, extents, nhalo, dim, side, region, lo, hi)                        \
  tdpFaceBox((ndim), TDP_TYPED_(long, extents), TDP_OBJECT_SIZE_(extents), (nhalo), (dim),   \
             (side), (region), TDP_TYPED_(long, lo), TDP_OBJECT_SIZE_(lo),                   \
             TDP_TYPED_(long, hi), TDP_OBJECT_SIZE_(hi), TDP_AT_)

#endif /* TARGETDP_ASYNC_H */
