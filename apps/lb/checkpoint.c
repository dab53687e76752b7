#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "chkformat.h"
#include "pario.h"
#include "targetDP.h"

/* This rank's interior, in file order (x, y, z, p), <-> h_f in the build's
 * layout; and the rank's share of the checksum. */
static uint64_t block_checksum(const lbGeom *g, const double *block) {
  uint64_t sum = 0;
  size_t k = 0;
  for (int x = 0; x < g->n[0]; x++) {
    for (int y = 0; y < g->n[1]; y++) {
      for (int z = 0; z < g->n[2]; z++) {
        const uint64_t site = ((uint64_t) (g->offset[0] + x) * g->global[1] + g->offset[1] + y) *
                                  g->global[2] + g->offset[2] + z;
        for (int p = 0; p < NVEL; p++, k++) sum += lbChkTerm(site * NVEL + p, block[k]);
      }
    }
  }
  return sum;
}

static void copy_block(const lbGeom *g, double *h_f, double *block, int to_block) {
  size_t k = 0;
  for (int x = 1; x <= g->n[0]; x++) {
    for (int y = 1; y <= g->n[1]; y++) {
      for (int z = 1; z <= g->n[2]; z++) {
        const int s = lbSite(g, x, y, z);
        for (int p = 0; p < NVEL; p++, k++) {
          double *v = &h_f[TDP_INDEX(g->nall, NVEL, s, p)];
          if (to_block) block[k] = *v;
          else *v = block[k];
        }
      }
    }
  }
}

static uint64_t global_sum(uint64_t local, MPI_Comm comm) {
  uint64_t total = 0; /* unsigned: MPI_SUM wraps modulo 2^64 like the checksum */
  MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  return total;
}

int lbCheckpointWrite(lbLattice *L, const decompInfo *dc, const lbParams *p, long step,
                      const char *path, char *err, size_t len) {
  const lbGeom *g = &L->g;
  const size_t nblock = (size_t) g->n[0] * g->n[1] * g->n[2] * NVEL;
  double *block = (double *) malloc(nblock * sizeof(double));
  if (!block) {
    snprintf(err, len, "no memory for the checkpoint buffer");
    return -1;
  }
  lbLatticeDownload(L);
  copy_block(g, L->h_f, block, 1);
  lbChkHeader h;
  memset(&h, 0, sizeof(h));
  memcpy(h.magic, LB_CHK_MAGIC, 8);
  h.version = LB_CHK_VERSION;
  h.endian = LB_CHK_ENDIAN;
  h.nvel = NVEL;
  for (int d = 0; d < 3; d++) {
    h.size[d] = g->global[d];
    h.force[d] = p->force[d];
  }
  h.step = step;
  h.tau = p->tau;
  h.checksum = global_sum(block_checksum(g, block), dc->comm) + lbChkHeaderSum(&h);
  lbPFile f;
  int rc = lbPOpenWrite(&f, dc->comm, path, err, len);
  if (rc == 0) {
    const int rec[3] = {g->offset[0], g->offset[1], g->offset[2]};
    lbPWriteAt(&f, 0, &h, (int) sizeof(h));
    lbPWriteBlock(&f, sizeof(h), g->global, g->n, rec, NVEL * (int) sizeof(double), block);
    rc = lbPCommit(&f, err, len);
  }
  free(block);
  return rc;
}

int lbCheckpointRead(lbLattice *L, const decompInfo *dc, const lbParams *p, const char *path,
                     long *step, char *err, size_t len) {
  const lbGeom *g = &L->g;
  /* Rank 0 reads the header and the length; everyone checks the same. */
  lbChkHeader h;
  long long bytes = -1;
  memset(&h, 0, sizeof(h));
  if (dc->rank == 0) {
    FILE *fp = fopen(path, "rb");
    if (fp) {
      fseek(fp, 0, SEEK_END);
      bytes = ftell(fp);
      fseek(fp, 0, SEEK_SET);
      if (fread(&h, sizeof(h), 1, fp) != 1) bytes = -2;
      fclose(fp);
    }
  }
  MPI_Bcast(&bytes, 1, MPI_LONG_LONG, 0, dc->comm);
  MPI_Bcast(&h, (int) sizeof(h), MPI_BYTE, 0, dc->comm);
  if (bytes == -1) {
    snprintf(err, len, "cannot open restart checkpoint '%s'", path);
    return -1;
  }
  if (bytes == -2) {
    snprintf(err, len, "checkpoint '%s' is corrupt: shorter than its header", path);
    return -1;
  }
  if (lbChkCheckHeader(&h, bytes, path, err, len)) return -1;
  for (int d = 0; d < 3; d++) {
    if (h.size[d] != g->global[d]) {
      snprintf(err, len, "checkpoint '%s' holds a %d x %d x %d grid, but size is %d x %d x %d",
               path, h.size[0], h.size[1], h.size[2], g->global[0], g->global[1], g->global[2]);
      return -1;
    }
  }
  const size_t nblock = (size_t) g->n[0] * g->n[1] * g->n[2] * NVEL;
  double *block = (double *) malloc(nblock * sizeof(double));
  MPI_File fh;
  char path_copy[LB_PATH_MAX];
  snprintf(path_copy, sizeof(path_copy), "%s", path);
  int rc = block ? MPI_File_open(dc->comm, path_copy, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) : -1;
  if (rc == MPI_SUCCESS) {
    const int start[3] = {g->offset[0], g->offset[1], g->offset[2]};
    rc = lbPReadBlock(fh, sizeof(h), g->global, g->n, start, NVEL * (int) sizeof(double), block);
    MPI_File_close(&fh);
  }
  int failed = rc != MPI_SUCCESS, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, dc->comm);
  if (any) {
    snprintf(err, len, "reading checkpoint '%s' failed", path);
    free(block);
    return -1;
  }
  const uint64_t sum = global_sum(block_checksum(g, block), dc->comm) + lbChkHeaderSum(&h);
  if (sum != h.checksum) {
    snprintf(err, len, "checkpoint '%s' is corrupt: checksum %016llx, contents give %016llx; "
                       "refusing to restart from it", path, (unsigned long long) h.checksum,
             (unsigned long long) sum);
    free(block);
    return -1;
  }
  if (dc->rank == 0 && (h.tau != p->tau || memcmp(h.force, p->force, sizeof(h.force)))) {
    printf("# note: checkpoint was written with tau %g force %g %g %g; continuing with tau %g "
           "force %g %g %g\n", h.tau, h.force[0], h.force[1], h.force[2], p->tau, p->force[0],
           p->force[1], p->force[2]);
  }
  lbLatticeInitial(L, p); /* plausible halo values; the interior comes next */
  copy_block(g, L->h_f, block, 0);
  lbLatticeUpload(L);
  free(block);
  *step = (long) h.step;
  return 0;
}
