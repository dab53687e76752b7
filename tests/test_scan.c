/*
 * test_scan.c -- targetScan{Inclusive,Exclusive}{Int,Long,Double} and
 * targetCompactIndices against serial references on the host, for sizes 0,
 * 1, odd, around the C backend's scan blocks (8192, in groups of 4) and large; out of
 * place and in place, with guard elements after the end that must not
 * change; ints and longs exact, doubles within 1e-12 of the sum of
 * magnitudes (and exact on integer-valued data). Compaction also at its
 * edges: mask pointers at offsets 0..15, sizes around 16 and around the
 * CUDA kernel's tiles, set bytes just outside the mask; on CUDA under each
 * of the backend's kernel variants (TARGETDP_COMPACT unset, t256r4, ...).
 */

#include "test_util.h"

static const size_t ssizes[] = {0, 1, 2, 7, VVL + 1, 1003, 8191, 8193, 32767, 32768, 32769,
                                100003, (1 << 20) + 3};
#define NSSIZES (sizeof(ssizes) / sizeof(ssizes[0]))
#define GUARD 4

/* The CUDA backend's compaction kernels, picked by TARGETDP_COMPACT at
 * each call (NULL: the default; cub, CUB's select, is only for comparison
 * and is validated by bench_blocks); every compaction test runs under
 * each. The C backend ignores the variable: its tests run once. */
#ifdef __CUDACC__
static const char *const compact_kinds[] = {NULL,         "t256r4",     "t256r2",
                                            "t512r2v2",   "t512r2v2cs", "t512r2"};
#else
static const char *const compact_kinds[] = {NULL};
#endif
#define NKINDS (sizeof(compact_kinds) / sizeof(compact_kinds[0]))
static const char *compact_kind = "default"; /* for the failure messages */

static void set_compact_kind(size_t i) {
  if (compact_kinds[i]) setenv("TARGETDP_COMPACT", compact_kinds[i], 1);
  else unsetenv("TARGETDP_COMPACT");
  compact_kind = compact_kinds[i] ? compact_kinds[i] : "default";
}

/* test_NAME runs NAME's body once per kernel. */
#define PER_KERNEL(NAME)                                                                   \
  static void test_##NAME(void **state) {                                                  \
    for (size_t i = 0; i < NKINDS; i++) {                                                  \
      set_compact_kind(i);                                                                 \
      NAME##_body(state);                                                                  \
    }                                                                                      \
    set_compact_kind(0);                                                                   \
  }

/* TDP_TEST_SMALL: the compaction tests leave out masks of more than
 * SMALL_MAX sites. Set under racecheck, which tracks every shared-memory
 * access (the kernels stage each set site's position there): the 17 M-site
 * calls of test_compact_reuse, under six kernels, took it past minutes,
 * and a shared-memory hazard shows on any tile, 8 or more of them here. */
#define SMALL_MAX 100003
static int tooBig(size_t n) { return n > SMALL_MAX && getenv("TDP_TEST_SMALL"); }

/* One test per element type, from one body: T the type, NAME the suffix
 * of its API names (targetScanInclusive##NAME), TEST the test's name. */
