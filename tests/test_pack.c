/*
 * test_pack.c -- boxes of a field to and from contiguous target buffers
 * (targetPackBox, targetUnpackBox), face boxes (targetFaceBox), and a
 * periodic halo exchange of one rank built from them, 3-D and 4-D, any
 * halo depth: every halo site, edges and corners included, must equal the
 * periodic image of an interior site, bit for bit.
 */
#include "test_util.h"

/* Row-major site index of x[0..ndim-1] in extents n. */
static long site_of(int ndim, const long *n, const long *x) {
  long s = 0;
  for (int d = 0; d < ndim; d++) s = s * n[d] + x[d];
  return s;
}

/* Advance x through the box [lo, hi) row-major; 0 at the end. */
static int next_in_box(int ndim, long *x, const long *lo, const long *hi) {
  for (int d = ndim - 1; d >= 0; d--) {
    if (++x[d] < hi[d]) return 1;
    x[d] = lo[d];
  }
  return 0;
}

static void check_box(int ndim, const long *n, const long *lo, const long *hi, int ncomp,
                      targetStream_t s) {
  long nsites = 1, nbox = 1;
  for (int d = 0; d < ndim; d++) {
    nsites *= n[d];
    nbox *= hi[d] - lo[d];
  }
  size_t fsize = TDP_FIELD_SIZE(nsites, ncomp), bsize = (size_t) nbox * ncomp;
  double *f = (double *) tuMalloc(fsize * sizeof(double));
  double *f2 = (double *) tuMalloc(fsize * sizeof(double));
  double *buf = (double *) tuMalloc(bsize * sizeof(double));
  double *want = (double *) tuMalloc(bsize * sizeof(double));
  double *t_f = NULL, *t_buf = NULL;
  tuFillDouble(f, fsize, -1.0, 1.0, 1000 + nbox + ncomp);
  assert_int_equal(targetMalloc(&t_f, fsize * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_buf, bsize * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_f, f, fsize * sizeof(double)), TARGET_SUCCESS);
  /* reference: the box row-major, component by component */
  long x[4];
  for (int d = 0; d < ndim; d++) x[d] = lo[d];
  long k = 0;
  do {
    long site = site_of(ndim, n, x);
    for (int c = 0; c < ncomp; c++)
      want[(size_t) c * nbox + k] = f[TDP_INDEX_(nsites, ncomp, site, c)];
    k++;
  } while (next_in_box(ndim, x, lo, hi));
  assert_int_equal(k, nbox);
  assert_int_equal(targetPackBox(t_buf, t_f, ndim, n, lo, hi, ncomp, s), TARGET_SUCCESS);
  assert_int_equal(copyFromTargetAsync(buf, t_buf, bsize * sizeof(double), s), TARGET_SUCCESS);
  assert_int_equal(targetStreamSynchronize(s), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (size_t i = 0; i < bsize; i++) tuCheckEq(&c, (long) i, buf[i], want[i]);
  tuCheckDone(&c, "packed buffer", bsize);
  /* unpack new values: the box changes, nothing else (padding included) */
  tuFillDouble(buf, bsize, 2.0, 3.0, 77 + nbox);
  assert_int_equal(copyToTarget(t_buf, buf, bsize * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetUnpackBox(t_f, t_buf, ndim, n, lo, hi, ncomp, s), TARGET_SUCCESS);
  assert_int_equal(targetStreamSynchronize(s), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(f2, t_f, fsize * sizeof(double)), TARGET_SUCCESS);
  for (int d = 0; d < ndim; d++) x[d] = lo[d];
  k = 0;
  do {
    long site = site_of(ndim, n, x);
    for (int cc = 0; cc < ncomp; cc++) f[TDP_INDEX_(nsites, ncomp, site, cc)] = buf[(size_t) cc * nbox + k];
    k++;
  } while (next_in_box(ndim, x, lo, hi));
  tuCheckInit(&c);
  for (size_t i = 0; i < fsize; i++) tuCheckEq(&c, (long) i, f2[i], f[i]);
  tuCheckDone(&c, "field after unpack", fsize);
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_buf), TARGET_SUCCESS);
  free(f);
  free(f2);
  free(buf);
  free(want);
}

