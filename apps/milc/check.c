/* milccheck: validation of the solver at a small size (one MPI rank).
 * Prints one line per check, "PASS: name (numbers)" or "FAIL: name (...)",
 * and exits 1 if any failed. tests/suites/milc.sh runs it in several
 * builds. With --compare A B TOL it compares two solutions written by
 * milc --save instead (max |a - b| / max |a| <= TOL).
 *
 * The free-field answer. With U = 1, D = 1/2 sum_mu eta_mu(x) (T_mu -
 * T_-mu), T_mu psi(x) = psi(x + mu). Since eta_mu(x + nu) = eta_mu(x) *
 * (-1)^[nu < mu], the cross terms of D^2 cancel in pairs
 * (eta_nu(x) eta_mu(x + nu) + eta_mu(x) eta_nu(x + mu) = 0 for mu != nu)
 * and eta_mu(x) eta_mu(x +- mu) = 1, so D^2 = 1/4 sum_mu (T_2mu + T_-2mu
 * - 2): translation invariant, parity preserving, and on a plane wave
 * e^{ipx} chi (p_mu = 2 pi k_mu / L_mu) it is -sum_mu sin^2 p_mu. The same
 * holds for the wave restricted to the even sites, so M_ee = m^2 - D_eo
 * D_oe has it as an eigenvector with eigenvalue m^2 + sum sin^2 p_mu, and
 * for a sum of waves x = sum_k b_k / (m^2 + sum_mu sin^2 p_k,mu). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "common/cli.h"
#include "common/fileio.h"
#include "gauge.h"
#include "kernels.h"
#include "lattice.h"
#include "su3.h"
#include "targetDP.h"

#define MILC_PI 3.14159265358979323846

static int failures = 0;

static void report(int pass, const char *name, const char *detail) {
  printf("%s: %s (%s)\n", pass ? "PASS" : "FAIL", name, detail);
  if (!pass) failures++;
}

typedef struct {
  milcLattice L;
  milcOps ops;
  size_t ub, vb;
  double *h_U, *h_a, *h_b, *h_c; /* host fields */
  double *t_U, *t_a, *t_b, *t_c, *t_d;
  milcCgWork w;
} ctx;

static void ctxCreate(ctx *c, const int global[4]) {
  const int off[4] = {0, 0, 0, 0};
  char err[256];
  if (milcLatticeCreate(&c->L, global, global, off, err, sizeof(err))) {
    fprintf(stderr, "milccheck: %s\n", err);
    exit(2);
  }
  const int dims[4] = {1, 1, 1, 1};
  if (milcLatticeConnect(&c->L, MPI_COMM_WORLD, dims, err, sizeof(err))) {
    fprintf(stderr, "milccheck: %s\n", err);
    exit(2);
  }
  milcOpsCreate(&c->ops, &c->L, MPI_COMM_WORLD);
  c->ub = milcFieldBytes(&c->L, MILC_NL, sizeof(double));
  c->vb = milcFieldBytes(&c->L, MILC_NV, sizeof(double));
  c->h_U = (double *) calloc(1, c->ub);
  c->h_a = (double *) calloc(1, c->vb);
  c->h_b = (double *) calloc(1, c->vb);
  c->h_c = (double *) calloc(1, c->vb);
  c->t_U = (double *) milcFieldAlloc(&c->L, MILC_NL, sizeof(double));
  c->t_a = (double *) milcFieldAlloc(&c->L, MILC_NV, sizeof(double));
  c->t_b = (double *) milcFieldAlloc(&c->L, MILC_NV, sizeof(double));
  c->t_c = (double *) milcFieldAlloc(&c->L, MILC_NV, sizeof(double));
  c->t_d = (double *) milcFieldAlloc(&c->L, MILC_NV, sizeof(double));
  milcCgWorkCreate(&c->w, &c->L, sizeof(double));
}

static void ctxFree(ctx *c) {
  milcCgWorkFree(&c->w);
  targetFree(c->t_U);
  targetFree(c->t_a);
  targetFree(c->t_b);
  targetFree(c->t_c);
  targetFree(c->t_d);
  free(c->h_U);
  free(c->h_a);
  free(c->h_b);
  free(c->h_c);
  milcOpsFree(&c->ops);
  milcLatticeFree(&c->L);
}

