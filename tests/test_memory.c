/*
 * test_memory.c -- initialisation and configuration, target memory
 * (targetMalloc, targetCalloc, targetMallocUnified, targetCallocUnified,
 * targetFree), whole-array copies, targetZero / targetSetConstant, layout
 * conversion (targetAoS2SoA / targetSoA2AoS), targetSynchronize and
 * checkTargetError.
 */
#include "test_util.h"

/* Proves data really is in target memory: the target changes it. */
TDP_KERNEL void kNegatePlus(double *t_a, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      t_a[i] = -t_a[i] + 0.5 * i;
    }
  }
}

static const int nsizes[] = {1, VVL + 1, 1003, 12345, 1 << 18};
#define NSIZES ((int) (sizeof(nsizes) / sizeof(nsizes[0])))

/* ---------------------------------------------------------------------- */

static void test_init_finalize_idempotent(void **state) {
  (void) state;
  /* the group setup has called targetInit(); again is harmless */
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
  /* finalizing twice is a lifecycle error (test_lifecycle checks the message) */
  targetSetErrorAbort(0);
  assert_int_equal(targetFinalize(), TARGET_ERROR_NOT_INITIALISED);
  targetSetErrorAbort(1);
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  /* and the target works after re-initialisation */
  double h = 3.25, back = 0.0, *t = NULL;
  assert_int_equal(targetMalloc(&t, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, &h, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(&back, t, sizeof(double)), TARGET_SUCCESS);
  assert_true(back == 3.25);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
}

static void test_config_string(void **state) {
  (void) state;
  const char *s = targetConfigString();
  assert_non_null(s);
  /* the library was built like this program (targetInit checked it) */
  tuAssertContains(s, TARGETDP_CONFIG);
  tuAssertContains(s, "device=");
  tuAssertContains(s, "backend=" TARGETDP_BACKEND);
  tuAssertContains(s, "layout=" TARGETDP_LAYOUT);
  tuAssertContains(s, "VVL=" TDP_STR(VVL));
  /* no error so far */
  assert_int_equal(targetLastError(), TARGET_SUCCESS);
}

static void test_copy_round_trip(void **state) {
  (void) state;
  for (int k = 0; k < NSIZES; k++) {
    int n = nsizes[k];
    size_t nbytes = n * sizeof(double);
    tuSetContext("round trip, n = %d", n);
    double *h = (double *) tuMalloc(nbytes), *h0 = (double *) tuMalloc(nbytes);
    double *t = NULL;
    tuFillDouble(h0, n, -10.0, 10.0, 5 + n);
    memcpy(h, h0, nbytes);
    assert_int_equal(targetMalloc(&t, nbytes), TARGET_SUCCESS);
    assert_non_null(t);
    assert_int_equal(copyToTarget(t, h, nbytes), TARGET_SUCCESS);
    memset(h, 0, nbytes);
    assert_int_equal(copyFromTarget(h, t, nbytes), TARGET_SUCCESS);
    assert_memory_equal(h, h0, nbytes);

    /* the target copy is the one a kernel changes; the host copy is not */
    TDP_LAUNCH(kNegatePlus, n, t, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_memory_equal(h, h0, nbytes);
    assert_int_equal(copyFromTarget(h, t, nbytes), TARGET_SUCCESS);
    tuCheck c;
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, h[i], -h0[i] + 0.5 * i);
    tuCheckDone(&c, "after kernel", n);

    /* part of an allocation, at an offset */
    if (n > 8) {
      int off = n / 3, m = n - off;
      for (int i = 0; i < n; i++) h[i] = h0[i];
      assert_int_equal(copyToTarget(t + off, h + off, m * sizeof(double)), TARGET_SUCCESS);
      double *back = (double *) tuMalloc(nbytes);
      assert_int_equal(copyFromTarget(back, t, nbytes), TARGET_SUCCESS);
      tuCheckInit(&c);
      for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], i < off ? -h0[i] + 0.5 * i : h0[i]);
      tuCheckDone(&c, "offset copy", n);
      free(back);
    }
    assert_int_equal(targetFree(t), TARGET_SUCCESS);
    free(h);
    free(h0);
  }
}

