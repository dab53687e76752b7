/*
 * test_atomics.c -- targetAtomic{Add,Min,Max,Exch,CAS}{Int,Long,Float,Double}
 * in target code: under contention (every site of a TDP_TLP loop hits one
 * address; the results are exact, the float/double values being small
 * integers), and their semantics one call at a time (the old value
 * returned, min/max that do not change a better value, a failed CAS).
 *
 * Issue 25 items 3 and 7: a compare-and-swap compares bits, so it matches a
 * location holding a NaN (with value ==, NaN == NaN is false: the CAS loop
 * of docs/api.md never ended there) and tells -0.0 from 0.0; min and max
 * store a NaN and keep one; the CAS loop of docs/api.md, written with
 * targetAtomicCompareExchange, ends on every site, on a NaN too.
 */
#include "test_util.h"

/* v(i): small integers in [-500, 499] with a unique minimum and maximum. */
TDP_HOST_DEVICE static inline long val(long i) { return (i * 7919) % 1000 - 500; }

#define ATOMIC_TESTS(Name, T)                                                                 \
  /* acc[0] += v, acc[1] = min, acc[2] = max, acc[3] += 1 by a CAS loop, acc[4] exchanged */ \
  TDP_KERNEL void contend##Name(T *acc, T *old, long n) {                                     \
    TDP_TLP(baseIndex, n) {                                                                   \
      TDP_ILP(vecIndex) {                                                                     \
        long i = baseIndex + vecIndex;                                                        \
        targetAtomicAdd##Name(&acc[0], (T) val(i));                                           \
        targetAtomicMin##Name(&acc[1], (T) val(i));                                           \
        targetAtomicMax##Name(&acc[2], (T) val(i));                                           \
        T seen = targetAtomicAdd##Name(&acc[3], (T) 0); /* an atomic read */             \
        for (;;) {                                                                            \
          T got = targetAtomicCAS##Name(&acc[3], seen, seen + (T) 1);                         \
          if (got == seen) break;                                                             \
          seen = got;                                                                         \
        }                                                                                     \
        old[i] = targetAtomicExch##Name(&acc[4], (T) (i + 1));                                \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
  static void test_contention_##Name(void **state) {                                          \
    (void) state;                                                                             \
    for (int k = 0; k < TU_NSIZES; k++) {                                                     \
      long n = tuSize(k);                                                                     \
      T init[5] = {(T) 0, (T) 100000, (T) -100000, (T) 0, (T) 0};                             \
      T acc[5], *t_acc = NULL, *t_old = NULL;                                                 \
      T *old = (T *) tuMalloc((size_t) n * sizeof(T));                                        \
      long sum = 0, mn = 100000, mx = -100000;                                                \
      for (long i = 0; i < n; i++) {                                                          \
        sum += val(i);                                                                        \
        mn = val(i) < mn ? val(i) : mn;                                                       \
        mx = val(i) > mx ? val(i) : mx;                                                       \
      }                                                                                       \
      assert_int_equal(targetMalloc(&t_acc, sizeof(init)), TARGET_SUCCESS);                   \
      assert_int_equal(targetMalloc(&t_old, (size_t) n * sizeof(T)), TARGET_SUCCESS);         \
      assert_int_equal(copyToTarget(t_acc, init, sizeof(init)), TARGET_SUCCESS);              \
      TDP_LAUNCH(contend##Name, n, t_acc, t_old, n);                                          \
      assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                  \
      assert_int_equal(copyFromTarget(acc, t_acc, sizeof(acc)), TARGET_SUCCESS);              \
      assert_int_equal(copyFromTarget(old, t_old, (size_t) n * sizeof(T)), TARGET_SUCCESS);   \
      assert_true(acc[0] == (T) sum);                                                         \
      assert_true(acc[1] == (T) mn);                                                          \
      assert_true(acc[2] == (T) mx);                                                          \
      assert_true(acc[3] == (T) n);                                                           \
      /* the exchanges form one chain: the old values and the final one are 0..n, each once */ \
      char *seen = (char *) calloc((size_t) n + 1, 1);                                        \
      for (long i = 0; i <= n; i++) {                                                         \
        long v = (long) (i < n ? old[i] : acc[4]);                                            \
        assert_true(v >= 0 && v <= n);                                                        \
        assert_int_equal(seen[v], 0);                                                         \
        seen[v] = 1;                                                                          \
      }                                                                                       \
      free(seen);                                                                             \
      targetFree(t_acc);                                                                      \
      targetFree(t_old);                                                                      \
      free(old);                                                                              \
    }                                                                                         \
  }                                                                                           \
  /* One thread: r[] holds what each call returned, a[] the location after it. */           \
  TDP_KERNEL void single##Name(T *a, T *r) {                                                  \
    TDP_TLP_NOSTRIDE(i, 1) {                                                                  \
      (void) i;                                                                               \
      a[0] = (T) 5;                                                                           \
      r[0] = targetAtomicAdd##Name(&a[0], (T) 3);  a[1] = a[0]; /* 5, 8 */                    \
      r[1] = targetAtomicMin##Name(&a[0], (T) 9);  a[2] = a[0]; /* 8, 8 */                    \
      r[2] = targetAtomicMin##Name(&a[0], (T) 2);  a[3] = a[0]; /* 8, 2 */                    \
      r[3] = targetAtomicMax##Name(&a[0], (T) 1);  a[4] = a[0]; /* 2, 2 */                    \
      r[4] = targetAtomicMax##Name(&a[0], (T) 7);  a[5] = a[0]; /* 2, 7 */                    \
      r[5] = targetAtomicExch##Name(&a[0], (T) -4); a[6] = a[0]; /* 7, -4 */                  \
      r[6] = targetAtomicCAS##Name(&a[0], (T) 3, (T) 6); a[7] = a[0]; /* -4, -4: fails */     \
      r[7] = targetAtomicCAS##Name(&a[0], (T) -4, (T) 6); a[8] = a[0]; /* -4, 6 */            \
    }                                                                                         \
  }                                                                                           \
  static void test_semantics_##Name(void **state) {                                           \
    (void) state;                                                                             \
    const T want_r[8] = {(T) 5, (T) 8, (T) 8, (T) 2, (T) 2, (T) 7, (T) -4, (T) -4};           \
    const T want_a[9] = {(T) 6, (T) 8, (T) 8, (T) 2, (T) 2, (T) 7, (T) -4, (T) -4, (T) 6};     \
    T a[9], r[8], *t_a = NULL, *t_r = NULL;                                                   \
    assert_int_equal(targetCalloc(&t_a, sizeof(a)), TARGET_SUCCESS);                          \
    assert_int_equal(targetCalloc(&t_r, sizeof(r)), TARGET_SUCCESS);                          \
    TDP_LAUNCH_NOSTRIDE(single##Name, 1, t_a, t_r);                                           \
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                    \
    assert_int_equal(copyFromTarget(a, t_a, sizeof(a)), TARGET_SUCCESS);                      \
    assert_int_equal(copyFromTarget(r, t_r, sizeof(r)), TARGET_SUCCESS);                      \
    for (int i = 0; i < 8; i++) assert_true(r[i] == want_r[i]);                               \
    for (int i = 0; i < 9; i++) assert_true(a[i] == want_a[i]);                               \
    targetFree(t_a);                                                                          \
    targetFree(t_r);                                                                          \
  }

ATOMIC_TESTS(Int, int)
ATOMIC_TESTS(Long, long)
ATOMIC_TESTS(Float, float)
ATOMIC_TESTS(Double, double)

/* Float and double, one thread: a[0] and a[4], a[5] start as the NaN in
 * a[1], a[3] as -0.0, a[6] as 5. */
#define NAN_TESTS(Name, T)                                                                    \
  TDP_KERNEL void nanOps##Name(T *a, T *r) {                                                  \
    TDP_TLP_NOSTRIDE(i, 1) {                                                                  \
      (void) i;                                                                               \
      T nan = a[1];                                                                           \
      r[0] = targetAtomicCAS##Name(&a[0], nan, (T) 6);   a[2] = a[0]; /* NaN, 6 */            \
      r[1] = targetAtomicCAS##Name(&a[3], (T) 0, (T) 7); a[7] = a[3]; /* -0, -0: fails */     \
      r[2] = targetAtomicMin##Name(&a[6], nan);          a[8] = a[6]; /* 5, NaN */            \
      r[3] = targetAtomicMin##Name(&a[6], (T) 1);        a[9] = a[6]; /* NaN, NaN */          \
      a[6] = (T) 5;                                                                           \
      r[4] = targetAtomicMax##Name(&a[6], nan);          a[10] = a[6]; /* 5, NaN */           \
      r[5] = targetAtomicMax##Name(&a[6], (T) 9);        a[11] = a[6]; /* NaN, NaN */         \
    }                                                                                         \
  }                                                                                           \
  static void test_nan_##Name(void **state) {                                                 \
    (void) state;                                                                             \
    T a[12], r[6], *t_a = NULL, *t_r = NULL;                                                  \
    for (int i = 0; i < 12; i++) a[i] = (T) 0;                                                \
    a[0] = a[1] = (T) NAN;                                                                    \
    a[3] = (T) -0.0;                                                                          \
    a[6] = (T) 5;                                                                             \
    assert_int_equal(targetMalloc(&t_a, sizeof(a)), TARGET_SUCCESS);                          \
    assert_int_equal(targetCalloc(&t_r, sizeof(r)), TARGET_SUCCESS);                          \
    assert_int_equal(copyToTarget(t_a, a, sizeof(a)), TARGET_SUCCESS);                        \
    TDP_LAUNCH_NOSTRIDE(nanOps##Name, 1, t_a, t_r);                                           \
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                    \
    assert_int_equal(copyFromTarget(a, t_a, sizeof(a)), TARGET_SUCCESS);                      \
    assert_int_equal(copyFromTarget(r, t_r, sizeof(r)), TARGET_SUCCESS);                      \
    if (!(isnan(r[0]) && a[2] == (T) 6))                                                      \
      fail_msg("CAS on a location holding NaN, expected that NaN: returned %g, stored %g "    \
               "(want NaN, 6)", (double) r[0], (double) a[2]);                                \
    if (!(r[1] == 0 && signbit(r[1]) && a[7] == 0 && signbit(a[7])))                          \
      fail_msg("CAS of -0.0 expecting 0.0 must fail (bits differ): returned %g, stored %g",   \
               (double) r[1], (double) a[7]);                                                 \
    if (!(r[2] == 5 && isnan(a[8]) && isnan(r[3]) && isnan(a[9])))                            \
      fail_msg("min with NaN: returned %g then %g, stored %g then %g (want 5, NaN, NaN, NaN)", \
               (double) r[2], (double) r[3], (double) a[8], (double) a[9]);                   \
    if (!(r[4] == 5 && isnan(a[10]) && isnan(r[5]) && isnan(a[11])))                          \
      fail_msg("max with NaN: returned %g then %g, stored %g then %g (want 5, NaN, NaN, NaN)", \
               (double) r[4], (double) r[5], (double) a[10], (double) a[11]);                 \
    targetFree(t_a);                                                                          \
    targetFree(t_r);                                                                          \
  }
