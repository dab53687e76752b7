/*
 * targetDP_exact.h -- exact, reproducible sums of doubles (docs/api.md,
 * "Exact sums"; docs/reliability.md, issue 25 item 9). Included by
 * targetDP.h at its end; not a header to include on its own.
 *
 * Why exact. A floating-point sum rounds after every addition, so its
 * value depends on the order of the additions: on how many OpenMP threads,
 * CUDA blocks or MPI ranks shared the work. The only way to be
 * independent of every order is to have no rounding until the end: the
 * sum is held exactly, in a fixed-point integer format that covers the
 * whole double range, where adding two partial sums is integer addition
 * (associative, exact), and rounded once, correctly (to nearest, ties to
 * even), by the same code on every backend. The result is then the
 * correctly rounded exact sum: one value for any thread count, layout,
 * VVL, rank count, GPU count, C or CUDA.
 *
 * The format (tdpExactSum): 67 signed 64-bit words ("limbs"), limb i of
 * weight 2^(32 i - 1074), so 32-bit digits from 2^-1074 (the smallest
 * subnormal) past 2^1024 with 31 bits of headroom for carries; then counts
 * of NaN, +Inf and -Inf summands, and of contributions (for the overflow
 * guard). This is the "small superaccumulator" of R. M. Neal, "Fast exact
 * summation using small and large superaccumulators", arXiv:1505.05571
 * (2015), here as signed digits so that a number splits into at most three
 * digits of either sign. Every word is an int64 and every combine is a
 * word-wise sum: OpenMP threads, CUDA blocks (one atomicAdd per non-zero
 * digit), MPI ranks (MPI_Allreduce, MPI_INT64_T, MPI_SUM: one call) and
 * GPUs (ncclAllReduce, ncclInt64, ncclSum, on a target buffer) all
 * combine it the same way.
 *
 * The fast path (tdpExactAcc). Depositing every summand into the digits
 * costs a few integer operations and three scattered adds: several times a
 * memory-bound sum. So each thread first accumulates in a two-term
 * floating-point expansion hi + lo with Knuth's TwoSum (error-free: s + e
 * is exactly a + b), as ExBLAS does (Iakymchuk, Collange, Defour, Graillat,
 * "ExBLAS: reproducible and accurate BLAS library", 2015), and deposits a
 * summand into the digits only when the expansion cannot take it exactly
 * (the second TwoSum leaves an error: a summand 2^52 below the running sum
 * or finer than lo's last bit, an overflow, a NaN or Inf). For data of
 * similar magnitude that never happens; for adversarial data (every
 * summand spanning the exponent range) every summand is deposited: slower,
 * still exact. The expansion is folded into the digits once per thread
 * (CUDA: one warp-wide integer combine, then a few atomics per warp).
 *
 * Why not ReproBLAS's binned format (Demmel and Nguyen, "Parallel
 * reproducible summation", IEEE TC 2015). It is reproducible with one
 * reduction and a fixed small state (K bins of floating-point values
 * relative to the running maximum), but not exact: bits below the lowest
 * bin are dropped (1e308 + 1 - 1e308 gives 0), combining two states needs
 * a user-defined operation (an MPI_Op; NCCL has none, so GPUs would need an
 * allgather and a local combine) and the result depends on the bin layout,
 * so a change of K changes every printed digit. The fixed-point format is
 * exact, combines with the plain integer sum of every library (MPI, NCCL,
 * atomics) and has one result, the correctly rounded one. Its state is
 * bigger (576 bytes), which costs nothing that matters: one combine per
 * thread, one copy per reduction.
 *
 * Compiler requirements. TwoSum needs IEEE arithmetic as written: not
 * -ffast-math (then every summand is deposited: exact, slow), no fused
 * multiply-add across its first addition (g++ contracts a caller's a * b
 * into it in C++ mode: the summand passes through an empty asm barrier
 * here; nvcc: __dadd_rn, which is never fused), and subnormals not flushed
 * (FTZ/DAZ, which -ffast-math's startup code sets, would drop them; CUDA
 * never flushes doubles).
 */