/* Calloc really zeroes: dirty memory of the same size first. */
static void checkCalloc(int unified) {
  for (int k = 0; k < NSIZES; k++) {
    int n = nsizes[k];
    size_t nbytes = n * sizeof(double);
    tuSetContext("%s, n = %d", unified ? "targetCallocUnified" : "targetCalloc", n);
    double *h = (double *) tuMalloc(nbytes), *t = NULL;
    for (int round = 0; round < 3; round++) {
      tuFillDouble(h, n, 1.0, 2.0, 9 + round);
      assert_int_equal(targetMalloc(&t, nbytes), TARGET_SUCCESS);
      assert_int_equal(copyToTarget(t, h, nbytes), TARGET_SUCCESS);
      assert_int_equal(targetFree(t), TARGET_SUCCESS);
      t = NULL;
      if (unified) {
        assert_int_equal(targetCallocUnified(&t, nbytes), TARGET_SUCCESS);
      } else {
        assert_int_equal(targetCalloc(&t, nbytes), TARGET_SUCCESS);
      }
      assert_non_null(t);
      assert_int_equal(copyFromTarget(h, t, nbytes), TARGET_SUCCESS);
      tuCheck c;
      tuCheckInit(&c);
      for (int i = 0; i < n; i++) tuCheckEq(&c, i, h[i], 0.0);
      tuCheckDone(&c, "calloc", n);
      assert_int_equal(targetFree(t), TARGET_SUCCESS);
    }
    free(h);
  }
}

static void test_calloc_zeroes(void **state) {
  (void) state;
  checkCalloc(0);
}

static void test_calloc_unified_zeroes(void **state) {
  (void) state;
  checkCalloc(1);
}

/* Unified memory is usable directly from the host and from kernels. */
static void test_unified(void **state) {
  (void) state;
  for (int k = 0; k < NSIZES; k++) {
    int n = nsizes[k];
    tuSetContext("targetMallocUnified, n = %d", n);
    double *u = NULL, *h0 = (double *) tuMalloc(n * sizeof(double));
    tuFillDouble(h0, n, -1.0, 1.0, 17 + n);
    assert_int_equal(targetMallocUnified(&u, n * sizeof(double)), TARGET_SUCCESS);
    assert_non_null(u);
    for (int i = 0; i < n; i++) u[i] = h0[i]; /* host writes */
    TDP_LAUNCH(kNegatePlus, n, u, n);   /* target updates */
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    tuCheck c;
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, u[i], -h0[i] + 0.5 * i); /* host reads */
    tuCheckDone(&c, "unified", n);
    /* the explicit copies work on unified memory too */
    double *h = (double *) tuMalloc(n * sizeof(double));
    assert_int_equal(copyFromTarget(h, u, n * sizeof(double)), TARGET_SUCCESS);
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, h[i], -h0[i] + 0.5 * i);
    tuCheckDone(&c, "copy from unified", n);
    assert_int_equal(targetFree(u), TARGET_SUCCESS);
    free(h);
    free(h0);
  }
}

/* Many live allocations at once: distinct, independent, all freed. */
static void test_many_allocations(void **state) {
  (void) state;
  enum { NA = 200 };
  double *t[NA];
  double v[NA];
  for (int a = 0; a < NA; a++) {
    size_t nbytes = (size_t) (1 + a % 13) * sizeof(double);
    double x = 1.5 * a - 7.0;
    t[a] = NULL;
    assert_int_equal(targetMalloc(&t[a], nbytes), TARGET_SUCCESS);
    assert_int_equal(targetSetConstant(t[a], x, 1 + a % 13), TARGET_SUCCESS);
  }
  for (int a = 0; a < NA; a++) {
    assert_int_equal(copyFromTarget(&v[a], t[a] + (a % 13), sizeof(double)), TARGET_SUCCESS);
    assert_true(v[a] == 1.5 * a - 7.0);
    for (int b = 0; b < a; b++) assert_ptr_not_equal(t[a], t[b]);
  }
  for (int a = NA - 1; a >= 0; a -= 2) assert_int_equal(targetFree(t[a]), TARGET_SUCCESS);
  for (int a = 0; a < NA; a += 2) assert_int_equal(targetFree(t[a]), TARGET_SUCCESS);
  assert_int_equal(targetFree(NULL), TARGET_SUCCESS); /* like free(NULL) */
}

