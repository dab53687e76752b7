/*
 * test_reduce_matrix.c -- the differential matrix of reductions (issue 25
 * items 1 and 3): every in-kernel reduction form and every library
 * reduction, for every element type, against a serial reference that runs
 * the same body, at sizes around the remainders (0, 1, VVL - 1, VVL,
 * VVL + 1, several CUDA blocks, odd and large). The runner builds it in
 * every configuration (layouts x VVLs, serial, checked, every host preset,
 * g++/clang++) and tests/run_device.sh with nvcc (plainly, memcheck,
 * racecheck).
 *
 * An in-kernel form is one line of TU_FORMS: the loop, the body (written
 * once: the kernel runs it in TDP_ILP_REDUCE, the reference in a plain
 * loop) and the targetBlock* call of each reduction variable. The bodies
 * include the shapes compilers got wrong: a sum that adds and stores under
 * a condition (clang 14 and 16 miscompile `omp parallel for simd` with a
 * reduction there and returned a quarter of the sum; docs/reliability.md,
 * issue 25), the same with `continue`, and a Jacobi residual summed over the
 * interior sites only. The data are small integers, so every result is
 * exact in every type and compared with ==. The box loops of
 * targetDP_box.h have no reduction form (nothing to test there yet).
 *
 * NaN (item 3): min and max propagate a NaN, like the sum, on both
 * backends: the library's, and an in-kernel min/max whose body propagates
 * it (the layer's combine across lanes, threads and blocks must not drop it).
 */
#include "test_util.h"

/* a in [-6, 6]; b in {0, 1, 2} (the stencil's field: every residual in
 * [-8, 8], so every sum below stays under 2^24, exact in float too). */
TDP_HOST_DEVICE static inline long aOf(long i) { return (i * 7919) % 13 - 6; }
TDP_HOST_DEVICE static inline long bOf(long i) { return (i * 31 + i / 5) % 3; }

/* Rows of NY sites; a site is interior when its four neighbours exist. */
#define NY 7
#define INTERIOR(i, n) ((i) % NY != 0 && (i) % NY != NY - 1 && (i) >= NY && (i) + NY < (n))
#define MINOF(x, m) ((x) < (m) ? (x) : (m))
#define MAXOF(x, m) ((x) > (m) ? (x) : (m))
#define TU_UNPAREN(...) __VA_ARGS__

/* The forms: name, loop macro, (its variables or clauses), (body), then four (operation, variable) pairs:
 * ADD, MIN, MAX or NONE; results t_r[0..3] in that order. Variables:
 * sums s0 s1 s2 (start at 0), min/max m0 m1 (start at `first`). The body
 * sees the site i, the inputs a and b, and writes only out[i]. */