static void uploadLinks(ctx *c) {
  copyToTarget(c->t_U, c->h_U, c->ub);
  milcHaloFill(&c->L, c->t_U, MILC_NL, -1);
}

/* Complex <a, b> = sum conj(a) b over the interior sites of parity p. */
static void hostDot(const ctx *c, const double *a, const double *b, int p, double *re, double *im) {
  *re = *im = 0.0;
  for (int h = 0; h < c->L.g.nhalf; h++) {
    int s, x[4];
    const int site = milcSite(&c->L.g, p, h, &s, x);
    for (int k = 0; k < 3; k++) {
      const size_t ir = TDP_INDEX(c->L.g.nall, MILC_NV, site, 2 * k);
      const size_t ii = TDP_INDEX(c->L.g.nall, MILC_NV, site, 2 * k + 1);
      *re += a[ir] * b[ir] + a[ii] * b[ii];
      *im += a[ir] * b[ii] - a[ii] * b[ir];
    }
  }
}

/* max |a - b| and max |b| over the interior sites of parity p */
static void hostDiff(const ctx *c, const double *a, const double *b, int p, double *diff,
                     double *norm) {
  *diff = *norm = 0.0;
  for (int h = 0; h < c->L.g.nhalf; h++) {
    int s, x[4];
    const int site = milcSite(&c->L.g, p, h, &s, x);
    for (int k = 0; k < MILC_NV; k++) {
      const size_t i = TDP_INDEX(c->L.g.nall, MILC_NV, site, k);
      if (fabs(a[i] - b[i]) > *diff) *diff = fabs(a[i] - b[i]);
      if (fabs(b[i]) > *norm) *norm = fabs(b[i]);
    }
  }
}

/* ---------------------------------------------------------------- checks */

static void checkSU3(ctx *c) {
  milcGaugeRandom(&c->L, c->h_U, 7);
  double det = 0.0, uni = 0.0, dist = 0.0;
  for (int p = 0; p < 2; p++)
    for (int h = 0; h < c->L.g.nhalf; h++) {
      int s, x[4];
      const int site = milcSite(&c->L.g, p, h, &s, x);
      for (int mu = 0; mu < 4; mu++) {
        double u[18];
        for (int k = 0; k < 18; k++)
          u[k] = c->h_U[TDP_INDEX(c->L.g.nall, MILC_NL, site, 18 * mu + k)];
        det = fmax(det, milcSU3DetError(u));
        uni = fmax(uni, milcSU3UnitarityError(u));
        dist = fmax(dist, fabs(u[0] - 1.0)); /* far from the unit field */
      }
    }
  char d[160];
  snprintf(d, sizeof(d), "max |det - 1| %.1e, max |U U^+ - 1| %.1e, max |U_00 - 1| %.2f", det, uni,
           dist);
  report(det < 1e-12 && uni < 1e-12 && dist > 0.5, "random links are SU(3)", d);
}

/* The field of a block at an offset equals the whole field's there: the
 * generator is per global site, whatever the decomposition. */
static void checkDecompositionIndependence(ctx *c) {
  const uint64_t seed = 11;
  milcGaugeRandom(&c->L, c->h_U, seed);
  milcSourceRandom(&c->L, c->h_a, MILC_EVEN, seed);
  const int *G = c->L.global;
  const int dims[4] = {1, 2, 1, 2};
  long mism = 0, checked = 0;
  for (int blk = 0; blk < dims[0] * dims[1] * dims[2] * dims[3]; blk++) {
    int n[4], off[4];
    for (int d = 0, b = blk; d < 4; d++) {
      n[d] = G[d] / dims[d];
      off[d] = (b % dims[d]) * n[d];
      b /= dims[d];
    }
    milcLattice B;
    char err[200];
    if (milcLatticeCreate(&B, G, n, off, err, sizeof(err))) {
      report(0, "decomposition independence", err);
      return;
    }
    double *U = (double *) calloc(1, milcFieldBytes(&B, MILC_NL, sizeof(double)));
    double *v = (double *) calloc(1, milcFieldBytes(&B, MILC_NV, sizeof(double)));
    milcGaugeRandom(&B, U, seed);
    milcSourceRandom(&B, v, MILC_EVEN, seed);
    for (int p = 0; p < 2; p++)
      for (int h = 0; h < B.g.nhalf; h++) {
        int s, x[4], xf[4];
        const int site = milcSite(&B.g, p, h, &s, x);
        for (int d = 0; d < 4; d++) xf[d] = off[d] + x[d];
        const int full = milcSiteAt(&c->L.g, xf);
        for (int k = 0; k < MILC_NL; k++, checked++)
          mism += U[TDP_INDEX(B.g.nall, MILC_NL, site, k)] !=
                  c->h_U[TDP_INDEX(c->L.g.nall, MILC_NL, full, k)];
        for (int k = 0; p == 0 && k < MILC_NV; k++, checked++)
          mism += v[TDP_INDEX(B.g.nall, MILC_NV, site, k)] !=
                  c->h_a[TDP_INDEX(c->L.g.nall, MILC_NV, full, k)];
      }
    free(U);
    free(v);
    milcLatticeFree(&B);
  }
  char d[160];
  snprintf(d, sizeof(d), "4 blocks (1x2x1x2) vs 1: %ld of %ld values differ", mism, checked);
  report(mism == 0 && checked > 0, "links and source identical for any decomposition", d);
}