static void test_zero_and_set_constant(void **state) {
  (void) state;
  for (int k = 0; k < NSIZES; k++) {
    int n = nsizes[k], pad = 5, m = n + 2 * pad;
    tuSetContext("targetZero / targetSetConstant, n = %d", n);
    double *h0 = (double *) tuMalloc(m * sizeof(double));
    double *h = (double *) tuMalloc(m * sizeof(double));
    double *t = NULL;
    tuFillDouble(h0, m, 1.0, 9.0, 3 + n);
    assert_int_equal(targetMalloc(&t, m * sizeof(double)), TARGET_SUCCESS);

    /* only [pad, pad + n) changes */
    assert_int_equal(copyToTarget(t, h0, m * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(targetZero(t + pad, n), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(h, t, m * sizeof(double)), TARGET_SUCCESS);
    tuCheck c;
    tuCheckInit(&c);
    for (int i = 0; i < m; i++) tuCheckEq(&c, i, h[i], (i >= pad && i < pad + n) ? 0.0 : h0[i]);
    tuCheckDone(&c, "targetZero", m);

    assert_int_equal(copyToTarget(t, h0, m * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(targetSetConstant(t + pad, -2.75, n), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(h, t, m * sizeof(double)), TARGET_SUCCESS);
    tuCheckInit(&c);
    for (int i = 0; i < m; i++)
      tuCheckEq(&c, i, h[i], (i >= pad && i < pad + n) ? -2.75 : h0[i]);
    tuCheckDone(&c, "targetSetConstant", m);

    assert_int_equal(targetFree(t), TARGET_SUCCESS);
    free(h);
    free(h0);
  }
}

static void test_aos_soa_conversion(void **state) {
  (void) state;
  const int ncomps[] = {1, 3, 19};
  for (int k = 0; k < NSIZES; k++) {
    for (int j = 0; j < 3; j++) {
      int n = nsizes[k], nc = ncomps[j];
      if ((size_t) n * nc > (1u << 20)) continue;
      size_t nel = (size_t) n * nc, nbytes = nel * sizeof(double);
      tuSetContext("conversion, nsites %d ncomp %d", n, nc);
      double *aos = (double *) tuMalloc(nbytes), *soa = (double *) tuMalloc(nbytes);
      double *back = (double *) tuMalloc(nbytes);
      double *t_aos = NULL, *t_soa = NULL, *t_back = NULL;
      tuFillDouble(aos, nel, -3.0, 3.0, 100 + n + nc);
      assert_int_equal(targetMalloc(&t_aos, nbytes), TARGET_SUCCESS);
      assert_int_equal(targetMalloc(&t_soa, nbytes), TARGET_SUCCESS);
      assert_int_equal(targetMalloc(&t_back, nbytes), TARGET_SUCCESS);
      assert_int_equal(copyToTarget(t_aos, aos, nbytes), TARGET_SUCCESS);

      assert_int_equal(targetAoS2SoA(t_soa, t_aos, n, nc), TARGET_SUCCESS);
      assert_int_equal(copyFromTarget(soa, t_soa, nbytes), TARGET_SUCCESS);
      tuCheck c;
      tuCheckInit(&c);
      for (int s = 0; s < n; s++)
        for (int ic = 0; ic < nc; ic++)
          tuCheckEq(&c, (long) s * nc + ic, soa[(size_t) ic * n + s], aos[(size_t) s * nc + ic]);
      tuCheckDone(&c, "targetAoS2SoA", nel);

      assert_int_equal(targetSoA2AoS(t_back, t_soa, n, nc), TARGET_SUCCESS);
      assert_int_equal(copyFromTarget(back, t_back, nbytes), TARGET_SUCCESS);
      assert_memory_equal(back, aos, nbytes);

      /* SoA2AoS on its own: a fresh SoA array */
      tuFillDouble(soa, nel, 5.0, 6.0, 200 + n + nc);
      assert_int_equal(copyToTarget(t_soa, soa, nbytes), TARGET_SUCCESS);
      assert_int_equal(targetSoA2AoS(t_aos, t_soa, n, nc), TARGET_SUCCESS);
      assert_int_equal(copyFromTarget(aos, t_aos, nbytes), TARGET_SUCCESS);
      tuCheckInit(&c);
      for (int s = 0; s < n; s++)
        for (int ic = 0; ic < nc; ic++)
          tuCheckEq(&c, (long) s * nc + ic, aos[(size_t) s * nc + ic], soa[(size_t) ic * n + s]);
      tuCheckDone(&c, "targetSoA2AoS", nel);

      targetFree(t_aos);
      targetFree(t_soa);
      targetFree(t_back);
      free(aos);
      free(soa);
      free(back);
    }
  }
}

static void test_synchronize_and_check_error(void **state) {
  (void) state;
  int n = 1003;
  double *t = NULL, h[1003];
  assert_int_equal(targetCalloc(&t, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS); /* nothing pending */
  for (int r = 0; r < 3; r++) TDP_LAUNCH(kNegatePlus, n, t, n);
  assert_int_equal(checkTargetError("kNegatePlus x3"), TARGET_SUCCESS);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(h, t, sizeof(h)), TARGET_SUCCESS);
  tuSetContext("after 3 launches");
  tuCheck c;
  tuCheckInit(&c);
  /* x -> -x + i/2 three times from 0: i/2 */
  for (int i = 0; i < n; i++) tuCheckEq(&c, i, h[i], 0.5 * i);
  tuCheckDone(&c, "synchronised result", n);
  assert_int_equal(targetLastError(), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_finalize_idempotent),
      cmocka_unit_test(test_config_string),
      cmocka_unit_test(test_copy_round_trip),
      cmocka_unit_test(test_calloc_zeroes),
      cmocka_unit_test(test_calloc_unified_zeroes),
      cmocka_unit_test(test_unified),
      cmocka_unit_test(test_many_allocations),
      cmocka_unit_test(test_zero_and_set_constant),
      cmocka_unit_test(test_aos_soa_conversion),
      cmocka_unit_test(test_synchronize_and_check_error),
  };
  return cmocka_run_group_tests_name("memory " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
