#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "kernels.h"
#include "targetDP.h"
#include "targetDP_exact_mpi.h"

/* Every global sum printed or validated here is exact (targetDP_exact.h):
 * each rank's exact partial, combined over the ranks by one MPI_Allreduce
 * of integer digits, rounded once. The same bits on any number of ranks,
 * any decomposition, layout and backend, as the fields are (issue 25). */

const char *lbMetricName(const lbParams *p) {
  if (p->lbcase == LB_CASE_SHEARWAVE) return "shear_amplitude";
  if (p->lbcase == LB_CASE_POISEUILLE) return "poiseuille_l2_error";
  return "none";
}

/* Amplitude of u_y(x) = A sin(k x): the projection (2 / N) sum u_y sin(k x). */
static double shear_amplitude(const lbLattice *L, const decompInfo *dc) {
  const lbGeom *g = &L->g;
  const double k = 2.0 * LB_PI / g->global[0];
  tdpExactSum s;
  tdpExactSumZero(&s);
  tdpExactAcc acc = tdpExactAccOn(&s);
  for (int x = 1; x <= g->n[0]; x++) {
    const double sx = sin(k * (g->offset[0] + x - 1));
    for (int y = 1; y <= g->n[1]; y++) {
      for (int z = 1; z <= g->n[2]; z++) tdpExactAdd(&acc, L->h_u[g->nall + lbSite(g, x, y, z)] * sx);
    }
  }
  tdpExactAccFlush(&acc);
  double total = 0.0;
  targetExactAllreduce(&total, &s, 1, dc->comm);
  return 2.0 * total / ((double) g->global[0] * g->global[1] * g->global[2]);
}

/* Poiseuille flow between walls at -1/2 and N - 1/2 along axis w (half-way
 * bounce-back), driven by a force density F parallel to them:
 *   u(x) = |F| / (2 rho nu) (x + 1/2) (N - 1/2 - x). */
static double poiseuille_analytic(const lbParams *p, int w, int x) {
  const double nu = (p->tau - 0.5) / 3.0;
  const double f = sqrt(p->force[0] * p->force[0] + p->force[1] * p->force[1] +
                        p->force[2] * p->force[2]);
  return f / (2.0 * p->rho * nu) * (x + 0.5) * (p->size[w] - 0.5 - x);
}

static int wall_axis(const lbParams *p) { return p->walls[0] ? 0 : (p->walls[1] ? 1 : 2); }

/* Relative L2 error of the profile (u along F, averaged over the planes
 * parallel to the walls). */
static double poiseuille_error(const lbLattice *L, const decompInfo *dc, const lbParams *p) {
  const lbGeom *g = &L->g;
  const int w = wall_axis(p), nw = g->global[w];
  const double fmag = sqrt(p->force[0] * p->force[0] + p->force[1] * p->force[1] +
                           p->force[2] * p->force[2]);
  tdpExactSum *prof = (tdpExactSum *) calloc(nw, sizeof(tdpExactSum));
  double *sum = (double *) calloc(nw, sizeof(double));
  for (int x = 1; x <= g->n[0]; x++) {
    for (int y = 1; y <= g->n[1]; y++) {
      for (int z = 1; z <= g->n[2]; z++) {
        const int s = lbSite(g, x, y, z), c[3] = {x, y, z};
        double upar = 0.0;
        for (int d = 0; d < 3; d++) upar += L->h_u[d * g->nall + s] * p->force[d] / fmag;
        tdpExactSumAdd(&prof[g->offset[w] + c[w] - 1], upar);
      }
    }
  }
  targetExactAllreduce(sum, prof, nw, dc->comm);
  const double nplane = (double) g->global[0] * g->global[1] * g->global[2] / nw;
  double err2 = 0.0, ref2 = 0.0;
  for (int x = 0; x < nw; x++) {
    const double a = poiseuille_analytic(p, w, x), e = sum[x] / nplane - a;
    err2 += e * e;
    ref2 += a * a;
  }
  free(prof);
  free(sum);
  return sqrt(err2 / ref2);
}

void lbObserve(lbLattice *L, const decompInfo *dc, const lbParams *p, long step, lbObs *o) {
  const lbGeom *g = &L->g;
  lbMoments(g, L->t_f, L->t_rho, L->t_u, L->t_umag);
  /* Exact local sums, then exactly across ranks: one allreduce. */
  tdpExactSum loc[4];
  double glob[4], umax = 0.0, gmax = 0.0;
  targetDoubleSumExact(&loc[0], L->t_rho, g->nall);
  for (int d = 0; d < 3; d++) targetDoubleSumExact(&loc[1 + d], L->t_u + (size_t) d * g->nall, g->nall);
  targetDoubleMax(&umax, L->t_umag, g->nall);
  targetExactAllreduce(glob, loc, 4, dc->comm);
  MPI_Allreduce(&umax, &gmax, 1, MPI_DOUBLE, MPI_MAX, dc->comm);
  const double nsites = (double) g->global[0] * g->global[1] * g->global[2];
  o->step = step;
  o->mass = glob[0];
  for (int d = 0; d < 3; d++) o->umean[d] = glob[1 + d] / nsites;
  o->umax = gmax;
  o->metric = 0.0;
  if (p->lbcase == LB_CASE_SHEARWAVE || p->lbcase == LB_CASE_POISEUILLE) {
    copyFromTarget(L->h_u, L->t_u, 3 * (size_t) g->nall * sizeof(double));
    o->metric = (p->lbcase == LB_CASE_SHEARWAVE) ? shear_amplitude(L, dc)
                                                 : poiseuille_error(L, dc, p);
  }
}

