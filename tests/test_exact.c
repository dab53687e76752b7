/*
 * test_exact.c -- exact, reproducible sums (targetDP_exact.h; issue 25
 * item 9): the library's float and double sums (targetDoubleSum,
 * targetFloatSum, the complex sums, targetDoubleSumExact), the in-kernel
 * exact accumulator (TDP_TLP_EXACT, tdpExactAdd, targetBlockAddExact) and
 * the host format (tdpExactSum) against an independent reference: the
 * exact sum as unsigned big integers of positive and negative parts,
 * rounded by the hardware's own uint64 -> double conversion. Every result
 * must be that correctly rounded sum bit for bit: the same in every
 * layout, VVL, OpenMP thread count (1, 2, 3), input order and backend.
 * Crafted cases: huge cancellations (1e308 + 1 - 1e308), sums past
 * DBL_MAX of finite partial sums, ties to even, subnormals, NaN and Inf,
 * and digits near overflow.
 */

#include "test_util.h"

#include <float.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------------- */
/* The reference: magnitudes as base-2^32 digits over 2^-1074 .. 2^1142. */
#define RD 70
typedef struct {
  uint32_t d[RD];
} refMag;
typedef struct {
  refMag pos, neg;
  long nan, pinf, ninf;
} refSum;

static void refZero(refSum *r) { memset(r, 0, sizeof *r); }

static void refAddMag(refMag *a, double x) {
  int e;
  const double f = frexp(x, &e); /* x = f 2^e, f in [0.5, 1) */
  uint64_t m = (uint64_t) (int64_t) ldexp(f, 53);
  int lsb = e - 53 + 1074; /* m's last bit is at 2^(lsb - 1074) */
  while (lsb < 0) {        /* subnormal: the bits below 2^-1074 are zero */
    m >>= 1;
    lsb++;
  }
  /* add m 2^lsb bit by bit: slow, and nothing like the library's digits */
  for (int b = 0; b < 53; b++) {
    if (!((m >> b) & 1)) continue;
    int pos = lsb + b;
    while (pos < 32 * RD) { /* add 2^pos: flip bits until a 0 became 1 */
      uint32_t *d = &a->d[pos / 32], bit = (uint32_t) 1 << (pos % 32);
      *d ^= bit;
      if (*d & bit) break;
      pos++;
    }
  }
}

static void refAdd(refSum *r, double x) {
  if (isnan(x)) r->nan++;
  else if (isinf(x)) *(x > 0 ? &r->pinf : &r->ninf) += 1;
  else if (x != 0.0) refAddMag(x > 0 ? &r->pos : &r->neg, fabs(x));
}

static int refCmp(const refMag *a, const refMag *b) {
  for (int i = RD - 1; i >= 0; i--)
    if (a->d[i] != b->d[i]) return a->d[i] > b->d[i] ? 1 : -1;
  return 0;
}

static refMag refSubMag(const refMag *a, const refMag *b) { /* a >= b */
  refMag c;
  int64_t borrow = 0;
  for (int i = 0; i < RD; i++) {
    int64_t t = (int64_t) a->d[i] - b->d[i] - borrow;
    borrow = t < 0;
    c.d[i] = (uint32_t) (t + (borrow ? ((int64_t) 1 << 32) : 0));
  }
  return c;
}

/* The top 63 bits (float: 30) with every lower bit folded into the last
 * (sticky): the hardware's conversion of that int64 to double rounds it
 * correctly (for float: exact to double, then double to float; valgrind
 * converts int64 to float through double, rounding twice). Valid for
 * results in the normal range (the crafted cases check the rest). */
