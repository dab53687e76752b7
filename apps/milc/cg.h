/* Conjugate gradient on the even sites, as MILC's ks_congrad does:
 *
 *   M_ee x = b,   M_ee = m^2 - D_eo D_oe
 *
 * the even-even block of m^2 - D^2 (D maps one parity to the other, and D
 * is anti-Hermitian, so M_ee is Hermitian positive definite). D^2 keeps
 * the parity, so m^2 - D^2 is block diagonal and a source on the even
 * sites has its whole solution there. Iterates until |r| <= tol |b| (the
 * iterated residual), then recomputes the true residual |b - M x| / |b|
 * from scratch; converged means the true one meets tol. If it does not
 * (rounding), CG restarts from x, up to MILC_CG_RESTARTS times. */
#ifndef MILC_CG_H
#define MILC_CG_H

#include "kernels.h"

#define MILC_CG_RESTARTS 5

/* The iteration's kernels. MILC_CG_FUSED (0, the default): as QUDA's CG,
 * r -= alpha q with |r|^2 (18 values per site), then x += alpha p and
 * p = r + beta p in one pass (30), where MILC_CG_CLASSIC updates x and r
 * together (36) and then p (18): p is read once less; on one rank alpha is
 * formed on the target, so the host reads one sum per iteration (<p, Mp>
 * and |r|^2 together) instead of two. The same arithmetic: x, r and p
 * are bitwise those of MILC_CG_CLASSIC. */
/* MILC_CG_AHEAD (where the sums can stay on the target: one rank, or
 * several with the device communicator on NCCL or the C backend; else
 * MILC_CG_FUSED, and main says so): the fused kernels with every scalar on
 * the target (several ranks: each sum combined there, targetDP_devcomm)
 * and the host one iteration behind, so that the target never waits for
 * it; x bitwise the same, one application of M more per stop (cg_impl.h). */
/* MILC_CG_MERGED (where the sums can stay on the target, as ahead; else
 * MILC_CG_FUSED): Chronopoulos & Gear's CG (1989), one global sum an
 * iteration instead of two: |r|^2 in the vector update, <r, M r> in D's
 * sweep, summed together; alpha from a recurrence. The same iterates in
 * exact arithmetic, not bitwise those of the others; the host one
 * iteration behind as with ahead (cg_impl.h). */
typedef enum {
  MILC_CG_FUSED = 0,
  MILC_CG_CLASSIC = 1,
  MILC_CG_AHEAD = 2,
  MILC_CG_MERGED = 3
} milcCgVariant;

typedef struct {
  double mass;
  double tol; /* relative residual */
  long maxiter;
  long print_every; /* progress line every this many iterations (0: none) */
  int verbose;      /* print progress (rank 0 decides) */
  milcCgVariant variant;
} milcCgParams;

/* Why a solve stopped without an answer (docs/milc.md): never reported
 * as converged, whatever the residual says. */
typedef enum {
  MILC_CG_NO_BREAKDOWN = 0,
  MILC_CG_BREAKDOWN_PAP,         /* <p, M p> not positive and finite: stopped */
  MILC_CG_BREAKDOWN_START,       /* |b|^2 or |b - M x0|^2 not finite: nothing iterated */
  MILC_CG_BREAKDOWN_ZERO_SOURCE, /* |b| = 0: no relative residual to meet */
  MILC_CG_BREAKDOWN_RESIDUAL     /* the true residual |b - M x|^2 not finite */
} milcCgBreakdown;

typedef struct {
  long iterations;
  int converged;
  milcCgBreakdown breakdown;
  double breakdown_value; /* the quantity that broke (<p, M p>, |b|^2, |r|^2) */
  int restarts;         /* restarts from the true residual */
  double residual;      /* last iterated |r| / |b| */
  double true_residual; /* |b - M x| / |b|, recomputed from scratch */
  double seconds;       /* the whole solve, true residuals included */
  double flops, bytes;  /* of the iterations, all ranks */
} milcCgResult;

/* Work fields: four full-lattice vectors of the solve's storage type. */
typedef struct {
  void *r, *p, *q, *t;
  void *s; /* --cg merged: s = M p */
} milcCgWork;

void milcCgWorkCreate(milcCgWork *w, const milcLattice *L, size_t esize);
void milcCgWorkFree(milcCgWork *w);

/* The solver for double fields (milcCgSolve, milcApplyM) and for float
 * fields (the same + _f), from one source (cg_api.h, cg_impl.h). */
#define MILC_EACH_REAL_FILE "cg_api.h"
#include "each_real.h"

#endif
