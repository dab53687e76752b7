/*
 * targetDP_halo.c -- halo exchange over MPI (targetDP_halo.h, docs/halo.md).
 * Uses only the public targetDP API: pack/unpack are the layer's box
 * kernels, the transports call its copies, streams and IPC handles. No
 * backend #ifdef: what differs (is target memory host memory, is there
 * IPC) is asked of the layer at run time.
 *
 * The axes are exchanged one after the other and each face spans the
 * whole lattice, halo included, along the other axes: the second axis
 * then carries what the first brought in, so edges and corners are filled
 * without diagonal messages.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

#define TDP_LIBRARY_ 1 /* a library source: no -fopenmp mark (targetDP.h) */
#include "targetDP_devcomm.h"
#include "targetDP_halo.h"

#define MAXD TARGET_HALO_MAXDIM
/* Tags by (kind, axis, the receiver's side). */
enum { TAG_DATA = 0, TAG_READY = 1, TAG_DONE = 2 };
#define TAG(kind, d, side) (7700 + 16 * (kind) + 2 * (d) + (side))

struct targetHalo_ {
  targetHaloInfo info;
  long nface[MAXD];              /* sites of a face along each axis */
  size_t off[MAXD][2];           /* of each face in the buffers (doubles) */
  size_t nbuf;                   /* doubles in each buffer */
  double *t_send, *t_recv;       /* target buffers: every face */
  double *h_send, *h_recv;       /* pinned host buffers (staged) */
  double *peer[MAXD][2];         /* IPC: the neighbour's receive slot for what we send */
  void *opened[2 * MAXD];        /* IPC mappings to close */
  int nopened;
  MPI_Request rreq[MAXD][2], sreq[MAXD][2], ready_r[MAXD][2], ready_s[MAXD][2];
  size_t nface_doubles[MAXD];   /* doubles of one face along each axis */
  targetHaloFaceFn pack, unpack; /* the caller's, or NULL: targetPackBox */
  targetHaloSelfFn self_copy;    /* the caller's, or NULL: pack then unpack */
  void *ctx;
  targetHaloTimes times;
  double *field;
  /* site lists (targetHaloSites): target copies [d][side][0 send, 1 recv] */
  int lists;
  size_t esize;
  long nall;
  long *t_sites[MAXD][2][2];
  targetStream_t stream;
  int local;                     /* every neighbour is this rank or none: see exchange_local */
  double t_start;                /* local: Start's launches, added to self_s at Wait */
  int started;
  char err[320];
  /* transport nccl: the device communicator, and the phases' events of
   * the queued exchanges (targetHaloTimeEvents), two sets in turn */
  targetDevComm *dc;
  struct {
    targetEvent_t ev[4 * MAXD + 1];
    int kind[4 * MAXD];
    int n, pending;
  } evs[2];
  int ev_on, ev_cur;
  targetHaloTimes ev_times;
  /* transport put: the neighbours' receive buffers (peer_base; peer[][]
   * is their slot for our face), the flags after the slots (put_flag),
   * the exchanges so far (the flags' sequence number); on the C backend
   * the receive buffers are an MPI shared window of the node */
  double *peer_base[MAXD][2];
  uint32_t seq;
  MPI_Comm node;
  MPI_Win win;
  int node_made, shared;
  void *tracked[2 * MAXD + 1];
  int ntracked;
};

/* put: after the receive slots, per axis and side, READY (our slot s
 * holds the face of exchange seq from the neighbour on side s) and FREE
 * (the neighbour on side s has unpacked exchange seq from the slot we
 * write there); 2 * 2 * MAXD words in PUT_FLAG_DOUBLES doubles. */
enum { FLAG_READY = 0, FLAG_FREE = 1 };
#define PUT_FLAG_DOUBLES ((2 * 2 * MAXD * sizeof(uint32_t) + sizeof(double) - 1) / sizeof(double))

const char *targetHaloTransportName(targetHaloTransport_t t) {
  switch (t) {
  case TARGET_HALO_AUTO: return "auto";
  case TARGET_HALO_STAGED: return "staged";
  case TARGET_HALO_DIRECT: return "direct";
  case TARGET_HALO_IPC: return "ipc";
  case TARGET_HALO_NCCL: return "nccl";
  case TARGET_HALO_PUT: return "put";
  }
  return "unknown";
}

/* The public targetHalo * is a checked handle (tdpHandleNew_, as streams
 * and events are): never dereferenced, the object behind a live one is
 * looked up; a freed, stale or made-up one is refused with file:line. */
static targetHalo *live(const targetHalo *handle, const char *call, const char *f, int l) {
  return (targetHalo *) tdpHandleGet_(handle, TDP_HANDLE_HALO_, call, f, l);
}

const char *tdpHaloError(const targetHalo *handle, const char *f, int l) {
  if (!handle) return "no halo";
  const targetHalo *h = live(handle, "targetHaloError", f, l);
  return h ? h->err : targetLastErrorString();
}
const targetHaloInfo *tdpHaloGetInfo(const targetHalo *handle, const char *f, int l) {
  const targetHalo *h = live(handle, "targetHaloGetInfo", f, l);
  return h ? &h->info : NULL;
}

/* ---------------------------------------------------------------------- */
/* Choosing the decomposition. */

static double surface(int ndim, const long global[], const int dims[]) {
  double s = 0.0;
  for (int d = 0; d < ndim; d++) {
    if (dims[d] == 1) continue; /* an axis not split sends nothing */
    double face = 2.0;
    for (int e = 0; e < ndim; e++)
      if (e != d) face *= (double) global[e] / dims[e];
    s += face;
  }
  return s;
}

typedef struct {
  int ndim, fits_ranks, found;
  const long *global;
  const int *request;
  int best[MAXD];
  double best_cost;
} chooser;

static void try_dims(chooser *c, int d, int left, int t[]) {
  if (d == c->ndim - 1) {
    if (c->request[d] && c->request[d] != left) return;
    t[d] = left;
    c->fits_ranks = 1;
    for (int e = 0; e < c->ndim; e++)
      if (c->global[e] % t[e]) return;
    double cost = surface(c->ndim, c->global, t);
    if (!c->found || cost < c->best_cost) { /* the first found wins ties */
      memcpy(c->best, t, sizeof(int) * c->ndim);
      c->best_cost = cost;
      c->found = 1;
    }
    return;
  }
  for (int a = 1; a <= left; a++) {
    if (left % a || (c->request[d] && c->request[d] != a)) continue;
    t[d] = a;
    try_dims(c, d + 1, left / a, t);
  }
}

int targetHaloChooseDims(int nranks, int ndim, const long global[], const int request[],
                         int dims[], char *err, size_t errlen) {
  static const char axis[] = "xyzt";
  if (ndim < 1 || ndim > MAXD) {
    snprintf(err, errlen, "ndim %d must be 1 to %d", ndim, MAXD);
    return -1;
  }
  if (nranks < 1) {
    snprintf(err, errlen, "%d MPI ranks", nranks);
    return -1;
  }
  for (int d = 0; d < ndim; d++) {
    if (global[d] < 1) {
      snprintf(err, errlen, "grid extent %ld along %c must be positive", global[d], axis[d]);
      return -1;
    }
    if (request[d] < 0) {
      snprintf(err, errlen, "ranks along %c must be >= 0 (0 = choose), not %d", axis[d],
               request[d]);
      return -1;
    }
  }
  chooser c;
  memset(&c, 0, sizeof(c));
  c.ndim = ndim;
  c.global = global;
  c.request = request;
  int t[MAXD] = {0, 0, 0, 0};
  try_dims(&c, 0, nranks, t);
  if (c.found) {
    memcpy(dims, c.best, sizeof(int) * ndim);
    return 0;
  }
  char g[96] = "", r[96] = "";
  for (int d = 0; d < ndim; d++) {
    size_t lg = strlen(g), lr = strlen(r);
    snprintf(g + lg, sizeof(g) - lg, "%s%ld", d ? " x " : "", global[d]);
    snprintf(r + lr, sizeof(r) - lr, "%s%d", d ? " x " : "", request[d]);
  }
  int all_fixed = 1;
  for (int d = 0; d < ndim; d++) all_fixed = all_fixed && request[d];
  if (!c.fits_ranks)
    snprintf(err, errlen, "decomposition %s (0 = any) cannot be made from %d MPI ranks", r,
             nranks);
  else if (all_fixed)
    snprintf(err, errlen,
             "grid %s does not divide evenly over %s ranks (each extent must be a multiple of "
             "the ranks along it)",
             g, r);
  else
    snprintf(err, errlen,
             "grid %s cannot be split evenly over %d MPI ranks (decomposition %s, 0 = any): no "
             "factorisation divides every extent",
             g, nranks, r);
  return -1;
}

/* ---------------------------------------------------------------------- */
/* What the machine offers. */

static int mpi_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support();
#else
  return 0;
#endif
}

static int parse_transport(const char *s, targetHaloTransport_t *t) {
  const targetHaloTransport_t all[] = {TARGET_HALO_AUTO, TARGET_HALO_STAGED, TARGET_HALO_DIRECT,
                                       TARGET_HALO_IPC, TARGET_HALO_NCCL, TARGET_HALO_PUT};
  for (int i = 0; i < 6; i++) {
    if (strcmp(s, targetHaloTransportName(all[i])) == 0) {
      *t = all[i];
      return 0;
    }
  }
  return -1;
}

/* Every rank learns whether any rank failed; the ones that did not say
 * so in err. Returns nonzero when some rank failed. */
static int any_failed(MPI_Comm comm, int failed, char *err, size_t errlen) {
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any && !failed)
    snprintf(err, errlen, "another rank refused the halo set-up (see its message)");
  return any;
}

static int layer_failed(targetHalo *h, int rc, const char *what) {
  if (rc == TARGET_SUCCESS) return 0;
  snprintf(h->err, sizeof(h->err), "%s: %s", what, targetLastErrorString());
  return 1;
}

