/* The solver's kernels, written once in targetDP: the staggered operator
 * between parities (gather + SU(3) x vector), and the level-1 operations
 * of CG with their reductions fused in. Reductions end in a global sum
 * over the ranks (MPI_Allreduce). Each call is timed and its flops and
 * bytes (the minimum a kernel must move) counted by kind. */
#ifndef MILC_KERNELS_H
#define MILC_KERNELS_H

#include <mpi.h>

#include "lattice.h"

typedef enum { MILC_K_DSLASH = 0, MILC_K_BLAS, MILC_K_HALO, MILC_K_NKIND } milcKernelKind;

typedef struct {
  double seconds[MILC_K_NKIND], flops[MILC_K_NKIND], bytes[MILC_K_NKIND];
  long calls[MILC_K_NKIND];
} milcCounters;

typedef struct {
  const milcLattice *L;
  MPI_Comm comm;
  double *t_sum;    /* one double of target scratch for the reductions */
  targetStream_t interior; /* the interior sweep of D, beside the halo's stream */
  milcCounters cnt; /* this rank's */
} milcOps;

void milcOpsCreate(milcOps *o, const milcLattice *L, MPI_Comm comm);
void milcOpsFree(milcOps *o);

/* The kernels' host calls, for double fields (names as below) and for
 * float fields (the same names + _f): kernels_api.h, included once per
 * storage type. */
#define MILC_EACH_REAL_FILE "kernels_api.h"
#include "each_real.h"

/* Flops and minimal memory traffic per output site (for the report).
 * Flops as MILC counts them: 8 SU(3) x vector (66) + 7 vector sums (6).
 * Bytes: what a sweep over one parity must move at least: the 8 links
 * that touch the site (4 its own, 4 of its backward neighbours: over the
 * sweep every link of the lattice once), the source once (each source
 * site is read by 8 output sites, which a cache or the halo of a thread
 * block can share) and the result once. Counting the source 8 times
 * would report bandwidth that was never drawn from memory. */
#define MILC_DSLASH_FLOPS 570.0
#define MILC_DSLASH_DOUBLES (8.0 * MILC_NM + 2.0 * MILC_NV) /* values: x sizeof(real) */

#endif
