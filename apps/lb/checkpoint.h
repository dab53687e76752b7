/* Checkpoint and restart (format: chkformat.h). The file holds the global
 * grid in a fixed order, so a run may restart on another number of ranks,
 * layout or backend; with the same build, the continued run is bitwise
 * the run that was never interrupted. */
#ifndef LB_CHECKPOINT_H
#define LB_CHECKPOINT_H

#include <stddef.h>

#include "common/decomp.h"
#include "lattice.h"
#include "params.h"

/* Collective. Written as path.tmp and renamed. 0, or -1 + err. */
int lbCheckpointWrite(lbLattice *L, const decompInfo *dc, const lbParams *p, long step,
                      const char *path, char *err, size_t errlen);

/* Collective. Verifies the header, the grid size against p, the file
 * length and the checksum before it touches the state; on success the
 * state is on the target and *step says where it stood. */
int lbCheckpointRead(lbLattice *L, const decompInfo *dc, const lbParams *p, const char *path,
                     long *step, char *err, size_t errlen);

#endif
