/*
 * targetDP_common.c -- the half of the host API that does not depend on
 * the hardware: argument checks, error reporting, the registry of target
 * allocations, and turning masks and 3-D halos into site lists. Compiled
 * with the host C compiler into both backends' libraries.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP_internal.h"

#define SITE(name) ((tdpSite){name, f, l})

static int abort_on_error = 1;
static targetError_t last_error = TARGET_SUCCESS;
static char last_message[512] = "no error";
static int initialised = 0;

void targetSetErrorAbort(int flag) { abort_on_error = flag; }
targetError_t targetLastError(void) { return last_error; }
const char *targetLastErrorString(void) { return last_message; }

static void release_all(void);

static unsigned long fail_count = 0;
unsigned long tdpFailCount(void) { return fail_count; }

int tdpFail(targetError_t code, tdpSite at, const char *fmt, ...) {
  fail_count++;
  int n = snprintf(last_message, sizeof(last_message), "targetDP: %s failed at %s:%d: ",
                   at.call, at.file ? at.file : "?", at.line);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t) n < sizeof(last_message))
    vsnprintf(last_message + n, sizeof(last_message) - n, fmt, ap);
  va_end(ap);
  last_error = code;
  if (abort_on_error) {
    fprintf(stderr, "%s\n", last_message);
    release_all();
    exit(1);
  }
  return code;
}

/* ---------------------------------------------------------------------- */
/* Registry of live allocations. A handful of fields per program, so a
 * linear list is plenty; it lets every call say "that is not a target
 * pointer" or "that copy runs past the end" instead of corrupting memory. */

typedef struct { char *ptr; size_t nbytes; int unified; tdpAllocKind kind; } tdpAlloc;
static tdpAlloc *allocs = NULL;
static int nallocs = 0, maxallocs = 0;

static void track_add(void *p, size_t nbytes, int unified) {
  if (nallocs == maxallocs) {
    int nmax = maxallocs ? 2 * maxallocs : 64;
    tdpAlloc *grown = (tdpAlloc *) realloc(allocs, nmax * sizeof(tdpAlloc));
    if (!grown) return; /* untracked: only the extra checks are lost */
    allocs = grown;
    maxallocs = nmax;
  }
  allocs[nallocs].ptr = (char *) p;
  allocs[nallocs].unified = unified;
  allocs[nallocs].kind = unified ? TDP_ALLOC_UNIFIED : TDP_ALLOC_TARGET;
  allocs[nallocs++].nbytes = nbytes;
}