#ifndef TARGETDP_H
#error "targetDP_exact.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_EXACT_H
#define TARGETDP_EXACT_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* The exact sum: digits, special counts, contributions. Plain data: all
 * words zero is the sum 0 (targetExactZero, memset, targetCalloc). */
#define TDP_EXACT_LIMBS 67
#define TDP_EXACT_WORDS 72
#define TDP_EXACT_NAN_ 67  /* NaN summands */
#define TDP_EXACT_PINF_ 68 /* +Inf summands */
#define TDP_EXACT_NINF_ 69 /* -Inf summands */
#define TDP_EXACT_OPS_ 70  /* contributions, each under 2^32 in every digit */
/* Digits stay below 2^63 while there are fewer than 2^31 contributions.
 * Host code renormalises at 2^30 (digits carried: one contribution again);
 * target code cannot (atomics), so a read-out of a sum with 2^31 or more is
 * refused (NaN, and an error from the host calls). */
#define TDP_EXACT_OPS_MAX_ ((int64_t) 1 << 30)
typedef struct {
  int64_t w[TDP_EXACT_WORDS];
} tdpExactSum;

/* A thread's accumulator in a kernel (or host code): the exact running sum
 * is hi + lo + what it deposited into *dst. hi and lo are always finite. */
typedef struct {
  double hi, lo;
  tdpExactSum *dst;
} tdpExactAcc;

/* ---------------------------------------------------------------------- */
/* Bits of a double, on host and device. */
static TDP_HOST_DEVICE inline uint64_t tdpExactBits_(double x) {
#ifdef __CUDA_ARCH__
  return (uint64_t) __double_as_longlong(x);
#else
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
#endif
}
static TDP_HOST_DEVICE inline double tdpExactFromBits_(uint64_t b) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long) b);
#else
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
#endif
}

/* A finite non-zero double as three digits: |x| = p0 2^(32 i) + p1
 * 2^(32 (i+1)) + p2 2^(32 (i+2)) in units of 2^-1074, each p < 2^32;
 * returns i (0..63). Its 53-bit significand m has its last bit at
 * 2^(q - 1074), q = biased exponent - 1 (0 for subnormals); shifted by
 * q % 32 within limb q / 32 it spans at most 85 bits, three digits. */
static TDP_HOST_DEVICE inline int tdpExactSplit_(uint64_t b, uint64_t *p0, uint64_t *p1,
                                                 uint64_t *p2) {
  const int e = (int) ((b >> 52) & 0x7ff);
  uint64_t m = b & (((uint64_t) 1 << 52) - 1);
  if (e) m |= (uint64_t) 1 << 52;
  const int q = e ? e - 1 : 0, r = q & 31;
  const uint64_t rest = m >> (32 - r); /* (m << r) >> 32, r in 0..31 */
  *p0 = (m << r) & 0xffffffffu;
  *p1 = rest & 0xffffffffu;
  *p2 = rest >> 32;
  return q >> 5;
}

/* Words of a NaN (or Inf) summand: the count it goes to; -1 if finite. */
static TDP_HOST_DEVICE inline int tdpExactSpecialWord_(uint64_t b) {
  if (((b >> 52) & 0x7ff) != 0x7ff) return -1;
  if (b & (((uint64_t) 1 << 52) - 1)) return TDP_EXACT_NAN_;
  return (b >> 63) ? TDP_EXACT_NINF_ : TDP_EXACT_PINF_;
}

/* Carries propagated: digits 0..65 in [0, 2^32), the rest (and the sign)
 * in digit 66. t - d is a multiple of 2^32: the division is exact. */
static TDP_HOST_DEVICE inline void tdpExactCarry_(int64_t *v) {
  int64_t c = 0;
  for (int i = 0; i < TDP_EXACT_LIMBS - 1; i++) {
    const int64_t t = v[i] + c, d = t & 0xffffffff;
    c = (t - d) / ((int64_t) 1 << 32);
    v[i] = d;
  }
  v[TDP_EXACT_LIMBS - 1] += c;
}

/* The same sum with every digit below 2^32 again: one contribution. */
static TDP_HOST_DEVICE inline void tdpExactNormalise_(tdpExactSum *s) {
  tdpExactCarry_(s->w);
  s->w[TDP_EXACT_OPS_] = 1;
}

