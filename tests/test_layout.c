/*
 * test_layout.c -- the layout macros TDP_INDEX, TDP_INDEX2, TDP_NSITES_ALLOC
 * and TDP_FIELD_SIZE, and the configuration macros, for the layout this
 * binary was compiled with (LAYOUT=, VVL=, SAL= make variables).
 */
#include "test_util.h"

/* The expected formulas, written independently of targetDP.h (design
 * notes section 2: the paper swaps AoS and SoA; these are the right ones). */
static size_t wantIndex(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
#if defined(TARGETDP_AOS)
  (void) nsites;
  return isite * ncomp + icomp;
#elif defined(TARGETDP_SOA)
  (void) ncomp;
  return icomp * nsites + isite;
#else
  (void) nsites;
  return (isite / SAL) * ncomp * SAL + icomp * SAL + isite % SAL;
#endif
}

static size_t wantAlloc(size_t nsites) {
#if defined(TARGETDP_AOSOA)
  size_t n = nsites;
  while (n % SAL) n++;
  return n;
#else
  return nsites;
#endif
}

/* Site counts: not multiples of SAL (when SAL > 1), multiples, and one. */
#define NLAYOUT_SIZES 8
static int layoutSize(int k) {
  const int n[NLAYOUT_SIZES] = {1, SAL > 1 ? SAL - 1 : 3, SAL, SAL + 1, 3 * SAL + 2, 37, 1000, 1003};
  return n[k];
}
#define NCOMPS 5
static int layoutComp(int k) {
  const int c[NCOMPS] = {1, 2, 3, 9, 19};
  return c[k];
}

static void test_index_formula(void **state) {
  (void) state;
  for (int k = 0; k < NLAYOUT_SIZES; k++) {
    for (int j = 0; j < NCOMPS; j++) {
      int n = layoutSize(k), nc = layoutComp(j);
      tuSetContext("%s nsites %d ncomp %d", TARGETDP_LAYOUT, n, nc);
      tuCheck c;
      tuCheckInit(&c);
      for (int s = 0; s < n; s++)
        for (int ic = 0; ic < nc; ic++)
          tuCheckEq(&c, (long) s * nc + ic, (double) TDP_INDEX(n, nc, s, ic),
                    (double) wantIndex(n, nc, s, ic));
      tuCheckDone(&c, "TDP_INDEX", (long) n * nc);
    }
  }
}

/* TDP_INDEX is a bijection from (site, component) into [0, TDP_FIELD_SIZE),
 * and what it leaves out is only the AoSoA padding of the last short array. */
static void test_index_bijection(void **state) {
  (void) state;
  for (int k = 0; k < NLAYOUT_SIZES; k++) {
    for (int j = 0; j < NCOMPS; j++) {
      int n = layoutSize(k), nc = layoutComp(j);
      size_t size = TDP_FIELD_SIZE(n, nc);
      tuSetContext("%s nsites %d ncomp %d size %zu", TARGETDP_LAYOUT, n, nc, size);
      tuAssertClose((double) size, (double) (wantAlloc(n) * nc), 0.0);
      int *hits = (int *) calloc(size, sizeof(int));
      assert_non_null(hits);
      long outside = 0;
      for (int s = 0; s < n; s++) {
        for (int ic = 0; ic < nc; ic++) {
          size_t i = TDP_INDEX(n, nc, s, ic);
          if (i < size) hits[i]++;
          else outside++;
        }
      }
      if (outside) fail_msg("[%s] %ld indices outside the field", tu_context, outside);
      long twice = 0, unused = 0;
      for (size_t i = 0; i < size; i++) {
        twice += hits[i] > 1;
        unused += hits[i] == 0;
      }
      if (twice) fail_msg("[%s] %ld elements hit more than once", tu_context, twice);
      /* the unused elements are exactly the padding */
      tuAssertClose((double) unused, (double) ((wantAlloc(n) - n) * nc), 0.0);
      free(hits);
    }
  }
}

static void test_nsites_alloc_and_field_size(void **state) {
  (void) state;
  for (int n = 1; n <= 4 * SAL + 3; n++) {
    tuSetContext("nsites %d", n);
    tuAssertClose((double) TDP_NSITES_ALLOC(n), (double) wantAlloc(n), 0.0);
    assert_true(TDP_NSITES_ALLOC(n) >= (size_t) n);
    assert_true(TDP_NSITES_ALLOC(n) < (size_t) n + SAL);
    for (int nc = 1; nc <= 19; nc += 6)
      tuAssertClose((double) TDP_FIELD_SIZE(n, nc), (double) (wantAlloc(n) * nc), 0.0);
  }
#if defined(TARGETDP_AOSOA)
  assert_int_equal(TDP_NSITES_ALLOC(SAL * 7), SAL * 7);
  assert_int_equal(TDP_NSITES_ALLOC(SAL * 7 + 1), SAL * 8);
#else
  assert_int_equal(TDP_NSITES_ALLOC(1003), 1003);
#endif
  /* the result is a size_t */
  assert_int_equal(sizeof(TDP_FIELD_SIZE(10, 3)), sizeof(size_t));
}

