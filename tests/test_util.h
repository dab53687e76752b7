/*
 * test_util.h -- helpers shared by the targetDP unit tests (cmocka).
 *
 * The tests are compiled as C99 by the C backend and as CUDA C++ by nvcc
 * (-x cu) under TARGET=cuda, so everything here, and in the tests, must be
 * valid in both languages: cast malloc, no designated initialisers, no VLAs.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

/* POSIX (fork, pipe, dup2, waitpid, setrlimit) for tuRunChild and the tests
 * that fork; it must come before any system header, so every test includes
 * this header first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/* cmocka needs these first. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The last component of a path ("tests/test_errors.c" -> "test_errors.c"). */
static inline const char *tuBaseName(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Assert that an API call (in error-code mode, targetSetErrorAbort(0))
 * failed with code, and that its message names the call, the calling test
 * file ("<file>.c:") and contains sub. name and sub are string literals. */
#define expectError(call, code, name, sub)                                         \
  do {                                                                             \
    int rc_ = (call);                                                              \
    char tu_file_[128];                                                            \
    if (rc_ != (code))                                                             \
      fail_msg("%s returned %d, want %d (%s); last message: %s", #call, rc_,       \
               (int) (code), #code, targetLastErrorString());                      \
    assert_int_equal(targetLastError(), (code));                                   \
    tuAssertContains(targetLastErrorString(), "targetDP: " name " failed at ");    \
    snprintf(tu_file_, sizeof(tu_file_), "%s:", tuBaseName(__FILE__));            \
    tuAssertContains(targetLastErrorString(), tu_file_);                           \
    tuAssertContains(targetLastErrorString(), sub);                                \
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
/* Forked children, for calls that end the program. */

/* Skip the calling test where TDP_TEST_NO_FORK is set: tests/run_tests.sh
 * sets it under compute-sanitizer, whose memcheck counts each thread of a
 * child's deliberate device trap as an error (the plain GPU runs check the
 * children). For tests whose child stops the program on the device. */
#define TU_SKIP_IF_NO_FORK()                                      \
  do {                                                            \
    if (getenv("TDP_TEST_NO_FORK")) {                             \
      print_message("# skipped: TDP_TEST_NO_FORK is set\n");     \
      skip();                                                     \
    }                                                             \
  } while (0)

/* Run child(arg) in a forked child with stdout and stderr (a GPU's printf
 * goes to stdout) captured in buf (NUL-terminated, cut at nbuf - 1 bytes);
 * the child exits with child's return value. Return its exit status, or
 * 128 + the signal that killed it. The child never returns into cmocka. */
static inline int tuRunChild(int (*child)(void *), void *arg, char *buf, size_t nbuf) {
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  fflush(NULL); /* or the child writes the parent's buffered output again */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[1]);
    int rc = child(arg);
    fflush(NULL);
    _exit(rc);
  }
  close(fd[1]);
  size_t len = 0;
  for (;;) {
    ssize_t got = read(fd[0], buf + len, nbuf - 1 - len);
    if (got > 0) len += (size_t) got;
    else if (got == 0 || errno != EINTR) break;
    if (len == nbuf - 1) break;
  }
  buf[len] = '\0';
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) assert_int_equal(errno, EINTR);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

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