#define agree_why tdpAgreeWhy_ /* targetDP_devcomm.c */

static int nccl_test(targetHalo *h, char *why, size_t len);
static int remote(const targetHalo *h, int d, int s);
static int exchange_nccl(targetHalo *h, int timed);
static int exchange_queued(targetHalo *h, void *t_field, targetStream_t stream, int timed);

/* ---------------------------------------------------------------------- */

static int check_config(const targetHaloConfig *cfg, int nranks, targetHaloInfo *in,
                        targetHaloTransport_t *want, int *oversub, char *err, size_t errlen) {
  static const char axis[] = "xyzt";
  if (cfg->ndim < 1 || cfg->ndim > MAXD) {
    snprintf(err, errlen, "ndim %d must be 1 to %d", cfg->ndim, MAXD);
    return -1;
  }
  if (cfg->nhalo < 1) {
    snprintf(err, errlen, "halo depth nhalo %d must be at least 1", cfg->nhalo);
    return -1;
  }
  if (cfg->ncomp < 1) {
    snprintf(err, errlen, "ncomp %d must be at least 1", cfg->ncomp);
    return -1;
  }
  if (!cfg->pack != !cfg->unpack) {
    snprintf(err, errlen, "targetHaloConfig.%s is set but .%s is not: give both or neither",
             cfg->pack ? "pack" : "unpack", cfg->pack ? "unpack" : "pack");
    return -1;
  }
  if (cfg->self_copy && !cfg->pack) {
    snprintf(err, errlen, "targetHaloConfig.self_copy is set without .pack and .unpack: it "
                          "replaces them only for a rank's copies onto itself");
    return -1;
  }
  for (int d = 0; cfg->pack && d < cfg->ndim; d++) {
    if (cfg->face_doubles[d] < 1 || cfg->face_doubles[d] > INT_MAX) {
      snprintf(err, errlen,
               "targetHaloConfig.face_doubles[%d] is %ld: with a caller's pack it must be 1 to "
               "%d (doubles in one face along %c)",
               d, cfg->face_doubles[d], INT_MAX, axis[d]);
      return -1;
    }
  }
  *want = cfg->transport;
  if (parse_transport(targetHaloTransportName(*want), want)) {
    snprintf(err, errlen, "transport %d is not a targetHaloTransport_t", (int) cfg->transport);
    return -1;
  }
  const char *env = getenv("TARGETDP_HALO");
  if (env && *env && parse_transport(env, want)) {
    snprintf(err, errlen, "TARGETDP_HALO=%s: must be auto, staged, direct, ipc, nccl or put", env);
    return -1;
  }
  *oversub = cfg->allow_oversubscribe || (getenv("TARGETDP_OVERSUBSCRIBE") &&
                                          strcmp(getenv("TARGETDP_OVERSUBSCRIBE"), "0"));
  in->ndim = cfg->ndim;
  in->nhalo = cfg->nhalo;
  in->ncomp = cfg->ncomp;
  if (targetHaloChooseDims(nranks, cfg->ndim, cfg->global, cfg->dims, in->dims, err, errlen))
    return -1;
  if (cfg->sites) {
    const targetHaloSites *l = cfg->sites;
    if (cfg->pack || cfg->unpack) {
      snprintf(err, errlen, "site lists and the caller's pack/unpack exclude each other");
      return -1;
    }
    if (l->nall < 1) {
      snprintf(err, errlen, "site lists: nall %ld must be at least 1", l->nall);
      return -1;
    }
    if (l->elem_size != 0 && l->elem_size != sizeof(double) && l->elem_size != sizeof(float)) {
      snprintf(err, errlen, "site lists: elem_size %zu must be %zu (double) or %zu (float)",
               l->elem_size, sizeof(double), sizeof(float));
      return -1;
    }
    for (int d = 0; d < cfg->ndim; d++) {
      if (l->n[d][0] != l->n[d][1] || l->n[d][0] < 0) {
        snprintf(err, errlen,
                 "site lists along %c: %ld and %ld sites; the two faces of an axis must have "
                 "the same number (>= 0), which the neighbour's opposite face receives",
                 axis[d], l->n[d][0], l->n[d][1]);
        return -1;
      }
      for (int s = 0; s < 2; s++) {
        if (l->n[d][s] > 0 && (!l->send[d][s] || !l->recv[d][s])) {
          snprintf(err, errlen, "site lists along %c side %d: NULL list", axis[d], s);
          return -1;
        }
        for (long k = 0; k < l->n[d][s]; k++) {
          const long a = l->send[d][s][k], b = l->recv[d][s][k];
          if (a < 0 || a >= l->nall || b < 0 || b >= l->nall) {
            snprintf(err, errlen,
                     "site lists along %c side %d: entry %ld (send %ld, recv %ld) outside the "
                     "field's %ld sites",
                     axis[d], s, k, a, b, l->nall);
            return -1;
          }
        }
      }
    }
  }
  in->nsites = 1;
  for (int d = 0; d < cfg->ndim; d++) {
    in->local[d] = cfg->global[d] / in->dims[d];
    if (cfg->nhalo > in->local[d]) {
      snprintf(err, errlen,
               "halo depth %d is deeper than the sub-domain: %ld sites along %c (%ld over %d "
               "ranks); use fewer ranks along %c or a shallower halo",
               cfg->nhalo, in->local[d], axis[d], cfg->global[d], in->dims[d], axis[d]);
      return -1;
    }
    in->extents[d] = in->local[d] + 2L * cfg->nhalo;
    in->nsites *= in->extents[d];
  }
  return 0;
}

/* The ranks must agree on everything that shapes the messages between
 * them: one collective check of a small descriptor of the configuration
 * (each field's minimum and maximum over the ranks, in one allreduce of
 * x and -x), so that every rank sees every difference and refuses with
 * the same message. Without it, other extents with faces of equal size
 * exchanged wrong values with rc 0, one closed axis left its neighbour
 * waiting forever, another ncomp or nhalo aborted inside MPI (issue 25). */
enum { DESC_AXES = 7 * MAXD, DESC_N = DESC_AXES + 8 };
#define TRANSPORT_FIELD \
  "the transport (targetHaloConfig.transport or TARGETDP_HALO: 0 auto, 1 staged, 2 direct, 3 ipc, " \
  "4 nccl, 5 put)"
static int agree(MPI_Comm comm, const targetHaloConfig *cfg, const int dims[],
                 targetHaloTransport_t want, char *err, size_t errlen) {
  static const char axis[] = "xyzt";
  static const char *what[] = {"the global extent along",
                               "the decomposition: ranks along",
                               "periodicity along",
                               "face_doubles (the caller's face size) along",
                               "the site-list sites of the low face along",
                               "the site-list sites of the high face along",
                               "the axes (ndim > axis) along",
                               "the number of dimensions (ndim)",
                               "the halo depth (nhalo)",
                               "the components per site (ncomp)",
                               TRANSPORT_FIELD,
                               "the caller's pack/unpack (1: given)",
                               "site lists (1: given)",
                               "the bytes per value of the site lists",
                               "the site count of the site lists (nall > 0)"};
  long mine[DESC_N], both[2 * DESC_N], out[2 * DESC_N];
  memset(mine, 0, sizeof(mine));
  const targetHaloSites *l = cfg->sites;
  for (int d = 0; d < MAXD; d++) {
    const int in = d < cfg->ndim;
    mine[0 * MAXD + d] = in ? cfg->global[d] : 0;
    mine[1 * MAXD + d] = in ? dims[d] : 0;
    mine[2 * MAXD + d] = in ? (cfg->periodic[d] != 0) : 0;
    mine[3 * MAXD + d] = in && cfg->pack ? cfg->face_doubles[d] : 0;
    mine[4 * MAXD + d] = in && l ? l->n[d][0] : 0;
    mine[5 * MAXD + d] = in && l ? l->n[d][1] : 0;
    mine[6 * MAXD + d] = in;
  }
  mine[DESC_AXES + 0] = cfg->ndim;
  mine[DESC_AXES + 1] = cfg->nhalo;
  mine[DESC_AXES + 2] = cfg->ncomp;
  mine[DESC_AXES + 3] = (long) want;
  mine[DESC_AXES + 4] = cfg->pack != NULL;
  mine[DESC_AXES + 5] = l != NULL;
  mine[DESC_AXES + 6] = l ? (long) (l->elem_size ? l->elem_size : sizeof(double)) : 0;
  mine[DESC_AXES + 7] = l ? l->nall > 0 : 0;
  for (int i = 0; i < DESC_N; i++) {
    both[i] = mine[i];
    both[DESC_N + i] = -mine[i];
  }
  MPI_Allreduce(both, out, 2 * DESC_N, MPI_LONG, MPI_MIN, comm);
  /* the first difference in the order above, whole-lattice fields first */
  static const int order[] = {DESC_AXES + 0, DESC_AXES + 5, DESC_AXES + 4, DESC_AXES + 3,
                              DESC_AXES + 1, DESC_AXES + 2, DESC_AXES + 6, DESC_AXES + 7};
  for (int k = 0; k < (int) (sizeof(order) / sizeof(order[0])) + DESC_AXES; k++) {
    const int i = k < (int) (sizeof(order) / sizeof(order[0])) ? order[k]
                                                               : k - (int) (sizeof(order) /
                                                                            sizeof(order[0]));
    const long lo = out[i], hi = -out[DESC_N + i];
    if (lo == hi) continue;
    if (i < DESC_AXES)
      snprintf(err, errlen,
               "the ranks disagree on %s %c: %ld on some ranks, %ld on others; every rank must "
               "pass the same configuration", what[i / MAXD], axis[i % MAXD], lo, hi);
    else
      snprintf(err, errlen,
               "the ranks disagree on %s: %ld on some ranks, %ld on others; every rank must "
               "pass the same configuration", what[7 + i - DESC_AXES], lo, hi);
    return -1;
  }
  return 0;
}

