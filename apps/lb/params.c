#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "params.h"

/* One table drives the file parser, the command line and the usage text,
 * so the three can never disagree about which keys exist. */
enum { K_INT3, K_DBL, K_DBL3, K_LONG, K_STR, K_CASE, K_WALLS, K_KERNEL, K_BOOL };

typedef struct {
  const char *name;
  int type;
  size_t offset;
  const char *help;
} keyInfo;

static const keyInfo keys[] = {
    {"size", K_INT3, offsetof(lbParams, size), "global grid NX NY NZ (or NXxNYxNZ)"},
    {"tau", K_DBL, offsetof(lbParams, tau), "BGK relaxation time (> 0.5); viscosity (tau-1/2)/3"},
    {"rho", K_DBL, offsetof(lbParams, rho), "initial density"},
    {"force", K_DBL3, offsetof(lbParams, force), "uniform body force density FX FY FZ"},
    {"velocity", K_DBL3, offsetof(lbParams, velocity), "initial velocity (case uniform)"},
    {"amplitude", K_DBL, offsetof(lbParams, amplitude), "initial u_y amplitude (case shearwave)"},
    {"case", K_CASE, offsetof(lbParams, lbcase), "uniform | shearwave | poiseuille"},
    {"walls", K_WALLS, offsetof(lbParams, walls), "none, or the axes with bounce-back walls: x, y, z, xz..."},
    {"steps", K_LONG, offsetof(lbParams, steps), "run until this step"},
    {"print_every", K_LONG, offsetof(lbParams, print_every), "progress line + CSV row interval (0: start and end)"},
    {"vtk_every", K_LONG, offsetof(lbParams, vtk_every), "VTK snapshot interval (0: none)"},
    {"checkpoint_every", K_LONG, offsetof(lbParams, checkpoint_every), "checkpoint interval (0: none); also written at the end"},
    {"decomposition", K_INT3, offsetof(lbParams, decomposition), "MPI ranks per axis PX PY PZ (0: choose)"},
    {"kernel", K_KERNEL, offsetof(lbParams, kernel), "fused (collide+stream in one pass) | split (two kernels)"},
    {"overlap", K_BOOL, offsetof(lbParams, overlap), "1: update the interior while the halo travels (fused kernel; every 10th step without, to measure what was hidden); 0: halo, then update; default: on a GPU with a neighbour on another rank, tried for 30 steps and kept only if faster; 0 on the host (whose streams run in order)"},
    {"triad", K_LONG, offsetof(lbParams, triad), "doubles per array of an in-run STREAM triad (0: off)"},
    {"validate", K_BOOL, offsetof(lbParams, validate), "1: end with the case's PASS/FAIL check"},
    {"output", K_STR, offsetof(lbParams, output), "prefix of the output files"},
    {"restart", K_STR, offsetof(lbParams, restart), "checkpoint file to continue from"},
    {"summary", K_STR, offsetof(lbParams, summary), "append a CSV row of the timings to this file"},
    {"inject_nan", K_LONG, offsetof(lbParams, inject_nan), "test hook: put a NaN into the fields at this step (0: off)"},
};
#define NKEYS ((int) (sizeof(keys) / sizeof(keys[0])))

static const char *case_names[] = {"uniform", "shearwave", "poiseuille"};
const char *lbCaseName(int c) { return case_names[c]; }

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
  snprintf(p->output, sizeof(p->output), "lb");
}

/* Split a value into up to max numbers separated by blanks or commas (and
 * 'x' for integer triples: 64x64x64). Returns the count, -1 if malformed,
 * -2 if a number is out of range: integers beyond +-2^53 (they would not
 * survive the trip through a double), numbers that are not finite (NaN
 * or infinity would only come back as NaN in the fields). */
static int parse_numbers(const char *s, double *out, int max, int integers) {
  int n = 0;
  const char *c = s;
  for (;;) {
    while (*c == ' ' || *c == '\t' || *c == ',' || (integers && n > 0 && *c == 'x')) c++;
    if (*c == '\0') return n;
    if (n == max) return -1;
    char *end = NULL;
    errno = 0;
    double v = integers ? (double) strtol(c, &end, 10) : strtod(c, &end);
    if (errno || end == c) return -1;
    if (*end && *end != ' ' && *end != '\t' && *end != ',' && !(integers && *end == 'x'))
      return -1;
    if (!isfinite(v) || (integers && fabs(v) > 9007199254740992.0)) return -2;
    out[n++] = v;
    c = end;
  }
}