/* s += x exactly (host or one thread; not atomic). */
static TDP_HOST_DEVICE inline void tdpExactSumAdd(tdpExactSum *s, double x) {
  const uint64_t b = tdpExactBits_(x);
  const int sp = tdpExactSpecialWord_(b);
  if (sp >= 0) {
    s->w[sp]++;
    return;
  }
  if (!(b << 1)) return; /* +-0 */
  uint64_t p0, p1, p2;
  const int i = tdpExactSplit_(b, &p0, &p1, &p2);
  if (b >> 63) {
    s->w[i] -= (int64_t) p0;
    s->w[i + 1] -= (int64_t) p1;
    s->w[i + 2] -= (int64_t) p2;
  } else {
    s->w[i] += (int64_t) p0;
    s->w[i + 1] += (int64_t) p1;
    s->w[i + 2] += (int64_t) p2;
  }
  if (++s->w[TDP_EXACT_OPS_] >= TDP_EXACT_OPS_MAX_) tdpExactNormalise_(s);
}

/* s += t exactly (host or one thread). */
static TDP_HOST_DEVICE inline void tdpExactSumMerge(tdpExactSum *s, const tdpExactSum *t) {
  if (s->w[TDP_EXACT_OPS_] + t->w[TDP_EXACT_OPS_] >= TDP_EXACT_OPS_MAX_) {
    tdpExactSum u = *t;
    tdpExactNormalise_(s);
    tdpExactNormalise_(&u);
    for (int i = 0; i < TDP_EXACT_WORDS; i++) s->w[i] += u.w[i];
    return;
  }
  for (int i = 0; i < TDP_EXACT_WORDS; i++) s->w[i] += t->w[i];
}

static TDP_HOST_DEVICE inline void tdpExactSumZero(tdpExactSum *s) {
  for (int i = 0; i < TDP_EXACT_WORDS; i++) s->w[i] = 0;
}

/* ---------------------------------------------------------------------- */
/* Correct rounding, one implementation for every backend and format: p
 * significand bits (53 double, 24 float), the last bit no lower than
 * 2^(lmin - 1074) (0 double, 925 float: their smallest subnormals), the
 * top biased exponent emax (2046, 254). Returns the result's bits in that
 * format, with *cls 0 (finite), 1 (+-Inf by overflow), 2 (NaN).
 *
 * Two passes over the words, no copy of them (a 536-byte array would be a
 * stack frame in every kernel that reads a sum): the first carries through
 * to the sign; the second carries the magnitude's digits (the words
 * negated for a negative sum) and keeps, at its highest non-zero digit k,
 * the three digits k, k-1, k-2 (at least 65 bits below the top bit: the
 * significand and the guard bit) and whether any digit below them is
 * non-zero (the sticky bit). */
