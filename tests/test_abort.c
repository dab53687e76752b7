/*
 * test_abort.c -- the default error mode: a bad call prints a message
 * naming the call, the caller's file and line and the reason on stderr, and
 * the program exits with a non-zero status (1). Each bad call runs in a
 * forked child (tuRunChild) whose stderr is captured through a pipe.
 *
 * No group setup: the parent never initialises the target (on CUDA a
 * child must not inherit a context), the children do what they need.
 */
#include "test_util.h" /* first: it sets _POSIX_C_SOURCE for tuRunChild */

/* Each bad call: with run == 0 it only returns the source line of the
 * call (the line the message must name); with run != 0 it makes it. */
typedef int (*badCall)(int run);

static int badMallocZero(int run) {
  double *t = NULL;
  if (run) targetInit();
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

static int badBeforeInit(int run) {
  double h[4] = {0}, *t = h;
  int line = __LINE__ + 1;
  if (run) copyToTarget(t, h, sizeof(h));
  return line;
}

/* Issue 25 items 5 and 8: the 2014 launch (kernel __targetLaunch__(N)
 * (args)) ran before targetInit and after targetFinalize, and every
 * launch form ran a negative N (an overflowed int product) as nothing,
 * successfully. Each is refused like TDP_LAUNCH before the kernel runs. */
__targetEntry__ void kLegacy(double *a, int n) {
  __targetTLP__(baseIndex, n) {
    __targetILP__(vecIndex) a[baseIndex + vecIndex] += 1.0;
  }
}

static int badLegacyBeforeInit(int run) {
  double *h = NULL;
  int line = __LINE__ + 1;
  if (run) kLegacy __targetLaunch__(4) (h, 4);
  return line;
}

static int badLegacyAfterFinalize(int run) {
  double *t = NULL;
  if (run) targetInit();
  if (run) targetMalloc(&t, 4 * sizeof(double));
  if (run) targetFinalize(); /* frees t: the kernel would write freed memory */
  int line = __LINE__ + 1;
  if (run) kLegacy __targetLaunchReduce__(4) (t, 4);
  return line;
}

static int badLegacyNegative(int run) {
  double *t = NULL;
  const unsigned int nx = 1300;
  const int n = (int) (nx * nx * nx); /* overflowed: negative */
  if (run) targetInit();
  if (run) targetCalloc(&t, 4 * sizeof(double));
  int line = __LINE__ + 1;
  if (run) kLegacy __targetLaunchNoStride__(n) (t, n);
  return line;
}

static int badLaunchNegative(int run) {
  double *t = NULL;
  const unsigned int nx = 1300;
  const int n = (int) (nx * nx * nx);
  if (run) targetInit();
  if (run) targetCalloc(&t, 4 * sizeof(double));
  int line = __LINE__ + 1;
  if (run) TDP_LAUNCH(kLegacy, n, t, n);
  return line;
}

/* The forked child: make the bad call, which must not return. */
static int abortChild(void *arg) {
  badCall call = *(badCall *) arg;
  call(1);
  /* the bad call returned: wrong in the default mode */
  fprintf(stderr, "(the bad call returned instead of exiting)\n");
  return 99;
}

static void expectAbort(badCall call, const char *name, const char *reason) {
  char err[4096];
  int rc = tuRunChild(abortChild, &call, err, sizeof(err));
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
static void test_abort_before_init(void **state) {
  (void) state;
  expectAbort(badBeforeInit, "copyToTarget", "called before targetInit()");
}

static void test_abort_absurd_allocation(void **state) {
  (void) state;
  expectAbort(badAbsurd, "targetMalloc", "1152921504606846976");
}

static void test_abort_legacy_launch_before_init(void **state) {
  (void) state;
  expectAbort(badLegacyBeforeInit, "__targetLaunch__", "a 2014 launch before targetInit()");
}

static void test_abort_legacy_launch_after_finalize(void **state) {
  (void) state;
  expectAbort(badLegacyAfterFinalize, "__targetLaunch__", "a 2014 launch after targetFinalize()");
}

static void test_abort_legacy_launch_negative(void **state) {
  (void) state;
  expectAbort(badLegacyNegative, "__targetLaunch__", "over -2097967296 sites");
}

static void test_abort_launch_negative(void **state) {
  (void) state;
  expectAbort(badLaunchNegative, "TDP_LAUNCH", "kernel kLegacy not launched: -2097967296 sites");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_abort_malloc_zero),
      cmocka_unit_test(test_abort_config_mismatch),
      cmocka_unit_test(test_abort_bad_free),
      cmocka_unit_test(test_abort_copy_too_large),
      cmocka_unit_test(test_abort_absurd_allocation),
      cmocka_unit_test(test_abort_before_init),
      cmocka_unit_test(test_abort_legacy_launch_before_init),
      cmocka_unit_test(test_abort_legacy_launch_after_finalize),
      cmocka_unit_test(test_abort_legacy_launch_negative),
      cmocka_unit_test(test_abort_launch_negative),
  };
  return cmocka_run_group_tests_name("abort " TARGETDP_CONFIG, tests, NULL, NULL);
}
