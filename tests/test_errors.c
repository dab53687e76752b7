/*
 * test_errors.c -- error paths with targetSetErrorAbort(0): every bad call
 * returns its error code, leaves a readable message naming the call (and
 * the caller's file and line) in targetLastErrorString(), reports it in
 * targetLastError(), and changes nothing. The default (abort) mode is
 * tested in test_abort.c.
 */
#include "test_util.h"

static int setupNoAbort(void **state) {
  targetSetErrorAbort(0);
  return tuSetup(state);
}

static int teardownAbort(void **state) {
  int rc = tuTeardown(state);
  targetSetErrorAbort(1);
  return rc;
}

/* ---------------------------------------------------------------------- */

static void test_config_mismatch(void **state) {
  (void) state;
  int line = __LINE__ + 1;
  int rc = tdpInit("backend=x layout=AOS VVL=9 SAL=9 TPB=128", __FILE__, __LINE__);
  assert_int_equal(rc, TARGET_ERROR_CONFIG);
  assert_int_equal(targetLastError(), TARGET_ERROR_CONFIG);
  const char *m = targetLastErrorString();
  char where[64];
  snprintf(where, sizeof(where), "test_errors.c:%d", line);
  tuAssertContains(m, "targetInit failed at");
  tuAssertContains(m, where);
  tuAssertContains(m, "[backend=x layout=AOS VVL=9 SAL=9 TPB=128]"); /* the program's */
  tuAssertContains(m, "[" TARGETDP_CONFIG "]");                      /* the library's */
  tuAssertContains(m, "rebuild");
  /* the right configuration is still accepted */
  assert_int_equal(targetInit(), TARGET_SUCCESS);
}

/* Absurd allocation sizes: TARGET_ERROR_MEMORY, the call and the size in
 * the message, a NULL pointer back, and nothing else disturbed. */
/* After a refused call: the host array still equals h0 over nhost values,
 * and the target array t still holds h0 over nt values (read back into h). */
static void assertUntouched(double *h, const double *h0, size_t nhost, const double *t,
                            size_t nt) {
  assert_memory_equal(h, h0, nhost * sizeof(double));
  memset(h, 0, nt * sizeof(double));
  assert_int_equal(copyFromTarget(h, t, nt * sizeof(double)), TARGET_SUCCESS);
  assert_memory_equal(h, h0, nt * sizeof(double));
}

static void test_absurd_allocation(void **state) {
  (void) state;
  int n = 1003;
  double *h = (double *) tuMalloc(n * sizeof(double));
  double *h0 = (double *) tuMalloc(n * sizeof(double));
  double *t = NULL, *big = NULL;
  tuFillDouble(h0, n, -1.0, 1.0, 9);
  memcpy(h, h0, n * sizeof(double));
  assert_int_equal(targetMalloc(&t, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h, n * sizeof(double)), TARGET_SUCCESS);

  size_t absurd = (size_t) 1 << 60;
  big = h; /* must be overwritten with NULL */
  expectError(targetMalloc(&big, absurd), TARGET_ERROR_MEMORY, "targetMalloc",
              "1152921504606846976");
  assert_null(big);
  big = h;
  expectError(targetCalloc(&big, absurd), TARGET_ERROR_MEMORY, "targetCalloc",
              "1152921504606846976");
  assert_null(big);
  big = h;
  expectError(targetMallocUnified(&big, absurd), TARGET_ERROR_MEMORY, "targetMallocUnified",
              "1152921504606846976");
  assert_null(big);
  big = h;
  expectError(targetCallocUnified(&big, absurd), TARGET_ERROR_MEMORY, "targetCallocUnified",
              "1152921504606846976");
  assert_null(big);
  /* a "negative" size */
  expectError(targetMalloc(&big, (size_t) -8), TARGET_ERROR_MEMORY, "targetMalloc",
              "18446744073709551608");

  /* host data and the existing target allocation are intact */
  assertUntouched(h, h0, n, t, n);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  free(h);
  free(h0);
}

