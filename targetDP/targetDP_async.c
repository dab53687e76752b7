/*
 * targetDP_async.c -- the backend-independent half of the asynchronous
 * layer: streams and events as checked handles, asynchronous copies,
 * pinned host memory and CUDA IPC handles. The handles live here and are
 * validated on every call (a destroyed or made-up handle is an error, not
 * a crash); the backends only see their own objects. Compiled with the
 * host C compiler into both backends' libraries, like targetDP_common.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built by the host C compiler in every backend's library: the backend
 * object carries the configuration mark (targetDP.h), not this one. */
#ifndef TDP_NO_CONFIG_MARK
#define TDP_NO_CONFIG_MARK
#endif
#include "targetDP_internal.h"

#define SITE(name) ((tdpSite){name, f, l})

/* A handle is a serial number, never reused and never dereferenced: a
 * destroyed, made-up or stale handle is then reported as such, even when a
 * new stream lives where the old one did. The table of live handles maps
 * it to the backend's object (streams, events) or to a module's (a halo,
 * targetDP_halo.c, through tdpHandleNew_); a program has a handful. */
typedef struct {
  uintptr_t id;
  void *native;
  tdpHandleKind_ kind;
  double share; /* a stream's (targetStreamSetShare) */
} tdpHandle;
static tdpHandle *handles = NULL;
static int nhandles = 0, maxhandles = 0;
static uintptr_t last_id = 0;

static int handle_add(void *native, tdpHandleKind_ kind, uintptr_t *id) {
  if (nhandles == maxhandles) {
    int nmax = maxhandles ? 2 * maxhandles : 16;
    tdpHandle *grown = (tdpHandle *) realloc(handles, nmax * sizeof(tdpHandle));
    if (!grown) return -1;
    handles = grown;
    maxhandles = nmax;
  }
  handles[nhandles].id = *id = ++last_id;
  handles[nhandles].native = native;
  handles[nhandles].share = 1.0;
  handles[nhandles++].kind = kind;
  return 0;
}

static tdpHandle *handle_find(const void *h, tdpHandleKind_ kind) {
  for (int i = 0; i < nhandles; i++) {
    if (handles[i].id == (uintptr_t) h && handles[i].kind == kind) return handles + i;
  }
  return NULL;
}

static void handle_remove(tdpHandle *h) { *h = handles[--nhandles]; }

/* Streams and events outlive neither targetFinalize nor an error exit; a
 * module's handles are forgotten (its object is the module's to free, and
 * a later call on the handle is refused as not live). */
void tdpAsyncFinalize(void) {
  tdpSite at = {"targetFinalize", __FILE__, __LINE__};
  tdpPackFinalize();
  while (nhandles > 0) {
    tdpHandle *h = handles + --nhandles;
    if (h->kind == TDP_HANDLE_EVENT_) tdpBackendEventDestroy(h->native, at);
    else if (h->kind == TDP_HANDLE_STREAM_) tdpBackendStreamDestroy(h->native, at);
  }
  free(handles);
  handles = NULL;
  maxhandles = 0;
}

/* NULL is the default stream (*handle NULL); anything else must be a live
 * stream, whose handle is returned. */
static int find_stream(targetStream_t s, tdpHandle **handle, tdpSite at) {
  *handle = NULL;
  if (!s) return TARGET_SUCCESS;
  *handle = handle_find(s, TDP_HANDLE_STREAM_);
  if (!*handle)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "stream %p is not a live stream from targetStreamCreate (destroyed?)",
                   (void *) s);
  return TARGET_SUCCESS;
}
static int check_stream(targetStream_t s, void **native, tdpSite at) {
  tdpHandle *h = NULL;
  const int rc = find_stream(s, &h, at);
  *native = h ? h->native : NULL;
  return rc;
}

static int check_event(targetEvent_t e, void **native, tdpSite at) {
  *native = NULL;
  if (!e) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL event");
  tdpHandle *h = handle_find(e, TDP_HANDLE_EVENT_);
  if (!h)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "event %p is not a live event from targetEventCreate (destroyed?)",
                   (void *) e);
  *native = h->native;
  return TARGET_SUCCESS;
}

/* A module's objects under the same checked handles (targetDP_async.h). */
void *tdpHandleNew_(void *object, tdpHandleKind_ kind) {
  uintptr_t id = 0;
  if (!object || handle_add(object, kind, &id)) return NULL;
  return (void *) id;
}

