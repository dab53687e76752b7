/*
 * test_types.c -- every element-typed helper for every element type (int,
 * long, float, double, double complex, float complex) against a host
 * reference: fill and zero, the library reductions, site-list, masked and
 * 3-D halo/edge copies, AoS<->SoA conversion and box pack/unpack, over
 * site counts that are and are not multiples of VVL; and the checks of the
 * element type and size.
 *
 * Moves are checked byte for byte (every element a distinct pattern, so a
 * wrong element size or index shows); reductions use small integers, whose
 * sums are exact in every type.
 */
#include "test_util.h"

/* Element i of the pattern `seed`: bytes that differ between elements. */
static void pattern(void *p, size_t n, size_t esz, unsigned seed) {
  unsigned char *b = (unsigned char *) p;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < esz; k++) b[i * esz + k] = (unsigned char) (i * 131u + k * 7u + seed * 29u + 1u);
}
static int same(const void *a, size_t i, const void *b, size_t j, size_t esz) {
  return memcmp((const char *) a + i * esz, (const char *) b + j * esz, esz) == 0;
}

/* The element-moving tests over one type: name, type. */
#define MOVE_TESTS(Name, T)                                                                   \
  static void test_fill_##Name(void **state) {                                                \
    (void) state;                                                                             \
    for (int k = 0; k < 8; k++) {                                                             \
      size_t n = (size_t) tuSize(k);                                                          \
      T *t = NULL, v;                                                                         \
      T *h = (T *) tuMalloc(n * sizeof(T));                                                   \
      pattern(&v, 1, sizeof(T), (unsigned) k + 3);                                            \
      assert_int_equal(targetMalloc(&t, n * sizeof(T)), TARGET_SUCCESS);                      \
      assert_int_equal(targetSetConstant##Name(t, v, n), TARGET_SUCCESS);                     \
      assert_int_equal(copyFromTarget(h, t, n * sizeof(T)), TARGET_SUCCESS);                  \
      for (size_t i = 0; i < n; i++) assert_true(same(h, i, &v, 0, sizeof(T)));              \
      assert_int_equal(targetZero##Name(t, n), TARGET_SUCCESS);                               \
      assert_int_equal(copyFromTarget(h, t, n * sizeof(T)), TARGET_SUCCESS);                  \
      for (size_t i = 0; i < n * sizeof(T); i++) assert_int_equal(((unsigned char *) h)[i], 0); \
      targetFree(t);                                                                          \
      free(h);                                                                                \
    }                                                                                         \
  }                                                                                           \
  /* site lists and masks, both directions: selected sites from src, the rest unchanged */   \
  static void test_subset_##Name(void **state) {                                              \
    (void) state;                                                                             \
    for (int k = 0; k < 8; k++) {                                                             \
      const long nsites = tuSize(k), ncomp = 3;                                               \
      const size_t size = TDP_FIELD_SIZE(nsites, ncomp), nb = size * sizeof(T);               \
      T *a = (T *) tuMalloc(nb), *b = (T *) tuMalloc(nb), *h = (T *) tuMalloc(nb), *t = NULL; \
      char *mask = (char *) tuMalloc((size_t) nsites);                                        \
      int *sites = (int *) tuMalloc((size_t) nsites * sizeof(int));                           \
      long nlist = 0;                                                                         \
      for (long s = 0; s < nsites; s++) {                                                     \
        mask[s] = (char) ((s * 7 + k) % 3 == 0);                                              \
        if (mask[s]) sites[nlist++] = (int) s;                                                \
      }                                                                                       \
      pattern(a, size, sizeof(T), 1);                                                         \
      pattern(b, size, sizeof(T), 2);                                                         \
      assert_int_equal(targetMalloc(&t, nb), TARGET_SUCCESS);                                 \
      for (int way = 0; way < 4; way++) {                                                     \
        /* 0/1: to target by list/mask, 2/3: from target by list/mask */                     \
        assert_int_equal(copyToTarget(t, way < 2 ? b : a, nb), TARGET_SUCCESS);                \
        memcpy(h, b, nb);                                                                     \
        int rc = way == 0   ? copyToTargetSites##Name(t, a, nsites, ncomp, sites, nlist)      \
                 : way == 1 ? copyToTargetMasked##Name(t, a, nsites, ncomp, mask)             \
                 : way == 2 ? copyFromTargetSites##Name(h, t, nsites, ncomp, sites, nlist)    \
                            : copyFromTargetMasked##Name(h, t, nsites, ncomp, mask);          \
        assert_int_equal(rc, TARGET_SUCCESS);                                                 \
        if (way < 2) assert_int_equal(copyFromTarget(h, t, nb), TARGET_SUCCESS);              \
        for (long s = 0; s < nsites; s++)                                                     \
          for (long c = 0; c < ncomp; c++) {                                                  \
            size_t i = TDP_INDEX(nsites, ncomp, s, c);                                        \
            assert_true(same(h, i, mask[s] ? a : b, i, sizeof(T)));                           \
          }                                                                                   \
      }                                                                                       \
      targetFree(t);                                                                          \
      free(a); free(b); free(h); free(mask); free(sites);                                     \
    }                                                                                         \
  }                                                                                           \
  static void test_halo_##Name(void **state) {                                                \
    (void) state;                                                                             \
    const int ext[3] = {5, 6, 7};                                                             \
    for (int nhalo = 1; nhalo <= 2; nhalo++) {                                                \
      const long nsites = 5 * 6 * 7, ncomp = 2;                                               \
      const size_t size = TDP_FIELD_SIZE(nsites, ncomp), nb = size * sizeof(T);               \
      T *a = (T *) tuMalloc(nb), *b = (T *) tuMalloc(nb), *h = (T *) tuMalloc(nb), *t = NULL; \
      pattern(a, size, sizeof(T), 5);                                                         \
      pattern(b, size, sizeof(T), 6);                                                         \
      assert_int_equal(targetMalloc(&t, nb), TARGET_SUCCESS);                                 \
      for (int edge = 0; edge < 2; edge++) {                                                  \
        assert_int_equal(copyToTarget(t, edge ? a : b, nb), TARGET_SUCCESS);                  \
        memcpy(h, b, nb);                                                                     \
        if (edge)                                                                             \
          assert_int_equal(copyFromTarget3DEdge##Name(h, t, ext, nhalo, ncomp), TARGET_SUCCESS); \
        else {                                                                                \
          assert_int_equal(copyToTarget3DHalo##Name(t, a, ext, nhalo, ncomp), TARGET_SUCCESS);  \
          assert_int_equal(copyFromTarget(h, t, nb), TARGET_SUCCESS);                         \
        }                                                                                     \
        for (int x = 0; x < ext[0]; x++)                                                      \
          for (int y = 0; y < ext[1]; y++)                                                    \
            for (int z = 0; z < ext[2]; z++) {                                                \
              const int xyz[3] = {x, y, z};                                                   \
              int halo = 0, inner = 1, near = 0;                                              \
              for (int d = 0; d < 3; d++) {                                                   \
                int lo = xyz[d], hi = ext[d] - 1 - xyz[d];                                    \
                if (lo < nhalo || hi < nhalo) halo = 1, inner = 0;                            \
                if (lo < 2 * nhalo || hi < 2 * nhalo) near = 1;                               \
              }                                                                               \
              int sel = edge ? (inner && near) : halo;                                        \
              long s = ((long) x * ext[1] + y) * ext[2] + z;                                  \
              for (long c = 0; c < ncomp; c++) {                                              \
                size_t i = TDP_INDEX(nsites, ncomp, s, c);                                    \
                assert_true(same(h, i, sel ? a : b, i, sizeof(T)));                           \
              }                                                                               \
            }                                                                                 \
      }                                                                                       \
      targetFree(t);                                                                          \
      free(a); free(b); free(h);                                                              \
    }                                                                                         \
  }                                                                                           \
  static void test_convert_##Name(void **state) {                                             \
    (void) state;                                                                             \
    for (int k = 0; k < 8; k++) {                                                             \
      const long nsites = tuSize(k), ncomp = 3;                                               \
      const size_t size = (size_t) nsites * ncomp, nb = size * sizeof(T);                     \
      T *a = (T *) tuMalloc(nb), *h = (T *) tuMalloc(nb), *h2 = (T *) tuMalloc(nb);           \
      T *t1 = NULL, *t2 = NULL;                                                               \
      pattern(a, size, sizeof(T), 9);                                                         \
      assert_int_equal(targetMalloc(&t1, nb), TARGET_SUCCESS);                                \
      assert_int_equal(targetMalloc(&t2, nb), TARGET_SUCCESS);                                \
      assert_int_equal(copyToTarget(t1, a, nb), TARGET_SUCCESS);                              \
      assert_int_equal(targetAoS2SoA##Name(t2, t1, nsites, ncomp), TARGET_SUCCESS);           \
      assert_int_equal(copyFromTarget(h, t2, nb), TARGET_SUCCESS);                            \
      assert_int_equal(targetSoA2AoS##Name(t1, t2, nsites, ncomp), TARGET_SUCCESS);           \
      assert_int_equal(copyFromTarget(h2, t1, nb), TARGET_SUCCESS);                           \
      for (long s = 0; s < nsites; s++)                                                       \
        for (long c = 0; c < ncomp; c++) {                                                    \
          assert_true(same(h, (size_t) c * nsites + s, a, (size_t) s * ncomp + c, sizeof(T))); \
          assert_true(same(h2, (size_t) s * ncomp + c, a, (size_t) s * ncomp + c, sizeof(T))); \
        }                                                                                     \
      targetFree(t1);                                                                         \
      targetFree(t2);                                                                         \
      free(a); free(h); free(h2);                                                             \
    }                                                                                         \
  }                                                                                           \
  /* a box of a 3-D field packed, then unpacked into another field */                        \
  static void test_pack_##Name(void **state) {                                                \
    (void) state;                                                                             \
    const long ext[3] = {4, 5, 7}, lo[3] = {1, 0, 2}, hi[3] = {3, 5, 7};                      \
    const long nsites = 4 * 5 * 7, ncomp = 3, nbox = 2 * 5 * 5;                               \
    const size_t size = TDP_FIELD_SIZE(nsites, ncomp), nb = size * sizeof(T);                 \
    const size_t bb = (size_t) nbox * ncomp * sizeof(T);                                      \
    T *a = (T *) tuMalloc(nb), *b = (T *) tuMalloc(nb), *h = (T *) tuMalloc(nb);              \
    T *buf = (T *) tuMalloc(bb), *t = NULL, *t2 = NULL, *tb = NULL;                           \
    pattern(a, size, sizeof(T), 11);                                                          \
    pattern(b, size, sizeof(T), 12);                                                          \
    assert_int_equal(targetMalloc(&t, nb), TARGET_SUCCESS);                                   \
    assert_int_equal(targetMalloc(&t2, nb), TARGET_SUCCESS);                                  \
    assert_int_equal(targetMalloc(&tb, bb), TARGET_SUCCESS);                                  \
    assert_int_equal(copyToTarget(t, a, nb), TARGET_SUCCESS);                                 \
    assert_int_equal(copyToTarget(t2, b, nb), TARGET_SUCCESS);                                \
    assert_int_equal(targetPackBox##Name(tb, t, 3, ext, lo, hi, ncomp, TARGET_STREAM_DEFAULT), \
                     TARGET_SUCCESS);                                                         \
    assert_int_equal(targetUnpackBox##Name(t2, tb, 3, ext, lo, hi, ncomp, TARGET_STREAM_DEFAULT), \
                     TARGET_SUCCESS);                                                         \
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                    \
    assert_int_equal(copyFromTarget(buf, tb, bb), TARGET_SUCCESS);                            \
    assert_int_equal(copyFromTarget(h, t2, nb), TARGET_SUCCESS);                              \
    for (long x = 0; x < ext[0]; x++)                                                         \
      for (long y = 0; y < ext[1]; y++)                                                       \
        for (long z = 0; z < ext[2]; z++) {                                                   \
          long s = (x * ext[1] + y) * ext[2] + z;                                             \
          int in = x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2]; \
          long kb = ((x - lo[0]) * (hi[1] - lo[1]) + (y - lo[1])) * (hi[2] - lo[2]) + z - lo[2]; \
          for (long c = 0; c < ncomp; c++) {                                                  \
            size_t i = TDP_INDEX(nsites, ncomp, s, c);                                        \
            assert_true(same(h, i, in ? a : b, i, sizeof(T)));                                \
            if (in) assert_true(same(buf, (size_t) (c * nbox + kb), a, i, sizeof(T)));        \
          }                                                                                   \
        }                                                                                     \
    targetFree(t);                                                                            \
    targetFree(t2);                                                                           \
    targetFree(tb);                                                                           \
    free(a); free(b); free(h); free(buf);                                                     \
  }

