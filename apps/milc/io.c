#include <stdio.h>
#include <stdlib.h>

#include "common/fileio.h"
#include "common/pario.h"
#include "io.h"

int milcVectorWrite(const milcLattice *L, MPI_Comm comm, const double *h_v, int p, const char *path,
                    char *err, size_t errlen) {
  const milcGeom *g = &L->g;
  pioFile f;
  if (pioOpenWrite(&f, comm, path, err, errlen)) return -1;
  const int nrow = g->n[0] / 2;
  double *row = (double *) malloc((size_t) nrow * MILC_NV * sizeof(double));
  if (!row) pioFail(&f, "no memory for a row");
  /* Rows in the order of the half index h: nrow consecutive h per row. */
  for (int h0 = 0; row && h0 < g->nhalf; h0 += nrow) {
    int x[4], s;
    for (int k = 0; k < nrow; k++) {
      const int site = milcSite(g, p, h0 + k, &s, x);
      for (int c = 0; c < MILC_NV; c++)
        row[k * MILC_NV + c] = h_v[TDP_INDEX(g->nall, MILC_NV, site, c)];
    }
    milcSite(g, p, h0, &s, x);
    const long gi = milcGlobalIndex(L->global, g, x);
    const MPI_Offset off = (MPI_Offset) (gi / 2) * MILC_NV * sizeof(double);
    pioWriteMine(&f, off, row, nrow * MILC_NV * (int) sizeof(double));
  }
  free(row);
  long long sites = 1;
  for (int d = 0; d < 4; d++) sites *= L->global[d]; /* checked in 64 bits by main */
  pioClose(&f, sites / 2 * MILC_NV * (long long) sizeof(double));
  return pioCommit(&f, "solution", err, errlen);
}

/* ---------------------------------------------------------------- gauge files */

#include <stdint.h>
#include <string.h>

#define MILC_GAUGE_MAGIC "TDPMILC1"
#define MILC_GAUGE_VERSION 1u
#define MILC_GAUGE_HEADER 64

typedef struct {
  char magic[8];
  uint32_t version, per_site;
  int64_t global[4];
  uint64_t checksum;
  uint64_t zero;
} milcGaugeHeader;

typedef char milcGaugeHeaderIs64Bytes_[sizeof(milcGaugeHeader) == MILC_GAUGE_HEADER ? 1 : -1];

