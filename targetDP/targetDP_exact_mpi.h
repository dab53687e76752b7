/*
 * targetDP_exact_mpi.h -- exact sums across the ranks of an MPI
 * communicator (targetDP_exact.h; docs/api.md, "Exact sums"). Built into
 * the library with the halo module when MPI is found.
 *
 * Each rank's exact partial sums (targetDoubleSumExact, or a target sum
 * of an in-kernel accumulator copied to the host) are combined by one
 * MPI_Allreduce of their 64-bit digits (MPI_INT64_T, MPI_SUM: integer
 * addition, exact and in any order), and every rank rounds the same
 * integers the same way: the correctly rounded global sum, bitwise the
 * same on every rank and for any number of ranks and any split.
 *
 *   tdpExactSum part[2];
 *   targetDoubleSumExact(&part[0], t_rho, nlocal);
 *   targetDoubleSumExact(&part[1], t_ux, nlocal);
 *   double total[2];
 *   targetExactAllreduce(total, part, 2, comm);   (part: now the global sums)
 */
#ifndef TARGETDP_EXACT_MPI_H
#define TARGETDP_EXACT_MPI_H

#include <mpi.h>

#include "targetDP.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sums[0..n): host sums, replaced by their sums over comm (collective);
 * res[i] (res may be NULL) = the correctly rounded value of sums[i]. A sum
 * with more contributions than the format takes is refused on every rank
 * (TARGET_ERROR_INVALID_VALUE) before the reduction. */
int tdpExactAllreduce_(double *res, size_t res_known, tdpExactSum *sums, size_t sums_known,
                       int n, MPI_Comm comm, const char *f, int l);
#define targetExactAllreduce(res, sums, n, comm)                                             \
  tdpExactAllreduce_((res), TDP_OBJECT_SIZE_(res), (sums), TDP_OBJECT_SIZE_(sums), (n), (comm), \
                     TDP_AT_)

#ifdef __cplusplus
}
#endif
#endif