static double refValue(const refSum *r, int to_float) {
  if (r->nan || (r->pinf && r->ninf)) return NAN;
  if (r->pinf) return INFINITY;
  if (r->ninf) return -INFINITY;
  const int c = refCmp(&r->pos, &r->neg);
  if (c == 0) return 0.0;
  const refMag m = c > 0 ? refSubMag(&r->pos, &r->neg) : refSubMag(&r->neg, &r->pos);
  int top = 32 * RD - 1;
  while (!((m.d[top / 32] >> (top % 32)) & 1)) top--;
  const int keep = to_float ? 29 : 62;
  const int low = top >= keep ? top - keep : 0; /* v = bits low .. top */
  uint64_t v = 0;
  for (int b = top; b >= low; b--) v = (v << 1) | ((m.d[b / 32] >> (b % 32)) & 1);
  for (int b = 0; b < low; b++) v |= (m.d[b / 32] >> (b % 32)) & 1;
  const int shift = low - 1074; /* v's last bit is at 2^shift */
  const double res = to_float ? (double) ldexpf((float) (double) (int64_t) v, shift)
                               : ldexp((double) (int64_t) v, shift);
  return c > 0 ? res : -res;
}

static double refOf(const double *a, size_t n, int to_float) {
  refSum r;
  refZero(&r);
  for (size_t i = 0; i < n; i++) refAdd(&r, a[i]);
  return refValue(&r, to_float);
}

