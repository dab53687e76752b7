/* Parallel file output with MPI-IO: every rank writes its own block of a
 * global 3-D array in place, rank 0 writes headers, and the file appears
 * under its final name only once complete (written as NAME.tmp, then
 * renamed), so a crash never leaves a half-written checkpoint or
 * snapshot where a good one was. */
#ifndef LB_PARIO_H
#define LB_PARIO_H

#include <stddef.h>
#include <mpi.h>

typedef struct {
  MPI_File fh;
  MPI_Comm comm;
  int rank;
  int failed;       /* some MPI-IO call on this rank failed */
  char path[1024];  /* final name */
  char tmp[1040];   /* name while being written */
} lbPFile;

/* Collective. 0, or -1 with the reason in err on every rank. */
int lbPOpenWrite(lbPFile *f, MPI_Comm comm, const char *path, char *err, size_t errlen);
/* Rank 0 writes nbytes at byte offset off; other ranks do nothing. */
void lbPWriteAt(lbPFile *f, MPI_Offset off, const void *buf, int nbytes);
/* Collective: this rank's block (lsize records starting at start, in C
 * order) of a global gsize array of recbytes-byte records at byte disp. */
void lbPWriteBlock(lbPFile *f, MPI_Offset disp, const int gsize[3], const int lsize[3],
                   const int start[3], int recbytes, const void *buf);
/* Collective: close and rename into place (removed instead on failure). */
int lbPCommit(lbPFile *f, char *err, size_t errlen);

/* Collective read of a block, the mirror of lbPWriteBlock. Returns 0/-1. */
int lbPReadBlock(MPI_File fh, MPI_Offset disp, const int gsize[3], const int lsize[3],
                 const int start[3], int recbytes, void *buf);

#endif
