/* The solver's kernels and their host calls for one storage type:
 * included by kernels.c once per precision, with MILC_REAL the type of the
 * fields and R(name) the name of the function for it (kernels.h). The
 * arithmetic is in double whatever the storage: single precision halves
 * the bytes, which is what limits these kernels. No include guard. */

void R(milcHaloFill)(const milcLattice *L, MILC_REAL *t_f, int ncomp, int p) {
  milcHaloStart(L, t_f, ncomp, p, sizeof(MILC_REAL));
  milcHaloWait(L, t_f, ncomp, p, sizeof(MILC_REAL));
}

TDP_KERNEL static void R(kZero)(MILC_REAL *f, int n) {
  TDP_TLP_NOSTRIDE(k, n) f[k] = 0;
}

void R(milcFieldZero)(const milcLattice *L, MILC_REAL *t_f, int ncomp) {
  const int n = (int) TDP_FIELD_SIZE(L->g.nall, ncomp);
  TDP_LAUNCH_NOSTRIDE(R(kZero), n, t_f, n);
}

/* (D src)(x) at interior site h of parity p; returns its storage index.
 * src lives on the other parity, whose halo (axes split over ranks) must
 * be current; along the other axes the neighbours wrap on the rank. */
TDP_DEVICE static inline int R(dslashSite)(const milcGeom *g, const MILC_REAL *MILC_RESTRICT U,
                                           const MILC_REAL *MILC_RESTRICT src, int p, int h,
                                           double out[6]) {
  int s, x[4];
  const int site = milcSite(g, p, h, &s, x);
  const int nall = g->nall, other = (1 - p) * g->vh;
  (void) nall; /* not every layout's TDP_INDEX reads the site count */
  for (int c = 0; c < 6; c++) out[c] = 0.0;
  /* Fully unrolled, so that g->str[mu] and the phase's sum over the
   * offsets read kernel parameters at constant offsets: left a loop (as
   * nvcc did in kDslashAxpby), g was copied to an 80-byte stack frame to
   * be indexed by mu. */
  TDP_UNROLL(4)
  for (int mu = 0; mu < 4; mu++) {
    int hf, hb; /* into the halo, or wrapped on an axis without halo */
    milcHop(g, mu, x[mu], &hf, &hb);
    const int fwd = other + (s + hf) / 2, bwd = other + (s + hb) / 2;
    double u[18], v[6], y[6], w[6];
    for (int c = 0; c < 18; c++) u[c] = MILC_LINK_LOAD(U + TDP_INDEX(nall, MILC_NL, site, 18 * mu + c));
    for (int c = 0; c < 6; c++) v[c] = src[TDP_INDEX(nall, MILC_NV, fwd, c)];
    su3MulVec(u, v, y);
    for (int c = 0; c < 18; c++) u[c] = MILC_LINK_LOAD(U + TDP_INDEX(nall, MILC_NL, bwd, 18 * mu + c));
    for (int c = 0; c < 6; c++) v[c] = src[TDP_INDEX(nall, MILC_NV, bwd, c)];
    su3AdjMulVec(u, v, w);
    const double eta = 0.5 * milcEta(g, x, mu);
    for (int c = 0; c < 6; c++) out[c] += eta * (y[c] - w[c]);
  }
  return site;
}

/* The sweeps walk a list of half indices hl[0..n): the interior sites
 * while the halo moves, then the boundary sites; hl NULL: h = 0 .. n-1
 * (all sites interior: one rank, no halo). */
MILC_DSLASH_KERNEL static void R(kDslash)(milcGeom g, const MILC_REAL *MILC_RESTRICT U,
                                          const MILC_REAL *MILC_RESTRICT src,
                                          MILC_REAL *MILC_RESTRICT dst, int p,
                                          const int *MILC_RESTRICT hl, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      double out[6];
      const int site = R(dslashSite)(&g, U, src, p, hl ? hl[base + v] : (int) (base + v), out);
      for (int c = 0; c < 6; c++) dst[TDP_INDEX(g.nall, MILC_NV, site, c)] = (MILC_REAL) out[c];
    }
  }
}