static int set_key(lbParams *p, const keyInfo *k, const char *value, char *err, size_t len) {
  char *base = (char *) p + k->offset;
  double v[3];
  int n;
  switch (k->type) {
  case K_INT3:
    n = parse_numbers(value, v, 3, 1);
    for (int d = 0; n == 3 && d < 3; d++) {
      if (v[d] < INT_MIN || v[d] > INT_MAX) n = -2; /* the cast below would be undefined */
    }
    if (n == -2) {
      snprintf(err, len, "%s: a value of '%s' is out of range", k->name, value);
      return -1;
    }
    if (n != 3) {
      snprintf(err, len, "%s needs three integers (e.g. 64 64 64), not '%s'", k->name, value);
      return -1;
    }
    for (int d = 0; d < 3; d++) ((int *) base)[d] = (int) v[d];
    return 0;
  case K_DBL3:
    n = parse_numbers(value, v, 3, 0);
    if (n == -2) {
      snprintf(err, len, "%s needs finite numbers, not '%s'", k->name, value);
      return -1;
    }
    if (n != 3) {
      snprintf(err, len, "%s needs three numbers (e.g. 0 0 1e-6), not '%s'", k->name, value);
      return -1;
    }
    for (int d = 0; d < 3; d++) ((double *) base)[d] = v[d];
    return 0;
  case K_DBL:
  case K_LONG:
  case K_BOOL:
    n = parse_numbers(value, v, 1, k->type != K_DBL);
    if (n == -2) {
      snprintf(err, len, "%s: '%s' is out of range%s", k->name, value,
               k->type == K_DBL ? " (a finite number is needed)" : "");
      return -1;
    }
    if (n != 1) {
      snprintf(err, len, "%s needs %s, not '%s'", k->name,
               k->type == K_DBL ? "a number" : "an integer", value);
      return -1;
    }
    if (k->type == K_DBL) *(double *) base = v[0];
    else if (k->type == K_LONG) *(long *) base = (long) v[0];
    else if (v[0] == 0.0 || v[0] == 1.0) *(int *) base = (int) v[0];
    else {
      snprintf(err, len, "%s must be 0 or 1, not '%s'", k->name, value);
      return -1;
    }
    return 0;
  case K_STR:
    if (strlen(value) >= LB_PATH_MAX) {
      snprintf(err, len, "%s is longer than %d characters", k->name, LB_PATH_MAX - 1);
      return -1;
    }
    strcpy(base, value);
    return 0;
  case K_CASE:
    for (int c = 0; c < 3; c++) {
      if (strcmp(value, case_names[c]) == 0) {
        *(int *) base = c;
        return 0;
      }
    }
    snprintf(err, len, "case must be uniform, shearwave or poiseuille, not '%s'", value);
    return -1;
  case K_KERNEL:
    if (strcmp(value, "fused") == 0) *(int *) base = LB_KERNEL_FUSED;
    else if (strcmp(value, "split") == 0) *(int *) base = LB_KERNEL_SPLIT;
    else {
      snprintf(err, len, "kernel must be fused or split, not '%s'", value);
      return -1;
    }
    return 0;
  case K_WALLS: {
    int *w = (int *) base;
    w[0] = w[1] = w[2] = 0;
    if (strcmp(value, "none") == 0) return 0;
    for (const char *c = value; *c; c++) {
      if (*c >= 'x' && *c <= 'z') w[*c - 'x'] = 1;
      else if (*c != ' ' && *c != ',') {
        snprintf(err, len, "walls must be none or axes among x, y, z (e.g. x), not '%s'", value);
        return -1;
      }
    }
    return 0;
  }
  }
  return -1;
}

