#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pario.h"

int lbOutputOpen(lbOutput *o, const lbParams *p, const decompInfo *dc, char *err, size_t len) {
  memset(o, 0, sizeof(*o));
  char path[LB_PATH_MAX + 8];
  snprintf(path, sizeof(path), "%s.csv", p->output);
  int ok = 1, why = 0;
  if (dc->rank == 0) {
    o->csv = fopen(path, "w");
    ok = o->csv != NULL;
    why = errno; /* only rank 0's message is printed */
    if (ok)
      fprintf(o->csv, "step,mass,rel_mass_change,max_u,mean_ux,mean_uy,mean_uz,%s,mlups\n",
              lbMetricName(p));
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, dc->comm);
  if (!ok)
    snprintf(err, len, "cannot create '%s': %s (does the output directory exist?)", path,
             strerror(why));
  return ok ? 0 : -1;
}

void lbOutputObs(lbOutput *o, const lbParams *p, const decompInfo *dc, const lbObs *obs,
                 double mlups) {
  if (!o->have_mass0) {
    o->mass0 = obs->mass;
    o->have_mass0 = 1;
  }
  if (dc->rank != 0) return;
  const double drift = (obs->mass - o->mass0) / o->mass0;
  printf("step %8ld  mass %.15e (rel. change %+.1e)  max|u| %.6e", obs->step, obs->mass, drift,
         obs->umax);
  if (p->lbcase != LB_CASE_UNIFORM) printf("  %s %.6e", lbMetricName(p), obs->metric);
  if (mlups >= 0.0) printf("  MLUPS %.1f", mlups);
  printf("\n");
  fflush(stdout);
  if (o->csv) {
    fprintf(o->csv, "%ld,%.17g,%.6e,%.17g,%.17g,%.17g,%.17g,%.17g,%.3f\n", obs->step, obs->mass,
            drift, obs->umax, obs->umean[0], obs->umean[1], obs->umean[2], obs->metric,
            mlups >= 0.0 ? mlups : 0.0);
    fflush(o->csv);
  }
}

void lbOutputClose(lbOutput *o) {
  if (o->csv) fclose(o->csv);
  o->csv = NULL;
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
  lbPFile f;
  int rc = lbPOpenWrite(&f, dc->comm, path, err, len);
  if (rc == 0) {
    MPI_Offset off = nhead;
    lbPWriteAt(&f, 0, head, nhead);
    lbPWriteBlock(&f, off, gs, ls, st, 4, rho);
    off += 4 * npts;
    lbPWriteAt(&f, off, mid, nmid);
    off += nmid;
    lbPWriteBlock(&f, off, gs, ls, st, 12, vel);
    off += 12 * npts;
    lbPWriteAt(&f, off, "\n", 1);
    rc = lbPCommit(&f, err, len);
  }
  free(rho);
  free(vel);
  return rc;
}
