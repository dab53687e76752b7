#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/fileio.h"
#include "params.h"

/* One table (common/cli.h) drives the file parser, the command line and
 * the usage text, so the three can never disagree about which keys exist. */
static const char *const case_names[] = {"uniform", "shearwave", "poiseuille", NULL};
static const char *const kernel_names[] = {"fused", "split", NULL};

#define KEY(name, type, field, count, help) \
  {name, type, offsetof(lbParams, field), count, 0, LONG_MIN, LONG_MAX, NULL, help}
static const cliKey keys[] = {
    KEY("size", CLI_INTS, size, 3, "NX,NY,NZ  global grid (or NXxNYxNZ)"),
    KEY("tau", CLI_REALS, tau, 1, "T  BGK relaxation time (> 0.5); viscosity (tau-1/2)/3"),
    KEY("rho", CLI_REALS, rho, 1, "R  initial density"),
    KEY("force", CLI_REALS, force, 3, "FX,FY,FZ  uniform body force density"),
    KEY("velocity", CLI_REALS, velocity, 3, "UX,UY,UZ  initial velocity (case uniform)"),
    KEY("amplitude", CLI_REALS, amplitude, 1, "A  initial u_y amplitude (case shearwave)"),
    {"case", CLI_CHOICE, offsetof(lbParams, lbcase), 1, 0, 0, 0, case_names,
     "uniform | shearwave | poiseuille"},
    KEY("walls", CLI_AXES, walls, 3, "none, or the axes with bounce-back walls: x, y, z, xz..."),
    KEY("steps", CLI_LONG, steps, 1, "N  run until this step"),
    KEY("print_every", CLI_LONG, print_every, 1, "N  progress line + CSV row interval (0: start and end)"),
    KEY("vtk_every", CLI_LONG, vtk_every, 1, "N  VTK snapshot interval (0: none)"),
    KEY("checkpoint_every", CLI_LONG, checkpoint_every, 1, "N  checkpoint interval (0: none); also written at the end"),
    KEY("decomposition", CLI_INTS, decomposition, 3, "PX,PY,PZ  MPI ranks per axis (0: choose)"),
    {"kernel", CLI_CHOICE, offsetof(lbParams, kernel), 1, 0, 0, 0, kernel_names,
     "fused (collide+stream in one pass) | split (two kernels)"},
    KEY("overlap", CLI_BOOL, overlap, 1, "0|1  1: update the interior while the halo travels (fused kernel; every 10th step without, to measure what was hidden); 0: halo, then update; default: on a GPU, tried for 30 steps and kept only if faster; 0 on the host (whose streams run in order)"),
    KEY("early_fill", CLI_BOOL, early_fill, 1, "0|1  overlapped steps: 1 (default) fills the halo of the periodic axes a rank holds alone before the interior update, whose sweep then computes their faces right, and the boundary update after the exchange redoes only the faces of split axes and walls; 0: it redoes every face"),
    KEY("fill_pieces", CLI_INTS, fill_pieces, 1, "N  overlapped steps with early_fill: the periodic axes' fill and the interior sweep in N pieces along x (1 to 64; default 2), the first an eighth of the planes, each piece of the sweep waiting only for the piece of the fill it reads: the sweep starts after the first piece of the fill, not after the whole fill; 1: the whole fill first"),
    KEY("self_again", CLI_BOOL, self_again, 1, "0|1  overlapped steps with early_fill: 0 (default) the exchange does not copy the periodic axes held alone again (every rank filled them before packing its faces, which carry them); 1: it copies them again, whole faces (as before issue 29)"),
    KEY("one_boundary", CLI_BOOL, one_boundary, 1, "0|1  overlapped steps: 1 (default) the boundary layer (planes and faces redone after the exchange) in one launch; 0: a launch per plane or face"),
    KEY("interior_share", CLI_REALS, interior_share, 1, "F  in (0, 1]: the interior sweep takes at most this share of the target at once, leaving the rest to the halo stream's kernels (targetStreamSetShare; default 1)"),
    KEY("breakdown", CLI_STRING, breakdown, LB_PATH_MAX, "FILE  append to this CSV file where the time of an overlapped step goes, from events on the device (interior, self fill, exchange phases, boundary, idle gaps, host queueing)"),
    KEY("triad", CLI_LONG, triad, 1, "N  doubles per array of an in-run STREAM triad (0: off)"),
    KEY("validate", CLI_BOOL, validate, 1, "0|1  1: end with the case's PASS/FAIL check"),
    KEY("output", CLI_STRING, output, LB_PATH_MAX, "PREFIX  prefix of the output files"),
    KEY("restart", CLI_STRING, restart, LB_PATH_MAX, "FILE  checkpoint file to continue from"),
    KEY("summary", CLI_STRING, summary, LB_PATH_MAX, "FILE  append a CSV row of the timings to this file"),
    KEY("inject_nan", CLI_LONG, inject_nan, 1, "N  test hook: put a NaN into the fields at this step (0: off)"),
};
#undef KEY
#define NKEYS ((int) (sizeof(keys) / sizeof(keys[0])))