static TDP_HOST_DEVICE inline int tdpExactClz64_(uint64_t x) {
#ifdef __CUDA_ARCH__
  return __clzll((long long) x);
#elif defined(__GNUC__)
  return __builtin_clzll(x);
#else
  int n = 0;
  while (!(x >> 63)) {
    x <<= 1;
    n++;
  }
  return n;
#endif
}
static TDP_HOST_DEVICE inline uint64_t tdpExactRound_(const tdpExactSum *s, int p, int lmin,
                                                      int emax, int *cls, int *neg) {
  const int64_t *w = s->w;
  const int64_t M = 0xffffffff, R = (int64_t) 1 << 32;
  *cls = 0;
  *neg = 0;
  if (w[TDP_EXACT_NAN_] || (w[TDP_EXACT_PINF_] && w[TDP_EXACT_NINF_]) ||
      w[TDP_EXACT_OPS_] < 0 || w[TDP_EXACT_OPS_] >= 2 * TDP_EXACT_OPS_MAX_) {
    *cls = 2; /* NaN: a NaN summand, Inf - Inf, or digits that may have overflowed */
    return 0;
  }
  if (w[TDP_EXACT_PINF_] || w[TDP_EXACT_NINF_]) {
    *cls = 1;
    *neg = w[TDP_EXACT_NINF_] != 0;
    return 0;
  }
  int64_t c = 0; /* pass 1: the sign */
  for (int i = 0; i < TDP_EXACT_LIMBS - 1; i++) {
    const int64_t t = w[i] + c;
    c = (t - (t & M)) / R;
  }
  const int negative = w[TDP_EXACT_LIMBS - 1] + c < 0;
  /* pass 2: the magnitude's digits; window d2 d1 d0 = digits k, k-1, k-2 */
  uint64_t d2 = 0, d1 = 0, d0 = 0, prev1 = 0, prev2 = 0;
  int k = -1, below = 0, seen = 0; /* seen: a non-zero digit below prev2 */
  c = 0;
  for (int i = 0; i < TDP_EXACT_LIMBS - 1; i++) {
    const int64_t t = (negative ? -w[i] : w[i]) + c, d = t & M;
    c = (t - d) / R;
    if (d) {
      k = i;
      d2 = (uint64_t) d;
      d1 = prev1;
      d0 = prev2;
      below = seen;
    }
    seen |= prev2 != 0;
    prev2 = prev1;
    prev1 = (uint64_t) d;
  }
  *neg = negative;
  if ((negative ? -w[TDP_EXACT_LIMBS - 1] : w[TDP_EXACT_LIMBS - 1]) + c != 0) { /* 2^1038 up */
    *cls = 1;
    return 0;
  }
  if (k < 0) return 0; /* exactly 0: +0 */
  /* W = d2 2^64 + d1 2^32 + d0, its bit 0 at digit k - 2 (bit base) */
  const uint64_t hiW = d2, loW = (d1 << 32) | d0;
  const int base = 32 * (k - 2), t = 64 + 63 - tdpExactClz64_(hiW); /* top bit in W */
  int l = t - p + 1 > lmin - base ? t - p + 1 : lmin - base;     /* last kept bit in W */
  /* l >= t - 52 >= 12: the guard bit and the sticky bits are in W or below */
  uint64_t m = l < 64 ? (loW >> l) | (l ? hiW << (64 - l) : 0) : hiW >> (l - 64);
  m &= (((uint64_t) 1) << (t - l + 1)) - 1;
  const int g = l - 1;
  const int guard = (int) ((g < 64 ? loW >> g : hiW >> (g - 64)) & 1);
  const int sticky = below || (g < 64 ? (loW & ((((uint64_t) 1) << g) - 1)) != 0
                                      : loW != 0 || (hiW & ((((uint64_t) 1) << (g - 64)) - 1)) != 0);
  if (guard && (sticky || (m & 1))) { /* to nearest, ties to even */
    m++;
    if (m >> p) {
      m >>= 1;
      l++;
    }
  }
  /* value = m 2^(base + l - 1074). A normal number's top bit p-1 has biased
   * exponent E = base + l - lmin + 1 (the smallest normal's last bit is at
   * lmin, its biased exponent 1); the encoding is (E - 1) << (p - 1) plus
   * m, whose top bit adds the last 1. A subnormal (base + l == lmin, m
   * below 2^(p-1)) is m itself: the same formula with E - 1 = 0. */
  const int E = base + l - lmin + 1;
  if (E > emax) {
    *cls = 1;
    return 0;
  }
  return ((uint64_t) (E - 1) << (p - 1)) + m;
}

/* The correctly rounded value (NaN for a NaN summand or +Inf + -Inf;
 * +-Inf for an Inf summand or an exact sum past the format's range). */
static TDP_HOST_DEVICE inline double tdpExactSumValue(const tdpExactSum *s) {
  int cls, neg;
  const uint64_t b = tdpExactRound_(s, 53, 0, 2046, &cls, &neg);
  const uint64_t sign = (uint64_t) neg << 63;
  if (cls == 2) return tdpExactFromBits_(0x7ff8000000000000ull);
  if (cls == 1) return tdpExactFromBits_(sign | 0x7ff0000000000000ull);
  return tdpExactFromBits_(sign | b);
}
static TDP_HOST_DEVICE inline float tdpExactSumValueFloat(const tdpExactSum *s) {
  int cls, neg;
  const uint64_t b = tdpExactRound_(s, 24, 925, 254, &cls, &neg);
  uint32_t f = (uint32_t) neg << 31;
  if (cls == 2) f = 0x7fc00000u;
  else if (cls == 1) f |= 0x7f800000u;
  else f |= (uint32_t) b;
  float x;
#ifdef __CUDA_ARCH__
  x = __int_as_float((int) f);
#else
  memcpy(&x, &f, sizeof x);
#endif
  return x;
}

