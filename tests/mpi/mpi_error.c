/*
 * mpi_error.c -- an error in one MPI rank must bring the whole job down
 * with one readable message, not leave the other ranks waiting forever.
 *
 *   mpirun -np 2 mpi_error MODE
 *
 * MODE ok:      every rank does the same correct work; exit status 0.
 * MODE badcall: rank 1 makes a bad targetDP call (a copy larger than its
 *               allocation) in the default abort mode, while the other
 *               ranks wait for it in MPI_Allreduce.
 * MODE oob:     rank 1 runs a kernel with an out-of-bounds TDP_INDEX
 *               (a checked build: make CHECK=1), the others wait likewise.
 *
 * The layer does not use MPI: the failing rank prints the message and
 * calls exit(1) without MPI_Finalize, and it is the launcher's job to end
 * the others (mpirun does; tests/suites/reliability.sh checks it with a
 * timeout, docs/reliability.md says what other launchers need).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "targetDP.h"

#define N 64

TDP_KERNEL void kShift(double *t_f, int n, int shift) {
  TDP_TLP(base, n) {
    TDP_ILP(v) { t_f[TDP_INDEX(n, 1, base + v + shift, 0)] += 1.0; }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *mode = argc > 1 ? argv[1] : "ok";
  if (strcmp(mode, "ok") && strcmp(mode, "badcall") && strcmp(mode, "oob")) {
    if (rank == 0) fprintf(stderr, "mpi_error: MODE must be ok, badcall or oob, not '%s'\n", mode);
    MPI_Finalize();
    return 2;
  }
#ifndef TARGETDP_CHECK
  if (strcmp(mode, "oob") == 0) { /* unchecked, the planted index would corrupt the heap */
    if (rank == 0) fprintf(stderr, "mpi_error: MODE oob needs a checked build (make CHECK=1)\n");
    MPI_Finalize();
    return 2;
  }
#endif
  targetInit();
  double h[2 * N], *t = NULL;
  for (int i = 0; i < 2 * N; i++) h[i] = i;
  targetMalloc(&t, N * sizeof(double));
  copyToTarget(t, h, N * sizeof(double));
  if (rank == 1 && strcmp(mode, "badcall") == 0)
    copyToTarget(t, h, 2 * N * sizeof(double)); /* planted: twice the allocation */
  TDP_LAUNCH(kShift, N, t, N, rank == 1 && strcmp(mode, "oob") == 0); /* planted: +1 */
  targetSynchronize();
  double s = 0.0, total = 0.0;
  targetDoubleSum(&s, t, N);
  /* The other ranks wait here for rank 1: if the job survived rank 1's
   * exit they would wait forever. */
  MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double want = nranks * (N * (N - 1) / 2.0 + N);
  if (rank == 0) printf("mpi_error: %d ranks finished, sum %g (want %g)\n", nranks, total, want);
  targetFree(t);
  targetFinalize();
  MPI_Finalize();
  return total == want ? 0 : 1;
}
