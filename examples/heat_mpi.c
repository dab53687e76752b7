/* heat_mpi.c -- heat_targetDP.c distributed over MPI ranks: the last step
 * of the port (diff it against heat_targetDP.c). The same global grid,
 * scheme and output; each rank holds a block of a 2-D decomposition with a
 * one-site halo, filled from its neighbours by the shared halo module
 * (targetDP_halo.h). The port:
 *   - the grid is now the rank's block plus its halo (targetHaloCreate
 *     chooses the decomposition; targetHaloGetInfo gives the block's
 *     extents and its offset in the global grid), and a site finds its
 *     global (i, j) from its local index and that offset;
 *   - every step exchanges the halo of u, overlapped with the update: the
 *     exchange starts, the sites that read no halo are updated on another
 *     stream, the exchange completes, then the rim (the sites next to the
 *     halo) is updated; both streams finish before the fields swap;
 *   - the output is gathered to rank 0, in the serial code's order, so
 *     the answer is the same file whatever the number of ranks.
 * The global boundary stays at 0 as before: boundary sites are never
 * updated, so the halo beyond a global edge (not exchanged) is never read.
 *   mpirun -np P heat_mpi [NX NY NSTEPS [OUT [PX PY]]]
 * PX x PY ranks (default 0 0: the module chooses; 0 for one axis leaves it
 * free) must split NX x NY evenly (the module's rule). OUT may be "-" (no
 * file). tests/suites/examples.sh compares it with heat_serial at 1 and 4
 * ranks. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"
#include "targetDP_halo.h"

TDP_CONST double t_alpha;

/* Which sites a launch updates: those that read no halo, or the rim. */
typedef enum { PART_INTERIOR, PART_RIM } part_t;

/* u and unew: the block with its halo, ex x ey sites (row-major); (ox, oy):
 * the global (i, j) of the block's first site; nx x ny: the global grid. */
TDP_KERNEL void step(double *unew, const double *u, int ex, int ey, int ox, int oy, int nx,
                     int ny, part_t part) {
  int nsites = ex * ey;
  TDP_TLP(baseIndex, nsites) {
    TDP_ILP(vecIndex) {
      int s = baseIndex + vecIndex, x = s / ey, y = s % ey;
      int halo = x == 0 || y == 0 || x == ex - 1 || y == ey - 1;
      int rim = x == 1 || y == 1 || x == ex - 2 || y == ey - 2;
      if (!halo && rim == (part == PART_RIM)) {
        int i = ox + x - 1, j = oy + y - 1;
        size_t is = TDP_INDEX(nsites, 1, s, 0);
        if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
          unew[is] = u[is];
        } else {
          double lap = u[TDP_INDEX(nsites, 1, s + ey, 0)] + u[TDP_INDEX(nsites, 1, s - ey, 0)]
                     + u[TDP_INDEX(nsites, 1, s + 1, 0)] + u[TDP_INDEX(nsites, 1, s - 1, 0)]
                     - 4.0 * u[is];
          unew[is] = u[is] + t_alpha * lap;
        }
      }
    }
  }
}