MILC_DSLASH_KERNEL static void R(kDslashAxpby)(milcGeom g, const MILC_REAL *MILC_RESTRICT U,
                                               const MILC_REAL *MILC_RESTRICT src,
                                               const MILC_REAL *MILC_RESTRICT w,
                                               MILC_REAL *MILC_RESTRICT dst, int p, double a,
                                               double b, const int *MILC_RESTRICT hl, int n,
                                               tdpExactSum *t_sum) {
  tdpExactAcc sum = tdpExactAccOn(t_sum);
  TDP_TLP_EXACT(base, n, sum) {
    TDP_ILP_REDUCE(v) {
      double out[6];
      const int site = R(dslashSite)(&g, U, src, p, hl ? hl[base + v] : (int) (base + v), out);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        const double wc = w[i];
        const MILC_REAL z = (MILC_REAL) (a * wc + b * out[c]);
        dst[i] = z;
        tdpExactAdd(&sum, wc * z);
      }
    }
  }
  targetBlockAddExact(&sum);
}

TDP_KERNEL static void R(kAxpbyNorm)(milcGeom g, MILC_REAL *z, const MILC_REAL *x,
                                     const MILC_REAL *y, int p, double a, double b, tdpExactSum *t_sum) {
  tdpExactAcc sum = tdpExactAccOn(t_sum);
  TDP_TLP_EXACT(base, g.nhalf, sum) {
    TDP_ILP_REDUCE(v) {
      int s, xc[4];
      const int site = milcSite(&g, p, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        const MILC_REAL zc = (MILC_REAL) (a * x[i] + b * y[i]);
        z[i] = zc;
        tdpExactAdd(&sum, (double) zc * zc);
      }
    }
  }
  targetBlockAddExact(&sum);
}

TDP_KERNEL static void R(kXpay)(milcGeom g, MILC_REAL *pv, const MILC_REAL *r, int par,
                                double beta) {
  TDP_TLP(base, g.nhalf) {
    TDP_ILP(v) {
      int s, xc[4];
      const int site = milcSite(&g, par, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        pv[i] = (MILC_REAL) (r[i] + beta * pv[i]);
      }
    }
  }
}

TDP_KERNEL static void R(kCgUpdate)(milcGeom g, MILC_REAL *x, MILC_REAL *r, const MILC_REAL *pv,
                                    const MILC_REAL *q, int par, double alpha, tdpExactSum *t_sum) {
  tdpExactAcc sum = tdpExactAccOn(t_sum);
  TDP_TLP_EXACT(base, g.nhalf, sum) {
    TDP_ILP_REDUCE(v) {
      int s, xc[4];
      const int site = milcSite(&g, par, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        x[i] = (MILC_REAL) (x[i] + alpha * pv[i]);
        const MILC_REAL rc = (MILC_REAL) (r[i] - alpha * q[i]);
        r[i] = rc;
        tdpExactAdd(&sum, (double) rc * rc);
      }
    }
  }
  targetBlockAddExact(&sum);
}

/* CG split as QUDA's (axpyNorm, then axpyZpbx): r -= alpha q with |r|^2,
 * then x += alpha p and p = r + beta p in one pass, which reads p once for
 * both (kCgUpdate + kXpay read it twice). With t_pap (one rank), alpha =
 * rr / <p, Mp> is formed here from the sum the operator just left on the
 * target, so the host need not read it first: the same division as the
 * host's, and 0 where the host would stop with a breakdown (<p, Mp> not
 * positive and finite, or rr not finite), which leaves r as it was. */
TDP_KERNEL static void R(kRUpdate)(milcGeom g, MILC_REAL *r, const MILC_REAL *q, int par,
                                   double alpha, const tdpExactSum *t_pap, double rr,
                                   const tdpExactSum *t_rr, tdpExactSum *t_sum) {
  /* (t_rr and t_pap are the same in every thread: the block reads agree) */
  if (t_rr) rr = targetBlockExactValue(t_rr); /* --cg ahead: the host has not read it yet */
  if (t_pap) {
    const double pap = targetBlockExactValue(t_pap);
    alpha = pap > 0.0 && isfinite(pap) && isfinite(rr) ? rr / pap : 0.0;
  }
  tdpExactAcc sum = tdpExactAccOn(t_sum);
  TDP_TLP_EXACT(base, g.nhalf, sum) {
    TDP_ILP_REDUCE(v) {
      int s, xc[4];
      const int site = milcSite(&g, par, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        const MILC_REAL rc = (MILC_REAL) (r[i] - alpha * q[i]);
        r[i] = rc;
        tdpExactAdd(&sum, (double) rc * rc);
      }
    }
  }
  targetBlockAddExact(&sum);
}

