/*
 * test_reduce.c -- targetDoubleSum/Min/Max and targetIntSum/Min/Max on
 * random target arrays of several sizes (around the backends' block sizes
 * too), against a serial reference on the host: sums within a relative
 * 1e-12 (doubles) or exact (ints, accumulated in long long), min and max
 * exact wherever the extreme value sits.
 */

#include "test_util.h"

#include <limits.h>

static const int rsizes[] = {1, 2, 7, VVL + 1, 1000, 1003, 8191, 8192, 8193, 100003, 1 << 20};
#define NRSIZES ((int) (sizeof(rsizes) / sizeof(rsizes[0])))

/* Serial reference sum, accumulated in long double with compensation. */
static double refSum(const double *a, int n) {
  long double s = 0.0L, c = 0.0L;
  for (int i = 0; i < n; i++) {
    long double y = (long double) a[i] - c;
    long double t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return (double) s;
}

static double *toTarget(const double *h, int n) {
  double *t = NULL;
  assert_int_equal(targetMalloc(&t, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h, n * sizeof(double)), TARGET_SUCCESS);
  return t;
}

static int *toTargetInt(const int *h, int n) {
  int *t = NULL;
  assert_int_equal(targetMalloc(&t, n * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h, n * sizeof(int)), TARGET_SUCCESS);
  return t;
}

static void test_double_sum(void **state) {
  (void) state;
  for (int k = 0; k < NRSIZES; k++) {
    int n = rsizes[k];
    double *a = (double *) tuMalloc(n * sizeof(double));
    for (int mixed = 0; mixed < 2; mixed++) {
      tuSetContext("targetDoubleSum, n = %d, %s", n, mixed ? "mixed signs" : "positive");
      if (mixed) tuFillDouble(a, n, -1.0, 1.0, 300 + n);
      else tuFillDouble(a, n, 0.5, 1.5, 301 + n);
      double *t = toTarget(a, n);
      double sum = -12345.0, again = 0.0, ref = refSum(a, n);
      assert_int_equal(targetDoubleSum(&sum, t, n), TARGET_SUCCESS);
      if (mixed) {
        /* relative to the sum of magnitudes: the sum itself may be ~0 */
        double mag = 0.0;
        for (int i = 0; i < n; i++) mag += fabs(a[i]);
        if (!(fabs(sum - ref) <= 1e-12 * mag))
          fail_msg("[%s] sum %.17g, reference %.17g, sum of |a| %.17g", tu_context, sum, ref, mag);
      } else {
        tuAssertClose(sum, ref, 1e-12);
      }
      /* the same call gives the same bits */
      assert_int_equal(targetDoubleSum(&again, t, n), TARGET_SUCCESS);
      assert_memory_equal(&sum, &again, sizeof(double));
      assert_int_equal(targetFree(t), TARGET_SUCCESS);
    }
    free(a);
  }
}

/* The extreme value placed first, last, in the middle and at random. */
static void test_double_min_max(void **state) {
  (void) state;
  for (int k = 0; k < NRSIZES; k++) {
    int n = rsizes[k];
    double *a = (double *) tuMalloc(n * sizeof(double));
    for (int where = 0; where < 4; where++) {
      tuRng r;
      tuSeed(&r, 400 + n + where);
      tuFillDouble(a, n, -100.0, 100.0, 401 + n + where);
      int imin = where == 0 ? 0 : where == 1 ? n - 1 : where == 2 ? n / 2 : tuInt(&r, 0, n - 1);
      int imax = where == 0 ? n - 1 : where == 1 ? 0 : tuInt(&r, 0, n - 1);
      if (n > 1 && imax == imin) imax = (imin + 1) % n;
      a[imin] = -100.5 - tuUniform(&r);
      if (n > 1) a[imax] = 100.5 + tuUniform(&r);
      double rmin = a[0], rmax = a[0];
      for (int i = 1; i < n; i++) {
        rmin = a[i] < rmin ? a[i] : rmin;
        rmax = a[i] > rmax ? a[i] : rmax;
      }
      tuSetContext("targetDoubleMin/Max, n = %d, min at %d, max at %d", n, imin, imax);
      double *t = toTarget(a, n);
      double mn = 0.0, mx = 0.0;
      assert_int_equal(targetDoubleMin(&mn, t, n), TARGET_SUCCESS);
      assert_int_equal(targetDoubleMax(&mx, t, n), TARGET_SUCCESS);
      tuAssertClose(mn, rmin, 0.0);
      tuAssertClose(mx, rmax, 0.0);
      assert_int_equal(targetFree(t), TARGET_SUCCESS);
    }
    free(a);
  }
}

static void test_int_reductions(void **state) {
  (void) state;
  for (int k = 0; k < NRSIZES; k++) {
    int n = rsizes[k];
    int *a = (int *) tuMalloc(n * sizeof(int));
    for (int range = 0; range < 3; range++) {
      /* small values; values near INT_MAX whose sum overflows int; both signs near the limits */
      if (range == 0) tuFillInt(a, n, -1000000, 1000000, 500 + n);
      else if (range == 1) tuFillInt(a, n, INT_MAX - 1000, INT_MAX, 501 + n);
      else tuFillInt(a, n, INT_MIN, INT_MAX, 502 + n);
      long long rsum = 0, rmin = a[0], rmax = a[0];
      for (int i = 0; i < n; i++) {
        rsum += a[i];
        rmin = a[i] < rmin ? a[i] : rmin;
        rmax = a[i] > rmax ? a[i] : rmax;
      }
      tuSetContext("targetInt*, n = %d, range %d", n, range);
      int *t = toTargetInt(a, n);
      long long sum = -1, mn = -1, mx = -1;
      assert_int_equal(targetIntSum(&sum, t, n), TARGET_SUCCESS);
      assert_int_equal(targetIntMin(&mn, t, n), TARGET_SUCCESS);
      assert_int_equal(targetIntMax(&mx, t, n), TARGET_SUCCESS);
      if (sum != rsum || mn != rmin || mx != rmax)
        fail_msg("[%s] sum %lld min %lld max %lld, want %lld %lld %lld", tu_context, sum, mn, mx,
                 rsum, rmin, rmax);
      if (range == 1 && n > 1) assert_true(sum > INT_MAX); /* needs the long long */
      assert_int_equal(targetFree(t), TARGET_SUCCESS);
    }
    free(a);
  }
}

/* A reduction over part of a target array (an interior pointer). */
static void test_reduce_subarray(void **state) {
  (void) state;
  int n = 100003, off = 777, m = 50001;
  double *a = (double *) tuMalloc(n * sizeof(double));
  int *b = (int *) tuMalloc(n * sizeof(int));
  tuFillDouble(a, n, 0.5, 1.5, 600);
  tuFillInt(b, n, -50, 50, 601);
  a[off - 1] = 1e6;   /* outside the range: must not count */
  a[off + m] = -1e6;
  b[off - 1] = 1000000;
  b[off + m] = -1000000;
  double *t = toTarget(a, n);
  int *tb = toTargetInt(b, n);
  double sum = 0.0, mn = 0.0, mx = 0.0, rmn = a[off], rmx = a[off];
  long long isum = 0, imn = 0, imx = 0, rimn = b[off], rimx = b[off], risum = 0;
  for (int i = off; i < off + m; i++) {
    rmn = a[i] < rmn ? a[i] : rmn;
    rmx = a[i] > rmx ? a[i] : rmx;
    rimn = b[i] < rimn ? b[i] : rimn;
    rimx = b[i] > rimx ? b[i] : rimx;
    risum += b[i];
  }
  tuSetContext("sub-array [%d, %d)", off, off + m);
  assert_int_equal(targetDoubleSum(&sum, t + off, m), TARGET_SUCCESS);
  assert_int_equal(targetDoubleMin(&mn, t + off, m), TARGET_SUCCESS);
  assert_int_equal(targetDoubleMax(&mx, t + off, m), TARGET_SUCCESS);
  assert_int_equal(targetIntSum(&isum, tb + off, m), TARGET_SUCCESS);
  assert_int_equal(targetIntMin(&imn, tb + off, m), TARGET_SUCCESS);
  assert_int_equal(targetIntMax(&imx, tb + off, m), TARGET_SUCCESS);
  tuAssertClose(sum, refSum(a + off, m), 1e-12);
  tuAssertClose(mn, rmn, 0.0);
  tuAssertClose(mx, rmx, 0.0);
  tuAssertClose((double) isum, (double) risum, 0.0);
  tuAssertClose((double) imn, (double) rimn, 0.0);
  tuAssertClose((double) imx, (double) rimx, 0.0);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  assert_int_equal(targetFree(tb), TARGET_SUCCESS);
  free(a);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_sum),
      cmocka_unit_test(test_double_min_max),
      cmocka_unit_test(test_int_reductions),
      cmocka_unit_test(test_reduce_subarray),
  };
  return cmocka_run_group_tests_name("reduce " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
