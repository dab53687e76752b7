#include <stdio.h>
#include <string.h>

#include "decomp.h"
#include "targetDP_halo.h"

/* The choice is the halo module's (targetDP_halo.c), for 3 axes: one
 * implementation of the rule and of its messages. */
int decompChooseDims(int nranks, const int global[3], const int request[3], int dims[3],
                     char *err, size_t errlen) {
  const long g[3] = {global[0], global[1], global[2]};
  return targetHaloChooseDims(nranks, 3, g, request, dims, err, errlen);
}

int decompCreate(MPI_Comm comm, const int global[3], const int request[3],
                 const int periodic[3], decompInfo *d, char *err, size_t errlen) {
  memset(d, 0, sizeof(*d));
  d->comm = MPI_COMM_NULL;
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  if (decompChooseDims(nranks, global, request, d->dims, err, errlen)) return -1;
  /* No reordering: rank r of comm stays rank r, so output from "rank 0"
   * and the choice of GPU per node keep their meaning. */
  MPI_Cart_create(comm, 3, d->dims, periodic, 0, &d->comm);
  MPI_Comm_rank(d->comm, &d->rank);
  MPI_Comm_size(d->comm, &d->nranks);
  MPI_Cart_coords(d->comm, d->rank, 3, d->coords);
  for (int k = 0; k < 3; k++) {
    d->periodic[k] = periodic[k] ? 1 : 0;
    d->global[k] = global[k];
    d->local[k] = global[k] / d->dims[k];
    d->offset[k] = d->coords[k] * d->local[k];
    MPI_Cart_shift(d->comm, k, 1, &d->nbr_lo[k], &d->nbr_hi[k]);
  }
  return 0;
}

void decompFree(decompInfo *d) {
  if (d->comm != MPI_COMM_NULL) MPI_Comm_free(&d->comm);
  d->comm = MPI_COMM_NULL;
}
