/* Domain decomposition over MPI ranks (1 to 4 axes), shared by the apps.
 *
 * The global grid is split into equal blocks, one per rank, on a Cartesian
 * communicator. Only even splits are allowed: every rank then runs the
 * same kernel sizes, and an uneven split is nearly always a typo in the
 * grid size or the rank count, so it is refused with a message that says
 * what would divide. */
#ifndef COMMON_DECOMP_H
#define COMMON_DECOMP_H

#include <stddef.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DECOMP_MAXDIM 4

typedef struct {
  MPI_Comm comm;    /* Cartesian communicator (MPI_COMM_NULL until created) */
  int rank, nranks; /* in comm */
  int ndim;         /* axes: 3 from decompCreate, 1 to 4 from decompCreateN */
  int dims[DECOMP_MAXDIM];     /* ranks along x, y, z(, t) */
  int coords[DECOMP_MAXDIM];   /* this rank's position in dims */
  int periodic[DECOMP_MAXDIM]; /* 1: periodic; 0: the ends are boundaries */
  int global[DECOMP_MAXDIM];   /* global grid */
  int local[DECOMP_MAXDIM];    /* this rank's block: global / dims */
  int offset[DECOMP_MAXDIM];   /* global coordinate of the block's first site */
  int nbr_lo[DECOMP_MAXDIM];   /* rank below / above along each axis; MPI_PROC_NULL */
  int nbr_hi[DECOMP_MAXDIM];   /*   at a non-periodic end of the grid */
} decompInfo;

/* Split global[] over the ranks of comm. request[d] > 0 fixes the number of
 * ranks along axis d; 0 lets the helper choose, among the splits that
 * divide the grid, the one with the least halo surface. Returns 0, or -1
 * with a one-line reason in err (nothing is created then). Collective. */
int decompCreate(MPI_Comm comm, const int global[3], const int request[3],
                 const int periodic[3], decompInfo *d, char *err, size_t errlen);

/* Pure function behind decompCreate (no MPI): choose dims for nranks. */
int decompChooseDims(int nranks, const int global[3], const int request[3], int dims[3],
                     char *err, size_t errlen);

/* The same on ndim (1 to 4) axes: decompCreate is decompCreateN with 3.
 * The communicator is the one targetHaloCreate makes for the same dims
 * (no reordering), so coords and offsets agree with a halo's. */
int decompCreateN(MPI_Comm comm, int ndim, const int global[], const int request[],
                  const int periodic[], decompInfo *d, char *err, size_t errlen);
int decompChooseDimsN(int nranks, int ndim, const int global[], const int request[], int dims[],
                      char *err, size_t errlen);

void decompFree(decompInfo *d);

#ifdef __cplusplus
}
#endif
#endif
