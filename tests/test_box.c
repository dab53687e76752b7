/*
 * test_box.c -- TDP_TLP_2D/3D/4D and TDP_LAUNCH_BOX(_STREAM): every site of a box
 * is visited exactly once (visit counts by atomic adds, so a site visited
 * twice shows even when the two visits race), no site outside it is
 * touched, and the coordinates the loop gives agree with the site index.
 * Boxes: interiors of halo 1 and 2, the whole lattice, faces, thin and
 * empty boxes, extents that are and are not multiples of VVL, lattices
 * wider than one CUDA block; a field in the build's layout is updated
 * through TDP_INDEX as a kernel would.
 */

#include "test_util.h"

#define NC 3

/* Site code: the coordinates packed 10 bits each, for the check. */
static TDP_HOST_DEVICE inline long code4(long a, long b, long c, long d) {
  return ((a * 1024 + b) * 1024 + c) * 1024 + d;
}

TDP_KERNEL void kBox2(targetBox box, int *count, long *code, double *f) {
  long nsites = targetBoxLatticeSites(&box);
  (void) nsites; /* not every layout needs it */
  TDP_TLP_2D(box, x, y0, base) {
    TDP_ILP(v) {
      targetAtomicAddInt(count + base + v, 1);
      code[base + v] = code4(0, 0, x, y0 + v);
      for (int c = 0; c < NC; c++) f[TDP_INDEX(nsites, NC, base + v, c)] += c + 1.0;
    }
  }
}

TDP_KERNEL void kBox3(targetBox box, int *count, long *code, double *f) {
  long nsites = targetBoxLatticeSites(&box);
  (void) nsites; /* not every layout needs it */
  TDP_TLP_3D(box, x, y, z0, site) { /* the first site of a stride by another name */
    TDP_ILP(v) {
      targetAtomicAddInt(count + site + v, 1);
      code[site + v] = code4(0, x, y, z0 + v);
      for (int c = 0; c < NC; c++) f[TDP_INDEX(nsites, NC, site + v, c)] += c + 1.0;
    }
  }
}

/* The marching form (TDP_TLP_3D_MARCH, TDP_LAUNCH_BOX_MARCH): the same
 * checks; on CUDA with march lengths forced (tdpBoxMarchForce_) so that
 * small lattices march too, including lengths that do not divide x. A
 * TDP_KERNEL_STENCIL kernel, so that TDP_LAUNCH_STENCIL runs it too (on
 * CUDA one site per thread where no length is forced). */
TDP_KERNEL_STENCIL void kMarch3(targetBox box, int *count, long *code, double *f) {
  long nsites = targetBoxLatticeSites(&box);
  (void) nsites; /* not every layout needs it */
  TDP_TLP_3D_MARCH(box, x, y, z0, site) {
    TDP_ILP(v) {
      targetAtomicAddInt(count + site + v, 1);
      code[site + v] = code4(0, x, y, z0 + v);
      for (int c = 0; c < NC; c++) f[TDP_INDEX(nsites, NC, site + v, c)] += c + 1.0;
    }
  }
}

TDP_KERNEL void kBox4(targetBox box, int *count, long *code, double *f) {
  long nsites = targetBoxLatticeSites(&box);
  (void) nsites; /* not every layout needs it */
  TDP_TLP_4D(box, t, x, y, z0, base) {
    TDP_ILP(v) {
      targetAtomicAddInt(count + base + v, 1);
      code[base + v] = code4(t, x, y, z0 + v);
      for (int c = 0; c < NC; c++) f[TDP_INDEX(nsites, NC, base + v, c)] += c + 1.0;
    }
  }
}

/* Launch the kernel of the box's dimension and check every site. g_march
 * (3-D): 1 the marching form and launch, 2 the marching form launched by
 * TDP_LAUNCH_BOX, 3 TDP_TLP_3D launched by TDP_LAUNCH_BOX_MARCH (either
 * launch runs either form correctly), 4 the marching form launched by
 * TDP_LAUNCH_STENCIL. */
