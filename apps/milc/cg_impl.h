/* CG for one storage type MILC_REAL, named R(name): included by cg.c once
 * per precision (cg.h). No include guard. */

double R(milcApplyM)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, MILC_REAL *t_q,
                     MILC_REAL *t_t, double mass) {
  R(milcDslash)(o, t_U, t_x, t_t, MILC_ODD);
  return R(milcDslashAxpby)(o, t_U, t_t, t_x, t_q, MILC_EVEN, mass * mass, -1.0);
}

void R(milcCgSolve)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, const MILC_REAL *t_b,
                    const milcCgParams *cp, milcCgWork *w, milcCgResult *res) {
  const int E = MILC_EVEN;
  MILC_REAL *r = (MILC_REAL *) w->r, *p = (MILC_REAL *) w->p, *q = (MILC_REAL *) w->q,
            *t = (MILC_REAL *) w->t, *sv = (MILC_REAL *) w->s;
  int rank = 0, nranks = 1;
  MPI_Comm_rank(o->comm, &rank);
  MPI_Comm_size(o->comm, &nranks);
  /* Where the sums can stay on the target (one rank; several with the
   * device communicator on NCCL, or on the C backend: o->devsums), alpha
   * is formed there: MILC_CG_FUSED reads one sum per iteration (the host
   * round trip of <p, Mp> and |r|^2 together) instead of two, and
   * MILC_CG_AHEAD none at all. Elsewhere (several GPUs without NCCL)
   * ahead runs as fused, and the sums go through the host (main.c says
   * which). Not with MILC_TIME_SYNC (its one sum slot is zeroed before
   * each reduction). */
  const int ahead = cp->variant == MILC_CG_AHEAD && o->devsums;
  const int merged = cp->variant == MILC_CG_MERGED && o->devsums;
  const int fused = cp->variant == MILC_CG_FUSED || (cp->variant == MILC_CG_AHEAD && !ahead) ||
                    (cp->variant == MILC_CG_MERGED && !merged);
  const int dev_alpha = fused && o->devsums && o->timing != MILC_TIME_SYNC;
  /* --cg ahead: the scalars of 4 iterations on the target and their pinned
   * copy, an event after each iteration's copy */
  tdpExactSum *t_s = NULL, *h_s = NULL;
  targetEvent_t ev[4] = {NULL, NULL, NULL, NULL};
  double *t_md = NULL, *h_md = NULL; /* --cg merged: den and alpha of 4 iterations */
  if (ahead || merged) {
    targetMalloc(&t_s, 8 * sizeof(tdpExactSum));
    targetMallocHost(&h_s, 8 * sizeof(tdpExactSum));
    if (merged) {
      targetMalloc(&t_md, 8 * sizeof(double));
      targetMallocHost(&h_md, 8 * sizeof(double));
    }
    for (int i = 0; i < 4; i++) targetEventCreate(&ev[i]);
  }
  const double f0 = total(o, o->cnt.flops), b0 = total(o, o->cnt.bytes);
  targetSynchronize();
  MPI_Barrier(o->comm);
  const double t0 = timerNow();

  const double bb = R(milcDot)(o, t_b, t_b, E);
  R(milcApplyM)(o, t_U, t_x, q, t, cp->mass);
  double rr = R(milcAxpbyNorm)(o, r, t_b, q, E, 1.0, -1.0); /* r = b - M x */
  res->iterations = 0;
  res->restarts = 0;
  res->converged = 0;
  res->breakdown = MILC_CG_NO_BREAKDOWN;
  res->breakdown_value = 0.0;
  res->residual = bb > 0.0 ? sqrt(rr / bb) : 0.0;
  res->true_residual = res->residual;
  /* A NaN residual fails every "> tol" test, so the loops below would not
   * run and the solve would end as a residual of NaN: stop here instead,
   * as for a zero source, whose relative residual means nothing. */
  if (!isfinite(bb) || !isfinite(rr)) {
    res->breakdown = MILC_CG_BREAKDOWN_START;
    res->breakdown_value = isfinite(bb) ? rr : bb;
  } else if (bb == 0.0) {
    res->breakdown = MILC_CG_BREAKDOWN_ZERO_SOURCE;
  }
  if (cp->verbose && rank == 0 && !res->breakdown)
    printf("iter %6d  |r|/|b| %.6e\n", 0, res->residual);
  while (!res->breakdown) {
    R(milcAxpbyNorm)(o, p, r, r, E, 1.0, 0.0); /* p = r */
    if (ahead && res->residual > cp->tol && res->iterations < cp->maxiter) {
      /* One iteration queued ahead of the host (milcCgAheadIteration): the
       * host reads <p, Mp> and |r|^2 of iteration j while j + 1 runs, so
       * the target never waits for it. Pair j of t_s holds <p_j, M p_j>
       * and |r_{j+1}|^2; the last pair starts with |r_0|^2 (on one rank the
       * target's sum is the host's, bitwise). Iteration j + 1 begins with
       * x += alpha_j p_j, which a stop after j needs anyway (alpha 0 after
       * a breakdown): what else it did (p, t, q, r) the true residual
       * recomputes. x is bitwise that of the other variants; the
       * iteration run ahead costs one application of M per stop. */
      tdpExactSum rr0; /* |r_0|^2, exactly the value the host holds */
      tdpExactSumZero(&rr0);
      tdpExactSumAdd(&rr0, rr);
      targetExactZero(t_s, 8);
      copyToTarget(t_s + 7, &rr0, sizeof rr0);
      long mark[4], j = 0;
      R(milcCgAheadIteration)(o, t_U, t_x, p, r, q, t, cp->mass, 0, t_s, h_s, ev[0]);
      mark[0] = milcOpsMark(o);
      for (;; j++) {
        R(milcCgAheadIteration)(o, t_U, t_x, p, r, q, t, cp->mass, j + 1, t_s, h_s,
                                ev[(j + 1) % 4]);
        mark[(j + 1) % 4] = milcOpsMark(o);
        const double tw = timerNow();
        targetEventSynchronize(ev[j % 4]);
        o->cnt.seconds[MILC_K_WAIT] += timerNow() - tw;
        o->cnt.calls[MILC_K_WAIT]++;
        milcOpsDone(o, mark[j % 4]);
        const double pap = tdpExactSumValue(&h_s[2 * (j % 4)]),
                     rr_new = tdpExactSumValue(&h_s[2 * (j % 4) + 1]);
        /* 2: breakdown, 1: done, 0: on. On several ranks the sums are the
         * same bits everywhere (one reduction, broadcast); the ranks agree
         * all the same (one host MPI_Allreduce of an int, while the target
         * runs the iteration queued ahead), as a rank that stopped alone
         * would leave the others waiting in a sum. */
        int code = !(pap > 0.0) || !isfinite(pap) || !isfinite(rr) ? 2
                   : sqrt(rr_new / bb) <= cp->tol || res->iterations + 1 >= cp->maxiter ? 1
                                                                                      : 0;
        code = agreedStop(o, code, res->iterations + 1);
        if (code == 2) {
          res->breakdown = MILC_CG_BREAKDOWN_PAP;
          res->breakdown_value = pap;
          break;
        }
        res->iterations++;
        res->residual = sqrt(rr_new / bb);
        if (cp->verbose && rank == 0 && cp->print_every > 0 && res->iterations % cp->print_every == 0)
          printf("iter %6ld  |r|/|b| %.6e\n", res->iterations, res->residual);
        rr = rr_new;
        if (code == 1) break;
      }
    }
    if (merged && res->residual > cp->tol && res->iterations < cp->maxiter) {
      /* One global sum an iteration (milcCgMergedIteration), the host one
       * iteration behind as with ahead: iteration j's pair (g_{j+1},
       * d_{j+1}) and den_j are read while j + 1 runs. The kernels form
       * alpha with the host's own tests (alpha 0 where the host stops), so
       * the iteration queued ahead of a stop leaves x as it was. */
      tdpExactSum g0; /* |r_0|^2, exactly the value the host holds */
      tdpExactSumZero(&g0);
      tdpExactSumAdd(&g0, rr);
      targetExactZero(t_s, 8);
      targetZero(t_md, 8);
      copyToTarget(t_s, &g0, sizeof g0);
      R(milcCgMergedStart)(o, t_U, r, q, t, cp->mass, t_s + 1);
      const long base = res->iterations;
      long mark[4], j = 0;
      R(milcCgMergedIteration)(o, t_U, t_x, r, p, sv, q, t, cp->mass, 0, t_s, t_md, h_s, h_md,
                               ev[0], bb, cp->tol, base, cp->maxiter);
      mark[0] = milcOpsMark(o);
      for (;; j++) {
        R(milcCgMergedIteration)(o, t_U, t_x, r, p, sv, q, t, cp->mass, j + 1, t_s, t_md, h_s,
                                 h_md, ev[(j + 1) % 4], bb, cp->tol, base, cp->maxiter);
        mark[(j + 1) % 4] = milcOpsMark(o);
        const double tw = timerNow();
        targetEventSynchronize(ev[j % 4]);
        o->cnt.seconds[MILC_K_WAIT] += timerNow() - tw;
        o->cnt.calls[MILC_K_WAIT]++;
        milcOpsDone(o, mark[j % 4]);
        const double g1 = tdpExactSumValue(&h_s[2 * (j % 4)]), den = h_md[2 * (j % 4)];
        /* as the kernel decided: 2 breakdown, 1 done, 0 on; agreed by the ranks */
        int code = !(den > 0.0) || !isfinite(den) || !isfinite(rr) ? 2
                   : sqrt(g1 / bb) <= cp->tol || res->iterations + 1 >= cp->maxiter ? 1
                                                                                    : 0;
        code = agreedStop(o, code, res->iterations + 1);
        if (code == 2) {
          res->breakdown = MILC_CG_BREAKDOWN_PAP;
          res->breakdown_value = den;
          break;
        }
        res->iterations++;
        res->residual = sqrt(g1 / bb);
        if (cp->verbose && rank == 0 && cp->print_every > 0 && res->iterations % cp->print_every == 0)
          printf("iter %6ld  |r|/|b| %.6e\n", res->iterations, res->residual);
        rr = g1;
        if (code == 1) break;
      }
    }
    while (fused && res->residual > cp->tol && res->iterations < cp->maxiter) {
      /* As QUDA's CG: r -= alpha q with |r|^2, then x += alpha p and
       * p = r + beta p in one pass; x and p as in the loop below, bitwise. */
      double pap, rr_new;
      R(milcDslash)(o, t_U, p, t, MILC_ODD);
      if (dev_alpha) {
        const tdpExactSum *t_pap =
            R(milcDslashAxpbyQueued)(o, t_U, t, p, q, E, cp->mass * cp->mass, -1.0);
        rr_new = R(milcRUpdate)(o, r, q, E, 0.0, t_pap, rr, &pap);
        if (!(pap > 0.0) || !isfinite(pap) || !isfinite(rr)) { /* r unchanged (alpha 0) */
          res->breakdown = MILC_CG_BREAKDOWN_PAP;
          res->breakdown_value = pap;
          break;
        }
      } else {
        pap = R(milcDslashAxpby)(o, t_U, t, p, q, E, cp->mass * cp->mass, -1.0);
        if (!(pap > 0.0) || !isfinite(pap) || !isfinite(rr)) {
          res->breakdown = MILC_CG_BREAKDOWN_PAP;
          res->breakdown_value = pap;
          break;
        }
        rr_new = R(milcRUpdate)(o, r, q, E, rr / pap, NULL, rr, NULL);
      }
      const double alpha = rr / pap;
      res->iterations++;
      res->residual = sqrt(rr_new / bb);
      if (cp->verbose && rank == 0 && cp->print_every > 0 && res->iterations % cp->print_every == 0)
        printf("iter %6ld  |r|/|b| %.6e\n", res->iterations, res->residual);
      /* the last iteration updates x alone (p is set afresh after it) */
      const int last = res->residual <= cp->tol || res->iterations >= cp->maxiter;
      R(milcAxpyZpbx)(o, t_x, p, r, E, alpha, rr_new / rr, !last);
      rr = rr_new;
      if (last) break;
    }
    while (!fused && !ahead && !merged && res->residual > cp->tol && res->iterations < cp->maxiter) {
      const double pap = R(milcApplyM)(o, t_U, p, q, t, cp->mass);
      /* M is positive definite: anything else is a fault (a NaN in the
       * links, a broken operator), not something to iterate on. */
      if (!(pap > 0.0) || !isfinite(pap) || !isfinite(rr)) {
        res->breakdown = MILC_CG_BREAKDOWN_PAP;
        res->breakdown_value = pap;
        break;
      }
      const double alpha = rr / pap;
      const double rr_new = R(milcCgUpdate)(o, t_x, r, p, q, E, alpha);
      res->iterations++;
      res->residual = sqrt(rr_new / bb);
      if (cp->verbose && rank == 0 && cp->print_every > 0 && res->iterations % cp->print_every == 0)
        printf("iter %6ld  |r|/|b| %.6e\n", res->iterations, res->residual);
      if (res->residual <= cp->tol) break;
      R(milcXpay)(o, p, r, E, rr_new / rr); /* p = r + beta p */
      rr = rr_new;
    }
    /* The true residual from scratch, r = b - M x. The iterated one drifts
     * from it by rounding (in single precision storage by far more than
     * in double): if the true one misses the tolerance, CG restarts from
     * x with it, as MILC's ks_congrad does. */
    R(milcApplyM)(o, t_U, t_x, q, t, cp->mass);
    rr = R(milcAxpbyNorm)(o, r, t_b, q, E, 1.0, -1.0);
    res->true_residual = bb > 0.0 ? sqrt(rr / bb) : 0.0;
    if (!isfinite(rr) && !res->breakdown) {
      res->breakdown = MILC_CG_BREAKDOWN_RESIDUAL;
      res->breakdown_value = rr;
    }
    if (res->breakdown || res->true_residual <= cp->tol || res->iterations >= cp->maxiter ||
        res->restarts >= MILC_CG_RESTARTS)
      break;
    res->restarts++;
    res->residual = res->true_residual;
    if (cp->verbose && rank == 0)
      printf("restart %d at iteration %ld: true |r|/|b| %.6e > tol\n", res->restarts,
             res->iterations, res->true_residual);
  }
  res->converged = !res->breakdown && res->true_residual <= cp->tol;
  targetSynchronize();
  double secs = timerNow() - t0;
  milcOpsFlush(o); /* the kernels' times, after the clock */
  if (ahead || merged) {
    targetFree(t_md);
    targetFreeHost(h_md);
    targetFree(t_s);
    targetFreeHost(h_s);
    for (int i = 0; i < 4; i++) targetEventDestroy(ev[i]);
  }
  MPI_Allreduce(&secs, &res->seconds, 1, MPI_DOUBLE, MPI_MAX, o->comm);
  double fb[2] = {total(o, o->cnt.flops) - f0, total(o, o->cnt.bytes) - b0}, all[2];
  MPI_Allreduce(fb, all, 2, MPI_DOUBLE, MPI_SUM, o->comm);
  res->flops = all[0];
  res->bytes = all[1];
}