/* ---------------------------------------------------------------------- */
/* Deposits by several threads into one sum: atomics (CUDA; OpenMP
 * threads on the C backend). */
static TDP_HOST_DEVICE inline void tdpExactAtomicAdd_(int64_t *p, int64_t v) {
#ifdef __CUDA_ARCH__
  atomicAdd((unsigned long long *) p, (unsigned long long) v); /* two's complement */
#else
  TDP_OMP_(atomic update)
  *p += v;
#endif
}
/* The rare path of tdpExactAdd, out of line so that the loop around the
 * fast path stays small. */
#if defined(__CUDACC__)
#define TDP_EXACT_COLD_ __noinline__ __attribute__((unused))
#elif defined(__GNUC__)
#define TDP_EXACT_COLD_ __attribute__((noinline, cold, unused))
#else
#define TDP_EXACT_COLD_ inline
#endif
static TDP_HOST_DEVICE TDP_EXACT_COLD_ void tdpExactDepositAtomic_(tdpExactSum *s, double x) {
  const uint64_t b = tdpExactBits_(x);
  const int sp = tdpExactSpecialWord_(b);
  if (sp >= 0) {
    tdpExactAtomicAdd_(&s->w[sp], 1);
    return;
  }
  if (!(b << 1)) return;
  uint64_t p[3];
  const int i = tdpExactSplit_(b, &p[0], &p[1], &p[2]);
  for (int k = 0; k < 3; k++)
    if (p[k]) tdpExactAtomicAdd_(&s->w[i + k], (b >> 63) ? -(int64_t) p[k] : (int64_t) p[k]);
  tdpExactAtomicAdd_(&s->w[TDP_EXACT_OPS_], 1);
}

/* TwoSum's additions as written: on a GPU the _rn intrinsics, which nvcc
 * never fuses into a multiply-add; on a CPU the summand passes an empty
 * asm first, so that the compiler cannot fuse a caller's product into the
 * first addition (g++ does in C++ mode, -ffp-contract=fast, and the error
 * term is then that of another number). */
