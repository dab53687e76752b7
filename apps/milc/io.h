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

/* h_v: host vector in the build's layout. Collective. Written through
 * common/pario.h (PATH.tmp, every byte count, the sync and the size
 * checked, renamed only then; an old PATH kept on failure). 0, or -1 with
 * err naming the file, what failed and the free space, on every rank. */
int milcVectorWrite(const milcLattice *L, MPI_Comm comm, const double *h_v, int p, const char *path,
                    char *err, size_t errlen);

/* Gauge-field files: a 64-byte header, then the links of every global
 * site in lexicographic order (x fastest), 72 doubles per site (direction
 * mu, row i, column j, re/im), native byte order.
 *
 *   header: "TDPMILC1" | uint32 version (1) | uint32 doubles per site (72)
 *           | int64 global[4] | uint64 checksum | 8 bytes zero
 *
 * The checksum is a sum over every value of a hash of (position, bits)
 * modulo 2^64: order-free, so each rank adds its own part. Written as
 * PATH.tmp and renamed when complete. Reading checks the magic, version,
 * lattice, length and checksum and refuses the file with the reason (a
 * path that is not a regular file is refused before MPI_File_open, which
 * a FIFO would block). Writing: through common/pario.h, as milcVectorWrite. */
int milcGaugeWrite(const milcLattice *L, MPI_Comm comm, const double *h_U, const char *path,
                   char *err, size_t errlen);
/* h_U: interior sites filled in the build's layout (halo: milcHaloFill). */
int milcGaugeRead(const milcLattice *L, MPI_Comm comm, double *h_U, const char *path, char *err,
                  size_t errlen);

#endif