#define TU_FORMS(X)                                                                           \
  X(sum1, TDP_TLP_SUM, (s0), (s0 += a[i];), ADD, s0, NONE, s0, NONE, s0, NONE, s0)        \
  X(sum2, TDP_TLP_SUM, (s0, s1), (s0 += a[i]; s1 += a[i] * b[i];), ADD, s0, ADD, s1, NONE, s0, NONE, s0) \
  X(sum3, TDP_TLP_SUM, (s0, s1, s2), (s0 += a[i]; s1 += b[i]; s2 += a[i] * b[i];), ADD, s0, ADD, s1, ADD, s2, NONE, s0) \
  X(min1, TDP_TLP_MIN, (m0), (m0 = MINOF(a[i], m0);), MIN, m0, NONE, s0, NONE, s0, NONE, s0) \
  X(max1, TDP_TLP_MAX, (m1), (m1 = MAXOF(a[i], m1);), MAX, m1, NONE, s0, NONE, s0, NONE, s0) \
  X(min2, TDP_TLP_MIN, (m0, m1), (m0 = MINOF(a[i], m0); m1 = MINOF(a[i] * b[i], m1);), MIN, m0, MIN, m1, NONE, s0, NONE, s0) \
  X(rsum, TDP_TLP_REDUCE, (TDP_RSUM(s0)), (s0 += a[i] * b[i];), ADD, s0, NONE, s0, NONE, s0, NONE, s0) \
  X(rmix, TDP_TLP_REDUCE, (TDP_RSUM(s0), TDP_RMIN(m0), TDP_RMAX(m1), TDP_RSUM(s1)), (s0 += a[i]; m0 = MINOF(a[i], m0); m1 = MAXOF(a[i], m1); s1 += b[i];), ADD, s0, MIN, m0, MAX, m1, ADD, s1) \
  X(condstore, TDP_TLP_SUM, (s0), (if (i % 7 != 3) { out[i] = a[i]; s0 += a[i]; }), ADD, s0, NONE, s0, NONE, s0, NONE, s0) \
  X(continue1, TDP_TLP_SUM, (s0), (if (i % 7 == 3) continue; out[i] = a[i]; s0 += a[i];), ADD, s0, NONE, s0, NONE, s0, NONE, s0) \
  X(ifelse, TDP_TLP_SUM, (s0, s1), (if (a[i] > 0) s0 += a[i]; else { out[i] = a[i]; s1 += a[i]; }), ADD, s0, ADD, s1, NONE, s0, NONE, s0) \
  X(jacobi, TDP_TLP_SUM, (s0), (if (INTERIOR(i, n)) { T r = b[i - NY] + b[i + NY] + b[i - 1] + b[i + 1] - 4 * b[i]; out[i] = r; s0 += r * r; }), ADD, s0, NONE, s0, NONE, s0, NONE, s0) \
  X(jacobi2, TDP_TLP_REDUCE, (TDP_RSUM(s0), TDP_RSUM(s1), TDP_RMAX(m1)), (if (!INTERIOR(i, n)) continue; T r = b[i - NY] + b[i + NY] + b[i - 1] + b[i + 1] - 4 * b[i]; out[i] = r; s0 += r * r; s1 += 1; m1 = MAXOF(r, m1);), ADD, s0, ADD, s1, MAX, m1, NONE, s0) \
  X(condmin, TDP_TLP_MIN, (m0), (if (i % 7 != 3) { out[i] = a[i]; m0 = MINOF(a[i], m0); }), MIN, m0, NONE, s0, NONE, s0, NONE, s0) \
  X(contmax, TDP_TLP_MAX, (m1), (if (i % 5 == 0) continue; out[i] = a[i]; m1 = MAXOF(a[i], m1);), MAX, m1, NONE, s0, NONE, s0, NONE, s0) \
  X(condmix, TDP_TLP_REDUCE, (TDP_RSUM(s0), TDP_RMIN(m0), TDP_RMAX(m1)), (if (i % 5 != 2) { out[i] = b[i]; s0 += a[i]; m0 = MINOF(a[i], m0); m1 = MAXOF(a[i], m1); }), ADD, s0, MIN, m0, MAX, m1, NONE, s0)

/* What becomes of a variable after the loop: in the kernel its targetBlock*
 * call (of the type TN, defined before each type's instantiation), in the
 * reference the same operation on rres[k]. */
#define TU_FIN_ADD(k, v) TDP_CAT_(targetBlockAdd, TN)(&t_r[k], v);
#define TU_FIN_MIN(k, v) TDP_CAT_(targetBlockMin, TN)(&t_r[k], v);
#define TU_FIN_MAX(k, v) TDP_CAT_(targetBlockMax, TN)(&t_r[k], v);
#define TU_FIN_NONE(k, v)
#define TU_REF_ADD(k, v) rres[k] += v;
#define TU_REF_MIN(k, v) rres[k] = MINOF(v, rres[k]);
#define TU_REF_MAX(k, v) rres[k] = MAXOF(v, rres[k]);
#define TU_REF_NONE(k, v)
/* The results start as the variables do: 0 for a sum, `first` otherwise. */
#define TU_INIT_ADD(k) rres[k] = 0;
#define TU_INIT_MIN(k) rres[k] = first;
#define TU_INIT_MAX(k) rres[k] = first;
#define TU_INIT_NONE(k) rres[k] = 0;

