/* The LB kernels, written once for both backends. Compiled as C (OpenMP)
 * or as CUDA (nvcc -x cu); the constants below must live in this file,
 * next to the kernels that read them (CUDA __constant__ symbols are per
 * translation unit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "kernels.h"
#include "targetDP.h"

/* Fully unroll the loops over the 19 velocities: the per-site arrays then
 * live in registers (GPU) or vector registers (CPU). */
#define LB_UNROLL TDP_UNROLL(NVEL)

typedef struct {
  double c[NVEL][3]; /* velocities as doubles, for the moment sums */
  double w[NVEL];    /* weights */
  double fa[NVEL];   /* Guo source per velocity, the force being uniform: */
  double fb[NVEL];   /*   S_p = fc_p - fa_p (u.F) + fb_p (c_p.u), with */
  double fc[NVEL];   /*   fa = 3 w (1 - omega/2), fb = 9 w (1 - omega/2) c.F, fc = fa c.F */
  int ci[NVEL][3];   /* velocities as integers, for boundary geometry */
  int off[NVEL];     /* index offset of site x + c_p: c_p . str */
  int cross[3][2][LB_NCROSS]; /* along d: velocities with c_d = -1 [0], +1 [1] */
  double omega;      /* 1 / tau */
  double force[3];
} lbConst;

TDP_CONST lbConst t_k;

void lbKernelsSetup(const lbGeom *g, double tau, const double force[3]) {
  lbConst k;
  for (int p = 0; p < NVEL; p++) {
    k.w[p] = lbWv[p];
    k.off[p] = 0;
    double cf = 0.0;
    for (int d = 0; d < 3; d++) {
      k.c[p][d] = lbCv[p][d];
      k.ci[p][d] = lbCv[p][d];
      k.off[p] += lbCv[p][d] * g->str[d];
      cf += lbCv[p][d] * force[d];
    }
    const double pre = lbWv[p] * (1.0 - 0.5 / tau);
    k.fa[p] = 3.0 * pre;
    k.fb[p] = 9.0 * pre * cf;
    k.fc[p] = 3.0 * pre * cf;
  }
  for (int d = 0; d < 3; d++) {
    int n[2] = {0, 0};
    for (int p = 0; p < NVEL; p++) {
      if (lbCv[p][d] == -1) k.cross[d][0][n[0]++] = p;
      if (lbCv[p][d] == +1) k.cross[d][1][n[1]++] = p;
    }
  }
  k.omega = 1.0 / tau;
  for (int d = 0; d < 3; d++) k.force[d] = force[d];
  copyConstToTarget(&t_k, &k, sizeof(k));
}

/* The velocity set and weights as the arithmetic sees them. On a GPU they
 * come from constant memory (t_k). On a CPU, TDP_CONST is a plain
 * global the compiler cannot fold, so there it reads the literal tables of
 * model.h instead: with the loops over p unrolled, products with the
 * components 0 and +-1 disappear, which halves the floating-point work of
 * the collision, the part of the step that is compute-bound on a CPU. */
#define LB_C(p, d) TDP_CONST_VALUE(t_k.c[p][d], (double) lbCv[p][d])
#define LB_W(p) TDP_CONST_VALUE(t_k.w[p], lbWv[p])

/* BGK collision with Guo's forcing (Guo, Zheng & Shi 2002), lane by lane
 * (lane v of a stride of VVL sites; the lanes are the SIMD lanes of a CPU):
 * velocity u = (sum_p f_p c_p + F/2) / rho, relaxation towards the
 * second-order equilibrium, and the source
 *   S_p = (1 - omega/2) w_p [3 (c_p - u).F + 9 (c_p.u)(c_p.F)].
 * Site-local and free of reductions or atomics, so every site's result is
 * the same whatever the decomposition, layout or VVL. It is split in three
 * so that the kernels can fuse it with their loads and stores: moments are
 * summed as the distributions arrive, each relaxed value goes straight to
 * memory (and no ILP loop is a bare copy, which gcc would turn into a
 * memcpy call per velocity). */
enum { M_RHO, M_UX, M_UY, M_UZ, M_USQ, M_UF, LB_NMOM };

static TDP_DEVICE inline void moments_add(double m[LB_NMOM][VVL], int v, int p, double fp) {
  if (p == 0) {
    m[M_RHO][v] = fp;
    m[M_UX][v] = m[M_UY][v] = m[M_UZ][v] = 0.0;
  } else {
    m[M_RHO][v] += fp;
  }
  m[M_UX][v] += fp * LB_C(p, 0);
  m[M_UY][v] += fp * LB_C(p, 1);
  m[M_UZ][v] += fp * LB_C(p, 2);
}

