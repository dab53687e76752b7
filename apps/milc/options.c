#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/fileio.h"
#include "options.h"

static const char *const precision_names[] = {"double", "single", NULL};
static const char *const gauge_names[] = {"random", "unit", NULL};
static const char *const timing_names[] = {"events", "sync", NULL};
static const char *const cg_names[] = {"fused", "classic", "ahead", "merged", NULL};
static const char *const sums_names[] = {"auto", "host", NULL};

const char *milcTimingName(int t) { return t == 1 ? "sync" : "events"; }
const char *milcCgName(int c) { return c >= 0 && c <= 3 ? cg_names[c] : "?"; }

/* The shared parser's table (common/cli.h): the command line and --help. */
#define LONGKEY(name, field, min, max, help) \
  {name, CLI_LONG, offsetof(milcOptions, field), 1, 0, min, max, NULL, help}
#define KEY(name, type, field, count, all, choices, help) \
  {name, type, offsetof(milcOptions, field), count, all, 0, 0, choices, help}
static const cliKey keys[] = {
    KEY("size", CLI_INTS, size, 4, 1, NULL,
        "X,Y,Z,T  global lattice (or one number for all four; default 8)"),
    KEY("decomposition", CLI_INTS, decomposition, 4, 1, NULL,
        "a,b,c,d  MPI ranks per axis (0: chosen, least halo surface; default 0)"),
    KEY("mass", CLI_REALS, mass, 1, 0, NULL, "m  quark mass, > 0 (default 0.1)"),
    KEY("tol", CLI_REALS, tol, 1, 0, NULL, "t  relative residual |r|/|b|, in (0, 1) (default 1e-8)"),
    LONGKEY("maxiter", maxiter, 1, 1000000000L, "n  iteration limit (default 1000)"),
    LONGKEY("seed", seed, 0, LONG_MAX, "s  gauge field and source (default 1)"),
    KEY("precision", CLI_CHOICE, precision, 1, 0, precision_names,
        "p  double or single: storage of the target fields (double)"),
    KEY("gauge", CLI_CHOICE, gauge, 1, 0, gauge_names,
        "random|unit  random SU(3) or the free field (default random)"),
    LONGKEY("print_every", print_every, 0, 1000000000L,
            "n  progress line interval (default 10; 0: none)"),
    KEY("save", CLI_STRING, save, MILC_PATH_MAX, 0, NULL,
        "FILE  write the solution (even sites, global order)"),
    KEY("gauge_file", CLI_STRING, gauge_file, MILC_PATH_MAX, 0, NULL,
        "FILE  read the links from a file written by --save_gauge"),
    KEY("save_gauge", CLI_STRING, save_gauge, MILC_PATH_MAX, 0, NULL,
        "FILE  write the links (header, checksum; MPI-IO)"),
    LONGKEY("triad", triad, 0, 1L << 30,
            "n  run a STREAM triad on n doubles per array after the solve and give each "
            "kernel's bandwidth as % of it (default 0: off)"),
    KEY("timing", CLI_CHOICE, timing, 1, 0, timing_names,
        "events|sync  kernels timed by events on the target, no host synchronisation "
        "(default), or the target synchronised around each (as before)"),
    KEY("cg", CLI_CHOICE, cg, 1, 0, cg_names,
        "fused|classic|ahead|merged  CG kernels as QUDA's (r, then x and p together; alpha on the "
        "target where the sums can stay there; default), as before (x and r, then p), or fused "
        "with every scalar on the target and the host one iteration behind (one rank, or "
        "several with NCCL), or merged: Chronopoulos and Gear's CG, one global sum an iteration, "
        "the host behind as with ahead"),
    KEY("runs", CLI_STRING, runs, 512, 0, NULL,
        "T:C,T:C,...  solve once per item (timing T, cg C; x from 0 each time) on the same "
        "fields, one table and summary line each (instead of --timing and --cg)"),
    KEY("inject_nan", CLI_BOOL, inject_nan, 1, 0, NULL,
        "0|1  test hook: a NaN in one link (site 0, x direction) before the solve"),
    KEY("sums", CLI_CHOICE, sums, 1, 0, sums_names,
        "auto|host  several ranks: the global sums combined on the target where the device "
        "communicator can (NCCL; the C backend), default; or read by the host and combined by "
        "MPI_Allreduce, as before (--cg ahead then runs as fused)"),
    KEY("breakdown", CLI_STRING, breakdown, MILC_PATH_MAX, 0, NULL,
        "FILE  append one CSV row per solve: where a CG iteration's time goes (D, vector "
        "kernels, sums on the target, the exchange beside D, host waits, idle gaps)"),
    KEY("interior_share", CLI_REALS, interior_share, 1, 0, NULL,
        "f  in (0, 1]: D's interior sweep takes at most this share of the target at once, "
        "leaving the rest to the halo stream's kernels (targetStreamSetShare; default 1)"),
};
#undef KEY
#undef LONGKEY
#define NKEYS ((int) (sizeof(keys) / sizeof(keys[0])))
enum { K_SIZE, K_DECOMP, K_MASS, K_TOL, K_MAXITER, K_SEED, K_PRECISION, K_GAUGE, K_PRINT,
       K_SAVE, K_GAUGE_FILE, K_SAVE_GAUGE, K_TRIAD, K_TIMING, K_CG, K_RUNS, K_INJECT, K_SUMS,
       K_BREAKDOWN, K_INTERIOR_SHARE };

