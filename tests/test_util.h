/*
 * test_util.h -- helpers shared by the targetDP unit tests (cmocka).
 *
 * The tests are compiled as C99 by the C backend and as CUDA C++ by nvcc
 * (-x cu) under TARGET=cuda, so everything here, and in the tests, must be
 * valid in both languages: cast malloc, no designated initialisers, no VLAs.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

/* cmocka needs these first. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h has no extern "C" of its own. */
#ifdef __cplusplus
extern "C" {
#endif
#include <cmocka.h>
#ifdef __cplusplus
}
#endif

#include "targetDP.h"

/* ---------------------------------------------------------------------- */
/* Deterministic pseudo-random numbers (xorshift64*), the same on every
 * backend and compiler, so a failure can be reproduced. */

typedef struct {
  uint64_t s;
} tuRng;

static inline void tuSeed(tuRng *r, uint64_t seed) {
  r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (r->s == 0) r->s = 1;
}

static inline uint64_t tuNext(tuRng *r) {
  uint64_t x = r->s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, 1). */
static inline double tuUniform(tuRng *r) {
  return (double) (tuNext(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [lo, hi]. */
static inline int tuInt(tuRng *r, int lo, int hi) {
  uint64_t span = (uint64_t) ((int64_t) hi - (int64_t) lo + 1);
  return (int) ((int64_t) lo + (int64_t) (tuNext(r) % span));
}

/* n doubles in [lo, hi), never exactly zero and never all equal, so a test
 * cannot pass by accident on a zeroed or constant array. */
static inline void tuFillDouble(double *a, size_t n, double lo, double hi, uint64_t seed) {
  tuRng r;
  tuSeed(&r, seed);
  for (size_t i = 0; i < n; i++) {
    double v = lo + (hi - lo) * tuUniform(&r);
    a[i] = (v == 0.0) ? 0.5 * (lo + hi) + 0.125 : v;
  }
  if (n >= 2 && a[0] == a[1]) a[1] = a[0] + 0.25;
}

/* n ints in [lo, hi] (lo < hi), never all zero. */
static inline void tuFillInt(int *a, size_t n, int lo, int hi, uint64_t seed) {
  tuRng r;
  tuSeed(&r, seed);
  for (size_t i = 0; i < n; i++) a[i] = tuInt(&r, lo, hi);
  if (n >= 1 && a[0] == 0) a[0] = (hi != 0) ? hi : lo;
  if (n >= 2 && a[0] == a[1]) a[1] = (a[0] == hi) ? lo : hi;
}

/* ---------------------------------------------------------------------- */
/* Host memory and assertions. */

static inline void *tuMalloc(size_t nbytes) {
  void *p = malloc(nbytes > 0 ? nbytes : 1);
  assert_non_null(p);
  return p;
}

/* Assert that string s contains sub, printing both if it does not. */
#define tuAssertContains(s, sub)                                              \
  do {                                                                        \
    const char *tu_s_ = (s);                                                  \
    const char *tu_sub_ = (sub);                                              \
    if (tu_s_ == NULL || strstr(tu_s_, tu_sub_) == NULL)                      \
      fail_msg("expected \"%s\" in the message \"%s\"", tu_sub_,              \
               tu_s_ ? tu_s_ : "(null)");                                     \
  } while (0)

/* What the test is doing now (site count, layout case...), printed with
 * every failure from the helpers below. */
#ifdef __GNUC__
__attribute__((unused))
#endif
static char tu_context[200] = "";
#define tuSetContext(...) snprintf(tu_context, sizeof(tu_context), __VA_ARGS__)

/* got == want exactly, or within a relative tolerance of want. */
#define tuAssertClose(got, want, rel)                                          \
  do {                                                                         \
    double tu_g_ = (got), tu_w_ = (want);                                      \
    if (!(fabs(tu_g_ - tu_w_) <= (rel) * fabs(tu_w_)))                         \
      fail_msg("[%s] %s = %.17g, want %.17g (relative tolerance %g)",          \
               tu_context, #got, tu_g_, tu_w_, (double) (rel));                \
  } while (0)

/* Count mismatches in a loop; report the first one and fail at the end. */
typedef struct {
  long nbad;
  long first;
  double got, want;
} tuCheck;

static inline void tuCheckInit(tuCheck *c) {
  c->nbad = 0;
  c->first = -1;
  c->got = c->want = 0.0;
}

static inline void tuCheckEq(tuCheck *c, long i, double got, double want) {
  if (got != want) {
    if (c->nbad++ == 0) {
      c->first = i;
      c->got = got;
      c->want = want;
    }
  }
}

#define tuCheckDone(c, what, n)                                                  \
  do {                                                                           \
    if ((c)->nbad)                                                               \
      fail_msg("[%s] %s: %ld of %ld values wrong; first at %ld: got %.17g, want %.17g", \
               tu_context, (what), (c)->nbad, (long) (n), (c)->first, (c)->got,     \
               (c)->want);                                                          \
  } while (0)

/* ---------------------------------------------------------------------- */
/* Group setup and teardown: every test binary runs inside targetInit(). */

static inline int tuSetup(void **state) {
  (void) state;
  return targetInit() == TARGET_SUCCESS ? 0 : -1;
}

static inline int tuTeardown(void **state) {
  (void) state;
  return targetFinalize() == TARGET_SUCCESS ? 0 : -1;
}

/* Site counts that are and are not multiples of VVL (and SAL), including
 * a single site, one short of a stride, and more than one CUDA block. */
#define TU_NSIZES 11
static inline int tuSize(int k) {
  const int sizes[TU_NSIZES] = {1, (VVL > 1 ? VVL - 1 : 2), VVL, VVL + 1, 2 * VVL + 1,
                                SAL + 3, 1000, 1003, 12345,
                                3 * VVL * TARGET_TPB + 5, 3 * VVL * TARGET_TPB};
  return sizes[k];
}

#endif /* TEST_UTIL_H */
