/* Halo exchange of the distributions between MPI ranks, and the wall
 * (bounce-back) fill at the ends of non-periodic axes.
 *
 * Per axis only the 5 of 19 distributions that cross a face move. They are
 * packed and unpacked by target kernels; messages go through host buffers
 * (copyFromTarget / copyToTarget), or, when built with LB_CUDA_AWARE_MPI
 * and the MPI library says it can, straight from target memory. An axis
 * held by a single rank is filled by one on-target copy, without MPI. */
#ifndef LB_HALO_H
#define LB_HALO_H

#include <stddef.h>

#include "common/decomp.h"
#include "model.h"

typedef struct {
  int np[3];                     /* sites per face plane, per axis */
  double *t_send[3], *t_recv[3]; /* target buffers: both faces of an axis */
  double *h_send[3], *h_recv[3]; /* host staging (NULL if device pointers are used) */
  int device_ptrs;               /* 1: MPI reads/writes target buffers */
  double bytes;                  /* message bytes this rank sends per exchange */
} lbHalo;

/* Returns 0; with LB_CUDA_AWARE_MPI, says on rank 0 which path it took. */
int lbHaloCreate(lbHalo *h, const lbGeom *g, const decompInfo *dc);
void lbHaloFree(lbHalo *h);

/* Make f's halo current: axes x, y, z in turn (so that edges are right),
 * then the bounce-back walls. */
void lbHaloExchange(lbHalo *h, const lbGeom *g, const decompInfo *dc, double *t_f);

#endif