void tdpTrackAdd(void *p, size_t nbytes, tdpAllocKind kind) {
  track_add(p, nbytes, kind == TDP_ALLOC_UNIFIED);
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

/* On the way out after an error, give back the target memory the program
 * still holds, so that leak checkers (valgrind, compute-sanitizer) report
 * only real leaks. Errors on the way are ignored. */
static void release_all(void) {
  int abort_flag = abort_on_error;
  abort_on_error = 0;
  tdpSite at = {"exit after error", __FILE__, __LINE__};
  tdpAsyncFinalize();
  while (nallocs > 0) {
    tdpAlloc *a = allocs + --nallocs;
    if (a->kind == TDP_ALLOC_PINNED) tdpBackendFreeHost(a->ptr, at);
    else if (a->kind == TDP_ALLOC_IPC) tdpBackendIpcCloseHandle(a->ptr, at);
    else tdpBackendFree(a->ptr, at);
  }
  if (initialised) tdpBackendFinalize();
  initialised = 0;
  abort_on_error = abort_flag;
}

static tdpAlloc *track_find(const void *p) {
  const char *c = (const char *) p;
  for (int i = 0; i < nallocs; i++) {
    if (c >= allocs[i].ptr && c < allocs[i].ptr + allocs[i].nbytes) return allocs + i;
  }
  return NULL;
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

/* The reverse mistake, caught in a checked build: target memory passed as
 * the host side of a copy. */
static int check_host(const void *h, const char *what, tdpSite at) {
#ifdef TARGETDP_CHECK
  tdpAlloc *a = track_find(h);
  if (a && !a->unified && a->kind != TDP_ALLOC_PINNED)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%s (%p) is target memory, not host memory: arguments swapped?", what, h);
#else
  (void) h;
  (void) what;
  (void) at;
#endif
  return TARGET_SUCCESS;
}

int tdpCheckTarget(const void *t, size_t nbytes, const char *what, tdpSite at) {
  return check_room(t, nbytes, what, at);
}
int tdpCheckHost(const void *h, const char *what, tdpSite at) { return check_host(h, what, at); }

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

/* ---------------------------------------------------------------------- */

int tdpInit(const char *caller_config, const char *f, int l) {
  if (!caller_config || strcmp(caller_config, tdpBackendConfig()) != 0)
    return tdpFail(TARGET_ERROR_CONFIG, SITE("targetInit"),
                   "the program was compiled with [%s] but libtargetDP with [%s]; "
                   "rebuild both with the same TARGET, LAYOUT, VVL, SAL and TPB",
                   caller_config ? caller_config : "(null)", tdpBackendConfig());
  if (initialised) return TARGET_SUCCESS;
  int rc = tdpBackendInit(SITE("targetInit"));
  if (rc == TARGET_SUCCESS) initialised = 1;
  if (rc == TARGET_SUCCESS && getenv("TARGETDP_VERBOSE"))
    fprintf(stderr, "targetDP: %s\n", targetConfigString());
  return rc;
}

int tdpFinalize(const char *f, int l) {
  (void) f;
  (void) l;
  if (!initialised) return TARGET_SUCCESS;
  tdpAsyncFinalize();
  tdpBackendFinalize();
  initialised = 0;
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
  if (nbytes == 0) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size is zero");
  int rc = tdpBackendMalloc(t_ptr, nbytes, zero, unified, at);
  if (rc == TARGET_SUCCESS) track_add(*t_ptr, nbytes, unified);
#ifdef TARGETDP_CHECK
  /* Fresh target memory is NaN, so data never copied there shows up. */
  if (rc == TARGET_SUCCESS && !zero && nbytes >= sizeof(double))
    rc = tdpBackendSetConstant((double *) *t_ptr, NAN, nbytes / sizeof(double), at);
  if (rc == TARGET_SUCCESS && unified) rc = tdpBackendSynchronize(at); /* host may touch it */
#endif
  return rc;
}

int tdpFree(void *t_ptr, const char *f, int l) {
  tdpSite at = SITE("targetFree");
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
  if (a->nbytes >= sizeof(double))
    tdpBackendSetConstant((double *) t_ptr, NAN, a->nbytes / sizeof(double), at);
#endif
  track_remove(t_ptr);
  return tdpBackendFree(t_ptr, at);
}

int tdpCopy(void *dst, const void *src, size_t nbytes, int to_target, const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTarget" : "copyFromTarget");
  int rc = check_ptrs(dst, src, nbytes, at);
  if (rc == TARGET_SUCCESS)
    rc = check_room(to_target ? dst : src, nbytes, "the target array", at);
  if (rc == TARGET_SUCCESS) rc = check_host(to_target ? src : dst, "the host array", at);
  return rc ? rc : tdpBackendCopy(dst, src, nbytes, to_target, at);
}

int tdpCopyConst(void *t_symbol, const void *src, size_t nbytes, const char *f, int l) {
  tdpSite at = SITE("copyConstToTarget");
  int rc = check_ptrs(t_symbol, src, nbytes, at);
  if (rc == TARGET_SUCCESS) rc = check_host(src, "the host value", at);
  return rc ? rc : tdpBackendCopyConst(t_symbol, src, nbytes, at);
}

int tdpSetConstant(double *t_a, double value, size_t n, const char *f, int l) {
  tdpSite at = SITE(value == 0.0 ? "targetZero" : "targetSetConstant");
  int rc = check_ptrs(t_a, t_a, n, at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_a, n * sizeof(double), "the target array", at);
  return rc ? rc : tdpBackendSetConstant(t_a, value, n, at);
}

static int check_field(const void *dst, const void *src, int nsites, int ncomp,
                       int to_target, tdpSite at) {
  /* to_target: 1 dst is the target field, 0 src is, 2 both are plain
   * (unpadded) target arrays of nsites * ncomp. */
  int rc = check_ptrs(dst, src, 1, at);
  if (rc) return rc;
  if (nsites <= 0 || ncomp <= 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nsites %d and ncomp %d must be positive",
                   nsites, ncomp);
  /* Two large ints would wrap the byte count below into a small number
   * that passes the room check. */
  if ((size_t) ncomp > SIZE_MAX / 4 / sizeof(double) / TDP_NSITES_ALLOC(nsites))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nsites %d x ncomp %d is absurd", nsites,
                   ncomp);
  size_t nbytes = TDP_FIELD_SIZE(nsites, ncomp) * sizeof(double);
  if (to_target == 2) {
    nbytes = (size_t) nsites * ncomp * sizeof(double);
    rc = check_room(dst, nbytes, "the destination field", at);
    return rc ? rc : check_room(src, nbytes, "the source field", at);
  }
  rc = check_room(to_target ? dst : src, nbytes, "the target field", at);
  return rc ? rc : check_host(to_target ? src : dst, "the host field", at);
}

int tdpCopySites(double *dst, const double *src, int nsites, int ncomp, const int *sites,
                 int nlist, int to_target, const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTargetSites" : "copyFromTargetSites");
  int rc = check_field(dst, src, nsites, ncomp, to_target, at);
  if (rc) return rc;
  if (nlist < 0 || (nlist > 0 && !sites))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "bad site list");
  rc = check_host(sites, "the site list", at); /* read on the host */
  if (rc) return rc;
  for (int k = 0; k < nlist; k++) {
    if (sites[k] < 0 || sites[k] >= nsites)
      return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "site %d out of range [0, %d)",
                     sites[k], nsites);
  }
  if (nlist == 0) return TARGET_SUCCESS;
  return tdpBackendCopySites(dst, src, nsites, ncomp, sites, nlist, to_target, at);
}