#define SCAN_TEST(T, TEST, NAME, FILL, TOL)                                                 \
  static void test_scan_##TEST(void **state) {                                             \
    (void) state;                                                                          \
    for (size_t k = 0; k < NSSIZES; k++) {                                                 \
      size_t n = ssizes[k];                                                                \
      T *in = (T *) tuMalloc((n + GUARD) * sizeof(T));                                     \
      T *out = (T *) tuMalloc((n + GUARD) * sizeof(T));                                    \
      double *ref = (double *) tuMalloc((n + 1) * sizeof(double));                         \
      double *mag = (double *) tuMalloc((n + 1) * sizeof(double));                         \
      tuRng r;                                                                             \
      tuSeed(&r, 700 + n);                                                                 \
      for (size_t i = 0; i < n; i++) in[i] = FILL;                                         \
      for (size_t i = n; i < n + GUARD; i++) in[i] = (T) 77;                               \
      /* ref[i]: sum of in[0..i-1], exact for the integer types (< 2^53) */                \
      ref[0] = mag[0] = 0.0;                                                               \
      long double acc = 0.0L, amag = 0.0L;                                                 \
      for (size_t i = 0; i < n; i++) {                                                     \
        acc += (long double) in[i];                                                        \
        amag += fabsl((long double) in[i]);                                                \
        ref[i + 1] = (double) acc;                                                         \
        mag[i + 1] = (double) amag;                                                        \
      }                                                                                    \
      T *t_in = NULL, *t_out = NULL;                                                       \
      assert_int_equal(targetMalloc(&t_in, (n + GUARD) * sizeof(T)), TARGET_SUCCESS);      \
      assert_int_equal(targetMalloc(&t_out, (n + GUARD) * sizeof(T)), TARGET_SUCCESS);     \
      for (int mode = 0; mode < 2; mode++) {                                               \
        for (int inplace = 0; inplace < 2; inplace++) {                                    \
          tuSetContext("%s scan of %zu " #T ", %s", mode ? "exclusive" : "inclusive", n,   \
                       inplace ? "in place" : "out of place");                             \
          T *dst = inplace ? t_in : t_out;                                                 \
          assert_int_equal(copyToTarget(t_in, in, (n + GUARD) * sizeof(T)), TARGET_SUCCESS); \
          for (size_t i = 0; i < n + GUARD; i++) out[i] = (T) -5;                          \
          assert_int_equal(copyToTarget(t_out, out, (n + GUARD) * sizeof(T)), TARGET_SUCCESS); \
          int rc = mode ? targetScanExclusive##NAME(dst, t_in, n)                          \
                        : targetScanInclusive##NAME(dst, t_in, n);                         \
          assert_int_equal(rc, TARGET_SUCCESS);                                            \
          assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                           \
          assert_int_equal(copyFromTarget(out, dst, (n + GUARD) * sizeof(T)), TARGET_SUCCESS); \
          tuCheck c;                                                                       \
          tuCheckInit(&c);                                                                 \
          long nfar = 0, firstfar = -1;                                                    \
          for (size_t i = 0; i < n; i++) {                                                 \
            double want = ref[mode ? i : i + 1], got = (double) out[i];                    \
            if (TOL == 0.0) tuCheckEq(&c, (long) i, got, want);                            \
            else if (!(fabs(got - want) <= TOL * mag[mode ? i : i + 1]) && nfar++ == 0)    \
              firstfar = (long) i;                                                         \
          }                                                                                \
          for (size_t i = n; i < n + GUARD; i++)                                           \
            tuCheckEq(&c, (long) i, (double) out[i], inplace ? 77.0 : -5.0);               \
          tuCheckDone(&c, "scan", n + GUARD);                                              \
          if (nfar)                                                                        \
            fail_msg("[%s] %ld values beyond %g x the sum of magnitudes, first at %ld: "   \
                     "%.17g want %.17g", tu_context, nfar, (double) TOL, firstfar,         \
                     (double) out[firstfar], ref[mode ? firstfar : firstfar + 1]);          \
        }                                                                                  \
      }                                                                                    \
      assert_int_equal(targetFree(t_in), TARGET_SUCCESS);                                  \
      assert_int_equal(targetFree(t_out), TARGET_SUCCESS);                                 \
      free(in);                                                                            \
      free(out);                                                                           \
      free(ref);                                                                           \
      free(mag);                                                                           \
    }                                                                                      \
  }

/* ints in +-1000: prefix sums stay far inside int; longs up to 2^40: the
 * sums pass INT_MAX at once (an int scan of them would be wrong); doubles
 * of mixed sign, then integer-valued doubles (every sum exact). */
SCAN_TEST(int, int, Int, (int) tuInt(&r, -1000, 1000), 0.0)
SCAN_TEST(long, long, Long, (long) (tuNext(&r) >> 24) - (1L << 39), 0.0)
SCAN_TEST(double, double, Double, 2.0 * tuUniform(&r) - 1.0, 1e-12)
SCAN_TEST(double, double_integral, Double, (double) tuInt(&r, -4096, 4096), 0.0)

/* Compacts t_mask (n sites, whose host copy is mask) into t_idx and checks
 * the count and every index against mask; idx: host room for n longs. */
