/* targetDP_halo with site-list faces (targetHaloSites) against the
 * periodic images, exactly: a 4-D lattice with a halo of depth 1, faces of
 * the sites of one global parity (or both), values double or float, any
 * decomposition. Every value is a function of (global site, component),
 * so each received halo value must be its image's; every other halo site
 * (the other parity, edges, corners) must keep its sentinel, and the
 * interior must be untouched.
 *
 *   mpirun -np N halo_sites [--float] [--parity 0|1|-1] [--dims a,b,c,d]
 *                           [--size X,Y,Z,T] [--ncomp n] [--bad]
 *
 * --bad passes faces of unequal length: every rank must refuse. Prints
 * "halo_sites: PASS: ..." or "halo_sites: FAIL: ..." and exits 0 / 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"
#include "targetDP_halo.h"

static double value(long gsite, int c) { return (double) (gsite % 100000) + 0.125 * c; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int use_float = 0, parity = 0, ncomp = 6, bad = 0;
  int request[4] = {0, 0, 0, 0}, gl[4] = {4, 6, 4, 8};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--float")) use_float = 1;
    else if (!strcmp(argv[i], "--bad")) bad = 1;
    else if (!strcmp(argv[i], "--parity") && i + 1 < argc) parity = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ncomp") && i + 1 < argc) ncomp = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dims") && i + 1 < argc)
      sscanf(argv[++i], "%d,%d,%d,%d", &request[0], &request[1], &request[2], &request[3]);
    else if (!strcmp(argv[i], "--size") && i + 1 < argc)
      sscanf(argv[++i], "%d,%d,%d,%d", &gl[0], &gl[1], &gl[2], &gl[3]);
    else {
      if (rank == 0) fprintf(stderr, "halo_sites: FAIL: unknown argument '%s'\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  targetInit();
  const size_t esize = use_float ? sizeof(float) : sizeof(double);
  long global[4] = {gl[0], gl[1], gl[2], gl[3]};
  int dims[4];
  char err[512];
  if (targetHaloChooseDims(nranks, 4, global, request, dims, err, sizeof(err))) {
    fprintf(stderr, "halo_sites: FAIL: %s\n", err);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* The coordinates targetHaloCreate will give this rank (no reordering). */
  const int per[4] = {1, 1, 1, 1};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 4, dims, per, 0, &cart);
  int coords[4];
  MPI_Cart_coords(cart, rank, 4, coords);
  MPI_Comm_free(&cart);
  long n[4], e[4], off[4], nall = 1;
  for (int d = 0; d < 4; d++) {
    n[d] = global[d] / dims[d];
    e[d] = n[d] + 2;
    off[d] = coords[d] * n[d];
    nall *= e[d];
  }