static TDP_DEVICE inline void moments_velocity(double m[LB_NMOM][VVL], int v) {
  const double rinv = 1.0 / m[M_RHO][v];
  const double ux = (m[M_UX][v] + 0.5 * t_k.force[0]) * rinv;
  const double uy = (m[M_UY][v] + 0.5 * t_k.force[1]) * rinv;
  const double uz = (m[M_UZ][v] + 0.5 * t_k.force[2]) * rinv;
  m[M_UX][v] = ux;
  m[M_UY][v] = uy;
  m[M_UZ][v] = uz;
  m[M_USQ][v] = 1.0 - 1.5 * (ux * ux + uy * uy + uz * uz);
  m[M_UF][v] = ux * t_k.force[0] + uy * t_k.force[1] + uz * t_k.force[2];
}

/* Relax velocity p and its opposite o = NVEL - p together: c_o = -c_p, so
 * c.u and c.F change sign and each of feq and the source splits into a
 * part both share and a part they take with opposite signs. That halves
 * the arithmetic of the collision. Writes the two results to *rp, *ro. */
static TDP_DEVICE inline void relax_pair(const double m[LB_NMOM][VVL], int v, int p,
                                         double fp, double fo, double *rp, double *ro) {
  const double cu = LB_C(p, 0) * m[M_UX][v] + LB_C(p, 1) * m[M_UY][v] + LB_C(p, 2) * m[M_UZ][v];
  const double wr = LB_W(p) * m[M_RHO][v];
  const double sym = wr * (m[M_USQ][v] + 4.5 * cu * cu); /* feq = sym +- asym */
  const double asym = 3.0 * wr * cu;
  const double ssym = t_k.fb[p] * cu - t_k.fa[p] * m[M_UF][v]; /* source = ssym +- fc */
  *rp = fp + t_k.omega * (sym + asym - fp) + (ssym + t_k.fc[p]);
  *ro = fo + t_k.omega * (sym - asym - fo) + (ssym - t_k.fc[p]);
}

/* The rest velocity: c = 0, so feq = w rho (1 - 3/2 u^2), source -fa (u.F). */
static TDP_DEVICE inline double relax_rest(const double m[LB_NMOM][VVL], int v, double f0) {
  const double feq = LB_W(0) * m[M_RHO][v] * m[M_USQ][v];
  return f0 + t_k.omega * (feq - f0) - t_k.fa[0] * m[M_UF][v];
}

/* The sweep covers sites s0 .. s0 + nrange - 1: all interior sites, plus
 * the halo sites lying between them in memory (the z halo at both ends of
 * every row, the y halo rows between planes, and up to VVL - 1 sites after
 * the last one, to make whole strides). Computing those halo sites too
 * keeps the loop a plain contiguous range, which vectorises with unit
 * stride on a CPU; their results are garbage that no interior site reads
 * (the halo exchange overwrites what is read), finite because every site
 * they read holds a plausible state.
 *
 * A GPU thread could skip every halo site, but skipping costs more than
 * it saves (H100, 256^3, docs/lb.md): a skipped site leaves the 32-byte
 * sectors around it partly written, and partial sectors cost the memory
 * system a read. LB_SKIP_HALO picks what a GPU skips: 0 nothing, 1 every
 * halo site, 2 (default) whole y halo rows only, where a run of nh[2]
 * sites is skipped for two partial sectors. */
#ifndef LB_SKIP_HALO
#define LB_SKIP_HALO 2
#endif
#if TDP_GPU && LB_SKIP_HALO == 1
#define LB_SKIP(g, s)                                                               \
  (((s) - (g).base) % (g).nh[2] == 0 || ((s) - (g).base) % (g).nh[2] == (g).nh[2] - 1 || \
   (((s) - (g).base) / (g).str[1]) % (g).nh[1] == 0 ||                               \
   (((s) - (g).base) / (g).str[1]) % (g).nh[1] == (g).nh[1] - 1)
#elif TDP_GPU && LB_SKIP_HALO == 2
#define LB_SKIP(g, s)                                  \
  ((((s) - (g).base) / (g).str[1]) % (g).nh[1] == 0 || \
   (((s) - (g).base) / (g).str[1]) % (g).nh[1] == (g).nh[1] - 1)
