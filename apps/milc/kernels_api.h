/* Host calls of the kernels for one storage type MILC_REAL, named R(name):
 * included by kernels.h once for double and once for float. No include
 * guard. Every call acts on the interior sites of one parity p; the
 * arithmetic is in double, and every reduction is summed over the ranks. */

/* Make the halo sites of parity p (p < 0: both) of a field of ncomp values
 * per site current (the shared halo module: lattice.h milcHaloStart/Wait).
 * Collective. */
void R(milcHaloFill)(const milcLattice *L, MILC_REAL *t_f, int ncomp, int p);
/* Every storage value of a field of ncomp values per site = 0. */
void R(milcFieldZero)(const milcLattice *L, MILC_REAL *t_f, int ncomp);

/* dst(p) = D src(1-p), D the staggered operator, U the links (with halo).
 * The halo of src (parity 1-p) is filled first. */
void R(milcDslash)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_src, MILC_REAL *t_dst, int p);
/* dst(p) = a w(p) + b (D src)(p); returns Re <w, dst> over the lattice. */
double R(milcDslashAxpby)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_src, const MILC_REAL *t_w,
                          MILC_REAL *t_dst, int p, double a, double b);
/* milcDslashAxpby without reading the sum: <w, dst> stays on the target,
 * at the address returned, for milcRUpdate (the next reduction). */
const tdpExactSum *R(milcDslashAxpbyQueued)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_src,
                                       const MILC_REAL *t_w, MILC_REAL *t_dst, int p, double a,
                                       double b);
/* r -= alpha q; returns |r|^2. With t_pap (milcDslashAxpbyQueued's sum;
 * one rank), alpha = rr / *t_pap on the target (0 if that is not positive
 * and finite, or rr is not) and *pap is *t_pap, read with |r|^2. */
double R(milcRUpdate)(milcOps *o, MILC_REAL *t_r, const MILC_REAL *t_q, int par, double alpha,
                      const tdpExactSum *t_pap, double rr, double *pap);
/* x += alpha p; and if update_p, p = r + beta p (QUDA's axpyZpbx). */
void R(milcAxpyZpbx)(milcOps *o, MILC_REAL *t_x, MILC_REAL *t_p, const MILC_REAL *t_r, int par,
                     double alpha, double beta, int update_p);
/* --cg ahead, one rank: queue CG iteration j (cg_impl.h) with its scalars
 * on the target, t_s 8 exact sums, h_s their pinned host copy; done is
 * recorded after the copy of the iteration's <p, Mp> and |r|^2. */
void R(milcCgAheadIteration)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, MILC_REAL *t_p,
                             MILC_REAL *t_r, MILC_REAL *t_q, MILC_REAL *t_t, double mass, long j,
                             tdpExactSum *t_s, tdpExactSum *h_s, targetEvent_t done);
/* --cg merged (one global sum an iteration; kernels_impl.h and cg_impl.h
 * say how): the start (w = M r, <r, w> into *t_d) and iteration j queued. */
void R(milcCgMergedStart)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_r, MILC_REAL *t_w,
                          MILC_REAL *t_t, double mass, tdpExactSum *t_d);
void R(milcCgMergedIteration)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, MILC_REAL *t_r,
                              MILC_REAL *t_p, MILC_REAL *t_s, MILC_REAL *t_w, MILC_REAL *t_t,
                              double mass, long j, tdpExactSum *t_m, double *t_md,
                              tdpExactSum *h_m, double *h_md, targetEvent_t done, double bb,
                              double tol, long base, long maxiter);
/* z = a x + b y (z may be x or y); returns |z|^2. */
double R(milcAxpbyNorm)(milcOps *o, MILC_REAL *t_z, const MILC_REAL *t_x, const MILC_REAL *t_y,
                        int p, double a, double b);
/* p = r + beta p (no reduction: CG has no use for |p|^2) */
void R(milcXpay)(milcOps *o, MILC_REAL *t_p, const MILC_REAL *t_r, int par, double beta);
/* CG update: x += alpha p, r -= alpha q; returns |r|^2. */
double R(milcCgUpdate)(milcOps *o, MILC_REAL *t_x, MILC_REAL *t_r, const MILC_REAL *t_p,
                       const MILC_REAL *t_q, int par, double alpha);
/* Re <x, y> */
double R(milcDot)(milcOps *o, const MILC_REAL *t_x, const MILC_REAL *t_y, int p);
