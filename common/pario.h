/* Parallel file output with MPI-IO that never loses a file, shared by the
 * apps (apps/lb: checkpoints, VTK; apps/milc: gauge files, solutions).
 * Every rank writes its part in place, and the file appears under its
 * final name only once complete and verified: written as NAME.tmp, every
 * write's byte count checked (a full disk can come back from MPI-IO as
 * success with fewer bytes written), synced, closed, its size checked,
 * then renamed. A failure on any rank is a failure on all: the temporary
 * file is removed, an old file of that name stays bitwise as it was, and
 * every rank gets one message naming the file, what failed, on which rank,
 * and the free space. So neither a crash nor a full disk ever leaves a
 * half-written file where a good one was.
 *
 *   pioFile f;
 *   if (pioOpenWrite(&f, comm, path, err, len)) return -1;      // collective
 *   pioWriteAt(&f, 0, &header, sizeof(header));                 // rank 0
 *   pioWriteMine(&f, off, row, nbytes);                         // any rank, its own part
 *   pioWriteBlock(&f, disp, 3, gsize, lsize, start, rec, buf);  // collective, a block
 *   pioClose(&f, expected_bytes);                               // collective
 *   return pioCommit(&f, "checkpoint", err, len);               // collective: 0 or -1 everywhere
 */
#ifndef COMMON_PARIO_H
#define COMMON_PARIO_H

#include <stddef.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  MPI_File fh;
  MPI_Comm comm;
  int rank;
  int open;         /* fh is open */
  int failed;       /* some call on this rank failed; what says which */
  char what[512];   /* this rank's first failure */
  char path[1024];  /* final name */
  char tmp[1040];   /* name while being written */
} pioFile;

/* Collective. Creates path.tmp (a stale one of a crashed run is cut to
 * nothing; one that is not a regular file, a FIFO whose open would block,
 * is refused). 0, or -1 with the reason in err on every rank. */
int pioOpenWrite(pioFile *f, MPI_Comm comm, const char *path, char *err, size_t errlen);
/* Rank 0 writes nbytes at byte offset off; other ranks do nothing. */
void pioWriteAt(pioFile *f, MPI_Offset off, const void *buf, int nbytes);
/* This rank writes nbytes at byte offset off (independent I/O: each rank
 * calls it for its own parts, as many times as it has parts). */
void pioWriteMine(pioFile *f, MPI_Offset off, const void *buf, int nbytes);
/* Collective: this rank's block (lsize records starting at start, in C
 * order) of a global ndim-dimensional (1 to 4) gsize array of
 * recbytes-byte records at byte disp. */
void pioWriteBlock(pioFile *f, MPI_Offset disp, int ndim, const int gsize[], const int lsize[],
                   const int start[], int recbytes, const void *buf);
/* Collective: sync and close the temporary file, then (rank 0) check that
 * it holds exactly `bytes` bytes. Failures are recorded, not returned. */
void pioClose(pioFile *f, long long bytes);
/* Record a failure found by the caller (e.g. a read-back that differs). */
void pioFail(pioFile *f, const char *what);
/* Collective: if no rank failed, rename into place and return 0; else
 * remove the temporary file, leave the old file as it was, and return -1
 * on every rank with err naming the file, the first failure (and its
 * rank) and the free space. kind: "checkpoint", "gauge file". */
int pioCommit(pioFile *f, const char *kind, char *err, size_t errlen);

/* Collective read of a block, the mirror of pioWriteBlock. Returns 0/-1. */
int pioReadBlock(MPI_File fh, MPI_Offset disp, int ndim, const int gsize[], const int lsize[],
                 const int start[], int recbytes, void *buf);

#ifdef __cplusplus
}
#endif
#endif