#else
#define LB_SKIP(g, s) 0
#endif

/* Non-temporal stores on a CPU. The update writes 19 values per site that
 * nothing reads before the next step; plain stores first read each line
 * (write-allocate: a third more traffic) and add 19 write streams per
 * thread to the 19 read streams, more than a core's prefetchers track.
 * Streaming stores write whole lines straight to memory. They need every
 * VVL-stride of a velocity to be whole, aligned 64-byte lines: SoA or
 * AoSoA with SAL a multiple of 8, VVL a multiple of 8, and strides that
 * start on a multiple of 8 sites (lbGeom's padding does that). gcc
 * ignores "omp simd nontemporal", hence the layer's tdpStreamStore8
 * (TDP_HAVE_STREAM_STORE, docs/api.md); -DLB_NT=0 (make LB_FLAGS=...)
 * turns them off for comparison. Results are bitwise the same. */
#ifndef LB_NT
#define LB_NT 1
#endif
#if LB_NT && TDP_HAVE_STREAM_STORE && \
    VVL % 8 == 0 && (defined(TARGETDP_SOA) || (defined(TARGETDP_AOSOA) && SAL % 8 == 0))
#define LB_STREAM 1
#define lb_stream8 tdpStreamStore8
/* Results r[p][lane] of the stride at site s (a multiple of 8) -> fn. */
static inline void lb_stream_out(double *__restrict__ fn, int nall, int s,
                                 const double r[NVEL][VVL]) {
  (void) nall; /* not needed by every layout's TDP_INDEX */
  for (int p = 0; p < NVEL; p++) {
    for (int c = 0; c < VVL; c += 8) lb_stream8(&fn[TDP_INDEX(nall, NVEL, s + c, p)], &r[p][c]);
  }
}
#define lb_stream_fence tdpStreamFence
/* Where the update puts result (p, lane v): a local array first. */
#define LB_OUT(p, v) r[p][v]
#else
#define LB_STREAM 0
#define LB_OUT(p, v) fn[TDP_INDEX(g.nall, NVEL, s + (v), p)]
#endif

/* Kernels follow the targetDP pattern: per stride of VVL sites, ILP loops
 * over the lanes, one per velocity, between memory and the lane arrays. */
TDP_KERNEL void lb_fused(const double *__restrict__ f, double *__restrict__ fn, lbGeom g,
                         int first, int n) {
  TDP_TLP(base, n) {
    const int s = first + (int) base;
    if (VVL == 1 && LB_SKIP(g, s)) continue;
    double q[NVEL][VVL], m[LB_NMOM][VVL];
#if LB_STREAM
    double r[NVEL][VVL];
#endif
    LB_UNROLL
    for (int p = 0; p < NVEL; p++) {
      TDP_ILP(v) {
        q[p][TDP_LANE(v)] = f[TDP_INDEX(g.nall, NVEL, s + v - t_k.off[p], p)]; /* pull: streaming */
        moments_add(m, TDP_LANE(v), p, q[p][TDP_LANE(v)]);
      }
    }
    TDP_ILP(v) {
      moments_velocity(m, TDP_LANE(v));
      LB_OUT(0, v) = relax_rest(m, TDP_LANE(v), q[0][TDP_LANE(v)]);
    }
    LB_UNROLL
    for (int p = 1; p <= NVEL / 2; p++) {
      TDP_ILP(v) relax_pair(m, TDP_LANE(v), p, q[p][TDP_LANE(v)], q[NVEL - p][TDP_LANE(v)],
                            &LB_OUT(p, v), &LB_OUT(NVEL - p, v));
    }
#if LB_STREAM
    lb_stream_out(fn, g.nall, s, r);
#endif
  }
}

TDP_KERNEL void lb_propagate(const double *__restrict__ f, double *__restrict__ fn,
                                  lbGeom g) {
  TDP_TLP(base, g.nrange) {
    const int s = g.s0 + base;
    if (VVL == 1 && LB_SKIP(g, s)) continue;
#if LB_STREAM && defined(TARGETDP_SOA)
    /* SoA: the VVL lanes of a shifted stride are contiguous in f too, so
     * lane c of every 8 streams lanes c .. c+7 (a lane loop that only
     * copies would become a rep movsq per velocity). */
    for (int p = 0; p < NVEL; p++) {
      const double *src = &f[TDP_INDEX(g.nall, NVEL, s - t_k.off[p], p)];
      double *dst = &fn[TDP_INDEX(g.nall, NVEL, s, p)];
      TDP_ILP(c) if (c % 8 == 0) lb_stream8(dst + c, src + c);
    }
#else
#if LB_STREAM
    double r[NVEL][VVL];
#endif
    LB_UNROLL
    for (int p = 0; p < NVEL; p++) {
      TDP_ILP(v) LB_OUT(p, v) = f[TDP_INDEX(g.nall, NVEL, s + v - t_k.off[p], p)];
    }
#if LB_STREAM
    lb_stream_out(fn, g.nall, s, r);
#endif
#endif
  }
}

