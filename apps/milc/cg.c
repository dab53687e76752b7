#include <math.h>
#include <stdio.h>

#include "cg.h"
#include "common/timer.h"

void milcCgWorkCreate(milcCgWork *w, const milcLattice *L) {
  w->r = milcFieldAlloc(L, MILC_NV);
  w->p = milcFieldAlloc(L, MILC_NV);
  w->q = milcFieldAlloc(L, MILC_NV);
  w->t = milcFieldAlloc(L, MILC_NV);
}

void milcCgWorkFree(milcCgWork *w) {
  targetFree(w->r);
  targetFree(w->p);
  targetFree(w->q);
  targetFree(w->t);
}

double milcApplyM(milcOps *o, const double *t_U, double *t_x, double *t_q, double *t_t,
                  double mass) {
  milcDslash(o, t_U, t_x, t_t, MILC_ODD);
  return milcDslashAxpby(o, t_U, t_t, t_x, t_q, MILC_EVEN, mass * mass, -1.0);
}

static double total(const milcOps *o, const double *v) {
  double s = 0.0;
  for (int k = 0; k < MILC_K_NKIND; k++) s += v[k];
  (void) o;
  return s;
}

void milcCgSolve(milcOps *o, const double *t_U, double *t_x, const double *t_b,
                 const milcCgParams *cp, milcCgWork *w, milcCgResult *res) {
  const int E = MILC_EVEN;
  int rank = 0;
  MPI_Comm_rank(o->comm, &rank);
  const double f0 = total(o, o->cnt.flops), b0 = total(o, o->cnt.bytes);
  targetSynchronize();
  MPI_Barrier(o->comm);
  const double t0 = timerNow();

  const double bb = milcDot(o, t_b, t_b, E);
  milcApplyM(o, t_U, t_x, w->q, w->t, cp->mass);
  double rr = milcAxpbyNorm(o, w->r, t_b, w->q, E, 1.0, -1.0); /* r = b - M x */
  milcAxpbyNorm(o, w->p, w->r, w->r, E, 1.0, 0.0);             /* p = r */
  res->iterations = 0;
  res->converged = 0;
  res->breakdown = 0;
  res->residual = bb > 0.0 ? sqrt(rr / bb) : 0.0;
  if (cp->verbose && rank == 0) printf("iter %6d  |r|/|b| %.6e\n", 0, res->residual);
  while (res->residual > cp->tol && res->iterations < cp->maxiter) {
    const double pap = milcApplyM(o, t_U, w->p, w->q, w->t, cp->mass);
    /* M is positive definite: anything else is a fault (a NaN in the
     * links, a broken operator), not something to iterate on. */
    if (!(pap > 0.0) || !isfinite(pap) || !isfinite(rr)) {
      res->breakdown = 1;
      break;
    }
    const double alpha = rr / pap;
    const double rr_new = milcCgUpdate(o, t_x, w->r, w->p, w->q, E, alpha);
    res->iterations++;
    res->residual = sqrt(rr_new / bb);
    if (cp->verbose && rank == 0 && cp->print_every > 0 &&
        res->iterations % cp->print_every == 0)
      printf("iter %6ld  |r|/|b| %.6e\n", res->iterations, res->residual);
    if (res->residual <= cp->tol) break;
    milcXpay(o, w->p, w->r, E, rr_new / rr); /* p = r + beta p */
    rr = rr_new;
  }
  res->converged = !res->breakdown && res->residual <= cp->tol;
  targetSynchronize();
  const double t1 = timerNow();
  double secs = t1 - t0;
  MPI_Allreduce(&secs, &res->seconds, 1, MPI_DOUBLE, MPI_MAX, o->comm);
  double fb[2] = {total(o, o->cnt.flops) - f0, total(o, o->cnt.bytes) - b0}, all[2];
  MPI_Allreduce(fb, all, 2, MPI_DOUBLE, MPI_SUM, o->comm);
  res->flops = all[0];
  res->bytes = all[1];

  /* True residual from scratch: r = b - M x. */
  milcApplyM(o, t_U, t_x, w->q, w->t, cp->mass);
  const double tr = milcAxpbyNorm(o, w->r, t_b, w->q, E, 1.0, -1.0);
  res->true_residual = bb > 0.0 ? sqrt(tr / bb) : 0.0;
}