/* x += alpha p, and (update_p) p = r + beta p. With t_s (--cg ahead, one
 * rank): alpha = rr0 / pap and beta = rr1 / rr0 from the target's sums
 * t_s[0] = rr0 (|r|^2 before the last update), t_s[1] = pap, t_s[2] = rr1
 * (after it), as the host forms them (alpha 0 where the host would see a
 * breakdown); and block 0 zeroes t_zero[0, 1], the sums of the iteration
 * after the next. */
TDP_KERNEL static void R(kAxpyZpbx)(milcGeom g, MILC_REAL *x, MILC_REAL *pv, const MILC_REAL *r,
                                    int par, double alpha, double beta, int update_p,
                                    const tdpExactSum *t_rr0, const tdpExactSum *t_pap,
                                    const tdpExactSum *t_rr1, tdpExactSum *t_zero) {
  if (t_pap) { /* read before any thread zeroes t_zero: a different pair */
    const double rr0 = targetBlockExactValue(t_rr0), pap = targetBlockExactValue(t_pap);
    alpha = pap > 0.0 && isfinite(pap) && isfinite(rr0) ? rr0 / pap : 0.0;
    beta = targetBlockExactValue(t_rr1) / rr0;
  }
  TDP_TLP(base, g.nhalf) {
    TDP_ILP(v) {
      int s, xc[4];
      const int site = milcSite(&g, par, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        const double pc = pv[i];
        x[i] = (MILC_REAL) (x[i] + alpha * pc);
        if (update_p) pv[i] = (MILC_REAL) (r[i] + beta * pc);
      }
      if (t_zero && base + v == 0) { /* one thread (site 0) */
        tdpExactSumZero(&t_zero[0]);
        tdpExactSumZero(&t_zero[1]);
      }
    }
  }
}

/* --cg merged (Chronopoulos & Gear 1989: one global sum an iteration).
 * Iteration j: from the exact sums g_j = |r_j|^2 and d_j = <r_j, M r_j>
 * (sc[0], sc[1]), g_{j-1} (sc_prev[0]) and alpha_{j-1} (md_prev[1]):
 *   beta_j = g_j / g_{j-1},  den_j = d_j - beta_j g_j / alpha_{j-1}
 *   (j = 0: beta 0, den d_0),  alpha_j = g_j / den_j,
 * then p = r + beta p, s = w + beta s (w = M r), x += alpha p, r -= alpha s,
 * and |r|^2 summed exactly into t_sum (g_{j+1}; <r, M r> follows in D's
 * sweep). den_j is <p_j, M p_j> in exact arithmetic. alpha 0 (x and r
 * left as they are) where the host stops: den_j not positive and finite,
 * g_j not finite (a breakdown), sqrt(g_j / bb) <= tol (converged: the
 * host's own expression), or stop (the iteration limit). One thread
 * stores den_j and alpha_j (md[0], md[1]) and zeroes the sums of
 * iteration j + 2 (zero[0], zero[1]). */
