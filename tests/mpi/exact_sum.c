/* Exact sums across MPI ranks (targetDP_exact_mpi.h; issue 25 item 9): one
 * fixed global array, split over however many ranks run this, summed
 * three ways -- the library (targetDoubleSumExact), an in-kernel exact
 * accumulator (TDP_TLP_EXACT) and floats (targetFloatSumExact) -- and
 * combined by targetExactAllreduce. The results must be bitwise the same
 * on every rank, the library's and the kernel's must agree, and the
 * suite (tests/suites/exact.sh) demands the same bits for 1, 2, 3 and 4
 * ranks and for uneven splits. For contrast it also prints the sum the
 * apps used to form (each rank's targetDoubleSum, then MPI_Allreduce of
 * doubles), whose last bits depend on the split.
 *
 *   mpirun -np N exact_sum [--uneven] [--n COUNT]
 *
 * Prints "exact_sum: PASS: np N: exact <hex> <hex> <hex> plain <hex>" on rank 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"
#include "targetDP_exact_mpi.h"

TDP_KERNEL void kExactSum(const double *a, long n, tdpExactSum *t_s) {
  tdpExactAcc acc = tdpExactAccOn(t_s);
  TDP_TLP_EXACT(base, n, acc) {
    TDP_ILP_REDUCE(v) tdpExactAdd(&acc, a[base + v]);
  }
  targetBlockAddExact(&acc);
}

/* Element i of the global array: mostly O(1) values, with every 97th a
 * large one that cancels later and every 13th a tiny one, so that the
 * order of a plain sum shows in its last bits. */
static double value(long i) {
  unsigned long long x = 0x9E3779B97F4A7C15ull * (unsigned long long) (i + 1);
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  const double u = (double) (x >> 11) * (1.0 / 9007199254740992.0);
  if (i % 97 == 0) return (i / 97) % 2 ? -1e12 * (1.0 + u) : 1e12 * (1.0 + u);
  if (i % 13 == 0) return 1e-9 * u;
  return 0.1 + u;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1, uneven = 0;
  long n = 1000003;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--uneven")) uneven = 1;
    else if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atol(argv[++i]);
    else {
      if (rank == 0) fprintf(stderr, "exact_sum: FAIL: unknown argument '%s'\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  targetInit();
  /* rank r takes [lo, hi): equal parts, or parts growing with r (rank 0 the smallest) */
  long lo, hi;
  if (uneven) {
    const long tri = (long) nranks * (nranks + 1) / 2;
    lo = n * ((long) rank * (rank + 1) / 2) / tri;
    hi = n * ((long) (rank + 1) * (rank + 2) / 2) / tri;
  } else {
    lo = n * rank / nranks;
    hi = n * (rank + 1) / nranks;
  }
  const long m = hi - lo;
  double *h = (double *) malloc((m ? m : 1) * sizeof(double));
  float *hf = (float *) malloc((m ? m : 1) * sizeof(float));
  for (long i = 0; i < m; i++) {
    h[i] = value(lo + i);
    hf[i] = (float) h[i];
  }
  double *t = NULL;
  float *tf = NULL;
  tdpExactSum *t_s = NULL;
  targetMalloc(&t, (m ? m : 1) * sizeof(double));
  targetMalloc(&tf, (m ? m : 1) * sizeof(float));
  targetMalloc(&t_s, sizeof(tdpExactSum));
  if (m) {
    copyToTarget(t, h, m * sizeof(double));
    copyToTarget(tf, hf, m * sizeof(float));
  }
  tdpExactSum part[3];
  targetDoubleSumExact(&part[0], t, (size_t) m);
  targetExactZero(t_s, 1);
  if (m) TDP_LAUNCH_REDUCE(kExactSum, m, t, m, t_s);
  copyFromTarget(&part[1], t_s, sizeof(tdpExactSum));
  targetFloatSumExact(&part[2], tf, (size_t) m);
  double res[3];
  targetExactAllreduce(res, part, 3, MPI_COMM_WORLD);
  /* the former way: each rank's rounded sum, then MPI's sum of doubles */
  double local = 0.0, plain = 0.0;
  if (m) targetDoubleSum(&local, t, (size_t) m);
  MPI_Allreduce(&local, &plain, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  /* every rank holds the same bits */
  unsigned long long bits[3], mn[3], mx[3];
  memcpy(bits, res, sizeof bits);
  MPI_Allreduce(bits, mn, 3, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(bits, mx, 3, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  int fail = memcmp(mn, mx, sizeof mn) != 0;
  if (rank == 0 && fail) printf("exact_sum: FAIL: the ranks hold different results\n");
  if (rank == 0 && memcmp(&res[0], &res[1], sizeof(double))) {
    printf("exact_sum: FAIL: library %a and in-kernel %a differ\n", res[0], res[1]);
    fail = 1;
  }
  if (rank == 0 && !fail)
    printf("exact_sum: PASS: np %d%s: exact %a %a %a plain %a\n", nranks, uneven ? " uneven" : "",
           res[0], res[1], res[2], plain);
  free(h);
  free(hf);
  targetFree(t);
  targetFree(tf);
  targetFree(t_s);
  targetFinalize();
  MPI_Finalize();
  return fail;
}
