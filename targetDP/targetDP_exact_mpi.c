/*
 * targetDP_exact_mpi.c -- targetExactAllreduce (targetDP_exact_mpi.h).
 */
#include <stdint.h>

#define TDP_LIBRARY_ 1 /* a library source: no -fopenmp mark (targetDP.h) */
#include "targetDP_exact_mpi.h"
#include "targetDP_internal.h"

int tdpExactAllreduce_(double *res, size_t res_known, tdpExactSum *sums, size_t sums_known,
                       int n, MPI_Comm comm, const char *f,
                       int l) {
  tdpSite at = {"targetExactAllreduce", f, l};
  /* the same verdict on every rank: the reduction is collective */
  int bad = !sums || n < 1 || n > INT32_MAX / TDP_EXACT_WORDS;
  if (!bad) bad = tdpCheckHost(sums, (size_t) n * sizeof(tdpExactSum), sums_known, "the sums", at) != 0;
  if (!bad && res) bad = tdpCheckHost(res, (size_t) n * sizeof(double), res_known, "the results", at) != 0;
  int ops_bad = 0;
  if (!bad)
    for (int i = 0; i < n; i++) {
      const int64_t ops = sums[i].w[TDP_EXACT_OPS_];
      ops_bad |= ops < 0 || ops >= 2 * TDP_EXACT_OPS_MAX_;
    }
  int local[2] = {bad, ops_bad}, any[2] = {0, 0};
  MPI_Allreduce(local, any, 2, MPI_INT, MPI_MAX, comm);
  if (any[0])
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "%s: NULL sums, a count below 1 (%d) or host memory too small, here or on "
                   "another rank", bad ? "here" : "another rank", n);
  if (any[1]) {
    if (ops_bad) return tdpExactCheckOps(sums, (size_t) n, at);
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "another rank's sum has too many contributions to trust (its digits may have "
                   "overflowed)");
  }
  /* each rank's digits carried (below 2^32), so the ranks' sum of any
   * digit stays below 2^63 for up to 2^31 ranks */
  for (int i = 0; i < n; i++) tdpExactNormalise_(&sums[i]);
  int rc = MPI_Allreduce(MPI_IN_PLACE, sums, n * TDP_EXACT_WORDS, MPI_INT64_T, MPI_SUM, comm);
  if (rc != MPI_SUCCESS)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "MPI_Allreduce of the digits failed (%d)", rc);
  if (res)
    for (int i = 0; i < n; i++) res[i] = tdpExactSumValue(&sums[i]);
  return TARGET_SUCCESS;
}
