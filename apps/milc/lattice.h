/* The local 4-D lattice of one rank and how a site is found in a field.
 *
 * Sites are stored on the local block grown by a halo of depth 1 along
 * every axis split over ranks (halo width hw = 1; extents n + 2 hw), in
 * MILC's even/odd order: all sites of parity 0 (even: x+y+z+t of the
 * global coordinates even), then all of parity 1. An axis held whole by
 * the rank (not split: its local extent is the global one) has no halo
 * (hw = 0): a neighbour across its ends is found by the periodic wrap to
 * the opposite face (milcHop), so it needs no exchange at all, and one
 * rank exchanges nothing. Inside a parity the order is the storage-
 * lattice lexicographic index (x fastest) halved, which is unique because
 * the x extent is even. A field of ncomp values per site is addressed
 * TDP_INDEX(nall, ncomp, site, c), so its layout (AoS/SoA/AoSoA) is the
 * build's.
 *
 *   site(p, s) = p * vh + s / 2,  s = s0 + x + str1 y + str2 z + str3 t
 *
 * with s0 = sum hw[d] str[d] (x = -1 or n is a halo site on an axis with
 * halo). A neighbour is s + milcHop's offset in the other parity: no
 * neighbour table. Kernels walk the interior sites of one parity by a
 * half index h in [0, nint / 2) (milcSite).
 *
 * The halo (axes split over ranks only): an operator reads those
 * neighbours from the halo, which the shared halo module (targetDP_halo,
 * site-list faces of one parity) fills: milcHaloStart / milcHaloWait, or
 * milcHaloFill (kernels.h) for both; they do nothing on a lattice without
 * halo. */
#ifndef MILC_LATTICE_H
#define MILC_LATTICE_H

#include <stddef.h>

#include <mpi.h>

#include "targetDP.h"
#include "targetDP_halo.h"

#define MILC_ND 4
#define MILC_NV 6        /* a colour vector: 3 complex numbers */
#define MILC_NM 18       /* an SU(3) matrix: 9 complex numbers */
#define MILC_NL (4 * 18) /* the four links of a site */

typedef enum { MILC_EVEN = 0, MILC_ODD = 1 } milcParity;

/* Storage of the target fields; the host copies are always double. */
typedef enum { MILC_DOUBLE = 0, MILC_SINGLE = 1 } milcPrecision;

/* What a kernel needs to know about the lattice: passed by value. */
typedef struct {
  int n[4];      /* local interior extents (even) */
  int hw[4];     /* halo width: 1 on an axis split over ranks, 0 on one held whole */
  int nh[4];     /* storage extents: n + 2 hw */
  int str[4];    /* lexicographic strides of the storage lattice */
  int wrap[4];   /* n str on an axis without halo (the periodic wrap), else 0 */
  int s0;        /* lexicographic index of interior site (0,0,0,0): sum hw str */
  int offset[4]; /* global coordinate of the first interior site */
  int par0;      /* (sum of offsets) & 1: parity of local (0,0,0,0) */
  int nhalf;     /* interior sites per parity */
  int vh;        /* storage sites per parity (halo included, padded) */
  int nall;      /* storage sites of a field: 2 vh */
} milcGeom;

/* Interior site h (0 <= h < nhalf) of parity p: storage index, and its
 * storage-lattice lexicographic index in *s and interior coordinates in x[]. */
TDP_HOST_DEVICE static inline int milcSite(const milcGeom *g, int p, int h, int *s, int x[4]) {
  const int nx2 = g->n[0] / 2;
  int row = h / nx2;
  const int xr = h - row * nx2;
  x[1] = row % g->n[1];
  row /= g->n[1];
  x[2] = row % g->n[2];
  x[3] = row / g->n[2];
  x[0] = 2 * xr + ((p + x[1] + x[2] + x[3] + g->par0) & 1);
  *s = g->s0 + x[0] + g->str[1] * x[1] + g->str[2] * x[2] + g->str[3] * x[3];
  return p * g->vh + *s / 2;
}

/* Lexicographic offsets of the forward and backward neighbours along mu
 * of an interior site at coordinate xmu: +-str[mu], into the halo at the
 * ends of an axis with halo; on an axis without halo the ends wrap to the
 * opposite face (wrap[mu] = n str). A select on the coordinate, no
 * division: the operator's kernels are bandwidth-bound. */
TDP_HOST_DEVICE static inline void milcHop(const milcGeom *g, int mu, int xmu, int *fwd,
                                           int *bwd) {
  const int st = g->str[mu], wrap = g->wrap[mu];
  *fwd = xmu == g->n[mu] - 1 ? st - wrap : st;
  *bwd = xmu == 0 ? wrap - st : -st;
}

/* Storage index of local coordinates x[] (interior 0 .. n-1, or -1 and n
 * on an axis with halo: its halo sites). */
