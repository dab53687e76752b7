/* lb's side of the halo exchange. The exchange itself (order of axes,
 * transports, overlap, errors) is targetDP_halo's (docs/halo.md); lb gives
 * it the pack and unpack of its faces (the padded layout of lbGeom, only
 * the 5 of 19 distributions that cross each face) and adds the wall
 * (bounce-back) fill at the ends of non-periodic axes. */
#ifndef LB_HALO_H
#define LB_HALO_H

#include <stddef.h>

#include "common/decomp.h"
#include "model.h"
#include "targetDP.h"
#include "targetDP_halo.h"

typedef struct {
  targetHalo *h;
  lbGeom g;                 /* the layout the faces are packed from */
  int wall[3][2];           /* 1: a wall at this end of axis d, filled after the exchange */
  targetStream_t stream;    /* the exchange's (and the boundary update's) stream */
  double bytes;             /* message bytes this rank sends per exchange */
  int device_ordered;       /* 1: the exchange is queued on the stream, no host wait (nccl) */
  int self_axis[3];         /* 1: a periodic axis this rank holds alone (its own neighbour) */
  double *t_f;              /* the field of the exchange in flight */
  int self_again;           /* 1: after an early fill the exchange copies those axes again */
  int filled;               /* 1: this step's early fill is in; the exchange clears it */
} lbHalo;

/* Collective. 0, or -1 with the reason in err on every rank (a bad
 * TARGETDP_HALO, a transport not available, ranks sharing a GPU...). */
int lbHaloCreate(lbHalo *h, const lbGeom *g, const decompInfo *dc, char *err, size_t len);
void lbHaloFree(lbHalo *h);

/* Make f's halo current in two halves: Start packs and sends the first
 * axis on h->stream; between them the caller may update the interior on
 * another stream; Wait completes the exchange, fills the walls and returns
 * with the halo current on the target. Exchange: both. 0, or -1 + err. */
int lbHaloStart(lbHalo *h, double *t_f, char *err, size_t len);
int lbHaloWait(lbHalo *h, char *err, size_t len);
int lbHaloExchange(lbHalo *h, double *t_f, char *err, size_t len);
/* The exchange and the walls queued on h->stream (targetHaloExchangeAsync):
 * where the exchange is device-ordered it returns at once, with no host
 * wait; otherwise the host drives it and it returns with the halo done.
 * Work queued on h->stream after it sees the halo. 0, or -1 + err. */
int lbHaloExchangeQueued(lbHalo *h, double *t_f, char *err, size_t len);
/* The halo of the periodic axes this rank holds alone, queued on
 * h->stream now (targetHaloSelfFill): an interior sweep after it computes
 * their faces right. 0, or -1 + err. */
int lbHaloSelfFill(lbHalo *h, double *t_f, char *err, size_t len);

/* The same fill in pieces along x (lb's own kernels, as the module's
 * self_copy interface has whole faces only): the x axis, if held alone,
 * whole where with_x, then y and z, where held alone, over the halo planes
 * of x = x0 .. x1 (0 .. n0 + 1), both sides in one launch per axis. Queued
 * on h->stream in x order, each piece beside an interior sweep of the
 * planes before it. */
void lbHaloFillPlanes(lbHalo *h, double *t_f, int x0, int x1, int with_x);

/* The transport the module chose ("direct", "ipc", "staged"). */
const char *lbHaloPath(const lbHalo *h);

#endif