static uint64_t hash_term(uint64_t pos, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  uint64_t z = bits ^ (pos * 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* The file is read and written by x-rows of the rank's block, which are
 * contiguous in the file: the global index of a row's first site, and the
 * storage index of its site x. */
static long row_start(const milcLattice *L, int y, int z, int t) {
  const int x[4] = {0, y, z, t};
  return milcGlobalIndex(L->global, &L->g, x);
}

static int row_site(const milcLattice *L, int x, int y, int z, int t) {
  const int xl[4] = {x, y, z, t};
  return milcSiteAt(&L->g, xl);
}

int milcGaugeWrite(const milcLattice *L, MPI_Comm comm, const double *h_U, const char *path,
                   char *err, size_t errlen) {
  const milcGeom *g = &L->g;
  const int n0 = g->n[0];
  pioFile f;
  if (pioOpenWrite(&f, comm, path, err, errlen)) return -1;
  double *row = (double *) malloc((size_t) n0 * MILC_NL * sizeof(double));
  if (!row) pioFail(&f, "no memory for a row");
  uint64_t sum = 0;
  for (int t = 0; t < g->n[3]; t++)
    for (int z = 0; z < g->n[2]; z++)
      for (int y = 0; row && y < g->n[1]; y++) {
        const long gi0 = row_start(L, y, z, t);
        for (int x = 0; x < n0; x++) {
          const int site = row_site(L, x, y, z, t);
          for (int c = 0; c < MILC_NL; c++) {
            const double v = h_U[TDP_INDEX(g->nall, MILC_NL, site, c)];
            row[x * MILC_NL + c] = v;
            sum += hash_term((uint64_t) (gi0 + x) * MILC_NL + c, v);
          }
        }
        const MPI_Offset off = MILC_GAUGE_HEADER + (MPI_Offset) gi0 * MILC_NL * sizeof(double);
        pioWriteMine(&f, off, row, n0 * MILC_NL * (int) sizeof(double));
      }
  free(row);
  uint64_t total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  milcGaugeHeader h;
  memset(&h, 0, sizeof(h));
  memcpy(h.magic, MILC_GAUGE_MAGIC, 8);
  h.version = MILC_GAUGE_VERSION;
  h.per_site = MILC_NL;
  for (int d = 0; d < 4; d++) h.global[d] = L->global[d];
  h.checksum = total;
  pioWriteAt(&f, 0, &h, (int) sizeof(h));
  long long sites = 1;
  for (int d = 0; d < 4; d++) sites *= L->global[d]; /* checked in 64 bits by main */
  pioClose(&f, MILC_GAUGE_HEADER + sites * MILC_NL * (long long) sizeof(double));
  return pioCommit(&f, "gauge file", err, errlen);
}

int milcGaugeRead(const milcLattice *L, MPI_Comm comm, double *h_U, const char *path, char *err,
                  size_t errlen) {
  const milcGeom *g = &L->g;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  /* stat before the open: MPI_File_open of a FIFO blocks every rank */
  char why0[600] = "";
  if (rank == 0) fioCheckRegular(path, "gauge file", why0, sizeof(why0));
  MPI_Bcast(why0, (int) sizeof(why0), MPI_CHAR, 0, comm);
  if (why0[0]) {
    snprintf(err, errlen, "%s", why0);
    return -1;
  }
  MPI_File fh;
  char path_copy[1100];
  snprintf(path_copy, sizeof(path_copy), "%s", path);
  if (MPI_File_open(comm, path_copy, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
    snprintf(err, errlen, "cannot read gauge file '%s'", path);
    return -1;
  }
  /* Rank 0 checks the header and length; everyone gets its verdict. */
  milcGaugeHeader h;
  memset(&h, 0, sizeof(h));
  char why[400] = "";
  MPI_Offset size = 0;
  MPI_File_get_size(fh, &size);
  long long sites = 1;
  for (int d = 0; d < 4; d++) sites *= L->global[d]; /* checked in 64 bits by main */
  const long long want = MILC_GAUGE_HEADER + sites * MILC_NL * (long long) sizeof(double);
  if (rank == 0) {
    MPI_Status st;
    int got = 0;
    if (size >= MILC_GAUGE_HEADER &&
        MPI_File_read_at(fh, 0, &h, (int) sizeof(h), MPI_BYTE, &st) == MPI_SUCCESS)
      MPI_Get_count(&st, MPI_BYTE, &got);
    if (got != (int) sizeof(h) || memcmp(h.magic, MILC_GAUGE_MAGIC, 8) != 0) {
      snprintf(why, sizeof(why), "'%s' is not a milc gauge file (no %s header)", path,
               MILC_GAUGE_MAGIC);
    } else if (h.version != MILC_GAUGE_VERSION || h.per_site != MILC_NL) {
      snprintf(why, sizeof(why),
               "gauge file '%s' has version %u with %u doubles per site; "
               "this program reads version %u with %d",
               path, h.version, h.per_site, MILC_GAUGE_VERSION, MILC_NL);
    } else if (h.global[0] != L->global[0] || h.global[1] != L->global[1] ||
               h.global[2] != L->global[2] || h.global[3] != L->global[3]) {
      snprintf(why, sizeof(why),
               "gauge file '%s' holds a %lld x %lld x %lld x %lld lattice, "
               "not %d x %d x %d x %d",
               path, (long long) h.global[0], (long long) h.global[1], (long long) h.global[2],
               (long long) h.global[3], L->global[0], L->global[1], L->global[2], L->global[3]);
    } else if ((long long) size != want) {
      snprintf(why, sizeof(why), "gauge file '%s' is %s: %lld bytes, the lattice needs %lld",
               path, (long long) size < want ? "truncated" : "too long", (long long) size, want);
    }
  }
  MPI_Bcast(why, sizeof(why), MPI_CHAR, 0, comm);
  MPI_Bcast(&h, sizeof(h), MPI_BYTE, 0, comm);
  if (why[0]) {
    MPI_File_close(&fh);
    snprintf(err, errlen, "%s", why);
    return -1;
  }
  const int n0 = g->n[0];
  double *row = (double *) malloc((size_t) n0 * MILC_NL * sizeof(double));
  int bad = row == NULL;
  uint64_t sum = 0;
  for (int t = 0; t < g->n[3]; t++)
    for (int z = 0; z < g->n[2]; z++)
      for (int y = 0; !bad && y < g->n[1]; y++) {
        const long gi0 = row_start(L, y, z, t);
        const MPI_Offset off = MILC_GAUGE_HEADER + (MPI_Offset) gi0 * MILC_NL * sizeof(double);
        MPI_Status st;
        int got = -1;
        if (MPI_File_read_at(fh, off, row, n0 * MILC_NL, MPI_DOUBLE, &st) != MPI_SUCCESS ||
            (MPI_Get_count(&st, MPI_DOUBLE, &got), got != n0 * MILC_NL)) {
          bad = 1;
          break;
        }
        for (int x = 0; x < n0; x++) {
          const int site = row_site(L, x, y, z, t);
          for (int c = 0; c < MILC_NL; c++) {
            const double v = row[x * MILC_NL + c];
            h_U[TDP_INDEX(g->nall, MILC_NL, site, c)] = v;
            sum += hash_term((uint64_t) (gi0 + x) * MILC_NL + c, v);
          }
        }
      }
  free(row);
  MPI_File_close(&fh);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  uint64_t total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (any) {
    snprintf(err, errlen, "reading gauge file '%s' failed", path);
    return -1;
  }
  if (total != h.checksum) {
    snprintf(err, errlen, "gauge file '%s' is corrupt: checksum %016llx, the header says %016llx",
             path, (unsigned long long) total, (unsigned long long) h.checksum);
    return -1;
  }
  return 0;
}
