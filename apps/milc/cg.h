/* Conjugate gradient on the even sites, as MILC's ks_congrad does:
 *
 *   M_ee x = b,   M_ee = m^2 - D_eo D_oe
 *
 * the even-even block of m^2 - D^2 (D maps one parity to the other, and D
 * is anti-Hermitian, so M_ee is Hermitian positive definite). D^2 keeps
 * the parity, so m^2 - D^2 is block diagonal and a source on the even
 * sites has its whole solution there. Stops when |r| <= tol |b| (the
 * iterated residual); the true residual |b - M x| / |b| is then
 * recomputed from scratch. */
#ifndef MILC_CG_H
#define MILC_CG_H

#include "kernels.h"

typedef struct {
  double mass;
  double tol;       /* relative residual */
  long maxiter;
  long print_every; /* progress line every this many iterations (0: none) */
  int verbose;      /* print progress (rank 0 decides) */
} milcCgParams;

typedef struct {
  long iterations;
  int converged;
  int breakdown;        /* <p, M p> was not positive and finite: stopped */
  double residual;      /* last iterated |r| / |b| */
  double true_residual; /* |b - M x| / |b|, recomputed */
  double seconds;       /* the iterations, without the true residual */
  double flops, bytes;  /* of the iterations, all ranks */
} milcCgResult;

/* Work fields: four full-lattice vectors (milcFieldAlloc(L, MILC_NV)). */
typedef struct {
  double *r, *p, *q, *t;
} milcCgWork;

void milcCgWorkCreate(milcCgWork *w, const milcLattice *L);
void milcCgWorkFree(milcCgWork *w);

/* x (even sites) is the start vector on entry, the solution on exit. */
void milcCgSolve(milcOps *o, const double *t_U, double *t_x, const double *t_b,
                 const milcCgParams *cp, milcCgWork *w, milcCgResult *res);

/* q = M_ee x (x's even halo is filled; t is odd scratch); returns Re <x, M x>. */
double milcApplyM(milcOps *o, const double *t_U, double *t_x, double *t_q, double *t_t,
                  double mass);

#endif
