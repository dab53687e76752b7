/*
 * test_break.c -- break in a TLP body (issue 9 item 10). A TLP loop is
 * parallel: there is no "rest of the loop" that a break could skip in
 * every thread, so break is an error. Under OpenMP the compiler refuses it
 * (tests/suites/macros.sh tries); serially and on CUDA the loop stops the
 * program with the file:line of the loop, which is what these cases check
 * in a forked child. continue still goes on with the next site everywhere.
 */
#include "test_util.h"

#if defined(_OPENMP) && !defined(__CUDACC__)
#define TU_BREAK_COMPILES 0
#else
#define TU_BREAK_COMPILES 1
#endif

#define tuSkip(why)                        \
  do {                                     \
    print_message("# skipped: %s\n", why); \
    skip();                                \
  } while (0)

/* continue skips this site and goes on, in every backend */
TDP_KERNEL void kContinue(int *t_hit, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      long i = baseIndex + vecIndex;
      if (i % 3 == 1) continue;
      t_hit[i] = 1;
    }
  }
}

TDP_KERNEL void kContinueTlp(int *t_hit, int n) {
  TDP_TLP_NOSTRIDE(index, n) {
    if (index % 3 == 1) continue;
    t_hit[index] = 1;
  }
}

static void test_continue_goes_on(void **state) {
  (void) state;
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  for (int nostride = 0; nostride < 2; nostride++) {
    const int n = 1000 + VVL - 1;
    int *hit = (int *) tuMalloc(n * sizeof(int)), *t_hit = NULL;
    assert_int_equal(targetCalloc(&t_hit, n * sizeof(int)), TARGET_SUCCESS);
    if (nostride) TDP_LAUNCH_NOSTRIDE(kContinueTlp, n, t_hit, n);
    else TDP_LAUNCH(kContinue, n, t_hit, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(hit, t_hit, n * sizeof(int)), TARGET_SUCCESS);
    for (int i = 0; i < n; i++) assert_int_equal(hit[i], i % 3 == 1 ? 0 : 1);
    assert_int_equal(targetFree(t_hit), TARGET_SUCCESS);
    free(hit);
  }
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
}

#if TU_BREAK_COMPILES
/* the lines of the three loops below, for the messages */
enum { LINE_TLP = __LINE__ + 2, LINE_NOSTRIDE = __LINE__ + 9, LINE_SUM = __LINE__ + 17 };
TDP_KERNEL void kBreak(int *t_hit, int n, int stop) {
  TDP_TLP(baseIndex, n) {
    if (baseIndex >= stop) break;
    TDP_ILP(vecIndex) t_hit[baseIndex + vecIndex] = 1;
  }
}

TDP_KERNEL void kBreakNoStride(int *t_hit, int n, int stop) {
  TDP_TLP_NOSTRIDE(index, n) {
    if (index >= stop) break;
    t_hit[index] = 1;
  }
}

TDP_KERNEL void kBreakSum(int n, int stop, double *t_sum) {
  double s = 0.0;
  TDP_TLP_SUM(baseIndex, n, s) {
    if (baseIndex >= stop) break;
    TDP_ILP_SUM(vecIndex, s) s += 1.0;
  }
  targetBlockAddDouble(t_sum, s);
}

/* The forked child: init, launch a kernel that breaks, synchronise. It
 * must not get to return 0. */
static int breakChild(void *arg) {
  int which = *(int *) arg, n = 4096;
  int *t_hit = NULL;
  double *t_sum = NULL;
  targetInit();
  targetCalloc(&t_hit, n * sizeof(int));
  targetCalloc(&t_sum, sizeof(double));
  if (which == 0) TDP_LAUNCH(kBreak, n, t_hit, n, 100);
  if (which == 1) TDP_LAUNCH_NOSTRIDE(kBreakNoStride, n, t_hit, n, 100);
  if (which == 2) TDP_LAUNCH_REDUCE(kBreakSum, n, n, 100, t_sum);
  targetSynchronize();
  fprintf(stderr, "(the kernel with a break ran to the end)\n");
  return 0;
}

static void expectBreakStops(int which, const char *what, int line) {
  char out[4096];
  int rc = tuRunChild(breakChild, &which, out, sizeof(out));
  tuSetContext("%s: exit status %d, output \"%.120s\"", what, rc, out);
  if (rc == 0) fail_msg("[%s] a break in a TLP body must stop the program", tu_context);
  tuAssertContains(out, "targetDP: ");
#ifndef __CUDACC__
  /* the host names the loop; a GPU trap may lose its printf */
  char want[128];
  snprintf(want, sizeof(want), "break in a TDP_TLP loop at tests/test_break.c:%d", line);
  tuAssertContains(out, want);
#else
  (void) line;
#endif
}

static void test_break_stops(void **state) {
  (void) state;
  expectBreakStops(0, "TDP_TLP", LINE_TLP);
  expectBreakStops(1, "TDP_TLP_NOSTRIDE", LINE_NOSTRIDE);
  expectBreakStops(2, "TDP_TLP_SUM", LINE_SUM);
}
#else
static void test_break_stops(void **state) {
  (void) state;
  tuSkip("OpenMP: break in a TLP body does not compile (tests/suites/macros.sh)");
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_break_stops),
      cmocka_unit_test(test_continue_goes_on),
  };
  return cmocka_run_group_tests_name("break " TARGETDP_CONFIG, tests, NULL, NULL);
}
