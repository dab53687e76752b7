/*
 * test_lifecycle.c -- every API call before targetInit() and after
 * targetFinalize() is refused (TARGET_ERROR_NOT_INITIALISED) with a message
 * that names the call and the caller's file:line; targetFinalize frees the
 * allocations still live; targetInit after targetFinalize works again.
 * No group setup: the first case must run before any targetInit().
 */
#include "test_util.h"

static TDP_CONST double tl_const;

TDP_KERNEL void klScale(double *a, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) a[base + v] *= 2.0;
  }
}

TDP_KERNEL void klBox(targetBox box, double *a) {
  TDP_TLP_2D(box, x, y0, base) {
    TDP_ILP(v) a[base + v] *= 2.0;
  }
}

/* The call must fail with the lifecycle error, naming itself, this file
 * and the line of the call, and when ("before targetInit()"...). */
#define expectLifecycle(call, name, when)                                          \
  do {                                                                            \
    char want_[160];                                                              \
    int rc_ = (call);                                                             \
    if (rc_ != TARGET_ERROR_NOT_INITIALISED)                                      \
      fail_msg("%s returned %d, want TARGET_ERROR_NOT_INITIALISED; message: %s",  \
               #call, rc_, targetLastErrorString());                              \
    assert_int_equal(targetLastError(), TARGET_ERROR_NOT_INITIALISED);           \
    snprintf(want_, sizeof(want_), "targetDP: %s failed at %s:%d: called %s", name, \
             __FILE__, __LINE__, when);                                           \
    tuAssertContains(targetLastErrorString(), want_);                            \
  } while (0)

/* Every call of the host API with arguments that would otherwise be fine
 * (host arrays stand in for target arrays: nothing may touch them). */
static void expectAllRefused(const char *when) {
  enum { N = 8 };
  double h[N], h2[N], r = 0.0, *p = NULL;
  int hi[N], sites[2] = {0, 3}, extents[3] = {3, 3, 3};
  long long ri = 0;
  char mask[N];
  memset(mask, 1, sizeof(mask));
  tuFillDouble(h, N, -1.0, 1.0, 1);
  memcpy(h2, h, sizeof(h));
  tuFillInt(hi, N, -5, 5, 2);

  expectLifecycle(targetMalloc(&p, sizeof(h)), "targetMalloc", when);
  assert_null(p);
  expectLifecycle(targetCalloc(&p, sizeof(h)), "targetCalloc", when);
  expectLifecycle(targetMallocUnified(&p, sizeof(h)), "targetMallocUnified", when);
  expectLifecycle(targetCallocUnified(&p, sizeof(h)), "targetCallocUnified", when);
  expectLifecycle(targetFree(h), "targetFree", when);
  expectLifecycle(targetFree(NULL), "targetFree", when);
  expectLifecycle(copyToTarget(h, h2, sizeof(h)), "copyToTarget", when);
  expectLifecycle(copyFromTarget(h, h2, sizeof(h)), "copyFromTarget", when);
  expectLifecycle(copyConstToTarget(&tl_const, h, sizeof(double)), "copyConstToTarget", when);
  expectLifecycle(targetZero(h, N), "targetZero", when);
  expectLifecycle(targetSetConstant(h, 2.0, N), "targetSetConstant", when);
  expectLifecycle(copyToTargetSites(h, h2, N, 1, sites, 2), "copyToTargetSites", when);
  expectLifecycle(copyFromTargetSites(h, h2, N, 1, sites, 2), "copyFromTargetSites", when);
  expectLifecycle(copyToTargetMasked(h, h2, N, 1, mask), "copyToTargetMasked", when);
  expectLifecycle(copyFromTargetMasked(h, h2, N, 1, mask), "copyFromTargetMasked", when);
  expectLifecycle(copyToTarget3DHalo(h, h2, extents, 1, 1), "copyToTarget3DHalo", when);
  expectLifecycle(copyFromTarget3DEdge(h, h2, extents, 1, 1), "copyFromTarget3DEdge", when);
  expectLifecycle(targetDoubleSum(&r, h, N), "targetDoubleSum", when);
  expectLifecycle(targetDoubleMin(&r, h, N), "targetDoubleMin", when);
  expectLifecycle(targetDoubleMax(&r, h, N), "targetDoubleMax", when);
  expectLifecycle(targetIntSum(&ri, hi, N), "targetIntSum", when);
  expectLifecycle(targetIntMin(&ri, hi, N), "targetIntMin", when);
  expectLifecycle(targetIntMax(&ri, hi, N), "targetIntMax", when);
  expectLifecycle(targetAoS2SoA(h, h2, 4, 2), "targetAoS2SoA", when);
  expectLifecycle(targetSoA2AoS(h, h2, 4, 2), "targetSoA2AoS", when);
  expectLifecycle(targetSynchronize(), "targetSynchronize", when);
  expectLifecycle(checkTargetError("after the step"), "after the step", when);
  expectLifecycle(targetFinalize(), "targetFinalize", when);
  {
    /* a launch (of nothing: on CUDA the kernel itself is queued before
     * the check, and h is host memory) */
    char want[160];
    int line = __LINE__ + 1;
    TDP_LAUNCH(klScale, 0, (double *) NULL, 0);
    assert_int_equal(targetLastError(), TARGET_ERROR_NOT_INITIALISED);
    snprintf(want, sizeof(want), "targetDP: TDP_LAUNCH failed at %s:%d: kernel klScale launched %s",
             __FILE__, line, when);
    tuAssertContains(targetLastErrorString(), want);
    /* a box launch too (issue 25: on the C backend it ran) */
    targetBox box;
    memset(&box, 0, sizeof(box));
    box.ndim = 2;
    box.extent[0] = box.hi[0] = 2;
    box.extent[1] = box.hi[1] = 4;
    line = __LINE__ + 1;
    TDP_LAUNCH_BOX(klBox, box, h);
    assert_int_equal(targetLastError(), TARGET_ERROR_NOT_INITIALISED);
    snprintf(want, sizeof(want),
             "targetDP: TDP_LAUNCH_BOX failed at %s:%d: kernel klBox launched %s", __FILE__, line,
             when);
    tuAssertContains(targetLastErrorString(), want);
  }
  /* nothing was written */
  assert_true(r == 0.0 && ri == 0);
  for (int i = 0; i < N; i++) assert_true(h[i] == h2[i]);
}

static void test_calls_before_init(void **state) {
  (void) state;
  expectAllRefused("before targetInit()");
}

static void test_calls_after_finalize(void **state) {
  (void) state;
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
  expectAllRefused("after targetFinalize()");
}

/* targetInit after targetFinalize gives a working target; an allocation
 * left live at targetFinalize is freed by it (its pointer is then unknown). */
static void test_reinit_after_finalize(void **state) {
  (void) state;
  double h[16], back[16], *t = NULL, *leak = NULL;
  tuFillDouble(h, 16, -1.0, 1.0, 3);
  for (int round = 0; round < 3; round++) {
    tuSetContext("round %d", round);
    assert_int_equal(targetInit(), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t, sizeof(h)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t, h, sizeof(h)), TARGET_SUCCESS);
    memset(back, 0, sizeof(back));
    assert_int_equal(copyFromTarget(back, t, sizeof(back)), TARGET_SUCCESS);
    assert_memory_equal(back, h, sizeof(h));
    assert_int_equal(targetFree(t), TARGET_SUCCESS);
    if (round == 1) assert_int_equal(targetMalloc(&leak, 64), TARGET_SUCCESS);
    if (round == 2) {
      /* freed by the last targetFinalize: no longer a live allocation */
      expectError(targetFree(leak), TARGET_ERROR_INVALID_VALUE, "targetFree",
                  "not a live target allocation");
    }
    assert_int_equal(targetFinalize(), TARGET_SUCCESS);
  }
}

static int setupNoAbort(void **state) {
  (void) state;
  targetSetErrorAbort(0);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_calls_before_init),
      cmocka_unit_test(test_calls_after_finalize),
      cmocka_unit_test(test_reinit_after_finalize),
  };
  return cmocka_run_group_tests_name("lifecycle " TARGETDP_CONFIG, tests, setupNoAbort, NULL);
}