TDP_KERNEL void lb_collide(double *__restrict__ f, lbGeom g) {
  TDP_TLP(base, g.nrange) {
    const int s = g.s0 + base;
    if (VVL == 1 && LB_SKIP(g, s)) continue;
    double q[NVEL][VVL], m[LB_NMOM][VVL];
    LB_UNROLL
    for (int p = 0; p < NVEL; p++) {
      TDP_ILP(v) {
        q[p][TDP_LANE(v)] = f[TDP_INDEX(g.nall, NVEL, s + v, p)];
        moments_add(m, TDP_LANE(v), p, q[p][TDP_LANE(v)]);
      }
    }
    TDP_ILP(v) {
      moments_velocity(m, TDP_LANE(v));
      f[TDP_INDEX(g.nall, NVEL, s + v, 0)] = relax_rest(m, TDP_LANE(v), q[0][TDP_LANE(v)]);
    }
    LB_UNROLL
    for (int p = 1; p <= NVEL / 2; p++) {
      TDP_ILP(v) relax_pair(m, TDP_LANE(v), p, q[p][TDP_LANE(v)], q[NVEL - p][TDP_LANE(v)],
                                  &f[TDP_INDEX(g.nall, NVEL, s + v, p)],
                                  &f[TDP_INDEX(g.nall, NVEL, s + v, NVEL - p)]);
    }
  }
}

void lbUpdateFused(const lbGeom *g, const double *t_f, double *t_fn) {
  TDP_LAUNCH(lb_fused, g->nrange, t_f, t_fn, *g, g->s0, g->nrange);
#if LB_STREAM
  lb_stream_fence();
#endif
}

/* The sites whose stencil stays off the halo: x, y, z all in 2 .. n-1.
 * The interior sweep is the contiguous part of the full sweep over the
 * planes x = 2 .. n0-1, cut at whole strides of LB_ALIGN sites from s0
 * (so its strides start where the full sweep's do, aligned for the
 * streaming stores): it also computes sites of the boundary layer (y or z
 * at 1 or n), from a halo that may be in flight; lbUpdateBoundary computes
 * every one of those again afterwards, so their first values never count. */
static void interior_range(const lbGeom *g, int *first, int *n) {
  *first = g->s0;
  *n = 0;
  if (g->n[0] < 3 || g->n[1] < 3 || g->n[2] < 3) return; /* no interior */
  const int a = lbSite(g, 2, 1, 1) - g->s0, b = lbSite(g, g->n[0] - 1, g->n[1], g->n[2]) + 1 - g->s0;
  const int lo = a / LB_ALIGN * LB_ALIGN, hi = (b + VVL - 1) / VVL * VVL;
  *first = g->s0 + lo;
  *n = (hi < g->nrange ? hi : g->nrange) - lo;
}

void lbUpdateInteriorRange(const lbGeom *g, const double *t_f, double *t_fn, int first, int n,
                           targetStream_t stream) {
  if (n <= 0) return;
  TDP_LAUNCH_STREAM(lb_fused, n, stream, t_f, t_fn, *g, first, n);
#if LB_STREAM
  lb_stream_fence();
#endif
}

void lbUpdateInterior(const lbGeom *g, const double *t_f, double *t_fn, targetStream_t stream) {
  int first, n;
  interior_range(g, &first, &n);
  lbUpdateInteriorRange(g, t_f, t_fn, first, n, stream);
}

static int gcd_(int a, int b) { return b ? gcd_(b, a % b) : a; }

/* The first piece is an eighth of the planes and the others share the
 * rest: the step waits for the first piece of the fill only, and a fill
 * piece has to finish before the sweep's piece before it does, which it
 * does by far (on an H100 at 256^3 the whole fill took 0.09-0.11 ms, the
 * sweep 1.75 ms: an eighth of the sweep is twice the rest of the fill);
 * each piece more is a launch more and its tail. Cuts at whole multiples
 * of LB_ALIGN and VVL from the sweep's start, so that every piece's
 * strides are the whole sweep's (aligned for the streaming stores), near
 * the planes' starts. A piece's sites lie in planes xlo .. xhi and read
 * planes xlo - 1 .. xhi + 1: its fill piece ends at xhi + 1, the first
 * starts at 0 and the last ends at n0 + 1. */