static void compactAndCheck(long *t_idx, long *idx, const char *t_mask, const char *mask,
                            size_t n) {
  size_t want = 0;
  for (size_t i = 0; i < n; i++) want += mask[i] != 0;
  size_t count = 12345;
  assert_int_equal(targetCompactIndices(t_idx, &count, t_mask, n), TARGET_SUCCESS);
  if (count != want) fail_msg("[%s] count %zu, want %zu", tu_context, count, want);
  if (count > 0)
    assert_int_equal(copyFromTarget(idx, t_idx, count * sizeof(long)), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (size_t i = 0, j = 0; i < n; i++)
    if (mask[i]) tuCheckEq(&c, (long) j, (double) idx[j], (double) i), j++;
  tuCheckDone(&c, "indices", count);
}

static void compact_body(void **state) {
  (void) state;
  const double density[] = {0.0, 0.01, 0.5, 0.97, 1.0};
  for (size_t k = 0; k < NSSIZES; k++) {
    size_t n = ssizes[k];
    if (tooBig(n)) continue;
    char *mask = (char *) tuMalloc(n + 1);
    long *idx = (long *) tuMalloc((n + 1) * sizeof(long));
    char *t_mask = NULL;
    long *t_idx = NULL;
    assert_int_equal(targetMalloc(&t_mask, n + 1), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t_idx, (n + 1) * sizeof(long)), TARGET_SUCCESS);
    for (int d = 0; d < 5; d++) {
      tuRng r;
      tuSeed(&r, 900 + n + d);
      /* any non-zero char counts, negative ones too */
      for (size_t i = 0; i < n; i++)
        mask[i] = tuUniform(&r) < density[d] ? (char) (i % 3 == 0 ? -1 : (int) (1 + i % 100)) : 0;
      tuSetContext("%s compaction of %zu sites, density %g", compact_kind, n, density[d]);
      assert_int_equal(copyToTarget(t_mask, mask, n + 1), TARGET_SUCCESS);
      compactAndCheck(t_idx, idx, t_mask, mask, n);
    }
    assert_int_equal(targetFree(t_mask), TARGET_SUCCESS);
    assert_int_equal(targetFree(t_idx), TARGET_SUCCESS);
    free(mask);
    free(idx);
  }
}

/* Calls in a row that reuse the CUDA kernel's scratch: tile states left by
 * a larger earlier call, with other counts, must not be read as this
 * call's (they carry an older epoch), and the scratch grows past its first
 * 1024 tiles (16.8 M sites) in the middle. A scan between the calls must
 * not disturb them either. Each call's mask differs from the last. */
static void compact_reuse_body(void **state) {
  (void) state;
  const size_t sizes[] = {5000003, 70001, 5000003, 16384, 17000017, 3, 5000003, 17000017, 1};
  const size_t nmax = 17000017;
  char *mask = (char *) tuMalloc(nmax);
  long *idx = (long *) tuMalloc(nmax * sizeof(long));
  char *t_mask = NULL;
  long *t_idx = NULL, *t_scan = NULL;
  assert_int_equal(targetMalloc(&t_mask, nmax), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_idx, nmax * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_scan, 1000 * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(targetSetConstantLong(t_scan, 1, 1000), TARGET_SUCCESS);
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    size_t n = sizes[k];
    if (tooBig(n)) continue;
    tuRng r;
    tuSeed(&r, 4242 + k);
    const double density = k % 2 ? 0.8 : 0.3;
    for (size_t i = 0; i < n; i++) mask[i] = tuUniform(&r) < density;
    tuSetContext("call %zu in a row: %s compaction of %zu sites, density %g", k, compact_kind, n,
                 density);
    assert_int_equal(copyToTarget(t_mask, mask, n), TARGET_SUCCESS);
    compactAndCheck(t_idx, idx, t_mask, mask, n);
    assert_int_equal(targetScanInclusiveLong(t_scan, t_scan, 1000), TARGET_SUCCESS);
  }
  assert_int_equal(targetFree(t_mask), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_idx), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_scan), TARGET_SUCCESS);
  free(mask);
  free(idx);
}

/* The edges of a compaction that reads the mask 16 bytes at a time (the
 * CUDA kernel, tiles of 16384 sites): sizes around 16 and around the tiles,
 * the mask at every offset 0..15 from an aligned allocation (an interior
 * pointer) with set bytes just outside [t_mask, t_mask + n) that must not
 * be read as sites, densities 0, 1/2 and 1, mask values other than 0/1,
 * and index elements after the count that must not change. */
