/*
 * test_launch.c -- launch forms and launch errors. TDP_LAUNCH_TPB runs a
 * TDP_KERNEL_TPB kernel with its own block size over every site once. On
 * CUDA, a launch the GPU cannot run (more threads than the kernel's launch
 * bounds, more than a block can hold) is reported at once with the kernel's
 * name and the file:line of the launch; on the C backend a kernel is a
 * function call and such a launch does not exist (the case is skipped).
 */
#include "test_util.h"

TDP_KERNEL void klCount(int *visits, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) visits[base + v] += 1;
  }
}

TDP_KERNEL_TPB(64) void klCount64(int *visits, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) visits[base + v] += 1;
  }
}

/* Every site visited exactly once by a launch with its own block size. */
static void test_launch_tpb_every_site_once(void **state) {
  (void) state;
  for (int k = 0; k < TU_NSIZES; k++) {
    int n = tuSize(k);
    tuSetContext("n = %d", n);
    int *t = NULL, *h = (int *) tuMalloc((n + 1) * sizeof(int));
    assert_int_equal(targetCalloc(&t, (n + 1) * sizeof(int)), TARGET_SUCCESS);
    TDP_LAUNCH_TPB(klCount64, n, 64, t, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    TDP_LAUNCH(klCount, n, t, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(h, t, (n + 1) * sizeof(int)), TARGET_SUCCESS);
    for (int i = 0; i < n; i++) {
      if (h[i] != 2) fail_msg("[%s] site %d visited %d times, want 2", tu_context, i, h[i]);
    }
    assert_int_equal(h[n], 0); /* guard */
    assert_int_equal(targetFree(t), TARGET_SUCCESS);
    free(h);
  }
}

#ifdef __CUDACC__
/* The launch on line `line` failed with the kernel's name and that line. */
static void expectLaunchError(const char *kernel, int line, targetError_t code) {
  char want[160];
  assert_int_equal(targetLastError(), code);
  snprintf(want, sizeof(want), "targetDP: TDP_LAUNCH failed at %s:%d: kernel %s failed to launch",
           __FILE__, line, kernel);
  tuAssertContains(targetLastErrorString(), want);
}
#endif

static void test_impossible_launch_named(void **state) {
  (void) state;
#ifdef __CUDACC__
  int n = 1000, *t = NULL, line;
  assert_int_equal(targetCalloc(&t, n * sizeof(int)), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  /* more threads than klCount64's launch bounds */
  line = __LINE__ + 1;
  TDP_LAUNCH_TPB(klCount64, n, 128, t, n);
  expectLaunchError("klCount64", line, TARGET_ERROR_DEVICE);
  /* more threads than any block holds */
  line = __LINE__ + 1;
  TDP_LAUNCH_TPB(klCount, n, 2048, t, n);
  expectLaunchError("klCount", line, TARGET_ERROR_INVALID_VALUE);
  targetSetErrorAbort(1);
  /* the errors were not sticky: the GPU still works, nothing ran */
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  int h[4] = {1, 1, 1, 1};
  assert_int_equal(copyFromTarget(h, t, sizeof(h)), TARGET_SUCCESS);
  assert_true(h[0] == 0 && h[1] == 0 && h[2] == 0 && h[3] == 0);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
#else
  /* cmocka's skip() takes no reason: print it first (a TAP comment) */
  print_message("# skipped: C backend: a kernel is a function call, no launch can fail\n");
  skip();
#endif
}

/* Issue 25 item 5: a launch over a negative extent (an int nx * ny * nz
 * that overflowed) ran nothing and succeeded, on both backends. Every
 * launch form refuses it before the kernel runs, naming the form, the
 * kernel and the file:line of the launch; so does a box launch over a box
 * that is not one (made by hand, past the checked constructors). The
 * kernels mark that they ran, outside their loops. */
TDP_KERNEL void klTouch(int *ran, long n) {
  ran[0] = 1;
  TDP_TLP(base, n) {
    TDP_ILP(v) ran[1] = 1;
  }
}
TDP_KERNEL void klTouchReduce(int *ran, long n, double *t_sum) {
  double s = 0.0;
  ran[0] = 1;
  TDP_TLP_SUM(base, n, s) {
    TDP_ILP_REDUCE(v) s += 1.0;
  }
  targetBlockAddDouble(t_sum, s);
}
TDP_KERNEL_TPB(64) void klTouch64(int *ran, long n) {
  ran[0] = 1;
  TDP_TLP(base, n) {
    TDP_ILP(v) ran[1] = 1;
  }
}
TDP_KERNEL_LANES void klTouchLanes(int *ran, long n) {
  ran[0] = 1;
  TDP_TLP(base, n) {
    TDP_ILP(v) ran[1] = 1;
  }
}
TDP_KERNEL void klTouchBox(targetBox box, int *ran) {
  ran[0] = 1;
  TDP_TLP_3D(box, x, y, z0, base) {
    TDP_ILP(v) ran[1] = (base + v >= 0);
  }
}

/* The launch on line `line` was refused by form, naming the kernel and sub. */
static void expectRefused(const char *form, const char *kernel, int line, const char *sub) {
  char want[200];
  if (targetLastError() != TARGET_ERROR_INVALID_VALUE)
    fail_msg("the %s of %s at line %d was not refused (last error %d: %s)", form, kernel, line,
             (int) targetLastError(), targetLastErrorString());
  snprintf(want, sizeof(want), "targetDP: %s failed at %s:%d: kernel %s not launched", form,
           __FILE__, line, kernel);
  tuAssertContains(targetLastErrorString(), want);
  tuAssertContains(targetLastErrorString(), sub);
}

static void test_launch_negative_extent(void **state) {
  (void) state;
  /* 1300^3 sites overflow an int: what nx * ny * nz gives with int extents */
  const unsigned int nx = 1300;
  const int n = (int) (nx * nx * nx);
  assert_true(n < 0);
  int *t_ran = NULL, ran[2] = {0, 0}, line;
  double *t_sum = NULL;
  targetStream_t s = NULL;
  assert_int_equal(targetCalloc(&t_ran, 2 * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_sum, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  line = __LINE__ + 1;
  TDP_LAUNCH(klTouch, n, t_ran, (long) n);
  expectRefused("TDP_LAUNCH", "klTouch", line, "-2097967296 sites");
  line = __LINE__ + 1;
  TDP_LAUNCH(klTouch, -1, t_ran, -1L);
  expectRefused("TDP_LAUNCH", "klTouch", line, "-1 sites");
  line = __LINE__ + 1;
  TDP_LAUNCH_NOSTRIDE(klTouch, n, t_ran, (long) n);
  expectRefused("TDP_LAUNCH_NOSTRIDE", "klTouch", line, "negative");
  line = __LINE__ + 1;
  TDP_LAUNCH_REDUCE(klTouchReduce, n, t_ran, (long) n, t_sum);
  expectRefused("TDP_LAUNCH_REDUCE", "klTouchReduce", line, "negative");
  line = __LINE__ + 1;
  TDP_LAUNCH_TPB(klTouch64, n, 64, t_ran, (long) n);
  expectRefused("TDP_LAUNCH_TPB", "klTouch64", line, "negative");
  line = __LINE__ + 1;
  TDP_LAUNCH_LANES(klTouchLanes, n, 1, t_ran, (long) n);
  expectRefused("TDP_LAUNCH_LANES", "klTouchLanes", line, "negative");
  line = __LINE__ + 1;
  TDP_LAUNCH_STREAM(klTouch, n, s, t_ran, (long) n);
  expectRefused("TDP_LAUNCH_STREAM", "klTouch", line, "negative");
  line = __LINE__ + 1;
  TDP_LAUNCH_REDUCE_STREAM(klTouchReduce, n, s, t_ran, (long) n, t_sum);
  expectRefused("TDP_LAUNCH_REDUCE_STREAM", "klTouchReduce", line, "negative");
  /* a box made by hand: y from 3 to 1; a 7-D box; an extent of 0 */
  targetBox box;
  memset(&box, 0, sizeof(box));
  box.ndim = 3;
  for (int d = 0; d < 3; d++) {
    box.extent[d] = 4;
    box.hi[d] = 4;
  }
  box.lo[1] = 3;
  box.hi[1] = 1;
  line = __LINE__ + 1;
  TDP_LAUNCH_BOX(klTouchBox, box, t_ran);
  expectRefused("TDP_LAUNCH_BOX", "klTouchBox", line, "dimension 1: box [3, 1) does not fit");
  box.hi[1] = 4;
  box.ndim = 7;
  line = __LINE__ + 1;
  TDP_LAUNCH_BOX_STREAM(klTouchBox, box, s, t_ran);
  expectRefused("TDP_LAUNCH_BOX_STREAM", "klTouchBox", line, "ndim 7");
  box.ndim = 3;
  box.extent[2] = 0;
  box.hi[2] = 0;
  line = __LINE__ + 1;
  TDP_LAUNCH_BOX(klTouchBox, box, t_ran);
  expectRefused("TDP_LAUNCH_BOX", "klTouchBox", line, "extent 0");
  targetSetErrorAbort(1);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(ran, t_ran, sizeof(ran)), TARGET_SUCCESS);
  if (ran[0] || ran[1]) fail_msg("a refused kernel ran (%d, %d)", ran[0], ran[1]);
  /* an extent of 0 is a launch of nothing, not an error */
  TDP_LAUNCH(klTouch, 0, t_ran, 0L);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_sum), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_ran), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_launch_tpb_every_site_once),
      cmocka_unit_test(test_impossible_launch_named),
      cmocka_unit_test(test_launch_negative_extent),
  };
  return cmocka_run_group_tests_name("launch " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
