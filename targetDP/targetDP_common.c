/*
 * targetDP_common.c -- the half of the host API that does not depend on
 * the hardware: argument checks, the lifecycle, the registry of target
 * allocations, and turning masks and 3-D halos into site lists. It calls
 * the backend through targetDP_internal.h and reports errors through
 * targetDP_error.c; the backend never calls it. Compiled with the host C
 * compiler into both backends' libraries.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compiled by the host C compiler in a CUDA build too: the backend's
 * object carries the library's configuration mark (targetDP.h), not this. */
#ifndef TDP_NO_CONFIG_MARK
#define TDP_NO_CONFIG_MARK
#endif
#include "targetDP_internal.h"

#define SITE(name) ((tdpSite){name, f, l})

/* Lifecycle: every call but the error and configuration queries needs
 * targetInit() first, and fails again after targetFinalize(). */
typedef enum { TDP_NEVER_INITIALISED, TDP_LIVE, TDP_FINALIZED } tdpState;
static tdpState state = TDP_NEVER_INITIALISED;
/* Each targetInit that makes the layer live opens a new session (1, 2,
 * ...): what belongs to one (the 2014 targetInit's extents) ends with it. */
static unsigned long session = 0;
unsigned long tdpSession(void) { return state == TDP_LIVE ? session : 0; }

/* ---------------------------------------------------------------------- */
/* Registry of live allocations. A handful of fields per program, so a
 * linear list is plenty; it lets every call say "that is not a target
 * pointer" or "that copy runs past the end" instead of corrupting memory. */

typedef struct {
  char *ptr;
  size_t nbytes;
  int unified;
  tdpAllocKind kind;
  tdpSite from; /* the call that made it, for targetFinalize's report */
} tdpAlloc;
static tdpAlloc *allocs = NULL;
static int nallocs = 0, maxallocs = 0;

static void track_add(void *p, size_t nbytes, int unified, tdpSite from) {
  if (nallocs == maxallocs) {
    int nmax = maxallocs ? 2 * maxallocs : 64;
    tdpAlloc *grown = (tdpAlloc *) realloc(allocs, nmax * sizeof(tdpAlloc));
    if (!grown) return; /* untracked: only the extra checks are lost */
    allocs = grown;
    maxallocs = nmax;
  }
  allocs[nallocs].ptr = (char *) p;
  allocs[nallocs].unified = unified;
  allocs[nallocs].from = from;
  allocs[nallocs].kind = unified ? TDP_ALLOC_UNIFIED : TDP_ALLOC_TARGET;
  allocs[nallocs++].nbytes = nbytes;
}

void tdpTrackAdd(void *p, size_t nbytes, tdpAllocKind kind, tdpSite from) {
  track_add(p, nbytes, kind == TDP_ALLOC_UNIFIED, from);
  if (nallocs > 0 && allocs[nallocs - 1].ptr == (char *) p) allocs[nallocs - 1].kind = kind;
}

static int track_remove(void *p) {
  for (int i = 0; i < nallocs; i++) {
    if (allocs[i].ptr == p) {
      allocs[i] = allocs[--nallocs];
      return 1;
    }
  }
  return 0;
}

/* Give back every allocation still in the registry, each the way it was
 * made (target, pinned host memory, a peer's IPC mapping). */
static void free_all_allocs(tdpSite at) {
  while (nallocs > 0) {
    tdpAlloc *a = allocs + --nallocs;
    if (a->kind == TDP_ALLOC_PINNED) tdpBackendFreeHost(a->ptr, at);
    else if (a->kind == TDP_ALLOC_IPC) tdpBackendIpcCloseHandle(a->ptr, at);
    else tdpBackendFree(a->ptr, at);
  }
}

/* On the way out after an error, give back the target memory the program
 * still holds, so that leak checkers (valgrind, compute-sanitizer) report
 * only real leaks. Errors on the way are ignored. */
static void release_all(void) {
  int abort_flag = tdpErrorAborts_();
  targetSetErrorAbort(0);
  tdpSite at = {"exit after error", __FILE__, __LINE__};
  tdpAsyncFinalize();
  free_all_allocs(at);
  if (state == TDP_LIVE) {
    tdpBackendScanFinalize();
    tdpBackendFinalize();
    state = TDP_FINALIZED;
  }
  targetSetErrorAbort(abort_flag);
}

/* The allocation that holds p or, when none does, the one that p is just
 * past (t + n of n elements): that pointer has 0 bytes left, and a copy to
 * it is refused like one from t + 1 of too many bytes (issue 25: main took
 * it for a host pointer). An allocation that starts there wins. */
static tdpAlloc *track_find(const void *p) {
  const char *c = (const char *) p;
  tdpAlloc *end = NULL;
  for (int i = 0; i < nallocs; i++) {
    if (c >= allocs[i].ptr && c < allocs[i].ptr + allocs[i].nbytes) return allocs + i;
    if (c == allocs[i].ptr + allocs[i].nbytes) end = allocs + i;
  }
  return end;
}

int tdpTrackRemove(void *p) { return track_remove(p); }

int tdpTrackFind(const void *p, char **base, size_t *nbytes) {
  tdpAlloc *a = track_find(p);
  if (!a) return -1;
  if (base) *base = a->ptr;
  if (nbytes) *nbytes = a->nbytes;
  return (int) a->kind;
}

/* A target pointer that is ours must have room for nbytes. In a checked
 * build (TARGETDP_CHECK) it must also be ours: a host array passed where a
 * target array belongs is the bug a CPU run would otherwise hide. */
