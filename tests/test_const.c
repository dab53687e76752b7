/*
 * test_const.c -- constants beyond copyConstToTarget: copyConstFromTarget
 * reads a TDP_CONST back, targetConstAddress gives a pointer that target
 * code reads through, copyTargetToConst fills a constant from a target
 * array, and copyTargetToTarget copies between target arrays (at offsets,
 * leaving the rest alone); bad arguments are refused.
 */

#include "test_util.h"

#define NK 16

TDP_CONST double tk_scalar;
TDP_CONST double tk_table[NK];
TDP_CONST long tk_long;

/* out[i] = p[i % NK] + the constant itself: through the address and by name */
TDP_KERNEL void kReadThrough(const double *p, double *out, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) out[base + v] = p[(base + v) % NK] + tk_table[(base + v) % NK] + tk_scalar;
  }
}

static void test_const_read_back(void **state) {
  (void) state;
  double s = 3.25, table[NK], back[NK], sb = 0.0;
  long l = 1L << 40, lb = 0;
  for (int i = 0; i < NK; i++) table[i] = 1.5 * i - 7.0;
  for (int round = 0; round < 2; round++) { /* values replaced: the read-back follows */
    s += round;
    table[3] += round;
    l += round;
    assert_int_equal(copyConstToTarget(&tk_scalar, &s, sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyConstToTarget(tk_table, table, sizeof(table)), TARGET_SUCCESS);
    assert_int_equal(copyConstToTarget(&tk_long, &l, sizeof(long)), TARGET_SUCCESS);
    assert_int_equal(copyConstFromTarget(&sb, &tk_scalar, sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyConstFromTarget(back, tk_table, sizeof(back)), TARGET_SUCCESS);
    assert_int_equal(copyConstFromTarget(&lb, &tk_long, sizeof(long)), TARGET_SUCCESS);
    assert_memory_equal(back, table, sizeof(table));
    tuAssertClose(sb, s, 0.0);
    assert_true(lb == l);
  }
}

static void test_const_address_and_device_copies(void **state) {
  (void) state;
  double table[NK], s = -0.5;
  for (int i = 0; i < NK; i++) table[i] = 0.25 * i + 1.0;
  assert_int_equal(copyConstToTarget(tk_table, table, sizeof(table)), TARGET_SUCCESS);
  assert_int_equal(copyConstToTarget(&tk_scalar, &s, sizeof(double)), TARGET_SUCCESS);
  double *t_addr = NULL;
  assert_int_equal(targetConstAddress(&t_addr, tk_table), TARGET_SUCCESS);
  assert_non_null(t_addr);

  const int n = 1003;
  double *t_out = NULL, *out = (double *) tuMalloc(n * sizeof(double));
  assert_int_equal(targetMalloc(&t_out, n * sizeof(double)), TARGET_SUCCESS);
  TDP_LAUNCH(kReadThrough, n, t_addr, t_out, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(out, t_out, n * sizeof(double)), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (int i = 0; i < n; i++) tuCheckEq(&c, i, out[i], 2.0 * table[i % NK] + s);
  tuCheckDone(&c, "kernel reading through targetConstAddress", n);

  /* a constant filled from a target array, then read back both ways */
  double fresh[NK], back[NK];
  for (int i = 0; i < NK; i++) fresh[i] = 100.0 - i;
  double *t_src = NULL;
  assert_int_equal(targetMalloc(&t_src, (NK + 5) * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_src + 5, fresh, sizeof(fresh)), TARGET_SUCCESS);
  assert_int_equal(copyTargetToConst(tk_table, t_src + 5, sizeof(fresh)), TARGET_SUCCESS);
  assert_int_equal(copyConstFromTarget(back, tk_table, sizeof(back)), TARGET_SUCCESS);
  assert_memory_equal(back, fresh, sizeof(fresh));
  TDP_LAUNCH(kReadThrough, n, t_addr, t_out, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(out, t_out, n * sizeof(double)), TARGET_SUCCESS);
  tuCheckInit(&c);
  for (int i = 0; i < n; i++) tuCheckEq(&c, i, out[i], 2.0 * fresh[i % NK] + s);
  tuCheckDone(&c, "after copyTargetToConst", n);

  assert_int_equal(targetFree(t_src), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_out), TARGET_SUCCESS);
  free(out);
}

static void test_target_to_target(void **state) {
  (void) state;
  const int n = 100003, off = 17, m = 50001;
  double *a = (double *) tuMalloc(n * sizeof(double)), *b = (double *) tuMalloc(n * sizeof(double));
  double *g = (double *) tuMalloc(n * sizeof(double));
  tuFillDouble(a, n, -1.0, 1.0, 1300);
  tuFillDouble(b, n, 2.0, 3.0, 1301);
  double *t_a = NULL, *t_b = NULL;
  assert_int_equal(targetMalloc(&t_a, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_b, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_a, a, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_b, b, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyTargetToTarget(t_b + off, t_a + 2 * off, m * sizeof(double)),
                   TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(g, t_b, n * sizeof(double)), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (int i = 0; i < n; i++)
    tuCheckEq(&c, i, g[i], (i >= off && i < off + m) ? a[i + off] : b[i]);
  tuCheckDone(&c, "copyTargetToTarget", n);

  targetSetErrorAbort(0);
  double h = 0.0;
  expectError(copyTargetToTarget(t_b, t_a, (n + 1) * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyTargetToTarget", "the destination array");
  expectError(copyTargetToTarget(t_b, t_a + 1, n * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyTargetToTarget", "the source array");
  expectError(copyTargetToTarget(t_a + 1, t_a, 8 * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyTargetToTarget", "overlap");
  expectError(copyTargetToTarget(t_a, NULL, 8), TARGET_ERROR_INVALID_VALUE,
              "copyTargetToTarget", "NULL");
  expectError(copyConstFromTarget(NULL, &tk_scalar, sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyConstFromTarget", "NULL");
  expectError(copyConstFromTarget(&h, &tk_scalar, 0), TARGET_ERROR_INVALID_VALUE,
              "copyConstFromTarget", "zero");
  expectError(copyTargetToConst(tk_table, t_a + n - 2, NK * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyTargetToConst", "the target array");
  expectError(targetConstAddress(NULL, tk_table), TARGET_ERROR_INVALID_VALUE,
              "targetConstAddress", "NULL");
  targetSetErrorAbort(1);
  assert_int_equal(targetFree(t_a), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_b), TARGET_SUCCESS);
  free(a);
  free(b);
  free(g);
}

/* Issue 25 item 5: every constant call is held to the constant's size, as
 * copyConstToTarget was: main let copyTargetToConst and copyConstFromTarget
 * run past the constant (ASan: global-buffer-overflow on the C backend),
 * and the host side of copyConstFromTarget past a local array. */
static void test_const_sizes(void **state) {
  (void) state;
  double table[NK], back[NK], small[2], s = 0.0, *t = NULL;
  for (int i = 0; i < NK; i++) table[i] = 3.0 * i;
  assert_int_equal(targetMalloc(&t, 2 * NK * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, table, sizeof(table)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t + NK, table, sizeof(table)), TARGET_SUCCESS);
  assert_int_equal(copyConstToTarget(tk_table, table, sizeof(table)), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  expectError(copyTargetToConst(&tk_scalar, t, 2 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyTargetToConst", "16 bytes into a constant of 8 bytes");
  expectError(copyTargetToConst(tk_table, t, (NK + 1) * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyTargetToConst", "136 bytes into a constant of 128");
  expectError(copyTargetToConst(&tk_table[NK - 2], t, 3 * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyTargetToConst", "24 bytes into a constant of 16");
  expectError(copyConstFromTarget(back, &tk_scalar, 2 * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyConstFromTarget", "16 bytes from a constant of 8");
  expectError(copyConstFromTarget(back, tk_table, (NK + 1) * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyConstFromTarget", "from a constant of 128");
  expectError(copyConstFromTarget(small, tk_table, sizeof(tk_table)), TARGET_ERROR_INVALID_VALUE,
              "copyConstFromTarget", "128 bytes asked of the host value but it holds 16");
  expectError(copyConstToTarget(tk_table, small, sizeof(tk_table)), TARGET_ERROR_INVALID_VALUE,
              "copyConstToTarget", "128 bytes asked of the host value but it holds 16");
  targetSetErrorAbort(1);
  /* nothing moved; the right sizes pass */
  assert_int_equal(copyConstFromTarget(back, tk_table, sizeof(back)), TARGET_SUCCESS);
  assert_memory_equal(back, table, sizeof(table));
  assert_int_equal(copyConstFromTarget(&s, &tk_scalar, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_const_read_back),
      cmocka_unit_test(test_const_address_and_device_copies),
      cmocka_unit_test(test_target_to_target),
      cmocka_unit_test(test_const_sizes),
  };
  return cmocka_run_group_tests_name("const " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