static void free_buffers(targetHalo *h) {
  for (int i = 0; i < h->nopened; i++) targetIpcCloseHandle(h->opened[i]);
  h->nopened = 0;
  for (int d = 0; d < MAXD; d++)
    for (int s = 0; s < 2; s++)
      for (int k = 0; k < 2; k++) {
        targetFree(h->t_sites[d][s][k]);
        h->t_sites[d][s][k] = NULL;
      }
  targetFree(h->t_send);
  for (int i = 0; i < h->ntracked; i++) tdpTrackShared_(h->tracked[i], 0, 0);
  h->ntracked = 0;
  if (h->shared) { /* the window's memory: freed with it */
    MPI_Win_free(&h->win);
    h->shared = 0;
  } else {
    targetFree(h->t_recv);
  }
  if (h->node_made) MPI_Comm_free(&h->node);
  h->node_made = 0;
  targetFreeHost(h->h_send);
  targetFreeHost(h->h_recv);
  h->t_send = h->t_recv = h->h_send = h->h_recv = NULL;
}

/* IPC: everyone's receive buffer handle; map the neighbours' (not our
 * own: a periodic axis of one rank copies on the target, see is_self). */
static int open_peers(targetHalo *h) {
  targetHaloInfo *in = &h->info;
  targetIpcHandle_t mine;
  if (layer_failed(h, targetIpcGetHandle(&mine, h->t_recv), "targetIpcGetHandle")) return -1;
  targetIpcHandle_t *all = (targetIpcHandle_t *) malloc(sizeof(mine) * in->nranks);
  if (!all) {
    snprintf(h->err, sizeof(h->err), "no host memory for %d IPC handles", in->nranks);
    return -1;
  }
  MPI_Allgather(&mine, (int) sizeof(mine), MPI_BYTE, all, (int) sizeof(mine), MPI_BYTE,
                in->comm);
  int ranks[2 * MAXD];
  double *bases[2 * MAXD];
  int rc = 0;
  for (int d = 0; d < in->ndim && !rc; d++) {
    for (int s = 0; s < 2 && !rc; s++) {
      int nb = in->nbr[d][s];
      h->peer[d][s] = NULL;
      if (nb == MPI_PROC_NULL || nb == in->rank) continue; /* self: no mapping */
      double *base = NULL;
      for (int i = 0; i < h->nopened && !base; i++)
        if (ranks[i] == nb) base = bases[i];
      if (!base) {
        void *p = NULL;
        if (layer_failed(h, targetIpcOpenHandle(&p, &all[nb]), "targetIpcOpenHandle")) {
          rc = -1;
          break;
        }
        ranks[h->nopened] = nb;
        bases[h->nopened] = (double *) p;
        h->opened[h->nopened++] = p;
        base = (double *) p;
      }
      /* what we send toward side s lands in the neighbour's slot for side !s */
      h->peer_base[d][s] = base;
      h->peer[d][s] = base + h->off[d][!s];
    }
  }
  free(all);
  return rc;
}

static uint32_t *put_flag(double *base, const targetHalo *h, int kind, int d, int s) {
  return (uint32_t *) (base + h->nbuf) + kind * 2 * MAXD + 2 * d + s;
}

/* put on the C backend: the receive buffers and their flags in an MPI
 * shared window of the node (target memory is host memory), each
 * neighbour's part found with MPI_Win_shared_query; every part tracked as
 * a peer's mapping, so that the layer's checks take it as target memory.
 * Collective over the node. */
static int share_recv(targetHalo *h, size_t bytes) {
  targetHaloInfo *in = &h->info;
  MPI_Comm_split_type(in->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &h->node);
  h->node_made = 1;
  double *mine = NULL;
  if (MPI_Win_allocate_shared((MPI_Aint) bytes, (int) sizeof(double), MPI_INFO_NULL, h->node,
                              &mine, &h->win) != MPI_SUCCESS) {
    snprintf(h->err, sizeof(h->err), "MPI_Win_allocate_shared of %zu bytes failed", bytes);
    return -1;
  }
  h->shared = 1;
  memset(mine, 0, bytes);
  h->t_recv = mine;
  tdpTrackShared_(mine, bytes, 1);
  h->tracked[h->ntracked++] = mine;
  MPI_Group gcart, gnode;
  MPI_Comm_group(in->comm, &gcart);
  MPI_Comm_group(h->node, &gnode);
  int rc = 0;
  for (int d = 0; d < in->ndim && !rc; d++) {
    for (int s = 0; s < 2 && !rc; s++) {
      h->peer[d][s] = h->peer_base[d][s] = NULL;
      if (in->nbr[d][s] == MPI_PROC_NULL || in->nbr[d][s] == in->rank) continue;
      int r = MPI_UNDEFINED;
      MPI_Group_translate_ranks(gcart, 1, &in->nbr[d][s], gnode, &r);
      MPI_Aint size = 0;
      int disp = 0;
      double *base = NULL;
      if (r == MPI_UNDEFINED || MPI_Win_shared_query(h->win, r, &size, &disp, &base) != MPI_SUCCESS ||
          !base || (size_t) size < bytes) {
        snprintf(h->err, sizeof(h->err), "the shared window of neighbour rank %d is not mapped",
                 in->nbr[d][s]);
        rc = -1;
        break;
      }
      int seen = 0;
      for (int i = 0; i < h->ntracked; i++) seen = seen || h->tracked[i] == (void *) base;
      if (!seen) {
        tdpTrackShared_(base, bytes, 1);
        h->tracked[h->ntracked++] = base;
      }
      h->peer_base[d][s] = base;
      h->peer[d][s] = base + h->off[d][!s];
    }
  }
  MPI_Group_free(&gcart);
  MPI_Group_free(&gnode);
  return rc;
}

static int put_test(targetHalo *h, char *why, size_t len);