static TDP_HOST_DEVICE inline double tdpExactPlus_(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
static TDP_HOST_DEVICE inline double tdpExactMinus_(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
static TDP_HOST_DEVICE inline double tdpExactOpaque_(double x) {
#if defined(__CUDA_ARCH__)
  return x;
#elif defined(__GNUC__) && defined(__x86_64__)
  __asm__("" : "+x"(x));
  return x;
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(x));
  return x;
#else
  volatile double v = x;
  return v;
#endif
}

/* An accumulator whose deposits go to *t_sum (a target sum in a kernel,
 * a host sum in host code). */
static TDP_HOST_DEVICE inline tdpExactAcc tdpExactAccOn(tdpExactSum *t_sum) {
  tdpExactAcc a;
  a.hi = 0.0;
  a.lo = 0.0;
  a.dst = t_sum;
  return a;
}

/* acc += x, exactly. Fast path: s + e = hi + x exactly (TwoSum), then
 * t = lo + e, kept only if exact: t - lo == e and t - e == lo (whichever
 * of lo and e is larger, t minus it is computed exactly (the Fast2Sum
 * lemma), so an error shows as a mismatch; a NaN or Inf anywhere fails a
 * comparison). Then hi + lo + x is exactly the new hi + lo, both finite.
 * Otherwise x goes to the digits of *dst (atomically): x NaN or Inf, an
 * overflow, or bits below lo's last. 11 additions and 2 comparisons. */
static TDP_HOST_DEVICE inline void tdpExactAdd(tdpExactAcc *a, double x) {
#ifdef __FAST_MATH__
  tdpExactDepositAtomic_(a->dst, x); /* no IEEE order: TwoSum would be folded away */
#else
  x = tdpExactOpaque_(x);
  const double hi = a->hi, lo = a->lo;
  const double s = tdpExactPlus_(hi, x), bb = tdpExactMinus_(s, hi);
  const double e = tdpExactPlus_(tdpExactMinus_(hi, tdpExactMinus_(s, bb)), tdpExactMinus_(x, bb));
  const double t = tdpExactPlus_(lo, e);
  if (tdpExactMinus_(t, lo) == e && tdpExactMinus_(t, e) == lo) {
    a->hi = s;
    a->lo = t;
  } else {
    tdpExactDepositAtomic_(a->dst, x);
  }
#endif
}

/* out += in, exactly (OpenMP's combiner of two threads' accumulators). */
static TDP_HOST_DEVICE inline void tdpExactAccMerge_(tdpExactAcc *out, const tdpExactAcc *in) {
  tdpExactAdd(out, in->hi);
  tdpExactAdd(out, in->lo);
}

/* hi and lo into *dst (atomically); the accumulator is 0 again. For host
 * code; kernels call targetBlockAddExact. */
static TDP_HOST_DEVICE inline void tdpExactAccFlush(tdpExactAcc *a) {
  if (a->hi != 0.0) tdpExactDepositAtomic_(a->dst, a->hi);
  if (a->lo != 0.0) tdpExactDepositAtomic_(a->dst, a->lo);
  a->hi = 0.0;
  a->lo = 0.0;
}

/* ---------------------------------------------------------------------- */
/* In-kernel exact sums: TDP_REXACT(acc) is a clause of TDP_TLP_REDUCE, and
 * TDP_TLP_EXACT(base, N, a, b) is TDP_TLP_REDUCE(base, N, TDP_REXACT(a),
 * TDP_REXACT(b)); after the loop targetBlockAddExact(&acc) adds the
 * thread's (block's) part to the sum the accumulator was made on:
 *
 *   TDP_KERNEL void kDot(const double *x, const double *y, long n, tdpExactSum *t_dot) {
 *     tdpExactAcc dot = tdpExactAccOn(t_dot);
 *     TDP_TLP_EXACT(base, n, dot) {
 *       TDP_ILP_REDUCE(v) tdpExactAdd(&dot, x[base + v] * y[base + v]);
 *     }
 *     targetBlockAddExact(&dot);
 *   }
 *
 * The clause's kind (3) is none of tdpReduceOp's: the checked build
 * records the variable but does not ask it to be all zero bits (its
 * pointer is not). On the C backend the clause is an OpenMP user-defined
 * reduction (each thread's copy on the same sum, merged exactly). */
#define TDP_EXACT_KIND_ 3
#define TDP_REXACT(v) (tdp_exact_, TDP_EXACT_KIND_, v)
#define TDP_REXACT_EACH_(v) , TDP_REXACT(v)
/* On the C backend a loop of exact accumulators is not vectorised (the
 * rare path is a call), and "omp simd" then keeps each thread's
 * accumulator in an "omp simd array" in memory: every summand waited for
 * a store and a load (3x slower, gcc 12). simdlen(1) keeps it in
 * registers. A TDP_TLP_REDUCE that mixes TDP_REXACT with other clauses is
 * right, but pays that. */
#define TDP_TLP_EXACT(baseIndex, N, ...) \
  TDP_TLP_EXACT_LIST_(simdlen(1), baseIndex, N TDP_EACH_(TDP_REXACT_EACH_, __VA_ARGS__))
#define TDP_TLP_EXACT_LIST_(...) TDP_TLP_REDUCE_OPT_(__VA_ARGS__)
#if !defined(__CUDACC__) && (defined(_OPENMP) || defined(TDP_OPENMP_SIMD))
TDP_PRAGMA(omp declare reduction(tdp_exact_ : tdpExactAcc : tdpExactAccMerge_(&omp_out, &omp_in)) \
           initializer(omp_priv = tdpExactAccOn(omp_orig.dst)))
#endif

#ifdef __CUDACC__
/* A warp's sum of v (|v| < 2^35 in every lane): on sm_80 and later three
 * redux.sync of 16-, 16- and (signed) 32-bit parts, which cannot overflow
 * for 32 lanes; before, a butterfly of 64-bit shuffles. */
static __device__ inline int64_t tdpExactWarpSum_(int64_t v) {
#if __CUDA_ARCH__ >= 800
  const unsigned a = (unsigned) (v & 0xffff), b = (unsigned) ((v >> 16) & 0xffff);
  const int c = (int) (v >> 32); /* v = c 2^32 + b 2^16 + a */
  const unsigned sa = __reduce_add_sync(0xffffffffu, a), sb = __reduce_add_sync(0xffffffffu, b);
  const int sc = __reduce_add_sync(0xffffffffu, c);
  return (int64_t) sa + (int64_t) sb * 65536 + (int64_t) sc * 4294967296LL;
#else
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
#endif
}
static __device__ inline int tdpExactWarpMax_(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int off = 16; off > 0; off /= 2) {
    const int o = __shfl_xor_sync(0xffffffffu, v, off);
    v = o > v ? o : v;
  }
  return v;
#endif
}
/* Every thread's hi and lo into *dst, a warp at a time: the digits of
 * each in a window of 8 limbs below the warp's highest (its top digit + 2
 * down to 5 limbs lower: 160 bits, hi and lo of similar partial sums),
 * summed over the warp in integers, carried, and added by lane 0 with one
 * atomic per non-zero digit. A value below the window (2^-96 of the
 * warp's largest) is deposited on its own. Every thread of the block must
 * call it (whole warps: a block size that is a multiple of 32). */