static int check_room(const void *t, size_t nbytes, const char *what, tdpSite at) {
  tdpAlloc *a = track_find(t);
  size_t room = a ? (size_t) (a->ptr + a->nbytes - (const char *) t) : 0;
  if (a && a->kind == TDP_ALLOC_PINNED)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%s (%p) is pinned host memory from targetMallocHost, not target memory",
                   what, t);
  if (a && nbytes > room)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%zu bytes asked of %s but only %zu remain in its target allocation",
                   nbytes, what, room);
#ifdef TARGETDP_CHECK
  if (!a)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%s (%p) is not target memory from targetMalloc: a host pointer?", what, t);
#endif
  return TARGET_SUCCESS;
}

/* The host side of a call, nbytes long. known: what the caller's compiler
 * knows of the object h points into (TDP_OBJECT_SIZE_ in the public macro:
 * a local or global array, a struct, a malloc of a known size), or
 * TDP_SIZE_UNKNOWN_; nbytes may not exceed it, as a constant's size limits
 * copyConstToTarget (issue 25: copyFromTarget(h, t, 800) into a 512-byte
 * local array smashed the stack). The reverse mistake, caught in a checked
 * build: target memory passed as the host side. In any build, when the
 * host side lies in an allocation of ours (unified memory, or target
 * memory that the C backend can address), it must have room for nbytes. */
static int check_host(const void *h, size_t nbytes, size_t known, const char *what,
                      tdpSite at) {
  if (known != TDP_SIZE_UNKNOWN_ && nbytes > known)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%zu bytes asked of %s but it holds %zu (its size is known where it is "
                   "declared: an array, a struct, or a malloc of that size)",
                   nbytes, what, known);
  tdpAlloc *a = track_find(h);
  if (!a) return TARGET_SUCCESS;
#ifdef TARGETDP_CHECK
  if (!a->unified && a->kind != TDP_ALLOC_PINNED)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%s (%p) is target memory, not host memory: arguments swapped?", what, h);
#endif
  size_t room = (size_t) (a->ptr + a->nbytes - (const char *) h);
  if (nbytes > room)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%zu bytes asked of %s but only %zu remain in its allocation", nbytes,
                   what, room);
  return TARGET_SUCCESS;
}

static int check_live(tdpSite at) {
  if (state == TDP_LIVE) return TARGET_SUCCESS;
  return tdpFail(TARGET_ERROR_NOT_INITIALISED, at, "%s",
                 state == TDP_FINALIZED ? "called after targetFinalize()"
                                        : "called before targetInit()");
}
int tdpCheckLive(tdpSite at) { return check_live(at); }
int tdpCheckTarget(const void *t, size_t nbytes, const char *what, tdpSite at) {
  return check_room(t, nbytes, what, at);
}
int tdpCheckHost(const void *h, size_t nbytes, size_t known, const char *what, tdpSite at) {
  return check_host(h, nbytes, known, what, at);
}

static int check_ptrs(const void *a, const void *b, size_t n, tdpSite at) {
  if (!a || !b) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  if (n == 0) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size is zero");
  /* n is bytes or elements of up to 8 bytes: below SIZE_MAX / 64 the byte
   * counts that the room checks compute cannot wrap around (2^61 + 1
   * doubles would be 8 bytes), and no allocation comes near 2^58 bytes. */
  if (n > SIZE_MAX / 64)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size %zu is absurd (a negative value?)", n);
  return TARGET_SUCCESS;
}

int tdpCheckPtrs(const void *a, const void *b, size_t n, tdpSite at) {
  return check_ptrs(a, b, n, at);
}

/* A TDP_CONST of symbol_bytes (what the compiler knows of it from the
 * call's expression, TDP_SIZE_UNKNOWN_ when nothing) has no room for more
 * than that, whichever way the copy goes. */
static int check_symbol(size_t nbytes, size_t symbol_bytes, int into, tdpSite at) {
  if (symbol_bytes == TDP_SIZE_UNKNOWN_ || nbytes <= symbol_bytes) return TARGET_SUCCESS;
  return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                 "%zu bytes %s a constant of %zu bytes (pass the address of the whole "
                 "TDP_CONST variable: &t_x, or the array t_a)",
                 nbytes, into ? "into" : "from", symbol_bytes);
}

/* ---------------------------------------------------------------------- */

int tdpInit(const char *caller_config, const char *f, int l) {
  tdpErrorOnExit_(release_all);
  if (!caller_config || strcmp(caller_config, tdpBackendConfig()) != 0)
    return tdpFail(TARGET_ERROR_CONFIG, SITE("targetInit"),
                   "the program was compiled with [%s] but libtargetDP with [%s]; "
                   "rebuild both with the same TARGET, LAYOUT, VVL, SAL and TPB",
                   caller_config ? caller_config : "(null)", tdpBackendConfig());
  if (state == TDP_LIVE) return TARGET_SUCCESS;
  int rc = tdpBackendInit(SITE("targetInit"));
  if (rc == TARGET_SUCCESS) {
    /* a new session: errors of the last one (or of calls before this) go */
    state = TDP_LIVE;
    session++;
    tdpErrorReset_();
  }
  if (rc == TARGET_SUCCESS && getenv("TARGETDP_VERBOSE"))
    fprintf(stderr, "targetDP: %s\n", targetConfigString());
  return rc;
}

/* Allocations still live at targetFinalize are freed (the target context
 * goes away, and with it any use they could have) and reported on stderr
 * with the call that made one of them: a leak, not an error, so the
 * call succeeds. TARGETDP_QUIET=1 silences the report. */
