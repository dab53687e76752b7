#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fileio.h"

#include "common/pario.h"
#include "output.h"

/* Rank 0's reason, on every rank: the collective decision to stop. */
static int agree(const decompInfo *dc, int failed, char *err, size_t len) {
  MPI_Bcast(&failed, 1, MPI_INT, 0, dc->comm);
  if (failed && dc->rank != 0) snprintf(err, len, "rank 0 failed writing the CSV");
  return failed ? -1 : 0;
}

static void csv_header(const lbParams *p, char *buf, size_t len) {
  snprintf(buf, len, "step,mass,rel_mass_change,max_u,mean_ux,mean_uy,mean_uz,%s,mlups\n",
           lbMetricName(p));
}

/* Restart: keep the rows up to the checkpoint's step (later ones belong to
 * the part of the old run that is being redone, and a torn last line to a
 * crash), take the reference mass from the first row, append after them.
 * Returns 1 if the file was there, 0 if not, -1 + err. */
static int csv_resume(lbOutput *o, const char *path, const char *header, long step, char *err,
                      size_t len) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, len, "'%s' exists and is not a regular file; refusing to append to it", path);
    return -1;
  }
  FILE *fp = fopen(path, "r");
  if (!fp) {
    snprintf(err, len, "cannot append to '%s': %s", path, strerror(errno));
    return -1;
  }
  char line[1024];
  long keep = 0;
  int lineno = 0, rc = 1;
  while (fgets(line, sizeof(line), fp)) {
    lineno++;
    const size_t n = strlen(line);
    if (lineno == 1 && strcmp(line, header) != 0) {
      line[strcspn(line, "\n")] = '\0';
      snprintf(err, len, "'%s' has the header '%.300s', this run writes '%.*s': refusing to "
                         "append to it (another output, or move it away)", path, line,
               (int) strlen(header) - 1, header);
      rc = -1;
      break;
    }
    if (n == 0 || line[n - 1] != '\n') break; /* torn or over-long: dropped */
    if (lineno > 1) {
      char *end = NULL;
      const long s = strtol(line, &end, 10);
      if (end == line || *end != ',') {
        snprintf(err, len, "'%s':%d: not a row of this program's CSV; refusing to append", path,
                 lineno);
        rc = -1;
        break;
      }
      if (s > step) break;
      if (!o->have_mass0) {
        o->mass0 = strtod(end + 1, NULL);
        o->have_mass0 = 1;
      }
    }
    keep = ftell(fp);
  }
  if (rc == 1 && lineno == 0) { /* empty: write the header as a new file would */
    keep = 0;
    rc = 0;
  }
  if (rc == 1 && lineno > 0 && keep == 0) {
    snprintf(err, len, "'%s': the header line is incomplete; refusing to append to it", path);
    rc = -1;
  }
  fclose(fp);
  if (rc < 0) return -1;
  fp = fopen(path, "r+");
  if (fp) setvbuf(fp, NULL, _IONBF, 0); /* a failed row leaves nothing in a buffer */
  if (!fp || fioTruncate(fp, keep) != 0) {
    snprintf(err, len, "cannot cut '%s' back to its rows up to step %ld: %s", path, step,
             strerror(errno));
    if (fp) fclose(fp);
    return -1;
  }
  o->csv = fp;
  return rc;
}

int lbOutputOpen(lbOutput *o, const lbParams *p, const decompInfo *dc, long restart_step,
                 char *err, size_t len) {
  memset(o, 0, sizeof(*o));
  snprintf(o->path, sizeof(o->path), "%s.csv", p->output);
  char header[256];
  csv_header(p, header, sizeof(header));
  int failed = 0;
  if (dc->rank == 0) {
    int resumed = restart_step >= 0 ? csv_resume(o, o->path, header, restart_step, err, len) : 0;
    failed = resumed < 0;
    o->skip_first = resumed == 1 && o->have_mass0; /* the old run wrote that row or skipped it */
    /* stat before the open: fopen of a FIFO blocks until a reader comes
     * (main checked every output before the run; this is the last word) */
    if (!failed && !o->csv) failed = fioCheckOutput(o->path, "CSV time series", err, len) != 0;
    if (!failed && !o->csv) {
      o->csv = fopen(o->path, "w");
      if (!o->csv)
        snprintf(err, len, "cannot create '%s': %s (does the output directory exist?)", o->path,
                 strerror(errno));
      failed = o->csv == NULL;
      if (o->csv) setvbuf(o->csv, NULL, _IONBF, 0);
    }
    if (!failed && ftell(o->csv) == 0 && fioWriteFlush(o->csv, header, strlen(header))) {
      char space[1200];
      snprintf(err, len, "writing the header of '%s' failed: %s; %s", o->path, strerror(errno),
               fioFreeSpace(o->path, space, sizeof(space)));
      failed = 1;
    }
  }
  /* Every rank needs the reference mass of the drift column. */
  double m[2] = {o->mass0, (double) o->have_mass0};
  MPI_Bcast(m, 2, MPI_DOUBLE, 0, dc->comm);
  o->mass0 = m[0];
  o->have_mass0 = m[1] != 0.0;
  return agree(dc, failed, err, len);
}