static void check(int rc, targetHalo *h) {
  if (rc) {
    fprintf(stderr, "heat_mpi: halo exchange: %s\n", targetHaloError(h));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nx = argc > 1 ? atoi(argv[1]) : 200, ny = argc > 2 ? atoi(argv[2]) : 150;
  int nsteps = argc > 3 ? atoi(argv[3]) : 500;
  const double alpha = 0.2, pi = 3.14159265358979323846; /* stable for alpha <= 0.25 */
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (nx < 3 || ny < 3 || nsteps < 0 || argc == 6 || argc > 7) {
    if (rank == 0)
      fprintf(stderr, "heat_mpi: need NX, NY >= 3 and NSTEPS >= 0; usage: heat_mpi [NX NY NSTEPS "
                      "[OUT [PX PY]]]\n");
    MPI_Finalize();
    return 1;
  }

  targetInit();
  targetHaloConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.ndim = 2;
  cfg.global[0] = nx;
  cfg.global[1] = ny;
  cfg.dims[0] = argc > 6 ? atoi(argv[5]) : 0;
  cfg.dims[1] = argc > 6 ? atoi(argv[6]) : 0;
  cfg.nhalo = 1;
  cfg.ncomp = 1;
  cfg.transport = TARGET_HALO_AUTO; /* periodic 0: the global edges are fixed */
  targetHalo *h = NULL;
  char err[400];
  if (targetHaloCreate(MPI_COMM_WORLD, &cfg, &h, err, sizeof(err))) {
    if (rank == 0) fprintf(stderr, "heat_mpi: %s\n", err); /* every rank fails together */
    targetFinalize();
    MPI_Finalize();
    return 1;
  }
  const targetHaloInfo *in = targetHaloGetInfo(h);
  int ex = (int) in->extents[0], ey = (int) in->extents[1];
  int ox = (int) in->offset[0], oy = (int) in->offset[1];
  int lx = ex - 2, ly = ey - 2, nsites = ex * ey;
  size_t nbytes = TDP_FIELD_SIZE(nsites, 1) * sizeof(double);
  double *u = (double *) calloc(TDP_FIELD_SIZE(nsites, 1), sizeof(double)), *t_u = NULL,
         *t_unew = NULL;
  double *block = (double *) malloc((size_t) lx * ly * sizeof(double));
  if (!u || !block) {
    fprintf(stderr, "heat_mpi: out of host memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  for (int x = 1; x <= lx; x++)
    for (int y = 1; y <= ly; y++) {
      int i = ox + x - 1, j = oy + y - 1;
      u[TDP_INDEX(nsites, 1, x * ey + y, 0)] = sin(pi * i / (nx - 1)) * sin(pi * j / (ny - 1));
    }
  targetMalloc(&t_u, nbytes);
  targetMalloc(&t_unew, nbytes);
  copyToTarget(t_u, u, nbytes);
  copyToTarget(t_unew, u, nbytes); /* its halo is never written: keep it defined */
  copyConstToTarget(&t_alpha, &alpha, sizeof(double));
  targetStream_t halo_stream = NULL, interior = NULL;
  targetStreamCreate(&halo_stream);
  targetStreamCreate(&interior);

  for (int n = 0; n < nsteps; n++) {
    check(targetHaloStart(h, t_u, halo_stream), h);
    TDP_LAUNCH_STREAM(step, nsites, interior, t_unew, t_u, ex, ey, ox, oy, nx, ny, PART_INTERIOR);
    check(targetHaloWait(h), h);
    TDP_LAUNCH_STREAM(step, nsites, halo_stream, t_unew, t_u, ex, ey, ox, oy, nx, ny, PART_RIM);
    targetStreamSynchronize(interior);
    targetStreamSynchronize(halo_stream);
    double *t = t_u;
    t_u = t_unew;
    t_unew = t;
  }
  copyFromTarget(u, t_u, nbytes);

  /* Rank 0 gathers every block (with its place) into the global grid. */
  for (int x = 0; x < lx; x++)
    for (int y = 0; y < ly; y++) block[x * ly + y] = u[TDP_INDEX(nsites, 1, (x + 1) * ey + y + 1, 0)];
  int nranks = in->nranks, mine[4] = {ox, oy, lx, ly};
  int *where = (int *) malloc(4 * (size_t) nranks * sizeof(int));
  int *counts = (int *) malloc(2 * (size_t) nranks * sizeof(int)), *displs = counts + nranks;
  double *all = (double *) malloc((size_t) nx * ny * sizeof(double));
  double *grid = (double *) malloc((size_t) nx * ny * sizeof(double));
  if (!where || !counts || !all || !grid) {
    fprintf(stderr, "heat_mpi: out of host memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Gather(mine, 4, MPI_INT, where, 4, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0, d = 0; r < nranks; r++) {
    counts[r] = where[4 * r + 2] * where[4 * r + 3];
    displs[r] = d;
    d += counts[r];
  }
  MPI_Gatherv(block, lx * ly, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int rc = 0;
  if (rank == 0) {
    for (int r = 0; r < nranks; r++) {
      const int *w = where + 4 * r;
      for (int x = 0; x < w[2]; x++)
        for (int y = 0; y < w[3]; y++)
          grid[(w[0] + x) * ny + w[1] + y] = all[displs[r] + x * w[3] + y];
    }
    double sum = 0.0;
    for (int s = 0; s < nx * ny; s++) sum += grid[s];
    printf("heat_mpi: %d x %d, %d steps, %d ranks as %dx%d, halo transport %s: sum %.15e (%s)\n",
           nx, ny, nsteps, nranks, in->dims[0], in->dims[1],
           targetHaloTransportName(in->transport), sum, targetConfigString());
    if (argc > 4 && strcmp(argv[4], "-") != 0) {
      FILE *out = fopen(argv[4], "w");
      if (!out) {
        perror(argv[4]);
        rc = 1;
      } else {
        for (int s = 0; s < nx * ny; s++) fprintf(out, "%.17g\n", grid[s]);
        fclose(out);
      }
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(where);
  free(counts);
  free(all);
  free(grid);
  free(block);
  targetStreamDestroy(halo_stream);
  targetStreamDestroy(interior);
  targetFree(t_u);
  targetFree(t_unew);
  free(u);
  targetHaloFree(h);
  targetFinalize();
  MPI_Finalize();
  return rc;
}