static void compact_edges_body(void **state) {
  (void) state;
  static const size_t sizes[] = {0, 1, 15, 16, 17, 31, 33, 255, 4097, 8191, 8192, 8193,
                                 16383, 16384, 16385, 32767, 32768, 32769, 49153,
                                 (1 << 20) + 7};
  static const char *const what[] = {"none set", "half set", "all set", "values 1-255"};
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    const size_t n = sizes[k], room = n + 32;
    if (tooBig(n)) continue;
    char *full = (char *) tuMalloc(room), *mask = NULL;
    long *idx = (long *) tuMalloc((n + GUARD) * sizeof(long));
    char *t_mask = NULL;
    long *t_idx = NULL;
    assert_int_equal(targetMalloc(&t_mask, room), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t_idx, (n + GUARD) * sizeof(long)), TARGET_SUCCESS);
    for (size_t off = 0; off < 16; off += n < 65536 ? 1 : 7) {
      mask = full + off;
      for (int d = 0; d < 4; d++) {
        tuRng r;
        tuSeed(&r, 1300 + 16 * n + off + d);
        for (size_t i = 0; i < room; i++) full[i] = (char) 1; /* outside the mask: set */
        size_t want = 0;
        for (size_t i = 0; i < n; i++) {
          unsigned v = d == 0 ? 0 : d == 1 ? (tuUniform(&r) < 0.5) * (1 + (unsigned) (i % 255))
                                  : d == 2 ? 1 : (unsigned) (i * 7 + off) & 0xff;
          mask[i] = (char) v; /* 128-255: negative chars, set all the same */
          want += mask[i] != 0;
        }
        tuSetContext("%s compaction of %zu sites at offset %zu, %s", compact_kind, n, off,
                     what[d]);
        assert_int_equal(copyToTarget(t_mask, full, room), TARGET_SUCCESS);
        for (size_t i = 0; i < n + GUARD; i++) idx[i] = -7;
        assert_int_equal(copyToTarget(t_idx, idx, (n + GUARD) * sizeof(long)), TARGET_SUCCESS);
        size_t count = 12345;
        assert_int_equal(targetCompactIndices(t_idx, &count, t_mask + off, n), TARGET_SUCCESS);
        if (count != want) fail_msg("[%s] count %zu, want %zu", tu_context, count, want);
        assert_int_equal(copyFromTarget(idx, t_idx, (n + GUARD) * sizeof(long)), TARGET_SUCCESS);
        tuCheck c;
        tuCheckInit(&c);
        size_t j = 0;
        for (size_t i = 0; i < n; i++) {
          if (mask[i]) tuCheckEq(&c, (long) j, (double) idx[j], (double) i);
          j += mask[i] != 0;
        }
        for (; j < n + GUARD; j++) tuCheckEq(&c, (long) j, (double) idx[j], -7.0);
        tuCheckDone(&c, "indices and the elements after them", n + GUARD);
      }
    }
    assert_int_equal(targetFree(t_mask), TARGET_SUCCESS);
    assert_int_equal(targetFree(t_idx), TARGET_SUCCESS);
    free(full);
    free(idx);
  }
}

/* n past 2^31: 64-bit sizes, offsets and indices. A 2 GiB mask set at
 * both ends and around 2^31 (a negative char among them), with room for n
 * indices (17 GiB, untouched past the count: the C backend's allocation
 * is lazy). Vetoed as test_extents' big fields are: TDP_TEST_NO_BIG (set
 * under valgrind and compute-sanitizer by run_tests.sh), AddressSanitizer,
 * or an allocation refused. */