/* Halo only along the axes split over ranks: on one rank (every axis
 * wraps in the kernels) no halo sites, no boundary sites and, after the
 * solves before this check, no halo exchange at all; a block split along t
 * only (as on 2 ranks 1x1x1x2) has its halo and its boundary along t only. */
static void checkHaloAxes(ctx *c) {
  const milcLattice *L = &c->L;
  long vol = 1;
  int ok = !L->halo && L->nbd[0] == 0 && L->nbd[1] == 0;
  for (int d = 0; d < 4; d++) {
    ok = ok && L->g.hw[d] == 0 && L->g.nh[d] == L->g.n[d];
    vol *= L->g.n[d];
  }
  ok = ok && L->nin[0] == vol / 2 && L->nin[1] == vol / 2 && c->ops.cnt.calls[MILC_K_HALO] == 0 &&
       c->ops.cnt.calls[MILC_K_DSLASH] > 0;
  char d[200];
  snprintf(d, sizeof(d),
           "one rank: halo %d, storage %d x %d x %d x %d, boundary sites %d + %d, %ld D calls, %ld "
           "halo exchanges",
           L->halo, L->g.nh[0], L->g.nh[1], L->g.nh[2], L->g.nh[3], L->nbd[0], L->nbd[1],
           c->ops.cnt.calls[MILC_K_DSLASH], c->ops.cnt.calls[MILC_K_HALO]);
  report(ok, "one rank: no halo, no boundary sites, no halo exchange", d);

  const int *G = L->global;
  const int n[4] = {G[0], G[1], G[2], G[3] / 2}, off[4] = {0, 0, 0, G[3] / 2};
  milcLattice B;
  char err[200];
  if (milcLatticeCreate(&B, G, n, off, err, sizeof(err))) {
    report(0, "a block split along t: halo along t only", err);
    return;
  }
  const long inner = (long) n[0] * n[1] * n[2] * (n[3] - 2) / 2;
  ok = B.halo && B.g.hw[0] == 0 && B.g.hw[1] == 0 && B.g.hw[2] == 0 && B.g.hw[3] == 1 &&
       B.g.nh[3] == n[3] + 2 && B.nin[0] == inner && B.nin[1] == inner &&
       B.nbd[0] == B.g.nhalf - inner && B.nbd[1] == B.g.nhalf - inner;
  snprintf(d, sizeof(d), "storage %d x %d x %d x %d, interior sites %d + %d (want %ld each)",
           B.g.nh[0], B.g.nh[1], B.g.nh[2], B.g.nh[3], B.nin[0], B.nin[1], inner);
  report(ok, "a block split along t: halo and boundary along t only", d);
  milcLatticeFree(&B);
}

/* b = sum_k amp_k e^{i p_k x} chi_k on the even sites; x_exact likewise
 * divided by m^2 + sum sin^2 p_k. */