int lbInteriorPieces(const lbGeom *g, int k, lbPiece pc[]) {
  int first, n;
  interior_range(g, &first, &n);
  const int n0 = g->n[0];
  if (k > n0 - 2) k = n0 - 2;
  if (k < 1 || n <= 0) k = 1;
  const int gr = LB_ALIGN / gcd_(LB_ALIGN, VVL) * VVL;
  int np = 0, at = first;
  for (int j = 1; j <= k; j++) {
    int cut = first + n;
    if (j < k) {
      const int p0 = (n0 - 2) / 8 > 1 ? (n0 - 2) / 8 : 1;
      const int xa = 2 + p0 + (int) ((long) (j - 1) * (n0 - 2 - p0) / (k - 1));
      cut = first + (lbSite(g, xa, 0, 0) - first) / gr * gr;
      if (cut <= at || cut >= first + n) continue; /* too small a piece: joined to the next */
    }
    pc[np].first = at;
    pc[np].n = cut - at;
    const int xhi = (cut - 1 - g->base) / g->str[0] + 1;
    pc[np].fx0 = np ? pc[np - 1].fx1 + 1 : 0;
    pc[np].fx1 = j == k || xhi > n0 + 1 ? n0 + 1 : xhi;
    np++;
    at = cut;
  }
  return np;
}

/* The fused update of the sites of up to LB_NBOX boxes lo .. lo + b - 1
 * (interior coordinates), one site per thread, in one launch: the same
 * arithmetic as lb_fused, site by site, so a site's result is bitwise the
 * one the full sweep gives. One launch for the whole boundary layer, not
 * one per box (issue 29): a box of the layer is one plane or face, 65 536
 * sites at 256^2, which alone fills about one wave of an H100, so each
 * launch ran latency-bound with its tail exposed; 1,2,1 (four boxes) spent
 * 0.072 ms a step there against 0.030 for 2,1,1 (two boxes). */
#define LB_NBOX 6
typedef struct {
  int lo[3], b[3];
} lbBox;
typedef struct {
  int nbox;
  lbBox bx[LB_NBOX];
  int end[LB_NBOX]; /* sites of boxes 0 .. j together */
} lbBoxes;

TDP_KERNEL void lb_fused_box(const double *__restrict__ f, double *__restrict__ fn, lbGeom g,
                             lbBoxes bs) {
  TDP_TLP_NOSTRIDE(k, (long) bs.end[bs.nbox - 1]) {
    /* 32-bit division (a box lies inside the int-indexed block): 64-bit
     * division is a long software sequence per site on a GPU */
    int j = 0, kk = (int) k;
    while (kk >= bs.end[j]) j++;
    if (j > 0) kk -= bs.end[j - 1];
    const int zb = bs.bx[j].b[2], yb = bs.bx[j].b[1];
    const int z = bs.bx[j].lo[2] + kk % zb, y = bs.bx[j].lo[1] + (kk / zb) % yb,
              x = bs.bx[j].lo[0] + kk / (zb * yb);
    const int s = g.base + x * g.str[0] + y * g.str[1] + z;
    double q[NVEL][VVL], m[LB_NMOM][VVL];
    const int v = 0;
    LB_UNROLL
    for (int p = 0; p < NVEL; p++) {
      q[p][v] = f[TDP_INDEX(g.nall, NVEL, s - t_k.off[p], p)];
      moments_add(m, v, p, q[p][v]);
    }
    moments_velocity(m, v);
    fn[TDP_INDEX(g.nall, NVEL, s, 0)] = relax_rest(m, v, q[0][v]);
    LB_UNROLL
    for (int p = 1; p <= NVEL / 2; p++)
      relax_pair(m, v, p, q[p][v], q[NVEL - p][v], &fn[TDP_INDEX(g.nall, NVEL, s, p)],
                 &fn[TDP_INDEX(g.nall, NVEL, s, NVEL - p)]);
  }
}