static void compact_past_int_body(void **state) {
  (void) state;
  const char *veto = getenv("TDP_TEST_NO_BIG")  ? "TDP_TEST_NO_BIG is set"
                     : getenv("TDP_TEST_SMALL") ? "TDP_TEST_SMALL is set"
                                                : NULL;
#if defined(__SANITIZE_ADDRESS__)
  veto = "AddressSanitizer build";
#endif
  const size_t n = 2147483648UL + 17, two31 = 2147483648UL;
  static const size_t at[] = {0, 5, 2147483648UL - 17, 2147483648UL - 1, 2147483648UL,
                              2147483648UL + 3, 2147483648UL + 16};
  const size_t nat = sizeof(at) / sizeof(at[0]);
  char *t_mask = NULL;
  long *t_idx = NULL;
  if (!veto) {
    targetSetErrorAbort(0);
    if (targetCalloc(&t_mask, n) != TARGET_SUCCESS ||
        targetMalloc(&t_idx, n * sizeof(long)) != TARGET_SUCCESS)
      veto = "no memory for a 2 GiB mask and 17 GiB of indices";
    targetSetErrorAbort(1);
  }
  if (veto) {
    if (t_mask) targetFree(t_mask);
    print_message("# skipped: %s\n", veto);
    skip();
  }
  for (size_t k = 0; k < nat; k++) {
    char v = (char) (k == 3 ? -128 : (int) (1 + k));
    assert_int_equal(copyToTarget(t_mask + at[k], &v, 1), TARGET_SUCCESS);
  }
  /* from an odd offset too: the count drops the sites before it */
  for (size_t off = 0; off < 2; off++) {
    tuSetContext("%s compaction of 2^31 + %zu sites from offset %zu", compact_kind,
                 n - two31 - off, off);
    size_t count = 12345;
    long idx[16];
    assert_int_equal(targetCompactIndices(t_idx, &count, t_mask + off, n - off), TARGET_SUCCESS);
    if (count != nat - off) fail_msg("[%s] count %zu, want %zu", tu_context, count, nat - off);
    assert_int_equal(copyFromTarget(idx, t_idx, count * sizeof(long)), TARGET_SUCCESS);
    for (size_t k = off; k < nat; k++)
      if (idx[k - off] != (long) (at[k] - off))
        fail_msg("[%s] index %zu is %ld, want %ld", tu_context, k - off, idx[k - off],
                 (long) (at[k] - off));
  }
  assert_int_equal(targetFree(t_mask), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_idx), TARGET_SUCCESS);
}

PER_KERNEL(compact)
PER_KERNEL(compact_edges)
PER_KERNEL(compact_reuse)
PER_KERNEL(compact_past_int)

/* Bad arguments are refused with the call's name; n = 0 is not one. On
 * CUDA an unknown TARGETDP_COMPACT too (not taken for the default). */
static void test_scan_errors(void **state) {
  (void) state;
  double *t_a = NULL;
  long *t_i = NULL;
  char *t_m = NULL;
  size_t count = 0;
  assert_int_equal(targetMalloc(&t_a, 100 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_i, 100 * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_m, 100), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  expectError(targetScanInclusiveDouble(t_a, NULL, 10), TARGET_ERROR_INVALID_VALUE,
              "targetScanInclusiveDouble", "NULL");
  expectError(targetScanExclusiveDouble(t_a, t_a, 101), TARGET_ERROR_INVALID_VALUE,
              "targetScanExclusiveDouble", "only 800 remain");
  expectError(targetScanInclusiveDouble(t_a + 1, t_a, 50), TARGET_ERROR_INVALID_VALUE,
              "targetScanInclusiveDouble", "overlap");
  expectError(targetScanInclusiveLong(t_i, t_i, (size_t) -3), TARGET_ERROR_INVALID_VALUE,
              "targetScanInclusiveLong", "absurd");
  expectError(targetCompactIndices(t_i, NULL, t_m, 10), TARGET_ERROR_INVALID_VALUE,
              "targetCompactIndices", "NULL");
  expectError(targetCompactIndices(t_i, &count, t_m, 101), TARGET_ERROR_INVALID_VALUE,
              "targetCompactIndices", "the mask");
  expectError(targetCompactIndices(t_i + 50, &count, t_m, 100), TARGET_ERROR_INVALID_VALUE,
              "targetCompactIndices", "the index array");
#ifdef __CUDACC__
  setenv("TARGETDP_COMPACT", "t512r3", 1);
  expectError(targetCompactIndices(t_i, &count, t_m, 100), TARGET_ERROR_INVALID_VALUE,
              "targetCompactIndices", "TARGETDP_COMPACT=t512r3");
  unsetenv("TARGETDP_COMPACT");
#endif
  targetSetErrorAbort(1);
  assert_int_equal(targetFree(t_a), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_i), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_m), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan_int),
      cmocka_unit_test(test_scan_long),
      cmocka_unit_test(test_scan_double),
      cmocka_unit_test(test_scan_double_integral),
      cmocka_unit_test(test_compact),
      cmocka_unit_test(test_compact_edges),
      cmocka_unit_test(test_compact_reuse),
      cmocka_unit_test(test_compact_past_int),
      cmocka_unit_test(test_scan_errors),
  };
  return cmocka_run_group_tests_name("scan " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