NAN_TESTS(Float, float)
NAN_TESTS(Double, double)

/* The CAS loop of docs/api.md on every site: acc[0] counts the sites (from
 * 0), acc[1] is doubled by each site (from `start`, NaN for float and
 * double: it must stay NaN and every loop must end). A loop that has not
 * ended after n + 64 tries (one success per try among n contenders) is
 * counted in *t_stuck. */
#define CX_TESTS(Name, T, START)                                                              \
  TDP_KERNEL void cxLoop##Name(T *acc, long n, int *t_stuck) {                                \
    TDP_TLP(baseIndex, n) {                                                                   \
      TDP_ILP(vecIndex) {                                                                     \
        (void) vecIndex;                                                                      \
        long tries = 0;                                                                       \
        T seen = (T) 0; /* any guess: a failed exchange loads the value */                    \
        while (!targetAtomicCompareExchange##Name(&acc[0], &seen, seen + (T) 1))              \
          if (++tries > n + 64) break;                                                        \
        T seen1 = (T) 0;                                                                      \
        while (!targetAtomicCompareExchange##Name(&acc[1], &seen1, seen1 * (T) 2))            \
          if (++tries > 2 * (n + 64)) break;                                                  \
        if (tries > n + 64) targetAtomicAddInt(t_stuck, 1);                                   \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
  static void test_cx_loop_##Name(void **state) {                                             \
    (void) state;                                                                             \
    const long n = 3000;                                                                      \
    T acc[2] = {(T) 0, START}, *t_acc = NULL;                                                 \
    int stuck = -1, *t_stuck = NULL;                                                          \
    assert_int_equal(targetMalloc(&t_acc, sizeof(acc)), TARGET_SUCCESS);                      \
    assert_int_equal(targetCalloc(&t_stuck, sizeof(int)), TARGET_SUCCESS);                    \
    assert_int_equal(copyToTarget(t_acc, acc, sizeof(acc)), TARGET_SUCCESS);                  \
    TDP_LAUNCH(cxLoop##Name, n, t_acc, n, t_stuck);                                           \
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                    \
    assert_int_equal(copyFromTarget(acc, t_acc, sizeof(acc)), TARGET_SUCCESS);                \
    assert_int_equal(copyFromTarget(&stuck, t_stuck, sizeof(int)), TARGET_SUCCESS);           \
    if (stuck != 0) fail_msg("%d of %ld CAS loops did not end", stuck, n);                    \
    assert_true(acc[0] == (T) n);                                                             \
    T want1 = START;                                                                          \
    for (long i = 0; i < n; i++) want1 = want1 * (T) 2;                                       \
    /* NaN stays NaN, payload aside: the GPU's float multiply returns its                     \
     * canonical NaN 0x7fffffff, the host keeps 0x7fc00000 */                                 \
    if (isnan((double) want1))                                                                \
      assert_true(isnan((double) acc[1]));                                                    \
    else                                                                                      \
      assert_memory_equal(&acc[1], &want1, sizeof(T));                                        \
    targetFree(t_acc);                                                                        \
    targetFree(t_stuck);                                                                      \
  }
/* integers: 0 stays 0 (doubling) */
CX_TESTS(Int, int, 0)
CX_TESTS(Long, long, 0)
CX_TESTS(Float, float, (float) NAN)
CX_TESTS(Double, double, (double) NAN)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contention_Int),   cmocka_unit_test(test_semantics_Int),
      cmocka_unit_test(test_contention_Long),  cmocka_unit_test(test_semantics_Long),
      cmocka_unit_test(test_contention_Float), cmocka_unit_test(test_semantics_Float),
      cmocka_unit_test(test_contention_Double), cmocka_unit_test(test_semantics_Double),
      cmocka_unit_test(test_nan_Float),         cmocka_unit_test(test_nan_Double),
      cmocka_unit_test(test_cx_loop_Int),       cmocka_unit_test(test_cx_loop_Long),
      cmocka_unit_test(test_cx_loop_Float),     cmocka_unit_test(test_cx_loop_Double),
  };
  return cmocka_run_group_tests_name("atomics " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