static int g_march = 0;
static void check_box(const targetBox *box) {
  const int nd = box->ndim;
  const long nsites = targetBoxLatticeSites(box);
  const size_t nf = TDP_FIELD_SIZE(nsites, NC);
  int *count = (int *) tuMalloc(nsites * sizeof(int));
  long *code = (long *) tuMalloc(nsites * sizeof(long));
  double *f = (double *) tuMalloc(nf * sizeof(double));
  int *t_count = NULL;
  long *t_code = NULL;
  double *t_f = NULL;
  assert_int_equal(targetCalloc(&t_count, nsites * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_code, nsites * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_f, nf * sizeof(double)), TARGET_SUCCESS);
  tuFillDouble(f, nf, -1.0, 1.0, 1100 + nsites);
  assert_int_equal(copyToTarget(t_f, f, nf * sizeof(double)), TARGET_SUCCESS);
  targetBox b = *box;
  /* the 3-D boxes on a stream of their own, the others on the default one */
  targetStream_t st = NULL;
  if (nd == 3 && !g_march) assert_int_equal(targetStreamCreate(&st), TARGET_SUCCESS);
  if (nd == 3 && g_march == 1) TDP_LAUNCH_BOX_MARCH(kMarch3, b, t_count, t_code, t_f);
  else if (nd == 3 && g_march == 2) TDP_LAUNCH_BOX(kMarch3, b, t_count, t_code, t_f);
  else if (nd == 3 && g_march == 3) TDP_LAUNCH_BOX_MARCH(kBox3, b, t_count, t_code, t_f);
  else if (nd == 3 && g_march == 4) TDP_LAUNCH_STENCIL(kMarch3, b, t_count, t_code, t_f);
  else if (nd == 2) TDP_LAUNCH_BOX(kBox2, b, t_count, t_code, t_f);
  else if (nd == 3) TDP_LAUNCH_BOX_STREAM(kBox3, b, st, t_count, t_code, t_f);
  else TDP_LAUNCH_BOX(kBox4, b, t_count, t_code, t_f);
  if (nd == 3 && !g_march) {
    assert_int_equal(targetStreamSynchronize(st), TARGET_SUCCESS);
    assert_int_equal(targetStreamDestroy(st), TARGET_SUCCESS);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  double *g = (double *) tuMalloc(nf * sizeof(double));
  assert_int_equal(copyFromTarget(count, t_count, nsites * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(code, t_code, nsites * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(g, t_f, nf * sizeof(double)), TARGET_SUCCESS);

  tuCheck cc, cd, cf;
  tuCheckInit(&cc);
  tuCheckInit(&cd);
  tuCheckInit(&cf);
  long inside_total = 0;
  for (long s = 0; s < nsites; s++) {
    long c[4] = {0, 0, 0, 0}, rest = s;
    for (int d = nd - 1; d >= 0; d--) {
      c[4 - nd + d] = rest % box->extent[d];
      rest /= box->extent[d];
    }
    int inside = 1;
    for (int d = 0; d < nd; d++) {
      long x = c[4 - nd + d];
      inside &= x >= box->lo[d] && x < box->hi[d];
    }
    inside_total += inside;
    tuCheckEq(&cc, s, count[s], inside);
    if (inside) tuCheckEq(&cd, s, (double) code[s], (double) code4(c[0], c[1], c[2], c[3]));
    for (int k = 0; k < NC; k++) {
      size_t i = TDP_INDEX(nsites, NC, s, k);
      tuCheckEq(&cf, (long) i, g[i], inside ? f[i] + k + 1.0 : f[i]);
    }
  }
  static const char *launch[] = {"", ", TDP_LAUNCH_BOX_MARCH", ", TDP_LAUNCH_BOX (march form)",
                                 ", TDP_LAUNCH_BOX_MARCH (box form)", ", TDP_LAUNCH_STENCIL"};
  char what[3][96];
  snprintf(what[0], sizeof(what[0]), "visit counts%s, march length forced to %ld",
           launch[g_march], tdpBoxMarchForce_);
  snprintf(what[1], sizeof(what[1]), "coordinates%s", launch[g_march]);
  snprintf(what[2], sizeof(what[2]), "field%s", launch[g_march]);
  tuCheckDone(&cc, what[0], nsites);
  tuCheckDone(&cd, what[1], nsites);
  tuCheckDone(&cf, what[2], nf);
  assert_int_equal(inside_total, targetBoxSites(box));
  assert_int_equal(targetFree(t_count), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_code), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  free(count);
  free(code);
  free(f);
  free(g);
}

static void box_case(int nd, const long *ext, const long *lo, const long *hi) {
  targetBox box;
  assert_int_equal(targetBoxMake(&box, nd, ext, lo, hi), TARGET_SUCCESS);
  tuSetContext("%d-D lattice %ld x %ld x %ld x %ld, box [%ld,%ld) [%ld,%ld) [%ld,%ld) [%ld,%ld)",
               nd, box.extent[0], box.extent[1], box.extent[2], box.extent[3], box.lo[0],
               box.hi[0], box.lo[1], box.hi[1], box.lo[2], box.hi[2], box.lo[3], box.hi[3]);
  check_box(&box);
}

/* For a lattice: the whole of it, the interior of halo 1 and 2, the six
 * (or four, or eight) halo faces of depth 1, a thin slab in the middle of
 * the last dimension, a single site and an empty box. */
static void lattice_cases(int nd, const long *ext) {
  targetBox box;
  for (long nhalo = 0; nhalo <= 2; nhalo++) {
    assert_int_equal(targetBoxInterior(&box, nd, ext, nhalo), TARGET_SUCCESS);
    box_case(nd, ext, box.lo, box.hi);
  }
  long lo[4], hi[4];
  for (int d = 0; d < nd; d++) {
    for (int side = 0; side < 2; side++) {
      for (int e = 0; e < nd; e++) {
        lo[e] = 0;
        hi[e] = ext[e];
      }
      lo[d] = side ? ext[d] - 1 : 0;
      hi[d] = lo[d] + 1;
      box_case(nd, ext, lo, hi);
    }
  }
  for (int e = 0; e < nd; e++) {
    lo[e] = 1;
    hi[e] = ext[e] - 1;
  }
  lo[nd - 1] = ext[nd - 1] / 2;
  hi[nd - 1] = lo[nd - 1] + (VVL > 1 ? VVL + 1 : 3); /* a stride and a bit */
  if (hi[nd - 1] > ext[nd - 1]) hi[nd - 1] = ext[nd - 1];
  box_case(nd, ext, lo, hi);
  for (int e = 0; e < nd; e++) {
    lo[e] = ext[e] / 2;
    hi[e] = lo[e] + 1;
  }
  box_case(nd, ext, lo, hi);
  hi[0] = lo[0]; /* empty */
  box_case(nd, ext, lo, hi);
}

static void test_box_2d(void **state) {
  (void) state;
  const long e1[2] = {5, 7}, e2[2] = {33, 2 * VVL * TARGET_TPB + 3}, e3[2] = {6, 1};
  lattice_cases(2, e1);
  lattice_cases(2, e2);
  const long lo[2] = {1, 0}, hi[2] = {5, 1};
  box_case(2, e3, lo, hi); /* a last dimension of one site */
}

static void test_box_3d(void **state) {
  (void) state;
  const long e1[3] = {6, 5, 7}, e2[3] = {9, 13, 4 * VVL + 3}, e3[3] = {5, 40, 300},
             e4[3] = {4, 6, 600 * VVL + 5};
  lattice_cases(3, e1);
  lattice_cases(3, e2);
  lattice_cases(3, e3); /* a plane of several CUDA blocks */
  /* Rows long enough (at least 256 strides) that CUDA puts each row across
   * the grid's x and the rows across y, with no division per site. */
  lattice_cases(3, e4);
}

/* The marching form over the 3-D cases, with the launch's march length and
 * forced ones: 1, 2, 3 (not dividing most x extents), 16 and more planes
 * than any lattice has (one thread walks all of x). */
static void test_box_3d_march(void **state) {
  (void) state;
  const long e1[3] = {6, 5, 7}, e2[3] = {9, 13, 4 * VVL + 3}, e3[3] = {5, 40, 300},
             e4[3] = {4, 6, 600 * VVL + 5}, e5[3] = {37, 11, 70};
  const long force[] = {0, 1, 2, 3, 16, 1000};
  for (size_t i = 0; i < sizeof(force) / sizeof(force[0]); i++) {
    tdpBoxMarchForce_ = force[i];
    for (g_march = 1; g_march <= 4; g_march += 3) { /* TDP_LAUNCH_BOX_MARCH, _STENCIL */
      lattice_cases(3, e1); /* rows of 7: on CUDA one-site blocks of 8 x TPB / 16 x 2 */
      lattice_cases(3, e2);
      lattice_cases(3, e3); /* tiles of 32 x TPB / 32 (rows of 300 sites) */
      lattice_cases(3, e4); /* rows longer than a block */
      lattice_cases(3, e5); /* x longer than the march, rows of 70: two tiles and a bit */
    }
  }
  tdpBoxMarchForce_ = 0;
  for (g_march = 2; g_march <= 3; g_march++) {
    lattice_cases(3, e3);
    lattice_cases(3, e5);
  }
  g_march = 0;
}

static void test_box_4d(void **state) {
  (void) state;
  const long e1[4] = {5, 6, 5, 7}, e2[4] = {5, 6, 20, 2 * VVL + 5},
             e3[4] = {5, 4, 5, 600 * VVL + 5}; /* long rows, as in test_box_3d */
  lattice_cases(4, e1);
  lattice_cases(4, e2);
  lattice_cases(4, e3);
}

static void test_box_errors(void **state) {
  (void) state;
  targetBox box;
  const long ext[3] = {4, 5, 6}, lo[3] = {0, 0, 0}, hi[3] = {4, 5, 6}, hi_big[3] = {4, 6, 6},
             lo_neg[3] = {0, -1, 0}, lo_past[3] = {0, 0, 5}, hi_low[3] = {4, 5, 4};
  targetSetErrorAbort(0);
  expectError(targetBoxMake(&box, 3, ext, lo, hi_big), TARGET_ERROR_INVALID_VALUE,
              "targetBoxMake", "dimension 1");
  expectError(targetBoxMake(&box, 3, ext, lo_neg, hi), TARGET_ERROR_INVALID_VALUE,
              "targetBoxMake", "dimension 1");
  expectError(targetBoxMake(&box, 3, ext, lo_past, hi_low), TARGET_ERROR_INVALID_VALUE,
              "targetBoxMake", "dimension 2");
  expectError(targetBoxMake(&box, 5, ext, lo, hi), TARGET_ERROR_INVALID_VALUE, "targetBoxMake",
              "ndim 5");
  expectError(targetBoxMake(&box, 1, ext, lo, hi), TARGET_ERROR_INVALID_VALUE, "targetBoxMake",
              "ndim 1");
  expectError(targetBoxMake(NULL, 3, ext, lo, hi), TARGET_ERROR_INVALID_VALUE, "targetBoxMake",
              "NULL");
  expectError(targetBoxInterior(&box, 3, ext, 3), TARGET_ERROR_INVALID_VALUE,
              "targetBoxInterior", "nhalo 3");
  targetSetErrorAbort(1);
  assert_int_equal(targetBoxInterior(&box, 3, ext, 2), TARGET_SUCCESS);
  assert_int_equal(targetBoxSites(&box), 0 * 1 * 2);
  assert_int_equal(targetBoxLatticeSites(&box), 120);
}

/* A 3-D kernel given a 2-D box: stopped with the macro's file:line, not
 * run over the wrong sites. On a GPU that is a trap, which would end the
 * CUDA context of the whole binary: checked on the host only. */
#ifndef __CUDACC__
static int launch_wrong_dim(void *arg) {
  (void) arg;
  targetBox box;
  const long ext[2] = {4, 5};
  targetBoxAll(&box, 2, ext);
  TDP_LAUNCH_BOX(kBox3, box, NULL, NULL, NULL);
  targetSynchronize();
  return 0;
}
#endif

static void test_box_wrong_dimension(void **state) {
  (void) state;
#ifdef __CUDACC__
  print_message("# skipped: a trap would end the CUDA context of this binary\n");
  skip();
#else
  char buf[1024];
  int status = tuRunChild(launch_wrong_dim, NULL, buf, sizeof(buf));
  assert_int_equal(status, 1);
  tuAssertContains(buf, "targetDP: a 2-D box given to TDP_TLP_3D at ");
  tuAssertContains(buf, "test_box.c:");
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_box_2d),
      cmocka_unit_test(test_box_3d),
      cmocka_unit_test(test_box_3d_march),
      cmocka_unit_test(test_box_4d),
      cmocka_unit_test(test_box_errors),
      cmocka_unit_test(test_box_wrong_dimension),
  };
  return cmocka_run_group_tests_name("box " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
