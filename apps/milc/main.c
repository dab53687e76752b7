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
#include "common/timer.h"
#include "common/triad.h"
#include "gauge.h"
#include "io.h"
#include "kernels.h"
#include "lattice.h"
#include "targetDP.h"

static const char *const known[] = {
    "--size=", "--decomposition=", "--mass=", "--tol=", "--maxiter=", "--seed=",
    "--precision=", "--gauge=", "--print_every=", "--save=", "--gauge_file=", "--save_gauge=",
    "--triad=", "--timing=", "--cg=", "--runs=", "--help", NULL};

static void usage(void) {
  printf(
      "milc: staggered CG, (m^2 - D^2) x = b on the even sites\n"
      "  --size X,Y,Z,T       global lattice (or one number for all four; default 8)\n"
      "  --decomposition a,b,c,d  MPI ranks per axis (0: chosen, least halo surface; default 0)\n"
      "  --mass m             quark mass, > 0 (default 0.1)\n"
      "  --tol t              relative residual |r|/|b|, in (0, 1) (default 1e-8)\n"
      "  --maxiter n          iteration limit (default 1000)\n"
      "  --seed s             gauge field and source (default 1)\n"
      "  --precision p        double or single: storage of the target fields (double)\n"
      "  --gauge random|unit  random SU(3) or the free field (default random)\n"
      "  --print_every n      progress line interval (default 10; 0: none)\n"
      "  --save FILE          write the solution (even sites, global order)\n"
      "  --gauge_file FILE    read the links from a file written by --save_gauge\n"
      "  --save_gauge FILE    write the links (header, checksum; MPI-IO)\n"
      "  --triad n            run a STREAM triad on n doubles per array after the solve and\n"
      "                       give each kernel's bandwidth as %% of it (default 0: off)\n"
      "  --timing events|sync kernels timed by events on the target, no host synchronisation\n"
      "                       (default), or the target synchronised around each (as before)\n"
      "  --cg fused|classic|ahead  CG kernels as QUDA's (r, then x and p together; alpha on\n"
      "                       the target on one rank; default), as before (x and r, then p),\n"
      "                       or fused with the host one iteration behind (one rank)\n"
      "  --runs T:C,T:C,...   solve once per item (timing T, cg C; x from 0 each time) on the\n"
      "                       same fields, one table and summary line each: variants\n"
      "                       interleaved in one run (default: --timing:--cg, once)\n");
}

/* "8", "8,8,8,16" or "8x8x8x16": n numbers, or one for all. */
static int parse4(const char *s, int v[4], char *err, size_t errlen, const char *what) {
  int k = 0;
  const char *c = s;
  while (k < 4) {
    char *end;
    long x = strtol(c, &end, 10);
    if (end == c || x < 0 || x > 1000000) break;
    v[k++] = (int) x;
    if (*end == '\0') {
      c = end;
      break;
    }
    if (*end != ',' && *end != 'x') {
      k = -1;
      break;
    }
    c = end + 1;
  }
  if (k == 1 && *c == '\0') {
    v[1] = v[2] = v[3] = v[0];
  } else if (k != 4 || *c != '\0') {
    snprintf(err, errlen, "%s needs four integers like 8,8,8,16 (or one for all), not '%s'", what,
             s);
    return -1;
  }
  return 0;
}