int targetHaloCreate(MPI_Comm comm, const targetHaloConfig *cfg, targetHalo **hp, char *err,
                     size_t errlen) {
  static const char axis[] = "xyzt";
  if (hp) *hp = NULL;
  int nranks = 1, failed = 0;
  MPI_Comm_size(comm, &nranks);
  targetHalo *h = (targetHalo *) calloc(1, sizeof(targetHalo));
  targetHaloTransport_t want = TARGET_HALO_AUTO;
  int oversub = 0;
  if (!cfg || !hp || !h) {
    snprintf(err, errlen, "%s", h ? "NULL configuration or result pointer" : "no host memory");
    failed = 1;
  } else {
    failed = check_config(cfg, nranks, &h->info, &want, &oversub, err, errlen) != 0;
  }
  if (any_failed(comm, failed, err, errlen)) {
    free(h);
    return -1;
  }
  if (agree(comm, cfg, h->info.dims, want, err, errlen)) { /* the same on every rank */
    free(h);
    return -1;
  }
  targetHaloInfo *in = &h->info;
  int periodic[MAXD];
  for (int d = 0; d < in->ndim; d++) periodic[d] = cfg->periodic[d] ? 1 : 0;
  MPI_Cart_create(comm, in->ndim, in->dims, periodic, 0, &in->comm);
  MPI_Comm_rank(in->comm, &in->rank);
  MPI_Comm_size(in->comm, &in->nranks);
  MPI_Cart_coords(in->comm, in->rank, in->ndim, in->coords);
  for (int d = 0; d < in->ndim; d++) {
    in->offset[d] = in->coords[d] * in->local[d];
    MPI_Cart_shift(in->comm, d, 1, &in->nbr[d][0], &in->nbr[d][1]);
  }

  /* The node: how many ranks share it, and are all our neighbours on it? */
  MPI_Comm node;
  MPI_Comm_split_type(in->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  MPI_Group gcart, gnode;
  MPI_Comm_group(in->comm, &gcart);
  MPI_Comm_group(node, &gnode);
  int on_node = 1;
  for (int d = 0; d < in->ndim; d++) {
    for (int s = 0; s < 2; s++) {
      if (in->nbr[d][s] == MPI_PROC_NULL) continue;
      int r = MPI_UNDEFINED;
      MPI_Group_translate_ranks(gcart, 1, &in->nbr[d][s], gnode, &r);
      if (r == MPI_UNDEFINED) on_node = 0;
    }
  }
  MPI_Group_free(&gcart);
  MPI_Group_free(&gnode);
  MPI_Comm_free(&node);

  int ndev = targetDeviceCount();
  if (ndev > 0 && node_size > ndev && !oversub) {
    snprintf(err, errlen,
             "%d MPI ranks on this node but %d GPU%s: ranks would share a GPU; run at most %d "
             "ranks per node, or allow it (targetHaloConfig.allow_oversubscribe or "
             "TARGETDP_OVERSUBSCRIBE=1)",
             node_size, ndev, ndev == 1 ? "" : "s", ndev);
    failed = 1;
  }
  /* Availability must be agreed: every rank takes the same transport. */
  int host_target = targetDeviceId() < 0; /* C backend: target memory is host memory */
  /* put: every neighbour on the node, and IPC with the stream flags on a
   * GPU (on the C backend a shared window stands in for IPC) */
  int avail[3] = {host_target || mpi_cuda_aware(), targetIpcAvailable() && on_node,
                  on_node && (host_target || (targetIpcAvailable() && targetStreamFlagsAvailable()))};
  int agreed[3];
  MPI_Allreduce(avail, agreed, 3, MPI_INT, MPI_MIN, in->comm);
  /* nccl: the device communicator's messages queued on the stream, no
   * host wait between the phases (targetDP_devcomm). Auto takes it where
   * NCCL runs (a GPU per rank); on the C backend, forced, MPI stands in
   * for NCCL (the tests of this transport's code). One rank: nothing to
   * send, whatever the transport. */
  int nccl_ok = in->nranks == 1;
  char nccl_why[220] = "not asked for";
  if (in->nranks > 1 && (want == TARGET_HALO_NCCL || (want == TARGET_HALO_AUTO && !host_target))) {
    if (any_failed(in->comm, failed, err, errlen)) { /* the set-up below is collective */
      MPI_Comm_free(&in->comm);
      free(h);
      return -1;
    }
    char e[320];
    if (targetDevCommCreate(in->comm, &h->dc, e, sizeof(e))) {
      snprintf(err, errlen, "%s", e);
      MPI_Comm_free(&in->comm);
      free(h);
      return -1;
    }
    nccl_ok = targetDevCommPath(h->dc) == TARGET_DEVCOMM_NCCL ||
              (host_target && targetDevCommCanMessage(h->dc));
    snprintf(nccl_why, sizeof(nccl_why), "%s", targetDevCommDescribe(h->dc));
  }
  targetHaloTransport_t t = want;
  if (t == TARGET_HALO_AUTO)
    t = nccl_ok && !host_target ? TARGET_HALO_NCCL
        : agreed[0]             ? TARGET_HALO_DIRECT
        : agreed[1]             ? TARGET_HALO_IPC
                                : TARGET_HALO_STAGED;
  if (!failed && t == TARGET_HALO_NCCL && !nccl_ok) {
    snprintf(err, errlen,
             "halo transport 'nccl' (TARGETDP_HALO=nccl or targetHaloConfig.transport) is not "
             "available: device communicator %s; use TARGETDP_HALO=auto",
             nccl_why);
    failed = 1;
  }
  if (!failed && t == TARGET_HALO_DIRECT && !agreed[0]) {
    snprintf(err, errlen,
             "halo transport 'direct' (TARGETDP_HALO=direct or targetHaloConfig.transport) "
             "needs CUDA-aware MPI, and MPIX_Query_cuda_support() says no on %s rank; use "
             "TARGETDP_HALO=auto",
             avail[0] ? "another" : "this");
    failed = 1;
  }
  if (!failed && t == TARGET_HALO_PUT && !agreed[2]) {
    snprintf(err, errlen,
             "halo transport 'put' (TARGETDP_HALO=put or targetHaloConfig.transport) is not "
             "available: %s; use TARGETDP_HALO=auto",
             !on_node ? "some neighbour ranks are on another node"
                      : "the stream flags (cuStreamWriteValue32 / cuStreamWaitValue32) or CUDA IPC "
                        "are missing on some rank");
    failed = 1;
  }
  if (!failed && t == TARGET_HALO_IPC && !agreed[1]) {
    snprintf(err, errlen,
             "halo transport 'ipc' (TARGETDP_HALO=ipc or targetHaloConfig.transport) is not "
             "available: %s; use TARGETDP_HALO=auto",
             !targetIpcAvailable() ? "CUDA IPC needs the CUDA backend"
                                   : "some neighbour ranks are on another node");
    failed = 1;
  }
  if (any_failed(in->comm, failed, err, errlen)) {
    targetDevCommFree(h->dc);
    MPI_Comm_free(&in->comm);
    free(h);
    return -1;
  }
  if (t != TARGET_HALO_NCCL && h->dc) { /* not used */
    targetDevCommFree(h->dc);
    h->dc = NULL;
  }
  in->transport = t;

  /* Site lists: the same lengths on every rank (checked by agree: a
   * neighbour receives what we send, and IPC writes at our offsets into
   * its buffer). */
  if (cfg->sites) {
    const targetHaloSites *l = cfg->sites;
    h->lists = 1;
    h->esize = l->elem_size ? l->elem_size : sizeof(double);
    h->nall = l->nall;
  } else {
    h->esize = sizeof(double);
  }

  /* Buffers: every face of every axis, at the same offsets on every rank;
   * sizes in doubles (a face of floats rounded up to whole doubles, so
   * every transport moves it as MPI_DOUBLE bits). */
  h->nbuf = 0;
  for (int d = 0; d < in->ndim; d++) {
    h->nface[d] = in->nhalo;
    for (int e = 0; e < in->ndim; e++)
      if (e != d) h->nface[d] *= in->extents[e];
    if (h->lists) h->nface[d] = cfg->sites->n[d][0];
    /* a face of floats is rounded up to whole doubles: every transport
     * moves it as MPI_DOUBLE bits */
    h->nface_doubles[d] =
        cfg->pack ? (size_t) cfg->face_doubles[d]
                  : ((size_t) h->nface[d] * in->ncomp * h->esize + sizeof(double) - 1) /
                        sizeof(double);
    if (h->nface_doubles[d] > INT_MAX && !failed) { /* MPI counts are int */
      snprintf(err, errlen,
               "a face along %c holds %zu doubles, more than one MPI message can (%d): use "
               "more ranks along the other axes",
               axis[d], h->nface_doubles[d], INT_MAX);
      failed = 1;
    }
    for (int s = 0; s < 2; s++) {
      h->off[d][s] = h->nbuf;
      h->nbuf += h->nface_doubles[d];
      if (in->nbr[d][s] != MPI_PROC_NULL && in->nbr[d][s] != in->rank)
        in->bytes_per_exchange += h->nface_doubles[d] * sizeof(double);
    }
  }
  h->local = 1;
  for (int d = 0; d < in->ndim; d++)
    for (int s = 0; s < 2; s++)
      h->local = h->local && (in->nbr[d][s] == MPI_PROC_NULL || in->nbr[d][s] == in->rank);
  h->pack = cfg->pack;
  h->unpack = cfg->unpack;
  h->self_copy = cfg->self_copy;
  h->ctx = cfg->ctx;
  if (h->nbuf == 0) h->nbuf = 1; /* all faces empty: keep the buffers real */
  int rc = failed ? TARGET_ERROR_INVALID_VALUE : TARGET_SUCCESS;
  for (int d = 0; h->lists && d < in->ndim && rc == TARGET_SUCCESS; d++) {
    for (int s = 0; s < 2 && rc == TARGET_SUCCESS; s++) {
      for (int k = 0; k < 2 && rc == TARGET_SUCCESS; k++) {
        const long *list = k ? cfg->sites->recv[d][s] : cfg->sites->send[d][s];
        const size_t nb = (size_t) (h->nface[d] ? h->nface[d] : 1) * sizeof(long);
        rc = targetMalloc(&h->t_sites[d][s][k], nb);
        if (rc == TARGET_SUCCESS && h->nface[d])
          rc = copyToTarget(h->t_sites[d][s][k], list, h->nface[d] * sizeof(long));
      }
    }
  }
  if (rc == TARGET_SUCCESS) rc = targetMalloc(&h->t_send, h->nbuf * sizeof(double));
  const int put = t == TARGET_HALO_PUT && !h->local;
  const size_t recv_bytes = (h->nbuf + (put ? PUT_FLAG_DOUBLES : 0)) * sizeof(double);
  if (put && host_target) { /* collective over the node: every rank takes part */
    if (share_recv(h, recv_bytes)) failed = 1;
  } else if (rc == TARGET_SUCCESS) {
    rc = targetMalloc(&h->t_recv, recv_bytes);
    if (rc == TARGET_SUCCESS && put) rc = targetZero(h->t_recv, recv_bytes / sizeof(double));
    if (rc == TARGET_SUCCESS && put) rc = targetSynchronize(); /* zero before any peer writes */
  }
  /* nccl: one exchange of the buffers, checked, before any field's (it
   * also connects the neighbours, whose first message is slow); a failure
   * under auto falls back to the host-driven transports, and says so */
  char nccl_fail[240] = "";
  int ready = !failed && rc == TARGET_SUCCESS, all_ready = 0;
  if (t == TARGET_HALO_NCCL && !h->local)
    MPI_Allreduce(&ready, &all_ready, 1, MPI_INT, MPI_MIN, in->comm);
  if (all_ready && t == TARGET_HALO_NCCL && !h->local) {
    int ok = nccl_test(h, nccl_fail, sizeof(nccl_fail));
    if (!agree_why(in->comm, in->rank, in->nranks, ok, nccl_fail, sizeof(nccl_fail))) {
      targetDevCommFree(h->dc);
      h->dc = NULL;
      if (want == TARGET_HALO_NCCL) {
        snprintf(h->err, sizeof(h->err), "halo transport 'nccl' failed its test exchange: %s",
                 nccl_fail);
        failed = 1;
      } else {
        t = agreed[0] ? TARGET_HALO_DIRECT : agreed[1] ? TARGET_HALO_IPC : TARGET_HALO_STAGED;
        in->transport = t;
        if (in->rank == 0)
          fprintf(stderr, "targetDP_halo: warning: transport nccl failed its test exchange (%s): "
                          "transport %s instead\n", nccl_fail, targetHaloTransportName(t));
      }
    }
  }
  if (rc == TARGET_SUCCESS && t == TARGET_HALO_STAGED) {
    rc = targetMallocHost(&h->h_send, h->nbuf * sizeof(double));
    if (rc == TARGET_SUCCESS) rc = targetMallocHost(&h->h_recv, h->nbuf * sizeof(double));
  }
  if (!failed) failed = layer_failed(h, rc, "allocating halo buffers");
  if (!failed && (t == TARGET_HALO_IPC || (put && !host_target))) failed = open_peers(h) != 0;
  /* put: one exchange of the buffers through the flags, checked, before
   * any field's (every rank takes part: the flags count exchanges) */
  char put_fail[240] = "";
  if (put && !any_failed(in->comm, failed, err, errlen)) {
    int ok = put_test(h, put_fail, sizeof(put_fail));
    if (!agree_why(in->comm, in->rank, in->nranks, ok, put_fail, sizeof(put_fail))) {
      snprintf(h->err, sizeof(h->err), "halo transport 'put' failed its test exchange: %s",
               put_fail);
      failed = 1;
    }
  }
  if (failed && h->err[0]) snprintf(err, errlen, "%s", h->err);
  if (any_failed(in->comm, failed, err, errlen)) {
    free_buffers(h);
    targetDevCommFree(h->dc);
    MPI_Comm_free(&in->comm);
    free(h);
    return -1;
  }
  in->device_ordered = h->local || t == TARGET_HALO_NCCL || t == TARGET_HALO_PUT;
  if (in->rank == 0 && (cfg->verbose || !getenv("TARGETDP_QUIET"))) {
    char dims[64] = "", loc[96] = "";
    for (int d = 0; d < in->ndim; d++) {
      size_t a = strlen(dims), b = strlen(loc);
      snprintf(dims + a, sizeof(dims) - a, "%s%d", d ? "x" : "", in->dims[d]);
      snprintf(loc + b, sizeof(loc) - b, "%s%ld", d ? "x" : "", in->local[d]);
    }
    fprintf(stderr,
            "targetDP_halo: %d ranks as %s (%c..%c), sub-domain %s, halo %d, %d components, "
            "transport %s (%s; CUDA-aware MPI: %s, IPC between all neighbours: %s, "
            "device communicator: %s%s%s)\n",
            in->nranks, dims, axis[0], axis[in->ndim - 1], loc, in->nhalo, in->ncomp,
            targetHaloTransportName(t), want == TARGET_HALO_AUTO ? "auto" : "forced",
            agreed[0] && !host_target ? "yes" : (host_target ? "n/a, host memory" : "no"),
            agreed[1] ? "yes" : "no", nccl_why, nccl_fail[0] ? ", failed its test: " : "",
            nccl_fail);
  }
  *hp = (targetHalo *) tdpHandleNew_(h, TDP_HANDLE_HALO_);
  if (!*hp) { /* no memory for the handle table: as a failed allocation */
    fprintf(stderr, "targetDP_halo: rank %d: no host memory for a halo handle\n", in->rank);
    MPI_Abort(in->comm, 1);
  }
  return 0;
}

void tdpHaloFree(targetHalo *handle, const char *f, int l) {
  if (!handle) return; /* like free(NULL) */
  targetHalo *h = live(handle, "targetHaloFree", f, l);
  if (!h) return;
  tdpHandleDrop_(handle, TDP_HANDLE_HALO_);
  /* put: a neighbour's last flag may still be queued on its stream for
   * our buffer: every rank's work done before any buffer goes */
  if (h->info.transport == TARGET_HALO_PUT && !h->local && h->info.comm != MPI_COMM_NULL) {
    targetSynchronize();
    MPI_Barrier(h->info.comm);
  }
  free_buffers(h);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 4 * MAXD + 1; i++)
      if (h->evs[k].ev[i]) targetEventDestroy(h->evs[k].ev[i]);
  targetDevCommFree(h->dc);
  if (h->info.comm != MPI_COMM_NULL) MPI_Comm_free(&h->info.comm);
  free(h);
}

