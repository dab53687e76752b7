/* targetDP_halo misuse that must be refused (issue 25 item 6), on 2 or
 * more ranks:
 *
 *   mpirun -np 2 halo_misuse MODE
 *
 * (2 ranks as 2x1x1, more as the module chooses.)
 * Rank 1 (and only it) passes a configuration that differs from the
 * others' in one field; targetHaloCreate must refuse it on every rank,
 * with one message naming the field, and return: every rank prints
 * "halo_misuse: rank R: targetHaloCreate: <message>" and exits 1. MODE:
 *   extents    another global lattice whose faces have the same size (8x6x4
 *              against 8x4x6 over 2x1x1: main exchanged wrong values, rc 0)
 *   ncomp      2 components against 1 (main: aborted inside MPI, no message)
 *   nhalo      a halo of 2 against 1 (the same)
 *   periodic   x closed against periodic (main: the other rank waited forever)
 *   dims       ranks 1x2x1 against 2x1x1 (another Cartesian grid)
 *   ndim       a 4-D lattice against 3-D
 *   type       site lists of floats against doubles
 *   pack       the caller's pack/unpack on one rank only
 *   none       every rank the same: the exchange runs (the control), exit 0
 * and one misuse of a handle, on every rank, in the default (abort) mode:
 *   freed      targetHaloExchange after targetHaloFree: must stop with
 *              "targetHaloExchange failed at halo_misuse.c:<line>" naming a
 *              halo that is not live (main used freed memory)
 *   freed-wait, freed-info, freed-free   targetHaloWait, targetHaloGetInfo,
 *              a second targetHaloFree of a freed handle: the same */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"
#include "targetDP_halo.h"

static int pack_fn(void *ctx, int dim, int side, double *t_dst, const double *t_src,
                   targetStream_t stream) {
  (void) ctx, (void) dim, (void) side, (void) t_dst, (void) t_src, (void) stream;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *mode = argc > 1 ? argv[1] : "none";
  targetInit();
  targetHaloConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.ndim = 3;
  cfg.global[0] = 8, cfg.global[1] = 6, cfg.global[2] = 4;
  if (nranks == 2) cfg.dims[0] = 2, cfg.dims[1] = 1, cfg.dims[2] = 1; /* else: chosen */
  cfg.periodic[0] = cfg.periodic[1] = cfg.periodic[2] = 1;
  cfg.nhalo = 1;
  cfg.ncomp = 1;
  long list[1] = {0};
  targetHaloSites sites;
  memset(&sites, 0, sizeof(sites));
  if (!strcmp(mode, "type")) {
    sites.nall = 8 * 6 * 4;
    sites.elem_size = sizeof(double);
    for (int d = 0; d < 3; d++)
      for (int s = 0; s < 2; s++) {
        sites.n[d][s] = 1;
        sites.send[d][s] = sites.recv[d][s] = list;
      }
    cfg.sites = &sites;
  }
  if (rank == 1) {
    if (!strcmp(mode, "extents")) cfg.global[1] = 4, cfg.global[2] = 6;
    else if (!strcmp(mode, "ncomp")) cfg.ncomp = 2;
    else if (!strcmp(mode, "nhalo")) cfg.nhalo = 2;
    else if (!strcmp(mode, "periodic")) cfg.periodic[0] = 0;
    else if (!strcmp(mode, "dims")) cfg.dims[0] = 1, cfg.dims[1] = 2;
    else if (!strcmp(mode, "ndim")) cfg.ndim = 4, cfg.global[3] = 2, cfg.dims[3] = 1,
                                    cfg.periodic[3] = 1;
    else if (!strcmp(mode, "type")) sites.elem_size = sizeof(float);
    else if (!strcmp(mode, "pack")) {
      cfg.pack = cfg.unpack = pack_fn;
      for (int d = 0; d < 3; d++) cfg.face_doubles[d] = 48;
    }
  }
  targetHalo *h = NULL;
  char err[400];
  if (targetHaloCreate(MPI_COMM_WORLD, &cfg, &h, err, sizeof(err))) {
    fprintf(stderr, "halo_misuse: rank %d: targetHaloCreate: %s\n", rank, err);
    targetFinalize();
    MPI_Finalize();
    return 1;
  }
  const targetHaloInfo *in = targetHaloGetInfo(h);
  double *t_f = NULL;
  targetCalloc(&t_f, TDP_FIELD_SIZE(in->nsites, in->ncomp) * sizeof(double));
  int rc = targetHaloExchange(h, t_f, TARGET_STREAM_DEFAULT);
  targetHaloFree(h);
  if (!strcmp(mode, "freed")) {
    rc = targetHaloExchange(h, t_f, TARGET_STREAM_DEFAULT); /* must not return */
    fprintf(stderr, "halo_misuse: rank %d: targetHaloExchange after targetHaloFree returned %d\n",
            rank, rc);
  } else if (!strcmp(mode, "freed-wait")) {
    rc = targetHaloWait(h);
    fprintf(stderr, "halo_misuse: rank %d: targetHaloWait after targetHaloFree returned %d\n",
            rank, rc);
  } else if (!strcmp(mode, "freed-info")) {
    in = targetHaloGetInfo(h);
    fprintf(stderr, "halo_misuse: rank %d: targetHaloGetInfo after targetHaloFree returned %p\n",
            rank, (const void *) in);
  } else if (!strcmp(mode, "freed-free")) {
    targetHaloFree(h);
    fprintf(stderr, "halo_misuse: rank %d: a second targetHaloFree returned\n", rank);
  } else {
    targetFree(t_f);
    targetFinalize();
    if (rank == 0) printf("halo_misuse: %s: exchange rc %d\n", mode, rc);
    MPI_Finalize();
    return rc ? 1 : 0;
  }
  MPI_Finalize();
  return 3; /* a use of a freed halo came back */
}
