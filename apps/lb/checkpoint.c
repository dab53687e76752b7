#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "common/fileio.h"
#include "chkformat.h"
#include "common/pario.h"
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

/* Collective: read the temporary file back and compare it with what was
 * meant to be written (the header byte for byte, this rank's block value
 * for value, and the checksum over all), so that a file the file system
 * accepted but does not hold never replaces a good checkpoint. */
static void verify(pioFile *f, const lbGeom *g, const lbChkHeader *h, const double *block,
                   double *back, size_t nblock, MPI_Comm comm) {
  MPI_File fh;
  int rc = MPI_File_open(comm, f->tmp, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) { /* collective: every rank failed alike */
    pioFail(f, "reopening it to verify failed");
    return;
  }
  if (f->rank == 0) {
    lbChkHeader hb;
    MPI_Status st;
    int n = -1;
    if (MPI_File_read_at(fh, 0, &hb, (int) sizeof(hb), MPI_BYTE, &st) != MPI_SUCCESS ||
        (MPI_Get_count(&st, MPI_BYTE, &n), n != (int) sizeof(hb)) || memcmp(&hb, h, sizeof(hb)))
      pioFail(f, "reading it back: the header differs from the one written");
  }
  const int start[3] = {g->offset[0], g->offset[1], g->offset[2]};
  if (pioReadBlock(fh, sizeof(*h), 3, g->global, g->n, start, NVEL * (int) sizeof(double), back))
    pioFail(f, "reading this rank's block back failed");
  else if (memcmp(back, block, nblock * sizeof(double)))
    pioFail(f, "reading it back: this rank's block differs from the one written");
  MPI_File_close(&fh);
  const uint64_t sum = global_sum(block_checksum(g, back), comm) + lbChkHeaderSum(h);
  if (sum != h->checksum) pioFail(f, "reading it back: the checksum does not match");
}

int lbCheckpointWrite(lbLattice *L, const decompInfo *dc, const lbParams *p, long step,
                      const char *path, char *err, size_t len) {
  const lbGeom *g = &L->g;
  const size_t nblock = (size_t) g->n[0] * g->n[1] * g->n[2] * NVEL;
  double *block = (double *) malloc(2 * nblock * sizeof(double));
  int nomem = block == NULL, anynomem = 0;
  MPI_Allreduce(&nomem, &anynomem, 1, MPI_INT, MPI_MAX, dc->comm);
  if (anynomem) {
    free(block);
    snprintf(err, len, "no memory for the checkpoint buffers of '%s'", path);
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
    h.walls[d] = p->walls[d] != 0;
  }
  h.step = step;
  h.tau = p->tau;
  h.rho = p->rho;
  h.lbcase = p->lbcase;
  h.checksum = global_sum(block_checksum(g, block), dc->comm) + lbChkHeaderSum(&h);
  pioFile f;
  int rc = pioOpenWrite(&f, dc->comm, path, err, len);
  if (rc == 0) {
    const int rec[3] = {g->offset[0], g->offset[1], g->offset[2]};
    pioWriteAt(&f, 0, &h, (int) sizeof(h));
    pioWriteBlock(&f, sizeof(h), 3, g->global, g->n, rec, NVEL * (int) sizeof(double), block);
    pioClose(&f, (long long) sizeof(h) + (long long) lbChkCount(&h) * 8);
    int failed = f.failed, anyfailed = 0;
    MPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, dc->comm);
    if (!anyfailed) verify(&f, g, &h, block, block + nblock, nblock, dc->comm);
    rc = pioCommit(&f, "checkpoint", err, len);
  }
  free(block);
  return rc;
}

static const char *walls_name(const int32_t w[3], char *buf) {
  int n = 0;
  for (int d = 0; d < 3; d++) {
    if (w[d]) buf[n++] = (char) ('x' + d);
  }
  buf[n] = '\0';
  return n ? buf : "none";
}

