/* What the run reports about itself: global mass, momentum and maximum
 * speed (target reductions, then MPI), a per-case metric, and the final
 * validation of the cases that have an analytic answer. */
#ifndef LB_DIAG_H
#define LB_DIAG_H

#include "common/decomp.h"
#include "lattice.h"
#include "params.h"

typedef struct {
  long step;
  double mass;    /* sum of rho over the grid */
  double umean[3];/* mean velocity over the grid */
  double umax;    /* max |u| */
  double metric;  /* shearwave: amplitude of u_y; poiseuille: L2 error vs analytic; else 0 */
} lbObs;

/* Collective. Leaves the moments in L (host copies only if the case
 * metric needed them). */
void lbObserve(lbLattice *L, const decompInfo *dc, const lbParams *p, long step, lbObs *o);

/* Name of the metric column, for the CSV header. */
const char *lbMetricName(const lbParams *p);

/* Final check of shearwave (viscosity from the decay of the amplitude,
 * within 1% of (tau - 1/2)/3) or poiseuille (L2 error of the profile below
 * 1%). obs: the observations of this run, in order. Prints the result on
 * rank 0 and returns 1 for PASS, 0 for FAIL, -1 when the case has no
 * check. */
int lbValidate(const lbParams *p, const decompInfo *dc, const lbObs *obs, int nobs);

/* Collective. 0 when every distribution on every rank is finite; -1 with
 * err naming the step and the first non-finite value in the grid's order
 * (global site x, y, z and velocity p) when a NaN or infinity is there. */
int lbCheckFinite(lbLattice *L, const decompInfo *dc, long step, char *err, size_t len);

/* Test hook (key inject_nan): f_0 at the global centre site becomes NaN. */
void lbInjectNaN(lbLattice *L);

#endif
