/* The D3Q19 lattice Boltzmann model and the local lattice geometry.
 *
 * Velocity set in Ludwig's order: the opposite of velocity p > 0 is
 * NVEL - p, which makes bounce-back a mirror of the index. Host code
 * uses these tables directly; target code reads the copies kept in
 * target constant memory by kernels.c (a GPU cannot read host arrays). */
#ifndef LB_MODEL_H
#define LB_MODEL_H

#define NVEL 19
#define LB_OPP(p) ((p) ? NVEL - (p) : 0)
#define LB_PI 3.14159265358979323846
#define LB_NCROSS 5 /* velocities crossing each face of the cube: 5 of 19 */

static const int lbCv[NVEL][3] = {
    {0, 0, 0},  {1, 1, 0},  {1, 0, 1},   {1, 0, 0},   {1, 0, -1},  {1, -1, 0}, {0, 1, 1},
    {0, 1, 0},  {0, 1, -1}, {0, 0, 1},   {0, 0, -1},  {0, -1, 1},  {0, -1, 0}, {0, -1, -1},
    {-1, 1, 0}, {-1, 0, 1}, {-1, 0, 0},  {-1, 0, -1}, {-1, -1, 0}};

/* Weights 1/3, 1/18, 1/36, rounded so that their sum is exactly 1 in
 * binary: with the plain roundings it is 1 + 2^-54, and BGK relaxes every
 * site towards sum(feq) = rho (1 + 2^-54), a systematic mass gain of about
 * 6e-17 per step (4e-13 over 8000 steps). W1 = 2 W2 is exact, and so is
 * W0 + 6 W1 + 12 W2 = 1 with W0 = 1 - 24 W2. */
#define LB_W2 (1.0 / 36.0)
#define LB_W1 (2.0 * LB_W2)
#define LB_W0 (1.0 - 24.0 * LB_W2)
static const double lbWv[NVEL] = {LB_W0, LB_W2, LB_W2, LB_W1, LB_W2, LB_W2, LB_W2,
                                  LB_W1, LB_W2, LB_W1, LB_W1, LB_W2, LB_W1, LB_W2,
                                  LB_W2, LB_W2, LB_W1, LB_W2, LB_W2};

/* Bytes a lattice update must move at least: read and write the 19
 * distributions of every site once (the fused kernel does exactly this). */
#define LB_BYTES_PER_SITE (2.0 * NVEL * sizeof(double))

/* Local lattice: this rank's block of n[0] x n[1] x n[2] sites plus one
 * halo layer on every side. Site (x, y, z), each from 0 to n+1 with the
 * interior at 1..n, is stored at index base + x*str[0] + y*str[1] + z
 * (z fastest). (The layer's 3-D halo helpers assume base 0; the app has
 * its own halo kernels and does not use them.)
 *
 * The padding (base sites in front, a few after the last halo site) changes
 * no result: it puts the first interior site on a multiple of LB_ALIGN
 * sites (256 bytes) and every SoA component on a 64-byte line, so that a
 * stride of VVL sites (CPU) or a warp (GPU) writes whole cache lines or
 * sectors (what non-temporal stores need), and it lets the sweep be a
 * whole number of strides. Pad sites hold a rest state, never results. */
#define LB_ALIGN 32
typedef struct {
  int n[3];      /* interior extents */
  int nh[3];     /* extents with halo: n + 2 */
  int str[3];    /* index strides: nh[1]*nh[2], nh[2], 1 */
  int base;      /* index of site (0,0,0): the front padding */
  int nall;      /* sites allocated: halo, interior and padding */
  int s0;        /* first interior site, (1,1,1); a multiple of LB_ALIGN */
  int nrange;    /* sites from (1,1,1) to (n0,n1,n2) inclusive, rounded up
                    to whole strides of VVL: what the update kernels sweep
                    (interior plus the y/z halo columns in between and a
                    few halo sites after, whose results are never read) */
  int offset[3]; /* global coordinate of interior site (1,1,1) */
  int global[3]; /* global grid */
} lbGeom;

static inline int lbSite(const lbGeom *g, int x, int y, int z) {
  return g->base + x * g->str[0] + y * g->str[1] + z;
}

/* Equilibrium distribution (host; kernels.c has the target version). */
static inline double lbFeq(int p, double rho, const double u[3]) {
  double cu = lbCv[p][0] * u[0] + lbCv[p][1] * u[1] + lbCv[p][2] * u[2];
  double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  return lbWv[p] * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq);
}

#endif