static void add_box(lbBoxes *bs, int x0, int x1, int y0, int y1, int z0, int z1) {
  lbBox bx = {{x0, y0, z0}, {x1 - x0 + 1, y1 - y0 + 1, z1 - z0 + 1}};
  if (bx.b[0] < 1 || bx.b[1] < 1 || bx.b[2] < 1) return;
  const int before = bs->nbox ? bs->end[bs->nbox - 1] : 0;
  bs->bx[bs->nbox] = bx;
  bs->end[bs->nbox++] = before + bx.b[0] * bx.b[1] * bx.b[2];
}

/* The boxes of bs in one launch (one), or one launch each (the way before
 * issue 29, kept for comparison: lb --one_boundary 0). */
static void fused_boxes(const lbGeom *g, const double *t_f, double *t_fn, const lbBoxes *bs,
                        int one, targetStream_t stream) {
  if (bs->nbox == 0) return;
  if (one) {
    TDP_LAUNCH_STREAM(lb_fused_box, (long) bs->end[bs->nbox - 1], stream, t_f, t_fn, *g, *bs);
    return;
  }
  for (int j = 0; j < bs->nbox; j++) {
    lbBoxes b1;
    memset(&b1, 0, sizeof(b1));
    b1.nbox = 1;
    b1.bx[0] = bs->bx[j];
    b1.end[0] = bs->end[j] - (j ? bs->end[j - 1] : 0);
    TDP_LAUNCH_STREAM(lb_fused_box, (long) b1.end[0], stream, t_f, t_fn, *g, b1);
  }
}

/* The sites the interior sweep may have computed from a halo in flight,
 * again (at most six boxes of the boundary layer, no site twice): the
 * planes x = 1 and n, which the sweep leaves out, and the faces along y
 * (z) where redo[1] (redo[2]): the faces of an axis whose halo was filled
 * before the sweep (a periodic axis held alone, lbHaloSelfFill) were
 * computed right the first time. With no interior at all (an extent
 * below 3), the whole block. */
void lbUpdateBoundaryFaces(const lbGeom *g, const double *t_f, double *t_fn, const int redo[3],
                           int one, targetStream_t stream) {
  const int *n = g->n;
  lbBoxes bs;
  memset(&bs, 0, sizeof(bs));
  if (n[0] < 3 || n[1] < 3 || n[2] < 3) {
    add_box(&bs, 1, n[0], 1, n[1], 1, n[2]);
  } else {
    add_box(&bs, 1, 1, 1, n[1], 1, n[2]);
    add_box(&bs, n[0], n[0], 1, n[1], 1, n[2]);
    if (redo[1]) {
      add_box(&bs, 2, n[0] - 1, 1, 1, 1, n[2]);
      add_box(&bs, 2, n[0] - 1, n[1], n[1], 1, n[2]);
    }
    const int y0 = redo[1] ? 2 : 1, y1 = redo[1] ? n[1] - 1 : n[1];
    if (redo[2]) {
      add_box(&bs, 2, n[0] - 1, y0, y1, 1, 1);
      add_box(&bs, 2, n[0] - 1, y0, y1, n[2], n[2]);
    }
  }
  fused_boxes(g, t_f, t_fn, &bs, one, stream);
}

void lbUpdateBoundary(const lbGeom *g, const double *t_f, double *t_fn, targetStream_t stream) {
  const int all[3] = {1, 1, 1};
  lbUpdateBoundaryFaces(g, t_f, t_fn, all, 1, stream);
}
void lbPropagate(const lbGeom *g, const double *t_f, double *t_fn) {
  TDP_LAUNCH(lb_propagate, g->nrange, t_f, t_fn, *g);
#if LB_STREAM
  lb_stream_fence();
#endif
}
void lbCollide(const lbGeom *g, double *t_fn) {
  TDP_LAUNCH(lb_collide, g->nrange, t_fn, *g);
}

/* Zero n sites from s0, every velocity. */
TDP_KERNEL void lb_zero(double *__restrict__ f, int nall, int s0, int n) {
  (void) nall; /* not needed by every layout's TDP_INDEX */
  TDP_TLP(base, n) {
    for (int p = 0; p < NVEL; p++) {
      TDP_ILP(v) f[TDP_INDEX(nall, NVEL, s0 + base + v, p)] = 0.0;
    }
  }
}

void lbZero(const lbGeom *g, double *t_f) {
  const int end = g->s0 + g->nrange;
  TDP_LAUNCH(lb_zero, g->nrange, t_f, g->nall, g->s0, g->nrange); /* the update's */
  TDP_LAUNCH(lb_zero, g->s0, t_f, g->nall, 0, g->s0);
  TDP_LAUNCH(lb_zero, g->nall - end, t_f, g->nall, end, g->nall - end);
}