static int fail(int rank, const char *err) {
  if (rank == 0) fprintf(stderr, "milc: error: %s\n", err);
  MPI_Finalize();
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  char err[512];
  if (cliFlag(argc, argv, "--help")) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 0;
  }
  if (cliCheck(argc, argv, known)) return fail(rank, "bad command line (see --help)");

  int global[4], request[4] = {0, 0, 0, 0};
  if (parse4(cliString(argc, argv, "--size", "8"), global, err, sizeof(err), "size"))
    return fail(rank, err);
  if (parse4(cliString(argc, argv, "--decomposition", "0"), request, err, sizeof(err),
             "decomposition"))
    return fail(rank, err);
  const double mass = cliDouble(argc, argv, "--mass", 0.1);
  const double tol = cliDouble(argc, argv, "--tol", 1e-8);
  const long maxiter = cliLong(argc, argv, "--maxiter", 1000, 1, 1000000000L);
  const long seed = cliLong(argc, argv, "--seed", 1, 0, 0x7fffffffffffffffL);
  const long print_every = cliLong(argc, argv, "--print_every", 10, 0, 1000000000L);
  const long triad_n = cliLong(argc, argv, "--triad", 0, 0, 1L << 30);
  const char *precision = cliString(argc, argv, "--precision", "double");
  const char *gauge = cliString(argc, argv, "--gauge", "random");
  const char *timing = cliString(argc, argv, "--timing", "events");
  const char *cgv = cliString(argc, argv, "--cg", "fused");
  const char *runs_arg = cliString(argc, argv, "--runs", NULL);
  const char *save = cliString(argc, argv, "--save", NULL);
  const char *gauge_file = cliString(argc, argv, "--gauge_file", NULL);
  const char *save_gauge = cliString(argc, argv, "--save_gauge", NULL);

  if (!(mass > 0.0) || !isfinite(mass))
    return fail(rank, "mass must be a finite number > 0 (m^2 - D^2 is then positive definite)");
  if (!(tol > 0.0 && tol < 1.0)) return fail(rank, "tol must be in (0, 1)");
  milcPrecision prec = MILC_DOUBLE;
  if (strcmp(precision, "double") == 0) {
    prec = MILC_DOUBLE;
  } else if (strcmp(precision, "single") == 0) {
    prec = MILC_SINGLE;
  } else {
    snprintf(err, sizeof(err), "precision must be double or single, not '%s'", precision);
    return fail(rank, err);
  }
  if (strcmp(timing, "events") && strcmp(timing, "sync")) {
    snprintf(err, sizeof(err), "timing must be events or sync, not '%s'", timing);
    return fail(rank, err);
  }
  if (strcmp(cgv, "fused") && strcmp(cgv, "classic") && strcmp(cgv, "ahead")) {
    snprintf(err, sizeof(err), "cg must be fused, classic or ahead, not '%s'", cgv);
    return fail(rank, err);
  }
  /* The solves: --runs, or the one of --timing and --cg. */
  enum { MAXRUNS = 32 };
  milcTiming run_timing[MAXRUNS];
  milcCgVariant run_cg[MAXRUNS];
  int nruns = 0;
  if (runs_arg) {
    const char *c = runs_arg;
    while (*c) {
      const size_t len = strcspn(c, ",");
      char item[64];
      if (len == 0 || len >= sizeof(item) || nruns == MAXRUNS) {
        nruns = -1;
        break;
      }
      memcpy(item, c, len);
      item[len] = '\0';
      char *colon = strchr(item, ':');
      if (!colon) {
        nruns = -1;
        break;
      }
      *colon = '\0';
      const int t = !strcmp(item, "events") ? 0 : !strcmp(item, "sync") ? 1 : -1;
      const int v = !strcmp(colon + 1, "fused")     ? 0
                    : !strcmp(colon + 1, "classic") ? 1
                    : !strcmp(colon + 1, "ahead")   ? 2
                                                    : -1;
      if (t < 0 || v < 0) {
        nruns = -1;
        break;
      }
      run_timing[nruns] = t ? MILC_TIME_SYNC : MILC_TIME_EVENTS;
      run_cg[nruns++] = v == 2 ? MILC_CG_AHEAD : v ? MILC_CG_CLASSIC : MILC_CG_FUSED;
      c += len;
      if (*c == ',') c++;
    }
    if (nruns <= 0) {
      snprintf(err, sizeof(err),
               "runs must be 1 to %d items timing:cg (events|sync : fused|classic|ahead), comma "
               "separated, not '%s'", (int) MAXRUNS, runs_arg);
      return fail(rank, err);
    }
  } else {
    run_timing[0] = strcmp(timing, "sync") ? MILC_TIME_EVENTS : MILC_TIME_SYNC;
    run_cg[0] = !strcmp(cgv, "classic") ? MILC_CG_CLASSIC
                : !strcmp(cgv, "ahead")   ? MILC_CG_AHEAD
                                          : MILC_CG_FUSED;
    nruns = 1;
  }
  if (strcmp(gauge, "random") && strcmp(gauge, "unit")) {
    snprintf(err, sizeof(err), "gauge must be random or unit, not '%s'", gauge);
    return fail(rank, err);
  }

  /* Decomposition (common/decomp): every axis must split evenly into even
   * local extents, so the choice is made on the half extents. */
  int dims[4], local[4], half[4];
  for (int d = 0; d < 4; d++) {
    if (global[d] < 2 || global[d] % 2) {
      snprintf(err, sizeof(err), "size along %c must be even and >= 2, not %d", "xyzt"[d],
               global[d]);
      return fail(rank, err);
    }
    half[d] = global[d] / 2;
  }
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
  } else if (strcmp(gauge, "unit") == 0) {
    milcGaugeUnit(&L, h_U);
  } else {
    milcGaugeRandom(&L, h_U, (uint64_t) seed);
  }
  if (save_gauge && milcGaugeWrite(&L, comm, h_U, save_gauge, err, sizeof(err)))
    return fail(rank, err);
  if (rank == 0) {
    printf("# milc staggered CG: %s\n", targetConfigString());
    printf("# lattice %d x %d x %d x %d, %d rank(s) as %d x %d x %d x %d, precision %s\n",
           global[0], global[1], global[2], global[3], nranks, dims[0], dims[1], dims[2], dims[3],
           precision);
    printf("# gauge %s, seed %ld, mass %g, tol %g, maxiter %ld, %s%s%s%s\n", gauge, seed, mass,
           tol, maxiter, runs_arg ? "runs " : "timing ", runs_arg ? runs_arg : timing,
           runs_arg ? "" : ", cg ", runs_arg ? "" : cgv);
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
  for (int k = 0; k < nruns; k++) {
    milcOps ops;
    milcOpsCreateTimed(&ops, &L, comm, run_timing[k]);
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
               : run_cg[k] == MILC_CG_AHEAD ? "ahead"
                                            : "fused");
      printf("# %-8s %8s %10s %10s %10s %8s\n", "kernel", "calls", "seconds", "GFLOP/s", "GB/s",
             "%triad");
      const char *names[MILC_K_NKIND] = {"dslash", "blas", "halo"};
      for (int i = 0; i < MILC_K_NKIND; i++) {
        const double gbs = tmax[i] > 0 ? bsum[i] / tmax[i] * 1e-9 : 0.0;
        printf("# %-8s %8ld %10.4f %10.2f %10.2f %8.1f\n", names[i], cnt[k].calls[i], tmax[i],
               tmax[i] > 0 ? fsum[i] / tmax[i] * 1e-9 : 0.0, gbs,
               triad > 0 && i != MILC_K_HALO ? 100.0 * gbs / triad : 0.0);
      }
      const double gbs = rk->bytes / rk->seconds * 1e-9;
      if (triad > 0)
        printf("# triad %.2f GB/s (all ranks together, this run); CG %.1f%% of it\n", triad,
               100.0 * gbs / triad);
      printf("CG %s: iterations %ld, restarts %d, |r|/|b| %.3e, true residual %.3e, time %.4f s, "
             "%.2f GFLOP/s, %.2f GB/s\n",
             rk->converged ? "converged" : "NOT converged", rk->iterations, rk->restarts,
             rk->residual, rk->true_residual, rk->seconds, rk->flops / rk->seconds * 1e-9, gbs);
    }
  }
  if (res.breakdown && rank == 0)
    fprintf(stderr,
            "milc: error: CG broke down at iteration %ld: <p, M p> is not positive and "
            "finite (non-finite links or source?)\n",
            res.iterations);
  else if (!res.converged && rank == 0)
    fprintf(stderr,
            "milc: error: not converged in %ld iterations and %d restarts (true residual "
            "%.3e > tol %g)%s\n",
            res.iterations, res.restarts, res.true_residual, tol,
            prec == MILC_SINGLE && res.iterations < maxiter
                ? "; single precision cannot reach this tolerance here: use double"
                : "");
  int status = res.converged ? 0 : 1;
  if (save) {
    milcDownload(&L, h_v, t_x, MILC_NV, prec);
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
