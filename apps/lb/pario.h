/* Parallel file output with MPI-IO: every rank writes its own block of a
 * global 3-D array in place, rank 0 writes headers, and the file appears
 * under its final name only once complete and verified (written as
 * NAME.tmp, its byte count checked on every write, synced, closed, its
 * size checked, then renamed), so neither a crash nor a full disk ever
 * leaves a half-written checkpoint or snapshot where a good one was. */
#ifndef LB_PARIO_H
#define LB_PARIO_H

#include <stddef.h>
#include <mpi.h>

typedef struct {
  MPI_File fh;
  MPI_Comm comm;
  int rank;
  int open;         /* fh is open */
  int failed;       /* some call on this rank failed; what says which */
  char what[512];   /* this rank's first failure */
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
/* Collective: sync and close the temporary file, then (rank 0) check that
 * it holds exactly `bytes` bytes. Failures are recorded, not returned. */
void lbPClose(lbPFile *f, long long bytes);
/* Record a failure found by the caller (e.g. a read-back that differs). */
void lbPFail(lbPFile *f, const char *what);
/* Collective: if no rank failed, rename into place and return 0; else
 * remove the temporary file, leave the old file as it was, and return -1
 * on every rank with err naming the file, the first failure (and its
 * rank) and the free space. kind: "checkpoint", "VTK snapshot". */
int lbPCommit(lbPFile *f, const char *kind, char *err, size_t errlen);

/* Collective read of a block, the mirror of lbPWriteBlock. Returns 0/-1. */
int lbPReadBlock(MPI_File fh, MPI_Offset disp, const int gsize[3], const int lsize[3],
                 const int start[3], int recbytes, void *buf);

#endif