#define IDX(x) ((x)[0] + e[0] * ((x)[1] + e[1] * ((x)[2] + e[2] * (x)[3])))
  targetHaloSites sites;
  memset(&sites, 0, sizeof(sites));
  sites.nall = nall;
  sites.elem_size = esize;
  long *lists[4][2][2];
  for (int d = 0; d < 4; d++) {
    long nface = nall / e[d];
    for (int s = 0; s < 2; s++) {
      long cnt[2] = {0, 0};
      for (int k = 0; k < 2; k++) lists[d][s][k] = (long *) malloc((nface + 1) * sizeof(long));
      long x[4];
      for (x[3] = 1; x[3] <= n[3]; x[3]++)
        for (x[2] = 1; x[2] <= n[2]; x[2]++)
          for (x[1] = 1; x[1] <= n[1]; x[1]++)
            for (x[0] = 1; x[0] <= n[0]; x[0]++) {
              if (x[d] != 1) continue;
              for (int k = 0; k < 2; k++) {
                long y[4] = {x[0], x[1], x[2], x[3]};
                y[d] = k ? (s ? n[d] + 1 : 0) : (s ? n[d] : 1);
                long q = 0;
                for (int a = 0; a < 4; a++) q += off[a] + y[a] - 1 + global[a];
                if (parity < 0 || (q & 1) == parity) lists[d][s][k][cnt[k]++] = IDX(y);
              }
            }
      sites.n[d][s] = cnt[0] < cnt[1] ? cnt[0] : cnt[1];
      if (bad && d == 1 && s == 1 && sites.n[d][s] > 0) sites.n[d][s]--;
      sites.send[d][s] = lists[d][s][0];
      sites.recv[d][s] = lists[d][s][1];
    }
  }
  targetHaloConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.ndim = 4;
  for (int d = 0; d < 4; d++) {
    cfg.global[d] = global[d];
    cfg.dims[d] = dims[d];
    cfg.periodic[d] = 1;
  }
  cfg.nhalo = 1;
  cfg.ncomp = ncomp;
  cfg.sites = &sites;
  targetHalo *h = NULL;
  if (targetHaloCreate(MPI_COMM_WORLD, &cfg, &h, err, sizeof(err))) {
    fprintf(stderr, "halo_sites: targetHaloCreate: %s\n", err);
    MPI_Finalize();
    return 1;
  }
  if (bad) {
    fprintf(stderr, "halo_sites: FAIL: unequal faces were accepted\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* Interior: value(global site); halo: sentinel -1. */
  const size_t nval = TDP_FIELD_SIZE(nall, ncomp);
  double *ref = (double *) malloc(nval * sizeof(double));
  void *host = malloc(nval * esize), *t_f = NULL;
  long x[4];
  for (x[3] = 0; x[3] < e[3]; x[3]++)
    for (x[2] = 0; x[2] < e[2]; x[2]++)
      for (x[1] = 0; x[1] < e[1]; x[1]++)
        for (x[0] = 0; x[0] < e[0]; x[0]++) {
          int inside = 1, outside = 0, q = 0;
          long g = 0;
          for (int a = 3; a >= 0; a--) {
            long c = (off[a] + x[a] - 1 + global[a]) % global[a];
            g = g * global[a] + c;
            q += (int) c;
            inside = inside && x[a] >= 1 && x[a] <= n[a];
            outside += x[a] < 1 || x[a] > n[a];
          }
          /* after the exchange: interior and the face halo sites of the
           * parity exchanged hold value(g); the rest keep -1 */
          const int filled = inside || (outside == 1 && (parity < 0 || (q & 1) == parity));
          for (int c = 0; c < ncomp; c++) {
            const size_t i = TDP_INDEX(nall, ncomp, IDX(x), c);
            ref[i] = filled ? value(g, c) : -1.0;
            const double v0 = inside ? value(g, c) : -1.0;
            if (use_float) ((float *) host)[i] = (float) v0;
            else ((double *) host)[i] = v0;
          }
        }
  targetMalloc(&t_f, nval * esize);
  copyToTarget(t_f, host, nval * esize);
  int rc = 0;
  for (int rep = 0; rep < 2 && !rc; rep++) /* twice: buffers and requests reused */
    rc = targetHaloStartSites(h, t_f, TARGET_STREAM_DEFAULT) || targetHaloWait(h);
  /* and queued (targetHaloExchangeAsync: no host wait where device-ordered) */
  if (!rc) rc = targetHaloExchangeAsync(h, t_f, TARGET_STREAM_DEFAULT) || targetSynchronize();
  if (rc) fprintf(stderr, "halo_sites: FAIL: %s\n", targetHaloError(h));
  copyFromTarget(host, t_f, nval * esize);
  long wrong = 0, checked = 0;
  for (size_t i = 0; i < nval && !rc; i++) {
    const double v = use_float ? ((float *) host)[i] : ((double *) host)[i];
    if (v != (use_float ? (double) (float) ref[i] : ref[i])) wrong++;
    if (ref[i] != -1.0) checked++;
  }
  long tot[2] = {wrong + (rc != 0), checked}, all[2];
  MPI_Allreduce(tot, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const targetHaloInfo *in = targetHaloGetInfo(h);
  if (rank == 0) {
    printf("halo_sites: %s: %d ranks as %dx%dx%dx%d, parity %d, %d components of %s, transport "
           "%s: %ld of %ld values wrong\n",
           all[0] ? "FAIL" : "PASS", nranks, dims[0], dims[1], dims[2], dims[3], parity, ncomp,
           use_float ? "float" : "double", targetHaloTransportName(in->transport), all[0],
           all[1]);
  }
  targetHaloFree(h);
  targetFree(t_f);
  free(host);
  free(ref);
  for (int d = 0; d < 4; d++)
    for (int s = 0; s < 2; s++)
      for (int k = 0; k < 2; k++) free(lists[d][s][k]);
  targetFinalize();
  MPI_Finalize();
  return all[0] ? 1 : 0;
}
