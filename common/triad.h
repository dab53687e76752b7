/* The STREAM triad a = b + s c through targetDP, for apps that quote their
 * kernels' bandwidth as a share of what this machine (GPU or CPU threads)
 * moves in the same run. Shared by the apps (apps/milc; apps/lb has its
 * own lbTriad, which can move here). */
#ifndef COMMON_TRIAD_H
#define COMMON_TRIAD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Best GB/s (24 bytes per element) of reps timed triads on arrays of n
 * doubles, after one warm-up. The result is checked (every element must
 * be 7); a wrong one prints a message and exits(1): no number is returned
 * for a kernel that did not compute. */
double triadBandwidth(long n, int reps);

#ifdef __cplusplus
}
#endif
#endif