/* ---------------------------------------------------------------------- */
/* The exchange. */

static double *slot(double *buf, const targetHalo *h, int d, int s) { return buf + h->off[d][s]; }

static int count(const targetHalo *h, int d) { return (int) h->nface_doubles[d]; }

void tdpHaloGetTimes(const targetHalo *handle, targetHaloTimes *t, const char *f, int l) {
  if (!t) return;
  memset(t, 0, sizeof(*t));
  const targetHalo *h = handle ? live(handle, "targetHaloGetTimes", f, l) : NULL;
  if (h) *t = h->times;
}
void tdpHaloResetTimes(targetHalo *handle, const char *f, int l) {
  targetHalo *h = handle ? live(handle, "targetHaloResetTimes", f, l) : NULL;
  if (h) memset(&h->times, 0, sizeof(h->times));
}

/* Site lists: component c of the k-th listed site at buf[c n + k] (as
 * the boxes), values of either storage type; one site per lane. */
TDP_KERNEL static void kHaloList(void *field, void *buf, const long *sites, long n, long nall,
                                 int ncomp, int esize, int unpack) {
  (void) nall; /* not every layout's TDP_INDEX reads the site count */
  TDP_TLP_NOSTRIDE(k, n) {
    const long site = sites[k];
    for (int c = 0; c < ncomp; c++) {
      const size_t fi = TDP_INDEX(nall, ncomp, site, c), bi = (size_t) c * n + k;
      if (esize == (int) sizeof(double)) {
        double *f = (double *) field, *b = (double *) buf;
        if (unpack) f[fi] = b[bi];
        else b[bi] = f[fi];
      } else {
        float *f = (float *) field, *b = (float *) buf;
        if (unpack) f[fi] = b[bi];
        else b[bi] = f[fi];
      }
    }
  }
}

/* Every face of the site lists in one launch (the queued exchanges):
 * face i holds the items end[i-1] .. end[i]-1, in its own buffer. On a
 * GPU whose SMs an interior sweep fills, each kernel of the halo stream
 * waits for a block of the sweep to retire before it starts (stream
 * priority acts only between blocks): one pack and one unpack kernel an
 * exchange instead of one per face. */
typedef struct {
  void *buf[2 * MAXD];
  const long *sites[2 * MAXD];
  long end[2 * MAXD];
  int n;
} haloFaces_;

TDP_KERNEL static void kHaloLists(void *field, haloFaces_ f, long ntotal, long nall, int ncomp,
                                  int esize, int unpack) {
  (void) nall; /* not every layout's TDP_INDEX reads the site count */
  TDP_TLP_NOSTRIDE(k, ntotal) {
    int i = 0;
    while (i + 1 < f.n && k >= f.end[i]) i++;
    const long k0 = i ? f.end[i - 1] : 0, n = f.end[i] - k0, j = k - k0;
    const long site = f.sites[i][j];
    for (int c = 0; c < ncomp; c++) {
      const size_t fi = TDP_INDEX(nall, ncomp, site, c), bi = (size_t) c * n + j;
      if (esize == (int) sizeof(double)) {
        double *fd = (double *) field, *b = (double *) f.buf[i];
        if (unpack) fd[fi] = b[bi];
        else b[bi] = fd[fi];
      } else {
        float *fd = (float *) field, *b = (float *) f.buf[i];
        if (unpack) fd[fi] = b[bi];
        else b[bi] = fd[fi];
      }
    }
  }
}

/* A periodic axis held by this rank alone: its faces are unpacked
 * straight from the send buffer on the target, no copy, no MPI, whatever
 * the transport. */
static int is_self(const targetHalo *h, int d, int s) { return h->info.nbr[d][s] == h->info.rank; }

/* Where face (d, s) is packed to or unpacked from. A face from this rank
 * itself is unpacked from where it was packed, the face sent towards the
 * other side: no copy between the buffers. put: a face for another rank
 * is packed straight into its slot there. */
static double *face_buf(const targetHalo *h, int d, int s, int unpack) {
  return !unpack ? (h->info.transport == TARGET_HALO_PUT && remote(h, d, s)
                        ? h->peer[d][s] /* the neighbour's slot: no copy, no message */
                        : slot(h->t_send, h, d, s))
         : is_self(h, d, s) ? slot(h->t_send, h, d, !s)
                            : slot(h->t_recv, h, d, s);
}

/* Pack (unpack) every face of the site lists, one launch. */
static int pack_lists(targetHalo *h, int unpack) {
  haloFaces_ f;
  memset(&f, 0, sizeof(f));
  long total = 0;
  for (int d = 0; d < h->info.ndim; d++)
    for (int s = 0; s < 2; s++) {
      if (h->info.nbr[d][s] == MPI_PROC_NULL || h->nface[d] == 0) continue;
      f.buf[f.n] = face_buf(h, d, s, unpack);
      f.sites[f.n] = h->t_sites[d][s][unpack];
      total += h->nface[d];
      f.end[f.n++] = total;
    }
  if (total == 0) return 0;
  TDP_LAUNCH_STREAM(kHaloLists, total, h->stream, h->field, f, total, h->nall, h->info.ncomp,
                    (int) h->esize, unpack);
  return layer_failed(h, targetLastError(), unpack ? "unpacking the faces" : "packing the faces")
             ? -1
             : 0;
}

/* Pack (unpack) one face: the caller's site lists or function, or the box
 * of the build's layout. */
static int pack_face(targetHalo *h, int d, int s, int unpack) {
  targetHaloInfo *in = &h->info;
  double *buf = face_buf(h, d, s, unpack);
  if (h->lists) {
    if (h->nface[d] == 0) return 0;
    TDP_LAUNCH_STREAM(kHaloList, h->nface[d], h->stream, h->field, buf, h->t_sites[d][s][unpack],
                      h->nface[d], h->nall, in->ncomp, (int) h->esize, unpack);
    return layer_failed(h, targetLastError(), unpack ? "unpacking a face" : "packing a face")
               ? -1
               : 0;
  }
  if (h->pack) {
    int rc = unpack ? h->unpack(h->ctx, d, s, h->field, buf, h->stream)
                    : h->pack(h->ctx, d, s, buf, h->field, h->stream);
    if (rc) {
      snprintf(h->err, sizeof(h->err), "the caller's %s of face %d of axis %d failed (%d)%s%s",
               unpack ? "unpack" : "pack", s, d, rc, targetLastError() ? ": " : "",
               targetLastError() ? targetLastErrorString() : "");
      return -1;
    }
    return 0;
  }
  long lo[MAXD], hi[MAXD];
  targetFaceBox(in->ndim, in->extents, in->nhalo, d, s,
                unpack ? TARGET_FACE_HALO : TARGET_FACE_EDGE, lo, hi);
  int rc = unpack ? targetUnpackBox(h->field, buf, in->ndim, in->extents, lo, hi, in->ncomp,
                                    h->stream)
                  : targetPackBox(buf, h->field, in->ndim, in->extents, lo, hi, in->ncomp,
                                  h->stream);
  return layer_failed(h, rc, unpack ? "unpacking a face" : "packing a face") ? -1 : 0;
}


/* A periodic axis this rank holds alone, with the caller's self_copy: its
 * faces are copied edge to halo in place (no buffer), queued in stream
 * order after the axes before it, with no host synchronisation. On 2
 * H200s lb's 2x1x1 split spent 0.18 ms a step packing and unpacking its
 * two self-held axes, with a host synchronisation after each phase. */
static int self_axis(const targetHalo *h, int d) {
  return h->self_copy && is_self(h, d, 0) && is_self(h, d, 1);
}

