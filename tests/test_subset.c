/*
 * test_subset.c -- subset copies of multi-component fields in the build's
 * layout: copyToTargetMasked / copyFromTargetMasked (random masks),
 * copyToTargetSites / copyFromTargetSites (random site lists), and
 * copyToTarget3DHalo / copyFromTarget3DEdge (3-D lattice, nhalo 1 and 2).
 *
 * Pattern: the destination starts as array A, the source is array B; after
 * the copy every element of the destination field (all TDP_FIELD_SIZE
 * elements, AoSoA padding included) must be B if it belongs to a selected
 * site and A otherwise; the source must be unchanged.
 */
#include "test_util.h"

/* owner[i]: the site that element i of the field belongs to, or -1 for
 * padding. Built from TDP_INDEX; test_layout checks TDP_INDEX itself. */
static int *ownerMap(int nsites, int ncomp) {
  size_t size = TDP_FIELD_SIZE(nsites, ncomp);
  int *owner = (int *) tuMalloc(size * sizeof(int));
  for (size_t i = 0; i < size; i++) owner[i] = -1;
  for (int s = 0; s < nsites; s++)
    for (int c = 0; c < ncomp; c++) owner[TDP_INDEX(nsites, ncomp, s, c)] = s;
  return owner;
}

/* Check a destination field against A/B and a per-site selection. */
static void checkField(const double *got, const double *a, const double *b, const char *sel,
                       int nsites, int ncomp, const char *what) {
  size_t size = TDP_FIELD_SIZE(nsites, ncomp);
  int *owner = ownerMap(nsites, ncomp);
  tuCheck c;
  tuCheckInit(&c);
  for (size_t i = 0; i < size; i++) {
    int s = owner[i];
    tuCheckEq(&c, (long) i, got[i], (s >= 0 && sel[s]) ? b[i] : a[i]);
  }
  free(owner);
  tuCheckDone(&c, what, size);
}

/* A field pair: host copies of A and B, a target field, scratch. */
typedef struct {
  int nsites, ncomp;
  size_t size, nbytes;
  double *a, *b, *h, *t;
} Field;

static void fieldNew(Field *f, int nsites, int ncomp, uint64_t seed) {
  f->nsites = nsites;
  f->ncomp = ncomp;
  f->size = TDP_FIELD_SIZE(nsites, ncomp);
  f->nbytes = f->size * sizeof(double);
  f->a = (double *) tuMalloc(f->nbytes);
  f->b = (double *) tuMalloc(f->nbytes);
  f->h = (double *) tuMalloc(f->nbytes);
  tuFillDouble(f->a, f->size, 1.0, 2.0, seed);
  tuFillDouble(f->b, f->size, -2.0, -1.0, seed + 1); /* disjoint from A */
  f->t = NULL;
  assert_int_equal(targetMalloc(&f->t, f->nbytes), TARGET_SUCCESS);
}

static void fieldFree(Field *f) {
  assert_int_equal(targetFree(f->t), TARGET_SUCCESS);
  free(f->a);
  free(f->b);
  free(f->h);
}

/* The target copy must still be exactly `want`. */
static void checkTarget(Field *f, const double *want, const char *what) {
  double *back = (double *) tuMalloc(f->nbytes);
  assert_int_equal(copyFromTarget(back, f->t, f->nbytes), TARGET_SUCCESS);
  if (memcmp(back, want, f->nbytes) != 0) fail_msg("[%s] %s: target changed", tu_context, what);
  free(back);
}