#define NWAVE 3
static const int wave_k[NWAVE][4] = {{1, 0, 0, 0}, {0, 1, 1, 2}, {2, 1, 0, 3}};
static const double wave_chi[NWAVE][6] = {{1.0, 0.0, 0.5, -0.25, 0.0, 2.0},
                                          {0.3, 0.7, -1.0, 0.0, 0.2, 0.1},
                                          {0.0, -0.4, 0.9, 0.6, -0.3, 0.0}};

static double sin2(const int G[4], int k) {
  double s = 0.0;
  for (int mu = 0; mu < 4; mu++) {
    const double sp = sin(2.0 * MILC_PI * wave_k[k][mu] / G[mu]);
    s += sp * sp;
  }
  return s;
}

static void planeWaves(const ctx *c, double *b, int nwave, double mass, double *xe) {
  memset(b, 0, c->vb);
  if (xe) memset(xe, 0, c->vb);
  for (int h = 0; h < c->L.g.nhalf; h++) {
    int s, x[4];
    const int site = milcSite(&c->L.g, MILC_EVEN, h, &s, x);
    for (int k = 0; k < nwave; k++) {
      double ph = 0.0;
      for (int mu = 0; mu < 4; mu++) ph += 2.0 * MILC_PI * wave_k[k][mu] * x[mu] / c->L.global[mu];
      const double cr = cos(ph), ci = sin(ph);
      const double lam = mass * mass + sin2(c->L.global, k);
      for (int col = 0; col < 3; col++) {
        const double ar = wave_chi[k][2 * col], ai = wave_chi[k][2 * col + 1];
        const double re = cr * ar - ci * ai, im = cr * ai + ci * ar;
        b[TDP_INDEX(c->L.g.nall, MILC_NV, site, 2 * col)] += re;
        b[TDP_INDEX(c->L.g.nall, MILC_NV, site, 2 * col + 1)] += im;
        if (xe) {
          xe[TDP_INDEX(c->L.g.nall, MILC_NV, site, 2 * col)] += re / lam;
          xe[TDP_INDEX(c->L.g.nall, MILC_NV, site, 2 * col + 1)] += im / lam;
        }
      }
    }
  }
}

static void checkFreeField(ctx *c) {
  milcGaugeUnit(&c->L, c->h_U);
  uploadLinks(c);
  char d[200];
  /* D_eo D_oe on one wave = -sum sin^2 p times the wave */
  for (int k = 0; k < NWAVE; k++) {
    memset(c->h_a, 0, c->vb);
    planeWaves(c, c->h_b, k + 1, 0.0, NULL);
    if (k > 0) { /* wave k alone: difference of the sums up to k and k-1 */
      planeWaves(c, c->h_a, k, 0.0, NULL);
      for (size_t i = 0; i < c->vb / sizeof(double); i++) c->h_b[i] -= c->h_a[i];
    }
    copyToTarget(c->t_b, c->h_b, c->vb);
    milcDslash(&c->ops, c->t_U, c->t_b, c->t_c, MILC_ODD);
    milcDslash(&c->ops, c->t_U, c->t_c, c->t_d, MILC_EVEN);
    copyFromTarget(c->h_c, c->t_d, c->vb);
    const double lam = -sin2(c->L.global, k);
    for (size_t i = 0; i < c->vb / sizeof(double); i++) c->h_a[i] = lam * c->h_b[i];
    double diff, norm;
    hostDiff(c, c->h_c, c->h_a, MILC_EVEN, &diff, &norm);
    snprintf(d, sizeof(d), "k = (%d,%d,%d,%d): eigenvalue %.6f, max error %.1e", wave_k[k][0],
             wave_k[k][1], wave_k[k][2], wave_k[k][3], lam, diff);
    report(diff <= 1e-12 && norm > 0.1, "free field: D^2 on a plane wave is -sum sin^2 p", d);
  }
  /* CG on three waves vs the analytic solution */
  const double mass = 0.2;
  planeWaves(c, c->h_b, NWAVE, mass, c->h_a);
  copyToTarget(c->t_b, c->h_b, c->vb);
  targetZero(c->t_c, c->vb / sizeof(double));
  milcCgParams cp = {mass, 1e-14, 100, 0, 0, MILC_CG_FUSED};
  milcCgResult r;
  milcCgSolve(&c->ops, c->t_U, c->t_c, c->t_b, &cp, &c->w, &r);
  copyFromTarget(c->h_c, c->t_c, c->vb);
  double diff, norm;
  hostDiff(c, c->h_c, c->h_a, MILC_EVEN, &diff, &norm);
  snprintf(d, sizeof(d), "3 waves, m = %.1f: %ld iterations, max |x - x_exact| / max |x| = %.1e",
           mass, r.iterations, diff / norm);
  /* Three distinct eigenvalues: CG ends in 3 steps in exact arithmetic. */
  report(r.converged && r.iterations <= 4 && diff <= 1e-10 * norm && norm > 0.1,
         "free field: CG solution matches the momentum-space answer to 1e-10", d);
}