void *tdpHandleGet_(const void *handle, tdpHandleKind_ kind, const char *call, const char *f,
                    int l) {
  static const char *names[] = {"stream", "event", "halo"};
  static const char *from[] = {"targetStreamCreate", "targetEventCreate", "targetHaloCreate"};
  static const char *gone[] = {"destroyed", "destroyed", "freed by targetHaloFree"};
  tdpSite at = SITE(call);
  if (tdpCheckLive(at)) return NULL;
  if ((int) kind < 0 || (int) kind > 2) {
    tdpFail(TARGET_ERROR_INVALID_VALUE, at, "unknown handle kind %d", (int) kind);
    return NULL;
  }
  if (!handle) {
    tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL %s", names[kind]);
    return NULL;
  }
  tdpHandle *h = handle_find(handle, kind);
  if (!h) {
    tdpFail(TARGET_ERROR_INVALID_VALUE, at, "%s %p is not a live %s from %s (%s?)", names[kind],
            handle, names[kind], from[kind], gone[kind]);
    return NULL;
  }
  return h->native;
}

void tdpHandleDrop_(const void *handle, tdpHandleKind_ kind) {
  tdpHandle *h = handle_find(handle, kind);
  if (h) handle_remove(h);
}

/* ---------------------------------------------------------------------- */

/* Create the backend's object first, then its handle. */
static int handle_create(void **out, int is_event, targetStreamPriority_t priority, tdpSite at) {
  const tdpHandleKind_ kind = is_event ? TDP_HANDLE_EVENT_ : TDP_HANDLE_STREAM_;
  void *native = NULL;
  /* priority doubles as the timed flag of an event */
  int rc = is_event ? tdpBackendEventCreate(&native, (int) priority, at)
                    : tdpBackendStreamCreate(&native, priority, at);
  if (rc) return rc;
  uintptr_t id = 0;
  if (handle_add(native, kind, &id)) {
    if (is_event) tdpBackendEventDestroy(native, at);
    else tdpBackendStreamDestroy(native, at);
    return tdpFail(TARGET_ERROR_MEMORY, at, "no host memory for a handle");
  }
  *out = (void *) id;
  return TARGET_SUCCESS;
}

static int stream_create(targetStream_t *stream, targetStreamPriority_t priority, tdpSite at) {
  if (tdpCheckLive(at)) return targetLastError();
  if (!stream) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL address for the stream");
  *stream = NULL;
  if (priority != TARGET_STREAM_PRIORITY_NORMAL && priority != TARGET_STREAM_PRIORITY_HIGH)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "priority %d is not TARGET_STREAM_PRIORITY_NORMAL or _HIGH", (int) priority);
  void *h = NULL;
  int rc = handle_create(&h, 0, priority, at);
  if (rc == TARGET_SUCCESS) *stream = (targetStream_t) h;
  return rc;
}

int tdpStreamCreate(targetStream_t *stream, const char *f, int l) {
  return stream_create(stream, TARGET_STREAM_PRIORITY_NORMAL, SITE("targetStreamCreate"));
}

int tdpStreamCreatePriority(targetStream_t *stream, targetStreamPriority_t priority,
                            const char *f, int l) {
  return stream_create(stream, priority, SITE("targetStreamCreateWithPriority"));
}

int tdpStreamDestroy(targetStream_t stream, const char *f, int l) {
  tdpSite at = SITE("targetStreamDestroy");
  if (tdpCheckLive(at)) return targetLastError();
  if (!stream)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "NULL stream (the default stream cannot be destroyed)");
  void *native = NULL;
  int rc = check_stream(stream, &native, at);
  if (rc) return rc;
  handle_remove(handle_find(stream, TDP_HANDLE_STREAM_));
  return tdpBackendStreamDestroy(native, at);
}

int tdpStreamSynchronize(targetStream_t stream, const char *f, int l) {
  tdpSite at = SITE("targetStreamSynchronize");
  if (tdpCheckLive(at)) return targetLastError();
  void *native = NULL;
  int rc = check_stream(stream, &native, at);
  return rc ? rc : tdpBackendStreamSynchronize(native, at);
}

int tdpCheckStream(targetStream_t stream, tdpSite at) {
  void *native = NULL;
  return check_stream(stream, &native, at);
}

int tdpStreamNative_(targetStream_t stream, void **native, const char *f, int l) {
  return tdpStreamLaunch_(stream, native, NULL, f, l);
}