static int self_copy_axis(targetHalo *h, int d) {
  for (int s = 0; s < 2; s++) {
    if (h->info.nbr[d][s] == MPI_PROC_NULL) continue;
    int rc = h->self_copy(h->ctx, d, s, h->field, h->stream);
    if (rc) {
      snprintf(h->err, sizeof(h->err), "the caller's self_copy of face %d of axis %d failed (%d)%s%s",
               s, d, rc, targetLastError() ? ": " : "",
               targetLastError() ? targetLastErrorString() : "");
      return -1;
    }
  }
  return 0;
}

/* Pack the two edge faces of axis d and send them. */
static int send_axis(targetHalo *h, int d) {
  targetHaloInfo *in = &h->info;
  if (self_axis(h, d)) return 0; /* copied in recv_axis */
  double t0 = MPI_Wtime();
  for (int s = 0; s < 2; s++) {
    if (in->nbr[d][s] == MPI_PROC_NULL) continue;
    if (pack_face(h, d, s, 0)) return -1;
  }
  if (layer_failed(h, targetStreamSynchronize(h->stream), "packing the faces")) return -1;
  double t1 = MPI_Wtime();
  h->times.pack_s += t1 - t0;
  for (int s = 0; s < 2; s++) {
    if (in->nbr[d][s] == MPI_PROC_NULL) continue;
    if (is_self(h, d, s)) continue; /* unpacked from t_send (pack_face) */
    if (in->transport == TARGET_HALO_STAGED &&
        layer_failed(h, copyFromTargetAsync(slot(h->h_send, h, d, s), slot(h->t_send, h, d, s),
                                            count(h, d) * sizeof(double), h->stream),
                     "staging a face"))
      return -1;
  }
  if (in->transport == TARGET_HALO_STAGED &&
      layer_failed(h, targetStreamSynchronize(h->stream), "staging the faces"))
    return -1; /* nothing was queued since the packs' synchronisation otherwise */
  if (in->transport == TARGET_HALO_IPC) {
    MPI_Waitall(2, h->ready_r[d], MPI_STATUSES_IGNORE); /* their slots are free */
    for (int s = 0; s < 2; s++) {
      if (in->nbr[d][s] == MPI_PROC_NULL || is_self(h, d, s)) continue;
      if (layer_failed(h, copyTargetToTargetAsync(h->peer[d][s], slot(h->t_send, h, d, s),
                                                  count(h, d) * sizeof(double), h->stream),
                       "copying a face to the peer"))
        return -1;
    }
    if (layer_failed(h, targetStreamSynchronize(h->stream), "copying the faces")) return -1;
  }
  for (int s = 0; s < 2; s++) {
    int nb = in->nbr[d][s];
    if (nb == MPI_PROC_NULL || is_self(h, d, s)) {
      h->sreq[d][s] = MPI_REQUEST_NULL;
    } else if (in->transport == TARGET_HALO_IPC) {
      MPI_Isend(NULL, 0, MPI_BYTE, nb, TAG(TAG_DONE, d, !s), in->comm, &h->sreq[d][s]);
    } else {
      double *buf = in->transport == TARGET_HALO_STAGED ? h->h_send : h->t_send;
      MPI_Isend(slot(buf, h, d, s), count(h, d), MPI_DOUBLE, nb, TAG(TAG_DATA, d, !s), in->comm,
                &h->sreq[d][s]);
    }
  }
  h->times.transfer_s += MPI_Wtime() - t1;
  return 0;
}

/* Wait for the two halo faces of axis d and unpack them. */
static int recv_axis(targetHalo *h, int d) {
  targetHaloInfo *in = &h->info;
  double t0 = MPI_Wtime();
  if (self_axis(h, d)) {
    int rc = self_copy_axis(h, d);
    h->times.self_s += MPI_Wtime() - t0;
    return rc;
  }
  /* Only the faces coming in: this axis's sends are waited for at the end
   * of the exchange (send_done), as their slots are this axis's alone and
   * nothing writes them before the next exchange. Waiting for them here
   * made each axis's unpack, and so the next axis's pack, wait until the
   * neighbour had taken our faces (with a rendezvous protocol, until it
   * was itself in its wait for this axis): skew between ranks added up
   * axis by axis. Measured (lb, lbhalo 2 ranks 2x1x1, 64^3 each, the
   * 2-core dev box shared with other work): the exchange's median 8.7 ->
   * 3.8 ms over 3 rounds, but single rounds ranged 0.8-20 ms, noise larger
   * than the change; the 16-core host has the number that counts
   * (docs/lb.md, "Host halo cost"). */
  MPI_Waitall(2, h->rreq[d], MPI_STATUSES_IGNORE);
  if (in->transport == TARGET_HALO_STAGED) {
    for (int s = 0; s < 2; s++) {
      if (in->nbr[d][s] == MPI_PROC_NULL || is_self(h, d, s)) continue;
      if (layer_failed(h, copyToTargetAsync(slot(h->t_recv, h, d, s), slot(h->h_recv, h, d, s),
                                            count(h, d) * sizeof(double), h->stream),
                       "staging a face"))
        return -1;
    }
    if (layer_failed(h, targetStreamSynchronize(h->stream), "staging the faces")) return -1;
  }
  double t1 = MPI_Wtime();
  h->times.transfer_s += t1 - t0;
  for (int s = 0; s < 2; s++) {
    if (in->nbr[d][s] == MPI_PROC_NULL) continue;
    if (pack_face(h, d, s, 1)) return -1;
  }
  /* synchronised here (not only at the end) so that the time is the unpack's */
  if (layer_failed(h, targetStreamSynchronize(h->stream), "unpacking the faces")) return -1;
  h->times.unpack_s += MPI_Wtime() - t1;
  return 0;
}

/* Every axis's sends, once every face is in (recv_axis); a self-held or
 * closed side's request is MPI_REQUEST_NULL. Counted as transfer time.
 * After an error the exchange returns without waiting for them (as for
 * the faces of the axes after it): the neighbours may be gone. */
static void send_done(targetHalo *h) {
  double t0 = MPI_Wtime();
  for (int d = 0; d < h->info.ndim; d++) MPI_Waitall(2, h->sreq[d], MPI_STATUSES_IGNORE);
  h->times.transfer_s += MPI_Wtime() - t0;
}

/* Every neighbour this rank itself (or none): the whole exchange is
 * kernels on one stream, packs and unpacks axis after axis (stream order
 * keeps the forwarding of edges and corners), with no host
 * synchronisation in between; Wait synchronises once. Pausing the device
 * between phases to time them would cost more than the kernels. */
static int exchange_local(targetHalo *h) {
  const int nd = h->info.ndim;
  for (int d = 0; h->self_copy && d < nd; d++)
    if (self_copy_axis(h, d)) return -1;
  if (h->self_copy) return 0;
  /* site lists forward nothing: every face packed before any unpack, as
   * the exchange between ranks does */
  for (int step = 0; step < 2 * nd; step++) {
    const int d = h->lists ? step % nd : step / 2;
    const int unpack = h->lists ? step >= nd : step % 2;
    for (int s = 0; s < 2; s++)
      if (h->info.nbr[d][s] != MPI_PROC_NULL && pack_face(h, d, s, unpack)) return -1;
  }
  return 0;
}

static int halo_start(targetHalo *h, double *t_field, targetStream_t stream) {
  if (!t_field) {
    snprintf(h->err, sizeof(h->err), "targetHaloStart: NULL field");
    return -1;
  }
  if (h->started) {
    snprintf(h->err, sizeof(h->err), "targetHaloStart: the previous exchange was not waited for");
    return -1;
  }
  targetHaloInfo *in = &h->info;
  h->field = t_field;
  h->stream = stream;
  h->started = 1;
  if (h->local) {
    double t0 = MPI_Wtime();
    int rc = exchange_local(h);
    h->t_start = MPI_Wtime() - t0;
    return rc;
  }
  if (in->transport == TARGET_HALO_NCCL || in->transport == TARGET_HALO_PUT)
    return exchange_nccl(h, 0); /* Wait synchronises */
  for (int d = 0; d < in->ndim; d++) {
    for (int s = 0; s < 2; s++) {
      int nb = in->nbr[d][s];
      h->rreq[d][s] = h->sreq[d][s] = h->ready_r[d][s] = h->ready_s[d][s] = MPI_REQUEST_NULL;
      if (nb == MPI_PROC_NULL || is_self(h, d, s)) continue;
      if (in->transport == TARGET_HALO_IPC) {
        /* done: the neighbour has written our slot s; ready: our slot s is
         * free (the last exchange ended synchronised), and theirs */
        MPI_Irecv(NULL, 0, MPI_BYTE, nb, TAG(TAG_DONE, d, s), in->comm, &h->rreq[d][s]);
        MPI_Irecv(NULL, 0, MPI_BYTE, nb, TAG(TAG_READY, d, !s), in->comm, &h->ready_r[d][s]);
        MPI_Isend(NULL, 0, MPI_BYTE, nb, TAG(TAG_READY, d, s), in->comm, &h->ready_s[d][s]);
      } else {
        double *buf = in->transport == TARGET_HALO_STAGED ? h->h_recv : h->t_recv;
        MPI_Irecv(slot(buf, h, d, s), count(h, d), MPI_DOUBLE, nb, TAG(TAG_DATA, d, s),
                  in->comm, &h->rreq[d][s]);
      }
    }
  }
  if (!h->lists) return send_axis(h, 0);
  for (int d = 0; d < in->ndim; d++) /* no forwarding: every axis now */
    if (send_axis(h, d)) return -1;
  return 0;
}

