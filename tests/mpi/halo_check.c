/*
 * halo_check.c -- targetDP_halo against a reference exchange, bit for bit.
 *
 *   mpirun -np N halo_check NDIM GLOBAL DIMS NHALO NCOMP PERIODIC [REPS]
 *   e.g.  mpirun -np 8 halo_check 3 12x8x10 2x2x2 1 19 111
 *
 * GLOBAL and DIMS are extents joined by 'x' (DIMS 0 = let the module
 * choose), PERIODIC one 0/1 per axis. Every interior site holds a value
 * made from its global coordinates and component; the reference is then
 * known everywhere: after an exchange each halo site must hold the value
 * of its periodic image (or, at a non-periodic end, the untouched
 * sentinel), edges and corners included, and the interior must be as it
 * was. Three exchanges, the interior changed between them; the second is
 * split (targetHaloStart, a kernel on another stream, targetHaloWait) as
 * an app overlaps it. Prints one line on rank 0 and exits 0 only if every
 * rank agrees. Bad input: every rank prints the module's message, exit 1.
 * REPS > 0: then time REPS more exchanges (after 3 untimed) and print the
 * time per exchange and the bytes each rank sent (tests/run_device.sh).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"
#include "targetDP_halo.h"

#define SENTINEL (-12345.0)

TDP_KERNEL void kAddOne(double *t_a, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) { t_a[base + v] += 1.0; }
  }
}

static int parse_list(const char *s, long *v, int n) {
  char *end = NULL;
  for (int d = 0; d < n; d++) {
    v[d] = strtol(s, &end, 10);
    if (end == s || (d < n - 1 && *end != 'x') || (d == n - 1 && *end)) return -1;
    s = end + 1;
  }
  return 0;
}

/* The value of component c at global site g (coordinates wrapped into the
 * lattice), changed by round: exact in a double. */