TDP_KERNEL static void R(kCgMerged)(milcGeom g, MILC_REAL *x, MILC_REAL *r, MILC_REAL *pv,
                                    MILC_REAL *s, const MILC_REAL *w, int par,
                                    const tdpExactSum *sc, const tdpExactSum *sc_prev, double *md,
                                    const double *md_prev, tdpExactSum *zero, double bb,
                                    double tol, int first, int stop, tdpExactSum *t_sum) {
  /* every thread of a block reads the sums (not in divergent code) */
  const double gj = targetBlockExactValue(&sc[0]), dj = targetBlockExactValue(&sc[1]),
               gprev = targetBlockExactValue(&sc_prev[0]);
  const double beta = first ? 0.0 : gj / gprev;
  const double den = first ? dj : dj - beta * gj / md_prev[1];
  double alpha = den > 0.0 && isfinite(den) && isfinite(gj) ? gj / den : 0.0;
  if (stop || sqrt(gj / bb) <= tol) alpha = 0.0;
  tdpExactAcc sum = tdpExactAccOn(t_sum);
  TDP_TLP_EXACT(base, g.nhalf, sum) {
    TDP_ILP_REDUCE(v) {
      int st, xc[4];
      const int site = milcSite(&g, par, base + v, &st, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        const MILC_REAL pc = first ? r[i] : (MILC_REAL) (r[i] + beta * pv[i]);
        const MILC_REAL sv = first ? (MILC_REAL) w[i] : (MILC_REAL) (w[i] + beta * s[i]);
        pv[i] = pc;
        s[i] = sv;
        x[i] = (MILC_REAL) (x[i] + alpha * pc);
        const MILC_REAL rc = (MILC_REAL) (r[i] - alpha * sv);
        r[i] = rc;
        tdpExactAdd(&sum, (double) rc * rc);
      }
      if (base + v == 0) { /* one thread (site 0) */
        md[0] = den;
        md[1] = alpha;
        tdpExactSumZero(&zero[0]);
        tdpExactSumZero(&zero[1]);
      }
    }
  }
  targetBlockAddExact(&sum);
}

TDP_KERNEL static void R(kDot)(milcGeom g, const MILC_REAL *x, const MILC_REAL *y, int p,
                               tdpExactSum *t_sum) {
  tdpExactAcc sum = tdpExactAccOn(t_sum);
  TDP_TLP_EXACT(base, g.nhalf, sum) {
    TDP_ILP_REDUCE(v) {
      int s, xc[4];
      const int site = milcSite(&g, p, base + v, &s, xc);
      for (int c = 0; c < 6; c++) {
        const size_t i = TDP_INDEX(g.nall, MILC_NV, site, c);
        tdpExactAdd(&sum, (double) x[i] * y[i]);
      }
    }
  }
  targetBlockAddExact(&sum);
}

/* The halo of src (parity 1 - p) moves while the interior sites are
 * computed; the boundary sites follow. Timed as one (the halo's own
 * share, what the interior did not hide, as halo). On a lattice without
 * halo (no axis split: one rank) there is neither exchange nor boundary:
 * one launch over all sites, which walks the parity by its half index
 * (no site list: the list would be h itself) unless MILC_TIME_SYNC asks
 * for the path as before. The interior is
 * launched on its own stream: it reads no halo site and the exchange
 * writes only halo sites; the exchange's kernels, on the halo's
 * high-priority stream, run beside it, queued before it with the put
 * transport (milcHaloQueueFirst says why), after it otherwise. The
 * boundary sweep, on the default stream, waits for both. */
static const int *R(interior_list)(const milcOps *o, int p) {
  const milcLattice *L = o->L;
  return L->nin[p] == L->g.nhalf && o->timing != MILC_TIME_SYNC ? NULL : L->t_hin[p];
}

void R(milcDslash)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_src, MILC_REAL *t_dst, int p) {
  const milcLattice *L = o->L;
  /* room for two: this and its exchange's (halo_fill) */
  const int first = milcHaloQueueFirst(L, MILC_NV, 1 - p, sizeof(MILC_REAL));
  const int ts_ = time_start_room(o, L->nin[p] ? o->interior : TARGET_STREAM_DEFAULT, 1, 2);
  if (first) halo_fill(o, t_src, 1 - p, sizeof(MILC_REAL));
  if (L->nin[p])
    TDP_LAUNCH_STREAM(R(kDslash), L->nin[p], o->interior, L->g, t_U, t_src, t_dst, p,
                      R(interior_list)(o, p), L->nin[p]);
  if (!first) halo_fill(o, t_src, 1 - p, sizeof(MILC_REAL));
  if (L->nbd[p])
    TDP_LAUNCH(R(kDslash), L->nbd[p], L->g, t_U, t_src, t_dst, p, L->t_hbd[p], L->nbd[p]);
  account_at(o, ts_, MILC_K_DSLASH, L->nbd[p] ? TARGET_STREAM_DEFAULT : o->interior, MILC_DSLASH_FLOPS,
          (MILC_DSLASH_DOUBLES) * sizeof(MILC_REAL));
}

