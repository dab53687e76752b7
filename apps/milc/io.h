/* Vectors to and from files in a layout- and decomposition-independent
 * order: the sites of one parity in global lexicographic order (x
 * fastest) halved, 6 doubles (3 complex colours) each, native byte order.
 * Written with MPI-IO, one x-row of the rank's block per call (the sites
 * of one parity in a row are consecutive in that order). */
#ifndef MILC_IO_H
#define MILC_IO_H

#include <mpi.h>
#include <stddef.h>

#include "lattice.h"

/* h_v: host vector in the build's layout. Collective. 0, or -1 + err. */
int milcVectorWrite(const milcLattice *L, MPI_Comm comm, const double *h_v, int p,
                    const char *path, char *err, size_t errlen);

#endif
