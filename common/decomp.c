#include <stdio.h>
#include <string.h>

#include "decomp.h"

/* Halo surface of one block: what a split costs in communication. Only
 * axes that are actually split need a message. */
static double surface(const int global[3], const int dims[3]) {
  double s = 0.0, l[3];
  for (int d = 0; d < 3; d++) l[d] = (double) global[d] / dims[d];
  for (int d = 0; d < 3; d++) {
    if (dims[d] > 1) s += 2.0 * l[(d + 1) % 3] * l[(d + 2) % 3];
  }
  return s;
}

int decompChooseDims(int nranks, const int global[3], const int request[3], int dims[3],
                     char *err, size_t errlen) {
  for (int d = 0; d < 3; d++) {
    if (global[d] < 1) {
      snprintf(err, errlen, "grid extent %d along %c must be positive", global[d], "xyz"[d]);
      return -1;
    }
    if (request[d] < 0) {
      snprintf(err, errlen, "ranks along %c must be >= 0 (0 = choose), not %d", "xyz"[d],
               request[d]);
      return -1;
    }
  }
  int best[3] = {0, 0, 0};
  double best_cost = 0.0;
  int fits_ranks = 0; /* some split has the right rank count, ignoring divisibility */
  /* Every a*b*c = nranks consistent with the request; nranks is small
   * (thousands at most), so the double loop is instant. */
  for (int a = 1; a <= nranks; a++) {
    if (nranks % a || (request[0] && request[0] != a)) continue;
    for (int b = 1; b <= nranks / a; b++) {
      int c = nranks / a / b;
      if ((nranks / a) % b || (request[1] && request[1] != b) || (request[2] && request[2] != c))
        continue;
      fits_ranks = 1;
      int t[3] = {a, b, c};
      if (global[0] % a || global[1] % b || global[2] % c) continue;
      double cost = surface(global, t);
      if (!best[0] || cost < best_cost) { /* first found wins ties: deterministic */
        memcpy(best, t, sizeof(best));
        best_cost = cost;
      }
    }
  }
  if (best[0]) {
    memcpy(dims, best, sizeof(best));
    return 0;
  }
  if (!fits_ranks) {
    snprintf(err, errlen,
             "decomposition %d x %d x %d (0 = any) cannot be made from %d MPI ranks",
             request[0], request[1], request[2], nranks);
  } else if (request[0] && request[1] && request[2]) {
    snprintf(err, errlen,
             "grid %d x %d x %d does not divide evenly over %d x %d x %d ranks "
             "(each extent must be a multiple of the ranks along it)",
             global[0], global[1], global[2], request[0], request[1], request[2]);
  } else {
    snprintf(err, errlen,
             "grid %d x %d x %d cannot be split evenly over %d MPI ranks "
             "(decomposition %d x %d x %d, 0 = any): no factorisation divides every extent",
             global[0], global[1], global[2], nranks, request[0], request[1], request[2]);
  }
  return -1;
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