static void test_index2(void **state) {
  (void) state;
  int n = 1003;
  for (int n1 = 1; n1 <= 3; n1++) {
    for (int n2 = 1; n2 <= 4; n2++) {
      tuSetContext("%d x %d components", n1, n2);
      tuCheck c;
      tuCheckInit(&c);
      size_t size = TDP_FIELD_SIZE(n, n1 * n2);
      char *hit = (char *) calloc(size, 1);
      assert_non_null(hit);
      long dup = 0;
      for (int s = 0; s < n; s++) {
        for (int a = 0; a < n1; a++) {
          for (int b = 0; b < n2; b++) {
            size_t i = TDP_INDEX2(n, n1, n2, s, a, b);
            tuCheckEq(&c, s, (double) i, (double) wantIndex(n, n1 * n2, s, a * n2 + b));
            if (i < size) dup += hit[i]++ != 0;
            else dup++;
          }
        }
      }
      tuCheckDone(&c, "TDP_INDEX2", (long) n * n1 * n2);
      assert_int_equal(dup, 0);
      free(hit);
    }
  }
}

/* TDP_VINDEX(base, v) is TDP_INDEX(base + v) for every TLP stride base (a
 * multiple of VVL) and lane v of it, including a short last stride; so is
 * TDP_VINDEX2 for TDP_INDEX2. */
static void test_vindex(void **state) {
  (void) state;
  for (int k = 0; k < NLAYOUT_SIZES; k++) {
    for (int j = 0; j < NCOMPS; j++) {
      int n = layoutSize(k) + VVL / 2, nc = layoutComp(j);
      tuSetContext("%s VVL %d SAL %d nsites %d ncomp %d", TARGETDP_LAYOUT, VVL, SAL, n, nc);
      tuCheck c;
      tuCheckInit(&c);
      for (int base = 0; base < n; base += VVL)
        for (int v = 0; v < VVL && base + v < n; v++)
          for (int ic = 0; ic < nc; ic++)
            tuCheckEq(&c, (long) (base + v) * nc + ic, (double) TDP_VINDEX(n, nc, base, ic, v),
                      (double) wantIndex(n, nc, base + v, ic));
      tuCheckDone(&c, "TDP_VINDEX", (long) n * nc);
      tuCheckInit(&c);
      for (int base = 0; base < n; base += VVL)
        for (int v = 0; v < VVL && base + v < n; v++)
          tuCheckEq(&c, base + v, (double) TDP_VINDEX2(n, 3, 3, base, 2, 1, v),
                    (double) wantIndex(n, 9, base + v, 7));
      tuCheckDone(&c, "TDP_VINDEX2", n);
    }
  }
}

/* Macro arguments that are expressions must be parenthesised. */
static void test_macro_arguments_are_expressions(void **state) {
  (void) state;
  int n = 1003, two = 2, one = 1;
  tuSetContext("expression arguments");
  tuAssertClose((double) TDP_INDEX(n, two + one, 5 + 1, one + 1),
                (double) wantIndex(n, 3, 6, 2), 0.0);
  tuAssertClose((double) TDP_INDEX(1000 + 3, 3, 600 + one, 2 * one),
                (double) wantIndex(n, 3, 601, 2), 0.0);
  tuAssertClose((double) TDP_INDEX2(n, one + 1, two + 1, 7, one, two),
                (double) wantIndex(n, 6, 7, 1 * 3 + 2), 0.0);
  tuAssertClose((double) TDP_FIELD_SIZE(1000 + 3, one + two),
                (double) (wantAlloc(1003) * 3), 0.0);
  tuAssertClose((double) TDP_NSITES_ALLOC(1000 + two + 1), (double) wantAlloc(1003), 0.0);
  /* an index expression may be used in an arithmetic context */
  tuAssertClose((double) (2 * TDP_INDEX(n, 3, 10, 1)), 2.0 * wantIndex(n, 3, 10, 1), 0.0);
}

/* Sizes beyond 2^31: 19 components of a 512^3 lattice. */
static void test_index_no_int_overflow(void **state) {
  (void) state;
  int n = 512 * 512 * 512, nc = 19;
  size_t last = TDP_INDEX(n, nc, n - 1, nc - 1);
  tuSetContext("512^3 x 19");
  tuAssertClose((double) last, (double) wantIndex((size_t) n, nc, (size_t) n - 1, nc - 1), 0.0);
  assert_true(last > (size_t) 2147483647);
  assert_true(last < TDP_FIELD_SIZE(n, nc));
  tuAssertClose((double) TDP_FIELD_SIZE(n, nc), (double) wantAlloc(n) * nc, 0.0);
}

static void test_config_macros(void **state) {
  (void) state;
  char want[200];
  snprintf(want, sizeof(want), "backend=%s layout=%s VVL=%d SAL=%d TPB=%d",
#ifdef __CUDACC__
           "cuda",
#else
           "c",
#endif
           TARGETDP_LAYOUT, VVL, SAL, TARGET_TPB);
  tuAssertContains(TARGETDP_CONFIG, want);
  assert_string_equal(TARGETDP_BACKEND, strstr(want, "cuda") ? "cuda" : "c");
#if defined(TARGETDP_AOS)
  assert_string_equal(TARGETDP_LAYOUT, "AOS");
#elif defined(TARGETDP_SOA)
  assert_string_equal(TARGETDP_LAYOUT, "SOA");
#else
  assert_string_equal(TARGETDP_LAYOUT, "AOSOA");
#endif
  assert_true(VVL >= 1 && SAL >= 1);
  assert_true(TARGET_TPB % 32 == 0);
  char num[32];
  snprintf(num, sizeof(num), "%d", VVL);
  assert_string_equal(TDP_STR(VVL), num);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_index_formula),
      cmocka_unit_test(test_index_bijection),
      cmocka_unit_test(test_nsites_alloc_and_field_size),
      cmocka_unit_test(test_index2),
      cmocka_unit_test(test_vindex),
      cmocka_unit_test(test_macro_arguments_are_expressions),
      cmocka_unit_test(test_index_no_int_overflow),
      cmocka_unit_test(test_config_macros),
  };
  return cmocka_run_group_tests_name("layout " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
