/* milc's options: read by the shared parser (common/cli.h, the table in
 * options.c), then every value, every conflict and every file checked
 * before any work (docs/milc.md lists them). */
#ifndef MILC_OPTIONS_H
#define MILC_OPTIONS_H

#include <stddef.h>

#define MILC_PATH_MAX 1000
#define MILC_MAXRUNS 32

typedef enum { MILC_GAUGE_RANDOM = 0, MILC_GAUGE_UNIT = 1 } milcGaugeKind;

typedef struct {
  int size[4];          /* global lattice */
  int decomposition[4]; /* ranks per axis, 0: chosen */
  double mass, tol;
  double interior_share; /* D's interior sweep's stream: its share of the device (targetStreamSetShare) */
  long maxiter, seed, print_every, triad;
  int precision;        /* milcPrecision (lattice.h) */
  int gauge;            /* milcGaugeKind */
  int timing;           /* milcTiming (kernels.h) */
  int cg;               /* milcCgVariant (cg.h) */
  int sums;             /* 0: on the target where possible; 1: through the host (MPI) */
  int inject_nan;       /* test hook: a NaN in one link before the solve */
  char save[MILC_PATH_MAX], gauge_file[MILC_PATH_MAX], save_gauge[MILC_PATH_MAX];
  char breakdown[MILC_PATH_MAX]; /* append a CSV row of each solve's time per iteration ("": none) */
  char runs[512];       /* "timing:cg,..." ("": the one of timing and cg) */
  /* from runs (or timing and cg): the solves */
  int nruns;
  int run_timing[MILC_MAXRUNS], run_cg[MILC_MAXRUNS];
} milcOptions;

/* Defaults, then argv; every value and conflict checked (no MPI, no
 * files). 0; 1 if --help was asked; -1 with the reason in err. */
int milcOptionsLoad(int argc, char **argv, milcOptions *o, char *err, size_t errlen);
void milcOptionsUsage(void); /* stdout: every option, one line each */

/* The sizes against the rank count, in 64 bits (nothing wraps): the
 * global site count and a rank's block must fit the int indices and the
 * files' offsets. 0, or -1 with the true numbers in err. */
int milcOptionsCheckSizes(const milcOptions *o, int nranks, char *err, size_t errlen);

/* The files, before any work (stat and access only, one rank): the gauge
 * file to read a regular file; --save and --save_gauge (and their .tmp
 * names) absent or regular, in a writable directory; no two of the three
 * the same file. 0, or -1 + err. */
int milcOptionsCheckFiles(const milcOptions *o, char *err, size_t errlen);

const char *milcTimingName(int timing);
const char *milcCgName(int cg);

#endif