#define assertSameBits(got, want)                                                          \
  do {                                                                                     \
    double g_ = (got), w_ = (want);                                                        \
    if (memcmp(&g_, &w_, sizeof g_) && !(isnan(g_) && isnan(w_)))                          \
      fail_msg("[%s] %s = %.17g (%a), want %.17g (%a)", tu_context, #got, g_, g_, w_, w_); \
  } while (0)

/* ---------------------------------------------------------------------- */
static double *toTarget(const double *h, size_t n) {
  double *t = NULL;
  assert_int_equal(targetMalloc(&t, (n ? n : 1) * sizeof(double)), TARGET_SUCCESS);
  if (n) assert_int_equal(copyToTarget(t, h, n * sizeof(double)), TARGET_SUCCESS);
  return t;
}

/* targetDoubleSum, and targetDoubleSumExact rounded, of a host array. */
static double libSum(const double *h, size_t n) {
  double *t = toTarget(h, n), r = -1.0;
  tdpExactSum x;
  if (n) assert_int_equal(targetDoubleSum(&r, t, n), TARGET_SUCCESS);
  assert_int_equal(targetDoubleSumExact(&x, t, n), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  if (n) assertSameBits(tdpExactSumValue(&x), r);
  return tdpExactSumValue(&x);
}

/* Crafted sums whose correctly rounded value is known. */
typedef struct {
  const char *what;
  int n;
  double v[6];
  double want;
} crafted;

static void test_crafted(void **state) {
  (void) state;
  const double M = DBL_MAX, T = 4.9406564584124654e-324; /* the smallest subnormal */
  const crafted cases[] = {
      {"1e308 + 1 - 1e308", 3, {1e308, 1.0, -1e308}, 1.0},
      {"1 + 1e-30 - 1", 3, {1.0, 1e-30, -1.0}, 1e-30},
      {"DBL_MAX + DBL_MAX - DBL_MAX (partial sums overflow)", 3, {M, M, -M}, M},
      {"DBL_MAX + DBL_MAX: overflow", 2, {M, M}, INFINITY},
      {"-DBL_MAX - DBL_MAX: overflow", 2, {-M, -M}, -INFINITY},
      {"DBL_MAX + half its ulp: a tie, to even = overflow", 2, {M, 0x1p970}, INFINITY},
      {"DBL_MAX + a quarter ulp", 2, {M, 0x1p969}, M},
      {"1 + 2^-53: a tie, to even", 2, {1.0, 0x1p-53}, 1.0},
      {"1 + 2^-53 + 2^-105: above the tie", 3, {1.0, 0x1p-53, 0x1p-105}, 1.0 + 0x1p-52},
      {"(1 + 2^-52) + 2^-53: a tie, to even (up)", 2, {1.0 + 0x1p-52, 0x1p-53}, 1.0 + 0x1p-51},
      {"-(1 + 2^-53 + 2^-300)", 3, {-1.0, -0x1p-53, -0x1p-300}, -(1.0 + 0x1p-52)},
      {"subnormals: 3 T - T", 4, {T, T, T, -T}, 2 * T},
      {"subnormal from normals: 2^-1022 - (2^-1022 - T)", 2, {0x1p-1022, -(0x1p-1022 - T)}, T},
      {"T + 2^-1022 (a normal from a subnormal)", 2, {T, 0x1p-1022}, 0x1p-1022 + T},
      {"exact zero: 0.1 + 0.2 - 0.1 - 0.2", 4, {0.1, 0.2, -0.1, -0.2}, 0.0},
      {"NaN", 3, {1.0, NAN, 2.0}, NAN},
      {"Inf", 3, {1.0, INFINITY, -M}, INFINITY},
      {"-Inf", 2, {-INFINITY, M}, -INFINITY},
      {"Inf - Inf", 2, {INFINITY, -INFINITY}, NAN},
      {"NaN and Inf", 3, {INFINITY, NAN, 1.0}, NAN},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const crafted *k = &cases[c];
    tuSetContext("%s", k->what);
    /* the host format, the library, and every rotation of the input */
    tdpExactSum s;
    tdpExactSumZero(&s);
    for (int i = 0; i < k->n; i++) tdpExactSumAdd(&s, k->v[i]);
    assertSameBits(tdpExactSumValue(&s), k->want);
    for (int rot = 0; rot < k->n; rot++) {
      double v[6];
      for (int i = 0; i < k->n; i++) v[i] = k->v[(i + rot) % k->n];
      assertSameBits(libSum(v, (size_t) k->n), k->want);
    }
    if (!isnan(k->want) && !(k->want != 0.0 && fabs(k->want) < DBL_MIN))
      assertSameBits(refOf(k->v, (size_t) k->n, 0), k->want); /* the reference agrees */
  }
}

/* The rounding on random small sets: 1 to 6 summands of random sign and
 * exponent (within 2^-1000 .. 2^1000 or a narrow band, so that near-ties
 * and cancellations are common), against the reference, double and float. */
static void test_rounding_random(void **state) {
  (void) state;
  tuRng r;
  tuSeed(&r, 2024);
  for (int c = 0; c < 20000; c++) {
    const int n = 1 + (int) (tuNext(&r) % 6), wide = c % 3 == 0, flt = c % 2;
    double v[6];
    for (int i = 0; i < n; i++) {
      const int e = wide ? tuInt(&r, -1000, 1000) : tuInt(&r, -60, 60);
      double m = 1.0 + tuUniform(&r);
      if (flt) m = (double) (float) m;
      if (tuNext(&r) % 4 == 0) m = 1.0 + ldexp((double) (tuNext(&r) % 4), -52); /* near ties */
      v[i] = ldexp(m, e) * (tuNext(&r) & 1 ? 1.0 : -1.0);
      if (flt && (fabs(v[i]) < 0x1p-120 || fabs(v[i]) > 0x1p120)) v[i] = ldexp(m, e % 100);
    }
    if (n > 1 && tuNext(&r) % 3 == 0) v[n - 1] = -v[0] + ldexp(1.0, tuInt(&r, -1074, 0)); /* cancel */
    tdpExactSum s;
    tdpExactSumZero(&s);
    for (int i = 0; i < n; i++) tdpExactSumAdd(&s, v[i]);
    refSum rs;
    refZero(&rs);
    for (int i = 0; i < n; i++) refAdd(&rs, v[i]);
    const int zero = refCmp(&rs.pos, &rs.neg) == 0; /* the reference rounds normal results only */
    const double want = refValue(&rs, 0), got = tdpExactSumValue(&s);
    tuSetContext("random set %d of %d summands, double", c, n);
    if (fabs(want) >= DBL_MIN || zero) assertSameBits(got, want);
    const double wantf = refValue(&rs, 1);
    tuSetContext("random set %d of %d summands, float", c, n);
    if (fabs(want) >= 2 * FLT_MIN || zero) assertSameBits((double) tdpExactSumValueFloat(&s), wantf);
  }
}

/* Data that defeats the two-term fast path: magnitudes from 1e-300 to
 * 1e300 with cancellations, beside plain uniform data; n around the
 * blocks, lanes and grids of both backends. */
static void fillHard(double *a, size_t n, uint64_t seed) {
  tuRng r;
  tuSeed(&r, seed);
  for (size_t i = 0; i < n; i++) {
    const double m = 1.0 + tuUniform(&r);
    const int e = tuInt(&r, -990, 990);
    a[i] = ldexp(m, e) * (tuNext(&r) & 1 ? 1.0 : -1.0);
  }
  for (size_t i = 0; i + 3 < n; i += 7) { /* big ones that cancel, leaving the small */
    a[i + 1] = -a[i];
    a[i + 3] = 1e300;
  }
  if (n > 5) a[5] = -1e300 * (double) ((n + 3) / 7);
}

static void fillPlain(double *a, size_t n, uint64_t seed) { tuFillDouble(a, n, -1.0, 2.0, seed); }

static const size_t xsizes[] = {1, 2, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 12345, 100003};
#define NXSIZES (sizeof xsizes / sizeof xsizes[0])

static void shuffle(double *a, size_t n, uint64_t seed) {
  tuRng r;
  tuSeed(&r, seed);
  for (size_t i = n; i > 1; i--) {
    const size_t j = (size_t) (tuNext(&r) % i);
    const double t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
  }
}

static void test_library_sums(void **state) {
  (void) state;
  for (size_t k = 0; k < NXSIZES; k++) {
    const size_t n = xsizes[k];
    double *a = (double *) tuMalloc(n * sizeof(double));
    for (int hard = 0; hard < 2; hard++) {
      tuSetContext("targetDoubleSum, n = %zu, %s data", n, hard ? "hard" : "plain");
      if (hard) fillHard(a, n, 7 + n);
      else fillPlain(a, n, 8 + n);
      const double want = refOf(a, n, 0);
      assertSameBits(libSum(a, n), want);
      shuffle(a, n, 9 + n); /* any order: the same bits */
      assertSameBits(libSum(a, n), want);
#ifdef _OPENMP
      const int nt0 = omp_get_max_threads();
      for (int nt = 1; nt <= 3; nt++) {
        tuSetContext("targetDoubleSum, n = %zu, %s data, %d OpenMP threads", n,
                     hard ? "hard" : "plain", nt);
        omp_set_num_threads(nt);
        assertSameBits(libSum(a, n), want);
      }
      omp_set_num_threads(nt0);
#endif
    }
    free(a);
  }
}

/* float: the exact sum rounded once to float; complex: per component. */
static void test_typed_sums(void **state) {
  (void) state;
  const size_t n = 10007;
  float *f = (float *) tuMalloc(2 * n * sizeof(float));
  double *d = (double *) tuMalloc(2 * n * sizeof(double));
  tuRng r;
  tuSeed(&r, 99);
  for (size_t i = 0; i < 2 * n; i++) {
    f[i] = (float) ldexp(1.0 + tuUniform(&r), tuInt(&r, -60, 60)) * (i % 3 ? 1.0f : -1.0f);
    d[i] = f[i];
  }
  float *tf = NULL;
  assert_int_equal(targetMalloc(&tf, 2 * n * sizeof(float)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(tf, f, 2 * n * sizeof(float)), TARGET_SUCCESS);
  float fs = 0.0f;
  tuSetContext("targetFloatSum");
  assert_int_equal(targetFloatSum(&fs, tf, 2 * n), TARGET_SUCCESS);
  assertSameBits((double) fs, refOf(d, 2 * n, 1));
  tdpExactSum x;
  assert_int_equal(targetFloatSumExact(&x, tf, 2 * n), TARGET_SUCCESS);
  assertSameBits(tdpExactSumValue(&x), refOf(d, 2 * n, 0));
  /* a tie in float: 2^24 + 1 rounds to even, 2^24 */
  const float tie[2] = {16777216.0f, 1.0f};
  assert_int_equal(copyToTarget(tf, tie, sizeof tie), TARGET_SUCCESS);
  assert_int_equal(targetFloatSum(&fs, tf, 2), TARGET_SUCCESS);
  tuSetContext("float tie 2^24 + 1");
  assertSameBits((double) fs, 16777216.0);
  /* complex: the real and imaginary parts' sums, one pass */
  double *re = (double *) tuMalloc(n * sizeof(double)), *im = (double *) tuMalloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    re[i] = d[2 * i];
    im[i] = d[2 * i + 1];
  }
  assert_int_equal(copyToTarget(tf, f, 2 * n * sizeof(float)), TARGET_SUCCESS);
  tdpFloatComplex fc;
  assert_int_equal(targetFloatComplexSum(&fc, (tdpFloatComplex *) tf, n), TARGET_SUCCESS);
  float fcv[2];
  memcpy(fcv, &fc, sizeof fcv);
  tuSetContext("targetFloatComplexSum");
  assertSameBits((double) fcv[0], refOf(re, n, 1));
  assertSameBits((double) fcv[1], refOf(im, n, 1));
  fillHard(d, 2 * n, 5);
  for (size_t i = 0; i < n; i++) {
    re[i] = d[2 * i];
    im[i] = d[2 * i + 1];
  }
  double *td = toTarget(d, 2 * n);
  tdpDoubleComplex dc;
  assert_int_equal(targetDoubleComplexSum(&dc, (tdpDoubleComplex *) td, n), TARGET_SUCCESS);
  double dcv[2];
  memcpy(dcv, &dc, sizeof dcv);
  tuSetContext("targetDoubleComplexSum, hard data");
  assertSameBits(dcv[0], refOf(re, n, 0));
  assertSameBits(dcv[1], refOf(im, n, 0));
  assert_int_equal(targetFree(td), TARGET_SUCCESS);
  assert_int_equal(targetFree(tf), TARGET_SUCCESS);
  free(f);
  free(d);
  free(re);
  free(im);
}

/* ---------------------------------------------------------------------- */
/* In-kernel: a dot product and a conditional sum (sites i % 3 != 0, left
 * by continue), two exact accumulators beside a plain one, over a field of
 * 2 components in the build's layout. */
TDP_KERNEL void kExact(const double *x, long nsites, int cond, tdpExactSum *t_s,
                       double *t_plain) {
  tdpExactAcc dot = tdpExactAccOn(&t_s[0]), part = tdpExactAccOn(&t_s[1]);
  double plain = 0.0;
  TDP_TLP_REDUCE(base, nsites, TDP_REXACT(dot), TDP_RSUM(plain), TDP_REXACT(part)) {
    TDP_ILP_REDUCE(v) {
      const long s = base + v;
      const double a = x[TDP_INDEX(nsites, 2, s, 0)], b = x[TDP_INDEX(nsites, 2, s, 1)];
      tdpExactAdd(&dot, a * b);
      plain += a;
      if (cond && s % 3 == 0) continue;
      tdpExactAdd(&part, a);
    }
  }
  targetBlockAddExact(&dot);
  targetBlockAddExact(&part);
  targetBlockAddDouble(t_plain, plain);
}

TDP_KERNEL void kExactOne(const double *x, long n, tdpExactSum *t_s) {
  tdpExactAcc acc = tdpExactAccOn(t_s);
  TDP_TLP_EXACT(base, n, acc) {
    TDP_ILP_REDUCE(v) tdpExactAdd(&acc, x[base + v]);
  }
  targetBlockAddExact(&acc);
}

static void inkernel_case(const double *h, long nsites, int hard) {
  const size_t nfield = TDP_FIELD_SIZE(nsites, 2); /* AoSoA pads the last block */
  double *t = toTarget(h, nfield), *t_plain = NULL;
  tdpExactSum *t_s = NULL;
  assert_int_equal(targetMalloc(&t_s, 2 * sizeof(tdpExactSum)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_plain, sizeof(double)), TARGET_SUCCESS);
  /* the references: the logical values, whatever the layout */
  double *a = (double *) tuMalloc(nsites * sizeof(double)), *ab = (double *) tuMalloc(nsites * sizeof(double));
  long m = 0;
  for (long s = 0; s < nsites; s++) {
    const double x0 = h[TDP_INDEX(nsites, 2, s, 0)], x1 = h[TDP_INDEX(nsites, 2, s, 1)];
    ab[s] = tdpExactOpaque_(x0 * x1); /* the rounded product, as the kernel's */
    if (s % 3 != 0) a[m++] = x0;
  }
  const double want_dot = refOf(ab, nsites, 0), want_part = refOf(a, m, 0);
  for (int launch = 0; launch < 2; launch++) {
    double got[2];
    assert_int_equal(targetExactZero(t_s, 2), TARGET_SUCCESS);
    assert_int_equal(targetZero(t_plain, 1), TARGET_SUCCESS);
    if (launch) TDP_LAUNCH(kExact, nsites, t, nsites, 1, t_s, t_plain);
    else TDP_LAUNCH_REDUCE(kExact, nsites, t, nsites, 1, t_s, t_plain);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(targetExactValue(got, t_s, 2), TARGET_SUCCESS);
    tuSetContext("in-kernel exact dot, %ld sites, %s data, %s", nsites, hard ? "hard" : "plain",
                 launch ? "TDP_LAUNCH" : "TDP_LAUNCH_REDUCE");
    assertSameBits(got[0], want_dot);
    tuSetContext("in-kernel exact conditional sum, %ld sites, %s data, %s", nsites,
                 hard ? "hard" : "plain", launch ? "TDP_LAUNCH" : "TDP_LAUNCH_REDUCE");
    assertSameBits(got[1], want_part);
  }
  /* one accumulator, TDP_TLP_EXACT, over the whole array: = the library */
  assert_int_equal(targetExactZero(t_s, 1), TARGET_SUCCESS);
  TDP_LAUNCH_REDUCE(kExactOne, 2 * nsites, t, 2 * nsites, t_s);
  double one = 0.0;
  assert_int_equal(targetExactValue(&one, t_s, 1), TARGET_SUCCESS);
  tuSetContext("TDP_TLP_EXACT over %ld values", 2 * nsites);
  assertSameBits(one, refOf(h, 2 * (size_t) nsites, 0)); /* the first 2 nsites of the field */
  free(a);
  free(ab);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_s), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_plain), TARGET_SUCCESS);
}