/* A NaN or infinity anywhere in f reaches the density sum, so one
 * reduction decides; only then are the values searched, on the host. */
int lbCheckFinite(lbLattice *L, const decompInfo *dc, long step, char *err, size_t len) {
  const lbGeom *g = &L->g;
  tdpExactSum loc;
  double mass = 0.0;
  lbMoments(g, L->t_f, L->t_rho, L->t_u, L->t_umag);
  targetDoubleSumExact(&loc, L->t_rho, g->nall);
  targetExactAllreduce(&mass, &loc, 1, dc->comm);
  if (isfinite(mass)) return 0;
  lbLatticeDownload(L);
  /* The first bad value of this block: the global order (x, y, z, p) is
   * increasing along the block's own loops, so stop at the first. */
  long long first = LLONG_MAX, gfirst = LLONG_MAX;
  for (int x = 1; x <= g->n[0] && first == LLONG_MAX; x++) {
    for (int y = 1; y <= g->n[1] && first == LLONG_MAX; y++) {
      for (int z = 1; z <= g->n[2] && first == LLONG_MAX; z++) {
        for (int p = 0; p < NVEL; p++) {
          if (isfinite(L->h_f[TDP_INDEX(g->nall, NVEL, lbSite(g, x, y, z), p)])) continue;
          const long long site = ((long long) (g->offset[0] + x - 1) * g->global[1] +
                                  g->offset[1] + y - 1) * g->global[2] + g->offset[2] + z - 1;
          first = site * NVEL + p;
          break;
        }
      }
    }
  }
  MPI_Allreduce(&first, &gfirst, 1, MPI_LONG_LONG, MPI_MIN, dc->comm);
  if (gfirst == LLONG_MAX) {
    snprintf(err, len, "the mass is %g at step %ld: the fields overflowed", mass, step);
  } else {
    const long long site = gfirst / NVEL;
    snprintf(err, len, "non-finite value in the fields at step %ld: first at site (%lld, %lld, "
                       "%lld), f_%lld (mass %g); the flow blew up (tau, force, velocity?)",
             step, site / ((long long) g->global[1] * g->global[2]),
             site / g->global[2] % g->global[1], site % g->global[2], gfirst % NVEL, mass);
  }
  return -1;
}

void lbInjectNaN(lbLattice *L) {
  const lbGeom *g = &L->g;
  int c[3];
  for (int d = 0; d < 3; d++) {
    c[d] = g->global[d] / 2 - g->offset[d] + 1; /* local coordinate, interior 1..n */
    if (c[d] < 1 || c[d] > g->n[d]) return;   /* another rank's site */
  }
  const double nan = NAN;
  copyToTarget(L->t_f + TDP_INDEX(g->nall, NVEL, lbSite(g, c[0], c[1], c[2]), 0), &nan,
               sizeof(double));
}

int lbValidate(const lbParams *p, const decompInfo *dc, const lbObs *obs, int nobs) {
  int pass = -1;
  char line[400];
  if (p->lbcase == LB_CASE_POISEUILLE && nobs > 0) {
    const double err = obs[nobs - 1].metric;
    pass = err < 0.01;
    snprintf(line, sizeof(line),
             "Poiseuille profile vs analytic at step %ld: L2 error %.3e (limit 1.0e-02)",
             obs[nobs - 1].step, err);
  } else if (p->lbcase == LB_CASE_SHEARWAVE && nobs > 1) {
    /* Fit between the first observation after a fifth of the run (past
     * the start-up transient of the equilibrium initial state) and the last. */
    int a = 0;
    while (a < nobs - 2 && obs[a].step < obs[nobs - 1].step / 5) a++;
    const lbObs *oa = &obs[a], *ob = &obs[nobs - 1];
    const double k = 2.0 * LB_PI / p->size[0], nu = (p->tau - 0.5) / 3.0;
    const double meas = log(oa->metric / ob->metric) / (k * k * (double) (ob->step - oa->step));
    const double rel = fabs(meas - nu) / nu;
    pass = rel < 0.01 && ob->step > oa->step;
    snprintf(line, sizeof(line),
             "shear-wave viscosity from steps %ld..%ld: %.6e vs (tau-1/2)/3 = %.6e, "
             "relative error %.3e (limit 1.0e-02)",
             oa->step, ob->step, meas, nu, rel);
  } else {
    return -1;
  }
  if (dc->rank == 0) printf("%s: %s\n", pass ? "PASS" : "FAIL", line);
  return pass;
}
