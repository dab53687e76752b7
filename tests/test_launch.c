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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_launch_tpb_every_site_once),
      cmocka_unit_test(test_impossible_launch_named),
  };
  return cmocka_run_group_tests_name("launch " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