/* The stored state is post-collision, f* = f + omega (feq - f) + S, whose
 * first moment is rho u + F/2 (the source adds (1 - omega/2) F and the
 * relaxation omega F/2): u = (sum f* c - F/2) / rho is the velocity the
 * collision used, i.e. the physical velocity of that step. */
TDP_KERNEL void lb_moments(const double *__restrict__ f, double *__restrict__ rho,
                                double *__restrict__ u, double *__restrict__ umag, lbGeom g) {
  TDP_TLP(base, g.nall) {
    TDP_ILP(v) {
      const int s = base + v, i = s - g.base; /* i < 0: front padding */
      const int x = i / g.str[0], y = (i / g.str[1]) % g.nh[1], z = i % g.nh[2];
      const int inside =
          i >= 0 && x >= 1 && x <= g.n[0] && y >= 1 && y <= g.n[1] && z >= 1 && z <= g.n[2];
      double r = 0.0, jx = 0.0, jy = 0.0, jz = 0.0;
      for (int p = 0; p < NVEL; p++) {
        const double fp = f[TDP_INDEX(g.nall, NVEL, s, p)];
        r += fp;
        jx += fp * t_k.c[p][0];
        jy += fp * t_k.c[p][1];
        jz += fp * t_k.c[p][2];
      }
      const double rinv = inside ? 1.0 / r : 0.0;
      const double ux = (jx - 0.5 * t_k.force[0]) * rinv;
      const double uy = (jy - 0.5 * t_k.force[1]) * rinv;
      const double uz = (jz - 0.5 * t_k.force[2]) * rinv;
      rho[s] = inside ? r : 0.0;
      u[s] = ux;
      u[g.nall + s] = uy;
      u[2 * g.nall + s] = uz;
      umag[s] = sqrt(ux * ux + uy * uy + uz * uz);
    }
  }
}

void lbMoments(const lbGeom *g, const double *t_f, double *t_rho, double *t_u, double *t_umag) {
  TDP_LAUNCH(lb_moments, g->nall, t_f, t_rho, t_u, t_umag, *g);
}

/* ---------------------------------------------------------------------- */
/* Halo. A face plane along d spans the full extent (halo included) of the
 * two other axes, so that exchanging x, then y, then z also fills the
 * edge sites the diagonal velocities read. */

static TDP_HOST_DEVICE inline void plane_axes(int d, int *a, int *b) {
  *a = (d == 0) ? 1 : 0; /* the other two axes, b the faster one */
  *b = (d == 2) ? 1 : 2;
}

int lbPlaneSites(const lbGeom *g, int d) {
  int a, b;
  plane_axes(d, &a, &b);
  return g->nh[a] * g->nh[b];
}

/* Site of plane index i at coordinate c along d. */
#define PLANE_SITE(g, d, a, b, i, c)                                                  \
  ((g).base + (c) * (g).str[d] + ((i) / (g).nh[b]) * (g).str[a] + ((i) % (g).nh[b]) * (g).str[b])

/* One face of the exchange (targetHaloConfig.pack / .unpack): only the
 * LB_NCROSS velocities that cross it. Side 0 sends plane 1's down movers
 * and receives the up movers into plane 0; side 1 sends plane n's up
 * movers and receives the down movers into plane n+1. Buffer: velocity k
 * of plane site i at k * np + i. */
TDP_KERNEL void lb_face(double *__restrict__ f, double *__restrict__ buf, lbGeom g, int d,
                        int side, int unpack) {
  int a, b;
  plane_axes(d, &a, &b);
  const int np = g.nh[a] * g.nh[b];
  TDP_TLP_NOSTRIDE(i, np) {
    if (unpack) {
      const int s = PLANE_SITE(g, d, a, b, i, side ? g.n[d] + 1 : 0);
      for (int k = 0; k < LB_NCROSS; k++)
        f[TDP_INDEX(g.nall, NVEL, s, t_k.cross[d][!side][k])] = buf[k * np + i];
    } else {
      const int s = PLANE_SITE(g, d, a, b, i, side ? g.n[d] : 1);
      for (int k = 0; k < LB_NCROSS; k++)
        buf[k * np + i] = f[TDP_INDEX(g.nall, NVEL, s, t_k.cross[d][side][k])];
    }
  }
}