static void test_inkernel(void **state) {
  (void) state;
  for (int k = 0; k < TU_NSIZES; k++) {
    const long n = tuSize(k);
    const size_t nfield = TDP_FIELD_SIZE(n, 2);
    double *h = (double *) tuMalloc(nfield * sizeof(double));
    for (int hard = 0; hard < 2; hard++) {
      if (hard) fillHard(h, nfield, 70 + n);
      else fillPlain(h, nfield, 71 + n);
      inkernel_case(h, n, hard);
#ifdef _OPENMP
      const int nt0 = omp_get_max_threads();
      for (int nt = 1; nt <= 3; nt += 2) {
        omp_set_num_threads(nt);
        inkernel_case(h, n, hard);
      }
      omp_set_num_threads(nt0);
#endif
    }
    free(h);
  }
}

/* NaN and Inf through the accumulator (the rare path) on the target. */
static void test_inkernel_special(void **state) {
  (void) state;
  const long n = 1000;
  double *h = (double *) tuMalloc(n * sizeof(double));
  tdpExactSum *t_s = NULL;
  assert_int_equal(targetMalloc(&t_s, sizeof(tdpExactSum)), TARGET_SUCCESS);
  const double inserts[4][2] = {{NAN, 0.0}, {INFINITY, 0.0}, {-INFINITY, 0.0}, {INFINITY, -INFINITY}};
  const double want[4] = {NAN, INFINITY, -INFINITY, NAN};
  for (int c = 0; c < 4; c++) {
    fillPlain(h, n, 5);
    h[n / 2] = inserts[c][0];
    if (inserts[c][1] != 0.0) h[n - 1] = inserts[c][1];
    double *t = toTarget(h, n), got = 0.0;
    assert_int_equal(targetExactZero(t_s, 1), TARGET_SUCCESS);
    TDP_LAUNCH_REDUCE(kExactOne, n, t, n, t_s);
    assert_int_equal(targetExactValue(&got, t_s, 1), TARGET_SUCCESS);
    tuSetContext("in-kernel, special case %d", c);
    assertSameBits(got, want[c]);
    tuSetContext("library, special case %d", c);
    assertSameBits(libSum(h, n), want[c]);
    assert_int_equal(targetFree(t), TARGET_SUCCESS);
  }
  assert_int_equal(targetFree(t_s), TARGET_SUCCESS);
  free(h);
}

