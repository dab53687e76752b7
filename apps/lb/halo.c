#include <stdio.h>
#include <string.h>

#include "halo.h"
#include "kernels.h"

/* targetHaloConfig.pack / .unpack: lb's faces, on the module's stream. */
static int pack_face(void *ctx, int d, int side, double *t_buf, const double *t_f,
                     targetStream_t stream) {
  const lbHalo *h = (const lbHalo *) ctx;
  lbFace(&h->g, d, side, 0, (double *) t_f, t_buf, stream);
  return 0; /* a failed launch is the layer's error (file:line), reported there */
}
static int unpack_face(void *ctx, int d, int side, double *t_f, const double *t_buf,
                       targetStream_t stream) {
  const lbHalo *h = (const lbHalo *) ctx;
  lbFace(&h->g, d, side, 1, t_f, (double *) t_buf, stream);
  return 0;
}

/* After this step's early fill (h->filled) the exchange copies the axes
 * held alone again for nothing: every rank filled them before packing any
 * face (the same axes are held alone on every rank, and every rank fills
 * them in its overlapped steps), so the faces it sends carry them, and
 * the exchange of each split axis brings the edges of its halo with the
 * neighbour's. Bitwise the same halo. Issue 29: on 2 H100s, 2,1,1, the
 * whole y and z faces again took 0.24 ms of the exchange's 0.53, beside
 * the interior sweep, which they slowed. (lb --self_again 1: as before.) */
static int self_face(void *ctx, int d, int side, double *t_f, targetStream_t stream) {
  const lbHalo *h = (const lbHalo *) ctx;
  if (h->filled && !h->self_again) return 0;
  lbFaceSelf(&h->g, d, side, t_f, stream);
  return 0;
}

int lbHaloCreate(lbHalo *h, const lbGeom *g, const decompInfo *dc, char *err, size_t len) {
  memset(h, 0, sizeof(*h));
  h->g = *g;
  targetHaloConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.ndim = 3;
  for (int d = 0; d < 3; d++) {
    cfg.global[d] = dc->global[d];
    cfg.dims[d] = dc->dims[d];
    cfg.periodic[d] = dc->periodic[d];
    cfg.face_doubles[d] = (long) LB_NCROSS * lbPlaneSites(g, d);
    h->wall[d][0] = !dc->periodic[d] && dc->coords[d] == 0;
    h->wall[d][1] = !dc->periodic[d] && dc->coords[d] == dc->dims[d] - 1;
  }
  cfg.nhalo = 1;
  cfg.ncomp = NVEL;
  cfg.transport = TARGET_HALO_AUTO; /* TARGETDP_HALO=... forces one */
  cfg.pack = pack_face;
  cfg.unpack = unpack_face;
  cfg.self_copy = self_face; /* one rank: one kernel per face, no buffer */
  cfg.ctx = h;
  char why[400];
  if (targetHaloCreate(dc->comm, &cfg, &h->h, why, sizeof(why))) {
    snprintf(err, len, "halo exchange: %s", why);
    return -1;
  }
  /* Same decomposition, same Cartesian rank order: the module's block
   * must be this rank's block, or the halo would come from elsewhere. */
  const targetHaloInfo *in = targetHaloGetInfo(h->h);
  int same = 1;
  for (int d = 0; d < 3; d++)
    same = same && in->coords[d] == dc->coords[d] && in->local[d] == dc->local[d];
  int all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, dc->comm);
  /* high priority: its face kernels run beside the interior update, which
   * is launched first and fills the device (targetStreamCreateWithPriority) */
  int rc = all ? targetStreamCreateWithPriority(&h->stream, TARGET_STREAM_PRIORITY_HIGH)
               : TARGET_SUCCESS;
  int ok = all && rc == TARGET_SUCCESS, every = 0;
  MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, dc->comm);
  if (!every) {
    snprintf(err, len, "halo exchange: %s",
             !all ? "the module's decomposition differs from lb's (internal error)"
                  : "cannot create a stream for it (on some rank)");
    lbHaloFree(h);
    return -1;
  }
  h->bytes = (double) in->bytes_per_exchange;
  h->device_ordered = in->device_ordered;
  for (int d = 0; d < 3; d++)
    h->self_axis[d] = in->nbr[d][0] == in->rank && in->nbr[d][1] == in->rank;
  return 0;
}