static const keyInfo *find_key(const char *name) {
  for (int k = 0; k < NKEYS; k++) {
    if (strcmp(keys[k].name, name) == 0) return &keys[k];
  }
  return NULL;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

static int read_file(const char *path, lbParams *p, char *err, size_t len) {
  FILE *fp = fopen(path, "r");
  if (!fp) {
    snprintf(err, len, "cannot read parameter file '%s': %s", path, strerror(errno));
    return -1;
  }
  char line[1024], msg[600];
  int lineno = 0, seen[NKEYS] = {0}, rc = 0;
  while (rc == 0 && fgets(line, sizeof(line), fp)) {
    lineno++;
    /* A line that does not fit must not be split, its tail read as a
     * line of its own. */
    const size_t n = strlen(line);
    if (n == sizeof(line) - 1 && line[n - 1] != '\n' && !feof(fp)) {
      snprintf(err, len, "%s:%d: line longer than %d bytes", path, lineno,
               (int) sizeof(line) - 1);
      rc = -1;
      break;
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *s = trim(line);
    if (*s == '\0') continue;
    char *eq = strchr(s, '=');
    if (!eq) {
      snprintf(err, len, "%s:%d: expected 'key = value', got '%s'", path, lineno, s);
      rc = -1;
      break;
    }
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    const keyInfo *k = find_key(key);
    if (!k) {
      snprintf(err, len, "%s:%d: unknown key '%s' (see docs/lb.md or --help)", path, lineno, key);
      rc = -1;
    } else if (seen[k - keys]) {
      snprintf(err, len, "%s:%d: key '%s' given twice (first on line %d)", path, lineno, key,
               seen[k - keys]);
      rc = -1;
    } else if (*value == '\0') {
      snprintf(err, len, "%s:%d: key '%s' has no value", path, lineno, key);
      rc = -1;
    } else if (set_key(p, k, value, msg, sizeof(msg))) {
      snprintf(err, len, "%s:%d: %s", path, lineno, msg);
      rc = -1;
    } else {
      seen[k - keys] = lineno;
    }
  }
  if (rc == 0 && ferror(fp)) {
    snprintf(err, len, "error reading parameter file '%s'", path);
    rc = -1;
  }
  fclose(fp);
  return rc;
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
  if ((double) p->size[0] * p->size[1] * p->size[2] > 2.0e9) {
    snprintf(err, len, "size %d x %d x %d has over 2e9 sites", p->size[0], p->size[1], p->size[2]);
    return -1;
  }
  if (!(p->tau > 0.5)) { /* also catches NaN */
    snprintf(err, len, "tau must be > 0.5 (viscosity (tau - 1/2)/3 must be positive), not %g",
             p->tau);
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
  return 0;
}

static void usage(const char *prog) {
  printf("usage: %s [--params FILE] [--KEY VALUE ...]\n"
         "  A D3Q19 lattice Boltzmann fluid (BGK, Guo forcing) on MPI + targetDP.\n"
         "  Keys (in FILE as 'key = value', on the command line as --key value;\n"
         "  the command line wins):\n", prog);
  for (int k = 0; k < NKEYS; k++) printf("    %-17s %s\n", keys[k].name, keys[k].help);
}

int lbParamsLoad(int argc, char **argv, lbParams *p, char *err, size_t len) {
  defaults(p);
  /* cli.h wants the known options as "--name=" (takes a value). */
  static char names[NKEYS + 1][32];
  const char *known[NKEYS + 3];
  for (int k = 0; k < NKEYS; k++) {
    snprintf(names[k], sizeof(names[k]), "--%s=", keys[k].name);
    known[k] = names[k];
  }
  known[NKEYS] = "--params=";
  known[NKEYS + 1] = "--help";
  known[NKEYS + 2] = NULL;
  if (cliFlag(argc, argv, "--help")) {
    usage(argv[0]);
    return 1;
  }
  if (cliCheck(argc, argv, known)) {
    snprintf(err, len, "bad command line (options are --params FILE, --help and --KEY VALUE)");
    return -1;
  }
  /* Options are applied in order, so a repeated option's last value wins
   * (scripts append overrides); cliCheck has vetted every name and value. */
  const char *file = NULL;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--params") == 0) file = argv[++i];
  }
  if (file && read_file(file, p, err, len)) return -1;
  char msg[600];
  for (int i = 1; i + 1 < argc; i++) {
    const keyInfo *k = strncmp(argv[i], "--", 2) == 0 ? find_key(argv[i] + 2) : NULL;
    if (!k) continue;
    if (set_key(p, k, argv[++i], msg, sizeof(msg))) {
      snprintf(err, len, "command line: %s", msg);
      return -1;
    }
  }
  return check(p, err, len);
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
