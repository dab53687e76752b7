/*
 * targetDP_team_C.c -- teams on the C backend (targetDP_team.h): a team is
 * one OpenMP thread, so a launch only checks the team's shape, records it
 * for the kernel's TDP_TEAMS loops and gives each OpenMP thread a scratch
 * buffer (kept and grown from launch to launch, freed by targetFinalize).
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

tdpTeamLaunch_ tdpTeamNow_ = {0, 0, 0, 0, 0, 0, NULL};
static size_t buf_bytes = 0; /* allocated */

void tdpTeamFail_(const char *what, const char *file, int line) {
  /* every thread may get here at once: one message, one exit */
  TDP_OMP_(critical(tdp_team_fail_)) {
    fprintf(stderr, "targetDP: %s at %s:%d\n", what, file ? file : "?", line);
    fflush(stderr);
    exit(1);
  }
}

int tdpTeamLaunchBegin_(const void *func, const char *kernel, long nteams, long nthreads,
                        long nlanes, size_t scratch_bytes, const char *f, int l) {
  (void) func;
  if (tdpTeamNow_.active)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, (tdpSite){"TDP_LAUNCH_TEAMS", f, l},
                   "kernel %s launched inside another team launch", kernel);
  /* The same limit as the GPU's (TDP_TEAM_SCRATCH_MAX), and no launch
   * bounds to check: a team is one thread here. */
  int rc = tdpTeamCheck_(kernel, nteams, nthreads, nlanes, scratch_bytes, 0, "",
                         (size_t) TDP_TEAM_SCRATCH_MAX,
                         "that TDP_TEAM_SCRATCH_MAX allows (the H100's shared memory per "
                         "block, so that what runs here fits the GPU)", f, l);
  if (rc) return rc;
#ifdef _OPENMP
  const size_t nthr = (size_t) omp_get_max_threads();
#else
  const size_t nthr = 1;
#endif
  /* 64-byte aligned buffers a whole number of cache lines apart: no two
   * threads' scratch share a line. */
  const size_t stride = (scratch_bytes + 63) & ~(size_t) 63;
  const size_t need = nthr * stride > 64 ? nthr * stride : 64; /* never a NULL base */
  if (need > buf_bytes) {
    void *p = NULL;
    free(tdpTeamNow_.buf);
    tdpTeamNow_.buf = posix_memalign(&p, 64, need) == 0 ? (char *) p : NULL;
    buf_bytes = tdpTeamNow_.buf ? need : 0;
    if (!tdpTeamNow_.buf)
      return tdpFail(TARGET_ERROR_MEMORY, (tdpSite){"TDP_LAUNCH_TEAMS", f, l},
                     "kernel %s: no memory for %zu threads' team scratch of %zu bytes", kernel,
                     nthr, scratch_bytes);
  }
  tdpTeamNow_.nteams = nteams;
  tdpTeamNow_.nthreads = (int) nthreads;
  tdpTeamNow_.nlanes = (int) nlanes;
  tdpTeamNow_.scratch = scratch_bytes;
  tdpTeamNow_.stride = stride;
  tdpTeamNow_.active = 1;
  return TARGET_SUCCESS;
}

char *tdpTeamThreadScratch_(void) {
#ifdef _OPENMP
  return tdpTeamNow_.buf + (size_t) omp_get_thread_num() * tdpTeamNow_.stride;
#else
  return tdpTeamNow_.buf;
#endif
}

void tdpTeamLaunchEnd_(void) { tdpTeamNow_.active = 0; }

void tdpTeamFinalize_(void) {
  free(tdpTeamNow_.buf);
  tdpTeamNow_.buf = NULL;
  buf_bytes = 0;
  tdpTeamNow_.active = 0;
}
