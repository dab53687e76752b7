#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timer.h"

double timerNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1.0e-9 * (double) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void timerStats(const double *samples, int n, double *best, double *median) {
  if (n <= 0) {
    *best = *median = 0.0;
    return;
  }
  double *s = (double *) malloc(sizeof(double) * n);
  memcpy(s, samples, sizeof(double) * n);
  qsort(s, n, sizeof(double), cmp_double);
  *best = s[0];
  *median = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
}
