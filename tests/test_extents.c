/*
 * test_extents.c -- 64-bit extents (issue 9 item 3): a TLP loop, a launch,
 * TDP_VINDEX and the copies over N = 2^31 + 17 sites, past what an int
 * holds; and every layout macro evaluates each argument once (item 9).
 *
 * The 2 GiB field needs 2 GiB of target and 2 GiB of host memory and is
 * skipped under valgrind, AddressSanitizer and compute-sanitizer (slow, and
 * shadow memory would double it): an ASan build and valgrind are detected
 * here, and tests/run_tests.sh sets TDP_TEST_NO_BIG under both tools. The
 * counting kernel needs no memory and runs everywhere but under valgrind
 * (about 1 s on 2 cores; a minute under valgrind, which has nothing to
 * check there).
 */
#include "test_util.h"

#define NBIG (2147483648L + 17) /* 2^31 + 17 */

#define tuSkip(why)                        \
  do {                                     \
    print_message("# skipped: %s\n", why); \
    skip();                                \
  } while (0)

static int underValgrind(void) {
  const char *pre = getenv("LD_PRELOAD");
  return pre && strstr(pre, "vgpreload") != NULL;
}

/* Why a big-memory case cannot run here, or NULL. */
static const char *bigMemoryVeto(void) {
#if defined(__SANITIZE_ADDRESS__)
  return "AddressSanitizer build (shadow memory)";
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  return "AddressSanitizer build (shadow memory)";
#endif
#endif
  if (underValgrind()) return "under valgrind";
  if (getenv("TDP_TEST_NO_BIG")) return "TDP_TEST_NO_BIG is set";
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Kernels. The extents are long; the visits of sites past 2^31 count twice,
 * so a loop that wraps at 2^31 cannot pass by visiting the low sites. */

TDP_KERNEL void kCount(double *t_sum, long n) {
  double count = 0.0;
  TDP_TLP_SUM(baseIndex, n, count) {
    TDP_ILP_SUM(vecIndex, count) {
      long i = baseIndex + vecIndex;
      count += (i >= 2147483648L) ? 2.0 : 1.0;
    }
  }
  targetBlockAddDouble(t_sum, count);
}

/* Every site of a 1-byte field gets a value that depends on all its bits
 * that matter (i mod 251, prime, so no power-of-two aliasing hides). */
TDP_KERNEL void kFillChar(char *t_c, long n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      t_c[TDP_VINDEX(n, 1, baseIndex, 0, vecIndex)] = (char) ((baseIndex + vecIndex) % 251);
    }
  }
}

static void test_tlp_count_past_int(void **state) {
  (void) state;
  /* touches no memory, so valgrind has nothing to check, and 2^31 sites
   * take it a minute */
  if (underValgrind()) tuSkip("under valgrind (no memory to check; a minute of run time)");
  double *t_sum = NULL, zero = 0.0, sum = -1.0;
  assert_int_equal(targetMalloc(&t_sum, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_sum, &zero, sizeof(double)), TARGET_SUCCESS);
  long n = NBIG;
  TDP_LAUNCH_REDUCE(kCount, n, t_sum, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(&sum, t_sum, sizeof(double)), TARGET_SUCCESS);
  /* exact: below 2^53 */
  tuSetContext("N = 2^31 + 17: visit count %.17g, want %.17g", sum, (double) (NBIG + 17));
  if (sum != (double) (NBIG + 17)) fail_msg("%s", tu_context);
  assert_int_equal(targetFree(t_sum), TARGET_SUCCESS);
}

static void test_char_field_past_int(void **state) {
  (void) state;
  const char *veto = bigMemoryVeto();
  if (veto) tuSkip(veto);
  const long n = NBIG;
  const size_t nbytes = TDP_FIELD_SIZE(n, 1);
  assert_true(nbytes >= (size_t) n);
  char *t_c = NULL;
  char *c = (char *) tuMalloc(nbytes);
  assert_int_equal(targetMalloc(&t_c, nbytes), TARGET_SUCCESS);
  /* A site the kernel misses keeps -1, which no i % 251 is. */
  memset(c, -1, nbytes);
  assert_int_equal(copyToTarget(t_c, c, nbytes), TARGET_SUCCESS);
  TDP_LAUNCH(kFillChar, n, t_c, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(c, t_c, nbytes), TARGET_SUCCESS);
  long bad = 0, first = -1;
  for (long i = 0; i < n; i++) {
    if (c[TDP_INDEX(n, 1, i, 0)] != (char) (i % 251)) {
      if (first < 0) first = i;
      bad++;
    }
  }
  tuSetContext("N = 2^31 + 17 chars: %ld wrong, the first at site %ld", bad, first);
  if (bad) fail_msg("%s", tu_context);
  assert_int_equal(targetFree(t_c), TARGET_SUCCESS);
  free(c);
}

