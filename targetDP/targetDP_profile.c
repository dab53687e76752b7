/*
 * targetDP_profile.c -- the per-name timer table of a profiling build
 * (make PROFILE=1, -DTARGETDP_PROFILE): launches (TDP_LAUNCH*) and library
 * calls are timed by the backend (C: the wall clock; CUDA: events around
 * the call, then a wait for the second one, and an NVTX range named after
 * it for Nsight Systems); here the times are added up per name and printed
 * at targetFinalize. Backend-independent.
 *
 * A launch is asynchronous on CUDA: timing it exactly means waiting for it,
 * which is why this costs a synchronisation per launch and why it exists
 * only in the profiling build.
 */
#include <stdio.h>
#include <string.h>

/* Built by the host C compiler in every backend's library: the backend
 * object carries the configuration mark (targetDP.h), not this one. */
#ifndef TDP_NO_CONFIG_MARK
#define TDP_NO_CONFIG_MARK
#endif
#include "targetDP_internal.h"

#define MAX_NAMES 256
#define MAX_DEPTH 16

typedef struct {
  char name[64];
  long calls;
  double seconds;
  double bytes;          /* moved by all calls, as declared */
  double bytes_per_call; /* targetProfileBytes: for each later call */
  long calls_without_bytes;
} profEntry;

static profEntry table[MAX_NAMES];
static int nentries = 0;
static int dropped = 0; /* names beyond MAX_NAMES */

/* Calls in flight: a library call may launch the layer's own kernels. */
static struct {
  const char *name;
  double bytes;
} stack[MAX_DEPTH];
static int depth = 0;

static profEntry *entry(const char *name) {
  for (int i = 0; i < nentries; i++) {
    if (strncmp(table[i].name, name, sizeof(table[i].name) - 1) == 0) return table + i;
  }
  if (nentries == MAX_NAMES) {
    dropped++;
    return NULL;
  }
  memset(table + nentries, 0, sizeof(profEntry));
  snprintf(table[nentries].name, sizeof(table[nentries].name), "%s", name);
  return table + nentries++;
}

void targetProfileBytes(const char *name, double bytes) {
  profEntry *e = name ? entry(name) : NULL;
  if (e) e->bytes_per_call = bytes;
}

void tdpProfileStart_(const char *name, double bytes) {
  if (depth < MAX_DEPTH) {
    stack[depth].name = name;
    stack[depth].bytes = bytes;
    tdpBackendProfileStart(depth, name);
  }
  depth++;
}

int tdpProfileStop_(const char *name, int rc) {
  if (depth == 0) return rc;
  depth--;
  if (depth >= MAX_DEPTH) return rc;
  double s = tdpBackendProfileStop(depth);
  profEntry *e = entry(name ? name : stack[depth].name);
  if (!e) return rc;
  double bytes = stack[depth].bytes > 0.0 ? stack[depth].bytes : e->bytes_per_call;
  e->calls++;
  e->seconds += s;
  e->bytes += bytes;
  if (bytes <= 0.0) e->calls_without_bytes++;
  return rc;
}

void targetProfilePrint(FILE *f) {
  if (!f) return;
#ifdef TARGETDP_PROFILE
  fprintf(f, "targetDP profile: %s\n", targetConfigString());
  fprintf(f, "targetDP profile: %-28s %8s %12s %12s %12s %10s\n", "name", "calls", "total s",
          "mean us", "bytes/call", "GB/s");
  for (int i = 0; i < nentries; i++) {
    const profEntry *e = table + i;
    if (e->calls == 0) continue;
    char gbs[32] = "-", bpc[32] = "-";
    /* GB/s only where every call declared its bytes: a partial figure misleads */
    if (e->calls_without_bytes == 0 && e->seconds > 0.0) {
      snprintf(gbs, sizeof(gbs), "%.2f", e->bytes / e->seconds * 1e-9);
      snprintf(bpc, sizeof(bpc), "%.4g", e->bytes / e->calls);
    }
    fprintf(f, "targetDP profile: %-28s %8ld %12.6f %12.2f %12s %10s\n", e->name, e->calls,
            e->seconds, 1e6 * e->seconds / e->calls, bpc, gbs);
  }
  if (dropped) fprintf(f, "targetDP profile: %d calls of names beyond the first %d not shown\n",
                       dropped, MAX_NAMES);
#else
  fprintf(f, "targetDP profile: not a profiling build (make PROFILE=1)\n");
#endif
}

/* targetFinalize: print the table once and start afresh. */
void tdpProfileFinalize_(void) {
#ifdef TARGETDP_PROFILE
  targetProfilePrint(stderr);
#endif
  nentries = 0;
  dropped = 0;
  depth = 0;
}
