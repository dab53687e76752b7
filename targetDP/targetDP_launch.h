/*
 * targetDP_launch.h -- the checks every launch form calls (TDP_LAUNCH and
 * its variants, in the backends' headers and the modules) and the wait for
 * the target behind targetSynchronize and checkTargetError. Implemented by
 * targetDP_common.c and the backends. Included by targetDP.h inside its
 * extern "C" block; not a header to include on its own. Declarations only.
 */
#ifndef TARGETDP_H
#error "targetDP_launch.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_LAUNCH_H
#define TARGETDP_LAUNCH_H

/* Called by every launch form before the kernel (form names it: "TDP_LAUNCH",
 * "TDP_LAUNCH_STREAM", ...): the layer is live (targetInit called, not yet
 * targetFinalize) and the extent n is not negative, which only an int
 * product that overflowed gives (nx * ny * nz past 2^31); refused, the
 * kernel does not run. */
int tdpLaunchBegin_(const char *form, const char *kernel, long n, const char *f, int l);
/* Called by TDP_LAUNCH on CUDA right after kernel<<<...>>>: a launch that
 * failed is reported with the kernel's name and the launch's file:line. */
int tdpLaunchCheck_(const char *kernel, const char *f, int l);
/* The 2014 launch, kernel __targetLaunch__(N) (args) (targetDP_compat.h):
 * tdpLaunchBegin_'s checks, with no kernel name to give. On the C backend
 * the check rides in the kernel's first argument and cannot skip the call,
 * so a refusal stops the program in either error mode. */
int tdpLegacyLaunch_(long n, const char *f, int l);
/* Called by TDP_LAUNCH_TPB before the launch: tpb a multiple of 32 in [32, 1024]. */
int tdpLaunchTpbCheck_(const char *kernel, long tpb, const char *f, int l);
/* Called by TDP_LAUNCH_LANES before the launch: 1, 2, 4, 8 or 16 below vvl, or vvl. */
int tdpLaunchLanesCheck_(const char *kernel, long lanes, int vvl, const char *f, int l);

/* Wait for the target; on CUDA also reports a failed kernel launch. */
int tdpSynchronize(const char *what, const char *f, int l);

#endif /* TARGETDP_LAUNCH_H */