/* ---------------------------------------------------------------------- */
/* Each argument of the layout macros is evaluated exactly once. */

static int tu_evals = 0;
static long tick(long v) {
  tu_evals++;
  return v;
}

static void test_layout_macros_evaluate_once(void **state) {
  (void) state;
  const long ns = 37, nc = 5, n1 = 3, n2 = 4;
  for (long s = 0; s < ns; s++) {
    for (long c = 0; c < nc; c++) {
      size_t want = TDP_INDEX(ns, nc, s, c);
      tu_evals = 0;
      size_t got = TDP_INDEX(tick(ns), tick(nc), tick(s), tick(c));
      assert_int_equal(tu_evals, 4);
      assert_int_equal(got, want);
      long base = s - s % VVL, vec = s % VVL;
      tu_evals = 0;
      got = TDP_VINDEX(tick(ns), tick(nc), tick(base), tick(c), tick(vec));
      assert_int_equal(tu_evals, 5);
      assert_int_equal(got, want);
    }
    for (long i1 = 0; i1 < n1; i1++) {
      for (long i2 = 0; i2 < n2; i2++) {
        size_t want = TDP_INDEX(ns, n1 * n2, s, i1 * n2 + i2);
        tu_evals = 0;
        size_t got = TDP_INDEX2(tick(ns), tick(n1), tick(n2), tick(s), tick(i1), tick(i2));
        assert_int_equal(tu_evals, 6);
        assert_int_equal(got, want);
        long base = s - s % VVL, vec = s % VVL;
        tu_evals = 0;
        got = TDP_VINDEX2(tick(ns), tick(n1), tick(n2), tick(base), tick(i1), tick(i2),
                          tick(vec));
        assert_int_equal(tu_evals, 7);
        assert_int_equal(got, want);
      }
    }
  }
  /* the index written as in a kernel: i++ moves i by one */
  long i = 5;
  size_t want = TDP_INDEX(ns, 3, 5, 2);
  assert_int_equal(TDP_INDEX(ns, 3, i++, 2), want);
  assert_int_equal(i, 6);
  tu_evals = 0;
  size_t alloc = TDP_NSITES_ALLOC(tick(ns));
  assert_int_equal(tu_evals, 1);
  assert_int_equal(alloc, TDP_NSITES_ALLOC(ns));
  tu_evals = 0;
  size_t size = TDP_FIELD_SIZE(tick(ns), tick(nc));
  assert_int_equal(tu_evals, 2);
  assert_int_equal(size, TDP_NSITES_ALLOC(ns) * nc);
}

/* The same in target code: the site index advanced inside the argument. */
TDP_KERNEL void kIndexPostIncrement(double *t_f, int nrun, int nsites) {
  TDP_TLP(baseIndex, nrun) {
    TDP_ILP(vecIndex) {
      long s = baseIndex + vecIndex, s0 = s;
      for (int c = 0; c < 3; c++) t_f[TDP_INDEX(nsites, 3, s++, c)] = 10.0 * s0 + c;
      if (s != s0 + 3) t_f[TDP_INDEX(nsites, 3, s0, 0)] = -1.0; /* evaluated more than once */
    }
  }
}

static void test_index_side_effects_in_kernel(void **state) {
  (void) state;
  /* the thread of site s0 writes component c of site s0 + c: 10 s0 + c */
  const int n = 3 * 41;
  size_t size = TDP_FIELD_SIZE(n, 3);
  double *f = (double *) tuMalloc(size * sizeof(double)), *t_f = NULL;
  for (size_t k = 0; k < size; k++) f[k] = -7.0;
  assert_int_equal(targetMalloc(&t_f, size * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_f, f, size * sizeof(double)), TARGET_SUCCESS);
  TDP_LAUNCH(kIndexPostIncrement, n - 2, t_f, n - 2, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(f, t_f, size * sizeof(double)), TARGET_SUCCESS);
  /* each (site, component c) is written by one s0 = site - c only */
  for (int s = 0; s < n; s++) {
    for (int c = 0; c < 3; c++) {
      double got = f[TDP_INDEX(n, 3, s, c)];
      double want = (s - c >= 0 && s - c < n - 2) ? 10.0 * (s - c) + c : -7.0;
      if (got != want) fail_msg("site %d component %d: %g, want %g", s, c, got, want);
    }
  }
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tlp_count_past_int),
      cmocka_unit_test(test_char_field_past_int),
      cmocka_unit_test(test_layout_macros_evaluate_once),
      cmocka_unit_test(test_index_side_effects_in_kernel),
  };
  return cmocka_run_group_tests_name("extents " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