int tdpFinalize(const char *f, int l) {
  tdpSite at = SITE("targetFinalize");
  int rc = check_live(at);
  if (rc) return rc;
  if (nallocs > 0 && !getenv("TARGETDP_QUIET")) {
    size_t total = 0;
    for (int i = 0; i < nallocs; i++) total += allocs[i].nbytes;
    fprintf(stderr,
            "targetDP: warning: targetFinalize at %s:%d: %d target allocation%s (%zu bytes) "
            "never freed, freed now; one from %s at %s:%d\n",
            f ? f : "?", l, nallocs, nallocs == 1 ? "" : "s", total, allocs[0].from.call,
            allocs[0].from.file ? allocs[0].from.file : "?", allocs[0].from.line);
  }
  tdpAsyncFinalize();
  free_all_allocs(at);
  tdpProfileFinalize_();
  tdpBackendScanFinalize();
  tdpTeamFinalize_();
  tdpContractFinalize_();
  tdpBackendFinalize();
  state = TDP_FINALIZED;
  return TARGET_SUCCESS;
}

const char *targetConfigString(void) {
  static char s[256];
  snprintf(s, sizeof(s), "%s device=\"%s\"", tdpBackendConfig(), tdpBackendDevice());
  return s;
}

int tdpMalloc(void **t_ptr, size_t nbytes, int zero, int unified, const char *f, int l) {
  tdpSite at = SITE(zero ? (unified ? "targetCallocUnified" : "targetCalloc")
                         : (unified ? "targetMallocUnified" : "targetMalloc"));
  if (!t_ptr) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL address for the pointer");
  *t_ptr = NULL;
  int live = check_live(at);
  if (live) return live;
  if (nbytes == 0) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size is zero");
  int rc = TDP_PROFILED_(at.call, 0.0, tdpBackendMalloc(t_ptr, nbytes, zero, unified, at));
  if (rc == TARGET_SUCCESS) track_add(*t_ptr, nbytes, unified, at);
#ifdef TARGETDP_CHECK
  /* Fresh target memory is NaN, so data never copied there shows up. */
  const double nan_ = NAN;
  if (rc == TARGET_SUCCESS && !zero && nbytes >= sizeof(double))
    rc = tdpBackendSetConstant(*t_ptr, &nan_, sizeof(double), nbytes / sizeof(double), at);
  if (rc == TARGET_SUCCESS && unified) rc = tdpBackendSynchronize(at); /* host may touch it */
#endif
  return rc;
}

int tdpFree(void *t_ptr, const char *f, int l) {
  tdpSite at = SITE("targetFree");
  int live = check_live(at);
  if (live) return live;
  if (!t_ptr) return TARGET_SUCCESS; /* like free(NULL) */
  tdpAlloc *a = track_find(t_ptr);
  if (!a || a->ptr != (char *) t_ptr)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%p is not a live target allocation (freed twice, or never "
                   "allocated with targetMalloc?)", t_ptr);
  if (a->kind == TDP_ALLOC_PINNED || a->kind == TDP_ALLOC_IPC)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "%p is %s: free it with %s", t_ptr,
                   a->kind == TDP_ALLOC_PINNED ? "pinned host memory" : "a peer's IPC mapping",
                   a->kind == TDP_ALLOC_PINNED ? "targetFreeHost" : "targetIpcCloseHandle");
#ifdef TARGETDP_CHECK
  /* Poisoned on the way out too: a stale pointer then reads NaN. */
  const double nan_ = NAN;
  if (a->nbytes >= sizeof(double))
    tdpBackendSetConstant(t_ptr, &nan_, sizeof(double), a->nbytes / sizeof(double), at);
#endif
  track_remove(t_ptr);
  return TDP_PROFILED_(at.call, 0.0, tdpBackendFree(t_ptr, at));
}

int tdpCopy(void *dst, const void *src, size_t nbytes, int to_target, size_t host_known,
            const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTarget" : "copyFromTarget");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(dst, src, nbytes, at);
  if (rc == TARGET_SUCCESS)
    rc = check_room(to_target ? dst : src, nbytes, "the target array", at);
  if (rc == TARGET_SUCCESS)
    rc = check_host(to_target ? src : dst, nbytes, host_known, "the host array", at);
  return rc ? rc : TDP_PROFILED_(at.call, (double) nbytes,
                                  tdpBackendCopy(dst, src, nbytes, to_target, at));
}

int tdpCopyConst(void *t_symbol, size_t symbol_bytes, const void *src, size_t src_known,
                 size_t nbytes, const char *f, int l) {
  tdpSite at = SITE("copyConstToTarget");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(t_symbol, src, nbytes, at);
  if (rc == TARGET_SUCCESS) rc = check_symbol(nbytes, symbol_bytes, 1, at);
  if (rc == TARGET_SUCCESS) rc = check_host(src, nbytes, src_known, "the host value", at);
  return rc ? rc : tdpBackendCopyConst(t_symbol, src, nbytes, at);
}

/* ---------------------------------------------------------------------- */
/* Element types: the checks in bytes, one implementation per helper. */


size_t tdpTypeSize(tdpType type) {
  switch (type) {
  case TDP_TYPE_INT: return sizeof(int);
  case TDP_TYPE_LONG: return sizeof(long);
  case TDP_TYPE_DOUBLE: return sizeof(double);
  case TDP_TYPE_FLOAT: return sizeof(float);
  case TDP_TYPE_DOUBLE_COMPLEX: return 2 * sizeof(double);
  case TDP_TYPE_FLOAT_COMPLEX: return 2 * sizeof(float);
  }
  return 0;
}

