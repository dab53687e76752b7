/*
 * test_contract.c -- batched contractions (targetContract, issue 30 item 4):
 *   - the nine Intrepid contractions (DataData, DataField, FieldField x
 *     scalar, vector, tensor) at small sizes, and shapes at the edges (one
 *     cell, nk = 0, nk = 1, tiles with ragged edges, cells wider than one
 *     team), by every path (AUTO, TEAM, VENDOR: cuBLAS on CUDA, the blocked
 *     loop on C) and in both modes (SET, and ADD onto a nonzero output),
 *     each to 1e-12 of a serial reference (relative to the sum of the
 *     terms' sizes, as the sums may cancel);
 *   - the two paths agree with each other to 1e-12;
 *   - the crossover: its defaults, targetContractSetCrossover, the choice
 *     it makes, a bad value refused;
 *   - errors with file:line: a bad mode or path, bad extents, an output
 *     that overlaps an input, an array too small for the extents.
 */
#include "test_util.h"

static const char *pathName(tdpContractPath p) {
  return p == TDP_CONTRACT_AUTO ? "AUTO" : p == TDP_CONTRACT_TEAM ? "TEAM" : "VENDOR";
}

/* out (ncells x nl x nr) = (or +=) left . right over k, serially; size:
 * the sum of |terms| of each output, for the tolerance. */
static void reference(double *out, double *size, const double *a, const double *b, long nc,
                      long nl, long nr, long nk, int add) {
  for (long c = 0; c < nc; c++)
    for (long l = 0; l < nl; l++)
      for (long r = 0; r < nr; r++) {
        double s = 0.0, z = 0.0;
        for (long k = 0; k < nk; k++) {
          const double t = a[(c * nl + l) * nk + k] * b[(c * nr + r) * nk + k];
          s += t;
          z += fabs(t);
        }
        const long o = (c * nl + l) * nr + r;
        if (add) z += fabs(out[o]);
        out[o] = add ? out[o] + s : s;
        size[o] = z;
      }
}

/* One contraction by one path in one mode against the reference. */
static void checkShape(const char *name, long nc, long nl, long nr, long nk,
                       tdpContractPath path, tdpContractMode mode) {
  const size_t no = (size_t) (nc * nl * nr), na = (size_t) (nc * nl * nk), nb = (size_t) (nc * nr * nk);
  double *a = (double *) tuMalloc(na * sizeof(double) + 8);
  double *b = (double *) tuMalloc(nb * sizeof(double) + 8);
  double *want = (double *) tuMalloc(no * sizeof(double) + 8);
  double *size = (double *) tuMalloc(no * sizeof(double) + 8);
  double *got = (double *) tuMalloc(no * sizeof(double) + 8);
  tuFillDouble(a, na, -1.0, 1.0, 100 + (uint64_t) (nl * 7 + nk));
  tuFillDouble(b, nb, -1.0, 1.0, 200 + (uint64_t) (nr * 5 + nk));
  tuFillDouble(want, no, -2.0, 2.0, 300); /* what ADD adds to */
  double *t_a = NULL, *t_b = NULL, *t_o = NULL;
  assert_int_equal(targetMalloc(&t_a, na * sizeof(double) + 8), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_b, nb * sizeof(double) + 8), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_o, no * sizeof(double) + 8), TARGET_SUCCESS);
  if (na) copyToTarget(t_a, a, na * sizeof(double));
  if (nb) copyToTarget(t_b, b, nb * sizeof(double));
  if (no) copyToTarget(t_o, want, no * sizeof(double));
  const int add = mode == TDP_CONTRACT_ADD;
  reference(want, size, a, b, nc, nl, nr, nk, add);
  assert_int_equal(targetContractPath(t_o, t_a, t_b, nc, nl, nr, nk, mode, path), TARGET_SUCCESS);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  if (no) copyFromTarget(got, t_o, no * sizeof(double));
  for (size_t o = 0; o < no; o++) {
    if (!(fabs(got[o] - want[o]) <= 1e-12 * size[o]))
      fail_msg("%s (%ld cells, %ld x %ld, k %ld) by %s, %s: out[%zu] = %.17g, want %.17g (to "
               "1e-12 of %g)", name, nc, nl, nr, nk, pathName(path), add ? "ADD" : "SET", o,
               got[o], want[o], size[o]);
  }
  targetFree(t_a);
  targetFree(t_b);
  targetFree(t_o);
  free(a);
  free(b);
  free(want);
  free(size);
  free(got);
}

