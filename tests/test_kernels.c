/*
 * test_kernels.c -- target code: the function qualifiers, the TLP/ILP loop
 * macros and their launches, in-kernel reductions, atomics, target and
 * host-and-target functions, and constants.
 *
 * Every kernel is launched as `TDP_LAUNCH(k, n, args); targetSynchronize();`
 * on site counts that are and are not multiples of VVL, and checked on the
 * host after copyFromTarget: every site is visited exactly once and nothing
 * outside [0, n) is written (guard elements after the end keep a sentinel).
 */
#include "test_util.h"

#define NCOMP 3
#define GUARD (VVL + 16) /* sentinel elements after the last site */
#define SENTINEL (-7)

TDP_CONST double tc_scale;
TDP_CONST double tc_coef[NCOMP];
TDP_CONST int tc_table[8];

/* Callable from host and target. Exact for the dyadic inputs used below,
 * so host and target results must agree bit for bit. */
TDP_HOST_DEVICE double tuPoly(double x) { return (3.0 * x - 2.0) * x + 1.0; }

/* Callable from target code only. */
TDP_DEVICE double tuTwice(double x) { return 2.0 * x; }

TDP_DEVICE void tuTally(double *t_acc, int *t_hits, double v) {
  targetAtomicAddDouble(t_acc, v);
  targetAtomicAddInt(t_hits, 1);
}

/* ---------------------------------------------------------------------- */
/* Kernels */

TDP_KERNEL void kTouch(int *t_count, double *t_val, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      t_count[i] += 1;
      t_val[i] = 3.0 * t_val[i] + (double) i;
    }
  }
}

TDP_KERNEL void kTouchNoStride(int *t_count, double *t_val, int n) {
  TDP_TLP_NOSTRIDE(index, n) {
    t_count[index] += 1;
    t_val[index] = 3.0 * t_val[index] + (double) index;
  }
}

/* A multi-component field: ILP inside a braced component loop. */
TDP_KERNEL void kField(double *t_f, int nsites) {
  TDP_TLP(baseIndex, nsites) {
    for (int c = 0; c < NCOMP; c++) {
      TDP_ILP(vecIndex) {
        int s = baseIndex + vecIndex;
        t_f[TDP_INDEX(nsites, NCOMP, s, c)] += 10.0 * s + c;
      }
    }
  }
}

/* The same update through TDP_VINDEX, the vector-friendly index. */
TDP_KERNEL void kFieldV(double *t_f, int nsites) {
  TDP_TLP(baseIndex, nsites) {
    for (int c = 0; c < NCOMP; c++) {
      TDP_ILP(vecIndex) {
        t_f[TDP_VINDEX(nsites, NCOMP, baseIndex, c, vecIndex)] += 10.0 * (baseIndex + vecIndex) + c;
      }
    }
  }
}

/* TDP_ILP as the whole (unbraced) body of a loop: the macro must be
 * one statement, as on CUDA. */
TDP_KERNEL void kFieldUnbraced(double *t_f, int nsites) {
  TDP_TLP(baseIndex, nsites) {
    for (int c = 0; c < NCOMP; c++)
      TDP_ILP(vecIndex) t_f[TDP_INDEX(nsites, NCOMP, baseIndex + vecIndex, c)] -= c + 0.5;
  }
}

/* Rank-2 components (3x3 per site) through TDP_INDEX2. */
TDP_KERNEL void kTensor(double *t_f, int nsites) {
  TDP_TLP(baseIndex, nsites) {
    for (int a = 0; a < 3; a++) {
      for (int b = 0; b < 3; b++) {
        TDP_ILP(vecIndex) {
          int s = baseIndex + vecIndex;
          t_f[TDP_INDEX2(nsites, 3, 3, s, a, b)] = 100.0 * s + 3 * a + b;
        }
      }
    }
  }
}

/* The in-kernel reduction pattern of targetDP.h. */
TDP_KERNEL void kSumDouble(const double *t_a, int n, double *t_sum) {
  double partial = 0.0;
  TDP_TLP_SUM(baseIndex, n, partial) {
    TDP_ILP_SUM(vecIndex, partial) {
      partial += t_a[baseIndex + vecIndex];
    }
  }
  targetBlockAddDouble(t_sum, partial);
}

