/* Target kernels of the LB app and their host-side launchers. Every
 * launcher is asynchronous on a GPU; callers targetSynchronize() before
 * reading a timer or using the results on the host. */
#ifndef LB_KERNELS_H
#define LB_KERNELS_H

#include "model.h"

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
/* The same in two passes (Ludwig's split): streaming f -> fn, then the
 * collision in place on fn. Bitwise the same arithmetic per site. */
void lbPropagate(const lbGeom *g, const double *t_f, double *t_fn);
void lbCollide(const lbGeom *g, double *t_fn);

/* Density, velocity (SoA: ux | uy | uz, nall each) and |u| at every site,
 * zero at halo sites so that sums and maxima over nall see the interior. */
void lbMoments(const lbGeom *g, const double *t_f, double *t_rho, double *t_u, double *t_umag);

/* Halo along axis d. Buffers hold both faces: [face lo | face hi] x
 * LB_NCROSS velocities x lbPlaneSites(g, d) sites.
 * Pack: the distributions leaving through each face (plane 1 going down,
 * plane n going up). Unpack: the received ones into halo planes 0 and
 * n+1, each only if do_lo / do_hi. Self: both at once without a buffer,
 * for a periodic axis held by one rank. Wall: half-way bounce-back at a
 * wall face (side 0: plane 0, 1: plane n+1), written into the halo so the
 * update kernels need no boundary branch. */
int lbPlaneSites(const lbGeom *g, int d);
void lbHaloPack(const lbGeom *g, int d, const double *t_f, double *t_buf);
void lbHaloUnpack(const lbGeom *g, int d, double *t_f, const double *t_buf, int do_lo, int do_hi);
void lbHaloSelf(const lbGeom *g, int d, double *t_f);
void lbWallReflect(const lbGeom *g, int d, int side, double *t_f);

/* STREAM triad a = b + s c on n doubles per array with the same layer and
 * timer as the LB kernels: best of reps, in GB/s (24 bytes per element). */
double lbTriad(long n, int reps);

#endif