static __device__ inline void tdpExactBlockAdd_(tdpExactAcc *a) {
  if (blockDim.x % 32) {
    if (threadIdx.x == 0)
      printf("targetDP: a block reduction (targetBlock*) needs a block size that is a multiple "
             "of 32\n");
    __trap();
  }
  tdpExactSum *t = a->dst;
  const double c[2] = {a->hi, a->lo};
  int idx[2], top = -1;
  uint64_t p[2][3], neg[2];
#pragma unroll
  for (int k = 0; k < 2; k++) {
    const uint64_t b = tdpExactBits_(c[k]);
    neg[k] = b >> 63;
    idx[k] = (b << 1) ? tdpExactSplit_(b, &p[k][0], &p[k][1], &p[k][2]) : -1;
    top = idx[k] > top ? idx[k] : top;
  }
  const int wtop = tdpExactWarpMax_(top);
  if (wtop < 0) return; /* the whole warp holds 0 */
  const int base = wtop >= 5 ? wtop - 5 : 0;
  int64_t slot[9];
#pragma unroll
  for (int j = 0; j < 9; j++) slot[j] = 0;
#pragma unroll
  for (int k = 0; k < 2; k++) {
    if (idx[k] >= base) {
      const int d = idx[k] - base;
      const int64_t q0 = neg[k] ? -(int64_t) p[k][0] : (int64_t) p[k][0];
      const int64_t q1 = neg[k] ? -(int64_t) p[k][1] : (int64_t) p[k][1];
      const int64_t q2 = neg[k] ? -(int64_t) p[k][2] : (int64_t) p[k][2];
#pragma unroll
      for (int j = 0; j < 8; j++)
        slot[j] += (j == d ? q0 : 0) + (j == d + 1 ? q1 : 0) + (j == d + 2 ? q2 : 0);
    } else if (idx[k] >= 0) {
      tdpExactDepositAtomic_(t, c[k]);
    }
  }
#pragma unroll
  for (int j = 0; j < 8; j++) slot[j] = tdpExactWarpSum_(slot[j]);
  if (threadIdx.x % 32 == 0) {
    int64_t carry = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
      const int64_t s = slot[j] + carry, d = s & 0xffffffff;
      carry = (s - d) / ((int64_t) 1 << 32);
      slot[j] = d;
    }
    slot[8] = carry;
#pragma unroll
    for (int j = 0; j < 9; j++)
      if (slot[j]) tdpExactAtomicAdd_(&t->w[base + j], slot[j]);
    tdpExactAtomicAdd_(&t->w[TDP_EXACT_OPS_], 1);
  }
}
#define tdpBlockAddExactBackend_(a) tdpExactBlockAdd_(a)
#else
/* C backend: the clause has merged the threads; one flush. */
#define tdpBlockAddExactBackend_(a) tdpExactAccFlush(a)
#endif