void milcOptionsUsage(void) {
  printf("milc: staggered CG, (m^2 - D^2) x = b on the even sites\n"
         "  (a repeated option takes its last value)\n");
  cliUsage(stdout, keys, NKEYS);
}

/* "events:fused,sync:classic": the solves, or -1. */
static int parse_runs(milcOptions *o) {
  const char *c = o->runs;
  o->nruns = 0;
  while (*c) {
    const size_t len = strcspn(c, ",");
    char item[64];
    if (len == 0 || len >= sizeof(item) || o->nruns == MILC_MAXRUNS) return -1;
    memcpy(item, c, len);
    item[len] = '\0';
    char *colon = strchr(item, ':');
    if (!colon) return -1;
    *colon = '\0';
    int t = -1, v = -1;
    for (int k = 0; timing_names[k]; k++)
      if (strcmp(item, timing_names[k]) == 0) t = k;
    for (int k = 0; cg_names[k]; k++)
      if (strcmp(colon + 1, cg_names[k]) == 0) v = k;
    if (t < 0 || v < 0) return -1;
    o->run_timing[o->nruns] = t;
    o->run_cg[o->nruns++] = v;
    c += len;
    if (*c == ',') c++;
  }
  return o->nruns > 0 ? 0 : -1;
}

int milcOptionsLoad(int argc, char **argv, milcOptions *o, char *err, size_t len) {
  memset(o, 0, sizeof(*o));
  for (int d = 0; d < 4; d++) o->size[d] = 8;
  o->mass = 0.1;
  o->tol = 1e-8;
  o->maxiter = 1000;
  o->seed = 1;
  o->print_every = 10;
  o->interior_share = 1.0;
  int given[NKEYS];
  const int rc = cliLoad(argc, argv, keys, NKEYS, NULL, o, given, err, len);
  if (rc) return rc;

  for (int d = 0; d < 4; d++) {
    if (o->size[d] < 2 || o->size[d] % 2) {
      snprintf(err, len, "size along %c must be even and >= 2, not %d", "xyzt"[d], o->size[d]);
      return -1;
    }
    if (o->decomposition[d] < 0) {
      snprintf(err, len, "decomposition along %c is %d: must be >= 0 (0 = choose)", "xyzt"[d],
               o->decomposition[d]);
      return -1;
    }
  }
  if (!(o->mass > 0.0)) {
    snprintf(err, len, "mass must be a finite number > 0 (m^2 - D^2 is then positive definite), "
                       "not %g", o->mass);
    return -1;
  }
  /* M = m^2 - D^2 needs m^2 as a double: a mass whose square overflows
   * would make every residual NaN (M x0 = inf * 0). */
  if (!isfinite(o->mass * o->mass)) {
    snprintf(err, len, "mass %g: its square overflows a double (m^2 = inf); m <= 1e154", o->mass);
    return -1;
  }
  if (!(o->tol > 0.0 && o->tol < 1.0)) {
    snprintf(err, len, "tol must be in (0, 1), not %g", o->tol);
    return -1;
  }
  if (!(o->interior_share > 0.0 && o->interior_share <= 1.0)) {
    snprintf(err, len, "interior_share must be in (0, 1], not %g", o->interior_share);
    return -1;
  }
  /* Conflicts are errors: an option that would be ignored is not run as
   * if it were not there. */
  if (given[K_RUNS] && (given[K_TIMING] || given[K_CG])) {
    snprintf(err, len, "--runs gives the timing and cg of every solve: it cannot be combined "
                       "with --timing or --cg");
    return -1;
  }
  if (given[K_GAUGE_FILE] && given[K_GAUGE]) {
    snprintf(err, len, "--gauge_file gives the links: it cannot be combined with --gauge");
    return -1;
  }
  if (given[K_RUNS]) {
    if (parse_runs(o)) {
      snprintf(err, len, "runs must be 1 to %d items timing:cg (events|sync : fused|classic|ahead|merged), "
                         "comma separated, not '%s'", MILC_MAXRUNS, o->runs);
      return -1;
    }
  } else {
    o->nruns = 1;
    o->run_timing[0] = o->timing;
    o->run_cg[0] = o->cg;
  }
  const char *names[3] = {o->save, o->gauge_file, o->save_gauge};
  const char *opt[3] = {"--save", "--gauge_file", "--save_gauge"};
  for (int a = 0; a < 3; a++) {
    if (given[a == 0 ? K_SAVE : a == 1 ? K_GAUGE_FILE : K_SAVE_GAUGE] && !names[a][0]) {
      snprintf(err, len, "%s needs a file name, not ''", opt[a]);
      return -1;
    }
  }
  return 0;
}

