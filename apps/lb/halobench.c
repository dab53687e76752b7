/* lbhalo: the cost of lb's halo exchange alone (issue 11), without the
 * update and without the skew between ranks that a step adds: every
 * exchange starts after a barrier. Prints, per exchange, the module's
 * phases (pack, transfer, unpack, self) and the wall time (the slowest
 * rank's means over the reps), the median over the reps of the exchange's
 * wall time (each rep's slowest rank), then the
 * throughput of each face kernel on its own (pack, unpack, self copy of
 * face d, side s; bytes = the 5 crossing distributions read + written).
 *
 *   mpirun -np N build/<config>/lbhalo [--size 128x64x64] [--decomposition 2,1,1]
 *                                      [--reps 200] [--flush 64]
 * A field of 19 distributions on the block with halo, in the build's
 * layout, as lb allocates it (apps/lb/lattice.c). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/decomp.h"
#include "common/timer.h"
#include "halo.h"
#include "kernels.h"
#include "lattice.h"

typedef struct {
  int size[3], req[3];
  long reps, flush_mb;
} options;

/* The parser of the apps (common/cli.h): strict numbers, unknown options
 * and conflicts refused. */
static const cliKey keys[] = {
    {"size", CLI_INTS, offsetof(options, size), 3, 0, 0, 0, NULL,
     "NX,NY,NZ  global grid (default 64^3 per rank along x)"},
    {"decomposition", CLI_INTS, offsetof(options, req), 3, 0, 0, 0, NULL,
     "PX,PY,PZ  MPI ranks per axis (0: choose)"},
    {"reps", CLI_LONG, offsetof(options, reps), 1, 0, 1, 1000000, NULL, "N  timed exchanges"},
    {"flush", CLI_LONG, offsetof(options, flush_mb), 1, 0, 0, 1 << 20, NULL,
     "MB  swept before each timed call (0: warm caches)"},
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  options o = {{64, 64, 64}, {0, 0, 0}, 200, 64};
  int given[4];
  char err[1200];
  const int nkeys = (int) (sizeof(keys) / sizeof(keys[0]));
  const int rc = cliLoad(argc, argv, keys, nkeys, NULL, &o, given, err, sizeof(err));
  if (rc == 1 && !wrank) cliUsage(stdout, keys, nkeys);
  if (rc < 0 && !wrank) fprintf(stderr, "lbhalo: error: %s\n", err);
  if (rc) {
    MPI_Finalize();
    return rc < 0 ? 2 : 0;
  }
  int *size = o.size, *req = o.req;
  const int reps = (int) o.reps;
  const long flush_mb = o.flush_mb;
  const int given_size = given[0];
  if (!given_size) size[0] = 64 * nranks; /* 64^3 per rank along x */
  const long long ext[3] = {size[0], size[1], size[2]};
  long long sites = 0;
  if (size[0] < 1 || size[1] < 1 || size[2] < 1 || cliProduct(ext, 3, 2000000000LL, &sites)) {
    char n[64];
    if (!wrank)
      fprintf(stderr, "lbhalo: error: size %d x %d x %d: each extent >= 1 and at most 2e9 sites "
                      "(it has %s)\n", size[0], size[1], size[2],
              cliProductText(ext, 3, n, sizeof(n)));
    MPI_Finalize();
    return 2;
  }
  const int periodic[3] = {1, 1, 1};
  decompInfo dc;
  if (decompCreate(MPI_COMM_WORLD, size, req, periodic, &dc, err, sizeof(err))) {
    if (!wrank) fprintf(stderr, "lbhalo: %s\n", err);
    MPI_Finalize();
    return 2;
  }
  targetInit();
  lbLattice L;
  lbHalo halo;
  if (lbLatticeCreate(&L, &dc)) MPI_Abort(dc.comm, 1);
  if (lbHaloCreate(&halo, &L.g, &dc, err, sizeof(err))) {
    if (!dc.rank) fprintf(stderr, "lbhalo: %s\n", err);
    MPI_Abort(dc.comm, 2);
  }
  const double noforce[3] = {0.0, 0.0, 0.0};
  lbKernelsSetup(&L.g, 1.0, noforce);
  if (dc.rank == 0)
    printf("# lbhalo: %s; %d rank(s) as %dx%dx%d, block %dx%dx%d, transport %s, %d reps, "
           "%ld MB flushed before each\n",
           targetConfigString(), dc.nranks, dc.dims[0], dc.dims[1], dc.dims[2], dc.local[0],
           dc.local[1], dc.local[2], lbHaloPath(&halo), reps, flush_mb);

  /* Between steps lb's update streams 2 fields through the caches: the
   * faces then come from memory. A sweep of flush_mb MB before each timed
   * call does the same (--flush 0: warm caches). */
  const size_t nflush = (size_t) flush_mb * (1 << 20) / sizeof(double);
  double *flush = nflush ? (double *) calloc(nflush, sizeof(double)) : NULL;
#define FLUSH()                                                 \
  do {                                                          \
    for (size_t q_ = 0; q_ < nflush; q_ += 8) flush[q_] += 1.0; \
  } while (0)
  /* the exchange, each after a barrier */
  for (int w = 0; w < 5; w++) lbHaloExchange(&halo, L.t_f, err, sizeof(err));
  targetHaloResetTimes(halo.h);
  double wall = 0.0;
  /* each exchange's time, for the median of the slowest rank's (a shared
   * or busy machine stretches a few exchanges by milliseconds: the mean
   * follows them, the median does not) */
  double *each = (double *) calloc(reps > 0 ? reps : 1, sizeof(double));
  double *slow = (double *) calloc(reps > 0 ? reps : 1, sizeof(double));
  for (int r = 0; r < reps; r++) {
    FLUSH();
    MPI_Barrier(dc.comm);
    double t0 = timerNow();
    if (lbHaloExchange(&halo, L.t_f, err, sizeof(err))) {
      fprintf(stderr, "lbhalo: %s\n", err);
      MPI_Abort(dc.comm, 1);
    }
    each[r] = timerNow() - t0;
    wall += each[r];
  }
  MPI_Reduce(each, slow, reps, MPI_DOUBLE, MPI_MAX, 0, dc.comm);
  double median = 0.0;
  if (dc.rank == 0 && reps > 0) {
    for (int i = 1; i < reps; i++) /* insertion sort: a few hundred values */
      for (int j = i; j > 0 && slow[j - 1] > slow[j]; j--) {
        const double t = slow[j];
        slow[j] = slow[j - 1];
        slow[j - 1] = t;
      }
    median = reps % 2 ? slow[reps / 2] : 0.5 * (slow[reps / 2 - 1] + slow[reps / 2]);
  }
  free(each);
  free(slow);
  targetHaloTimes t;
  targetHaloGetTimes(halo.h, &t);
  double mine[5] = {wall, t.pack_s, t.transfer_s, t.unpack_s, t.self_s}, worst[5];
  MPI_Reduce(mine, worst, 5, MPI_DOUBLE, MPI_MAX, 0, dc.comm);
  if (dc.rank == 0)
    printf("exchange ms (slowest rank): total %.4f  pack %.4f  transfer %.4f  unpack %.4f  "
           "self %.4f  (%.3f MB sent per rank)  median %.4f\n",
           1e3 * worst[0] / reps, 1e3 * worst[1] / reps, 1e3 * worst[2] / reps,
           1e3 * worst[3] / reps, 1e3 * worst[4] / reps, halo.bytes * 1e-6, 1e3 * median);

  /* each face kernel alone, rank 0's times */
  targetStream_t s;
  targetStreamCreate(&s);
  double *t_buf;
  size_t maxface = 0;
  for (int d = 0; d < 3; d++)
    if ((size_t) lbPlaneSites(&L.g, d) > maxface) maxface = lbPlaneSites(&L.g, d);
  targetMalloc(&t_buf, maxface * LB_NCROSS * sizeof(double));
  const char *what[3] = {"pack", "unpack", "self"};
  for (int d = 0; d < 3; d++) {
    for (int side = 0; side < 2; side++) {
      double us[3];
      for (int k = 0; k < 3; k++) {
        double best = 1e30;
        for (int r = 0; r < reps; r++) {
          FLUSH();
          double t0 = timerNow();
          if (k < 2) lbFace(&L.g, d, side, k, L.t_f, t_buf, s);
          else lbFaceSelf(&L.g, d, side, L.t_f, s);
          targetStreamSynchronize(s);
          double dt = timerNow() - t0;
          if (dt < best) best = dt;
        }
        us[k] = 1e6 * best;
      }
      const double bytes = 2.0 * LB_NCROSS * lbPlaneSites(&L.g, d) * sizeof(double);
      if (dc.rank == 0) {
        printf("face %c side %d (%d sites):", "xyz"[d], side, lbPlaneSites(&L.g, d));
        for (int k = 0; k < 3; k++)
          printf("  %s %7.1f us %5.1f GB/s", what[k], us[k], bytes / us[k] * 1e-3);
        printf("\n");
      }
    }
  }
  targetFree(t_buf);
  free(flush);
  targetStreamDestroy(s);
  lbHaloFree(&halo);
  lbLatticeFree(&L);
  decompFree(&dc);
  MPI_Finalize();
  return 0;
}
