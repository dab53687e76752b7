/* Kernels of the solver (kernels.h). Compiled as C (OpenMP) or as CUDA. */
#include <stdlib.h>

#include "common/timer.h"
#include "kernels.h"
#include "su3.h"

void milcOpsCreate(milcOps *o, const milcLattice *L, MPI_Comm comm) {
  o->L = L;
  o->comm = comm;
  targetMalloc(&o->t_sum, sizeof(double));
  for (int k = 0; k < MILC_K_NKIND; k++) {
    o->cnt.seconds[k] = o->cnt.flops[k] = o->cnt.bytes[k] = 0.0;
    o->cnt.calls[k] = 0;
  }
}

void milcOpsFree(milcOps *o) {
  targetFree(o->t_sum);
  o->t_sum = NULL;
}

/* Staggered phase eta_mu(x) = (-1)^(x_0 + ... + x_{mu-1}), global x. */
TDP_HOST_DEVICE static inline double milcEta(const milcGeom *g, const int x[4], int mu) {
  int s = 0;
  for (int d = 0; d < mu; d++) s += g->offset[d] + x[d];
  return (s & 1) ? -1.0 : 1.0;
}

/* (D src)(x) at interior site h of parity p; returns its storage index.
 * src lives on the other parity, whose halo must be current. */
TDP_DEVICE static inline int dslashSite(const milcGeom *g, const double *U, const double *src,
                                        int p, int h, double out[6]) {
  int s, x[4];
  const int site = milcSite(g, p, h, &s, x);
  const int nall = g->nall, other = (1 - p) * g->vh;
  (void) nall; /* not every layout's TDP_INDEX reads the site count */
  for (int c = 0; c < 6; c++) out[c] = 0.0;
  for (int mu = 0; mu < 4; mu++) {
    const int fwd = other + (s + g->str[mu]) / 2, bwd = other + (s - g->str[mu]) / 2;
    double u[18], v[6], y[6], w[6];
    for (int c = 0; c < 18; c++) u[c] = U[TDP_INDEX(nall, MILC_NL, site, 18 * mu + c)];
    for (int c = 0; c < 6; c++) v[c] = src[TDP_INDEX(nall, MILC_NV, fwd, c)];
    su3MulVec(u, v, y);
    for (int c = 0; c < 18; c++) u[c] = U[TDP_INDEX(nall, MILC_NL, bwd, 18 * mu + c)];
    for (int c = 0; c < 6; c++) v[c] = src[TDP_INDEX(nall, MILC_NV, bwd, c)];
    su3AdjMulVec(u, v, w);
    const double eta = 0.5 * milcEta(g, x, mu);
    for (int c = 0; c < 6; c++) out[c] += eta * (y[c] - w[c]);
  }
  return site;
}

TDP_KERNEL static void kDslash(milcGeom g, const double *U, const double *src, double *dst,
                               int p) {
  TDP_TLP(base, g.nhalf) {
    TDP_ILP(v) {
      double out[6];
      const int site = dslashSite(&g, U, src, p, base + v, out);
      for (int c = 0; c < 6; c++) dst[TDP_INDEX(g.nall, MILC_NV, site, c)] = out[c];
    }
  }
}

TDP_KERNEL static void kDslashAxpby(milcGeom g, const double *U, const double *src,
                                    const double *w, double *dst, int p, double a, double b,
                                    double *t_sum) {
  double sum = 0.0;
  TDP_TLP_SUM(base, g.nhalf, sum) {
    TDP_ILP_SUM(v, sum) {
      double out[6];
      const int site = dslashSite(&g, U, src, p, base + v, out);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        const double wc = w[i], z = a * wc + b * out[c];
        dst[i] = z;
        sum += wc * z;
      }
    }
  }
  targetBlockAddDouble(t_sum, sum);
}

TDP_KERNEL static void kAxpbyNorm(milcGeom g, double *z, const double *x, const double *y, int p,
                                  double a, double b, double *t_sum) {
  double sum = 0.0;
  TDP_TLP_SUM(base, g.nhalf, sum) {
    TDP_ILP_SUM(v, sum) {
      int s, xc[4];
      const int site = milcSite(&g, p, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        const double zc = a * x[i] + b * y[i];
        z[i] = zc;
        sum += zc * zc;
      }
    }
  }
  targetBlockAddDouble(t_sum, sum);
}

TDP_KERNEL static void kXpay(milcGeom g, double *pv, const double *r, int par, double beta) {
  TDP_TLP(base, g.nhalf) {
    TDP_ILP(v) {
      int s, xc[4];
      const int site = milcSite(&g, par, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        pv[i] = r[i] + beta * pv[i];
      }
    }
  }
}