int milcOptionsCheckSizes(const milcOptions *o, int nranks, char *err, size_t len) {
  /* A rank indexes its block (halo included) with ints (lattice.c), so a
   * lattice of more than 2^30 sites per rank cannot run; the gauge file's
   * offsets (576 bytes a site) must fit an MPI_Offset. */
  const long long ext[4] = {o->size[0], o->size[1], o->size[2], o->size[3]};
  const long long per_rank = 1LL << 30, file_max = LLONG_MAX / 576;
  const long long most = (long long) nranks * per_rank < file_max ? (long long) nranks * per_rank
                                                                  : file_max;
  long long sites = 0;
  if (cliProduct(ext, 4, most, &sites)) {
    char n[64];
    snprintf(err, len, "lattice %d x %d x %d x %d has %s sites: more than %d rank(s) hold (at "
                       "most 2^30 = %lld sites per rank: int indices)", o->size[0], o->size[1],
             o->size[2], o->size[3], cliProductText(ext, 4, n, sizeof(n)), nranks, per_rank);
    return -1;
  }
  return 0;
}

static int same(const char *a, const char *b) { return a[0] && b[0] && fioSameFile(a, b); }

int milcOptionsCheckFiles(const milcOptions *o, char *err, size_t len) {
  /* stat before any open: MPI_File_open of a FIFO blocks every rank */
  if (o->gauge_file[0] && fioCheckRegular(o->gauge_file, "gauge file", err, len)) return -1;
  const char *out[2] = {o->save, o->save_gauge};
  const char *what[2] = {"solution", "gauge file"};
  char tmp[MILC_PATH_MAX + 8];
  for (int k = 0; k < 2; k++) {
    if (!out[k][0]) continue;
    snprintf(tmp, sizeof(tmp), "%s.tmp", out[k]); /* common/pario writes it, then renames */
    if (fioCheckOutput(out[k], what[k], err, len) || fioCheckOutput(tmp, what[k], err, len))
      return -1;
  }
  if (o->breakdown[0] && fioCheckOutput(o->breakdown, "breakdown", err, len)) return -1;
  for (int k = 0; k < 3 && o->breakdown[0]; k++) {
    const char *other[3] = {o->save, o->save_gauge, o->gauge_file};
    if (same(o->breakdown, other[k])) {
      snprintf(err, len, "--breakdown and --%s name the same file '%s'",
               k == 0 ? "save" : k == 1 ? "save_gauge" : "gauge_file", o->breakdown);
      return -1;
    }
  }
  if (same(o->save, o->save_gauge) || same(o->save, o->gauge_file)) {
    snprintf(err, len, "--save and --%s name the same file '%s'",
             same(o->save, o->save_gauge) ? "save_gauge" : "gauge_file", o->save);
    return -1;
  }
  return 0;
}