/* The correctly rounded value of a target sum, in every thread of a
 * block (a kernel that reads a sum an earlier kernel formed, without the
 * host): on CUDA thread 0 rounds it and shares it through shared memory,
 * not every thread (rounding reads 67 digits); every thread of the block
 * must call it, outside divergent code. On the C backend a plain call. */
#ifdef __CUDACC__
static __device__ inline double tdpExactBlockValue_(const tdpExactSum *t_sum) {
  __shared__ double v;
  __syncthreads(); /* every thread has read the previous call's v */
  if (threadIdx.x == 0) v = tdpExactSumValue(t_sum);
  __syncthreads();
  return v;
}
#define targetBlockExactValue(t_sum) tdpExactBlockValue_(t_sum)
#else
#define targetBlockExactValue(t_sum) tdpExactSumValue(t_sum)
#endif

/* After the TDP_TLP_REDUCE loop (every thread of the block, as
 * targetBlockAdd*): the accumulator's part into the sum it was made on.
 * The checked C build refuses an accumulator that no clause named. */
#if defined(TARGETDP_CHECK) && !defined(__CUDACC__)
#define targetBlockAddExact(acc)                                                            \
  (tdpReduceCheck_((const void *) (acc), (tdpReduceOp) TDP_EXACT_KIND_, "targetBlockAddExact", \
                   #acc, __FILE__, __LINE__),                                                \
   tdpBlockAddExactBackend_(acc))
#else
#define targetBlockAddExact(acc) tdpBlockAddExactBackend_(acc)
#endif

/* ---------------------------------------------------------------------- */
/* Host API (targetDP_exact.c, the backends' targetDP_exact_C.c and
 * targetDP_exact_CUDA.cu; MPI: targetDP_exact_mpi.h). */

/* *res = the exact sum of n values of a target array (float or double),
 * every digit carried: one contribution, ready for targetExactAllreduce. */
/* res_known: what the caller's compiler knows of res (TDP_OBJECT_SIZE_). */
int tdpExactSumT_(tdpExactSum *res, size_t res_known, const void *t_a, size_t n, tdpType type,
                  size_t esz, const char *f, int l);
static inline int tdpExactSumDouble_(tdpExactSum *res, size_t res_known, const double *t_a,
                                     size_t n, const char *f, int l) {
  return tdpExactSumT_(res, res_known, t_a, n, TDP_TYPE_DOUBLE, sizeof(double), f, l);
}
static inline int tdpExactSumFloat_(tdpExactSum *res, size_t res_known, const float *t_a,
                                    size_t n, const char *f, int l) {
  return tdpExactSumT_(res, res_known, t_a, n, TDP_TYPE_FLOAT, sizeof(float), f, l);
}
#define targetDoubleSumExact(res, t_a, n) \
  tdpExactSumDouble_((res), TDP_OBJECT_SIZE_(res), (t_a), (n), TDP_AT_)
#define targetFloatSumExact(res, t_a, n) \
  tdpExactSumFloat_((res), TDP_OBJECT_SIZE_(res), (t_a), (n), TDP_AT_)

/* n target sums (targetMalloc'd tdpExactSum) set to 0. */
int tdpExactZero_(tdpExactSum *t_sums, size_t n, const char *f, int l);
#define targetExactZero(t_sums, n) tdpExactZero_((t_sums), (n), TDP_AT_)
/* res[i] = the correctly rounded value of the target sum t_sums[i]. */
int tdpExactValue_(double *res, size_t res_known, const tdpExactSum *t_sums, size_t n,
                   const char *f, int l);
#define targetExactValue(res, t_sums, n) \
  tdpExactValue_((res), TDP_OBJECT_SIZE_(res), (t_sums), (n), TDP_AT_)

#ifdef __cplusplus
}
#endif

#endif /* TARGETDP_EXACT_H */