static void checkAntiHermitian(ctx *c) {
  milcGaugeRandom(&c->L, c->h_U, 3);
  uploadLinks(c);
  char d[200];
  for (int p = 0; p < 2; p++) { /* phi on parity p, psi on the other */
    memset(c->h_a, 0, c->vb);
    memset(c->h_b, 0, c->vb);
    milcSourceRandom(&c->L, c->h_a, p, 21);
    milcSourceRandom(&c->L, c->h_b, 1 - p, 22);
    copyToTarget(c->t_a, c->h_a, c->vb);
    copyToTarget(c->t_b, c->h_b, c->vb);
    milcDslash(&c->ops, c->t_U, c->t_b, c->t_c, p);     /* D psi on parity p */
    milcDslash(&c->ops, c->t_U, c->t_a, c->t_d, 1 - p); /* D phi on parity 1-p */
    double *dpsi = (double *) calloc(1, c->vb), *dphi = (double *) calloc(1, c->vb);
    copyFromTarget(dpsi, c->t_c, c->vb);
    copyFromTarget(dphi, c->t_d, c->vb);
    double ar, ai, br, bi;
    hostDot(c, c->h_a, dpsi, p, &ar, &ai);     /* <phi, D psi> */
    hostDot(c, dphi, c->h_b, 1 - p, &br, &bi); /* <D phi, psi> */
    const double scale = fabs(ar) + fabs(ai);
    const double err = hypot(ar + br, ai + bi) / scale;
    snprintf(d, sizeof(d), "phi %s, <phi, D psi> = (%.6f, %.6f), relative |sum| %.1e",
             p ? "odd" : "even", ar, ai, err);
    report(err <= 1e-12 && scale > 1.0, "D is anti-Hermitian: <phi, D psi> = -<D phi, psi>", d);
    free(dpsi);
    free(dphi);
  }
}

static void checkRandomSolve(ctx *c) {
  milcGaugeRandom(&c->L, c->h_U, 5);
  uploadLinks(c);
  memset(c->h_b, 0, c->vb);
  milcSourceRandom(&c->L, c->h_b, MILC_EVEN, 6);
  copyToTarget(c->t_b, c->h_b, c->vb);
  targetZero(c->t_c, c->vb / sizeof(double));
  const double tol = 1e-10;
  milcCgParams cp = {0.05, tol, 2000, 0, 0, MILC_CG_FUSED};
  milcCgResult r;
  milcCgSolve(&c->ops, c->t_U, c->t_c, c->t_b, &cp, &c->w, &r);
  char d[200];
  snprintf(d, sizeof(d), "m = 0.05, tol %.0e: %ld iterations, true residual %.2e", tol,
           r.iterations, r.true_residual);
  report(r.converged && r.true_residual <= tol && r.iterations > 10,
         "random field: true residual <= requested tolerance", d);
}

/* A zero source has no relative residual to meet: the solve must say so,
 * not report "converged" after 0 iterations (issue 27). */
static void checkZeroSource(ctx *c) {
  milcGaugeRandom(&c->L, c->h_U, 5);
  uploadLinks(c);
  targetZero(c->t_b, c->vb / sizeof(double));
  targetZero(c->t_c, c->vb / sizeof(double));
  milcCgParams cp = {0.1, 1e-10, 100, 0, 0, MILC_CG_FUSED};
  milcCgResult r;
  milcCgSolve(&c->ops, c->t_U, c->t_c, c->t_b, &cp, &c->w, &r);
  char d[200];
  snprintf(d, sizeof(d), "converged %d, breakdown %d, %ld iterations", r.converged,
           (int) r.breakdown, r.iterations);
  report(!r.converged && r.breakdown == MILC_CG_BREAKDOWN_ZERO_SOURCE && r.iterations == 0,
         "zero source: a breakdown (zero source), not converged", d);
}