/* kind: 0 masked, 1 site list. to_target: direction. */
static void runSubset(int nsites, int ncomp, const char *sel, int kind, int to_target) {
  Field f;
  fieldNew(&f, nsites, ncomp, 1000 + 7 * nsites + ncomp);
  int *list = (int *) tuMalloc((nsites + 1) * sizeof(int));
  int nlist = 0;
  /* the site list in a scrambled order */
  for (int s = 0; s < nsites; s++) {
    int ss = (int) (((long) s * 7919) % nsites);
    if (nsites % 7919 == 0) ss = s;
    if (sel[ss]) list[nlist++] = ss;
  }
  if (to_target) {
    assert_int_equal(copyToTarget(f.t, f.a, f.nbytes), TARGET_SUCCESS);
    if (kind == 0) {
      assert_int_equal(copyToTargetMasked(f.t, f.b, nsites, ncomp, sel), TARGET_SUCCESS);
    } else {
      assert_int_equal(copyToTargetSites(f.t, f.b, nsites, ncomp, list, nlist), TARGET_SUCCESS);
    }
    assert_int_equal(copyFromTarget(f.h, f.t, f.nbytes), TARGET_SUCCESS);
    checkField(f.h, f.a, f.b, sel, nsites, ncomp, kind ? "copyToTargetSites" : "copyToTargetMasked");
  } else {
    assert_int_equal(copyToTarget(f.t, f.b, f.nbytes), TARGET_SUCCESS);
    memcpy(f.h, f.a, f.nbytes);
    if (kind == 0) {
      assert_int_equal(copyFromTargetMasked(f.h, f.t, nsites, ncomp, sel), TARGET_SUCCESS);
    } else {
      assert_int_equal(copyFromTargetSites(f.h, f.t, nsites, ncomp, list, nlist), TARGET_SUCCESS);
    }
    checkField(f.h, f.a, f.b, sel, nsites, ncomp,
               kind ? "copyFromTargetSites" : "copyFromTargetMasked");
    checkTarget(&f, f.b, "source of copyFrom");
  }
  free(list);
  fieldFree(&f);
}

static const int subsetSizes[] = {1, VVL + 1, SAL + 3, 1003, 12345};
#define NSUBSET ((int) (sizeof(subsetSizes) / sizeof(subsetSizes[0])))
static const int subsetComps[] = {1, 3, 5};

/* Random masks of several densities, plus empty and full ones. */
static void runAllMasks(int kind) {
  const double density[] = {0.0, 0.05, 0.3, 0.7, 1.0};
  for (int k = 0; k < NSUBSET; k++) {
    for (int j = 0; j < 3; j++) {
      for (int d = 0; d < 5; d++) {
        int n = subsetSizes[k], nc = subsetComps[j];
        char *mask = (char *) tuMalloc(n);
        tuRng r;
        tuSeed(&r, 50 + n + 3 * nc + d);
        int nset = 0;
        for (int s = 0; s < n; s++) {
          mask[s] = (char) (tuUniform(&r) < density[d] ? 1 + tuInt(&r, 0, 100) : 0);
          nset += mask[s] != 0;
        }
        /* "random" must mean mixed where the density allows it */
        if (density[d] > 0.0 && density[d] < 1.0 && n >= 1000) assert_true(nset > 0 && nset < n);
        for (int dir = 0; dir < 2; dir++) {
          tuSetContext("%s %s, nsites %d ncomp %d, %d of %d sites selected",
                       kind ? "sites" : "masked", dir ? "to target" : "from target", n, nc, nset,
                       n);
          runSubset(n, nc, mask, kind, dir);
        }
        free(mask);
      }
    }
  }
}

static void test_masked_copies(void **state) {
  (void) state;
  runAllMasks(0);
}

static void test_site_list_copies(void **state) {
  (void) state;
  runAllMasks(1);
}

/* Duplicates in a site list are harmless; an empty list changes nothing. */
static void test_site_list_edge_cases(void **state) {
  (void) state;
  int n = 1003, nc = 3;
  Field f;
  fieldNew(&f, n, nc, 4242);
  int list[6] = {5, 5, 1002, 0, 1002, 17};
  char sel[1003];
  memset(sel, 0, sizeof(sel));
  sel[5] = sel[1002] = sel[0] = sel[17] = 1;
  tuSetContext("duplicates");
  assert_int_equal(copyToTarget(f.t, f.a, f.nbytes), TARGET_SUCCESS);
  assert_int_equal(copyToTargetSites(f.t, f.b, n, nc, list, 6), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(f.h, f.t, f.nbytes), TARGET_SUCCESS);
  checkField(f.h, f.a, f.b, sel, n, nc, "duplicates");
  tuSetContext("empty list");
  memset(sel, 0, sizeof(sel));
  assert_int_equal(copyToTarget(f.t, f.a, f.nbytes), TARGET_SUCCESS);
  assert_int_equal(copyToTargetSites(f.t, f.b, n, nc, list, 0), TARGET_SUCCESS);
  memcpy(f.h, f.b, f.nbytes);
  assert_int_equal(copyFromTargetSites(f.h, f.t, n, nc, NULL, 0), TARGET_SUCCESS);
  checkTarget(&f, f.a, "empty list");
  assert_memory_equal(f.h, f.b, f.nbytes);
  fieldFree(&f);
}

