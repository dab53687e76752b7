/*
 * A small D2Q9 lattice-Boltzmann step (BGK, pull streaming fused with the
 * collision), written twice: as a plain serial C code would write it, and
 * ported to targetDP by the README recipe (TDP_TLP / TDP_ILP, every field
 * access through TDP_INDEX(nsites, 9, base + v - offset, p)). It measures
 * what the recipe costs or gains in each layout and VVL against the serial
 * original (docs/performance.md, "the default CPU idiom").
 *
 * The lattice is nx x ny sites plus one halo row above and below (and one
 * spare site at each end), stored row by row (site s = 1 + y * nx + x). The update covers rows 1..ny and pulls
 * f_p from s - (c_px + c_py * nx): in x that wraps helically into the
 * neighbouring row, a periodic lattice with a shear of one row; the halo
 * rows stay at rest (a fixed boundary). Both versions do exactly this, and
 * the port's result is compared with the original's after every timed run
 * (relative 1e-12, float 1e-5) before any rate is printed. --float runs the
 * same code in single precision (d2q9_kernels.h, included once per type).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/cli.h"
#include "common/timer.h"

#define NQ 9
static const int cx[NQ] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int cy[NQ] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const double wq[NQ] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9,
                              1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
#define OMEGA 1.7

/* The initial state (computed in double, rounded to the precision run). */
static double f_init(long s, int p) {
  return wq[p] * (1.0 + 0.01 * (double) ((5 * s + 3 * p) % 17) / 17.0);
}

/* The pulls' site offsets c_px + c_py * nx (set by the run). */
TDP_CONST int t_off[NQ];

/* The step and the run in double and in float, from one implementation. */
#define REAL double
#define R(name) name##_d
#include "d2q9_kernels.h"
#undef REAL
#undef R
#define REAL float
#define R(name) name##_f
#include "d2q9_kernels.h"
#undef REAL
#undef R

static const char *const usage =
    "usage: bench_d2q9 [--size NX] [--reps R] [--float] [--csv FILE]\n"
    "  D2Q9 BGK step: the serial original against its targetDP port (this build's\n"
    "  layout and VVL), interleaved, validated. --size: NX = NY (default 2048).\n"
    "  --float: single precision (default double; validated to 1e-5, not 1e-12).\n";

int main(int argc, char **argv) {
  static const char *const known[] = {"--float", NULL};
  benchOptions o = benchParse(argc, argv, "d2q9", known, 2048, usage);
  targetInit();
  int wrong = o.is_float ? d2q9_run_f(&o, "float", 1e-5) : d2q9_run_d(&o, "double", 1e-12);
  targetFinalize();
  return wrong;
}