static const char *type_name(tdpType type) {
  static const char *names[] = {"int", "long", "double", "float", "double complex",
                                "float complex"};
  return tdpTypeSize(type) ? names[type] : "unknown";
}

/* The element type is known and its size is the caller's sizeof. In a
 * checked build, a target pointer must also sit on an element boundary of
 * its allocation and the allocation be a whole number of elements: a
 * float field passed to a double call (or the reverse) shows there. */
static int check_type(tdpType type, size_t esz, tdpSite at) {
  size_t want = tdpTypeSize(type);
  if (want == 0) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "unknown element type %d", (int) type);
  if (esz != want)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "element size %zu does not match the type %s (%zu bytes)", esz,
                   type_name(type), want);
  return TARGET_SUCCESS;
}
static int check_elements(const void *t, size_t esz, const char *what, tdpSite at) {
#ifdef TARGETDP_CHECK
  tdpAlloc *a = track_find(t);
  if (a && (a->nbytes % esz || (size_t) ((const char *) t - a->ptr) % esz))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%s: its allocation of %zu bytes (from %s:%d) is not a whole number of "
                   "%zu-byte elements from this pointer on: the wrong element type?",
                   what, a->nbytes, a->from.file, a->from.line, esz);
#else
  (void) t;
  (void) esz;
  (void) what;
  (void) at;
#endif
  return TARGET_SUCCESS;
}

int tdpSetConstantT(void *t_a, const void *value, size_t n, tdpType type, size_t esz,
                    const char *f, int l) {
  /* all bytes zero: named targetZero (as a double 0.0 always was) */
  /* (only when esz is the type's size: a wrong esz is refused below, and
   * reading esz bytes of the value first would overrun it) */
  int zero = value && (size_t) tdpTypeSize(type) == esz && esz <= sizeof(tdpZeroBytes_) &&
             memcmp(value, tdpZeroBytes_, esz) == 0;
  tdpSite at = SITE(zero ? "targetZero" : "targetSetConstant");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_type(type, esz, at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(t_a, value, n, at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_a, n * esz, "the target array", at);
  if (rc == TARGET_SUCCESS) rc = check_elements(t_a, esz, "the target array", at);
  return rc ? rc : TDP_PROFILED_(at.call, (double) n * esz,
                                  tdpBackendSetConstant(t_a, value, esz, n, at));
}

int tdpSetConstant_(double *t_a, double value, size_t n, const char *f, int l) {
  return tdpSetConstantT(t_a, &value, n, TDP_TYPE_DOUBLE, sizeof(double), f, l);
}

static int check_field(const void *dst, const void *src, long nsites, long ncomp,
                       size_t esz, int to_target, size_t host_known, tdpSite at) {
  /* to_target: 1 dst is the target field, 0 src is, 2 both are plain
   * (unpadded) target arrays of nsites * ncomp. */
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(dst, src, 1, at);
  if (rc) return rc;
  if (nsites <= 0 || ncomp <= 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nsites %ld and ncomp %ld must be positive",
                   nsites, ncomp);
  /* Two large extents would wrap the byte count below into a small number
   * that passes the room check. */
  if ((size_t) nsites > SIZE_MAX / 64 ||
      (size_t) ncomp > SIZE_MAX / 4 / 16 / TDP_NSITES_ALLOC(nsites))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nsites %ld x ncomp %ld is absurd", nsites,
                   ncomp);
  size_t nbytes = TDP_FIELD_SIZE(nsites, ncomp) * esz;
  if (to_target == 2) {
    nbytes = (size_t) nsites * ncomp * esz;
    rc = check_room(dst, nbytes, "the destination field", at);
    if (rc == TARGET_SUCCESS) rc = check_room(src, nbytes, "the source field", at);
    if (rc == TARGET_SUCCESS) rc = check_elements(dst, esz, "the destination field", at);
    return rc ? rc : check_elements(src, esz, "the source field", at);
  }
  rc = check_room(to_target ? dst : src, nbytes, "the target field", at);
  if (rc == TARGET_SUCCESS) rc = check_elements(to_target ? dst : src, esz, "the target field", at);
  return rc ? rc : check_host(to_target ? src : dst, nbytes, host_known, "the host field", at);
}

int tdpCopySitesT(void *dst, const void *src, long nsites, long ncomp, tdpType type, size_t esz,
                  const int *sites, long nlist, int to_target, size_t host_known,
                  size_t sites_known, const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTargetSites" : "copyFromTargetSites");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_type(type, esz, at);
  if (rc == TARGET_SUCCESS)
    rc = check_field(dst, src, nsites, ncomp, esz, to_target, host_known, at);
  if (rc) return rc;
  if (nlist < 0 || (nlist > 0 && !sites) || (size_t) nlist > SIZE_MAX / 64)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "bad site list (%ld sites)", nlist);
  /* read on the host */
  rc = check_host(sites, (size_t) nlist * sizeof(int), sites_known, "the site list", at);
  if (rc) return rc;
  for (long k = 0; k < nlist; k++) {
    if (sites[k] < 0 || sites[k] >= nsites)
      return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "site %d out of range [0, %ld)",
                     sites[k], nsites);
  }
  if (nlist == 0) return TARGET_SUCCESS;
  /* The backends take 64-bit site lists (masks and halos of more than 2^31
   * sites make them); widen the caller's int list. */
  long *wide = (long *) malloc(sizeof(long) * (size_t) nlist);
  if (!wide) return tdpFail(TARGET_ERROR_MEMORY, at, "no host memory for %ld sites", nlist);
  for (long k = 0; k < nlist; k++) wide[k] = sites[k];
  rc = TDP_PROFILED_(at.call, (double) nlist * ncomp * esz,
                     tdpBackendCopySites(dst, src, nsites, ncomp, esz, wide, nlist, to_target, at));
  free(wide);
  return rc;
}