static double value(int ndim, const long *global, const long *g, int c, int round) {
  double v = 0.0;
  for (int d = 0; d < ndim; d++) v = v * global[d] + g[d];
  return v * 64.0 + c + 0.25 * round;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long global[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
  int ndim = argc > 1 ? atoi(argv[1]) : 0;
  if ((argc != 7 && argc != 8) || ndim < 1 || ndim > 4 || parse_list(argv[2], global, ndim) ||
      parse_list(argv[3], dl, ndim) || (int) strlen(argv[6]) != ndim) {
    if (rank == 0)
      fprintf(stderr, "usage: halo_check NDIM GLOBAL DIMS NHALO NCOMP PERIODIC, e.g. "
                      "halo_check 3 12x8x10 2x2x2 1 19 111\n");
    MPI_Finalize();
    return 2;
  }
  targetInit();
  targetHaloConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    cfg.global[d] = global[d];
    cfg.dims[d] = (int) dl[d];
    cfg.periodic[d] = argv[6][d] == '1';
  }
  cfg.nhalo = atoi(argv[4]);
  cfg.ncomp = atoi(argv[5]);
  cfg.transport = TARGET_HALO_AUTO;
  targetHalo *h = NULL;
  char err[400];
  if (targetHaloCreate(MPI_COMM_WORLD, &cfg, &h, err, sizeof(err))) {
    fprintf(stderr, "halo_check: rank %d: targetHaloCreate: %s\n", rank, err);
    targetFinalize();
    MPI_Finalize();
    return 1;
  }
  const targetHaloInfo *in = targetHaloGetInfo(h);
  const long nsites = in->nsites;
  const int ncomp = in->ncomp, nh = in->nhalo;
  size_t fsize = TDP_FIELD_SIZE(nsites, ncomp);
  double *f = (double *) malloc(fsize * sizeof(double));
  double *t_f = NULL, *t_work = NULL, *work = NULL;
  const int nwork = 100003;
  work = (double *) malloc(nwork * sizeof(double));
  targetMalloc(&t_f, fsize * sizeof(double));
  targetCalloc(&t_work, nwork * sizeof(double));
  targetStream_t halo_stream = NULL, interior = NULL;
  targetStreamCreate(&halo_stream);
  targetStreamCreate(&interior);

  long nbad = 0, nchecked = 0;
  for (int round = 0; round < 3; round++) {
    /* interior from the global function, halo the sentinel */
    for (long s = 0; s < nsites; s++) {
      long x[4], g[4], r = s;
      int inside = 1;
      for (int d = ndim - 1; d >= 0; d--) {
        x[d] = r % in->extents[d];
        r /= in->extents[d];
        g[d] = in->offset[d] + x[d] - nh;
        if (x[d] < nh || x[d] >= in->extents[d] - nh) inside = 0;
      }
      for (int c = 0; c < ncomp; c++)
        f[TDP_INDEX(nsites, ncomp, s, c)] = inside ? value(ndim, global, g, c, round) : SENTINEL;
    }
    copyToTarget(t_f, f, fsize * sizeof(double));
    int rc;
    if (round == 1) { /* overlapped, as an app does it */
      rc = targetHaloStart(h, t_f, halo_stream);
      TDP_LAUNCH_STREAM(kAddOne, nwork, interior, t_work, nwork);
      if (rc == 0) rc = targetHaloWait(h);
      targetStreamSynchronize(interior);
    } else {
      rc = targetHaloExchange(h, t_f, round ? halo_stream : TARGET_STREAM_DEFAULT);
    }
    if (rc) {
      fprintf(stderr, "halo_check: rank %d: exchange failed: %s\n", rank, targetHaloError(h));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    copyFromTarget(f, t_f, fsize * sizeof(double));
    for (long s = 0; s < nsites; s++) {
      long x[4], g[4], r = s;
      int outside = 0; /* beyond a non-periodic end: the halo keeps the sentinel */
      for (int d = ndim - 1; d >= 0; d--) {
        x[d] = r % in->extents[d];
        r /= in->extents[d];
        g[d] = in->offset[d] + x[d] - nh;
        if (g[d] < 0 || g[d] >= global[d]) {
          if (cfg.periodic[d]) g[d] = (g[d] + global[d]) % global[d];
          else outside = 1;
        }
      }
      for (int c = 0; c < ncomp; c++) {
        double want = outside ? SENTINEL : value(ndim, global, g, c, round);
        double got = f[TDP_INDEX(nsites, ncomp, s, c)];
        nchecked++;
        if (got != want && nbad++ < 3)
          fprintf(stderr, "halo_check: rank %d round %d: site %ld component %d: got %.17g, want %.17g\n",
                  rank, round, s, c, got, want);
      }
    }
  }
  copyFromTarget(work, t_work, nwork * sizeof(double));
  for (int i = 0; i < nwork; i++)
    if (work[i] != 1.0 && nbad++ < 3) fprintf(stderr, "halo_check: interior work wrong\n");

  int reps = argc == 8 ? atoi(argv[7]) : 0;
  double per = 0.0;
  for (int r = 0; r < reps + 3 && reps > 0; r++) {
    if (r == 3) {
      MPI_Barrier(MPI_COMM_WORLD);
      per = MPI_Wtime();
    }
    if (targetHaloExchange(h, t_f, halo_stream)) {
      fprintf(stderr, "halo_check: rank %d: exchange failed: %s\n", rank, targetHaloError(h));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (reps > 0) {
    double t = (MPI_Wtime() - per) / reps, tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("halo_check: timing: %.3f ms per exchange (slowest rank), %.2f MB sent per rank, "
             "%.1f GB/s, transport %s\n",
             1e3 * tmax, in->bytes_per_exchange / 1e6, in->bytes_per_exchange / tmax / 1e9,
             targetHaloTransportName(in->transport));
  }

  long tot[2] = {nbad, nchecked}, sum[2];
  MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Bcast(sum, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    char dims[64] = "";
    for (int d = 0; d < ndim; d++)
      snprintf(dims + strlen(dims), sizeof(dims) - strlen(dims), "%s%d", d ? "x" : "", in->dims[d]);
    printf("halo_check: %s: %d ranks as %s, halo %d, %d components, transport %s: %ld of %ld "
           "values wrong\n",
           sum[0] ? "FAIL" : "PASS", in->nranks, dims, nh, ncomp,
           targetHaloTransportName(in->transport), sum[0], sum[1]);
  }
  targetStreamDestroy(halo_stream);
  targetStreamDestroy(interior);
  targetFree(t_f);
  targetFree(t_work);
  free(f);
  free(work);
  targetHaloFree(h);
  targetFinalize();
  MPI_Finalize();
  return sum[0] ? 1 : 0;
}