/* One look-up per launch: the native stream and its share together. */
int tdpStreamLaunch_(targetStream_t stream, void **native, double *share, const char *f, int l) {
  tdpSite at = SITE("TDP_LAUNCH_STREAM");
  if (tdpCheckLive(at)) return targetLastError();
  tdpHandle *h = NULL;
  const int rc = find_stream(stream, &h, at);
  if (native) *native = h ? h->native : NULL;
  if (share) *share = h ? h->share : 1.0;
  return rc;
}

int tdpStreamSetShare(targetStream_t stream, double share, const char *f, int l) {
  tdpSite at = SITE("targetStreamSetShare");
  if (tdpCheckLive(at)) return targetLastError();
  if (!stream)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "the default stream's share cannot be set (it orders all other work): "
                   "use a stream from targetStreamCreate");
  tdpHandle *h = NULL;
  int rc = find_stream(stream, &h, at);
  if (rc) return rc;
  if (!(share > 0.0 && share <= 1.0)) /* NaN included */
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "share %g is not in (0, 1]", share);
  h->share = share;
  return TARGET_SUCCESS;
}

int tdpEventCreate(targetEvent_t *event, const char *f, int l) {
  tdpSite at = SITE("targetEventCreate");
  if (tdpCheckLive(at)) return targetLastError();
  if (!event) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL address for the event");
  *event = NULL;
  void *h = NULL;
  int rc = handle_create(&h, 1, TARGET_STREAM_PRIORITY_NORMAL, at);
  if (rc == TARGET_SUCCESS) *event = (targetEvent_t) h;
  return rc;
}

/* An event that can be timed (targetEventElapsed): on CUDA a cudaEvent_t
 * with timing (the others are created with cudaEventDisableTiming, which
 * makes them cheaper to record and wait for). */
int tdpEventCreateTimed(targetEvent_t *event, const char *f, int l) {
  tdpSite at = SITE("targetEventCreateTimed");
  if (tdpCheckLive(at)) return targetLastError();
  if (!event) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL address for the event");
  *event = NULL;
  void *h = NULL;
  int rc = handle_create(&h, 1, (targetStreamPriority_t) 1, at);
  if (rc == TARGET_SUCCESS) *event = (targetEvent_t) h;
  return rc;
}

int tdpEventElapsed(double *seconds, targetEvent_t start, targetEvent_t stop, const char *f,
                    int l) {
  tdpSite at = SITE("targetEventElapsed");
  if (tdpCheckLive(at)) return targetLastError();
  if (!seconds) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL address for the result");
  *seconds = 0.0;
  void *a = NULL, *b = NULL;
  int rc = check_event(start, &a, at);
  if (rc == TARGET_SUCCESS) rc = check_event(stop, &b, at);
  return rc ? rc : tdpBackendEventElapsed(seconds, a, b, at);
}

int tdpEventDestroy(targetEvent_t event, const char *f, int l) {
  tdpSite at = SITE("targetEventDestroy");
  if (tdpCheckLive(at)) return targetLastError();
  void *native = NULL;
  int rc = check_event(event, &native, at);
  if (rc) return rc;
  handle_remove(handle_find(event, TDP_HANDLE_EVENT_));
  return tdpBackendEventDestroy(native, at);
}

int tdpEventRecord(targetEvent_t event, targetStream_t stream, const char *f, int l) {
  tdpSite at = SITE("targetEventRecord");
  if (tdpCheckLive(at)) return targetLastError();
  void *ev = NULL, *native = NULL;
  int rc = check_event(event, &ev, at);
  if (rc == TARGET_SUCCESS) rc = check_stream(stream, &native, at);
  return rc ? rc : tdpBackendEventRecord(ev, native, at);
}

int tdpStreamWaitEvent(targetStream_t stream, targetEvent_t event, const char *f, int l) {
  tdpSite at = SITE("targetStreamWaitEvent");
  if (tdpCheckLive(at)) return targetLastError();
  void *ev = NULL, *native = NULL;
  int rc = check_event(event, &ev, at);
  if (rc == TARGET_SUCCESS) rc = check_stream(stream, &native, at);
  return rc ? rc : tdpBackendStreamWaitEvent(native, ev, at);
}

int tdpEventSynchronize(targetEvent_t event, const char *f, int l) {
  tdpSite at = SITE("targetEventSynchronize");
  if (tdpCheckLive(at)) return targetLastError();
  void *ev = NULL;
  int rc = check_event(event, &ev, at);
  return rc ? rc : tdpBackendEventSynchronize(ev, at);
}