static void checkAllWays(const char *name, long nc, long nl, long nr, long nk) {
  const tdpContractPath paths[] = {TDP_CONTRACT_AUTO, TDP_CONTRACT_TEAM, TDP_CONTRACT_VENDOR};
  for (int p = 0; p < 3; p++) {
    checkShape(name, nc, nl, nr, nk, paths[p], TDP_CONTRACT_SET);
    checkShape(name, nc, nl, nr, nk, paths[p], TDP_CONTRACT_ADD);
  }
}

/* The nine, with the small cases: P points, D dimension, D1 x D2. */
static void test_intrepid_nine(void **state) {
  (void) state;
  const long C = 37, P = 27, D = 3, F = 9, L = 8, R = 9;
  checkAllWays("DataDataScalar", C, 1, 1, P);
  checkAllWays("DataDataVector", C, 1, 1, P * D);
  checkAllWays("DataDataTensor", C, 1, 1, P * D * D);
  checkAllWays("DataDataTensor (3, 8)", 101, 1, 1, 8 * 9);
  checkAllWays("DataDataTensor (6, 27)", 11, 1, 1, 27 * 36);
  checkAllWays("DataFieldScalar", C, F, 1, P);
  checkAllWays("DataFieldVector", C, F, 1, P * D);
  checkAllWays("DataFieldTensor", C, F, 1, P * D * D);
  checkAllWays("FieldFieldScalar", C, L, R, P);
  checkAllWays("FieldFieldVector", C, L, R, P * D);
  checkAllWays("FieldFieldTensor", C, L, R, P * D * D);
  checkAllWays("FieldFieldScalar (8, 8)", 50, 8, 8, 8);
  checkAllWays("FieldFieldScalar (27, 64)", 5, 27, 27, 64);
  checkAllWays("FieldFieldTensor L = R = 16, 4 x 4, P = 16", 6, 16, 16, 16 * 16);
  checkAllWays("FieldFieldScalar (125, 216)", 2, 125, 125, 216);
}

static void test_edges(void **state) {
  (void) state;
  checkAllWays("one cell", 1, 5, 7, 19);
  checkAllWays("nk = 0", 4, 3, 5, 0);
  checkAllWays("nk = 1", 9, 6, 2, 1);
  checkAllWays("nk = 17 (one past a slice)", 3, 4, 4, 17);
  checkAllWays("left one row", 7, 1, 6, 33);
  checkAllWays("right one row, long k", 3, 5, 1, 3000);
  checkAllWays("wide cell (tiles of 16)", 2, 40, 33, 21);
  checkAllWays("2 x 500 (one team)", 2, 2, 500, 20);
  /* TEAM's two FieldField forms: flat below a 16-deep slice, tiled from it */
  checkAllWays("nk = 15 (flat, a part team)", 70, 4, 4, 15);
  checkAllWays("nk = 16 (tiled, one slice)", 70, 4, 4, 16);
  checkAllWays("2 x 500, nk = 9 (flat)", 2, 2, 500, 9);
  checkAllWays("1 x 1, k 100", 1000, 1, 1, 100);
  checkAllWays("no cells", 0, 4, 4, 8);
}

/* TEAM and VENDOR on the same data agree to 1e-12 of the sizes. */
static void test_paths_agree(void **state) {
  (void) state;
  const long nc = 20, nl = 16, nr = 16, nk = 256;
  const size_t no = (size_t) (nc * nl * nr), na = (size_t) (nc * nl * nk);
  double *a = (double *) tuMalloc(na * sizeof(double)), *b = (double *) tuMalloc(na * sizeof(double));
  double *x = (double *) tuMalloc(no * sizeof(double)), *y = (double *) tuMalloc(no * sizeof(double));
  tuFillDouble(a, na, 0.5, 1.5, 1);
  tuFillDouble(b, na, 0.5, 1.5, 2);
  double *t_a = NULL, *t_b = NULL, *t_x = NULL, *t_y = NULL;
  targetMalloc(&t_a, na * sizeof(double));
  targetMalloc(&t_b, na * sizeof(double));
  targetMalloc(&t_x, no * sizeof(double));
  targetMalloc(&t_y, no * sizeof(double));
  copyToTarget(t_a, a, na * sizeof(double));
  copyToTarget(t_b, b, na * sizeof(double));
  targetContractPath(t_x, t_a, t_b, nc, nl, nr, nk, TDP_CONTRACT_SET, TDP_CONTRACT_TEAM);
  targetContractPath(t_y, t_a, t_b, nc, nl, nr, nk, TDP_CONTRACT_SET, TDP_CONTRACT_VENDOR);
  targetSynchronize();
  copyFromTarget(x, t_x, no * sizeof(double));
  copyFromTarget(y, t_y, no * sizeof(double));
  for (size_t o = 0; o < no; o++) {
    /* positive data: the sum is its own size */
    if (!(fabs(x[o] - y[o]) <= 1e-12 * fabs(y[o])))
      fail_msg("out[%zu]: TEAM %.17g, VENDOR %.17g", o, x[o], y[o]);
  }
  targetFree(t_a);
  targetFree(t_b);
  targetFree(t_x);
  targetFree(t_y);
  free(a);
  free(b);
  free(x);
  free(y);
}