static int halo_wait(targetHalo *h) {
  if (!h->started) {
    snprintf(h->err, sizeof(h->err), "targetHaloWait: no exchange was started");
    return -1;
  }
  h->started = 0;
  targetHaloInfo *in = &h->info;
  if (h->local) {
    double t0 = MPI_Wtime();
    int rc = layer_failed(h, targetStreamSynchronize(h->stream), "copying the periodic faces");
    h->times.self_s += h->t_start + (MPI_Wtime() - t0);
    h->times.exchanges++;
    return rc ? -1 : 0;
  }
  if (in->transport == TARGET_HALO_NCCL || in->transport == TARGET_HALO_PUT) {
    h->times.exchanges++;
    return layer_failed(h, targetStreamSynchronize(h->stream), "the queued exchange") ? -1 : 0;
  }
  for (int d = 0; d < in->ndim; d++) {
    if (recv_axis(h, d)) return -1;
    if (!h->lists && d + 1 < in->ndim && send_axis(h, d + 1)) return -1;
  }
  send_done(h);
  for (int d = 0; d < in->ndim; d++) MPI_Waitall(2, h->ready_s[d], MPI_STATUSES_IGNORE);
  h->times.exchanges++;
  return layer_failed(h, targetStreamSynchronize(h->stream), "unpacking the faces") ? -1 : 0;
}

static int halo_exchange(targetHalo *h, double *t_field, targetStream_t stream) {
  if (!h->local && (h->info.transport == TARGET_HALO_NCCL || h->info.transport == TARGET_HALO_PUT))
    return exchange_queued(h, t_field, stream, 1); /* each phase timed */
  int rc = halo_start(h, t_field, stream);
  return rc ? rc : halo_wait(h);
}

/* The calls on a handle: the object if it is live (else the layer's
 * error, and -1), then the work. */
int tdpHaloStart(targetHalo *handle, double *t_field, targetStream_t stream, const char *f,
                 int l) {
  targetHalo *h = live(handle, "targetHaloStart", f, l);
  return h ? halo_start(h, t_field, stream) : -1;
}

int tdpHaloStartSites(targetHalo *handle, void *t_field, targetStream_t stream, const char *f,
                      int l) {
  targetHalo *h = live(handle, "targetHaloStartSites", f, l);
  return h ? halo_start(h, (double *) t_field, stream) : -1;
}

int tdpHaloWait(targetHalo *handle, const char *f, int l) {
  targetHalo *h = live(handle, "targetHaloWait", f, l);
  return h ? halo_wait(h) : -1;
}

int tdpHaloExchange(targetHalo *handle, double *t_field, targetStream_t stream, const char *f,
                    int l) {
  targetHalo *h = live(handle, "targetHaloExchange", f, l);
  return h ? halo_exchange(h, t_field, stream) : -1;
}

/* ---------------------------------------------------------------------- */
/* The nccl transport and the queued exchange (issue 29). Every phase is
 * queued on the stream: packs, the device communicator's messages (NCCL's
 * kernels, or MPI standing in on the C backend), unpacks, axis after axis
 * for box faces (stream order keeps the forwarding of edges and corners),
 * all axes at once for site lists. Nothing waits on the host: on two
 * GPUs the host-driven IPC exchange of lb's 2x1x1 split waited 0.38 ms a
 * step for faces that moved in 0.08 ms (issue 29), as each phase was
 * synchronised before the next could be queued. */

enum { PH_PACK = 0, PH_TRANSFER, PH_UNPACK, PH_SELF };
static const char *const ph_name[] = {"packing the faces", "sending the faces",
                                      "unpacking the faces", "copying the periodic faces"};

static int remote(const targetHalo *h, int d, int s) {
  const int nb = h->info.nbr[d][s];
  return nb != MPI_PROC_NULL && nb != h->info.rank;
}

static double *ph_acc(targetHaloTimes *t, int kind) {
  return kind == PH_PACK ? &t->pack_s : kind == PH_TRANSFER ? &t->transfer_s
                                     : kind == PH_UNPACK    ? &t->unpack_s
                                                            : &t->self_s;
}

/* targetHaloTimeEvents: the events of an exchange are read when their set
 * is used again, two exchanges later (complete by then in a step that
 * queues one exchange each), or at targetHaloGetEventTimes. */
static void ev_harvest(targetHalo *h, int k) {
  if (!h->evs[k].pending) return;
  for (int i = 0; i < h->evs[k].n; i++) {
    double sec = 0.0;
    if (targetEventElapsed(&sec, h->evs[k].ev[i], h->evs[k].ev[i + 1]) == TARGET_SUCCESS)
      *ph_acc(&h->ev_times, h->evs[k].kind[i]) += sec;
  }
  h->ev_times.exchanges++;
  h->evs[k].pending = 0;
}

static int ev_begin(targetHalo *h) {
  if (!h->ev_on) return 0;
  h->ev_cur = !h->ev_cur;
  ev_harvest(h, h->ev_cur);
  h->evs[h->ev_cur].n = 0;
  return layer_failed(h, targetEventRecord(h->evs[h->ev_cur].ev[0], h->stream), "timing the exchange")
             ? -1
             : 0;
}

static void ev_end(targetHalo *h) {
  if (h->ev_on) h->evs[h->ev_cur].pending = 1;
}

/* The end of a phase of kind: synchronised and timed on the host (timed),
 * or an event recorded after it (targetHaloTimeEvents), or nothing. */
static int phase(targetHalo *h, int kind, int timed, double *t0) {
  if (timed) {
    if (layer_failed(h, targetStreamSynchronize(h->stream), ph_name[kind])) return -1;
    const double t1 = MPI_Wtime();
    *ph_acc(&h->times, kind) += t1 - *t0;
    *t0 = t1;
  }
  if (h->ev_on && h->evs[h->ev_cur].n < 4 * MAXD) {
    const int n = h->evs[h->ev_cur].n;
    if (layer_failed(h, targetEventRecord(h->evs[h->ev_cur].ev[n + 1], h->stream), "timing the exchange"))
      return -1;
    h->evs[h->ev_cur].kind[n] = kind;
    h->evs[h->ev_cur].n = n + 1;
  }
  return 0;
}

/* The messages of axes d0 .. d1-1, one group. Face s goes to the
 * neighbour on side s and lands in its slot !s; the receives are queued
 * so that two faces between the same two ranks (an axis of two ranks,
 * periodic) match in order: NCCL pairs the k-th send of a rank to another
 * with the k-th receive there. */
static int nccl_axes(targetHalo *h, int d0, int d1) {
  targetHaloInfo *in = &h->info;
  if (targetDevCommGroupStart(h->dc)) {
    snprintf(h->err, sizeof(h->err), "the nccl transport: %s", targetDevCommError(h->dc));
    return -1;
  }
  int rc = 0;
  for (int d = d0; d < d1 && !rc; d++) {
    const size_t bytes = (size_t) count(h, d) * sizeof(double);
    if (bytes == 0) continue;
    for (int s = 0; s < 2 && !rc; s++)
      if (remote(h, d, s))
        rc = targetDevCommSend(h->dc, slot(h->t_send, h, d, s), bytes, in->nbr[d][s], h->stream);
    for (int s = 0; s < 2 && !rc; s++)
      if (remote(h, d, !s))
        rc = targetDevCommRecv(h->dc, slot(h->t_recv, h, d, !s), bytes, in->nbr[d][!s], h->stream);
  }
  char first[320] = ""; /* the first error stands; the group is closed all the same */
  if (rc) snprintf(first, sizeof(first), "%s", targetDevCommError(h->dc));
  const int rc2 = targetDevCommGroupEnd(h->dc);
  if (rc || rc2) {
    snprintf(h->err, sizeof(h->err), "the nccl transport: %.290s", rc ? first : targetDevCommError(h->dc));
    return -1;
  }
  return 0;
}

/* put: one stream-ordered flag operation of a face, or all faces of axes
 * d0 .. d1-1: FLAG_FREE waited for (the neighbour has unpacked the last
 * exchange from the slot we write), FLAG_READY written into the
 * neighbour's words (our face of exchange seq is in its slot), FLAG_READY
 * waited for (the neighbour's face is in our slot), FLAG_FREE written
 * into the neighbour's words (its slot here may be written again). What
 * we send toward side s is the neighbour's side !s. */
enum { PUT_WAIT_FREE, PUT_SIGNAL_READY, PUT_WAIT_READY, PUT_SIGNAL_FREE };
static int put_flags(targetHalo *h, int d0, int d1, int op) {
  static const char *what[] = {"waiting for the neighbour's slot", "signalling the face sent",
                               "waiting for the neighbour's face", "signalling the slot free"};
  for (int d = d0; d < d1; d++)
    for (int s = 0; s < 2; s++) {
      if (!remote(h, d, s) || count(h, d) == 0) continue;
      int rc = 0;
      switch (op) {
      case PUT_WAIT_FREE:
        rc = targetStreamWaitFlag(put_flag(h->t_recv, h, FLAG_FREE, d, s), h->seq - 1, h->stream);
        break;
      case PUT_SIGNAL_READY:
        rc = targetStreamWriteFlag(put_flag(h->peer_base[d][s], h, FLAG_READY, d, !s), h->seq,
                                   h->stream);
        break;
      case PUT_WAIT_READY:
        rc = targetStreamWaitFlag(put_flag(h->t_recv, h, FLAG_READY, d, s), h->seq, h->stream);
        break;
      default:
        rc = targetStreamWriteFlag(put_flag(h->peer_base[d][s], h, FLAG_FREE, d, !s), h->seq,
                                   h->stream);
      }
      if (layer_failed(h, rc, what[op])) return -1;
    }
  return 0;
}

/* The queued exchange of nccl and put. put: the packs write into the
 * neighbours' slots once they are free, and the flags say the faces are
 * in; the transfer is the wait for the neighbours' faces. */
