#include <stdio.h>
#include <stdlib.h>

#include "io.h"

int milcVectorWrite(const milcLattice *L, MPI_Comm comm, const double *h_v, int p,
                    const char *path, char *err, size_t errlen) {
  const milcGeom *g = &L->g;
  MPI_File fh;
  int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) {
    snprintf(err, errlen, "cannot open '%s' for writing", path);
    return -1;
  }
  MPI_File_set_size(fh, 0);
  const int nrow = g->n[0] / 2;
  double *row = (double *) malloc((size_t) nrow * MILC_NV * sizeof(double));
  int bad = row == NULL;
  /* Rows in the order of the half index h: nrow consecutive h per row. */
  for (int h0 = 0; !bad && h0 < g->nhalf; h0 += nrow) {
    int x[4], s;
    for (int k = 0; k < nrow; k++) {
      const int site = milcSite(g, p, h0 + k, &s, x);
      for (int c = 0; c < MILC_NV; c++) row[k * MILC_NV + c] = h_v[TDP_INDEX(g->nall, MILC_NV, site, c)];
    }
    milcSite(g, p, h0, &s, x);
    const long gi = milcGlobalIndex(L->global, g, x);
    const MPI_Offset off = (MPI_Offset) (gi / 2) * MILC_NV * sizeof(double);
    if (MPI_File_write_at(fh, off, row, nrow * MILC_NV, MPI_DOUBLE, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
      bad = 1;
  }
  free(row);
  MPI_File_close(&fh);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) {
    snprintf(err, errlen, "writing '%s' failed", path);
    return -1;
  }
  return 0;
}
