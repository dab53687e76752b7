/*
 * test_stream_lanes.c -- TDP_STREAM_LANES (docs/api.md, "Kernel hints"):
 * a stride's lane values r[TDP_LANE(v)] stored to component icomp of sites
 * site + v, as streaming stores where the C backend can (AVX, whole
 * aligned strides of contiguous lanes) and plain stores otherwise.
 *
 * Whatever path a stride takes, the result must be the plain stores'
 * result: every element of every component of the written sites holds its
 * value, every other element (sites before and after, padding, guards
 * past the allocation's end) is unchanged. Checked for double and float,
 * ncomp 1 (a plain array) and 3 and 19 (lanes ncomp apart in AoS; whole
 * 64-byte lines per component under AoSoA with SAL 8), at the tuSize site
 * counts (short last strides, N not a multiple of VVL), from site 0 (the
 * allocation's aligned start), from sites 1 and 3 (strides that start off
 * a vector boundary, and under AoSoA split over two short arrays), and
 * through a pointer one element past an aligned start (every stride
 * misaligned). The results are read right after targetSynchronize: the
 * layer fences the streams, nothing else does. Also through a box loop
 * (plain stores there on the C backend), and in the checked build a store
 * outside the field stops the program naming this file and line.
 *
 * TDP_ILP_STAGED (the update form that loads every lane before storing
 * any, docs/api.md "Sites per thread, per launch"): a[i] = a[i] + s * f(b[i])
 * for double and float, at the tuSize site counts; every site updated
 * once, the elements past n unchanged.
 */
#include "test_util.h"

#ifdef TARGETDP_CHECK
#define TU_CHECKED 1
#else
#define TU_CHECKED 0
#endif

/* The value of component c of site s: exact in float (< 2^24). */
#define VALUE(s, c) ((double) ((s) % 100003) * 32.0 + (double) (c) + 0.5)
#define GUARD (-7.25)
#define NGUARD 16

/* Sites first .. first + n - 1 of a field of nsites sites, every
 * component, one TDP_STREAM_LANES per component and stride. */
#define STORE_KERNEL(name, T)                                                          \
  TDP_KERNEL void name(T *t_f, long nsites, int ncomp, long first, long n) {           \
    TDP_TLP(base, n) {                                                                 \
      for (int c = 0; c < ncomp; c++) {                                                \
        T r[VVL];                                                                      \
        TDP_ILP(v) r[TDP_LANE(v)] = (T) VALUE(first + base + v, c);                    \
        TDP_STREAM_LANES(t_f, nsites, ncomp, first + base, c, r);                      \
      }                                                                                \
    }                                                                                  \
  }
STORE_KERNEL(kStoreDouble, double)
STORE_KERNEL(kStoreFloat, float)

/* Each argument once: the field and site arguments move a local copy by
 * one; any other count is a wrong evaluation. */
TDP_KERNEL void kOnce(double *t_f, long n, int *t_wrong) {
  TDP_TLP(base, n) {
    double r[VVL];
    TDP_ILP(v) r[TDP_LANE(v)] = VALUE(base + v, 0);
    long site = base;
    double *f = t_f;
    TDP_STREAM_LANES(f++, n, 1, site++, 0, r);
    if (site != base + 1 || f != t_f + 1) targetAtomicAddInt(t_wrong, 1);
  }
}

/* A row of a 2-D box, lanes consecutive on both backends. */
TDP_KERNEL void kBox(targetBox box, double *t_f) {
  TDP_TLP_2D(box, x, y0, base) {
    double r[VVL];
    TDP_ILP(v) r[TDP_LANE(v)] = VALUE(base + v, 0);
    TDP_STREAM_LANES(t_f, box.extent[0] * box.extent[1], 1, base, 0, r);
  }
}

/* Run the store kernel on a field of nsites sites (plus guards) at offset
 * elements from an aligned allocation; check every element. */
static void checkStore(int is_float, long nsites, int ncomp, long first, long n, int offset) {
  const size_t esz = is_float ? sizeof(float) : sizeof(double);
  const size_t nel = TDP_FIELD_SIZE(nsites, ncomp), ntot = offset + nel + NGUARD;
  char *host = (char *) tuMalloc(ntot * esz), *t_mem = NULL;
  for (size_t i = 0; i < ntot; i++) {
    if (is_float) ((float *) host)[i] = (float) GUARD;
    else ((double *) host)[i] = GUARD;
  }
  assert_int_equal(targetMalloc(&t_mem, ntot * esz), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_mem, host, ntot * esz), TARGET_SUCCESS);
  if (is_float) {
    float *t_f = (float *) t_mem + offset;
    TDP_LAUNCH(kStoreFloat, n, t_f, nsites, ncomp, first, n);
  } else {
    double *t_f = (double *) t_mem + offset;
    TDP_LAUNCH(kStoreDouble, n, t_f, nsites, ncomp, first, n);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(host, t_mem, ntot * esz), TARGET_SUCCESS);
  tuSetContext("%s, ncomp %d, %ld sites, sites %ld .. %ld, pointer offset %d, " TARGETDP_CONFIG,
               is_float ? "float" : "double", ncomp, nsites, first, first + n - 1, offset);
  /* what each element should hold: GUARD, or the value of its (site, c) */
  double *want = (double *) tuMalloc(ntot * sizeof(double));
  for (size_t i = 0; i < ntot; i++) want[i] = GUARD;
  for (long s = first; s < first + n; s++)
    for (int c = 0; c < ncomp; c++)
      want[offset + TDP_INDEX(nsites, ncomp, s, c)] = is_float ? (double) (float) VALUE(s, c)
                                                               : VALUE(s, c);
  tuCheck chk;
  tuCheckInit(&chk);
  for (size_t i = 0; i < ntot; i++)
    tuCheckEq(&chk, (long) i, is_float ? (double) ((float *) host)[i] : ((double *) host)[i],
              want[i]);
  tuCheckDone(&chk, "elements of the allocation", ntot);
  assert_int_equal(targetFree(t_mem), TARGET_SUCCESS);
  free(host);
  free(want);
}