/* A number as short as it reads back exactly (0.8, not 0.80000000000000004). */
static const char *num(double v, char *buf, size_t len) {
  for (int digits = 6; digits <= 17; digits++) {
    snprintf(buf, len, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

/* Every parameter of the header that changes the physics, or the verdict
 * on it, must be the run's: a restart with another tau, force or walls
 * would silently be a different flow, one with another rho or case a
 * verdict on the wrong analytic answer (the Poiseuille profile scales with
 * 1/rho). Names each difference with both values. */
static int same_physics(const lbChkHeader *h, const lbParams *p, const char *path, char *err,
                        size_t len) {
  char diff[900] = "", a[40], b[40];
  size_t n = 0;
  int32_t w[3];
  for (int d = 0; d < 3; d++) w[d] = p->walls[d] != 0;
  if (h->tau != p->tau)
    n += (size_t) snprintf(diff + n, sizeof(diff) - n, "; tau: %s in the checkpoint, %s now",
                           num(h->tau, a, sizeof(a)), num(p->tau, b, sizeof(b)));
  for (int d = 0; d < 3 && n < sizeof(diff); d++) {
    if (h->force[d] != p->force[d])
      n += (size_t) snprintf(diff + n, sizeof(diff) - n,
                             "; force along %c: %s in the checkpoint, %s now", "xyz"[d],
                             num(h->force[d], a, sizeof(a)), num(p->force[d], b, sizeof(b)));
  }
  if (n < sizeof(diff) && memcmp(w, h->walls, sizeof(w)))
    n += (size_t) snprintf(diff + n, sizeof(diff) - n, "; walls: %s in the checkpoint, %s now",
                           walls_name(h->walls, a), walls_name(w, b));
  if (h->version >= 3 && n < sizeof(diff) && h->rho != p->rho)
    n += (size_t) snprintf(diff + n, sizeof(diff) - n, "; rho: %s in the checkpoint, %s now",
                           num(h->rho, a, sizeof(a)), num(p->rho, b, sizeof(b)));
  if (h->version >= 3 && n < sizeof(diff) && h->lbcase != p->lbcase)
    n += (size_t) snprintf(diff + n, sizeof(diff) - n, "; case: %s in the checkpoint, %s now",
                           lbCaseName(h->lbcase), lbCaseName(p->lbcase));
  if (n == 0) return 0;
  snprintf(err, len, "restart from '%s' with other physics%s (restart with the checkpoint's "
                     "values, or start a new run)", path, diff);
  return -1;
}

int lbCheckpointRead(lbLattice *L, const decompInfo *dc, const lbParams *p, const char *path,
                     long *step, char *err, size_t len) {
  const lbGeom *g = &L->g;
  /* Rank 0 reads the header and the length; everyone checks the same. */
  lbChkHeader h;
  long long bytes = -1;
  memset(&h, 0, sizeof(h));
  /* stat before open: a FIFO would block the open, a directory is no file */
  if (dc->rank == 0 && fioCheckRegular(path, "restart checkpoint", err, len)) bytes = -3;
  else if (dc->rank == 0) {
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
  if (bytes == -3) { /* rank 0's message says why; it is the one printed */
    if (dc->rank != 0) snprintf(err, len, "restart checkpoint '%s' is not a regular file", path);
    return -1;
  }
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
  if (same_physics(&h, p, path, err, len)) return -1;
  if (h.version < 3 && dc->rank == 0)
    printf("# checkpoint '%s' is version %u: it does not record rho and case, so this run's "
           "(rho %g, case %s) are used unchecked\n", path, h.version, p->rho,
           lbCaseName(p->lbcase));
  const size_t nblock = (size_t) g->n[0] * g->n[1] * g->n[2] * NVEL;
  double *block = (double *) malloc(nblock * sizeof(double));
  MPI_File fh;
  char path_copy[LB_PATH_MAX];
  snprintf(path_copy, sizeof(path_copy), "%s", path);
  int rc = block ? MPI_File_open(dc->comm, path_copy, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) : -1;
  if (rc == MPI_SUCCESS) {
    const int start[3] = {g->offset[0], g->offset[1], g->offset[2]};
    rc = pioReadBlock(fh, sizeof(h), 3, g->global, g->n, start, NVEL * (int) sizeof(double), block);
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
  lbLatticeInitial(L, p); /* plausible halo values; the interior comes next */
  copy_block(g, L->h_f, block, 0);
  lbLatticeUpload(L);
  free(block);
  *step = (long) h.step;
  return 0;
}