/* ---------------------------------------------------------------------- */

int tdpCopyAsync_(void *dst, const void *src, size_t nbytes, tdpCopyKind_ kind,
                 targetStream_t stream, int wait, size_t host_known, const char *f, int l) {
  static const char *names[] = {"copyToTargetAsync", "copyFromTargetAsync",
                                "copyTargetToTargetAsync"};
  if ((int) kind < 0 || (int) kind > 2)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, SITE("tdpCopyAsync_"),
                   "copy kind %d is not a tdpCopyKind_", (int) kind);
  tdpSite at = SITE(wait ? "copyTargetToTarget" : names[kind]);
  if (tdpCheckLive(at) || tdpCheckPtrs(dst, src, nbytes, at)) return targetLastError();
  void *native = NULL;
  int rc = check_stream(stream, &native, at);
  if (rc) return rc;
  if (kind == TDP_COPY_TO_TARGET_) {
    rc = tdpCheckTarget(dst, nbytes, "the target array", at);
    if (rc == TARGET_SUCCESS) rc = tdpCheckHost(src, nbytes, host_known, "the host array", at);
  } else if (kind == TDP_COPY_FROM_TARGET_) {
    rc = tdpCheckTarget(src, nbytes, "the target array", at);
    if (rc == TARGET_SUCCESS) rc = tdpCheckHost(dst, nbytes, host_known, "the host array", at);
  } else {
    rc = tdpCheckTarget(dst, nbytes, "the destination array", at);
    if (rc == TARGET_SUCCESS) rc = tdpCheckTarget(src, nbytes, "the source array", at);
    /* memcpy semantics: the ranges must not overlap */
    const char *d = (const char *) dst, *s = (const char *) src;
    if (rc == TARGET_SUCCESS && d < s + nbytes && s < d + nbytes)
      rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "source and destination overlap");
  }
  if (rc) return rc;
  rc = tdpBackendCopyAsync(dst, src, nbytes, kind, native, at);
  if (rc == TARGET_SUCCESS && wait) rc = tdpBackendStreamSynchronize(native, at);
  return rc;
}

/* ---------------------------------------------------------------------- */

int tdpMallocHost(void **p, size_t nbytes, const char *f, int l) {
  tdpSite at = SITE("targetMallocHost");
  if (tdpCheckLive(at)) return targetLastError();
  if (!p) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL address for the pointer");
  *p = NULL;
  if (nbytes == 0) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size is zero");
  int rc = tdpBackendMallocHost(p, nbytes, at);
  if (rc == TARGET_SUCCESS) tdpTrackAdd(*p, nbytes, TDP_ALLOC_PINNED, at);
  return rc;
}

int tdpFreeHost(void *p, const char *f, int l) {
  tdpSite at = SITE("targetFreeHost");
  if (tdpCheckLive(at)) return targetLastError();
  if (!p) return TARGET_SUCCESS; /* like free(NULL) */
  char *base = NULL;
  int kind = tdpTrackFind(p, &base, NULL);
  if (kind < 0 || base != (char *) p)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%p is not a live pinned allocation (freed twice, or never allocated "
                   "with targetMallocHost?)", p);
  if (kind != TDP_ALLOC_PINNED)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "%p is %s: free it with %s", p,
                   kind == TDP_ALLOC_IPC ? "a peer's IPC mapping" : "target memory",
                   kind == TDP_ALLOC_IPC ? "targetIpcCloseHandle" : "targetFree");
  tdpTrackRemove(p);
  return tdpBackendFreeHost(p, at);
}

/* ---------------------------------------------------------------------- */

int targetIpcAvailable(void) { return tdpBackendIpcAvailable(); }
int targetDeviceCount(void) { return tdpBackendDeviceCount(); }
int targetDeviceId(void) { return tdpBackendDeviceId(); }

static int ipc_unavailable(tdpSite at) {
  return tdpFail(TARGET_ERROR_NOT_AVAILABLE, at,
                 "CUDA IPC is not available on the %s backend (check targetIpcAvailable())",
                 TARGETDP_BACKEND);
}