/* A periodic axis held by this rank alone (targetHaloConfig.self_copy):
 * the movers leaving through side go straight into the halo plane on the
 * other side, as lb_face's pack then unpack would put them. Plane site i
 * of axis d. */
static TDP_DEVICE inline void self_site(double *__restrict__ f, const lbGeom *g, int d, int a,
                                        int b, int side, int i) {
  const int src = PLANE_SITE(*g, d, a, b, i, side ? g->n[d] : 1);
  const int dst = PLANE_SITE(*g, d, a, b, i, side ? 0 : g->n[d] + 1);
  for (int k = 0; k < LB_NCROSS; k++) {
    const int p = t_k.cross[d][side][k];
    f[TDP_INDEX(g->nall, NVEL, dst, p)] = f[TDP_INDEX(g->nall, NVEL, src, p)];
  }
}

TDP_KERNEL void lb_face_self(double *__restrict__ f, lbGeom g, int d, int side) {
  int a, b;
  plane_axes(d, &a, &b);
  const int np = g.nh[a] * g.nh[b];
  TDP_TLP_NOSTRIDE(i, np) self_site(f, &g, d, a, b, side, (int) i);
}

/* Both sides of axis d (y or z), only the plane sites with x in x0 .. x1
 * (x is the slower plane axis of both: a contiguous run of plane sites):
 * lbFaceSelfPlanes. The two sides read planes 1 and n along d and write 0
 * and n + 1: no site is read by one and written by the other. */
TDP_KERNEL void lb_face_self_planes(double *__restrict__ f, lbGeom g, int d, int x0, int x1) {
  int a, b;
  plane_axes(d, &a, &b);
  const int per = (x1 - x0 + 1) * g.nh[b];
  TDP_TLP_NOSTRIDE(k, 2 * per) {
    const int kk = (int) k, side = kk >= per;
    self_site(f, &g, d, a, b, side, x0 * g.nh[b] + kk - side * per);
  }
}

/* Half-way bounce-back: the population that would stream from wall (halo)
 * site h into fluid site r = h + c_p is the one that left r towards the
 * wall, f_opp(p)(r), reflected. Writing it into f_p(h) lets the update pull
 * it like any other neighbour value. Only readers r inside the array are
 * written; a reader in another axis's halo is never used. */
TDP_KERNEL void lb_wall_reflect(double *__restrict__ f, lbGeom g, int d, int side) {
  int a, b;
  plane_axes(d, &a, &b);
  const int np = g.nh[a] * g.nh[b];
  TDP_TLP_NOSTRIDE(i, np) {
    const int ia = i / g.nh[b], ib = i % g.nh[b];
    const int h = PLANE_SITE(g, d, a, b, i, side ? g.n[d] + 1 : 0);
    for (int k = 0; k < LB_NCROSS; k++) {
      const int p = t_k.cross[d][side ? 0 : 1][k]; /* pointing into the fluid */
      const int ra = ia + t_k.ci[p][a], rb = ib + t_k.ci[p][b];
      if (ra >= 0 && ra < g.nh[a] && rb >= 0 && rb < g.nh[b])
        f[TDP_INDEX(g.nall, NVEL, h, p)] = f[TDP_INDEX(g.nall, NVEL, h + t_k.off[p], LB_OPP(p))];
    }
  }
}

void lbFace(const lbGeom *g, int d, int side, int unpack, double *t_f, double *t_buf,
            targetStream_t stream) {
  TDP_LAUNCH_STREAM(lb_face, lbPlaneSites(g, d), stream, t_f, t_buf, *g, d, side, unpack);
}
void lbFaceSelf(const lbGeom *g, int d, int side, double *t_f, targetStream_t stream) {
  TDP_LAUNCH_STREAM(lb_face_self, lbPlaneSites(g, d), stream, t_f, *g, d, side);
}
void lbFaceSelfPlanes(const lbGeom *g, int d, int x0, int x1, double *t_f, targetStream_t stream) {
  if (x1 < x0) return;
  int a, b;
  plane_axes(d, &a, &b);
  TDP_LAUNCH_STREAM(lb_face_self_planes, 2L * (x1 - x0 + 1) * g->nh[b], stream, t_f, *g, d, x0, x1);
}
void lbWallReflect(const lbGeom *g, int d, int side, double *t_f, targetStream_t stream) {
  TDP_LAUNCH_STREAM(lb_wall_reflect, lbPlaneSites(g, d), stream, t_f, *g, d, side);
}
