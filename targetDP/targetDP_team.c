/*
 * targetDP_team.c -- the checks of a team launch that both backends share
 * (targetDP_team.h): league size, team shape, scratch size against what
 * the kernel and the device allow. Each backend's part
 * (targetDP_team_C.c, targetDP_team_CUDA.cu) finds the limits and calls
 * tdpTeamCheck_. Uses only the error machinery of targetDP_internal.h.
 */
/* Compiled by the host C compiler in a CUDA build too: the backend's
 * object carries the library's configuration mark (targetDP.h), not this. */
#ifndef TDP_NO_CONFIG_MARK
#define TDP_NO_CONFIG_MARK
#endif
#include "targetDP_internal.h"

#define SITE(name) ((tdpSite){name, f, l})

int tdpTeamCheck_(const char *kernel, long nteams, long nthreads, long nlanes,
                  size_t scratch_bytes, long threads_max, const char *why_threads,
                  size_t scratch_max, const char *why_scratch, const char *f, int l) {
  tdpSite at = SITE("TDP_LAUNCH_TEAMS");
  int rc = tdpCheckLive(at);
  if (rc) return rc;
  if (nteams < 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "kernel %s: %ld teams (the league size "
                   "must be 0 or more)", kernel, nteams);
  /* A thread's lanes are neighbours in one warp (their reductions are
   * warp shuffles), so a power of two up to 32. */
  if (nlanes < 1 || nlanes > 32 || (nlanes & (nlanes - 1)))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "kernel %s: %ld lanes per thread (1, 2, 4, "
                   "8, 16 or 32: a thread's lanes are part of one warp)", kernel, nlanes);
  /* Whole warps (the team reductions shuffle over full warps) and at most
   * a CUDA block; the C backend refuses the same teams, so that a program
   * that runs on the CPU launches on the GPU. */
  if (nthreads < 1 || nthreads * nlanes > 1024 || (nthreads * nlanes) % 32)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "kernel %s: a team of %ld threads x %ld "
                   "lanes (a team must be whole warps: threads x lanes a multiple of 32, from "
                   "32 to 1024)", kernel, nthreads, nlanes);
  if (threads_max > 0 && nthreads * nlanes > threads_max)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "kernel %s: a team of %ld threads x %ld "
                   "lanes = %ld, but %s allow at most %ld", kernel, nthreads, nlanes,
                   nthreads * nlanes, why_threads, threads_max);
  if (scratch_bytes > scratch_max)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "kernel %s: %zu bytes of team scratch, more "
                   "than the %zu bytes %s", kernel, scratch_bytes, scratch_max, why_scratch);
  return TARGET_SUCCESS;
}