void lbHaloFree(lbHalo *h) {
  if (h->stream) targetStreamDestroy(h->stream);
  targetHaloFree(h->h);
  memset(h, 0, sizeof(*h));
}

int lbHaloStart(lbHalo *h, double *t_f, char *err, size_t len) {
  h->t_f = t_f;
  if (targetHaloStart(h->h, t_f, h->stream) == 0) return 0;
  snprintf(err, len, "halo exchange: %s", targetHaloError(h->h));
  return -1;
}

int lbHaloWait(lbHalo *h, char *err, size_t len) {
  const int rc = targetHaloWait(h->h);
  h->filled = 0;
  if (rc) {
    snprintf(err, len, "halo exchange: %s", targetHaloError(h->h));
    return -1;
  }
  /* The walls after every axis is in: a bounce-back reads edge values. */
  for (int d = 0; d < 3; d++)
    for (int side = 0; side < 2; side++)
      if (h->wall[d][side]) lbWallReflect(&h->g, d, side, h->t_f, h->stream);
  if (targetStreamSynchronize(h->stream) != TARGET_SUCCESS) {
    snprintf(err, len, "halo exchange: the wall fill failed: %s", targetLastErrorString());
    return -1;
  }
  return 0;
}

int lbHaloExchange(lbHalo *h, double *t_f, char *err, size_t len) {
  /* targetHaloExchange, not Start + Wait: with the nccl transport it times
   * each phase (the sequential steps' pack, transfer, unpack) */
  h->t_f = t_f;
  const int rc = targetHaloExchange(h->h, t_f, h->stream);
  h->filled = 0;
  if (rc) {
    snprintf(err, len, "halo exchange: %s", targetHaloError(h->h));
    return -1;
  }
  for (int d = 0; d < 3; d++)
    for (int side = 0; side < 2; side++)
      if (h->wall[d][side]) lbWallReflect(&h->g, d, side, t_f, h->stream);
  if (targetStreamSynchronize(h->stream) != TARGET_SUCCESS) {
    snprintf(err, len, "halo exchange: the wall fill failed: %s", targetLastErrorString());
    return -1;
  }
  return 0;
}

int lbHaloExchangeQueued(lbHalo *h, double *t_f, char *err, size_t len) {
  h->t_f = t_f;
  const int rc = targetHaloExchangeAsync(h->h, t_f, h->stream);
  h->filled = 0;
  if (rc) {
    snprintf(err, len, "halo exchange: %s", targetHaloError(h->h));
    return -1;
  }
  /* The walls after every axis is in, in stream order: no synchronisation. */
  for (int d = 0; d < 3; d++)
    for (int side = 0; side < 2; side++)
      if (h->wall[d][side]) lbWallReflect(&h->g, d, side, t_f, h->stream); /* a failed launch stops the run (file:line) */
  return 0;
}

int lbHaloSelfFill(lbHalo *h, double *t_f, char *err, size_t len) {
  if (targetHaloSelfFill(h->h, t_f, h->stream) == 0) {
    h->filled = 1;
    return 0;
  }
  snprintf(err, len, "halo exchange: %s", targetHaloError(h->h));
  return -1;
}

void lbHaloFillPlanes(lbHalo *h, double *t_f, int x0, int x1, int with_x) {
  if (with_x && h->self_axis[0])
    for (int side = 0; side < 2; side++) lbFaceSelf(&h->g, 0, side, t_f, h->stream);
  for (int d = 1; d < 3; d++)
    if (h->self_axis[d]) lbFaceSelfPlanes(&h->g, d, x0, x1, t_f, h->stream);
  h->filled = 1;
}

const char *lbHaloPath(const lbHalo *h) {
  return targetHaloTransportName(targetHaloGetInfo(h->h)->transport);
}