static tdpExactSum *R(dslash_axpby_queue)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_src,
                                     const MILC_REAL *t_w, MILC_REAL *t_dst, int p, double a,
                                     double b, tdpExactSum *t_sum) {
  const milcLattice *L = o->L;
  const int first = milcHaloQueueFirst(L, MILC_NV, 1 - p, sizeof(MILC_REAL));
  const int ts_ = time_start_room(o, L->nin[p] ? o->interior : TARGET_STREAM_DEFAULT, 1, 2);
  if (first) halo_fill(o, t_src, 1 - p, sizeof(MILC_REAL));
  if (L->nin[p])
    MILC_DSLASH_REDUCE_STREAM(R(kDslashAxpby), L->nin[p], o->interior, L->g, t_U, t_src, t_w,
                              t_dst, p, a, b, R(interior_list)(o, p), L->nin[p], t_sum);
  if (!first) halo_fill(o, t_src, 1 - p, sizeof(MILC_REAL));
  if (L->nbd[p])
    MILC_DSLASH_REDUCE_STREAM(R(kDslashAxpby), L->nbd[p], TARGET_STREAM_DEFAULT, L->g, t_U, t_src,
                              t_w, t_dst, p, a, b, L->t_hbd[p], L->nbd[p], t_sum);
  account_at(o, ts_, MILC_K_DSLASH, L->nbd[p] ? TARGET_STREAM_DEFAULT : o->interior,
          MILC_DSLASH_FLOPS + 6 * 3.0 + 12.0, (MILC_DSLASH_DOUBLES + MILC_NV) * sizeof(MILC_REAL));
  return t_sum;
}

double R(milcDslashAxpby)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_src, const MILC_REAL *t_w,
                          MILC_REAL *t_dst, int p, double a, double b) {
  R(dslash_axpby_queue)(o, t_U, t_src, t_w, t_dst, p, a, b, sum_slot(o));
  return global_sum(o);
}

const tdpExactSum *R(milcDslashAxpbyQueued)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_src,
                                       const MILC_REAL *t_w, MILC_REAL *t_dst, int p, double a,
                                       double b) {
  sum_reserve(o, 2); /* this sum and milcRUpdate's: one copy reads both */
  const tdpExactSum *t_sum = R(dslash_axpby_queue)(o, t_U, t_src, t_w, t_dst, p, a, b, sum_slot(o));
  o->slot++;
  return t_sum;
}

double R(milcRUpdate)(milcOps *o, MILC_REAL *t_r, const MILC_REAL *t_q, int par, double alpha,
                      const tdpExactSum *t_pap, double rr, double *pap) {
  tdpExactSum *t_sum = sum_slot(o);
  /* several ranks, sums on the target: <p, Mp> global before the kernel
   * forms alpha from it (milcDeviceSum; nothing on one rank) */
  if (t_pap) milcDeviceSum(o, (tdpExactSum *) t_pap, 1);
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH_REDUCE(R(kRUpdate), o->L->g.nhalf, o->L->g, t_r, t_q, par, alpha, t_pap, rr,
                    (const tdpExactSum *) NULL, t_sum);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 2 * 6.0 + 12.0, (3.0 * MILC_NV) * sizeof(MILC_REAL));
  if (!t_pap) return global_sum(o);
  milcDeviceSum(o, t_sum, 1);
  double v[2];
  global_sums(o, t_pap, 2, v, 1); /* <p, Mp> and |r|^2, adjacent, summed on the target */
  *pap = v[0];
  return v[1];
}