static void test_every_element(void **state) {
  (void) state;
  const int ncomps[] = {1, 3, 19};
  const long firsts[] = {0, 1, 3};
  for (int is_float = 0; is_float < 2; is_float++)
    for (int k = 0; k < TU_NSIZES; k++)
      for (int ic = 0; ic < 3; ic++)
        for (int jf = 0; jf < 3; jf++) {
          const long n = tuSize(k), first = firsts[jf];
          if (ncomps[ic] == 19 && n > 2000) continue; /* enough sites for 19 */
          checkStore(is_float, first + n + 5, ncomps[ic], first, n, 0);
          if (ncomps[ic] == 1) checkStore(is_float, first + n, 1, first, n, 1);
        }
}

/* Large enough for many strides per OpenMP thread and several CUDA
 * blocks per lane, at VVL multiples and not. */
static void test_large(void **state) {
  (void) state;
  const long sizes[] = {1L << 20, (1L << 20) + 7, 300001};
  for (int k = 0; k < 3; k++) {
    checkStore(0, sizes[k], 1, 0, sizes[k], 0);
    checkStore(1, sizes[k], 1, 0, sizes[k], 0);
    checkStore(0, sizes[k] + 1, 1, 1, sizes[k], 1);
    checkStore(0, sizes[k], 3, 0, sizes[k], 0);
  }
}

static void test_arguments_once(void **state) {
  (void) state;
  const long n = 3 * VVL * TARGET_TPB + 5;
  double *t_f = NULL;
  int *t_wrong = NULL, wrong = -1;
  assert_int_equal(targetMalloc(&t_f, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_wrong, sizeof(int)), TARGET_SUCCESS);
  TDP_LAUNCH(kOnce, n, t_f, n, t_wrong);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(&wrong, t_wrong, sizeof(int)), TARGET_SUCCESS);
  double *f = (double *) tuMalloc(n * sizeof(double));
  assert_int_equal(copyFromTarget(f, t_f, n * sizeof(double)), TARGET_SUCCESS);
  if (wrong != 0) fail_msg("%d strides evaluated f++ or site++ other than once", wrong);
  tuCheck chk;
  tuCheckInit(&chk);
  for (long s = 0; s < n; s++) tuCheckEq(&chk, s, f[s], VALUE(s, 0));
  tuSetContext("kOnce, %ld sites", n);
  tuCheckDone(&chk, "sites", n);
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_wrong), TARGET_SUCCESS);
  free(f);
}

static void test_box_loop(void **state) {
  (void) state;
  const long ext[2] = {9, 2 * VVL + 3}, lo[2] = {1, 1}, hi[2] = {8, 2 * VVL + 2};
  const long nsites = ext[0] * ext[1];
  targetBox box;
  assert_int_equal(targetBoxMake(&box, 2, ext, lo, hi), TARGET_SUCCESS);
  double *t_f = NULL, *f = (double *) tuMalloc(nsites * sizeof(double));
  for (long s = 0; s < nsites; s++) f[s] = GUARD;
  assert_int_equal(targetMalloc(&t_f, nsites * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_f, f, nsites * sizeof(double)), TARGET_SUCCESS);
  TDP_LAUNCH_BOX(kBox, box, t_f);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(f, t_f, nsites * sizeof(double)), TARGET_SUCCESS);
  tuCheck chk;
  tuCheckInit(&chk);
  for (long x = 0; x < ext[0]; x++)
    for (long y = 0; y < ext[1]; y++) {
      const long s = x * ext[1] + y;
      const int in = x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1];
      tuCheckEq(&chk, s, f[s], in ? VALUE(s, 0) : GUARD);
    }
  tuSetContext("box %ldx%ld", ext[0], ext[1]);
  tuCheckDone(&chk, "sites", nsites);
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  free(f);
}

/* TDP_ILP_STAGED: dest reads itself (an update), value holds commas (a call
 * of two arguments) and is a double stored to a float in the float kernel.
 * Small integers: exact in float, with or without a fused multiply-add. */