/* ---------------------------------------------------------------------- */
/* 3-D halo and edge. The halo is every site within nhalo of a face of the
 * local lattice; the edge the sites that are not halo but within 2 nhalo
 * of a face. Computed here face by face, independently of the layer. */

static int inHalo(int x, int y, int z, const int e[3], int h) {
  return x < h || x >= e[0] - h || y < h || y >= e[1] - h || z < h || z >= e[2] - h;
}

static int inEdge(int x, int y, int z, const int e[3], int h) {
  return !inHalo(x, y, z, e, h) && inHalo(x, y, z, e, 2 * h);
}

static long boxSites(int nx, int ny, int nz) {
  return (nx > 0 && ny > 0 && nz > 0) ? (long) nx * ny * nz : 0;
}

static void run3D(const int e[3], int nhalo, int ncomp, int to_target) {
  int n = e[0] * e[1] * e[2];
  char *sel = (char *) tuMalloc(n);
  long nsel = 0;
  for (int x = 0; x < e[0]; x++)
    for (int y = 0; y < e[1]; y++)
      for (int z = 0; z < e[2]; z++) {
        int s = (x * e[1] + y) * e[2] + z;
        sel[s] = (char) (to_target ? inHalo(x, y, z, e, nhalo) : inEdge(x, y, z, e, nhalo));
        nsel += sel[s];
      }
  /* the sets have the sizes geometry says they have */
  int h = nhalo;
  long interior = boxSites(e[0] - 2 * h, e[1] - 2 * h, e[2] - 2 * h);
  long want = to_target ? n - interior : interior - boxSites(e[0] - 4 * h, e[1] - 4 * h, e[2] - 4 * h);
  assert_int_equal(nsel, want);
  assert_true(nsel > 0);

  Field f;
  fieldNew(&f, n, ncomp, 77 + n + nhalo + ncomp);
  if (to_target) {
    assert_int_equal(copyToTarget(f.t, f.a, f.nbytes), TARGET_SUCCESS);
    assert_int_equal(copyToTarget3DHalo(f.t, f.b, e, nhalo, ncomp), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(f.h, f.t, f.nbytes), TARGET_SUCCESS);
    checkField(f.h, f.a, f.b, sel, n, ncomp, "copyToTarget3DHalo");
  } else {
    assert_int_equal(copyToTarget(f.t, f.b, f.nbytes), TARGET_SUCCESS);
    memcpy(f.h, f.a, f.nbytes);
    assert_int_equal(copyFromTarget3DEdge(f.h, f.t, e, nhalo, ncomp), TARGET_SUCCESS);
    checkField(f.h, f.a, f.b, sel, n, ncomp, "copyFromTarget3DEdge");
    checkTarget(&f, f.b, "source of copyFromTarget3DEdge");
  }
  fieldFree(&f);
  free(sel);
}

static void test_3d_halo_and_edge(void **state) {
  (void) state;
  /* nhalo 1 and 2; lattices from the smallest allowed (2 nhalo + 1) up,
   * with unequal extents so that x, y and z cannot be confused */
  const int ext[][4] = {{3, 3, 3, 1}, {6, 7, 8, 1}, {4, 9, 5, 1}, {12, 10, 11, 1},
                        {5, 5, 5, 2}, {7, 9, 8, 2}, {10, 6, 13, 2}, {12, 12, 12, 2}};
  for (int k = 0; k < 8; k++) {
    const int e[3] = {ext[k][0], ext[k][1], ext[k][2]};
    int nhalo = ext[k][3];
    for (int nc = 1; nc <= 3; nc += 2) {
      for (int dir = 0; dir < 2; dir++) {
        tuSetContext("%s, extents %d x %d x %d, nhalo %d, ncomp %d",
                     dir ? "halo to target" : "edge from target", e[0], e[1], e[2], nhalo, nc);
        run3D(e, nhalo, nc, dir);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_masked_copies),
      cmocka_unit_test(test_site_list_copies),
      cmocka_unit_test(test_site_list_edge_cases),
      cmocka_unit_test(test_3d_halo_and_edge),
  };
  return cmocka_run_group_tests_name("subset " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