int tdpCopySites_(double *dst, const double *src, long nsites, long ncomp, const int *sites,
                 long nlist, int to_target, const char *f, int l) {
  return tdpCopySitesT(dst, src, nsites, ncomp, TDP_TYPE_DOUBLE, sizeof(double), sites, nlist,
                       to_target, TDP_SIZE_UNKNOWN_, TDP_SIZE_UNKNOWN_, f, l);
}

int tdpCopyMaskedT(void *dst, const void *src, long nsites, long ncomp, tdpType type,
                   size_t esz, const char *mask, int to_target, size_t host_known,
                   size_t mask_known, const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTargetMasked" : "copyFromTargetMasked");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_type(type, esz, at);
  if (rc == TARGET_SUCCESS)
    rc = check_field(dst, src, nsites, ncomp, esz, to_target, host_known, at);
  if (rc) return rc;
  if (!mask) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL mask");
  rc = check_host(mask, (size_t) nsites, mask_known, "the mask", at); /* read on the host */
  if (rc) return rc;
  long *sites = (long *) malloc(sizeof(long) * (size_t) nsites);
  if (!sites) return tdpFail(TARGET_ERROR_MEMORY, at, "no host memory for %ld sites", nsites);
  long nlist = 0;
  for (long i = 0; i < nsites; i++) {
    if (mask[i]) sites[nlist++] = i;
  }
  rc = nlist ? TDP_PROFILED_(at.call, (double) nlist * ncomp * esz,
                             tdpBackendCopySites(dst, src, nsites, ncomp, esz, sites, nlist,
                                                 to_target, at))
            : 0;
  free(sites);
  return rc;
}

int tdpCopyMasked_(double *dst, const double *src, long nsites, long ncomp, const char *mask,
                  int to_target, const char *f, int l) {
  return tdpCopyMaskedT(dst, src, nsites, ncomp, TDP_TYPE_DOUBLE, sizeof(double), mask,
                        to_target, TDP_SIZE_UNKNOWN_, TDP_SIZE_UNKNOWN_, f, l);
}

/* Halo: sites within nhalo of a face. Edge: interior sites within nhalo of
  * the halo, i.e. what the neighbouring ranks' halos are filled from. Moved
 * as a few boxes through one buffer (targetDP_pack.c). */
int tdpCopy3DT(void *dst, const void *src, const int extents[3], long nhalo, long ncomp,
               tdpType type, size_t esz, int to_target, size_t host_known, size_t extents_known,
               const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTarget3DHalo" : "copyFromTarget3DEdge");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_type(type, esz, at);
  if (rc) return rc;
  if (!extents) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL extents");
  /* read on the host */
  rc = check_host(extents, 3 * sizeof(int), extents_known, "the extents", at);
  if (rc) return rc;
  const int nx = extents[0], ny = extents[1], nz = extents[2];
  if (nhalo < 1 || nhalo > INT_MAX / 2 || nx <= 2 * nhalo || ny <= 2 * nhalo ||
      nz <= 2 * nhalo)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "extents %d x %d x %d must exceed twice nhalo = %ld", nx, ny, nz, nhalo);
  if ((long) nx * ny > LONG_MAX / 64 / nz) /* three ints can overflow a long */
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "extents %d x %d x %d are absurd", nx, ny,
                   nz);
  const long nsites = (long) nx * ny * nz;
  rc = check_field(dst, src, nsites, ncomp, esz, to_target, host_known, at);
  if (rc) return rc;
  const long ext[3] = {nx, ny, nz};
  return TDP_PROFILED_(at.call, 0.0,
                       tdpCopy3DBoxes(dst, src, ext, (int) nhalo, (int) ncomp, esz, to_target, at));
}

int tdpCopy3D_(double *dst, const double *src, const int extents[3], long nhalo, long ncomp,
              int to_target, const char *f, int l) {
  return tdpCopy3DT(dst, src, extents, nhalo, ncomp, TDP_TYPE_DOUBLE, sizeof(double), to_target,
                    TDP_SIZE_UNKNOWN_, TDP_SIZE_UNKNOWN_, f, l);
}

/* The result of a reduction: long long for int, long for long, float for
 * float, the element type otherwise. */
static size_t result_size(tdpType type) {
  return type == TDP_TYPE_INT ? sizeof(long long) : tdpTypeSize(type);
}

int tdpReduceT(void *res, const void *t_a, size_t n, tdpType type, size_t esz, tdpReduceOp op,
               const char *f, int l) {
  static const char *names[6][3] = {
      {"targetIntSum", "targetIntMin", "targetIntMax"},
      {"targetLongSum", "targetLongMin", "targetLongMax"},
      {"targetDoubleSum", "targetDoubleMin", "targetDoubleMax"},
      {"targetFloatSum", "targetFloatMin", "targetFloatMax"},
      {"targetDoubleComplexSum", "a min of double complex", "a max of double complex"},
      {"targetFloatComplexSum", "a min of float complex", "a max of float complex"}};
  if ((int) op < 0 || (int) op > 2 || tdpTypeSize(type) == 0) {
    tdpSite bad = SITE("a reduction");
    return tdpFail(TARGET_ERROR_INVALID_VALUE, bad, "element type %d or operation %d unknown",
                   (int) type, (int) op);
  }
  tdpSite at = SITE(names[type][op]);
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_type(type, esz, at);
  if (rc == TARGET_SUCCESS && op != TDP_SUM &&
      (type == TDP_TYPE_DOUBLE_COMPLEX || type == TDP_TYPE_FLOAT_COMPLEX))
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "complex numbers have no order: only a sum");
  if (rc == TARGET_SUCCESS) rc = check_ptrs(res, t_a, n, at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_a, n * esz, "the target array", at);
  if (rc == TARGET_SUCCESS) rc = check_elements(t_a, esz, "the target array", at);
  /* the result's type is the call's (TDP_TYPED_), so its size is right */
  if (rc == TARGET_SUCCESS)
    rc = check_host(res, result_size(type), TDP_SIZE_UNKNOWN_, "the result", at);
  /* Sums of float and double: exact, correctly rounded (targetDP_exact.c) */
  const int exact = op == TDP_SUM && type != TDP_TYPE_INT && type != TDP_TYPE_LONG;
  return rc ? rc : TDP_PROFILED_(at.call, (double) n * esz,
                                  exact ? tdpExactReduce(res, t_a, n, type, at)
                                        : tdpBackendReduce(res, t_a, n, type, op, at));
}

