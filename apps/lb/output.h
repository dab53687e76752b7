/* Progress lines (stdout), the CSV time series and VTK snapshots. */
#ifndef LB_OUTPUT_H
#define LB_OUTPUT_H

#include <stdio.h>

#include "common/decomp.h"
#include "diag.h"
#include "lattice.h"
#include "params.h"

typedef struct {
  FILE *csv;       /* rank 0 only */
  double mass0;    /* mass at the first observation, for the drift */
  int have_mass0;
} lbOutput;

/* Collective: rank 0 creates <output>.csv. 0, or -1 + err on every rank. */
int lbOutputOpen(lbOutput *o, const lbParams *p, const decompInfo *dc, char *err, size_t len);
/* Rank 0: one progress line and one CSV row. mlups < 0: not measured. */
void lbOutputObs(lbOutput *o, const lbParams *p, const decompInfo *dc, const lbObs *obs,
                 double mlups);
void lbOutputClose(lbOutput *o);

/* Collective: <output>_<step>.vtk, legacy VTK (ParaView, VisIt), binary
 * big-endian float32: density scalars and velocity vectors on the grid. */
int lbWriteVTK(lbLattice *L, const decompInfo *dc, const lbParams *p, long step, char *err,
               size_t len);

#endif