static void test_bad_allocation_arguments(void **state) {
  (void) state;
  double *t = NULL;
  expectError(targetMalloc(&t, 0), TARGET_ERROR_INVALID_VALUE, "targetMalloc", "size is zero");
  assert_null(t);
  expectError(targetCalloc(&t, 0), TARGET_ERROR_INVALID_VALUE, "targetCalloc", "size is zero");
  expectError(targetMallocUnified(&t, 0), TARGET_ERROR_INVALID_VALUE, "targetMallocUnified",
              "size is zero");
  expectError(targetCallocUnified(&t, 0), TARGET_ERROR_INVALID_VALUE, "targetCallocUnified",
              "size is zero");
  expectError(tdpMalloc(NULL, 64, 0, 0, __FILE__, __LINE__), TARGET_ERROR_INVALID_VALUE,
              "targetMalloc", "NULL");
}

static void test_bad_free(void **state) {
  (void) state;
  double *t = NULL;
  double host[4] = {1.0, 2.0, 3.0, 4.0};
  assert_int_equal(targetMalloc(&t, 4 * sizeof(double)), TARGET_SUCCESS);
  /* an interior pointer is not an allocation */
  expectError(targetFree(t + 1), TARGET_ERROR_INVALID_VALUE, "targetFree",
              "not a live target allocation");
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  /* double free */
  expectError(targetFree(t), TARGET_ERROR_INVALID_VALUE, "targetFree",
              "not a live target allocation");
  /* never allocated by targetDP */
  expectError(targetFree(host), TARGET_ERROR_INVALID_VALUE, "targetFree",
              "not a live target allocation");
  double *m = (double *) tuMalloc(16);
  expectError(targetFree(m), TARGET_ERROR_INVALID_VALUE, "targetFree", "freed twice");
  free(m);
  assert_true(host[0] == 1.0 && host[3] == 4.0);
}