#define TU_FORM_KERNEL(name, loop, vars, body, o0, v0, o1, v1, o2, v2, o3, v3)                       \
  TDP_KERNEL void TDP_CAT_(k_##name##_, TN)(const T *a, const T *b, T *out, long n, T first,    \
                                             T *t_r) {                                          \
    T s0 = 0, s1 = 0, s2 = 0, m0 = first, m1 = first;                                           \
    (void) a; (void) b; (void) out;                                                             \
    loop(base, n, TU_UNPAREN vars) {                                                            \
      TDP_ILP_REDUCE(v) {                                                                       \
        long i = base + v;                                                                      \
        TU_UNPAREN body                                                                         \
      }                                                                                         \
    }                                                                                           \
    TU_FIN_##o0(0, v0) TU_FIN_##o1(1, v1) TU_FIN_##o2(2, v2) TU_FIN_##o3(3, v3)                 \
    /* never true: reads the variables a form leaves alone (nvcc: "set but never used") */     \
    if (n < 0) t_r[0] = s0 + s1 + s2 + m0 + m1;                                                 \
  }                                                                                             \
  static void TDP_CAT_(ref_##name##_, TN)(const T *a, const T *b, T *out, long n, T first,      \
                                          T *rres) {                                               \
    TU_INIT_##o0(0) TU_INIT_##o1(1) TU_INIT_##o2(2) TU_INIT_##o3(3)                             \
    (void) a; (void) b; (void) out;                                                             \
    T s0 = 0, s1 = 0, s2 = 0, m0 = first, m1 = first;                                           \
    for (long i = 0; i < n; i++) {                                                              \
      TU_UNPAREN body                                                                           \
    }                                                                                           \
    TU_REF_##o0(0, v0) TU_REF_##o1(1, v1) TU_REF_##o2(2, v2) TU_REF_##o3(3, v3)                 \
    if (n < 0) rres[0] = s0 + s1 + s2 + m0 + m1; /* as in the kernel */                        \
  }                                                                                             \
  static void TDP_CAT_(test_##name##_, TN)(void **state) {                                      \
    (void) state;                                                                               \
    TDP_CAT_(runForm, TN)(#name, TDP_CAT_(k_##name##_, TN), TDP_CAT_(ref_##name##_, TN));       \
  }

/* Sizes around every remainder: none, one, a stride short or past, several
 * CUDA blocks plus a bit, odd and large. */
static const long msizes[] = {0, 1, VVL > 1 ? VVL - 1 : 2, VVL, VVL + 1, 2 * VVL + 1, 1003,
                              3L * VVL * TARGET_TPB + 5, 100003};
#define NMSIZES ((int) (sizeof(msizes) / sizeof(msizes[0])))
/* TDP_TEST_SMALL (tests/run_tests.sh sets it under racecheck): not the
 * largest size, whose many blocks add only time there. */
static int tuSkipSize(long n) { return n > 10000 && getenv("TDP_TEST_SMALL"); }

/* The driver, once per type: the kernel and the reference on the same data,
 * every result and every stored element compared exactly. */
#define TU_RUNFORM(TNAME, T, FMT, CAST)                                                         \
  typedef void (*TDP_CAT_(kern, TNAME))(const T *, const T *, T *, long, T, T *);               \
  typedef void (*TDP_CAT_(refn, TNAME))(const T *, const T *, T *, long, T, T *);               \
  static void TDP_CAT_(runForm, TNAME)(const char *name, TDP_CAT_(kern, TNAME) kernel,          \
                                       TDP_CAT_(refn, TNAME) ref) {                             \
    for (int k = 0; k < NMSIZES; k++) {                                                         \
      long n = msizes[k], nalloc = n > 0 ? n : 1;                                               \
      if (tuSkipSize(n)) continue;                                                              \
      T *a = (T *) tuMalloc(nalloc * sizeof(T)), *b = (T *) tuMalloc(nalloc * sizeof(T));       \
      T *out = (T *) tuMalloc(nalloc * sizeof(T)), *want = (T *) tuMalloc(nalloc * sizeof(T));  \
      T *t_a = NULL, *t_b = NULL, *t_out = NULL, *t_r = NULL, r[4], got[4];                     \
      for (long i = 0; i < n; i++) {                                                            \
        a[i] = (T) aOf(i);                                                                      \
        b[i] = (T) bOf(i);                                                                      \
      }                                                                                         \
      memset(want, 0, nalloc * sizeof(T));                                                      \
      const T first = n > 0 ? a[n / 2] : (T) 100; /* any element: a min/max identity */        \
      ref(a, b, want, n, first, r);                                                             \
      assert_int_equal(targetMalloc(&t_a, nalloc * sizeof(T)), TARGET_SUCCESS);                 \
      assert_int_equal(targetMalloc(&t_b, nalloc * sizeof(T)), TARGET_SUCCESS);                 \
      assert_int_equal(targetCalloc(&t_out, nalloc * sizeof(T)), TARGET_SUCCESS);               \
      assert_int_equal(targetMalloc(&t_r, 4 * sizeof(T)), TARGET_SUCCESS);                      \
      if (n > 0) {                                                                              \
        assert_int_equal(copyToTarget(t_a, a, n * sizeof(T)), TARGET_SUCCESS);                  \
        assert_int_equal(copyToTarget(t_b, b, n * sizeof(T)), TARGET_SUCCESS);                  \
      }                                                                                         \
      /* the results start as the reference's did (sums 0, min/max `first`) */                  \
      T init[4];                                                                                \
      ref(a, b, out, 0, first, init);                                                           \
      assert_int_equal(copyToTarget(t_r, init, 4 * sizeof(T)), TARGET_SUCCESS);                 \
      TDP_LAUNCH_REDUCE(kernel, n, t_a, t_b, t_out, n, first, t_r);                             \
      assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                    \
      assert_int_equal(copyFromTarget(got, t_r, 4 * sizeof(T)), TARGET_SUCCESS);                \
      assert_int_equal(copyFromTarget(out, t_out, nalloc * sizeof(T)), TARGET_SUCCESS);         \
      for (int j = 0; j < 4; j++)                                                               \
        if (!(got[j] == r[j]))                                                                  \
          fail_msg("%s (" #T ", n = %ld): result %d is " FMT ", the serial reference " FMT,     \
                   name, n, j, CAST got[j], CAST r[j]);                                         \
      for (long i = 0; i < n; i++)                                                              \
        if (!(out[i] == want[i]))                                                               \
          fail_msg("%s (" #T ", n = %ld): out[%ld] is " FMT ", the serial reference " FMT,      \
                   name, n, i, CAST out[i], CAST want[i]);                                      \
      targetFree(t_r);                                                                          \
      targetFree(t_out);                                                                        \
      targetFree(t_b);                                                                          \
      targetFree(t_a);                                                                      \
      free(want);                                                                               \
      free(out);                                                                                \
      free(b);                                                                                  \
      free(a);                                                                                  \
    }                                                                                           \
  }
TU_RUNFORM(Double, double, "%.17g", (double))
TU_RUNFORM(Float, float, "%.9g", (double))
TU_RUNFORM(Int, int, "%ld", (long))
TU_RUNFORM(Long, long, "%ld", (long))

#define T double
#define TN Double
TU_FORMS(TU_FORM_KERNEL)
#undef T
#undef TN
#define T float
#define TN Float
TU_FORMS(TU_FORM_KERNEL)
#undef T
#undef TN
#define T int
#define TN Int
TU_FORMS(TU_FORM_KERNEL)
#undef T
#undef TN
#define T long
#define TN Long
TU_FORMS(TU_FORM_KERNEL)
#undef T
#undef TN

/* ---------------------------------------------------------------------- */
/* Library reductions: name, element type, result type, the call, the
 * operation; the reference folds the same elements in R. */
static const long lsizes[] = {1, VVL > 1 ? VVL - 1 : 2, VVL + 1, 1003, 8193, 100003};
#define NLSIZES ((int) (sizeof(lsizes) / sizeof(lsizes[0])))
#define TU_LIBS(X)                                                   \
  X(DoubleSum, double, double, targetDoubleSum, ADD)                 \
  X(DoubleMin, double, double, targetDoubleMin, MIN)                 \
  X(DoubleMax, double, double, targetDoubleMax, MAX)                 \
  X(IntSum, int, long long, targetIntSum, ADD)                       \
  X(IntMin, int, long long, targetIntMin, MIN)                       \
  X(IntMax, int, long long, targetIntMax, MAX)                       \
  X(FloatSum, float, float, targetFloatSum, ADD)                     \
  X(FloatMin, float, float, targetFloatMin, MIN)                     \
  X(FloatMax, float, float, targetFloatMax, MAX)                     \
  X(LongSum, long, long, targetLongSum, ADD)                         \
  X(LongMin, long, long, targetLongMin, MIN)                         \
  X(LongMax, long, long, targetLongMax, MAX)
#define TU_LIB_REF_ADD(acc, x) acc += (x)
#define TU_LIB_REF_MIN(acc, x) acc = MINOF(x, acc)
#define TU_LIB_REF_MAX(acc, x) acc = MAXOF(x, acc)
#define TU_LIB_TEST(name, T, R, call, op)                                                    \
  static void test_lib_##name(void **state) {                                                \
    (void) state;                                                                            \
    for (int k = 0; k < NLSIZES; k++) {                                                      \
      long n = lsizes[k];                                                                    \
      if (tuSkipSize(n)) continue;                                                           \
      T *a = (T *) tuMalloc(n * sizeof(T)), *t_a = NULL;                                     \
      /* the extreme values at the last element: in the short stride or block */            \
      for (long i = 0; i < n; i++) a[i] = (T) (i == n - 1 ? 40 * (i % 2 ? 1 : -1) : aOf(i)); \
      R want = (R) a[0], got = (R) 0;                                                        \
      if (#op[1] == 'D') want = (R) 0;                                                       \
      for (long i = #op[1] == 'D' ? 0 : 1; i < n; i++) TU_LIB_REF_##op(want, (R) a[i]);      \
      assert_int_equal(targetMalloc(&t_a, n * sizeof(T)), TARGET_SUCCESS);                   \
      assert_int_equal(copyToTarget(t_a, a, n * sizeof(T)), TARGET_SUCCESS);                 \
      assert_int_equal(call(&got, t_a, n), TARGET_SUCCESS);                                  \
      if (!(got == want))                                                                    \
        fail_msg(#call " (n = %ld): %.17g, the serial reference %.17g", n, (double) got,     \
                 (double) want);                                                             \
      targetFree(t_a);                                                                       \
      free(a);                                                                               \
    }                                                                                        \
  }
TU_LIBS(TU_LIB_TEST)

/* The complex sums: real and imaginary parts apart. */
#define TU_LIB_COMPLEX(Name, CT, T, call)                                                    \
  static void test_lib_##Name##Sum(void **state) {                                           \
    (void) state;                                                                            \
    for (int k = 0; k < NLSIZES; k++) {                                                      \
      long n = lsizes[k];                                                                    \
      if (tuSkipSize(n)) continue;                                                           \
      T *a = (T *) tuMalloc(2 * n * sizeof(T)), got[2] = {0, 0}, want[2] = {0, 0};           \
      CT *t_a = NULL;                                                                        \
      for (long i = 0; i < 2 * n; i++) {                                                     \
        a[i] = (T) aOf(i * 3 + 1);                                                           \
        want[i % 2] += a[i];                                                                 \
      }                                                                                      \
      assert_int_equal(targetMalloc(&t_a, n * sizeof(CT)), TARGET_SUCCESS);                  \
      assert_int_equal(copyToTarget(t_a, a, n * sizeof(CT)), TARGET_SUCCESS);                \
      assert_int_equal(call((CT *) (void *) got, t_a, n), TARGET_SUCCESS);                   \
      if (!(got[0] == want[0] && got[1] == want[1]))                                         \
        fail_msg(#call " (n = %ld): (%g, %g), the serial reference (%g, %g)", n,             \
                 (double) got[0], (double) got[1], (double) want[0], (double) want[1]);      \
      targetFree(t_a);                                                                       \
      free(a);                                                                               \
    }                                                                                        \
  }
TU_LIB_COMPLEX(DoubleComplex, tdpDoubleComplex, double, targetDoubleComplexSum)
TU_LIB_COMPLEX(FloatComplex, tdpFloatComplex, float, targetFloatComplexSum)

/* ---------------------------------------------------------------------- */
/* NaN (item 3): a NaN at the first, a middle or the last element, or
 * everywhere, among -inf and +inf: every min and max is NaN, as every sum
 * is. In-kernel, the body propagates it ((x < m || x != x) ? x : m, as
 * docs/api.md shows); the layer's combine of lanes, threads and blocks,
 * and targetBlockMin/Max, must keep it. */
TDP_HOST_DEVICE static inline int tuIsNan(double x) { return x != x; }
#define TU_NMIN(x, m) (((x) < (m) || (x) != (x)) ? (x) : (m))
#define TU_NMAX(x, m) (((x) > (m) || (x) != (x)) ? (x) : (m))
#define TU_NAN_KERNELS(TNAME, T)                                                              \
  TDP_KERNEL void kNanMinMax##TNAME(const T *a, long n, T first, T *t_r) {                     \
    T lo = first, hi = first;                                                                  \
    TDP_TLP_MIN(base, n, lo) {                                                                 \
      TDP_ILP_REDUCE(v) lo = TU_NMIN(a[base + v], lo);                                         \
    }                                                                                          \
    TDP_TLP_MAX(base, n, hi) {                                                                 \
      TDP_ILP_REDUCE(v) hi = TU_NMAX(a[base + v], hi);                                         \
    }                                                                                          \
    targetBlockMin##TNAME(&t_r[0], lo);                                                        \
    targetBlockMax##TNAME(&t_r[1], hi);                                                        \
  }                                                                                            \
  TDP_KERNEL void kNanMixed##TNAME(const T *a, long n, T first, T *t_r) {                      \
    T lo = first, hi = first, s = 0;                                                           \
    TDP_TLP_REDUCE(base, n, TDP_RMIN(lo), TDP_RSUM(s), TDP_RMAX(hi)) {                         \
      TDP_ILP_REDUCE(v) {                                                                      \
        T x = a[base + v];                                                                     \
        lo = TU_NMIN(x, lo);                                                                   \
        hi = TU_NMAX(x, hi);                                                                   \
        s += x;                                                                                \
      }                                                                                        \
    }                                                                                          \
    targetBlockMin##TNAME(&t_r[2], lo);                                                        \
    targetBlockAdd##TNAME(&t_r[3], s);                                                         \
    targetBlockMax##TNAME(&t_r[4], hi);                                                        \
  }
