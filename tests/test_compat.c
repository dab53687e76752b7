/* The 2014 API (targetDP_compat.h), written the way 2014 codes called it:
 * each 2014 form gives the same result as today's call it wraps, and its
 * misuse is an error with file:line. Runs on both backends (the CUDA
 * binary is built from this file). */
#include "test_util.h"

/* ---- a 2014-style kernel: the old qualifiers, TLP/ILP and launch ---- */
__targetConst__ double t_factor;
__targetConst__ double t_table[4];

__targetEntry__ void scale2014(double *t_field, int n) {
  __targetTLP__(baseIndex, n) {
    __targetILP__(vecIndex) t_field[baseIndex + vecIndex] *= t_factor;
  }
}

TDP_KERNEL void readThrough(double *out, const double *table, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) out[baseIndex + vecIndex] = table[(baseIndex + vecIndex) % 4];
  }
}

HOST int hostOnly2014(int x) { return 2 * x; }

static void test_kernel_2014_style(void **state) {
  (void) state;
  const int n = 1003;
  const double a = 1.5;
  double *h = (double *) tuMalloc(n * sizeof(double)), *t = NULL;
  for (int i = 0; i < n; i++) h[i] = i;
  targetMalloc((void **) &t, n * sizeof(double));
  copyToTarget(t, h, n * sizeof(double));
  copyConstToTarget(&t_factor, &a, sizeof(double));
  scale2014 __targetLaunch__(n) (t, n);
  targetSynchronize();
  copyFromTarget(h, t, n * sizeof(double));
  for (int i = 0; i < n; i++) assert_true(h[i] == 1.5 * i);
  assert_int_equal(NILP, VVL);
  assert_int_equal(hostOnly2014(21), 42);
  assert_true(TARGET_HALO != TARGET_EDGE);
  targetFree(t);
  free(h);
}

static void test_index_coords_3d(void **state) {
  (void) state;
  int extents[3] = {5, 7, 3}, coords[3];
  for (int x = 0; x < 5; x++)
    for (int y = 0; y < 7; y++)
      for (int z = 0; z < 3; z++) {
        int index = targetIndex3D(x, y, z, extents);
        assert_int_equal(index, (x * 7 + y) * 3 + z);
        targetCoords3D(coords, extents, index);
        assert_int_equal(coords[0], x);
        assert_int_equal(coords[1], y);
        assert_int_equal(coords[2], z);
      }
}

/* targetInit(extents, nfields, nhalo): the 4-argument halo/edge copies use
 * its nhalo and give exactly what today's 5-argument calls give. */
static void test_init3d_halo_edge(void **state) {
  (void) state;
  for (int nhalo = 1; nhalo <= 2; nhalo++) {
    int extents[3] = {4 + 2 * nhalo, 5 + 2 * nhalo, 3 + 2 * nhalo};
    const int nfields = 3, nsites = extents[0] * extents[1] * extents[2];
    size_t nelem = TDP_FIELD_SIZE(nsites, nfields), nbytes = nelem * sizeof(double);
    double *h = (double *) tuMalloc(nbytes), *h_old = (double *) tuMalloc(nbytes);
    double *h_new = (double *) tuMalloc(nbytes), *t_old = NULL, *t_new = NULL;
    tuSetContext("nhalo %d", nhalo);
    assert_int_equal(targetInit(extents, nfields, nhalo), TARGET_SUCCESS);
    tuFillDouble(h, nelem, 1.0, 2.0, 14 + nhalo);
    targetCalloc((void **) &t_old, nbytes);
    targetCalloc((void **) &t_new, nbytes);

    copyToTarget3DHalo(t_new, h, extents, nfields);         /* 2014 */
    copyToTarget3DHalo(t_old, h, extents, nhalo, nfields);  /* today */
    copyFromTarget(h_new, t_new, nbytes);
    copyFromTarget(h_old, t_old, nbytes);
    int moved = 0;
    for (size_t i = 0; i < nelem; i++) {
      assert_true(h_new[i] == h_old[i]);
      moved += h_new[i] != 0.0;
    }
    assert_true(moved > 0 && moved < nsites * nfields); /* the halo, not all */

    memset(h_new, 0, nbytes);
    memset(h_old, 0, nbytes);
    copyToTarget(t_new, h, nbytes);
    copyFromTarget3DEdge(h_new, t_new, extents, nfields);        /* 2014 */
    copyFromTarget3DEdge(h_old, t_new, extents, nhalo, nfields); /* today */
    moved = 0;
    for (size_t i = 0; i < nelem; i++) {
      assert_true(h_new[i] == h_old[i]);
      moved += h_new[i] != 0.0;
    }
    assert_true(moved > 0 && moved < nsites * nfields);

    targetFree(t_old);
    targetFree(t_new);
    /* targetFinalize3D ends the layer too; the next tests need it again. */
    assert_int_equal(targetFinalize3D(), TARGET_SUCCESS);
    assert_int_equal(targetInit(), TARGET_SUCCESS);
    free(h);
    free(h_old);
    free(h_new);
  }
}

