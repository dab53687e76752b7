#include <stdio.h>
#include <string.h>

#include "decomp.h"
#include "targetDP_halo.h"

/* The choice is the halo module's (targetDP_halo.c): one implementation
 * of the rule and of its messages. */
int decompChooseDimsN(int nranks, int ndim, const int global[], const int request[], int dims[],
                      char *err, size_t errlen) {
  if (ndim < 1 || ndim > DECOMP_MAXDIM) {
    snprintf(err, errlen, "ndim %d must be 1 to %d", ndim, DECOMP_MAXDIM);
    return -1;
  }
  long g[DECOMP_MAXDIM];
  for (int k = 0; k < ndim; k++) g[k] = global[k];
  return targetHaloChooseDims(nranks, ndim, g, request, dims, err, errlen);
}

int decompChooseDims(int nranks, const int global[3], const int request[3], int dims[3],
                     char *err, size_t errlen) {
  return decompChooseDimsN(nranks, 3, global, request, dims, err, errlen);
}

int decompCreate(MPI_Comm comm, const int global[3], const int request[3],
                 const int periodic[3], decompInfo *d, char *err, size_t errlen) {
  return decompCreateN(comm, 3, global, request, periodic, d, err, errlen);
}

int decompCreateN(MPI_Comm comm, int ndim, const int global[], const int request[],
                  const int periodic[], decompInfo *d, char *err, size_t errlen) {
  memset(d, 0, sizeof(*d));
  d->comm = MPI_COMM_NULL;
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  if (decompChooseDimsN(nranks, ndim, global, request, d->dims, err, errlen)) return -1;
  d->ndim = ndim;
  int per[DECOMP_MAXDIM];
  for (int k = 0; k < ndim; k++) per[k] = periodic[k] ? 1 : 0;
  /* No reordering: rank r of comm stays rank r, so output from "rank 0"
   * and the choice of GPU per node keep their meaning. */
  MPI_Cart_create(comm, ndim, d->dims, per, 0, &d->comm);
  MPI_Comm_rank(d->comm, &d->rank);
  MPI_Comm_size(d->comm, &d->nranks);
  MPI_Cart_coords(d->comm, d->rank, ndim, d->coords);
  for (int k = 0; k < ndim; k++) {
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