static inline int milcSiteAt(const milcGeom *g, const int x[4]) {
  const int s = g->s0 + x[0] + g->str[1] * x[1] + g->str[2] * x[2] + g->str[3] * x[3];
  const int p = (x[0] + x[1] + x[2] + x[3] + g->par0) & 1;
  return p * g->vh + s / 2;
}

/* Global lexicographic index of interior coordinates x[] (x fastest). */
static inline long milcGlobalIndex(const int global[4], const milcGeom *g, const int x[4]) {
  long gi = 0;
  for (int d = 3; d >= 0; d--) gi = gi * global[d] + (g->offset[d] + x[d]);
  return gi;
}

/* The halo exchanges of a connected lattice, made when first needed (one
 * per storage type, field width and parity; collective, and every rank
 * asks for the same ones in the same order). */
typedef struct {
  MPI_Comm comm;
  int dims[4];
  targetHalo *h[2][2][3]; /* [float?][links?][parity 0, 1, both] */
  /* The exchanges' stream, of high priority: their face kernels run while
   * the interior sweep, launched first on another stream, fills the GPU
   * (targetStreamCreateWithPriority). */
  targetStream_t stream;
} milcHalos;

/* The rank's lattice: geometry, global extents, the interior/boundary
 * split and the halo exchanges. */
typedef struct {
  milcGeom g;
  int global[4];
  int halo; /* some axis has a halo (is split over ranks): D exchanges */
  /* Half indices h of each parity: sites whose 8 neighbours are all on
   * the rank (computed while the halo moves), and the rest: those on a
   * face of an axis with halo. Without halo every site is interior. */
  int nin[2], nbd[2];
  int *t_hin[2], *t_hbd[2];
  milcHalos *halos; /* NULL until milcLatticeConnect */
} milcLattice;

/* Local extents n[] at offset[] of a global lattice. An axis whose local
 * extent is the global one is held whole (no halo: periodic wrap); the
 * others get a halo of width 1. Returns 0, or -1 with the reason in err
 * (an odd or too small extent). */
int milcLatticeCreate(milcLattice *L, const int global[4], const int n[4], const int offset[4],
                      char *err, size_t errlen);
void milcLatticeFree(milcLattice *L);
/* Attach the lattice to the Cartesian communicator comm (dims ranks per
 * axis, this rank's block at the offset given to milcLatticeCreate; an
 * axis has a halo exactly when dims > 1): needed before any halo
 * exchange. Returns 0, or -1 with the reason. */
int milcLatticeConnect(milcLattice *L, MPI_Comm comm, const int dims[4], char *err, size_t errlen);

/* Halo of parity p (-1: both) of a target field of ncomp (MILC_NV or
 * MILC_NL) values of esize bytes per site: start the exchange (faces sent),
 * and wait for it (halo filled). A failure stops the run with the module's
 * message. */
void milcHaloStart(const milcLattice *L, void *t_f, int ncomp, int p, size_t esize);
void milcHaloWait(const milcLattice *L, void *t_f, int ncomp, int p, size_t esize);
/* The whole exchange queued on the halo stream (targetHaloExchangeAsync):
 * with the nccl transport it returns at once, with no host wait; with the
 * others the host drives it and it returns with the halo done. Work on the
 * default stream after it (which waits for the halo stream) sees the halo. */
void milcHaloQueue(const milcLattice *L, void *t_f, int ncomp, int p, size_t esize);
/* Whether an operator should queue the exchange of parity p before its
 * interior sweep (the halo made here if not yet: collective): with the
 * put transport the exchange is a pack kernel writing into the
 * neighbour's buffer, then flags; queued first, its packs take SMs before
 * the interior sweep fills every one (a block of D holds its SM for the
 * whole ~30 us of a wave at 24^4, and a kernel of another stream, however
 * high its priority, starts only when a block retires), and its host
 * calls are a few us. With nccl the host spends ~38 us queueing an
 * exchange (issue 29's breakdown), which would delay the sweep: last. */
int milcHaloQueueFirst(const milcLattice *L, int ncomp, int p, size_t esize);
/* The transport of the halo exchanges made so far, for the log. */
const char *milcHaloTransport(const milcLattice *L);

/* Target field of ncomp values of esize bytes (sizeof(double) or
 * sizeof(float)) on every storage site, zeroed; and its size in bytes.
 * The halo fill is with the kernels (kernels.h: milcHaloFill). */
void *milcFieldAlloc(const milcLattice *L, int ncomp, size_t esize);
size_t milcFieldBytes(const milcLattice *L, int ncomp, size_t esize);
size_t milcPrecisionSize(milcPrecision prec);

/* A host field of doubles (same layout) to a target field of the given
 * precision, and back (rounded to float on the way in when single). */
void milcUpload(const milcLattice *L, void *t_f, const double *h_f, int ncomp, milcPrecision prec);
void milcDownload(const milcLattice *L, double *h_f, const void *t_f, int ncomp,
                  milcPrecision prec);

#endif
