/*
 * devcomm_check.c -- the device communicator (targetDP_devcomm.h) against
 * exact answers, on any number of ranks:
 *
 *   mpirun -np N devcomm_check [REPS]
 *
 * sums of doubles (small integers: exact in any order) and of 64-bit
 * integers beyond 2^53 in place on target buffers, queued on a stream and
 * read back after it; messages in one group around a ring, two to the same
 * neighbour (matched in the order queued) and one to the rank itself;
 * a second communicator of the same ranks shares the first; bad arguments
 * refused with a message. Prints one line on rank 0, "devcomm_check: PASS:
 * ..." and exits 0 only when every rank agrees; with REPS > 0 it then times
 * REPS sums of one double (us per sum, the slowest rank), for the device
 * scripts. TARGETDP_DEVCOMM picks the path (bad values: every rank prints
 * the reason, exit 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"
#include "targetDP_devcomm.h"

static long nbad = 0;
#define EXPECT(cond, ...)                                   \
  do {                                                      \
    if (!(cond)) {                                          \
      if (nbad++ < 10) {                                    \
        fprintf(stderr, "devcomm_check: rank %d: ", rank);  \
        fprintf(stderr, __VA_ARGS__);                       \
        fprintf(stderr, "\n");                              \
      }                                                     \
    }                                                       \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int reps = argc > 1 ? atoi(argv[1]) : 0;
  targetInit();
  targetSetErrorAbort(0);
  char err[400];
  targetDevComm *dc = NULL;
  if (targetDevCommCreate(MPI_COMM_WORLD, &dc, err, sizeof(err))) {
    fprintf(stderr, "devcomm_check: rank %d: targetDevCommCreate: %s\n", rank, err);
    targetFinalize();
    MPI_Finalize();
    return 1;
  }
  targetStream_t s = NULL;
  targetStreamCreate(&s);

  /* sums: doubles and 64-bit integers, in place */
  enum { NS = 7 };
  double hd[NS], *td = NULL;
  long hl[NS], *tl = NULL;
  targetMalloc(&td, NS * sizeof(double));
  targetMalloc(&tl, NS * sizeof(long));
  for (int i = 0; i < NS; i++) {
    hd[i] = 1000.0 * rank + i - 0.5;
    hl[i] = (1L << 40) * (i + 1) + rank * 7L - 3;
  }
  copyToTarget(td, hd, sizeof(hd));
  copyToTarget(tl, hl, sizeof(hl));
  EXPECT(targetDevCommAllreduceSum(dc, td, NS, TDP_TYPE_DOUBLE, s) == 0, "sum of doubles: %s",
         targetDevCommError(dc));
  EXPECT(targetDevCommAllreduceSum(dc, tl, NS, TDP_TYPE_LONG, s) == 0, "sum of longs: %s",
         targetDevCommError(dc));
  /* and on the default stream (NCCL: a stream of the communicator's own) */
  EXPECT(targetDevCommAllreduceSum(dc, td + NS - 1, 1, TDP_TYPE_DOUBLE, TARGET_STREAM_DEFAULT) == 0,
         "sum on the default stream: %s", targetDevCommError(dc));
  targetStreamSynchronize(s);
  targetSynchronize();
  copyFromTarget(hd, td, sizeof(hd));
  copyFromTarget(hl, tl, sizeof(hl));
  for (int i = 0; i < NS; i++) {
    double want = 1000.0 * n * (n - 1) / 2 + n * (i - 0.5);
    if (i == NS - 1) want *= n; /* summed twice */
    const long wantl = (1L << 40) * (i + 1) * n + 7L * n * (n - 1) / 2 - 3L * n;
    EXPECT(hd[i] == want, "double sum %d: %.17g, not %.17g", i, hd[i], want);
    EXPECT(hl[i] == wantl, "long sum %d: %ld, not %ld", i, hl[i], wantl);
  }

  /* bad arguments: -1 and a message, nothing sent */
  EXPECT(targetDevCommAllreduceSum(dc, td, NS, TDP_TYPE_FLOAT, s) == -1 &&
             strstr(targetDevCommError(dc), "TDP_TYPE_DOUBLE"),
         "a float sum was not refused (%s)", targetDevCommError(dc));
  EXPECT(targetDevCommSend(dc, td, 8, n, s) == -1 && strstr(targetDevCommError(dc), "peer"),
         "a send to rank %d of %d was not refused (%s)", n, n, targetDevCommError(dc));

  /* messages: around the ring in one group, two to the next rank (in
   * order), one to the previous, one to ourselves */
  if (targetDevCommCanMessage(dc)) {
    enum { M = 1000 };
    double *tbuf = NULL, h[5 * M];
    targetMalloc(&tbuf, 5 * M * sizeof(double));
    for (int k = 0; k < 2 * M; k++) h[k] = rank * 1e6 + k; /* two messages to next */
    for (int k = 0; k < M; k++) h[2 * M + k] = -(rank * 1e6 + k) - 1; /* to self */
    for (int k = 3 * M; k < 5 * M; k++) h[k] = 0.0;
    copyToTarget(tbuf, h, sizeof(h));
    const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
    int rc = targetDevCommGroupStart(dc);
    rc = rc || targetDevCommSend(dc, tbuf, M * sizeof(double), next, s);
    rc = rc || targetDevCommRecv(dc, tbuf + 3 * M, M * sizeof(double), prev, s);
    rc = rc || targetDevCommSend(dc, tbuf + M, M * sizeof(double), next, s);
    rc = rc || targetDevCommRecv(dc, tbuf + 4 * M, M * sizeof(double), prev, s);
    rc = rc || targetDevCommGroupEnd(dc);
    EXPECT(!rc, "ring: %s", targetDevCommError(dc));
    rc = targetDevCommGroupStart(dc);
    rc = rc || targetDevCommRecv(dc, tbuf, M * sizeof(double), rank, s);
    rc = rc || targetDevCommSend(dc, tbuf + 2 * M, M * sizeof(double), rank, s);
    rc = rc || targetDevCommGroupEnd(dc);
    EXPECT(!rc, "to self: %s", targetDevCommError(dc));
    targetStreamSynchronize(s);
    copyFromTarget(h, tbuf, sizeof(h));
    for (int k = 0; k < M; k++) {
      EXPECT(h[3 * M + k] == prev * 1e6 + k, "first message from %d, value %d: %g", prev, k, h[3 * M + k]);
      EXPECT(h[4 * M + k] == prev * 1e6 + M + k, "second message from %d, value %d: %g", prev, k, h[4 * M + k]);
      EXPECT(h[k] == -(rank * 1e6 + k) - 1, "message to self, value %d: %g", k, h[k]);
    }
    targetFree(tbuf);
  } else {
    EXPECT(targetDevCommSend(dc, td, 8, rank, s) == -1 && strstr(targetDevCommError(dc), "not available"),
           "a message without NCCL on a GPU was not refused (%s)", targetDevCommError(dc));
  }

  /* a second communicator of the same ranks shares the first */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  targetDevComm *dc2 = NULL;
  EXPECT(targetDevCommCreate(dup, &dc2, err, sizeof(err)) == 0 && dc2 == dc,
         "a congruent communicator made a new device communicator");
  targetDevCommFree(dc2);

  double tsum = 0.0;
  if (reps > 0) { /* latency of a one-double sum, queued back to back */
    for (int r = 0; r < 10; r++) targetDevCommAllreduceSum(dc, td, 1, TDP_TYPE_DOUBLE, s);
    targetStreamSynchronize(s);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) targetDevCommAllreduceSum(dc, td, 1, TDP_TYPE_DOUBLE, s);
    targetStreamSynchronize(s);
    const double t = (MPI_Wtime() - t0) / reps;
    MPI_Reduce(&t, &tsum, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  }
  long all = 0;
  MPI_Allreduce(&nbad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all)
      printf("devcomm_check: FAIL: %ld wrong on %d ranks, path %s\n", all, n, targetDevCommDescribe(dc));
    else
      printf("devcomm_check: PASS: %d ranks, path %s, sums and messages exact\n", n,
             targetDevCommDescribe(dc));
    if (reps > 0)
      printf("devcomm_check: sum of one double: %.2f us (%d back to back, slowest rank), path %s\n",
             1e6 * tsum, reps, targetDevCommDescribe(dc));
  }
  targetFree(td);
  targetFree(tl);
  targetStreamDestroy(s);
  targetDevCommFree(dc);
  MPI_Comm_free(&dup);
  targetFinalize();
  MPI_Finalize();
  return all ? 1 : 0;
}