int tdpReduceDouble(double *res, const double *t_a, size_t n, tdpReduceOp op, const char *f, int l) {
  return tdpReduceT(res, t_a, n, TDP_TYPE_DOUBLE, sizeof(double), op, f, l);
}

int tdpReduceInt(long long *res, const int *t_a, size_t n, tdpReduceOp op, const char *f, int l) {
  return tdpReduceT(res, t_a, n, TDP_TYPE_INT, sizeof(int), op, f, l);
}

/* The checked C build's record of the variables that the in-kernel
 * reductions of the running kernel named (TDP_TLP_REDUCE and its forms),
 * for tdpReduceCheck_. Written by the host thread before each loop's
 * parallel region, read after it; cleared by TDP_LAUNCH before each kernel,
 * so a partial cannot pass on an earlier kernel's list. A kernel with more
 * than RVARS_MAX reduction variables in all keeps the latest ones. */
#define RVARS_MAX 64
static struct {
  const void *addr;
  int op; /* its tdpReduceOp */
  const char *file; /* its loop */
  int line;
} rvars[RVARS_MAX];
static int rvars_n = 0;
static const char *rvars_file = NULL; /* the latest reduction loop */
static int rvars_line = 0;

/* Arguments: (tdpReduceOp op, const char *name, size_t size, const void *addr)
 * per variable, then -1. */
int tdpReduceVars_(const char *file, int line, ...) {
  va_list ap;
  va_start(ap, line);
  for (int op = va_arg(ap, int); op >= 0; op = va_arg(ap, int)) {
    const char *name = va_arg(ap, const char *);
    size_t size = va_arg(ap, size_t);
    const void *p = va_arg(ap, const void *);
    if (rvars_n == RVARS_MAX) {
      memmove(rvars, rvars + 1, (RVARS_MAX - 1) * sizeof(rvars[0]));
      rvars_n--;
    }
    rvars[rvars_n].addr = p;
    rvars[rvars_n].op = op;
    rvars[rvars_n].file = file;
    rvars[rvars_n++].line = line;
    /* 0 of every supported type is all bits clear; -0.0 (the sign bit
     * alone, in the last byte on a little-endian host) is a zero too. */
    const unsigned char *b = (const unsigned char *) p;
    int nonzero = 0;
    for (size_t i = 0; i < size; i++) nonzero |= b[i] & (i + 1 == size ? 0x7f : 0xff);
    if (op == TDP_SUM && nonzero) {
      tdpSite at = {"TDP_TLP_SUM/TDP_TLP_REDUCE", file, line};
      tdpFail(TARGET_ERROR_INVALID_VALUE, at,
              "the sum variable '%s' does not start at 0: on CUDA every thread starts from its "
              "value, which would then count once per thread; start it at 0 and add the "
              "offset after the loop", name);
    }
  }
  va_end(ap);
  rvars_file = file;
  rvars_line = line;
  return 1;
}

void tdpReduceClear_(void) {
  rvars_n = 0;
  rvars_file = NULL;
}

void tdpReduceCheck_(const void *partial, tdpReduceOp op, const char *call, const char *name,
                     const char *file, int line) {
  /* kinds 0-2 are tdpReduceOp; 3 is TDP_REXACT's (targetDP_exact.h) */
  static const char *what[4] = {"a sum", "a minimum", "a maximum", "an exact sum"};
  static const char *clause[4] = {"TDP_RSUM", "TDP_RMIN", "TDP_RMAX", "TDP_REXACT"};
  static const char *block[4] = {"targetBlockAdd", "targetBlockMin", "targetBlockMax",
                                 "targetBlockAddExact"};
  tdpSite at = {call, file, line};
  /* the latest loop that named it decides */
  for (int i = rvars_n - 1; i >= 0; i--) {
    if (rvars[i].addr != partial) continue;
    if (rvars[i].op == (int) op) return;
    int k = rvars[i].op >= 0 && rvars[i].op <= 3 ? rvars[i].op : 0;
    int o = (int) op >= 0 && (int) op <= 3 ? (int) op : 0;
    tdpFail(TARGET_ERROR_INVALID_VALUE, at,
            "'%s' is reduced as %s (%s) by the in-kernel reduction at %s:%d, but %s combines "
            "it as %s: the backends would disagree (the C backend combines the threads' "
            "partials as %s, CUDA as %s); call %s* for it, or change the clause",
            name, what[k], clause[k], rvars[i].file, rvars[i].line, call, what[o], what[k],
            what[o], block[k]);
    return;
  }
  if (rvars_file)
    tdpFail(TARGET_ERROR_INVALID_VALUE, at,
            "'%s' is not a reduction variable of the in-kernel reduction at %s:%d (or of an "
            "earlier one in this kernel): its OpenMP threads shared it, so its value is a "
            "race's; name it in that loop's clauses (TDP_TLP_SUM(base, N, a, %s) or "
            "TDP_RSUM/TDP_RMIN/TDP_RMAX(%s))",
            name, rvars_file, rvars_line, name, name);
  else
    tdpFail(TARGET_ERROR_INVALID_VALUE, at,
            "'%s' comes from no in-kernel reduction: no TDP_TLP_SUM/MIN/MAX/REDUCE loop ran in "
            "this kernel before it; a partial summed in a TDP_TLP loop is shared by its OpenMP "
            "threads (a race)", name);
}

