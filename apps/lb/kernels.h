/* Target kernels of the LB app and their host-side launchers. Every
 * launcher is asynchronous on a GPU; callers targetSynchronize() before
 * reading a timer or using the results on the host. */
#ifndef LB_KERNELS_H
#define LB_KERNELS_H

#include "model.h"
#include "targetDP.h"

/* Copy the model (velocities, weights, neighbour offsets, which velocities
 * cross each face) and the BGK/force parameters to target constant memory. */
void lbKernelsSetup(const lbGeom *g, double tau, const double force[3]);

/* Zero the nall sites of a lattice with the same
 * partition of sites over threads as the update kernels: the first touch,
 * which on a CPU places each page near the thread that will sweep it. */
void lbZero(const lbGeom *g, double *t_f);

/* One time step on the interior, from the post-collision state f to the
 * next one in fn: pull each f_p from the upwind neighbour (streaming),
 * then BGK collision with Guo forcing. f's halo must be current. */
void lbUpdateFused(const lbGeom *g, const double *t_f, double *t_fn);
/* The same in two parts, for a step that hides the halo exchange: the
 * interior (sites whose stencil does not reach the halo; may run while
 * f's halo is being exchanged) and then, with the halo current and the
 * interior update finished, the boundary layer. Together bitwise the
 * same results as lbUpdateFused at every interior site. */
void lbUpdateInterior(const lbGeom *g, const double *t_f, double *t_fn, targetStream_t stream);
void lbUpdateBoundary(const lbGeom *g, const double *t_f, double *t_fn, targetStream_t stream);
/* The interior sweep in pieces along x (at most k, 1 to 64), for a fill
 * of the halo of the axes held alone done in pieces beside it: piece j
 * sweeps sites first .. first + n - 1 and reads the halo planes of x up
 * to fx1, after the fill pieces 0 .. j, which together cover the halo
 * planes x = 0 .. n0 + 1 (piece j's: fx0 .. fx1). Returns the number of
 * pieces; together they are lbUpdateInterior's sweep. */
typedef struct {
  int first, n;  /* sites of the sweep's piece */
  int fx0, fx1;  /* halo planes of x of the fill's piece */
} lbPiece;
int lbInteriorPieces(const lbGeom *g, int k, lbPiece pc[]);
void lbUpdateInteriorRange(const lbGeom *g, const double *t_f, double *t_fn, int first, int n,
                           targetStream_t stream);
/* lbUpdateBoundary where the halo of some axes was in place before the
 * interior sweep (lbHaloSelfFill): the planes x = 1 and n, and the faces
 * along y and z only where redo[1], redo[2]; one: every box in one launch
 * (0: one launch per box, for comparison). */
void lbUpdateBoundaryFaces(const lbGeom *g, const double *t_f, double *t_fn, const int redo[3],
                           int one, targetStream_t stream);
/* The same in two passes (Ludwig's split): streaming f -> fn, then the
 * collision in place on fn. Bitwise the same arithmetic per site. */
void lbPropagate(const lbGeom *g, const double *t_f, double *t_fn);
void lbCollide(const lbGeom *g, double *t_fn);

/* Density, velocity (SoA: ux | uy | uz, nall each) and |u| at every site,
 * zero at halo sites so that sums and maxima over nall see the interior. */
void lbMoments(const lbGeom *g, const double *t_f, double *t_rho, double *t_u, double *t_umag);

/* Halo faces along axis d (the exchange itself is targetDP_halo's; these
 * are its pack and unpack for lb's padded layout, halo.c): a face plane
 * spans the full extent, halo included, of the two other axes and carries
 * only the LB_NCROSS velocities that cross it: LB_NCROSS x lbPlaneSites
 * doubles. unpack 0: pack the distributions leaving through side (plane 1
 * going down, plane n going up) into t_buf; 1: t_buf into the halo plane
 * of side (0 or n+1). Wall: half-way bounce-back at a wall face (side 0:
 * plane 0, 1: plane n+1), written into the halo so the update kernels
 * need no boundary branch. */
int lbPlaneSites(const lbGeom *g, int d);
void lbFace(const lbGeom *g, int d, int side, int unpack, double *t_f, double *t_buf,
            targetStream_t stream);
/* Periodic onto this rank itself: the face leaving through side into the
 * halo on the other side, in place (what lbFace's pack + unpack do). */
void lbFaceSelf(const lbGeom *g, int d, int side, double *t_f, targetStream_t stream);
/* lbFaceSelf of both sides of axis d = 1 or 2, only for the plane sites
 * with x in x0 .. x1 (0 .. n0 + 1): a fill in pieces along x. */
void lbFaceSelfPlanes(const lbGeom *g, int d, int x0, int x1, double *t_f, targetStream_t stream);
void lbWallReflect(const lbGeom *g, int d, int side, double *t_f, targetStream_t stream);

#endif