int tdpCopyMasked(double *dst, const double *src, int nsites, int ncomp, const char *mask,
                  int to_target, const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTargetMasked" : "copyFromTargetMasked");
  int rc = check_field(dst, src, nsites, ncomp, to_target, at);
  if (rc) return rc;
  if (!mask) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL mask");
  rc = check_host(mask, "the mask", at); /* read on the host */
  if (rc) return rc;
  int *sites = (int *) malloc(sizeof(int) * nsites);
  if (!sites) return tdpFail(TARGET_ERROR_MEMORY, at, "no host memory for %d sites", nsites);
  int nlist = 0;
  for (int i = 0; i < nsites; i++) {
    if (mask[i]) sites[nlist++] = i;
  }
  rc = nlist ? tdpBackendCopySites(dst, src, nsites, ncomp, sites, nlist, to_target, at) : 0;
  free(sites);
  return rc;
}

/* Halo: sites within nhalo of a face. Edge: interior sites within nhalo of
 * the halo, i.e. what the neighbouring ranks' halos are filled from. Moved
 * as a few boxes through one buffer (targetDP_pack.c). */
int tdpCopy3D(double *dst, const double *src, const int extents[3], int nhalo, int ncomp,
              int to_target, const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyToTarget3DHalo" : "copyFromTarget3DEdge");
  if (!extents) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL extents");
  int rc = check_host(extents, "the extents", at); /* read on the host */
  if (rc) return rc;
  const int nx = extents[0], ny = extents[1], nz = extents[2];
  const long long twice = 2LL * nhalo; /* 2 * nhalo could overflow an int */
  if (nhalo < 1 || nx <= twice || ny <= twice || nz <= twice)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "extents %d x %d x %d must exceed twice nhalo = %d", nx, ny, nz, nhalo);
  /* Site indices are ints: a larger local lattice would wrap them. */
  const long long nsites = (long long) nx * ny * nz;
  if (nsites > INT_MAX)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "extents %d x %d x %d have %lld sites, more than an int can index", nx, ny,
                   nz, nsites);
  rc = check_field(dst, src, (int) nsites, ncomp, to_target, at);
  if (rc) return rc;
  const long ext[3] = {nx, ny, nz};
  return tdpCopy3DBoxes(dst, src, ext, nhalo, ncomp, to_target, at);
}

int tdpReduceDouble(double *res, const double *t_a, size_t n, int op, const char *f, int l) {
  static const char *names[] = {"targetDoubleSum", "targetDoubleMin", "targetDoubleMax"};
  tdpSite at = SITE(names[op]);
  int rc = check_ptrs(res, t_a, n, at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_a, n * sizeof(double), "the target array", at);
  if (rc == TARGET_SUCCESS) rc = check_host(res, "the result", at);
  return rc ? rc : tdpBackendReduceDouble(res, t_a, n, op, at);
}

int tdpReduceInt(long long *res, const int *t_a, size_t n, int op, const char *f, int l) {
  static const char *names[] = {"targetIntSum", "targetIntMin", "targetIntMax"};
  tdpSite at = SITE(names[op]);
  int rc = check_ptrs(res, t_a, n, at);
  if (rc == TARGET_SUCCESS) rc = check_room(t_a, n * sizeof(int), "the target array", at);
  if (rc == TARGET_SUCCESS) rc = check_host(res, "the result", at);
  return rc ? rc : tdpBackendReduceInt(res, t_a, n, op, at);
}

int tdpConvert(double *t_dst, const double *t_src, int nsites, int ncomp, int aos2soa,
               const char *f, int l) {
  tdpSite at = SITE(aos2soa ? "targetAoS2SoA" : "targetSoA2AoS");
  int rc = check_field(t_dst, t_src, nsites, ncomp, 2, at);
  if (rc == TARGET_SUCCESS && t_dst == t_src)
    rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "source and destination are the same array");
  return rc ? rc : tdpBackendConvert(t_dst, t_src, nsites, ncomp, aos2soa, at);
}

int tdpLaunchCheck(const char *kernel, const char *f, int l) {
  return tdpBackendLaunchCheck(kernel, SITE("TDP_LAUNCH"));
}

int tdpSynchronize(const char *what, const char *f, int l) {
  return tdpBackendSynchronize(SITE(what));
}