MOVE_TESTS(Int, int)
MOVE_TESTS(Long, long)
MOVE_TESTS(Float, float)
MOVE_TESTS(Double, double)
MOVE_TESTS(DoubleComplex, tdpDoubleComplex)
MOVE_TESTS(FloatComplex, tdpFloatComplex)

/* Small integers v(i) in [-40, 40]: every sum below is exact in float. */
static long small(size_t i, int k) { return (long) ((i * 37u + (unsigned) k * 11u) % 81u) - 40; }

/* Reductions of the real types: result type R. */
#define REDUCE_TESTS(Name, T, R)                                                              \
  static void test_reduce_##Name(void **state) {                                              \
    (void) state;                                                                             \
    for (int k = 0; k < TU_NSIZES; k++) {                                                     \
      size_t n = (size_t) tuSize(k);                                                          \
      T *h = (T *) tuMalloc(n * sizeof(T)), *t = NULL;                                        \
      long sum = 0, mn = 1000, mx = -1000;                                                    \
      for (size_t i = 0; i < n; i++) {                                                        \
        long v = small(i, k);                                                                 \
        h[i] = (T) v;                                                                         \
        sum += v;                                                                             \
        mn = v < mn ? v : mn;                                                                 \
        mx = v > mx ? v : mx;                                                                 \
      }                                                                                       \
      assert_int_equal(targetMalloc(&t, n * sizeof(T)), TARGET_SUCCESS);                      \
      assert_int_equal(copyToTarget(t, h, n * sizeof(T)), TARGET_SUCCESS);                    \
      R r = (R) 12345;                                                                        \
      assert_int_equal(target##Name##Sum(&r, t, n), TARGET_SUCCESS);                         \
      assert_true(r == (R) sum);                                                              \
      assert_int_equal(target##Name##Min(&r, t, n), TARGET_SUCCESS);                         \
      assert_true(r == (R) mn);                                                               \
      assert_int_equal(target##Name##Max(&r, t, n), TARGET_SUCCESS);                         \
      assert_true(r == (R) mx);                                                               \
      targetFree(t);                                                                          \
      free(h);                                                                                \
    }                                                                                         \
  }
REDUCE_TESTS(Int, int, long long)
REDUCE_TESTS(Long, long, long)
REDUCE_TESTS(Float, float, float)
REDUCE_TESTS(Double, double, double)

/* Complex sums, through the (real, imaginary) view that C99 and the C++
 * struct share; C the component type. */
#define COMPLEX_TESTS(Name, T, C)                                                             \
  static void test_reduce_##Name(void **state) {                                              \
    (void) state;                                                                             \
    for (int k = 0; k < TU_NSIZES; k++) {                                                     \
      size_t n = (size_t) tuSize(k);                                                          \
      T *h = (T *) tuMalloc(n * sizeof(T)), *t = NULL, r;                                     \
      long sre = 0, sim = 0;                                                                  \
      for (size_t i = 0; i < n; i++) {                                                        \
        ((C *) h)[2 * i] = (C) small(i, k);                                                   \
        ((C *) h)[2 * i + 1] = (C) small(i, k + 5);                                           \
        sre += small(i, k);                                                                   \
        sim += small(i, k + 5);                                                               \
      }                                                                                       \
      assert_int_equal(targetMalloc(&t, n * sizeof(T)), TARGET_SUCCESS);                      \
      assert_int_equal(copyToTarget(t, h, n * sizeof(T)), TARGET_SUCCESS);                    \
      assert_int_equal(target##Name##Sum(&r, t, n), TARGET_SUCCESS);                          \
      assert_true(((C *) &r)[0] == (C) sre);                                                  \
      assert_true(((C *) &r)[1] == (C) sim);                                                  \
      /* no order on complex numbers: the generic call refuses min and max */                \
      targetSetErrorAbort(0);                                                                 \
      assert_int_equal(tdpReduceT(&r, t, n, TDP_TYPE_##Name##_ENUM, sizeof(T), TDP_MIN, TDP_AT_), \
                       TARGET_ERROR_INVALID_VALUE);                                           \
      tuAssertContains(targetLastErrorString(), "no order");                                  \
      targetSetErrorAbort(1);                                                                 \
      targetFree(t);                                                                          \
      free(h);                                                                                \
    }                                                                                         \
  }
#define TDP_TYPE_DoubleComplex_ENUM TDP_TYPE_DOUBLE_COMPLEX
#define TDP_TYPE_FloatComplex_ENUM TDP_TYPE_FLOAT_COMPLEX
COMPLEX_TESTS(DoubleComplex, tdpDoubleComplex, double)
COMPLEX_TESTS(FloatComplex, tdpFloatComplex, float)

/* The element type and size: a size that is not the type's is refused in
 * every build; in a checked build, an allocation that is not a whole number
 * of elements (12 bytes as doubles), or a pointer off an element boundary. */
static void test_type_checks(void **state) {
  (void) state;
  double *t = NULL;
  float v = 1.0f;
  assert_int_equal(targetMalloc(&t, 12), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  expectError(tdpSetConstantT(t, &v, 1, TDP_TYPE_FLOAT, sizeof(double), TDP_AT_),
              TARGET_ERROR_INVALID_VALUE, "targetSetConstant", "element size 8");
  expectError(tdpSetConstantT(t, &v, 1, (tdpType) 42, 4, TDP_AT_), TARGET_ERROR_INVALID_VALUE,
              "targetSetConstant", "unknown element type");
  assert_int_equal(tdpTypeSize(TDP_TYPE_DOUBLE_COMPLEX), 16);
  assert_int_equal(tdpTypeSize(TDP_TYPE_FLOAT_COMPLEX), 8);
  assert_int_equal(targetZeroFloat((float *) t, 3), TARGET_SUCCESS); /* 12 bytes of floats */
#ifdef TARGETDP_CHECK
  expectError(targetZeroDouble(t, 1), TARGET_ERROR_INVALID_VALUE, "targetZero",
              "not a whole number of 8-byte elements");
  expectError(targetZeroFloat((float *) ((char *) t + 2), 1), TARGET_ERROR_INVALID_VALUE,
              "targetZero", "not a whole number of 4-byte elements");
#endif
  targetSetErrorAbort(1);
  targetFree(t);
}

#define TYPE_TESTS(Name)                                                                     \
  cmocka_unit_test(test_fill_##Name), cmocka_unit_test(test_subset_##Name),                 \
      cmocka_unit_test(test_halo_##Name), cmocka_unit_test(test_convert_##Name),            \
      cmocka_unit_test(test_pack_##Name), cmocka_unit_test(test_reduce_##Name)

int main(void) {
  const struct CMUnitTest tests[] = {
      TYPE_TESTS(Int),           TYPE_TESTS(Long),         TYPE_TESTS(Float),
      TYPE_TESTS(Double),        TYPE_TESTS(DoubleComplex), TYPE_TESTS(FloatComplex),
      cmocka_unit_test(test_type_checks),
  };
  return cmocka_run_group_tests_name("types " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