static void checkGaugeCovariance(ctx *c) {
  const uint64_t gseed = 99;
  const double mass = 0.3;
  milcGaugeRandom(&c->L, c->h_U, 8);
  uploadLinks(c);
  memset(c->h_b, 0, c->vb);
  milcSourceRandom(&c->L, c->h_b, MILC_EVEN, 9);
  copyToTarget(c->t_b, c->h_b, c->vb);
  /* D psi, and the solution x, in the original gauge */
  milcDslash(&c->ops, c->t_U, c->t_b, c->t_d, MILC_ODD);
  double *dpsi = (double *) calloc(1, c->vb), *x = (double *) calloc(1, c->vb);
  copyFromTarget(dpsi, c->t_d, c->vb);
  targetZero(c->t_c, c->vb / sizeof(double));
  milcCgParams cp = {mass, 1e-13, 1000, 0, 0, MILC_CG_FUSED};
  milcCgResult r1, r2;
  milcCgSolve(&c->ops, c->t_U, c->t_c, c->t_b, &cp, &c->w, &r1);
  copyFromTarget(x, c->t_c, c->vb);
  /* transformed: U^g, g b */
  milcGaugeTransformLinks(&c->L, c->h_U, gseed);
  uploadLinks(c);
  milcGaugeTransformVector(&c->L, c->h_b, MILC_EVEN, gseed);
  copyToTarget(c->t_b, c->h_b, c->vb);
  milcDslash(&c->ops, c->t_U, c->t_b, c->t_d, MILC_ODD);
  copyFromTarget(c->h_a, c->t_d, c->vb);
  milcGaugeTransformVector(&c->L, dpsi, MILC_ODD, gseed);
  double diff, norm;
  char d[200];
  hostDiff(c, c->h_a, dpsi, MILC_ODD, &diff, &norm);
  snprintf(d, sizeof(d), "max |D'(g psi) - g D psi| / max = %.1e", diff / norm);
  report(diff <= 1e-12 * norm && norm > 0.1, "gauge covariance of D", d);
  targetZero(c->t_c, c->vb / sizeof(double));
  milcCgSolve(&c->ops, c->t_U, c->t_c, c->t_b, &cp, &c->w, &r2);
  copyFromTarget(c->h_c, c->t_c, c->vb);
  milcGaugeTransformVector(&c->L, x, MILC_EVEN, gseed);
  hostDiff(c, c->h_c, x, MILC_EVEN, &diff, &norm);
  snprintf(d, sizeof(d), "%ld and %ld iterations, max |x' - g x| / max |x| = %.1e", r1.iterations,
           r2.iterations, diff / norm);
  report(r1.converged && r2.converged && diff <= 1e-10 * norm && norm > 0.1,
         "gauge covariance of the solution: x' = g x to 1e-10", d);
  free(dpsi);
  free(x);
}

/* The same solve with float storage (arithmetic and sums in double):
 * true residual <= tol, and the solution agrees with the double one to
 * cond(M) tol (m = 0.5: cond <= 65). */