int tdpConvertT(void *t_dst, const void *t_src, long nsites, long ncomp, tdpType type,
                size_t esz, int aos2soa, const char *f, int l) {
  tdpSite at = SITE(aos2soa ? "targetAoS2SoA" : "targetSoA2AoS");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_type(type, esz, at);
  if (rc == TARGET_SUCCESS)
    rc = check_field(t_dst, t_src, nsites, ncomp, esz, 2, TDP_SIZE_UNKNOWN_, at);
  if (rc == TARGET_SUCCESS && t_dst == t_src)
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "source and destination are the same array");
  return rc ? rc : TDP_PROFILED_(at.call, 2.0 * nsites * ncomp * esz,
                                  tdpBackendConvert(t_dst, t_src, nsites, ncomp, esz, aos2soa, at));
}

int tdpConvert_(double *t_dst, const double *t_src, long nsites, long ncomp, int aos2soa,
               const char *f, int l) {
  return tdpConvertT(t_dst, t_src, nsites, ncomp, TDP_TYPE_DOUBLE, sizeof(double), aos2soa, f, l);
}

int tdpLaunchBegin_(const char *form, const char *kernel, long n, const char *f, int l) {
  tdpSite at = SITE(form);
  tdpReduceClear_(); /* a new kernel: no reduction variables yet */
  if (state != TDP_LIVE)
    return tdpFail(TARGET_ERROR_NOT_INITIALISED, at, "kernel %s launched %s", kernel,
                   state == TDP_FINALIZED ? "after targetFinalize()" : "before targetInit()");
  if (n < 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "kernel %s not launched: %ld sites, a negative extent (an int product such "
                   "as nx * ny * nz past 2^31? compute it in long)", kernel, n);
  return TARGET_SUCCESS;
}

int tdpLegacyLaunch_(long n, const char *f, int l) {
  tdpSite at = SITE("__targetLaunch__");
  int rc = TARGET_SUCCESS;
  if (state != TDP_LIVE)
    rc = tdpFail(TARGET_ERROR_NOT_INITIALISED, at, "a 2014 launch %s",
                 state == TDP_FINALIZED ? "after targetFinalize()" : "before targetInit()");
  else if (n < 0)
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                 "a 2014 launch over %ld sites: a negative extent (an int product such as nx * "
                 "ny * nz past 2^31? compute it in long)", n);
  if (rc == TARGET_SUCCESS) tdpReduceClear_();
  /* The C backend's 2014 launch cannot be skipped (targetDP_compat.h);
   * the CUDA one is, by its grid of 0 blocks. */
  if (rc != TARGET_SUCCESS && strncmp(tdpBackendConfig(), "backend=c ", 10) == 0) {
    fprintf(stderr, "%s\ntargetDP: a refused 2014 launch cannot be skipped on the C backend: "
                    "stopping\n", targetLastErrorString());
    release_all();
    exit(1);
  }
  return rc;
}

int tdpLaunchCheck_(const char *kernel, const char *f, int l) {
  tdpSite at = SITE("TDP_LAUNCH");
  tdpReduceClear_(); /* a new kernel: no reduction variables yet */
  if (state != TDP_LIVE)
    return tdpFail(TARGET_ERROR_NOT_INITIALISED, at, "kernel %s launched %s", kernel,
                   state == TDP_FINALIZED ? "after targetFinalize()" : "before targetInit()");
  return tdpBackendLaunchCheck(kernel, at);
}

int tdpLaunchTpbCheck_(const char *kernel, long tpb, const char *f, int l) {
  if (tpb >= 32 && tpb <= 1024 && tpb % 32 == 0) return TARGET_SUCCESS;
  return tdpFail(TARGET_ERROR_INVALID_VALUE, SITE("TDP_LAUNCH"),
                 "kernel %s failed to launch: %ld threads per block (TDP_LAUNCH_TPB needs a "
                 "multiple of 32 from 32 to 1024: block reductions work on whole warps)",
                 kernel, tpb);
}

int tdpLaunchLanesCheck_(const char *kernel, long lanes, int vvl, const char *f, int l) {
  if (lanes == vvl || (lanes >= 1 && lanes < vvl && lanes <= 16 && (lanes & (lanes - 1)) == 0))
    return TARGET_SUCCESS;
  return tdpFail(TARGET_ERROR_INVALID_VALUE, SITE("TDP_LAUNCH_LANES"),
                 "kernel %s not launched: %ld sites per thread (TDP_LAUNCH_LANES takes 1, 2, 4, "
                 "8 or 16 below VVL, or VVL = %d)", kernel, lanes, vvl);
}

int tdpSynchronize(const char *what, const char *f, int l) {
  int rc = check_live(SITE(what));
  return rc ? rc : tdpBackendSynchronize(SITE(what));
}