TDP_KERNEL void kSumInt(const int *t_a, int n, int *t_sum) {
  int partial = 0;
  TDP_TLP_SUM(baseIndex, n, partial) {
    TDP_ILP_SUM(vecIndex, partial) {
      partial += t_a[baseIndex + vecIndex];
    }
  }
  targetBlockAddInt(t_sum, partial);
}

/* Atomics from a TDP_DEVICE function, with heavy contention on few bins. */
TDP_KERNEL void kAtomic(double *t_acc, int *t_hits, int *t_bins, double *t_dbins, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      tuTally(t_acc, t_hits, 0.5 * (i % 5));
      targetAtomicAddInt(&t_bins[i % 7], 1);
      targetAtomicAddDouble(&t_dbins[i % 3], 0.25);
    }
  }
}

/* Every site adds to the same two counters: lost updates show at once
 * if the atomics are not atomic. */
TDP_KERNEL void kContend(double *t_acc, int *t_hits, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      targetAtomicAddInt(t_hits, 1);
      targetAtomicAddDouble(t_acc, 0.5);
    }
  }
}

/* A TDP_HOST_DEVICE and a TDP_DEVICE function called from a kernel. */
TDP_KERNEL void kFunctions(const double *t_in, double *t_out, double *t_out2, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      t_out[i] = tuPoly(t_in[i]);
      t_out2[i] = tuTwice(t_in[i]);
    }
  }
}