static void test_halo_misuse(void **state) {
  (void) state;
  int extents[3] = {6, 6, 6}, other[3] = {6, 7, 6};
  const int nsites = 216;
  size_t nbytes = TDP_FIELD_SIZE(nsites, 1) * sizeof(double);
  double *h = (double *) tuMalloc(nbytes), *t = NULL;
  memset(h, 0, nbytes);
  targetMalloc((void **) &t, nbytes);
  targetSetErrorAbort(0);
  /* after targetFinalize3D the 4-argument form has no nhalo */
  expectError(copyToTarget3DHalo(t, h, extents, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "targetInit(extents, nfields, nhalo)");
  assert_int_equal(targetInit(extents, 1, 1), TARGET_SUCCESS);
  expectError(copyFromTarget3DEdge(h, t, other, 1), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget3DEdge", "differ from targetInit's 6 x 6 x 6");
  expectError(targetInit(extents, 1, -1), TARGET_ERROR_INVALID_VALUE, "targetInit", "nhalo");
  targetSetErrorAbort(1);
  targetFree(t);
  free(h);
}

/* 2014 converted in place: targetAoS2SoA(array, nsites, nfields). */
static void test_in_place_conversion(void **state) {
  (void) state;
  const int nsites = 1003, nf = 3;
  size_t nelem = TDP_FIELD_SIZE(nsites, nf), nbytes = nelem * sizeof(double);
  double *h = (double *) tuMalloc(nbytes), *t = NULL;
  for (int s = 0; s < nsites; s++)
    for (int c = 0; c < nf; c++) h[s * nf + c] = 10.0 * s + c; /* plain AoS */
  targetMalloc((void **) &t, nbytes);
  copyToTarget(t, h, nbytes);
  assert_int_equal(targetAoS2SoA(t, nsites, nf), TARGET_SUCCESS);
  copyFromTarget(h, t, nbytes);
  for (int s = 0; s < nsites; s++)
    for (int c = 0; c < nf; c++) assert_true(h[c * nsites + s] == 10.0 * s + c);
  assert_int_equal(targetSoA2AoS(t, nsites, nf), TARGET_SUCCESS);
  copyFromTarget(h, t, nbytes);
  for (int s = 0; s < nsites; s++)
    for (int c = 0; c < nf; c++) assert_true(h[s * nf + c] == 10.0 * s + c);
  targetFree(t);
  free(h);
}

static void test_const_address_and_copy_back(void **state) {
  (void) state;
  const double vals[4] = {1.25, -2.5, 3.75, 1e300};
  double back[4] = {0, 0, 0, 0}, *t_table_ptr = NULL, *t_out = NULL, out[13];
  copyConstToTarget(t_table, vals, sizeof(vals));
  assert_int_equal(copyConstFromTarget(back, t_table, sizeof(back)), TARGET_SUCCESS);
  for (int i = 0; i < 4; i++) assert_true(back[i] == vals[i]);
  assert_int_equal(targetConstAddress(&t_table_ptr, t_table), TARGET_SUCCESS);
  assert_non_null(t_table_ptr);
  targetMalloc((void **) &t_out, sizeof(out));
  TDP_LAUNCH(readThrough, 13, t_out, t_table_ptr, 13);
  targetSynchronize();
  copyFromTarget(out, t_out, sizeof(out));
  for (int i = 0; i < 13; i++) assert_true(out[i] == vals[i % 4]);
  targetFree(t_out);
}

/* A struct on the target whose member points to a target array. */
typedef struct {
  int n;
  double *data;
} obj2014;

static void test_deep_copies(void **state) {
  (void) state;
  const int n = 37;
  obj2014 host, shadow, *t_obj = NULL;
  double *t_data = NULL;
  host.n = n;
  host.data = (double *) tuMalloc(n * sizeof(double));
  tuFillDouble(host.data, n, -1.0, 1.0, 2014);
  targetCalloc((void **) &t_data, n * sizeof(double));
  targetMalloc((void **) &t_obj, sizeof(obj2014));
  shadow.n = n;
  shadow.data = t_data;
  copyToTarget(t_obj, &shadow, sizeof(obj2014));

  assert_int_equal(copyDeepDoubleArrayToTarget(t_obj, &host, &host.data, n), TARGET_SUCCESS);
  double *check = (double *) tuMalloc(n * sizeof(double));
  copyFromTarget(check, t_data, n * sizeof(double));
  for (int i = 0; i < n; i++) assert_true(check[i] == host.data[i]);

  for (int i = 0; i < n; i++) check[i] = 3.0 * i;
  copyToTarget(t_data, check, n * sizeof(double));
  assert_int_equal(copyDeepDoubleArrayFromTarget(&host, t_obj, &host.data, n), TARGET_SUCCESS);
  for (int i = 0; i < n; i++) assert_true(host.data[i] == 3.0 * i);

  targetFree(t_obj);
  targetFree(t_data);
  free(check);
  free(host.data);
}

/* copyToTargetSubset/copyFromTargetSubset: the 2014 argument order. */
static void test_subset_2014_order(void **state) {
  (void) state;
  const int nsites = 100, nf = 2, sites[3] = {3, 50, 99};
  size_t nelem = TDP_FIELD_SIZE(nsites, nf), nbytes = nelem * sizeof(double);
  double *h = (double *) tuMalloc(nbytes), *g = (double *) tuMalloc(nbytes), *t = NULL;
  tuFillDouble(h, nelem, 1.0, 2.0, 7);
  targetCalloc((void **) &t, nbytes);
  copyToTargetSubset(t, h, sites, 3, nsites, nf);
  memset(g, 0, nbytes);
  copyFromTargetSubset(g, t, sites, 3, nsites, nf);
  for (int s = 0; s < nsites; s++)
    for (int c = 0; c < nf; c++) {
      size_t i = TDP_INDEX(nsites, nf, s, c);
      int listed = s == 3 || s == 50 || s == 99;
      assert_true(g[i] == (listed ? h[i] : 0.0));
    }
  targetFree(t);
  free(h);
  free(g);
}

/* Issue 25 item 8: the 2014 targetInit(extents, nfields, nhalo) belongs
 * to the session it opened. After targetFinalize and today's targetInit()
 * the 4-argument halo copy used the old extents and halo (rc 0); now it is
 * refused. A new 2014 targetInit after targetFinalize brings its own. */
static void test_init3d_after_finalize(void **state) {
  (void) state;
  int ext1[3] = {6, 6, 6}, ext2[3] = {8, 7, 6};
  const int n1 = 216, n2 = 336;
  double *h = (double *) tuMalloc(TDP_FIELD_SIZE(n2, 2) * sizeof(double));
  double *a = (double *) tuMalloc(TDP_FIELD_SIZE(n2, 2) * sizeof(double));
  double *b = (double *) tuMalloc(TDP_FIELD_SIZE(n2, 2) * sizeof(double));
  double *t = NULL, *t2 = NULL;
  tuFillDouble(h, TDP_FIELD_SIZE(n2, 2), 1.0, 2.0, 8);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS); /* the group's session */

  /* 2014 init, then today's finalize and init: no extents, no nhalo */
  assert_int_equal(targetInit(ext1, 2, 2), TARGET_SUCCESS);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t, TDP_FIELD_SIZE(n1, 2) * sizeof(double)), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  expectError(copyToTarget3DHalo(t, h, ext1, 2), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "targetInit(extents, nfields, nhalo)");
  expectError(copyFromTarget3DEdge(h, t, ext1, 2), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget3DEdge", "targetInit(extents, nfields, nhalo)");
  targetSetErrorAbort(1);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS); /* frees t */

  /* a 2014 init of another lattice after a finalize: its extents and halo */
  assert_int_equal(targetInit(ext1, 2, 1), TARGET_SUCCESS);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
  assert_int_equal(targetInit(ext2, 2, 2), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t, TDP_FIELD_SIZE(n2, 2) * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t2, TDP_FIELD_SIZE(n2, 2) * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget3DHalo(t, h, ext2, 2), TARGET_SUCCESS);       /* 2014 */
  assert_int_equal(copyToTarget3DHalo(t2, h, ext2, 2, 2), TARGET_SUCCESS);   /* nhalo 2 */
  assert_int_equal(copyFromTarget(a, t, TDP_FIELD_SIZE(n2, 2) * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(b, t2, TDP_FIELD_SIZE(n2, 2) * sizeof(double)), TARGET_SUCCESS);
  assert_memory_equal(a, b, TDP_FIELD_SIZE(n2, 2) * sizeof(double));
  targetSetErrorAbort(0);
  expectError(copyToTarget3DHalo(t, h, ext1, 2), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", "differ from targetInit's 8 x 7 x 6");
  targetSetErrorAbort(1);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  assert_int_equal(targetFree(t2), TARGET_SUCCESS);
  /* the group's teardown finalizes this session */
  free(h);
  free(a);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernel_2014_style),
      cmocka_unit_test(test_index_coords_3d),
      cmocka_unit_test(test_init3d_halo_edge),
      cmocka_unit_test(test_halo_misuse),
      cmocka_unit_test(test_init3d_after_finalize),
      cmocka_unit_test(test_in_place_conversion),
      cmocka_unit_test(test_const_address_and_copy_back),
      cmocka_unit_test(test_deep_copies),
      cmocka_unit_test(test_subset_2014_order),
  };
  return cmocka_run_group_tests_name("compat " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