const char *lbCaseName(int c) { return c >= 0 && c < 3 ? case_names[c] : "unknown"; }

static void defaults(lbParams *p) {
  memset(p, 0, sizeof(*p));
  p->size[0] = p->size[1] = p->size[2] = 32;
  p->tau = 1.0;
  p->rho = 1.0;
  p->amplitude = 1.0e-3;
  p->steps = 100;
  p->print_every = 10;
  p->validate = 1;
  p->overlap = -1; /* not given: by the device (main.c) */
  p->early_fill = 1;
  p->fill_pieces = 2;
  p->one_boundary = 1;
  p->interior_share = 1.0;
  snprintf(p->output, sizeof(p->output), "lb");
}

/* Everything that can be checked without MPI: wrong values never start a run. */
static int check(const lbParams *p, char *err, size_t len) {
  for (int d = 0; d < 3; d++) {
    if (p->size[d] < 1 || p->size[d] > 4096) {
      snprintf(err, len, "size along %c is %d: must be in [1, 4096]", "xyz"[d], p->size[d]);
      return -1;
    }
    if (p->decomposition[d] < 0) {
      snprintf(err, len, "decomposition along %c is %d: must be >= 0 (0 = choose)", "xyz"[d],
               p->decomposition[d]);
      return -1;
    }
  }
  const long long ext[3] = {p->size[0], p->size[1], p->size[2]};
  long long sites = 0;
  if (cliProduct(ext, 3, 2000000000LL, &sites)) {
    char n[64];
    snprintf(err, len, "size %d x %d x %d has over 2e9 sites (%s)", p->size[0], p->size[1],
             p->size[2], cliProductText(ext, 3, n, sizeof(n)));
    return -1;
  }
  if (!(p->tau > 0.5)) { /* also catches NaN */
    snprintf(err, len, "tau must be > 0.5 (viscosity (tau - 1/2)/3 must be positive), not %g",
             p->tau);
    return -1;
  }
  if (!(p->interior_share > 0.0 && p->interior_share <= 1.0)) {
    snprintf(err, len, "interior_share must be in (0, 1], not %g", p->interior_share);
    return -1;
  }
  if (!(p->rho > 0.0)) {
    snprintf(err, len, "rho must be positive, not %g", p->rho);
    return -1;
  }
  if (p->steps < 0 || p->print_every < 0 || p->vtk_every < 0 || p->checkpoint_every < 0 ||
      p->triad < 0 || p->inject_nan < 0) {
    snprintf(err, len, "steps, print_every, vtk_every, checkpoint_every, triad and inject_nan "
                       "must be >= 0");
    return -1;
  }
  /* The triad kernel counts its elements in an int (three arrays of
   * 2^31 - 1 doubles are 48 GiB, more than any one GPU's memory). */
  if (p->triad > INT_MAX) {
    snprintf(err, len, "triad is %ld doubles per array: must be in [0, %d]", p->triad, INT_MAX);
    return -1;
  }
  double umax = 0.0;
  for (int d = 0; d < 3; d++) umax += p->velocity[d] * p->velocity[d];
  if (umax > 0.1 * 0.1 || p->amplitude > 0.1 || p->amplitude < -0.1) {
    snprintf(err, len, "initial velocity above 0.1: the model needs low Mach number (|u| << 0.577)");
    return -1;
  }
  if (p->lbcase == LB_CASE_POISEUILLE) {
    int nw = p->walls[0] + p->walls[1] + p->walls[2];
    if (nw != 1) {
      snprintf(err, len, "case poiseuille needs walls on exactly one axis (walls = x or z), not %d",
               nw);
      return -1;
    }
    double fpar = 0.0;
    for (int d = 0; d < 3; d++) {
      if (p->walls[d] && p->force[d] != 0.0) {
        snprintf(err, len, "case poiseuille: the force must be parallel to the walls "
                           "(force along %c is %g)", "xyz"[d], p->force[d]);
        return -1;
      }
      fpar += p->force[d] * p->force[d];
    }
    if (fpar == 0.0) {
      snprintf(err, len, "case poiseuille needs a non-zero force parallel to the walls");
      return -1;
    }
  }
  if (p->lbcase == LB_CASE_SHEARWAVE && (p->walls[0] || p->size[0] < 4 || p->amplitude == 0.0)) {
    snprintf(err, len, "case shearwave needs x periodic (no x walls), size along x >= 4 and a "
                       "non-zero amplitude");
    return -1;
  }
  if (p->output[0] == '\0') {
    snprintf(err, len, "output prefix is empty");
    return -1;
  }
  /* Conflicts are errors: a value that would be ignored, or a test hook
   * that would never fire, is not run as if it were not there. */
  if (p->overlap == 1 && p->kernel == LB_KERNEL_SPLIT) {
    snprintf(err, len, "overlap 1 needs kernel fused (the split kernels have no interior and "
                       "boundary update to overlap with the halo)");
    return -1;
  }
  if (p->breakdown[0] && p->overlap == 0) {
    snprintf(err, len, "breakdown times the overlapped steps: it needs overlap 1 (or not given)");
    return -1;
  }
  if (p->fill_pieces < 1 || p->fill_pieces > 64) {
    snprintf(err, len, "fill_pieces %d: must be 1 to 64", p->fill_pieces);
    return -1;
  }
  if (p->inject_nan > p->steps) {
    snprintf(err, len, "inject_nan %ld is beyond steps = %ld: no NaN would be planted",
             p->inject_nan, p->steps);
    return -1;
  }
  return 0;
}