static void test_crossover(void **state) {
  (void) state;
  long lr = 0, k = 0;
  targetContractGetCrossover(&lr, &k);
  if (getenv("TARGETDP_CONTRACT_CROSSOVER") == NULL) {
    assert_int_equal(lr, TDP_CONTRACT_CROSSOVER_LR);
    assert_int_equal(k, TDP_CONTRACT_CROSSOVER_K);
  }
  assert_int_equal(targetContractSetCrossover(10, 20), TARGET_SUCCESS);
  assert_int_equal(targetContractChoice(10, 10, 20), TDP_CONTRACT_VENDOR);
  assert_int_equal(targetContractChoice(9, 10, 20), TDP_CONTRACT_TEAM);
  assert_int_equal(targetContractChoice(10, 9, 20), TDP_CONTRACT_TEAM);
  assert_int_equal(targetContractChoice(10, 10, 19), TDP_CONTRACT_TEAM);
  /* AUTO follows the choice: both sides of it right */
  checkShape("AUTO below the crossover", 3, 9, 12, 25, TDP_CONTRACT_AUTO, TDP_CONTRACT_ADD);
  checkShape("AUTO at the crossover", 3, 10, 12, 25, TDP_CONTRACT_AUTO, TDP_CONTRACT_ADD);
  targetSetErrorAbort(0);
  expectError(targetContractSetCrossover(0, 5), TARGET_ERROR_INVALID_VALUE,
              "targetContractSetCrossover", "min_lr 0 and min_k 5 must both be at least 1");
  targetSetErrorAbort(1);
  assert_int_equal(targetContractSetCrossover(lr, k), TARGET_SUCCESS);
}

static void test_errors(void **state) {
  (void) state;
  double *t_a = NULL, *t_o = NULL;
  assert_int_equal(targetCalloc(&t_a, 1000 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_o, 100 * sizeof(double)), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  expectError(targetContract(t_o, t_a, t_a, 2, 2, 2, 4, (tdpContractMode) 7),
              TARGET_ERROR_INVALID_VALUE, "targetContract", "mode 7 is neither");
  expectError(targetContractPath(t_o, t_a, t_a, 2, 2, 2, 4, TDP_CONTRACT_SET, (tdpContractPath) 9),
              TARGET_ERROR_INVALID_VALUE, "targetContract", "path 9 is not");
  expectError(targetContract(t_o, t_a, t_a, -1, 2, 2, 4, TDP_CONTRACT_SET),
              TARGET_ERROR_INVALID_VALUE, "targetContract", "ncells -1, nl 2, nr 2, nk 4");
  expectError(targetContract(t_o, t_a, t_a, 2, 0, 2, 4, TDP_CONTRACT_SET),
              TARGET_ERROR_INVALID_VALUE, "targetContract", "want ncells >= 0, nl >= 1");
  expectError(targetContract(t_o, t_a, t_a, 2, 2, 2, 1L << 32, TDP_CONTRACT_SET),
              TARGET_ERROR_INVALID_VALUE, "targetContract", "an extent of 2^31 or more");
  expectError(targetContract(t_a + 10, t_a, t_a + 500, 2, 2, 2, 4, TDP_CONTRACT_SET),
              TARGET_ERROR_INVALID_VALUE, "targetContract", "t_out overlaps t_left");
  /* 11 x 3 x 3 = 99 outputs fit t_o (100); 11 x 3 x 40 = 1320 inputs do not fit t_a (1000) */
  expectError(targetContract(t_o, t_a, t_a, 11, 3, 3, 40, TDP_CONTRACT_SET),
              TARGET_ERROR_INVALID_VALUE, "targetContract", "t_left");
  targetSetErrorAbort(1);
  targetFree(t_a);
  targetFree(t_o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_intrepid_nine),
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_paths_agree),
      cmocka_unit_test(test_crossover),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests_name("contract " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