/* Constants: a scalar and two arrays in target constant memory. */
TDP_KERNEL void kConst(const double *t_in, double *t_out, int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      t_out[i] = tc_scale * t_in[i] + tc_coef[i % NCOMP] + tc_table[i % 8];
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Helpers */

static int *newIntTarget(int n, int fill_host[], int value) {
  int *t = NULL;
  for (int i = 0; i < n + GUARD; i++) fill_host[i] = (i < n) ? value : SENTINEL;
  assert_int_equal(targetMalloc(&t, (n + GUARD) * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, fill_host, (n + GUARD) * sizeof(int)), TARGET_SUCCESS);
  return t;
}

/* Launch kTouch or kTouchNoStride on n sites and check every site moved
 * exactly once and the guard did not. */
static void runTouch(int n, int nostride) {
  tuSetContext("%s, n = %d", nostride ? "NoStride" : "TLP/ILP", n);
  int m = n + GUARD;
  int *count = (int *) tuMalloc(m * sizeof(int));
  double *val = (double *) tuMalloc(m * sizeof(double));
  double *val0 = (double *) tuMalloc(m * sizeof(double));
  double *t_val = NULL;
  int *t_count = newIntTarget(n, count, 0);

  tuFillDouble(val0, m, -2.0, 2.0, 1000 + n);
  /* Few mantissa bits, so 3x + i is exact with or without a fused
   * multiply-add (GPUs contract it, the host may not). */
  for (int i = 0; i < m; i++) val0[i] = (double) (long) (val0[i] * 1024.0) / 1024.0;
  assert_int_equal(targetMalloc(&t_val, m * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_val, val0, m * sizeof(double)), TARGET_SUCCESS);

  if (nostride) {
    TDP_LAUNCH_NOSTRIDE(kTouchNoStride, n, t_count, t_val, n);
  } else {
    TDP_LAUNCH(kTouch, n, t_count, t_val, n);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(count, t_count, m * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(val, t_val, m * sizeof(double)), TARGET_SUCCESS);

  tuCheck cc, cv;
  tuCheckInit(&cc);
  tuCheckInit(&cv);
  for (int i = 0; i < m; i++) {
    tuCheckEq(&cc, i, count[i], i < n ? 1 : SENTINEL);
    tuCheckEq(&cv, i, val[i], i < n ? 3.0 * val0[i] + (double) i : val0[i]);
  }
  tuCheckDone(&cc, "visit counts", m);
  tuCheckDone(&cv, "values", m);

  targetFree(t_count);
  targetFree(t_val);
  free(count);
  free(val);
  free(val0);
}

/* TDP_LOAD_ONCE / TDP_STORE_ONCE on doubles and on tdpDouble2 pairs (a
 * field of 2 pairs per site in the build's layout): the hints change the
 * cache policy only, never the values. */
TDP_KERNEL void kOnce(double *t_d, const double *t_s, tdpDouble2 *t_d2, const tdpDouble2 *t_s2,
                      int n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(v) {
      const long i = baseIndex + v;
      TDP_STORE_ONCE(t_d + i, 2.0 * TDP_LOAD_ONCE(t_s + i) + 1.0);
      for (int c = 0; c < 2; c++) {
        const tdpDouble2 a = TDP_LOAD_ONCE(t_s2 + TDP_VINDEX(n, 2, baseIndex, c, v));
        tdpDouble2 b;
        b.x = a.y - (double) c;
        b.y = a.x * 0.5;
        TDP_STORE_ONCE(t_d2 + TDP_VINDEX(n, 2, baseIndex, c, v), b);
      }
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Tests */

static void test_tlp_ilp_every_site_once(void **state) {
  (void) state;
  for (int k = 0; k < TU_NSIZES; k++) runTouch(tuSize(k), 0);
}

static void test_tlp_no_stride_every_site_once(void **state) {
  (void) state;
  for (int k = 0; k < TU_NSIZES; k++) runTouch(tuSize(k), 1);
}

static void test_launch_zero_sites(void **state) {
  (void) state;
  runTouch(0, 0);
  runTouch(0, 1);
}

static void test_kernel_called_twice(void **state) {
  (void) state;
  int n = 1003;
  int *count = (int *) tuMalloc((n + GUARD) * sizeof(int));
  int *t_count = newIntTarget(n, count, 5);
  double *t_val = NULL;
  assert_int_equal(targetCalloc(&t_val, n * sizeof(double)), TARGET_SUCCESS);
  TDP_LAUNCH(kTouch, n, t_count, t_val, n);
  TDP_LAUNCH(kTouch, n, t_count, t_val, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(count, t_count, (n + GUARD) * sizeof(int)), TARGET_SUCCESS);
  tuSetContext("two launches, n = %d", n);
  tuCheck c;
  tuCheckInit(&c);
  for (int i = 0; i < n + GUARD; i++) tuCheckEq(&c, i, count[i], i < n ? 7 : SENTINEL);
  tuCheckDone(&c, "counts after two launches", n + GUARD);
  targetFree(t_count);
  targetFree(t_val);
  free(count);
}

/* Multi-component fields through TDP_INDEX and TDP_INDEX2 in kernels;
 * padding (AoSoA) and guard elements must keep their values. */
static void test_field_kernels(void **state) {
  (void) state;
  for (int k = 0; k < TU_NSIZES; k++) {
    int n = tuSize(k);
    tuSetContext("field kernels, n = %d", n);
    size_t nf = TDP_FIELD_SIZE(n, NCOMP) + GUARD;
    double *f0 = (double *) tuMalloc(nf * sizeof(double));
    double *f = (double *) tuMalloc(nf * sizeof(double));
    double *t_f = NULL;
    tuFillDouble(f0, nf, 1.0, 5.0, 77 + n);
    assert_int_equal(targetMalloc(&t_f, nf * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t_f, f0, nf * sizeof(double)), TARGET_SUCCESS);
    TDP_LAUNCH(kField, n, t_f, n);
    TDP_LAUNCH(kFieldV, n, t_f, n);
    TDP_LAUNCH(kFieldUnbraced, n, t_f, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(f, t_f, nf * sizeof(double)), TARGET_SUCCESS);

    /* expected: f0 everywhere, plus the update on (site, comp) elements */
    double *want = (double *) tuMalloc(nf * sizeof(double));
    memcpy(want, f0, nf * sizeof(double));
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < NCOMP; c++) {
        size_t i = TDP_INDEX(n, NCOMP, s, c);
        want[i] = ((f0[i] + (10.0 * s + c)) + (10.0 * s + c)) - (c + 0.5);
      }
    }
    tuCheck ch;
    tuCheckInit(&ch);
    for (size_t i = 0; i < nf; i++) tuCheckEq(&ch, (long) i, f[i], want[i]);
    tuCheckDone(&ch, "field", nf);

    /* rank 2 */
    size_t nt = TDP_FIELD_SIZE(n, 9);
    double *t_t = NULL, *tens = (double *) tuMalloc(nt * sizeof(double));
    assert_int_equal(targetCalloc(&t_t, nt * sizeof(double)), TARGET_SUCCESS);
    TDP_LAUNCH(kTensor, n, t_t, n);
    assert_int_equal(checkTargetError("kTensor"), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(tens, t_t, nt * sizeof(double)), TARGET_SUCCESS);
    tuCheckInit(&ch);
    for (int s = 0; s < n; s++)
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          tuCheckEq(&ch, s, tens[TDP_INDEX2(n, 3, 3, s, a, b)], 100.0 * s + 3 * a + b);
    tuCheckDone(&ch, "tensor", (long) n * 9);

    targetFree(t_t);
    targetFree(t_f);
    free(tens);
    free(want);
    free(f);
    free(f0);
  }
}

static void test_in_kernel_reduction(void **state) {
  (void) state;
  for (int k = 0; k < TU_NSIZES; k++) {
    int n = tuSize(k);
    double *a = (double *) tuMalloc(n * sizeof(double));
    int *b = (int *) tuMalloc(n * sizeof(int));
    tuFillDouble(a, n, 0.5, 1.5, 31 + n);
    tuFillInt(b, n, -1000, 1000, 32 + n);
    double ref = 0.0;
    long long iref = 0;
    for (int i = 0; i < n; i++) {
      ref += a[i];
      iref += b[i];
    }
    double *t_a = NULL, *t_sum = NULL, sum = -1.0;
    int *t_b = NULL, *t_isum = NULL, isum = -1;
    double zero = 0.0;
    int izero = 0;
    assert_int_equal(targetMalloc(&t_a, n * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t_b, n * sizeof(int)), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t_sum, sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t_isum, sizeof(int)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t_a, a, n * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t_b, b, n * sizeof(int)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t_sum, &zero, sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t_isum, &izero, sizeof(int)), TARGET_SUCCESS);

    TDP_LAUNCH_REDUCE(kSumDouble, n, t_a, n, t_sum); /* capped grid */
    TDP_LAUNCH(kSumInt, n, t_b, n, t_isum);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(&sum, t_sum, sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(&isum, t_isum, sizeof(int)), TARGET_SUCCESS);

    tuSetContext("in-kernel reduction, n = %d", n);
    tuAssertClose(sum, ref, 1e-12);
    tuAssertClose(isum, (double) iref, 0.0);

    targetFree(t_a);
    targetFree(t_b);
    targetFree(t_sum);
    targetFree(t_isum);
    free(a);
    free(b);
  }
}

static void test_atomics(void **state) {
  (void) state;
  for (int k = 0; k < TU_NSIZES; k++) {
    int n = tuSize(k);
    double *t_acc = NULL, *t_dbins = NULL, acc = -1.0, dbins[3];
    int *t_hits = NULL, *t_bins = NULL, hits = -1, bins[7];
    assert_int_equal(targetCalloc(&t_acc, sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(targetCalloc(&t_hits, sizeof(int)), TARGET_SUCCESS);
    assert_int_equal(targetCalloc(&t_bins, 7 * sizeof(int)), TARGET_SUCCESS);
    assert_int_equal(targetCalloc(&t_dbins, 3 * sizeof(double)), TARGET_SUCCESS);

    TDP_LAUNCH(kAtomic, n, t_acc, t_hits, t_bins, t_dbins, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(&acc, t_acc, sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(&hits, t_hits, sizeof(int)), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(bins, t_bins, sizeof(bins)), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(dbins, t_dbins, sizeof(dbins)), TARGET_SUCCESS);

    /* all values are multiples of 0.25: the sums are exact in any order */
    double want_acc = 0.0;
    int want_bins[7] = {0, 0, 0, 0, 0, 0, 0};
    double want_dbins[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
      want_acc += 0.5 * (i % 5);
      want_bins[i % 7] += 1;
      want_dbins[i % 3] += 0.25;
    }
    tuSetContext("atomics, n = %d", n);
    tuAssertClose(hits, n, 0.0);
    tuAssertClose(acc, want_acc, 0.0);
    for (int j = 0; j < 7; j++) tuAssertClose(bins[j], want_bins[j], 0.0);
    for (int j = 0; j < 3; j++) tuAssertClose(dbins[j], want_dbins[j], 0.0);

    targetFree(t_acc);
    targetFree(t_hits);
    targetFree(t_bins);
    targetFree(t_dbins);
  }
}

static void test_atomics_contention(void **state) {
  (void) state;
  int n = 1 << 20;
  double *t_acc = NULL, acc = -1.0;
  int *t_hits = NULL, hits = -1;
  tuSetContext("atomics on one address, n = %d", n);
  assert_int_equal(targetCalloc(&t_acc, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_hits, sizeof(int)), TARGET_SUCCESS);
  for (int r = 0; r < 3; r++) TDP_LAUNCH(kContend, n, t_acc, t_hits, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(&acc, t_acc, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(&hits, t_hits, sizeof(int)), TARGET_SUCCESS);
  tuAssertClose(hits, 3.0 * n, 0.0);
  tuAssertClose(acc, 1.5 * n, 0.0);
  targetFree(t_acc);
  targetFree(t_hits);
}

static void test_target_and_host_functions(void **state) {
  (void) state;
  int n = 12345;
  tuSetContext("functions, n = %d", n);
  double *in = (double *) tuMalloc(n * sizeof(double));
  double *out = (double *) tuMalloc(n * sizeof(double));
  double *out2 = (double *) tuMalloc(n * sizeof(double));
  for (int i = 0; i < n; i++) in[i] = 0.25 * ((i * 37) % 97 - 48); /* exact dyadic values */
  double *t_in = NULL, *t_out = NULL, *t_out2 = NULL;
  assert_int_equal(targetMalloc(&t_in, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_out, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_out2, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_in, in, n * sizeof(double)), TARGET_SUCCESS);
  TDP_LAUNCH(kFunctions, n, t_in, t_out, t_out2, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(out, t_out, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(out2, t_out2, n * sizeof(double)), TARGET_SUCCESS);
  tuCheck c, c2;
  tuCheckInit(&c);
  tuCheckInit(&c2);
  for (int i = 0; i < n; i++) {
    double x = in[i];
    tuCheckEq(&c, i, out[i], tuPoly(x)); /* the same function, on the host */
    tuCheckEq(&c2, i, out2[i], 2.0 * x);
  }
  assert_true(tuPoly(2.0) == 9.0); /* the function itself is right */
  tuCheckDone(&c, "TDP_HOST_DEVICE function", n);
  tuCheckDone(&c2, "TDP_DEVICE function", n);
  targetFree(t_in);
  targetFree(t_out);
  targetFree(t_out2);
  free(in);
  free(out);
  free(out2);
}

static void runConst(int n, double scale, const double coef[NCOMP], const int table[8]) {
  tuSetContext("constants, n = %d, scale %g", n, scale);
  double *in = (double *) tuMalloc(n * sizeof(double));
  double *out = (double *) tuMalloc(n * sizeof(double));
  double *t_in = NULL, *t_out = NULL;
  for (int i = 0; i < n; i++) in[i] = 0.5 * (i % 1000) + 0.25;
  assert_int_equal(targetMalloc(&t_in, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_out, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_in, in, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyConstToTarget(&tc_scale, &scale, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyConstToTarget(tc_coef, coef, NCOMP * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyConstToTarget(tc_table, table, 8 * sizeof(int)), TARGET_SUCCESS);
  TDP_LAUNCH(kConst, n, t_in, t_out, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(out, t_out, n * sizeof(double)), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (int i = 0; i < n; i++)
    tuCheckEq(&c, i, out[i], scale * in[i] + coef[i % NCOMP] + table[i % 8]);
  tuCheckDone(&c, "constants", n);
  targetFree(t_in);
  targetFree(t_out);
  free(in);
  free(out);
}

static void test_constants(void **state) {
  (void) state;
  const double coef1[NCOMP] = {0.125, -1.5, 3.0};
  const int table1[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  const double coef2[NCOMP] = {-0.75, 2.5, 0.0625};
  const int table2[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  runConst(1003, 2.5, coef1, table1);
  /* new values must replace the old ones */
  runConst(1003, -4.0, coef2, table2);
  runConst(VVL + 1, 0.5, coef1, table2);
}

static void test_load_store_once(void **state) {
  (void) state;
  struct {
    char c;
    tdpDouble2 d;
  } probe;
  assert_int_equal(sizeof(tdpDouble2), 16);
  assert_int_equal((int) ((char *) &probe.d - (char *) &probe), 16); /* aligned to 16 */
  for (int k = 0; k < TU_NSIZES; k++) {
    int n = tuSize(k);
    tuSetContext("TDP_LOAD_ONCE / TDP_STORE_ONCE, n = %d", n);
    size_t np = TDP_FIELD_SIZE(n, 2);
    double *s = (double *) tuMalloc((n + 1) * sizeof(double));
    double *d = (double *) tuMalloc((n + 1) * sizeof(double));
    tdpDouble2 *s2 = (tdpDouble2 *) tuMalloc((np + 1) * sizeof(tdpDouble2));
    tdpDouble2 *d2 = (tdpDouble2 *) tuMalloc((np + 1) * sizeof(tdpDouble2));
    for (int i = 0; i <= n; i++) s[i] = 0.25 * i - 3.0;
    for (size_t i = 0; i <= np; i++) {
      s2[i].x = (double) i;
      s2[i].y = -0.5 * (double) i;
    }
    double *t_s = NULL, *t_d = NULL;
    tdpDouble2 *t_s2 = NULL, *t_d2 = NULL;
    assert_int_equal(targetMalloc(&t_s, (n + 1) * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(targetCalloc(&t_d, (n + 1) * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t_s2, (np + 1) * sizeof(tdpDouble2)), TARGET_SUCCESS);
    assert_int_equal(targetCalloc(&t_d2, (np + 1) * sizeof(tdpDouble2)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t_s, s, (n + 1) * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyToTarget(t_s2, s2, (np + 1) * sizeof(tdpDouble2)), TARGET_SUCCESS);
    TDP_LAUNCH(kOnce, n, t_d, t_s, t_d2, t_s2, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(d, t_d, (n + 1) * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(d2, t_d2, (np + 1) * sizeof(tdpDouble2)), TARGET_SUCCESS);
    tuCheck ch;
    tuCheckInit(&ch);
    for (int i = 0; i <= n; i++) tuCheckEq(&ch, i, d[i], i < n ? 2.0 * s[i] + 1.0 : 0.0);
    tuCheckDone(&ch, "doubles", n + 1);
    tuCheckInit(&ch);
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 2; c++) {
        const size_t j = TDP_INDEX(n, 2, i, c);
        tuCheckEq(&ch, (long) j, d2[j].x, s2[j].y - (double) c);
        tuCheckEq(&ch, (long) j, d2[j].y, s2[j].x * 0.5);
      }
    tuCheckEq(&ch, (long) np, d2[np].x + d2[np].y, 0.0); /* past the field: untouched */
    tuCheckDone(&ch, "pairs", 2L * n + 1);
    targetFree(t_s);
    targetFree(t_d);
    targetFree(t_s2);
    targetFree(t_d2);
    free(s);
    free(d);
    free(s2);
    free(d2);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tlp_ilp_every_site_once),
      cmocka_unit_test(test_tlp_no_stride_every_site_once),
      cmocka_unit_test(test_launch_zero_sites),
      cmocka_unit_test(test_kernel_called_twice),
      cmocka_unit_test(test_field_kernels),
      cmocka_unit_test(test_in_kernel_reduction),
      cmocka_unit_test(test_atomics),
      cmocka_unit_test(test_atomics_contention),
      cmocka_unit_test(test_target_and_host_functions),
      cmocka_unit_test(test_constants),
      cmocka_unit_test(test_load_store_once),
  };
  return cmocka_run_group_tests_name("kernels " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