/* ---------------------------------------------------------------------- */
/* Constants and target-to-target copies. A TDP_CONST symbol is not in the
 * allocation registry (it is not targetMalloc memory): its room is what the
 * compiler knows of it at the call (check_symbol), and on CUDA the
 * runtime's symbol size. */

int tdpCopyConstFrom(void *dst, size_t dst_known, const void *t_symbol, size_t symbol_bytes,
                     size_t nbytes, const char *f, int l) {
  tdpSite at = SITE("copyConstFromTarget");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(dst, t_symbol, nbytes, at);
  if (rc == TARGET_SUCCESS) rc = check_symbol(nbytes, symbol_bytes, 0, at);
  if (rc == TARGET_SUCCESS) rc = check_host(dst, nbytes, dst_known, "the host value", at);
  return rc ? rc : TDP_PROFILED_(at.call, (double) nbytes,
                                  tdpBackendCopyConstFrom(dst, t_symbol, nbytes, at));
}

int tdpCopyConstFromArray(void *t_symbol, size_t symbol_bytes, const void *t_src, size_t nbytes,
                          const char *f, int l) {
  tdpSite at = SITE("copyTargetToConst");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(t_symbol, t_src, nbytes, at);
  if (rc == TARGET_SUCCESS) rc = check_symbol(nbytes, symbol_bytes, 1, at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_src, nbytes, "the target array", at);
  return rc ? rc : TDP_PROFILED_(at.call, (double) nbytes,
                                  tdpBackendCopyConstFromArray(t_symbol, t_src, nbytes, at));
}

int tdpConstAddress(void **t_ptr, const void *t_symbol, const char *f, int l) {
  tdpSite at = SITE("targetConstAddress");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(t_ptr, t_symbol, 1, at);
  if (rc) return rc;
  *t_ptr = NULL;
  return tdpBackendConstAddress(t_ptr, t_symbol, at);
}

int tdpCopyTargetToTarget(void *t_dst, const void *t_src, size_t nbytes, const char *f, int l) {
  tdpSite at = SITE("copyTargetToTarget");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(t_dst, t_src, nbytes, at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_dst, nbytes, "the destination array", at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_src, nbytes, "the source array", at);
  /* memcpy semantics: overlapping ranges are a bug (cudaMemcpy too) */
  if (rc == TARGET_SUCCESS && (const char *) t_dst < (const char *) t_src + nbytes &&
      (const char *) t_src < (const char *) t_dst + nbytes)
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "source and destination overlap");
  return rc ? rc : TDP_PROFILED_(at.call, 2.0 * nbytes,
                                  tdpBackendCopyTargetToTarget(t_dst, t_src, nbytes, at));
}

/* ---------------------------------------------------------------------- */
/* Scans and compaction: checks here, the work in targetDP_scan_*.  */

int tdpScan(void *t_out, const void *t_in, size_t n, tdpScanType_ type, tdpScanMode mode,
            const char *f, int l) {
  static const char *names[3][2] = {
      {"targetScanInclusiveInt", "targetScanExclusiveInt"},
      {"targetScanInclusiveLong", "targetScanExclusiveLong"},
      {"targetScanInclusiveDouble", "targetScanExclusiveDouble"}};
  static const size_t esize[3] = {sizeof(int), sizeof(long), sizeof(double)};
  if ((int) type < 0 || (int) type > 2 || (int) mode < 0 || (int) mode > 1) {
    tdpSite bad = SITE("tdpScan");
    return tdpFail(TARGET_ERROR_INVALID_VALUE, bad, "element type %d or mode %d unknown",
                   (int) type, (int) mode);
  }
  tdpSite at = SITE(names[type][mode]);
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(t_out, t_in, 1, at);
  if (rc == TARGET_SUCCESS && n > SIZE_MAX / 64)
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size %zu is absurd (a negative value?)", n);
  if (rc || n == 0) return rc; /* an empty scan: nothing to do */
  rc = check_room(t_in, n * esize[type], "the input array", at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_out, n * esize[type], "the output array", at);
  /* in place is fine; a partial overlap would read what it already wrote */
  if (rc == TARGET_SUCCESS && t_out != t_in &&
      (const char *) t_out < (const char *) t_in + n * esize[type] &&
      (const char *) t_in < (const char *) t_out + n * esize[type])
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                 "input and output overlap without being the same array");
  return rc ? rc : TDP_PROFILED_(at.call, 2.0 * n * esize[type],
                                  tdpBackendScan(t_out, t_in, n, type, mode, at));
}

int tdpCompact(long *t_index, size_t *count, const char *t_mask, size_t n, const char *f,
               int l) {
  tdpSite at = SITE("targetCompactIndices");
  int rc = check_live(at);
  if (rc == TARGET_SUCCESS) rc = check_ptrs(t_index, t_mask, 1, at);
  if (rc == TARGET_SUCCESS && !count)
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  if (rc == TARGET_SUCCESS)
    rc = check_host(count, sizeof(size_t), TDP_SIZE_UNKNOWN_, "the count", at);
  if (rc == TARGET_SUCCESS && n > SIZE_MAX / 64)
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size %zu is absurd (a negative value?)", n);
  if (rc) return rc;
  *count = 0;
  if (n == 0) return TARGET_SUCCESS;
  rc = check_room(t_mask, n, "the mask", at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_index, n * sizeof(long), "the index array", at);
  /* bytes: the mask read, and at most n indices written */
  return rc ? rc : TDP_PROFILED_(at.call, (double) n * (1 + sizeof(long)),
                                  tdpBackendCompact(t_index, count, t_mask, n, at));
}