static TDP_HOST_DEVICE inline double stagedPlus(double x, double y) { return x + y; }
#define STAGED_A(i) ((double) ((i) % 4093))
#define STAGED_B(i) ((double) ((i) % 17))
#define STAGED_KERNEL(name, T)                                                          \
  TDP_KERNEL void name(T *TDP_RESTRICT a, const T *TDP_RESTRICT b, double s, long n) {  \
    TDP_TLP(base, n) {                                                                  \
      TDP_ILP_STAGED(v, T, a[base + v], a[base + v] + s * stagedPlus(b[base + v], 1.0)); \
    }                                                                                   \
  }
STAGED_KERNEL(kStagedDouble, double)
STAGED_KERNEL(kStagedFloat, float)

static void checkStaged(int is_float, long n) {
  const size_t esz = is_float ? sizeof(float) : sizeof(double);
  const long ntot = n + NGUARD;
  char *ha = (char *) tuMalloc(ntot * esz), *hb = (char *) tuMalloc(ntot * esz);
  for (long i = 0; i < ntot; i++) {
    if (is_float) {
      ((float *) ha)[i] = (float) STAGED_A(i);
      ((float *) hb)[i] = (float) STAGED_B(i);
    } else {
      ((double *) ha)[i] = STAGED_A(i);
      ((double *) hb)[i] = STAGED_B(i);
    }
  }
  char *t_a = NULL, *t_b = NULL;
  assert_int_equal(targetMalloc(&t_a, ntot * esz), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_b, ntot * esz), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_a, ha, ntot * esz), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_b, hb, ntot * esz), TARGET_SUCCESS);
  if (is_float) TDP_LAUNCH(kStagedFloat, n, (float *) t_a, (const float *) t_b, 2.0, n);
  else TDP_LAUNCH(kStagedDouble, n, (double *) t_a, (const double *) t_b, 2.0, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(ha, t_a, ntot * esz), TARGET_SUCCESS);
  tuSetContext("TDP_ILP_STAGED, %s, %ld sites, " TARGETDP_CONFIG, is_float ? "float" : "double",
               n);
  tuCheck chk;
  tuCheckInit(&chk);
  for (long i = 0; i < ntot; i++) {
    const double got = is_float ? (double) ((float *) ha)[i] : ((double *) ha)[i];
    tuCheckEq(&chk, i, got, i < n ? STAGED_A(i) + 2.0 * (STAGED_B(i) + 1.0) : STAGED_A(i));
  }
  tuCheckDone(&chk, "elements (sites and the guards past n)", ntot);
  assert_int_equal(targetFree(t_a), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_b), TARGET_SUCCESS);
  free(ha);
  free(hb);
}

static void test_staged(void **state) {
  (void) state;
  for (int is_float = 0; is_float < 2; is_float++) {
    for (int k = 0; k < TU_NSIZES; k++) checkStaged(is_float, tuSize(k));
    checkStaged(is_float, (1L << 20) + 7);
  }
}

/* Checked build: lane stores outside the field are caught, naming the
 * kernel and this line. */
enum { LINE_OOB = __LINE__ + 5 };
TDP_KERNEL void kOob(double *t_f, long n) {
  TDP_TLP(base, n) {
    double r[VVL];
    TDP_ILP(v) r[TDP_LANE(v)] = 1.0;
    TDP_STREAM_LANES(t_f, n, 2, base, 2, r); /* planted: component 2 of 2 */
  }
}
static int childOob(void *arg) {
  (void) arg;
  double *t = NULL;
  targetInit();
  targetCalloc(&t, TDP_FIELD_SIZE(37, 3) * sizeof(double));
  TDP_LAUNCH(kOob, 37, t, 37);
  targetSynchronize();
  printf("(the planted out-of-bounds store went unnoticed)\n");
  return 99;
}

static void test_checked_bounds(void **state) {
  (void) state;
  if (!TU_CHECKED) {
    skip(); /* not a checked build (make CHECK=1) */
    return;
  }
  char out[16384], want[256];
  const int rc = tuRunChild(childOob, NULL, out, sizeof(out));
  if (rc != 1) fail_msg("want exit status 1, got %d; output:\n%s", rc, out);
  tuAssertContains(out, "targetDP: index out of bounds in kOob at ");
  snprintf(want, sizeof(want), "test_stream_lanes.c:%d: site ", LINE_OOB);
  tuAssertContains(out, want);
  tuAssertContains(out, "component 2 of 2");
}

int main(void) {
  /* The forking case first and no group setup: a child must not inherit
   * the parent's CUDA context (test_checked.c says why); the target is
   * initialised by the first in-process case. */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checked_bounds),
      cmocka_unit_test_setup(test_every_element, tuSetup),
      cmocka_unit_test(test_large),
      cmocka_unit_test(test_arguments_once),
      cmocka_unit_test(test_box_loop),
      cmocka_unit_test(test_staged),
  };
  return cmocka_run_group_tests_name("stream_lanes " TARGETDP_CONFIG, tests, NULL, tuTeardown);
}