static void test_pack_unpack_boxes(void **state) {
  (void) state;
  targetStream_t s = NULL;
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  tuRng r;
  tuSeed(&r, 5);
  const int ncomps[] = {1, 3, 19};
  for (int ndim = 1; ndim <= 4; ndim++) {
    for (int trial = 0; trial < 12; trial++) {
      long n[4], lo[4], hi[4];
      for (int d = 0; d < ndim; d++) {
        n[d] = tuInt(&r, 1, ndim <= 2 ? 40 : 9);
        lo[d] = tuInt(&r, 0, (int) n[d] - 1);
        hi[d] = tuInt(&r, (int) lo[d] + 1, (int) n[d]);
      }
      if (trial == 0) { /* the whole lattice is a box too */
        for (int d = 0; d < ndim; d++) {
          lo[d] = 0;
          hi[d] = n[d];
        }
      }
      int ncomp = ncomps[trial % 3];
      tuSetContext("ndim %d, trial %d, ncomp %d, box [%ld,%ld) x ...", ndim, trial, ncomp,
                   lo[0], hi[0]);
      check_box(ndim, n, lo, hi, ncomp, trial % 2 ? s : TARGET_STREAM_DEFAULT);
    }
  }
  /* a face of a larger lattice: more than one CUDA block */
  long n[3] = {40, 50, 64}, lo[3] = {0, 0, 61}, hi[3] = {40, 50, 63};
  tuSetContext("z face of 40 x 50 x 64");
  check_box(3, n, lo, hi, 19, s);
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
}

static void test_face_boxes(void **state) {
  (void) state;
  long n[4] = {6, 7, 8, 9}, lo[4], hi[4];
  /* halo of the high y side, depth 2: y in [5, 7), the rest whole */
  assert_int_equal(targetFaceBox(3, n, 2, 1, 1, TARGET_FACE_HALO, lo, hi), 6 * 2 * 8);
  assert_true(lo[0] == 0 && hi[0] == 6 && lo[1] == 5 && hi[1] == 7 && lo[2] == 0 && hi[2] == 8);
  /* its edge: y in [3, 5) */
  assert_int_equal(targetFaceBox(3, n, 2, 1, 1, TARGET_FACE_EDGE, lo, hi), 6 * 2 * 8);
  assert_true(lo[1] == 3 && hi[1] == 5);
  /* low side: halo [0, nhalo), edge [nhalo, 2 nhalo) */
  assert_int_equal(targetFaceBox(4, n, 1, 3, 0, TARGET_FACE_HALO, lo, hi), 6 * 7 * 8);
  assert_true(lo[3] == 0 && hi[3] == 1 && lo[0] == 0 && hi[0] == 6);
  assert_int_equal(targetFaceBox(4, n, 3, 0, 0, TARGET_FACE_EDGE, lo, hi), 3 * 7 * 8 * 9);
  assert_true(lo[0] == 3 && hi[0] == 6);
}

/* One rank, periodic: for each axis in turn, the edge of each side goes to
 * the halo of the other, through a buffer, as the MPI module does it. */
static void periodic_exchange(int ndim, const long *n, int nhalo, int ncomp) {
  long nsites = 1;
  for (int d = 0; d < ndim; d++) nsites *= n[d];
  size_t fsize = TDP_FIELD_SIZE(nsites, ncomp);
  double *f = (double *) tuMalloc(fsize * sizeof(double));
  double *t_f = NULL, *t_buf = NULL;
  /* interior site value: a function of its interior coordinates */
  long x[4] = {0, 0, 0, 0}, zero[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < fsize; i++) f[i] = -999.0;
  do {
    long g = 0, inside = 1;
    for (int d = 0; d < ndim; d++) {
      long m = n[d] - 2 * nhalo;
      long xi = ((x[d] - nhalo) % m + m) % m; /* periodic image */
      if (x[d] < nhalo || x[d] >= n[d] - nhalo) inside = 0;
      g = g * m + xi;
    }
    if (inside)
      for (int c = 0; c < ncomp; c++)
        f[TDP_INDEX_(nsites, ncomp, site_of(ndim, n, x), c)] = 0.5 + g + 1000.0 * c;
  } while (next_in_box(ndim, x, zero, n));
  assert_int_equal(targetMalloc(&t_f, fsize * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_buf, fsize * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_f, f, fsize * sizeof(double)), TARGET_SUCCESS);
  for (int d = 0; d < ndim; d++) {
    for (int side = 0; side < 2; side++) {
      long elo[4], ehi[4], hlo[4], hhi[4];
      targetFaceBox(ndim, n, nhalo, d, side, TARGET_FACE_EDGE, elo, ehi);
      targetFaceBox(ndim, n, nhalo, d, !side, TARGET_FACE_HALO, hlo, hhi);
      assert_int_equal(targetPackBox(t_buf, t_f, ndim, n, elo, ehi, ncomp, TARGET_STREAM_DEFAULT),
                       TARGET_SUCCESS);
      assert_int_equal(
          targetUnpackBox(t_f, t_buf, ndim, n, hlo, hhi, ncomp, TARGET_STREAM_DEFAULT),
          TARGET_SUCCESS);
    }
  }
  assert_int_equal(copyFromTarget(f, t_f, fsize * sizeof(double)), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (int d = 0; d < 4; d++) x[d] = 0;
  do {
    long g = 0;
    for (int d = 0; d < ndim; d++) {
      long m = n[d] - 2 * nhalo;
      g = g * m + ((x[d] - nhalo) % m + m) % m;
    }
    long site = site_of(ndim, n, x);
    for (int cc = 0; cc < ncomp; cc++)
      tuCheckEq(&c, site, f[TDP_INDEX_(nsites, ncomp, site, cc)], 0.5 + g + 1000.0 * cc);
  } while (next_in_box(ndim, x, zero, n));
  tuCheckDone(&c, "every site after the periodic exchange", nsites * ncomp);
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_buf), TARGET_SUCCESS);
  free(f);
}