int tdpIpcGetHandle(targetIpcHandle_t *handle, void *t_ptr, const char *f, int l) {
  tdpSite at = SITE("targetIpcGetHandle");
  if (tdpCheckLive(at)) return targetLastError();
  if (!handle || !t_ptr) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  memset(handle, 0, sizeof(*handle));
  if (!tdpBackendIpcAvailable()) return ipc_unavailable(at);
  char *base = NULL;
  size_t nbytes = 0;
  int kind = tdpTrackFind(t_ptr, &base, &nbytes);
  if (kind != TDP_ALLOC_TARGET)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%p is not inside a live allocation of targetMalloc (only those can be "
                   "shared)", t_ptr);
  int rc = tdpBackendIpcGetHandle(handle->bytes, base, at);
  if (rc) return rc;
  handle->offset = (size_t) ((char *) t_ptr - base);
  handle->nbytes = nbytes - handle->offset;
  return TARGET_SUCCESS;
}

int tdpIpcOpenHandle(void **t_peer, const targetIpcHandle_t *handle, const char *f, int l) {
  tdpSite at = SITE("targetIpcOpenHandle");
  if (tdpCheckLive(at)) return targetLastError();
  if (!t_peer || !handle) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  *t_peer = NULL;
  if (!tdpBackendIpcAvailable()) return ipc_unavailable(at);
  if (handle->nbytes == 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "the handle is empty (not filled by targetIpcGetHandle?)");
  void *base = NULL;
  int rc = tdpBackendIpcOpenHandle(&base, handle->bytes, at);
  if (rc) return rc;
  /* The whole mapping is tracked, so copies into it are checked against
   * the peer's allocation size. */
  *t_peer = (char *) base + handle->offset;
  tdpTrackAdd(base, handle->offset + handle->nbytes, TDP_ALLOC_IPC, at);
  return TARGET_SUCCESS;
}

int tdpIpcCloseHandle(void *t_peer, const char *f, int l) {
  tdpSite at = SITE("targetIpcCloseHandle");
  if (tdpCheckLive(at)) return targetLastError();
  if (!t_peer) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  if (!tdpBackendIpcAvailable()) return ipc_unavailable(at);
  char *base = NULL;
  int kind = tdpTrackFind(t_peer, &base, NULL);
  if (kind != TDP_ALLOC_IPC)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%p is not a peer pointer from targetIpcOpenHandle (closed twice?)", t_peer);
  tdpTrackRemove(base);
  return tdpBackendIpcCloseHandle(base, at);
}

/* ---------------------------------------------------------------------- */
/* Stream-ordered flags (targetDP_async.h). The flag may lie in a peer's
 * mapping or a shared window: its room is checked where it is tracked,
 * and a word must be aligned (the device's 32-bit operations need it). */

int targetStreamFlagsAvailable(void) { return tdpBackendFlagsAvailable(); }

static int check_flag(const uint32_t *t_flag, tdpSite at) {
  if (!t_flag) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL flag");
  if ((uintptr_t) t_flag % sizeof(uint32_t))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "flag %p is not 4-byte aligned",
                   (const void *) t_flag);
  return tdpCheckTarget(t_flag, sizeof(uint32_t), "the flag", at);
}

int tdpStreamWriteFlag_(uint32_t *t_flag, uint32_t value, targetStream_t stream, const char *f,
                       int l) {
  tdpSite at = SITE("targetStreamWriteFlag");
  if (tdpCheckLive(at)) return targetLastError();
  void *native = NULL;
  int rc = check_flag(t_flag, at);
  if (rc == TARGET_SUCCESS) rc = check_stream(stream, &native, at);
  return rc ? rc : tdpBackendStreamFlag(t_flag, value, 0, native, at);
}

int tdpStreamWaitFlag_(const uint32_t *t_flag, uint32_t value, targetStream_t stream,
                      const char *f, int l) {
  tdpSite at = SITE("targetStreamWaitFlag");
  if (tdpCheckLive(at)) return targetLastError();
  void *native = NULL;
  int rc = check_flag(t_flag, at);
  if (rc == TARGET_SUCCESS) rc = check_stream(stream, &native, at);
  return rc ? rc : tdpBackendStreamFlag((uint32_t *) t_flag, value, 1, native, at);
}

int tdpTrackShared_(void *p, size_t nbytes, int add) {
  if (!p) return TARGET_SUCCESS;
  if (add) tdpTrackAdd(p, nbytes, TDP_ALLOC_IPC, (tdpSite){"tdpTrackShared_", __FILE__, __LINE__});
  else tdpTrackRemove(p);
  return TARGET_SUCCESS;
}