void R(milcAxpyZpbx)(milcOps *o, MILC_REAL *t_x, MILC_REAL *t_p, const MILC_REAL *t_r, int par,
                     double alpha, double beta, int update_p) {
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH(R(kAxpyZpbx), o->L->g.nhalf, o->L->g, t_x, t_p, t_r, par, alpha, beta, update_p,
             (const tdpExactSum *) NULL, (const tdpExactSum *) NULL, (const tdpExactSum *) NULL,
             (tdpExactSum *) NULL);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, update_p ? 4 * 6.0 : 2 * 6.0,
          (update_p ? 5.0 * MILC_NV : 3.0 * MILC_NV) * sizeof(MILC_REAL));
}

double R(milcAxpbyNorm)(milcOps *o, MILC_REAL *t_z, const MILC_REAL *t_x, const MILC_REAL *t_y,
                        int p, double a, double b) {
  tdpExactSum *t_sum = sum_slot(o);
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH_REDUCE(R(kAxpbyNorm), o->L->g.nhalf, o->L->g, t_z, t_x, t_y, p, a, b, t_sum);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 6 * 3.0 + 12.0, (3.0 * MILC_NV) * sizeof(MILC_REAL));
  return global_sum(o);
}

void R(milcXpay)(milcOps *o, MILC_REAL *t_p, const MILC_REAL *t_r, int par, double beta) {
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH(R(kXpay), o->L->g.nhalf, o->L->g, t_p, t_r, par, beta);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 12.0, (3.0 * MILC_NV) * sizeof(MILC_REAL));
}

double R(milcCgUpdate)(milcOps *o, MILC_REAL *t_x, MILC_REAL *t_r, const MILC_REAL *t_p,
                       const MILC_REAL *t_q, int par, double alpha) {
  tdpExactSum *t_sum = sum_slot(o);
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH_REDUCE(R(kCgUpdate), o->L->g.nhalf, o->L->g, t_x, t_r, t_p, t_q, par, alpha, t_sum);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 4 * 6.0 + 12.0, (6.0 * MILC_NV) * sizeof(MILC_REAL));
  return global_sum(o);
}

double R(milcDot)(milcOps *o, const MILC_REAL *t_x, const MILC_REAL *t_y, int p) {
  tdpExactSum *t_sum = sum_slot(o);
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH_REDUCE(R(kDot), o->L->g.nhalf, o->L->g, t_x, t_y, p, t_sum);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 12.0, (2.0 * MILC_NV) * sizeof(MILC_REAL));
  return global_sum(o);
}

/* --cg ahead (one rank): one CG iteration queued with every scalar on the
 * target (cg_impl.h says how the sums are laid out). j: the iteration
 * (0: the first after p = r, no x and p update before it); s: the target
 * scalars, 2 per iteration in a ring of 4 (|r|^2 before the first in the
 * last pair); h: the pinned host copy of the same ring; done: the event
 * after the copy of this iteration's pair. */
void R(milcCgAheadIteration)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, MILC_REAL *t_p,
                             MILC_REAL *t_r, MILC_REAL *t_q, MILC_REAL *t_t, double mass, long j,
                             tdpExactSum *t_s, tdpExactSum *h_s, targetEvent_t done) {
  const int E = MILC_EVEN;
  tdpExactSum *cur = t_s + 2 * (j % 4), *prev = t_s + 2 * ((j + 3) % 4),
              *prev2 = t_s + 2 * ((j + 2) % 4);
  if (j > 0) { /* x += alpha_{j-1} p, p = r + beta_{j-1} p; zero the pair of j + 1 */
    const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
    TDP_LAUNCH(R(kAxpyZpbx), o->L->g.nhalf, o->L->g, t_x, t_p, t_r, E, 0.0, 0.0, 1,
               (const tdpExactSum *) (prev2 + 1), (const tdpExactSum *) prev,
               (const tdpExactSum *) (prev + 1),
               t_s + 2 * ((j + 1) % 4));
    account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 4 * 6.0, (5.0 * MILC_NV) * sizeof(MILC_REAL));
  }
  R(milcDslash)(o, t_U, t_p, t_t, MILC_ODD);
  R(dslash_axpby_queue)(o, t_U, t_t, t_p, t_q, E, mass * mass, -1.0, cur);
  milcDeviceSum(o, cur, 1); /* several ranks: <p, Mp> global on the target */
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH_REDUCE(R(kRUpdate), o->L->g.nhalf, o->L->g, t_r, t_q, E, 0.0,
                    (const tdpExactSum *) cur, 0.0, (const tdpExactSum *) (prev + 1), cur + 1);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 2 * 6.0 + 12.0, (3.0 * MILC_NV) * sizeof(MILC_REAL));
  milcDeviceSum(o, cur + 1, 1); /* |r|^2 global, for the next iteration and the host */
  copyFromTargetAsync(h_s + 2 * (j % 4), cur, 2 * sizeof(tdpExactSum), TARGET_STREAM_DEFAULT);
  targetEventRecord(done, TARGET_STREAM_DEFAULT);
}