static void test_bad_copies(void **state) {
  (void) state;
  int n = 100;
  double *t = NULL, *h = (double *) tuMalloc((n + 10) * sizeof(double));
  double *h0 = (double *) tuMalloc((n + 10) * sizeof(double));
  tuFillDouble(h0, n + 10, 3.0, 4.0, 12);
  memcpy(h, h0, (n + 10) * sizeof(double));
  assert_int_equal(targetMalloc(&t, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h, n * sizeof(double)), TARGET_SUCCESS);

  expectError(copyToTarget(NULL, h, 8), TARGET_ERROR_INVALID_VALUE, "copyToTarget", "NULL");
  expectError(copyToTarget(t, NULL, 8), TARGET_ERROR_INVALID_VALUE, "copyToTarget", "NULL");
  expectError(copyFromTarget(NULL, t, 8), TARGET_ERROR_INVALID_VALUE, "copyFromTarget", "NULL");
  expectError(copyFromTarget(h, NULL, 8), TARGET_ERROR_INVALID_VALUE, "copyFromTarget", "NULL");
  expectError(copyToTarget(t, h, 0), TARGET_ERROR_INVALID_VALUE, "copyToTarget", "size is zero");
  expectError(copyFromTarget(h, t, 0), TARGET_ERROR_INVALID_VALUE, "copyFromTarget",
              "size is zero");
  expectError(copyToTarget(t, h, (size_t) -8), TARGET_ERROR_INVALID_VALUE, "copyToTarget",
              "absurd");
  /* larger than the target allocation, from its start or from inside it */
  expectError(copyToTarget(t, h, (n + 1) * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget", "808 bytes asked of the target array but only 800 remain");
  expectError(copyFromTarget(h, t, (n + 10) * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "880 bytes asked");
  expectError(copyFromTarget(h, t + 90, 11 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "only 80 remain");
  expectError(copyConstToTarget(NULL, h, 8), TARGET_ERROR_INVALID_VALUE, "copyConstToTarget",
              "NULL");
  expectError(targetZero(NULL, 4), TARGET_ERROR_INVALID_VALUE, "targetZero", "NULL");
  expectError(targetZero(t, 0), TARGET_ERROR_INVALID_VALUE, "targetZero", "size is zero");
  expectError(targetZero(t, n + 1), TARGET_ERROR_INVALID_VALUE, "targetZero", "only 800 remain");
  expectError(targetSetConstant(t + 50, 2.0, 51), TARGET_ERROR_INVALID_VALUE,
              "targetSetConstant", "only 400 remain");

  /* nothing moved: host and target as before */
  assertUntouched(h, h0, n + 10, t, n);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  free(h);
  free(h0);
}

static void test_bad_subset_copies(void **state) {
  (void) state;
  int n = 64, nc = 3;
  size_t size = TDP_FIELD_SIZE(n, nc);
  double *t = NULL, *small = NULL, *h = (double *) tuMalloc(size * sizeof(double));
  char mask[64];
  int sites[3] = {0, 5, 63}, bad_sites[3] = {0, 64, 1}, neg_sites[2] = {3, -1};
  memset(mask, 1, sizeof(mask));
  tuFillDouble(h, size, 1.0, 2.0, 13);
  assert_int_equal(targetMalloc(&t, size * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&small, (size - 1) * sizeof(double)), TARGET_SUCCESS);

  expectError(copyToTargetMasked(t, h, n, nc, NULL), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "NULL mask");
  expectError(copyToTargetMasked(NULL, h, n, nc, mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "NULL");
  expectError(copyFromTargetMasked(NULL, t, n, nc, mask), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetMasked", "NULL");
  expectError(copyToTargetMasked(t, h, 0, nc, mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "must be positive");
  expectError(copyFromTargetMasked(h, t, n, -1, mask), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetMasked", "must be positive");
  expectError(copyToTargetMasked(small, h, n, nc, mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "remain");
  expectError(copyFromTargetMasked(h, small, n, nc, mask), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetMasked", "remain");
  expectError(copyToTargetSites(t, h, n, nc, bad_sites, 3), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "site 64 out of range [0, 64)");
  expectError(copyFromTargetSites(h, t, n, nc, neg_sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetSites", "site -1 out of range");
  expectError(copyToTargetSites(t, h, n, nc, NULL, 3), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "bad site list");
  expectError(copyToTargetSites(t, h, n, nc, sites, -1), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "bad site list");
  expectError(copyToTargetSites(small, h, n, nc, sites, 3), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "remain");

  /* 3-D: extents must exceed twice nhalo, nhalo >= 1, extents not NULL */
  int e[3] = {4, 4, 4}, e_thin[3] = {4, 2, 4};
  expectError(copyToTarget3DHalo(t, h, e, 2, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "must exceed twice nhalo");
  expectError(copyFromTarget3DEdge(h, t, e_thin, 1, 1), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget3DEdge", "4 x 2 x 4");
  expectError(copyToTarget3DHalo(t, h, e, 0, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "nhalo = 0");
  expectError(copyToTarget3DHalo(t, h, NULL, 1, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "NULL extents");
  /* 4^3 sites x 3 components do not fit in `small` */
  expectError(copyToTarget3DHalo(small, h, e, 1, nc), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "remain");

  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  assert_int_equal(targetFree(small), TARGET_SUCCESS);
  free(h);
}

static void test_bad_reductions_and_conversions(void **state) {
  (void) state;
  int n = 100;
  double *t = NULL, *t2 = NULL, res = 7.0;
  int *ti = NULL;
  long long ires = 7;
  assert_int_equal(targetCalloc(&t, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t2, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&ti, n * sizeof(int)), TARGET_SUCCESS);

  expectError(targetDoubleSum(NULL, t, n), TARGET_ERROR_INVALID_VALUE, "targetDoubleSum", "NULL");
  expectError(targetDoubleMin(&res, NULL, n), TARGET_ERROR_INVALID_VALUE, "targetDoubleMin",
              "NULL");
  expectError(targetDoubleMax(&res, t, 0), TARGET_ERROR_INVALID_VALUE, "targetDoubleMax",
              "size is zero");
  expectError(targetDoubleSum(&res, t, n + 1), TARGET_ERROR_INVALID_VALUE, "targetDoubleSum",
              "808 bytes asked");
  expectError(targetIntSum(&ires, ti, n + 1), TARGET_ERROR_INVALID_VALUE, "targetIntSum",
              "404 bytes asked");
  expectError(targetIntMin(NULL, ti, n), TARGET_ERROR_INVALID_VALUE, "targetIntMin", "NULL");
  expectError(targetIntMax(&ires, ti, 0), TARGET_ERROR_INVALID_VALUE, "targetIntMax",
              "size is zero");
  assert_true(res == 7.0 && ires == 7); /* results untouched */

  expectError(targetAoS2SoA(t, t, 10, 3), TARGET_ERROR_INVALID_VALUE, "targetAoS2SoA",
              "same array");
  expectError(targetSoA2AoS(t2, t, 0, 3), TARGET_ERROR_INVALID_VALUE, "targetSoA2AoS",
              "must be positive");
  expectError(targetAoS2SoA(t2, t, 34, 3), TARGET_ERROR_INVALID_VALUE, "targetAoS2SoA",
              "remain");
  expectError(targetSoA2AoS(NULL, t, 10, 3), TARGET_ERROR_INVALID_VALUE, "targetSoA2AoS", "NULL");

  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  assert_int_equal(targetFree(t2), TARGET_SUCCESS);
  assert_int_equal(targetFree(ti), TARGET_SUCCESS);
}

/* The sizes a bug produces: a negative int converted to size_t, counts
 * whose byte size wraps around 2^64 (2^61 + 1 doubles are "8 bytes"),
 * negative and zero extents, and products of extents that overflow an
 * int; every public call that takes a size or extent refuses them and
 * leaves everything as it was. */
static void test_bad_sizes_every_call(void **state) {
  (void) state;
  const int n = 64, nc = 3;
  const size_t size = TDP_FIELD_SIZE(n, nc), wrap = ((size_t) 1 << 61) + 1;
  const int neg = -5;
  double *t = NULL, *t2 = NULL, *h = (double *) tuMalloc(size * sizeof(double)), res = 7.0;
  double *h0 = (double *) tuMalloc(size * sizeof(double));
  int *ti = NULL, sites[2] = {0, 1};
  long long ires = 7;
  char mask[64];
  static double sym;
  memset(mask, 1, sizeof(mask));
  tuFillDouble(h0, size, 1.0, 2.0, 14);
  memcpy(h, h0, size * sizeof(double));
  assert_int_equal(targetMalloc(&t, size * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t2, size * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&ti, n * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h, size * sizeof(double)), TARGET_SUCCESS);

  /* a negative int as a byte or element count */
  expectError(copyFromTarget(h, t, (size_t) neg), TARGET_ERROR_INVALID_VALUE, "copyFromTarget",
              "absurd");
  expectError(copyConstToTarget(&sym, h, (size_t) neg), TARGET_ERROR_INVALID_VALUE,
              "copyConstToTarget", "absurd");
  expectError(copyConstToTarget(&sym, h, 0), TARGET_ERROR_INVALID_VALUE, "copyConstToTarget",
              "size is zero");
  expectError(copyConstToTarget(&sym, NULL, 8), TARGET_ERROR_INVALID_VALUE, "copyConstToTarget",
              "NULL");
  expectError(targetZero(t, (size_t) neg), TARGET_ERROR_INVALID_VALUE, "targetZero", "absurd");
  expectError(targetDoubleMin(&res, t, (size_t) neg), TARGET_ERROR_INVALID_VALUE,
              "targetDoubleMin", "absurd");
  expectError(targetIntSum(&ires, ti, (size_t) neg), TARGET_ERROR_INVALID_VALUE, "targetIntSum",
              "absurd");
  /* element counts whose byte size wraps to a few bytes */
  expectError(targetDoubleSum(&res, t, wrap), TARGET_ERROR_INVALID_VALUE, "targetDoubleSum",
              "absurd");
  expectError(targetSetConstant(t, 1.0, wrap), TARGET_ERROR_INVALID_VALUE, "targetSetConstant",
              "absurd");
  expectError(targetIntMax(&ires, ti, wrap), TARGET_ERROR_INVALID_VALUE, "targetIntMax",
              "absurd");
  /* negative, zero and absurd extents of subset copies and conversions */
  expectError(copyToTargetSites(t, h, neg, nc, sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "must be positive");
  expectError(copyFromTargetSites(h, t, n, 0, sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetSites", "must be positive");
  expectError(copyFromTargetMasked(h, t, n, neg, mask), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetMasked", "must be positive");
  expectError(copyToTargetMasked(t, h, 2147483647, 2147483647, mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "absurd");
  expectError(copyToTargetMasked(t, h, n + 1, nc, mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "remain"); /* n not matching the allocation */
    expectError(targetAoS2SoA(t2, t, n, neg), TARGET_ERROR_INVALID_VALUE, "targetAoS2SoA",
              "must be positive");
  expectError(targetSoA2AoS(t2, t, 1 << 30, 1 << 30), TARGET_ERROR_INVALID_VALUE,
              "targetSoA2AoS", "absurd");
  int e_neg[3] = {4, -4, 4}, e_big[3] = {2048, 2048, 2048}, e[3] = {4, 4, 4};
  expectError(copyToTarget3DHalo(t, h, e_neg, 1, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "4 x -4 x 4 must exceed twice nhalo");
  expectError(copyFromTarget3DEdge(h, t, e, neg, 1), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget3DEdge", "nhalo = -5");
  expectError(copyFromTarget3DEdge(h, t, e, 2147483647, 1), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget3DEdge", "nhalo = 2147483647");
  expectError(copyToTarget3DHalo(t, h, e, 1, 0), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "must be positive");
  /* 2^33 sites are a valid extent (64-bit), but not for this small field */
  expectError(copyToTarget3DHalo(t, h, e_big, 1, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "68719476736 bytes asked of the target field");
  /* targetInit without a configuration string */
  expectError(tdpInit(NULL, __FILE__, __LINE__), TARGET_ERROR_CONFIG, "targetInit", "(null)");

  /* nothing changed */
  assert_true(res == 7.0 && ires == 7);
  assertUntouched(h, h0, size, t, size);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  assert_int_equal(targetFree(t2), TARGET_SUCCESS);
  assert_int_equal(targetFree(ti), TARGET_SUCCESS);
  free(h);
  free(h0);
}

/* After errors the layer carries on normally. */
/* Interior pointers: a pointer inside an allocation of ours has only the
 * rest of that allocation, on the target side and on the host side (unified
 * memory is ours too); a constant only its own size. Each refusal leaves
 * everything untouched. */
static TDP_CONST double te_const;
static TDP_CONST double te_const_array[4];

static void test_interior_pointers(void **state) {
  (void) state;
  enum { N = 8 }; /* 64 bytes */
  double h[2 * N], h0[2 * N], r = 0.0, *t = NULL, *t2 = NULL, *u = NULL;
  int sites[2] = {0, N - 1};
  tuFillDouble(h0, 2 * N, -1.0, 1.0, 21);
  memcpy(h, h0, sizeof(h));
  assert_int_equal(targetMalloc(&t, N * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t2, N * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMallocUnified(&u, N * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h0, N * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t2, h0, N * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  memcpy(u, h0 + N, N * sizeof(double));

  /* target side: starting inside, running past the end */
  expectError(copyToTarget(t + 1, h, N * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget", "only 56 remain");
  expectError(copyFromTarget(h, t + 1, N * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "only 56 remain");
  expectError(targetZero(t + 1, N), TARGET_ERROR_INVALID_VALUE, "targetZero", "only 56 remain");
  expectError(targetSetConstant(t + 4, 1.0, 5), TARGET_ERROR_INVALID_VALUE,
              "targetSetConstant", "only 32 remain");
  expectError(targetDoubleSum(&r, t + 1, N), TARGET_ERROR_INVALID_VALUE, "targetDoubleSum",
              "only 56 remain");
  expectError(targetAoS2SoA(t2, t + 1, 4, 2), TARGET_ERROR_INVALID_VALUE, "targetAoS2SoA",
              "only 56 remain");
  expectError(targetSoA2AoS(t2 + 1, t, 4, 2), TARGET_ERROR_INVALID_VALUE, "targetSoA2AoS",
              "only 56 remain");
  expectError(copyToTargetSites(t + 1, h, N, 1, sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "remain");

  /* host side in unified memory: reading or writing past its end */
  expectError(copyToTarget(t, u + 1, N * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget", "only 56 remain");
  expectError(copyFromTarget(u + 1, t, N * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "only 56 remain");
  expectError(copyFromTargetSites(u + 1, t, N, 1, sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetSites", "remain");
  expectError(copyToTargetMasked(t, h, N, 1, (const char *) u + 60), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "only 4 remain");

  /* constants: no more than the variable holds */
  expectError(copyConstToTarget(&te_const, h, 2 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyConstToTarget", "16 bytes into a constant of 8 bytes");
  expectError(copyConstToTarget(te_const_array, h, 5 * sizeof(double)),
              TARGET_ERROR_INVALID_VALUE, "copyConstToTarget", "40 bytes into a constant of 32");
  assert_int_equal(copyConstToTarget(&te_const, h, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyConstToTarget(te_const_array, h, 4 * sizeof(double)), TARGET_SUCCESS);

  /* nothing moved: target arrays, host array and unified memory as before */
  assertUntouched(h, h0, 2 * N, t, N);
  assertUntouched(h, h0, 2 * N, t2, N);
  assert_memory_equal(u, h0 + N, N * sizeof(double));
  assert_int_equal(targetFree(u), TARGET_SUCCESS);
  assert_int_equal(targetFree(t2), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
}

/* Issue 25 item 5. A host buffer whose size the compiler knows (a local
 * or global array, a struct; a malloc of a known size when optimising)
 * holds no more than that: every host entry point refuses a count past it,
 * as copyConstToTarget refuses a count past its constant, instead of
 * writing past a 512-byte stack array. And a pointer exactly at the end of
 * a target allocation has nothing left (t + 8 of 8 doubles), in every
 * build: main took copyToTarget(t + 8, h, 64) for a host pointer and
 * returned 0. Each refusal leaves everything untouched. */
static double te_global[16];

/* targetFaceBox returns a site count, -1 when it refuses. */
#define expectFaceBoxError(call, sub)                                                  \
  do {                                                                                 \
    long r_ = (call);                                                                  \
    if (r_ != -1) fail_msg("%s returned %ld, want -1; last message: %s", #call, r_,      \
                           targetLastErrorString());                                   \
    assert_int_equal(targetLastError(), TARGET_ERROR_INVALID_VALUE);                   \
    tuAssertContains(targetLastErrorString(), "targetDP: targetFaceBox failed at ");  \
    tuAssertContains(targetLastErrorString(), "test_errors.c:");                       \
    tuAssertContains(targetLastErrorString(), sub);                                    \
  } while (0)

static void test_host_object_sizes(void **state) {
  (void) state;
  enum { N = 64 }; /* a 512-byte host array; a 1024-byte target array */
  double h[N], h0[N], big[2 * N], *t = NULL, *t8 = NULL;
  int sites[2] = {0, 1}, sites3[3] = {0, 1, 2};
  char mask[8];
  long ext3[3] = {4, 4, 4}, lo[4] = {0, 0, 0, 0}, hi[4] = {1, 1, 1, 1}, ext4[4] = {4, 4, 4, 4};
  targetStream_t s = NULL;
  tuFillDouble(h0, N, -1.0, 1.0, 25);
  tuFillDouble(big, 2 * N, 2.0, 3.0, 26);
  memcpy(h, h0, sizeof(h));
  memset(mask, 1, sizeof(mask));
  assert_int_equal(targetMalloc(&t, 2 * N * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t8, 8 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, big, sizeof(big)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t8, big, 8 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);

  /* copies: 800 bytes of a 512-byte array, either way, sync or async */
  expectError(copyFromTarget(h, t, 100 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "800 bytes asked of the host array but it holds 512");
  expectError(copyToTarget(t, h, 100 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget", "800 bytes asked of the host array but it holds 512");
  expectError(copyFromTarget(h + 60, t, 5 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "40 bytes asked of the host array but it holds 32");
  expectError(copyFromTarget(te_global, t, 17 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "136 bytes asked of the host array but it holds 128");
  expectError(copyFromTargetAsync(h, t, 100 * sizeof(double), s), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetAsync", "800 bytes asked of the host array but it holds 512");
  expectError(copyToTargetAsync(t, h, 100 * sizeof(double), s), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetAsync", "holds 512");
  /* the host field of subset copies, their site list and mask */
  expectError(copyFromTargetSites(h, t, 2 * N, 1, sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetSites", "1024 bytes asked of the host field but it holds 512");
  expectError(copyToTargetSites(t, big, 2 * N, 1, sites, 3), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "12 bytes asked of the site list but it holds 8");
  expectError(copyFromTargetMasked(h, t, 2 * N, 1, mask), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetMasked", "holds 512");
  expectError(copyToTargetMasked(t, big, 2 * N, 1, mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "128 bytes asked of the mask but it holds 8");
  expectError(copyFromTargetSitesFloat((float *) h, (float *) t, 4 * N, 1, sites3, 3),
              TARGET_ERROR_INVALID_VALUE, "copyFromTargetSites", "holds 512");
  /* boxes: ndim entries of each array */
  expectError(targetPackBox(t8, t, 4, ext3, lo, hi, 1, s), TARGET_ERROR_INVALID_VALUE,
              "targetPackBox", "32 bytes asked of the extents but it holds 24");
  expectFaceBoxError(targetFaceBox(4, ext3, 1, 0, 0, TARGET_FACE_HALO, lo, hi),
                     "32 bytes asked of the extents but it holds 24");
  expectFaceBoxError(targetFaceBox(4, ext4, 1, 0, 0, TARGET_FACE_HALO, lo, ext3),
                     "32 bytes asked of hi but it holds 24");

  /* a pointer exactly at the end of a target allocation: nothing remains */
  expectError(copyToTarget(t8 + 8, h, 8 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget", "64 bytes asked of the target array but only 0 remain");
  expectError(copyFromTarget(h, t8 + 8, sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "only 0 remain");
  expectError(targetZero(t8 + 8, 1), TARGET_ERROR_INVALID_VALUE, "targetZero", "only 0 remain");
  expectError(copyTargetToTarget(t8 + 8, t, sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyTargetToTarget", "only 0 remain");

  /* the right sizes still pass */
  assert_int_equal(copyFromTarget(h, t, sizeof(h)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(h + 60, t, 4 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetFaceBox(4, ext4, 1, 0, 0, TARGET_FACE_HALO, lo, hi), 64L);
  assert_int_equal(targetStreamSynchronize(s), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
  assert_memory_equal(h, big, 60 * sizeof(double));
  assert_memory_equal(h + 60, big, 4 * sizeof(double));
  assert_int_equal(targetFree(t8), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
}

static void test_recovers_after_errors(void **state) {
  (void) state;
  double *t = NULL, h[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8];
  expectError(targetMalloc(&t, 0), TARGET_ERROR_INVALID_VALUE, "targetMalloc", "size is zero");
  assert_int_equal(targetMalloc(&t, sizeof(h)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h, sizeof(h)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(back, t, sizeof(h)), TARGET_SUCCESS);
  assert_memory_equal(back, h, sizeof(h));
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
}

int main(void) {
#if defined(__SANITIZE_ADDRESS__)
  /* The absurd allocation must fail with NULL, not stop the sanitizer;
   * run_tests.sh sets ASAN_OPTIONS=allocator_may_return_null=1. */
  const char *o = getenv("ASAN_OPTIONS");
  if (!o || !strstr(o, "allocator_may_return_null=1"))
    fprintf(stderr, "test_errors: set ASAN_OPTIONS=allocator_may_return_null=1\n");
#endif
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_config_mismatch),
      cmocka_unit_test(test_absurd_allocation),
      cmocka_unit_test(test_bad_allocation_arguments),
      cmocka_unit_test(test_bad_free),
      cmocka_unit_test(test_bad_copies),
      cmocka_unit_test(test_bad_subset_copies),
      cmocka_unit_test(test_bad_reductions_and_conversions),
      cmocka_unit_test(test_bad_sizes_every_call),
      cmocka_unit_test(test_interior_pointers),
      cmocka_unit_test(test_host_object_sizes),
      cmocka_unit_test(test_recovers_after_errors),
  };
  return cmocka_run_group_tests_name("errors " TARGETDP_CONFIG, tests, setupNoAbort,
                                     teardownAbort);
}