static int exchange_nccl(targetHalo *h, int timed) {
  const int nd = h->info.ndim, step = h->lists ? nd : 1; /* site lists forward nothing */
  const int put = h->info.transport == TARGET_HALO_PUT;
  double t0 = MPI_Wtime();
  if (ev_begin(h)) return -1;
  if (put) h->seq++;
  for (int d0 = 0; d0 < nd; d0 += step) {
    const int d1 = d0 + step;
    if (step == 1 && self_axis(h, d0)) {
      if (self_copy_axis(h, d0) || phase(h, PH_SELF, timed, &t0)) return -1;
      continue;
    }
    if (put && put_flags(h, d0, d1, PUT_WAIT_FREE)) return -1;
    if (h->lists ? pack_lists(h, 0) : 0) return -1;
    for (int d = d0; d < d1 && !h->lists; d++)
      for (int s = 0; s < 2; s++)
        if (h->info.nbr[d][s] != MPI_PROC_NULL && pack_face(h, d, s, 0)) return -1;
    if (put && put_flags(h, d0, d1, PUT_SIGNAL_READY)) return -1;
    if (phase(h, PH_PACK, timed, &t0) ||
        (put ? put_flags(h, d0, d1, PUT_WAIT_READY) : nccl_axes(h, d0, d1)) ||
        phase(h, PH_TRANSFER, timed, &t0))
      return -1;
    if (h->lists ? pack_lists(h, 1) : 0) return -1;
    for (int d = d0; d < d1 && !h->lists; d++)
      for (int s = 0; s < 2; s++)
        if (h->info.nbr[d][s] != MPI_PROC_NULL && pack_face(h, d, s, 1)) return -1;
    if (put && put_flags(h, d0, d1, PUT_SIGNAL_FREE)) return -1;
    if (phase(h, PH_UNPACK, timed, &t0)) return -1;
  }
  ev_end(h);
  return 0;
}

static int start_checks(targetHalo *h, const void *t_field, const char *call) {
  if (!t_field) {
    snprintf(h->err, sizeof(h->err), "%s: NULL field", call);
    return -1;
  }
  if (h->started) {
    snprintf(h->err, sizeof(h->err), "%s: the exchange started by targetHaloStart was not waited for", call);
    return -1;
  }
  return 0;
}

/* nccl: timed (targetHaloExchange: each phase synchronised and timed, the
 * halo in place on return) or queued (targetHaloExchangeAsync). */
static int exchange_queued(targetHalo *h, void *t_field, targetStream_t stream, int timed) {
  if (start_checks(h, t_field, timed ? "targetHaloExchange" : "targetHaloExchangeAsync")) return -1;
  h->field = (double *) t_field;
  h->stream = stream;
  if (exchange_nccl(h, timed)) return -1;
  if (timed) h->times.exchanges++;
  return 0;
}

int tdpHaloExchangeAsync(targetHalo *handle, void *t_field, targetStream_t stream, const char *f,
                         int l) {
  targetHalo *h = live(handle, "targetHaloExchangeAsync", f, l);
  if (!h) return -1;
  if (h->local) { /* kernels only: queued, no synchronisation */
    if (start_checks(h, t_field, "targetHaloExchangeAsync")) return -1;
    h->field = (double *) t_field;
    h->stream = stream;
    double t0 = MPI_Wtime();
    if (ev_begin(h) || exchange_local(h) || phase(h, PH_SELF, 0, &t0)) return -1;
    ev_end(h);
    return 0;
  }
  if (h->info.transport == TARGET_HALO_NCCL || h->info.transport == TARGET_HALO_PUT)
    return exchange_queued(h, t_field, stream, 0);
  return halo_exchange(h, (double *) t_field, stream); /* the host drives it */
}

int tdpHaloSelfFill(targetHalo *handle, void *t_field, targetStream_t stream, const char *f,
                    int l) {
  targetHalo *h = live(handle, "targetHaloSelfFill", f, l);
  if (!h) return -1;
  if (start_checks(h, t_field, "targetHaloSelfFill")) return -1;
  if (h->lists) return 0; /* site lists forward nothing: no face needs another's */
  h->field = (double *) t_field;
  h->stream = stream;
  for (int d = 0; d < h->info.ndim; d++) {
    if (!is_self(h, d, 0) || !is_self(h, d, 1)) continue;
    if (!h->self_copy) {
      snprintf(h->err, sizeof(h->err),
               "targetHaloSelfFill: axis %d is held by this rank alone and has no "
               "targetHaloConfig.self_copy to fill it in place",
               d);
      return -1;
    }
    if (self_copy_axis(h, d)) return -1;
  }
  return 0;
}

int tdpHaloTimeEvents(targetHalo *handle, int on, const char *f, int l) {
  targetHalo *h = live(handle, "targetHaloTimeEvents", f, l);
  if (!h) return -1;
  for (int k = 0; on && k < 2; k++)
    for (int i = 0; i < 4 * MAXD + 1; i++)
      if (!h->evs[k].ev[i] && layer_failed(h, targetEventCreateTimed(&h->evs[k].ev[i]), "targetHaloTimeEvents"))
        return -1;
  if (!on) {
    ev_harvest(h, 0);
    ev_harvest(h, 1);
  }
  h->ev_on = on != 0;
  return 0;
}

void tdpHaloGetEventTimes(targetHalo *handle, targetHaloTimes *t, const char *f, int l) {
  if (!t) return;
  memset(t, 0, sizeof(*t));
  targetHalo *h = handle ? live(handle, "targetHaloGetEventTimes", f, l) : NULL;
  if (!h) return;
  ev_harvest(h, 0);
  ev_harvest(h, 1);
  *t = h->ev_times;
}

/* A test exchange's faces: each remote face of t_send holds its sender's
 * rank, axis and side (16 rank + 2 axis + side); zero_recv: t_recv's
 * remote faces zeroed too (not under put, where the neighbours write
 * them). 0 or the first failing call's error. */
static int test_faces_fill(targetHalo *h, int zero_recv) {
  const targetHaloInfo *in = &h->info;
  int rc = 0;
  for (int d = 0; d < in->ndim && !rc; d++)
    for (int s = 0; s < 2 && !rc; s++)
      if (remote(h, d, s) && count(h, d) > 0)
        rc = targetSetConstant(slot(h->t_send, h, d, s), 16.0 * in->rank + 2 * d + s, (size_t) count(h, d)) ||
             (zero_recv && targetZero(slot(h->t_recv, h, d, s), (size_t) count(h, d)));
  return rc;
}

/* After a test exchange in which every remote face of t_send held its
 * sender's rank, axis and side (16 rank + 2 axis + side): 1 if each face
 * of t_recv holds its neighbour's, else 0 and the first wrong face in why. */
static int test_faces_arrived(targetHalo *h, char *why, size_t len) {
  const targetHaloInfo *in = &h->info;
  static const char axis[] = "xyzt";
  for (int d = 0; d < in->ndim; d++)
    for (int s = 0; s < 2; s++) {
      const int n = count(h, d);
      if (!remote(h, d, s) || n == 0) continue;
      double v[2] = {0.0, 0.0};
      const double want = 16.0 * in->nbr[d][s] + 2 * d + !s;
      if (copyFromTarget(&v[0], slot(h->t_recv, h, d, s), sizeof(double)) ||
          copyFromTarget(&v[1], slot(h->t_recv, h, d, s) + n - 1, sizeof(double))) {
        snprintf(why, len, "rank %d: %s", in->rank, targetLastErrorString());
        return 0;
      }
      if (v[0] != want || v[1] != want) {
        snprintf(why, len, "rank %d: the face along %c on side %d holds %g ... %g, not %g (from rank %d)",
                 in->rank, axis[d], s, v[0], v[1], want, in->nbr[d][s]);
        return 0;
      }
    }
  return 1;
}

/* The test exchange of a new nccl halo: every remote face of t_send holds
 * its sender's rank, axis and side; each must arrive in the right slot. */
static int nccl_test(targetHalo *h, char *why, size_t len) {
  targetHaloInfo *in = &h->info;
  int rc = test_faces_fill(h, 1);
  h->stream = TARGET_STREAM_DEFAULT;
  if (rc || targetSynchronize()) {
    snprintf(why, len, "rank %d: %s", in->rank, targetLastErrorString());
    return 0;
  }
  if (nccl_axes(h, 0, in->ndim) || targetSynchronize()) {
    snprintf(why, len, "rank %d: %.200s", in->rank, h->err[0] ? h->err : targetLastErrorString());
    return 0;
  }
  return test_faces_arrived(h, why, len);
}

/* The test exchange of a new put halo, through the flags as every
 * exchange: each remote face of t_send holds its sender's rank, axis and
 * side, copied into the neighbour's slot; each must arrive in the right
 * slot of ours. It is exchange 1 of the flags' sequence. */
static int put_test(targetHalo *h, char *why, size_t len) {
  targetHaloInfo *in = &h->info;
  int rc = test_faces_fill(h, 0);
  h->stream = TARGET_STREAM_DEFAULT;
  h->seq++;
  if (rc || targetSynchronize() || put_flags(h, 0, in->ndim, PUT_WAIT_FREE)) {
    snprintf(why, len, "rank %d: %.200s", in->rank, h->err[0] ? h->err : targetLastErrorString());
    return 0;
  }
  for (int d = 0; d < in->ndim && !rc; d++)
    for (int s = 0; s < 2 && !rc; s++)
      if (remote(h, d, s) && count(h, d) > 0)
        rc = copyTargetToTargetAsync(h->peer[d][s], slot(h->t_send, h, d, s),
                                     (size_t) count(h, d) * sizeof(double), h->stream);
  if (rc || put_flags(h, 0, in->ndim, PUT_SIGNAL_READY) || put_flags(h, 0, in->ndim, PUT_WAIT_READY) ||
      targetSynchronize()) {
    snprintf(why, len, "rank %d: %.200s", in->rank, h->err[0] ? h->err : targetLastErrorString());
    return 0;
  }
  int ok = test_faces_arrived(h, why, len);
  /* the slots are free again whatever was found: the neighbours are not
   * left waiting at the next exchange */
  if (put_flags(h, 0, in->ndim, PUT_SIGNAL_FREE) || targetSynchronize()) {
    if (ok) snprintf(why, len, "rank %d: %.200s", in->rank, h->err[0] ? h->err : targetLastErrorString());
    return 0;
  }
  return ok;
}