/* --cg merged: queue iteration j (cg_impl.h): the merged update (x, r, p,
 * s; |r|^2), D and D-axpby (w = M r; <r, w>), one global sum of the two
 * on the target, and the host copies: h_m[2 (j % 4) ..] = g_{j+1},
 * d_{j+1} (exact sums), h_md[2 (j % 4) ..] = den_j, alpha_j; done recorded
 * after them. t_m: the sums of 4 iterations, 2 each (g, d; slot j % 4:
 * iteration j's, g_0 and d_0 set before j = 0); t_md: den and alpha of 4
 * iterations. base: the iterations done before this loop (restarts),
 * against maxiter. */
void R(milcCgMergedIteration)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, MILC_REAL *t_r,
                              MILC_REAL *t_p, MILC_REAL *t_s, MILC_REAL *t_w, MILC_REAL *t_t,
                              double mass, long j, tdpExactSum *t_m, double *t_md,
                              tdpExactSum *h_m, double *h_md, targetEvent_t done, double bb,
                              double tol, long base, long maxiter) {
  const int E = MILC_EVEN;
  tdpExactSum *cur = t_m + 2 * (j % 4), *prev = t_m + 2 * ((j + 3) % 4),
              *next = t_m + 2 * ((j + 1) % 4), *zero = t_m + 2 * ((j + 2) % 4);
  double *md = t_md + 2 * (j % 4), *md_prev = t_md + 2 * ((j + 3) % 4);
  const int ts_ = time_start(o, TARGET_STREAM_DEFAULT, 0);
  TDP_LAUNCH_REDUCE(R(kCgMerged), o->L->g.nhalf, o->L->g, t_x, t_r, t_p, t_s, (const MILC_REAL *) t_w,
                    E, (const tdpExactSum *) cur, (const tdpExactSum *) prev, md,
                    (const double *) md_prev, zero, bb, tol, j == 0, base + j >= maxiter, next);
  account_at(o, ts_, MILC_K_BLAS, TARGET_STREAM_DEFAULT, 8 * 6.0 + 6.0,
             (9.0 * MILC_NV) * sizeof(MILC_REAL));
  R(milcDslash)(o, t_U, t_r, t_t, MILC_ODD);
  R(dslash_axpby_queue)(o, t_U, t_t, t_r, t_w, E, mass * mass, -1.0, next + 1);
  milcDeviceSum(o, next, 2); /* several ranks: both sums in one */
  copyFromTargetAsync(h_m + 2 * (j % 4), next, 2 * sizeof(tdpExactSum), TARGET_STREAM_DEFAULT);
  copyFromTargetAsync(h_md + 2 * (j % 4), md, 2 * sizeof(double), TARGET_STREAM_DEFAULT);
  targetEventRecord(done, TARGET_STREAM_DEFAULT);
}

/* --cg merged's start: w = M r and <r, w> into *t_d (summed over the ranks
 * on the target). */
void R(milcCgMergedStart)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_r, MILC_REAL *t_w,
                          MILC_REAL *t_t, double mass, tdpExactSum *t_d) {
  R(milcDslash)(o, t_U, t_r, t_t, MILC_ODD);
  R(dslash_axpby_queue)(o, t_U, t_t, t_r, t_w, MILC_EVEN, mass * mass, -1.0, t_d);
  milcDeviceSum(o, t_d, 1);
}
