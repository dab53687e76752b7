/*
 * omp_cond_reduce.c -- which OpenMP reduction forms a compiler gets right
 * when the body stores and reduces under a condition (plain OpenMP, no
 * targetDP; issue 25 item 1, docs/reliability.md).
 *
 * clang 14 and 16 miscompile `omp for simd` with a reduction, alone or in
 * `omp parallel for simd` (form pfs below), for such bodies: a sum over
 * the sites that pass the test came out a third of the true one, also on
 * one thread. Their `omp parallel for` and `omp simd` are right, and so is
 * `omp parallel for` over chunks with `omp simd` inside each (form chunk),
 * which is what TDP_TLP_REDUCE uses on clang. gcc 12 gets every form right.
 *
 *   cc -O3 -march=native -fopenmp omp_cond_reduce.c -o r && ./r [form]
 *
 * prints one line per form; with a form named, the exit status is 1 when
 * that form got any case wrong (tests/suites/compilers.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P_(x) _Pragma(#x)
#define P(x) P_(x)
#define CHUNK 2048

/* The forms: a reduction of acc over i in [0, n). */
#define F_pfs(OP, acc, BODY) \
  P(omp parallel for simd schedule(static) reduction(OP : acc)) for (long i = 0; i < n; i++) { BODY }
#define F_forsimd(OP, acc, BODY) \
  P(omp parallel) { P(omp for simd schedule(static) reduction(OP : acc)) for (long i = 0; i < n; i++) { BODY } }
#define F_pf(OP, acc, BODY) \
  P(omp parallel for schedule(static) reduction(OP : acc)) for (long i = 0; i < n; i++) { BODY }
#define F_simd(OP, acc, BODY) P(omp simd reduction(OP : acc)) for (long i = 0; i < n; i++) { BODY }
#define F_chunk(OP, acc, BODY)                                                       \
  P(omp parallel for schedule(static) reduction(OP : acc))                           \
  for (long c = 0; c < n; c += CHUNK)                                                \
    P(omp simd reduction(OP : acc)) for (long i = c; i < (n - c > CHUNK ? c + CHUNK : n); i++) { BODY }
/* The bodies: store and reduce under a condition, the same with continue,
 * unconditional, and a condition without a store (right everywhere). */
#define B_condstore(O, acc) if (i % 7 != 3) { b[i] = a[i]; acc = O(acc, a[i]); }
#define B_continue(O, acc) if (i % 7 == 3) continue; b[i] = a[i]; acc = O(acc, a[i]);
#define B_plain(O, acc) acc = O(acc, a[i]);
#define B_cond(O, acc) if (i % 7 != 3) acc = O(acc, a[i]);
#define O_sum(x, y) ((x) + (y))
#define O_min(x, y) ((y) < (x) ? (y) : (x))
#define O_max(x, y) ((y) > (x) ? (y) : (x))
#define C_sum +
#define C_min min
#define C_max max
/* The kernel of one (type, form, body, operation) and its serial reference. */
#define K(T, F, B, O)                                                                        \
  __attribute__((noinline)) static T k_##T##_##F##_##B##_##O(const T *a, T *b, long n) {     \
    T acc = (T) (#O[1] == 'u' ? 0 : 5);                                                      \
    (void) b;                                                                                \
    F_##F(C_##O, acc, B_##B(O_##O, acc)) return acc;                                         \
  }                                                                                          \
  __attribute__((noinline)) static T r_##T##_##F##_##B##_##O(const T *a, T *b, long n) {     \
    T acc = (T) (#O[1] == 'u' ? 0 : 5);                                                      \
    (void) b;                                                                                \
    for (long i = 0; i < n; i++) { B_##B(O_##O, acc) }                                       \
    return acc;                                                                              \
  }
#define KB(T, F, B) K(T, F, B, sum) K(T, F, B, min) K(T, F, B, max)
#define KF(T, F) KB(T, F, condstore) KB(T, F, continue) KB(T, F, plain) KB(T, F, cond)
#define KT(T) KF(T, pfs) KF(T, forsimd) KF(T, pf) KF(T, simd) KF(T, chunk)
KT(double)
KT(float)
KT(int)
KT(long)

#define NFORMS 5
static const char *fname[NFORMS] = {"pfs", "forsimd", "pf", "simd", "chunk"};
static const char *fwhat[NFORMS] = {"omp parallel for simd", "omp parallel + omp for simd",
                                    "omp parallel for", "omp simd",
                                    "omp parallel for over chunks + omp simd"};
static int nbad[NFORMS], ncase[NFORMS];
static const long sizes[] = {0, 1, 7, 9, 1003, 100003};
#define C(T, fi, F, B, O)                                                                    \
  for (int s = 0; s < 6; s++) {                                                              \
    long n = sizes[s];                                                                       \
    T *a = (T *) malloc((n + 1) * sizeof(T)), *b = (T *) malloc((n + 1) * sizeof(T));        \
    for (long i = 0; i < n; i++) a[i] = (T) ((i * 7919) % 13) - (T) 6;                       \
    T got = k_##T##_##F##_##B##_##O(a, b, n), want = r_##T##_##F##_##B##_##O(a, b, n);       \
    ncase[fi]++;                                                                             \
    if (got != want && nbad[fi]++ < 3)                                                       \
      printf("  %s: %s %s %s, n = %ld: %g, the serial loop %g\n", fname[fi], #T, #B, #O, n,  \
             (double) got, (double) want);                                                   \
    free(a);                                                                                 \
    free(b);                                                                                 \
  }
#define CB(T, fi, F, B) C(T, fi, F, B, sum) C(T, fi, F, B, min) C(T, fi, F, B, max)
#define CF(T, fi, F) CB(T, fi, F, condstore) CB(T, fi, F, continue) CB(T, fi, F, plain) CB(T, fi, F, cond)
#define CT(T) CF(T, 0, pfs) CF(T, 1, forsimd) CF(T, 2, pf) CF(T, 3, simd) CF(T, 4, chunk)

int main(int argc, char **argv) {
  CT(double)
  CT(float)
  CT(int)
  CT(long)
  int rc = 0;
  for (int f = 0; f < NFORMS; f++) {
    printf("%-8s %-40s %s (%d of %d cases wrong)\n", fname[f], fwhat[f],
           nbad[f] ? "WRONG" : "right", nbad[f], ncase[f]);
    if (argc > 1 && strcmp(argv[1], fname[f]) == 0 && nbad[f]) rc = 1;
  }
  return rc;
}
