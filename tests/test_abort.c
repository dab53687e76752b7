/*
 * test_abort.c -- the default error mode: a bad call prints a message
 * naming the call, the caller's file and line and the reason on stderr, and
 * the program exits with a non-zero status (1). Each bad call runs in a
 * forked child whose stderr is captured through a pipe.
 *
 * No group setup: the parent never initialises the target (on CUDA a
 * child must not inherit a context), the children do what they need.
 */
#define _POSIX_C_SOURCE 200809L /* fork, pipe, dup2 */
#include <errno.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* Each bad call: with run == 0 it only returns the source line of the
 * call (the line the message must name); with run != 0 it makes it. */
typedef int (*badCall)(int run);

static int badMallocZero(int run) {
  double *t = NULL;
  int line = __LINE__ + 1;
  if (run) targetMalloc(&t, 0);
  return line;
}

static int badConfig(int run) {
  int line = __LINE__ + 1;
  if (run) tdpInit("backend=x layout=AOS VVL=9 SAL=9 TPB=128", __FILE__, __LINE__);
  return line;
}

static int badFree(int run) {
  static double host[4];
  if (run) targetInit();
  int line = __LINE__ + 1;
  if (run) targetFree(host);
  return line;
}

static int badCopy(int run) {
  double *t = NULL, h[16] = {0};
  if (run) targetInit();
  if (run) targetMalloc(&t, 8 * sizeof(double));
  int line = __LINE__ + 1;
  if (run) copyToTarget(t, h, 16 * sizeof(double));
  return line;
}

static int badAbsurd(int run) {
  double *t = NULL;
  if (run) targetInit();
  int line = __LINE__ + 1;
  if (run) targetMalloc(&t, (size_t) 1 << 60);
  return line;
}

/* Run call in a child; return its exit status (or 128 + signal) and its
 * stderr in buf. */
static int runChild(badCall call, char *buf, size_t nbuf) {
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  fflush(NULL); /* or the child flushes the parent's buffered output again */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 2);
    close(fd[1]);
    call(1);
    /* the bad call returned: wrong in the default mode */
    fprintf(stderr, "(the bad call returned instead of exiting)\n");
    fflush(stderr);
    _exit(99);
  }
  close(fd[1]);
  size_t len = 0;
  for (;;) {
    ssize_t got = read(fd[0], buf + len, nbuf - 1 - len);
    if (got > 0) len += (size_t) got;
    else if (got == 0 || errno != EINTR || len == nbuf - 1) break;
    if (len == nbuf - 1) break;
  }
  buf[len] = '\0';
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) assert_int_equal(errno, EINTR);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

static void expectAbort(badCall call, const char *name, const char *reason) {
  char err[4096];
  int rc = runChild(call, err, sizeof(err));
  tuSetContext("%s: exit status %d, stderr \"%.120s\"", name, rc, err);
  if (rc != 1) fail_msg("[%s] want exit status 1", tu_context);
  char want[128];
  snprintf(want, sizeof(want), "targetDP: %s failed at ", name);
  tuAssertContains(err, want);
  snprintf(want, sizeof(want), "test_abort.c:%d: ", call(0));
  tuAssertContains(err, want);
  tuAssertContains(err, reason);
}

static void test_abort_malloc_zero(void **state) {
  (void) state;
  expectAbort(badMallocZero, "targetMalloc", "size is zero");
}

static void test_abort_config_mismatch(void **state) {
  (void) state;
  expectAbort(badConfig, "targetInit", "rebuild");
}

static void test_abort_bad_free(void **state) {
  (void) state;
  expectAbort(badFree, "targetFree", "not a live target allocation");
}

static void test_abort_copy_too_large(void **state) {
  (void) state;
  expectAbort(badCopy, "copyToTarget", "only 64 remain");
}

static void test_abort_absurd_allocation(void **state) {
  (void) state;
  expectAbort(badAbsurd, "targetMalloc", "1152921504606846976");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_abort_malloc_zero),
      cmocka_unit_test(test_abort_config_mismatch),
      cmocka_unit_test(test_abort_bad_free),
      cmocka_unit_test(test_abort_copy_too_large),
      cmocka_unit_test(test_abort_absurd_allocation),
  };
  return cmocka_run_group_tests_name("abort " TARGETDP_CONFIG, tests, NULL, NULL);
}