static void usage(const char *prog) {
  printf("usage: %s [--params FILE] [--KEY VALUE ...]\n"
         "  A D3Q19 lattice Boltzmann fluid (BGK, Guo forcing) on MPI + targetDP.\n"
         "  Keys (in FILE as 'key = value', on the command line as --key value;\n"
         "  the command line wins, and a repeated option its last value):\n", prog);
  cliUsage(stdout, keys, NKEYS);
}

int lbParamsLoad(int argc, char **argv, lbParams *p, char *err, size_t len) {
  defaults(p);
  const int rc = cliLoad(argc, argv, keys, NKEYS, "params", p, NULL, err, len);
  if (rc == 1) usage(argv[0]);
  if (rc) return rc;
  return check(p, err, len);
}

/* samename: 1 (and err says so) if the summary would be written into a
 * file this run also writes. */
static int samename(const lbParams *p, const char *other, const char *what, char *err,
                    size_t len) {
  const char *mine[2] = {p->summary, p->breakdown}, *name[2] = {"summary", "breakdown"};
  for (int k = 0; k < 2; k++) {
    if (!mine[k][0] || !other[0] || other == mine[k] || !fioSameFile(mine[k], other)) continue;
    snprintf(err, len, "%s and %s name the same file '%s' (choose another %s file)", name[k],
             what, other, name[k]);
    return 1;
  }
  return 0;
}

int lbParamsCheckFiles(const lbParams *p, char *err, size_t len) {
  char name[LB_PATH_MAX + 32];
  if (p->restart[0] && fioCheckRegular(p->restart, "restart checkpoint", err, len)) return -1;
  if (samename(p, p->restart, "the restart checkpoint", err, len)) return -1;
  snprintf(name, sizeof(name), "%s.csv", p->output);
  if (fioCheckOutput(name, "CSV time series", err, len) ||
      samename(p, name, "the CSV time series of output", err, len))
    return -1;
  if (p->checkpoint_every) {
    for (int tmp = 0; tmp < 2; tmp++) {
      snprintf(name, sizeof(name), "%s.chk%s", p->output, tmp ? ".tmp" : "");
      if (fioCheckOutput(name, "checkpoint", err, len) ||
          samename(p, name, "the checkpoint", err, len))
        return -1;
    }
  }
  /* The snapshots this run may write (from step 0: a superset after a
   * restart) and their temporary names: the first 1000 and the last (a
   * name beyond is still checked when it is written: pioOpenWrite). */
  for (long s = 0, n = 0; p->vtk_every; n++) {
    for (int tmp = 0; tmp < 2; tmp++) {
      snprintf(name, sizeof(name), "%s_%08ld.vtk%s", p->output, s, tmp ? ".tmp" : "");
      if (fioCheckOutput(name, "VTK snapshot", err, len) ||
          samename(p, name, "a VTK snapshot", err, len))
        return -1;
    }
    if (s == p->steps) break;
    s = n < 1000 && p->vtk_every < p->steps - s ? s + p->vtk_every : p->steps; /* no overflow */
  }
  if (p->summary[0] && fioCheckOutput(p->summary, "summary", err, len)) return -1;
  if (p->breakdown[0] && fioCheckOutput(p->breakdown, "breakdown", err, len)) return -1;
  if (samename(p, p->breakdown, "the breakdown", err, len)) return -1;
  return 0;
}

void lbParamsPrint(FILE *out, const lbParams *p) {
  fprintf(out, "# size %d %d %d  tau %.6g (viscosity %.6g)  rho %.6g  force %g %g %g\n",
          p->size[0], p->size[1], p->size[2], p->tau, (p->tau - 0.5) / 3.0, p->rho, p->force[0],
          p->force[1], p->force[2]);
  fprintf(out, "# case %s  walls %s%s%s%s  kernel %s  steps %ld  print_every %ld  vtk_every %ld  "
               "checkpoint_every %ld%s%s\n",
          lbCaseName(p->lbcase), p->walls[0] ? "x" : "", p->walls[1] ? "y" : "",
          p->walls[2] ? "z" : "", (p->walls[0] | p->walls[1] | p->walls[2]) ? "" : "none",
          p->kernel == LB_KERNEL_FUSED ? "fused" : "split", p->steps, p->print_every,
          p->vtk_every, p->checkpoint_every, p->restart[0] ? "  restart " : "", p->restart);
}