TU_NAN_KERNELS(Double, double)
TU_NAN_KERNELS(Float, float)

/* where: 0 first, 1 middle, 2 last, 3 every element */
#define TU_NAN_TEST(TNAME, T)                                                                 \
  static void test_nan_##TNAME(void **state) {                                                 \
    (void) state;                                                                              \
    static const char *wname[4] = {"first", "middle", "last", "every"};                        \
    for (int k = 0; k < NLSIZES; k++) {                                                        \
      long n = lsizes[k];                                                                      \
      if (tuSkipSize(n)) continue;                                                             \
      for (int where = 0; where < 4; where++) {                                                \
        T *a = (T *) tuMalloc(n * sizeof(T)), *t_a = NULL, *t_r = NULL, lib[3], r[5];          \
        long at = where == 0 ? 0 : where == 1 ? n / 2 : n - 1;                                 \
        for (long i = 0; i < n; i++) a[i] = (T) aOf(i);                                        \
        if (n > 2) {                                                                           \
          a[(n + 1) / 3] = (T) -INFINITY;                                                      \
          a[(2 * n) / 3] = (T) INFINITY;                                                       \
        }                                                                                      \
        for (long i = 0; i < n; i++)                                                           \
          if (where == 3 || i == at) a[i] = (T) NAN;                                           \
        tuSetContext(#T ", n = %ld, NaN at the %s element", n, wname[where]);                  \
        assert_int_equal(targetMalloc(&t_a, n * sizeof(T)), TARGET_SUCCESS);                   \
        assert_int_equal(copyToTarget(t_a, a, n * sizeof(T)), TARGET_SUCCESS);                 \
        assert_int_equal(target##TNAME##Min(&lib[0], t_a, n), TARGET_SUCCESS);                 \
        assert_int_equal(target##TNAME##Max(&lib[1], t_a, n), TARGET_SUCCESS);                 \
        assert_int_equal(target##TNAME##Sum(&lib[2], t_a, n), TARGET_SUCCESS);                 \
        static const char *what[3] = {"Min", "Max", "Sum"};                                    \
        for (int j = 0; j < 3; j++)                                                            \
          if (!tuIsNan(lib[j]))                                                                \
            fail_msg("[%s] target" #TNAME "%s gave %g, not NaN", tu_context, what[j],          \
                     (double) lib[j]);                                                         \
        /* in-kernel: the results start at a number (the min/max identity 3) */                \
        const T init[5] = {3, 3, 3, 0, 3};                                                     \
        assert_int_equal(targetMalloc(&t_r, sizeof(init)), TARGET_SUCCESS);                    \
        assert_int_equal(copyToTarget(t_r, init, sizeof(init)), TARGET_SUCCESS);               \
        TDP_LAUNCH_REDUCE(kNanMinMax##TNAME, n, t_a, n, (T) 3, t_r);                           \
        TDP_LAUNCH_REDUCE(kNanMixed##TNAME, n, t_a, n, (T) 3, t_r);                            \
        assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                 \
        assert_int_equal(copyFromTarget(r, t_r, sizeof(r)), TARGET_SUCCESS);                   \
        static const char *kwhat[5] = {"TDP_TLP_MIN + targetBlockMin",                         \
                                       "TDP_TLP_MAX + targetBlockMax",                         \
                                       "TDP_RMIN + targetBlockMin", "TDP_RSUM + targetBlockAdd", \
                                       "TDP_RMAX + targetBlockMax"};                           \
        for (int j = 0; j < 5; j++)                                                            \
          if (!tuIsNan(r[j]))                                                                  \
            fail_msg("[%s] in-kernel %s gave %g, not NaN", tu_context, kwhat[j], (double) r[j]); \
        targetFree(t_r);                                                                       \
        targetFree(t_a);                                                                       \
        free(a);                                                                               \
      }                                                                                        \
    }                                                                                          \
  }
TU_NAN_TEST(Double, double)
TU_NAN_TEST(Float, float)

/* (through TU_CASE_, so that the case is named test_condstore_Double) */
#define TU_CASE_(f) cmocka_unit_test(f)
#define TU_FORM_CASES_T(name, loop, vars, body, o0, v0, o1, v1, o2, v2, o3, v3) \
  TU_CASE_(TDP_CAT_(test_##name##_, TN)),
#define TU_LIB_CASE(name, T, R, call, op) cmocka_unit_test(test_lib_##name),

int main(void) {
  const struct CMUnitTest tests[] = {
#define TN Double
      TU_FORMS(TU_FORM_CASES_T)
#undef TN
#define TN Float
      TU_FORMS(TU_FORM_CASES_T)
#undef TN
#define TN Int
      TU_FORMS(TU_FORM_CASES_T)
#undef TN
#define TN Long
      TU_FORMS(TU_FORM_CASES_T)
#undef TN
      TU_LIBS(TU_LIB_CASE)
      cmocka_unit_test(test_lib_DoubleComplexSum),
      cmocka_unit_test(test_lib_FloatComplexSum),
      cmocka_unit_test(test_nan_Double),
      cmocka_unit_test(test_nan_Float),
  };
  return cmocka_run_group_tests_name("reduction matrix " TARGETDP_CONFIG, tests, tuSetup,
                                     tuTeardown);
}
