/* milc: a MILC-like staggered conjugate-gradient solver on a 4-D lattice,
 * every kernel written once in targetDP. docs/milc.md says what it
 * solves, how to run it and how it is validated. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "common/cli.h"
#include "common/decomp.h"
#include "common/fileio.h"
#include "common/timer.h"
#include "common/triad.h"
#include "gauge.h"
#include "io.h"
#include "kernels.h"
#include "lattice.h"
#include "options.h"
#include "targetDP.h"

/* One message (rank 0), every rank leaves with the status: 2 for input
 * refused before any work, 1 for a file that could not be written. */
static int fail_with(int rank, const char *err, int status) {
  if (rank == 0) fprintf(stderr, "milc: error: %s\n", err);
  MPI_Finalize();
  return status;
}
static int fail(int rank, const char *err) { return fail_with(rank, err, 2); }

/* --breakdown: one CSV row per solve (rank 0): where an iteration's time
 * goes, microseconds per iteration, the slowest rank's (issue 29). The
 * kernels, sums and exchange are target time from events, the halo and
 * wait columns host time; gap is the iteration less D, the vector
 * kernels and the sums on the target: the target idle between them. */
static int write_breakdown(const char *file, const milcCgResult *r, const double tmax[],
                           const int dims[4], const milcLattice *L, milcPrecision prec,
                           const char *cg, const char *timing, const char *sums, char *err,
                           size_t len) {
  static const char header[] =
      "device,ranks,px,py,pz,pt,local,precision,cg,timing,iterations,us_per_iter,dslash_us,"
      "blas_us,reduce_us,exch_us,halo_host_us,wait_host_us,gap_us,sums,halo_path\n";
  char device[128], row[1200];
  const char *d = strstr(targetConfigString(), "device=\"");
  snprintf(device, sizeof(device), "%s", d ? d + 8 : "unknown");
  size_t n = strcspn(device, "(,\"");
  while (n > 0 && device[n - 1] == ' ') n--;
  device[n] = '\0';
  const double it = (double) r->iterations, us = 1e6 / it;
  const double per = r->seconds * us;
  const double gap = per - us * (tmax[MILC_K_DSLASH] + tmax[MILC_K_BLAS] + tmax[MILC_K_REDUCE]);
  char sumtext[240];
  snprintf(sumtext, sizeof(sumtext), "%s", sums);
  for (char *c = sumtext; *c; c++)
    if (*c == ',') *c = ';';
  snprintf(row, sizeof(row),
           "%s,%d,%d,%d,%d,%d,%dx%dx%dx%d,%s,%s,%s,%ld,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,"
           "%s,%s\n",
           device, dims[0] * dims[1] * dims[2] * dims[3], dims[0], dims[1], dims[2], dims[3],
           L->g.n[0], L->g.n[1], L->g.n[2], L->g.n[3], prec == MILC_SINGLE ? "single" : "double",
           cg, timing, r->iterations, per, us * tmax[MILC_K_DSLASH], us * tmax[MILC_K_BLAS],
           us * tmax[MILC_K_REDUCE], us * tmax[MILC_K_EXCH], us * tmax[MILC_K_HALO],
           us * tmax[MILC_K_WAIT], gap, sumtext, milcHaloTransport(L));
  printf("# breakdown per iteration (us, slowest rank): iteration %.2f = dslash %.2f + blas %.2f + "
         "sums on the target %.2f + idle %.2f; beside: exchange on the target %.2f; host: in the "
         "exchange calls %.2f, waiting for the target %.2f\n",
         per, us * tmax[MILC_K_DSLASH], us * tmax[MILC_K_BLAS], us * tmax[MILC_K_REDUCE], gap,
         us * tmax[MILC_K_EXCH], us * tmax[MILC_K_HALO], us * tmax[MILC_K_WAIT]);
  return fioAppendRow(file, header, row, err, len) ? -1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  char err[1200];
  /* Every option, conflict, size and file is checked before any work
   * (options.c; docs/milc.md): a wrapped size, a FIFO, a missing directory
   * never reach the solve. */
  milcOptions opt;
  int rc = milcOptionsLoad(argc, argv, &opt, err, sizeof(err));
  if (rc == 1) { /* --help */
    if (rank == 0) milcOptionsUsage();
    MPI_Finalize();
    return 0;
  }
  if (rc) return fail(rank, err);
  if (milcOptionsCheckSizes(&opt, nranks, err, sizeof(err))) return fail(rank, err);
  if (rank == 0) rc = milcOptionsCheckFiles(&opt, err, sizeof(err)) != 0;
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc) return fail(rank, err);
  const int *global = opt.size, *request = opt.decomposition;
  const double mass = opt.mass, tol = opt.tol;
  const long maxiter = opt.maxiter, seed = opt.seed, print_every = opt.print_every;
  const long triad_n = opt.triad;
  const milcPrecision prec = opt.precision == 1 ? MILC_SINGLE : MILC_DOUBLE;
  const char *precision = prec == MILC_SINGLE ? "single" : "double";
  const char *gauge = opt.gauge == MILC_GAUGE_UNIT ? "unit" : "random";
  const char *save = opt.save[0] ? opt.save : NULL;
  const char *gauge_file = opt.gauge_file[0] ? opt.gauge_file : NULL;
  const char *save_gauge = opt.save_gauge[0] ? opt.save_gauge : NULL;
  const int nruns = opt.nruns;
  enum { MAXRUNS = MILC_MAXRUNS };
  milcTiming run_timing[MAXRUNS];
  milcCgVariant run_cg[MAXRUNS];
  for (int k = 0; k < nruns; k++) {
    run_timing[k] = opt.run_timing[k] == 1 ? MILC_TIME_SYNC : MILC_TIME_EVENTS;
    run_cg[k] = opt.run_cg[k] == 3   ? MILC_CG_MERGED
                : opt.run_cg[k] == 2 ? MILC_CG_AHEAD
                : opt.run_cg[k] == 1 ? MILC_CG_CLASSIC
                                     : MILC_CG_FUSED;
  }

  /* Decomposition (common/decomp): every axis must split evenly into even
   * local extents, so the choice is made on the half extents. */
  int dims[4], local[4], half[4];
  for (int d = 0; d < 4; d++) half[d] = global[d] / 2; /* even: options.c */
  if (decompChooseDimsN(nranks, 4, half, request, dims, err, sizeof(err))) {
    /* Say why in the user's terms: no split at all, or only odd ones. */
    if (decompChooseDimsN(nranks, 4, global, request, dims, err, sizeof(err)))
      return fail(rank, err);
    for (int d = 0; d < 4; d++)
      if ((global[d] / dims[d]) % 2)
        snprintf(err, sizeof(err),
                 "size %d along %c does not split into %d even local extents (decomposition "
                 "%d,%d,%d,%d; staggered fermions need even local extents)",
                 global[d], "xyzt"[d], dims[d], dims[0], dims[1], dims[2], dims[3]);
    return fail(rank, err);
  }
  const int periodic[4] = {1, 1, 1, 1};
  decompInfo dec;
  if (decompCreateN(MPI_COMM_WORLD, 4, global, dims, periodic, &dec, err, sizeof(err)))
    return fail(rank, err);
  MPI_Comm comm = dec.comm;
  int offset[4];
  for (int d = 0; d < 4; d++) {
    local[d] = dec.local[d];
    offset[d] = dec.offset[d];
  }

  targetInit();
  milcLattice L;
  if (milcLatticeCreate(&L, global, local, offset, err, sizeof(err)) ||
      milcLatticeConnect(&L, comm, dims, err, sizeof(err)))
    return fail(rank, err);
  const size_t ubytes = milcFieldBytes(&L, MILC_NL, sizeof(double)),
               vbytes = milcFieldBytes(&L, MILC_NV, sizeof(double)),
               esize = milcPrecisionSize(prec);
  double *h_U = (double *) calloc(1, ubytes), *h_v = (double *) calloc(1, vbytes);
  if (!h_U || !h_v) {
    fprintf(stderr, "milc: out of host memory\n");
    MPI_Abort(comm, 1);
  }
  if (gauge_file) {
    if (milcGaugeRead(&L, comm, h_U, gauge_file, err, sizeof(err))) return fail(rank, err);
    gauge = gauge_file;
  } else if (opt.gauge == MILC_GAUGE_UNIT) {
    milcGaugeUnit(&L, h_U);
  } else {
    milcGaugeRandom(&L, h_U, (uint64_t) seed);
  }
  if (opt.inject_nan && offset[0] == 0 && offset[1] == 0 && offset[2] == 0 && offset[3] == 0) {
    const int x0[4] = {0, 0, 0, 0}; /* test hook: global site 0, link x, real part of (0, 0) */
    h_U[TDP_INDEX(L.g.nall, MILC_NL, milcSiteAt(&L.g, x0), 0)] = NAN;
  }
  if (save_gauge && milcGaugeWrite(&L, comm, h_U, save_gauge, err, sizeof(err)))
    return fail_with(rank, err, 1);
  if (rank == 0) {
    printf("# milc staggered CG: %s\n", targetConfigString());
    printf("# lattice %d x %d x %d x %d, %d rank(s) as %d x %d x %d x %d, precision %s\n",
           global[0], global[1], global[2], global[3], nranks, dims[0], dims[1], dims[2], dims[3],
           precision);
    if (opt.runs[0])
      printf("# gauge %s, seed %ld, mass %g, tol %g, maxiter %ld, runs %s\n", gauge, seed, mass,
             tol, maxiter, opt.runs);
    else
      printf("# gauge %s, seed %ld, mass %g, tol %g, maxiter %ld, timing %s, cg %s\n", gauge,
             seed, mass, tol, maxiter, milcTimingName(opt.timing), milcCgName(opt.cg));
    if (opt.inject_nan) printf("# inject_nan: a NaN in the link of site 0, direction x\n");
  }

  void *t_U = milcFieldAlloc(&L, MILC_NL, esize), *t_b = milcFieldAlloc(&L, MILC_NV, esize),
       *t_x = milcFieldAlloc(&L, MILC_NV, esize);
  milcUpload(&L, t_U, h_U, MILC_NL, prec);
  milcSourceRandom(&L, h_v, MILC_EVEN, (uint64_t) seed);
  milcUpload(&L, t_b, h_v, MILC_NV, prec);

  milcCgWork w;
  milcCgWorkCreate(&w, &L, esize);
  if (prec == MILC_SINGLE)
    milcHaloFill_f(&L, (float *) t_U, MILC_NL, -1);
  else
    milcHaloFill(&L, (double *) t_U, MILC_NL, -1);
  milcCounters cnt[MAXRUNS];
  milcCgResult all_res[MAXRUNS], res;
  char sum_path[MAXRUNS][240];
  int ran_ahead[MAXRUNS];
  for (int k = 0; k < nruns; k++) {
    milcOps ops;
    milcOpsCreateTimed(&ops, &L, comm, run_timing[k]);
    if (opt.interior_share < 1.0 && targetStreamSetShare(ops.interior, opt.interior_share)) {
      fprintf(stderr, "milc: error: --interior_share %g: %s\n", opt.interior_share,
              targetLastErrorString());
      MPI_Abort(comm, 1);
    }
    if (opt.sums == 1) ops.devsums = nranks == 1; /* --sums host: as before */
    /* --cg ahead needs the sums on the target (cg.h): otherwise fused, said */
    ran_ahead[k] = (run_cg[k] == MILC_CG_AHEAD || run_cg[k] == MILC_CG_MERGED) && ops.devsums;
    if (ran_ahead[k] || (run_cg[k] != MILC_CG_CLASSIC && run_timing[k] == MILC_TIME_EVENTS &&
                         ops.devsums))
      milcSumPath(&ops, sum_path[k], sizeof(sum_path[k]));
    else
      snprintf(sum_path[k], sizeof(sum_path[k]), "%s", nranks == 1 ? "one rank" : "host MPI_Allreduce");
    milcCgParams cp = {mass, tol, maxiter, print_every, 1, run_cg[k]};
    if (prec == MILC_SINGLE) {
      if (k) milcFieldZero_f(&L, (float *) t_x, MILC_NV);
      milcCgSolve_f(&ops, (const float *) t_U, (float *) t_x, (const float *) t_b, &cp, &w,
                    &all_res[k]);
    } else {
      if (k) milcFieldZero(&L, (double *) t_x, MILC_NV);
      milcCgSolve(&ops, (const double *) t_U, (double *) t_x, (const double *) t_b, &cp, &w,
                  &all_res[k]);
    }
    milcOpsFlush(&ops);
    cnt[k] = ops.cnt;
    milcOpsFree(&ops);
  }
  res = all_res[nruns - 1];

  /* The triad of this run: every rank at once (the node's, or the GPUs'). */
  double triad = 0.0;
  if (triad_n > 0) {
    MPI_Barrier(comm);
    const double mine = triadBandwidth(triad_n, 10);
    MPI_Allreduce(&mine, &triad, 1, MPI_DOUBLE, MPI_SUM, comm);
  }

  int breakdown_failed = 0;
  for (int k = 0; k < nruns; k++) {
    const milcCgResult *rk = &all_res[k];
    /* Per-kernel table: the slowest rank's times, all ranks' work. */
    double tmax[MILC_K_NKIND], fsum[MILC_K_NKIND], bsum[MILC_K_NKIND];
    MPI_Reduce(cnt[k].seconds, tmax, MILC_K_NKIND, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cnt[k].flops, fsum, MILC_K_NKIND, MPI_DOUBLE, MPI_SUM, 0, comm);
    MPI_Reduce(cnt[k].bytes, bsum, MILC_K_NKIND, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (rank == 0) {
      if (nruns > 1)
        printf("# run %d of %d: timing %s, cg %s\n", k + 1, nruns,
               run_timing[k] == MILC_TIME_SYNC ? "sync" : "events",
               run_cg[k] == MILC_CG_CLASSIC ? "classic"
               : run_cg[k] == MILC_CG_MERGED ? "merged"
               : run_cg[k] == MILC_CG_AHEAD ? "ahead"
                                            : "fused");
      printf("# %-8s %8s %10s %10s %10s %8s\n", "kernel", "calls", "seconds", "GFLOP/s", "GB/s",
             "%triad");
      char share_note[48] = "";
      if (opt.interior_share < 1.0)
        snprintf(share_note, sizeof(share_note), "; interior share %g", opt.interior_share);
      printf("# global sums: %s; halo transport: %s%s%s\n", sum_path[k], milcHaloTransport(&L),
             share_note,
             (run_cg[k] == MILC_CG_AHEAD || run_cg[k] == MILC_CG_MERGED) && !ran_ahead[k]
                 ? (run_cg[k] == MILC_CG_AHEAD ? "; --cg ahead needs the sums on the target: ran as fused"
                                               : "; --cg merged needs the sums on the target: ran as fused")
                 : "");
      /* dslash, blas: kernels (target clock); halo: the host in the
       * exchange calls; exch: the exchange on the target, beside D's
       * interior sweep; reduce: sums combined on the target; wait: the
       * host waiting for the target (a sum read, its MPI; an event) */
      const char *names[MILC_K_NKIND] = {"dslash", "blas", "halo", "exch", "reduce", "wait"};
      for (int i = 0; i < MILC_K_NKIND; i++) {
        const double gbs = tmax[i] > 0 ? bsum[i] / tmax[i] * 1e-9 : 0.0;
        char pct[32] = "-"; /* no triad ran (or no bytes counted): no share to give, not 0 */
        if (triad > 0 && bsum[i] > 0) snprintf(pct, sizeof(pct), "%.1f", 100.0 * gbs / triad);
        printf("# %-8s %8ld %10.4f %10.2f %10.2f %8s\n", names[i], cnt[k].calls[i], tmax[i],
               tmax[i] > 0 ? fsum[i] / tmax[i] * 1e-9 : 0.0, gbs, pct);
      }
      const double gbs = rk->seconds > 0 ? rk->bytes / rk->seconds * 1e-9 : 0.0;
      if (triad > 0)
        printf("# triad %.2f GB/s (all ranks together, this run); CG %.1f%% of it\n", triad,
               100.0 * gbs / triad);
      if (rk->breakdown) /* no residual to report: it is not a number */
        printf("CG broke down: iterations %ld, restarts %d, time %.4f s\n", rk->iterations,
               rk->restarts, rk->seconds);
      else
        printf("CG %s: iterations %ld, restarts %d, |r|/|b| %.3e, true residual %.3e, time "
               "%.4f s, %.2f GFLOP/s, %.2f GB/s\n",
               rk->converged ? "converged" : "NOT converged", rk->iterations, rk->restarts,
               rk->residual, rk->true_residual, rk->seconds,
               rk->seconds > 0 ? rk->flops / rk->seconds * 1e-9 : 0.0, gbs);
      if (opt.breakdown[0] && rk->iterations > 0 &&
          write_breakdown(opt.breakdown, rk, tmax, dims, &L, prec,
                          ran_ahead[k] ? (run_cg[k] == MILC_CG_MERGED ? "merged" : "ahead")
                          : run_cg[k] == MILC_CG_CLASSIC ? "classic" : "fused",
                          run_timing[k] == MILC_TIME_SYNC ? "sync" : "events", sum_path[k],
                          err, sizeof(err)))
        breakdown_failed = 1;
    }
  }
  MPI_Bcast(&breakdown_failed, 1, MPI_INT, 0, comm);
  if (breakdown_failed) {
    if (rank == 0) fprintf(stderr, "milc: error: %s\n", err);
    MPI_Finalize();
    return 1;
  }
  char value[40];
  if (rank == 0 && res.breakdown)
    snprintf(value, sizeof(value), isnan(res.breakdown_value) ? "NaN" : "%g",
             res.breakdown_value);
  if (rank == 0 && res.breakdown == MILC_CG_BREAKDOWN_PAP)
    fprintf(stderr,
            "milc: error: CG broke down at iteration %ld: <p, M p> = %s is not positive and "
            "finite (a NaN or infinity in the links or the source, or m^2 |p|^2 beyond a "
            "double: mass %g?)\n",
            res.iterations, value, mass);
  else if (rank == 0 && res.breakdown == MILC_CG_BREAKDOWN_START)
    fprintf(stderr,
            "milc: error: CG broke down before the first iteration: %s = %s is not finite (a "
            "non-finite value in the links or the source)\n",
            isfinite(res.breakdown_value) ? "|b|^2" : "|b - M x0|^2", value);
  else if (rank == 0 && res.breakdown == MILC_CG_BREAKDOWN_ZERO_SOURCE)
    fprintf(stderr, "milc: error: CG broke down before the first iteration: the source b is 0, "
                    "so |r|/|b| means nothing (the solution is x = 0)\n");
  else if (rank == 0 && res.breakdown == MILC_CG_BREAKDOWN_RESIDUAL)
    fprintf(stderr,
            "milc: error: CG broke down after iteration %ld: the true residual |b - M x|^2 = %s "
            "is not finite\n",
            res.iterations, value);
  else if (!res.converged && rank == 0)
    fprintf(stderr,
            "milc: error: not converged in %ld iterations and %d restarts (true residual "
            "%.3e > tol %g)%s\n",
            res.iterations, res.restarts, res.true_residual, tol,
            prec == MILC_SINGLE && res.iterations < maxiter
                ? "; single precision cannot reach this tolerance here: use double"
                : "");
  int status = res.converged ? 0 : 1;
  if (save && res.breakdown) { /* x is no answer (NaN, or nothing done): keep the old file */
    if (rank == 0)
      fprintf(stderr, "milc: --save '%s' not written: the solve broke down (an old file of that "
                      "name is unchanged)\n", save);
  } else if (save) {
    milcDownload(&L, h_v, t_x, MILC_NV, prec);
    /* the verdict above stands; a solution that cannot be written fails
     * the run (common/pario: the old file kept, one message, every rank) */
    if (milcVectorWrite(&L, comm, h_v, MILC_EVEN, save, err, sizeof(err))) {
      if (rank == 0) fprintf(stderr, "milc: error: %s\n", err);
      status = 1;
    }
  }

  milcCgWorkFree(&w);
  targetFree(t_U);
  targetFree(t_b);
  targetFree(t_x);
  free(h_U);
  free(h_v);
  milcLatticeFree(&L);
  targetFinalize();
  decompFree(&dec);
  MPI_Finalize();
  return status;
}
