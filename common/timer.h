/* Wall-clock timing and summary statistics shared by apps and benchmarks.
 * Callers synchronise the target (targetSynchronize) before reading the
 * clock, so a GPU kernel is timed to its completion. */
#ifndef COMMON_TIMER_H
#define COMMON_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

double timerNow(void); /* seconds, monotonic */

/* Best (minimum) and median of n samples; samples are not modified. The
 * caller leaves out the first (warm-up) iteration. */
void timerStats(const double *samples, int n, double *best, double *median);

#ifdef __cplusplus
}
#endif
#endif