static void checkSinglePrecision(ctx *c) {
  const double mass = 0.5, tol = 1e-5;
  milcGaugeRandom(&c->L, c->h_U, 12);
  uploadLinks(c);
  memset(c->h_b, 0, c->vb);
  milcSourceRandom(&c->L, c->h_b, MILC_EVEN, 13);
  copyToTarget(c->t_b, c->h_b, c->vb);
  targetZero(c->t_c, c->vb / sizeof(double));
  milcCgParams cp = {mass, 1e-12, 1000, 0, 0, MILC_CG_FUSED};
  milcCgResult rd, rf;
  milcCgSolve(&c->ops, c->t_U, c->t_c, c->t_b, &cp, &c->w, &rd);
  copyFromTarget(c->h_a, c->t_c, c->vb);

  float *U = (float *) milcFieldAlloc(&c->L, MILC_NL, sizeof(float));
  float *b = (float *) milcFieldAlloc(&c->L, MILC_NV, sizeof(float));
  float *x = (float *) milcFieldAlloc(&c->L, MILC_NV, sizeof(float));
  milcCgWork w;
  milcCgWorkCreate(&w, &c->L, sizeof(float));
  milcUpload(&c->L, U, c->h_U, MILC_NL, MILC_SINGLE);
  milcHaloFill_f(&c->L, U, MILC_NL, -1);
  milcUpload(&c->L, b, c->h_b, MILC_NV, MILC_SINGLE);
  cp.tol = tol;
  milcCgSolve_f(&c->ops, U, x, b, &cp, &w, &rf);
  milcDownload(&c->L, c->h_c, x, MILC_NV, MILC_SINGLE);
  double diff, norm;
  hostDiff(c, c->h_c, c->h_a, MILC_EVEN, &diff, &norm);
  char d[200];
  snprintf(d, sizeof(d), "m = %.1f, tol %.0e: %ld iterations (double: %ld), true residual %.2e",
           mass, tol, rf.iterations, rd.iterations, rf.true_residual);
  report(rf.converged && rf.true_residual <= tol && rd.converged,
         "single precision: true residual <= requested tolerance", d);
  snprintf(d, sizeof(d), "max |x_single - x_double| / max |x| = %.1e (limit 65 tol)", diff / norm);
  report(diff <= 65 * tol * norm && diff > 0.0 && norm > 0.1,
         "single precision: solution agrees with double to cond(M) tol", d);
  milcCgWorkFree(&w);
  targetFree(U);
  targetFree(b);
  targetFree(x);
}

/* --compare A B TOL */
static int compare(const char *a, const char *b, const char *tol_text) {
  /* Bad input is status 2, not a comparison: a typo is no tolerance 0, a
   * FIFO (stat first) no file to block on. */
  double tol = 0.0;
  char err[600];
  if (cliNumbers(tol_text, &tol, 1, CLI_REAL) != 1 || tol < 0.0) {
    fprintf(stderr, "milccheck: the tolerance must be a finite number >= 0, not '%s'\n", tol_text);
    return 2;
  }
  if (fioCheckRegular(a, "solution", err, sizeof(err)) ||
      fioCheckRegular(b, "solution", err, sizeof(err))) {
    fprintf(stderr, "milccheck: %s\n", err);
    return 2;
  }
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  if (!fa || !fb) {
    printf("FAIL: compare (cannot read '%s' or '%s')\n", a, b);
    return 1;
  }
  double va, vb, diff = 0.0, norm = 0.0;
  long n = 0, differ = 0;
  int same_length = 0;
  for (;;) {
    const size_t ra = fread(&va, sizeof(double), 1, fa), rb = fread(&vb, sizeof(double), 1, fb);
    if (ra != 1 || rb != 1) {
      same_length = ra == rb;
      break;
    }
    n++;
    diff = fmax(diff, fabs(va - vb));
    norm = fmax(norm, fabs(va));
    differ += va != vb;
  }
  fclose(fa);
  fclose(fb);
  const int pass = same_length && n > 0 && diff <= tol * norm && norm > 0.0;
  printf("%s: %ld values, %ld differ, max |a - b| / max |a| = %.2e%s\n", pass ? "PASS" : "FAIL", n,
         differ, norm > 0 ? diff / norm : 0.0, same_length ? "" : ", lengths differ");
  return !pass;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc == 5 && strcmp(argv[1], "--compare") == 0) {
    const int rc = compare(argv[2], argv[3], argv[4]);
    MPI_Finalize();
    return rc;
  }
  int nranks;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks != 1 || argc != 1) {
    fprintf(stderr, "usage: milccheck (one rank), or milccheck --compare A B TOL\n");
    MPI_Finalize();
    return 2;
  }
  targetInit();
  printf("# milccheck: %s\n", targetConfigString());
  const int global[4] = {6, 4, 4, 8}; /* unequal extents catch index mix-ups */
  ctx c;
  ctxCreate(&c, global);
  checkSU3(&c);
  checkDecompositionIndependence(&c);
  checkFreeField(&c);
  checkAntiHermitian(&c);
  checkRandomSolve(&c);
  checkZeroSource(&c);
  checkGaugeCovariance(&c);
  checkHaloAxes(&c);
  checkSinglePrecision(&c);
  ctxFree(&c);
  targetFinalize();
  printf("%d check(s) failed\n", failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
