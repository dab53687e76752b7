/* Run parameters: defaults, then a key = value file (--params FILE), then
 * command-line options --key value, each overriding the one before. Every
 * key is checked before any work starts; docs/lb.md lists them. */
#ifndef LB_PARAMS_H
#define LB_PARAMS_H

#include <stddef.h>
#include <stdio.h>

enum { LB_CASE_UNIFORM = 0, LB_CASE_SHEARWAVE, LB_CASE_POISEUILLE };
enum { LB_KERNEL_FUSED = 0, LB_KERNEL_SPLIT };

#define LB_PATH_MAX 512

typedef struct {
  int size[3];              /* global grid */
  double tau;               /* BGK relaxation time, > 1/2 */
  double rho;               /* initial density */
  double force[3];          /* body force density (Guo forcing) */
  double velocity[3];       /* initial velocity (case uniform) */
  double amplitude;         /* initial shear-wave amplitude */
  int lbcase;               /* LB_CASE_* */
  int walls[3];             /* bounce-back walls at both ends of axis d */
  long steps;               /* run until this step number */
  long print_every;         /* progress line and CSV row interval */
  long vtk_every;           /* VTK snapshot interval (0: none) */
  long checkpoint_every;    /* checkpoint interval (0: none); also at the end */
  int decomposition[3];     /* ranks per axis, 0 = choose */
  int kernel;               /* LB_KERNEL_* */
  int overlap;              /* interior update || halo exchange, then boundary; -1: GPU only */
  int early_fill;           /* overlapped: periodic axes held alone filled before the interior */
  int fill_pieces;          /* overlapped, early fill: that fill in this many pieces along x */
  int self_again;           /* overlapped, early fill: the exchange copies those axes again */
  int one_boundary;         /* overlapped: the boundary layer in one launch */
  double interior_share;    /* overlapped: the interior sweep's stream's share of the device */
  char breakdown[LB_PATH_MAX]; /* append the event breakdown of an overlapped step here ("": none) */
  long triad;               /* doubles per array of the in-run STREAM triad (0: off) */
  int validate;             /* end with the case's PASS/FAIL check */
  char output[LB_PATH_MAX]; /* prefix of every output file */
  char restart[LB_PATH_MAX];/* checkpoint to continue from ("" : none) */
  char summary[LB_PATH_MAX];/* append a one-row performance summary (CSV) here */
  long inject_nan;          /* test hook: a NaN into the fields at this step (0: off) */
} lbParams;

/* Fills p from defaults, the file and argv (common/cli.h), and checks
 * every value and every conflict. Returns 0; 1 after --help (usage
 * printed); -1 with the reason in err. Prints nothing else. */
int lbParamsLoad(int argc, char **argv, lbParams *p, char *err, size_t errlen);
/* The files of a run, before any work (stat and access only, one rank):
 * the restart checkpoint a regular file; every file the run will write
 * (<output>.csv, .chk, each VTK snapshot, their .tmp names, the summary)
 * absent or a regular file, in a directory that exists and is writable;
 * the summary no file the run writes otherwise. 0, or -1 + err. */
int lbParamsCheckFiles(const lbParams *p, char *err, size_t errlen);
void lbParamsPrint(FILE *out, const lbParams *p);
const char *lbCaseName(int lbcase);

#endif
