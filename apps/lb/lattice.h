/* The fields of one rank: two target lattices of distributions (the
 * post-collision state and the next one), their host copy, and the
 * moment fields used by diagnostics and output. */
#ifndef LB_LATTICE_H
#define LB_LATTICE_H

#include <stddef.h>

#include "common/decomp.h"
#include "model.h"
#include "params.h"

typedef struct {
  lbGeom g;
  double *t_f, *t_fn; /* distributions, TDP_INDEX(nall, NVEL, site, p) */
  double *h_f;        /* host copy, same layout */
  size_t fbytes;
  double *t_rho, *t_u, *t_umag; /* moments: nall, 3 x nall (SoA), nall */
  double *h_rho, *h_u;          /* host copies, filled by lbLatticeMomentsToHost */
} lbLattice;

void lbGeomInit(lbGeom *g, const decompInfo *dc);
int lbLatticeCreate(lbLattice *L, const decompInfo *dc);
void lbLatticeFree(lbLattice *L);

/* Initial state of the case, the same function of the global coordinates
 * on every decomposition: equilibrium at the initial density and velocity. */
void lbLatticeInitial(lbLattice *L, const lbParams *p);
/* h_f -> both target lattices (after the initial state or a restart). */
void lbLatticeUpload(lbLattice *L);
/* t_f -> h_f. */
void lbLatticeDownload(lbLattice *L);
/* Compute the moments of t_f on the target and copy them to h_rho, h_u. */
void lbLatticeMomentsToHost(lbLattice *L);

#endif
