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
  double mass0;    /* mass at the run's first observation, for the drift */
  int have_mass0;
  int skip_first;  /* restart: the first observation's row is already there */
  char path[LB_PATH_MAX + 8];
} lbOutput;

/* Collective: rank 0 creates <output>.csv; after a restart from step
 * restart_step (>= 0; -1: a new run) it appends instead, once the header
 * matches, to the rows up to that step (later rows are dropped: the run
 * writes them again), so the CSV equals that of an uninterrupted run.
 * 0, or -1 + err on every rank. */
int lbOutputOpen(lbOutput *o, const lbParams *p, const decompInfo *dc, long restart_step,
                 char *err, size_t len);
/* Collective: rank 0 prints one progress line and appends one CSV row
 * (mlups < 0: not measured), checked; a row that cannot be written is cut
 * off again. 0, or -1 + err on every rank. */
int lbOutputObs(lbOutput *o, const lbParams *p, const decompInfo *dc, const lbObs *obs,
                double mlups, char *err, size_t len);
/* Rank 0 closes the CSV: 0, or -1 + err if the close failed. */
int lbOutputClose(lbOutput *o, char *err, size_t len);

/* Collective: <output>_<step>.vtk (written as .tmp, size checked, then
 * renamed; an old file of that name stays on failure), legacy VTK (ParaView, VisIt), binary
 * big-endian float32: density scalars and velocity vectors on the grid. */
int lbWriteVTK(lbLattice *L, const decompInfo *dc, const lbParams *p, long step, char *err,
               size_t len);

#endif