TDP_KERNEL static void kCgUpdate(milcGeom g, double *x, double *r, const double *pv,
                                 const double *q, int par, double alpha, double *t_sum) {
  double sum = 0.0;
  TDP_TLP_SUM(base, g.nhalf, sum) {
    TDP_ILP_SUM(v, sum) {
      int s, xc[4];
      const int site = milcSite(&g, par, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        x[i] += alpha * pv[i];
        const double rc = r[i] - alpha * q[i];
        r[i] = rc;
        sum += rc * rc;
      }
    }
  }
  targetBlockAddDouble(t_sum, sum);
}

TDP_KERNEL static void kDot(milcGeom g, const double *x, const double *y, int p, double *t_sum) {
  double sum = 0.0;
  TDP_TLP_SUM(base, g.nhalf, sum) {
    TDP_ILP_SUM(v, sum) {
      int s, xc[4];
      const int site = milcSite(&g, p, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        sum += x[i] * y[i];
      }
    }
  }
  targetBlockAddDouble(t_sum, sum);
}

/* ---------------------------------------------------------------- host */

static void account(milcOps *o, milcKernelKind k, double t0, double flops_site,
                    double doubles_site) {
  targetSynchronize();
  o->cnt.seconds[k] += timerNow() - t0;
  o->cnt.flops[k] += flops_site * o->L->g.nhalf;
  o->cnt.bytes[k] += 8.0 * doubles_site * o->L->g.nhalf;
  o->cnt.calls[k]++;
}

static double global_sum(milcOps *o) {
  double local = 0.0, total = 0.0;
  copyFromTarget(&local, o->t_sum, sizeof(double));
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, o->comm);
  return total;
}

static void halo(milcOps *o, double *t_f, int p) {
  targetSynchronize();
  const double t0 = timerNow();
  milcHaloFill(o->L, t_f, MILC_NV, p);
  account(o, MILC_K_HALO, t0, 0.0, 0.0);
}

void milcDslash(milcOps *o, const double *t_U, double *t_src, double *t_dst, int p) {
  halo(o, t_src, 1 - p);
  const double t0 = timerNow();
  TDP_LAUNCH(kDslash, o->L->g.nhalf, o->L->g, t_U, t_src, t_dst, p);
  account(o, MILC_K_DSLASH, t0, MILC_DSLASH_FLOPS, MILC_DSLASH_DOUBLES);
}

double milcDslashAxpby(milcOps *o, const double *t_U, double *t_src, const double *t_w,
                       double *t_dst, int p, double a, double b) {
  halo(o, t_src, 1 - p);
  targetZero(o->t_sum, 1);
  const double t0 = timerNow();
  TDP_LAUNCH_REDUCE(kDslashAxpby, o->L->g.nhalf, o->L->g, t_U, t_src, t_w, t_dst, p, a, b,
                    o->t_sum);
  account(o, MILC_K_DSLASH, t0, MILC_DSLASH_FLOPS + 6 * 3.0 + 12.0,
          MILC_DSLASH_DOUBLES + MILC_NV);
  return global_sum(o);
}

double milcAxpbyNorm(milcOps *o, double *t_z, const double *t_x, const double *t_y, int p,
                     double a, double b) {
  targetZero(o->t_sum, 1);
  const double t0 = timerNow();
  TDP_LAUNCH_REDUCE(kAxpbyNorm, o->L->g.nhalf, o->L->g, t_z, t_x, t_y, p, a, b, o->t_sum);
  account(o, MILC_K_BLAS, t0, 6 * 3.0 + 12.0, 3.0 * MILC_NV);
  return global_sum(o);
}

void milcXpay(milcOps *o, double *t_p, const double *t_r, int par, double beta) {
  const double t0 = timerNow();
  TDP_LAUNCH(kXpay, o->L->g.nhalf, o->L->g, t_p, t_r, par, beta);
  account(o, MILC_K_BLAS, t0, 12.0, 3.0 * MILC_NV);
}

double milcCgUpdate(milcOps *o, double *t_x, double *t_r, const double *t_p, const double *t_q,
                    int par, double alpha) {
  targetZero(o->t_sum, 1);
  const double t0 = timerNow();
  TDP_LAUNCH_REDUCE(kCgUpdate, o->L->g.nhalf, o->L->g, t_x, t_r, t_p, t_q, par, alpha, o->t_sum);
  account(o, MILC_K_BLAS, t0, 4 * 6.0 + 12.0, 6.0 * MILC_NV);
  return global_sum(o);
}

double milcDot(milcOps *o, const double *t_x, const double *t_y, int p) {
  targetZero(o->t_sum, 1);
  const double t0 = timerNow();
  TDP_LAUNCH_REDUCE(kDot, o->L->g.nhalf, o->L->g, t_x, t_y, p, o->t_sum);
  account(o, MILC_K_BLAS, t0, 12.0, 2.0 * MILC_NV);
  return global_sum(o);
}