int lbOutputObs(lbOutput *o, const lbParams *p, const decompInfo *dc, const lbObs *obs,
                double mlups, char *err, size_t len) {
  if (!o->have_mass0) {
    o->mass0 = obs->mass;
    o->have_mass0 = 1;
  }
  int failed = 0;
  if (dc->rank == 0) {
    const double drift = (obs->mass - o->mass0) / o->mass0;
    printf("step %8ld  mass %.15e (rel. change %+.1e)  max|u| %.6e", obs->step, obs->mass, drift,
           obs->umax);
    if (p->lbcase != LB_CASE_UNIFORM) printf("  %s %.6e", lbMetricName(p), obs->metric);
    if (mlups >= 0.0) printf("  MLUPS %.1f", mlups);
    printf("\n");
    fflush(stdout);
    if (o->csv && o->skip_first) {
      o->skip_first = 0;
    } else if (o->csv) {
      char row[512];
      const int n = snprintf(row, sizeof(row),
                             "%ld,%.17g,%.6e,%.17g,%.17g,%.17g,%.17g,%.17g,%.3f\n", obs->step,
                             obs->mass, drift, obs->umax, obs->umean[0], obs->umean[1],
                             obs->umean[2], obs->metric, mlups >= 0.0 ? mlups : 0.0);
      const long before = ftell(o->csv);
      if (fioWriteFlush(o->csv, row, (size_t) n)) {
        /* Cut a partial row off again: the file stays as it was. */
        const int why = errno;
        const int cut = fioTruncate(o->csv, before) == 0;
        char space[1200];
        snprintf(err, len, "writing a row (step %ld) to '%s' failed: %s; %s; %s", obs->step,
                 o->path, strerror(why),
                 cut ? "the rows before it are intact" : "the last row may be partial",
                 fioFreeSpace(o->path, space, sizeof(space)));
        failed = 1;
      }
    }
  }
  return agree(dc, failed, err, len);
}

int lbOutputClose(lbOutput *o, char *err, size_t len) {
  int rc = 0;
  if (o->csv && fclose(o->csv) != 0) {
    snprintf(err, len, "closing '%s' failed: %s", o->path, strerror(errno));
    rc = -1;
  }
  o->csv = NULL;
  return rc;
}

/* Legacy VTK binary is big-endian. */
static void put_be(unsigned char *dst, float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  dst[0] = (unsigned char) (b >> 24);
  dst[1] = (unsigned char) (b >> 16);
  dst[2] = (unsigned char) (b >> 8);
  dst[3] = (unsigned char) b;
}

int lbWriteVTK(lbLattice *L, const decompInfo *dc, const lbParams *p, long step, char *err,
               size_t len) {
  const lbGeom *g = &L->g;
  lbLatticeMomentsToHost(L);
  /* VTK orders points x fastest: the file is a [NZ][NY][NX] array. */
  const int gs[3] = {g->global[2], g->global[1], g->global[0]};
  const int ls[3] = {g->n[2], g->n[1], g->n[0]};
  const int st[3] = {g->offset[2], g->offset[1], g->offset[0]};
  const size_t nloc = (size_t) g->n[0] * g->n[1] * g->n[2];
  unsigned char *rho = (unsigned char *) malloc(4 * nloc), *vel = (unsigned char *) malloc(12 * nloc);
  if (!rho || !vel) {
    free(rho);
    free(vel);
    snprintf(err, len, "no memory for the VTK buffers");
    return -1;
  }
  size_t k = 0;
  for (int z = 1; z <= g->n[2]; z++) {
    for (int y = 1; y <= g->n[1]; y++) {
      for (int x = 1; x <= g->n[0]; x++, k++) {
        const int s = lbSite(g, x, y, z);
        put_be(rho + 4 * k, (float) L->h_rho[s]);
        for (int d = 0; d < 3; d++) put_be(vel + 12 * k + 4 * d, (float) L->h_u[d * g->nall + s]);
      }
    }
  }
  const long long npts = (long long) g->global[0] * g->global[1] * g->global[2];
  char head[512], mid[64], path[LB_PATH_MAX + 32];
  int nhead = snprintf(head, sizeof(head),
                       "# vtk DataFile Version 3.0\nlb D3Q19 step %ld\nBINARY\n"
                       "DATASET STRUCTURED_POINTS\nDIMENSIONS %d %d %d\nORIGIN 0 0 0\n"
                       "SPACING 1 1 1\nPOINT_DATA %lld\nSCALARS density float 1\n"
                       "LOOKUP_TABLE default\n",
                       step, g->global[0], g->global[1], g->global[2], npts);
  int nmid = snprintf(mid, sizeof(mid), "\nVECTORS velocity float\n");
  snprintf(path, sizeof(path), "%s_%08ld.vtk", p->output, step);
  pioFile f;
  int rc = pioOpenWrite(&f, dc->comm, path, err, len);
  if (rc == 0) {
    MPI_Offset off = nhead;
    pioWriteAt(&f, 0, head, nhead);
    pioWriteBlock(&f, off, 3, gs, ls, st, 4, rho);
    off += 4 * npts;
    pioWriteAt(&f, off, mid, nmid);
    off += nmid;
    pioWriteBlock(&f, off, 3, gs, ls, st, 12, vel);
    off += 12 * npts;
    pioWriteAt(&f, off, "\n", 1);
    pioClose(&f, (long long) off + 1);
    rc = pioCommit(&f, "VTK snapshot", err, len);
  }
  free(rho);
  free(vel);
  return rc;
}