/* ---------------------------------------------------------------------- */
/* The digits: counts far beyond what a test can sum one by one. */
static void test_digits(void **state) {
  (void) state;
  /* 2^40 ones by doubling merges: 2^40 exactly (carries across digits) */
  tdpExactSum s, u;
  tdpExactSumZero(&s);
  tdpExactSumAdd(&s, 1.0);
  for (int i = 0; i < 40; i++) {
    u = s;
    tdpExactSumMerge(&s, &u);
  }
  tuSetContext("2^40 ones");
  assertSameBits(tdpExactSumValue(&s), 0x1p40);
  /* DBL_MAX 2^20 times, then minus (2^20 - 1) times: digit 66 carries it */
  tdpExactSumZero(&s);
  for (int i = 0; i < (1 << 20); i++) tdpExactSumAdd(&s, DBL_MAX);
  for (int i = 0; i < (1 << 20) - 1; i++) tdpExactSumAdd(&s, -DBL_MAX);
  tuSetContext("2^20 DBL_MAX - (2^20 - 1) DBL_MAX");
  assertSameBits(tdpExactSumValue(&s), DBL_MAX);
  /* a contribution count at the renormalisation point: carried, same value */
  tdpExactSumZero(&s);
  s.w[10] = ((int64_t) 1 << 62) - 5; /* digits near 2^62, as after 2^30 deposits */
  s.w[11] = -((int64_t) 1 << 30);
  s.w[TDP_EXACT_OPS_] = TDP_EXACT_OPS_MAX_ - 1;
  const double before = tdpExactSumValue(&s);
  tdpExactSumAdd(&s, 0x1p-700); /* the 2^30-th: renormalises */
  assert_true(s.w[TDP_EXACT_OPS_] == 1);
  for (int i = 0; i < TDP_EXACT_LIMBS - 1; i++) assert_true(s.w[i] >= 0 && s.w[i] < ((int64_t) 1 << 32));
  tdpExactSum r;
  tdpExactSumZero(&r);
  tdpExactSumAdd(&r, -0x1p-700);
  tdpExactSumMerge(&s, &r);
  tuSetContext("renormalised digits");
  assertSameBits(tdpExactSumValue(&s), before);
  /* 2^62 - 5 units of 2^(320 - 1074) minus 2^30 units of 2^(352 - 1074) */
  assertSameBits(before, -5.0 * 0x1p-754);
  /* too many contributions to trust: refused, not rounded */
  tdpExactSum *t_s = NULL;
  assert_int_equal(targetMalloc(&t_s, sizeof(tdpExactSum)), TARGET_SUCCESS);
  tdpExactSumZero(&s);
  s.w[TDP_EXACT_OPS_] = 2 * TDP_EXACT_OPS_MAX_;
  assert_int_equal(copyToTarget(t_s, &s, sizeof s), TARGET_SUCCESS);
  double got = 0.0;
  targetSetErrorAbort(0);
  expectError(targetExactValue(&got, t_s, 1), TARGET_ERROR_INVALID_VALUE, "targetExactValue",
              "may have overflowed");
  expectError(targetDoubleSumExact(NULL, (double *) t_s, 1), TARGET_ERROR_INVALID_VALUE,
              "targetDoubleSumExact", "NULL");
  targetSetErrorAbort(1);
  assert_true(isnan(tdpExactSumValue(&s)));
  assert_int_equal(targetFree(t_s), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crafted),          cmocka_unit_test(test_rounding_random),
      cmocka_unit_test(test_library_sums),
      cmocka_unit_test(test_typed_sums),       cmocka_unit_test(test_inkernel),
      cmocka_unit_test(test_inkernel_special), cmocka_unit_test(test_digits),
  };
  return cmocka_run_group_tests_name("exact " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