static void test_periodic_exchange(void **state) {
  (void) state;
  long n3[3][3] = {{5, 6, 7}, {8, 5, 9}, {12, 10, 11}};
  long n4[2][4] = {{5, 6, 5, 7}, {7, 8, 6, 9}};
  for (int nhalo = 1; nhalo <= 2; nhalo++) {
    for (int k = 0; k < 3; k++) {
      long n[3];
      for (int d = 0; d < 3; d++) n[d] = n3[k][d] + 2 * (nhalo - 1);
      tuSetContext("3-D %ld x %ld x %ld, nhalo %d", n[0], n[1], n[2], nhalo);
      periodic_exchange(3, n, nhalo, k == 2 ? 19 : 3);
    }
    for (int k = 0; k < 2; k++) {
      long n[4];
      for (int d = 0; d < 4; d++) n[d] = n4[k][d] + 2 * (nhalo - 1);
      tuSetContext("4-D %ld x %ld x %ld x %ld, nhalo %d", n[0], n[1], n[2], n[3], nhalo);
      periodic_exchange(4, n, nhalo, k ? 24 : 1);
    }
  }
}

static void test_pack_errors(void **state) {
  (void) state;
  targetSetErrorAbort(0);
  long n[3] = {4, 5, 6}, lo[3] = {0, 0, 0}, hi[3] = {4, 5, 1};
  double *t_f = NULL, *t_buf = NULL;
  assert_int_equal(targetMalloc(&t_f, TDP_FIELD_SIZE(120, 2) * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_buf, 40 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetPackBox(t_buf, t_f, 3, n, lo, hi, 2, TARGET_STREAM_DEFAULT),
                   TARGET_SUCCESS);
  expectError(targetPackBox(t_buf, t_f, 0, n, lo, hi, 2, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetPackBox", "ndim 0");
  expectError(targetPackBox(t_buf, t_f, 5, n, lo, hi, 2, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetPackBox", "ndim 5");
  expectError(targetPackBox(t_buf, NULL, 3, n, lo, hi, 2, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetPackBox", "NULL");
  expectError(targetPackBox(t_buf, t_f, 3, n, lo, hi, 0, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetPackBox", "ncomp 0");
  long badhi[3] = {4, 6, 1}, badlo[3] = {0, 0, 1};
  expectError(targetPackBox(t_buf, t_f, 3, n, lo, badhi, 2, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetPackBox", "axis 1");
  expectError(targetUnpackBox(t_f, t_buf, 3, n, badlo, hi, 2, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetUnpackBox", "axis 2");
  /* a buffer too small for the box, a field too small for the extents */
  long hi2[3] = {4, 5, 2};
  expectError(targetPackBox(t_buf, t_f, 3, n, lo, hi2, 2, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetPackBox", "the buffer");
  long n_big[3] = {4, 5, 7};
  expectError(targetUnpackBox(t_f, t_buf, 3, n_big, lo, hi, 2, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetUnpackBox", "the field");
  targetStream_t dead = NULL;
  assert_int_equal(targetStreamCreate(&dead), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(dead), TARGET_SUCCESS);
  expectError(targetPackBox(t_buf, t_f, 3, n, lo, hi, 2, dead), TARGET_ERROR_INVALID_VALUE,
              "targetPackBox", "not a live stream");
#ifdef TARGETDP_CHECK
  double h[8] = {0};
  expectError(targetPackBox(h, t_f, 3, n, lo, hi, 1, TARGET_STREAM_DEFAULT),
              TARGET_ERROR_INVALID_VALUE, "targetPackBox", "not target memory");
#endif
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_buf), TARGET_SUCCESS);
  targetSetErrorAbort(1);
}

/* Issue 25 item 5: targetFaceBox wrote lo[4] and hi[4] for ndim 5 and
 * returned boxes outside the lattice for a negative halo or one deeper
 * than half the extent along its axis. Each is refused (-1, file:line). */
#define expectFaceRefused(call, sub)                                                   \
  do {                                                                                 \
    long r_ = (call);                                                                  \
    if (r_ != -1) fail_msg("%s returned %ld, want -1 (refused)", #call, r_);             \
    assert_int_equal(targetLastError(), TARGET_ERROR_INVALID_VALUE);                   \
    tuAssertContains(targetLastErrorString(), "targetDP: targetFaceBox failed at ");  \
    tuAssertContains(targetLastErrorString(), "test_pack.c:");                         \
    tuAssertContains(targetLastErrorString(), sub);                                    \
  } while (0)

static void test_face_box_errors(void **state) {
  (void) state;
  long n[5] = {6, 7, 8, 9, 10}, lo[5] = {0, 0, 0, 0, 0}, hi[5] = {0, 0, 0, 0, 0};
  targetSetErrorAbort(0);
  expectFaceRefused(targetFaceBox(5, n, 1, 0, 0, TARGET_FACE_HALO, lo, hi), "ndim 5");
  expectFaceRefused(targetFaceBox(0, n, 1, 0, 0, TARGET_FACE_HALO, lo, hi), "ndim 0");
  expectFaceRefused(targetFaceBox(3, n, -1, 0, 0, TARGET_FACE_HALO, lo, hi), "nhalo -1");
  expectFaceRefused(targetFaceBox(3, n, 0, 0, 0, TARGET_FACE_HALO, lo, hi), "nhalo 0");
  /* the halo and the edge of both sides must fit: 2 nhalo <= the extent */
  expectFaceRefused(targetFaceBox(3, n, 4, 0, 1, TARGET_FACE_EDGE, lo, hi),
                    "nhalo 4 is deeper than half the extent 6 of axis 0");
  expectFaceRefused(targetFaceBox(3, n, 4, 0, 0, TARGET_FACE_HALO, lo, hi), "deeper");
  expectFaceRefused(targetFaceBox(3, n, 1, 3, 0, TARGET_FACE_HALO, lo, hi), "dim 3");
  expectFaceRefused(targetFaceBox(3, n, 1, -1, 0, TARGET_FACE_HALO, lo, hi), "dim -1");
  expectFaceRefused(targetFaceBox(3, n, 1, 0, 2, TARGET_FACE_HALO, lo, hi), "side 2");
  expectFaceRefused(targetFaceBox(3, n, 1, 0, 0, (targetFaceRegion_t) 7, lo, hi), "region 7");
  expectFaceRefused(targetFaceBox(3, NULL, 1, 0, 0, TARGET_FACE_HALO, lo, hi), "NULL");
  long z[3] = {6, 0, 8};
  expectFaceRefused(targetFaceBox(3, z, 1, 0, 0, TARGET_FACE_HALO, lo, hi), "extent 0");
  /* nothing was written past ndim, and the limits still pass */
  assert_true(lo[4] == 0 && hi[4] == 0);
  assert_int_equal(targetFaceBox(3, n, 3, 0, 1, TARGET_FACE_EDGE, lo, hi), 3 * 7 * 8);
  assert_true(lo[0] == 0 && hi[0] == 3);
  targetSetErrorAbort(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pack_unpack_boxes),
      cmocka_unit_test(test_face_boxes),
      cmocka_unit_test(test_periodic_exchange),
      cmocka_unit_test(test_pack_errors),
      cmocka_unit_test(test_face_box_errors),
  };
  return cmocka_run_group_tests_name("pack " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
