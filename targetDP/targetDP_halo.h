/*
 * targetDP_halo.h -- halo exchange of fields on a Cartesian MPI
 * decomposition of a 3-D or 4-D lattice, any halo depth, any number of
 * components, written on the public targetDP API (pack/unpack kernels,
 * streams, asynchronous copies, IPC handles) as an app would be. Built
 * into $(BUILD)/libtargetDP_halo.a when MPI is found. docs/halo.md.
 *
 * A step that hides the exchange behind the interior update:
 *
 *   targetHaloStart(h, t_f, halo_stream);        receives posted, x faces sent
 *   TDP_LAUNCH_STREAM(kInterior, ..., interior_stream, ...);
 *   targetHaloWait(h);                           other axes, unpack: halo filled
 *   TDP_LAUNCH_STREAM(kBoundary, ..., halo_stream, ...);
 */
#ifndef TARGETDP_HALO_H
#define TARGETDP_HALO_H

#include <mpi.h>
#include <stddef.h>

#include "targetDP.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TARGET_HALO_MAXDIM 4

/* How faces travel between ranks. */
typedef enum {
  TARGET_HALO_AUTO = 0, /* the best available, chosen at targetHaloCreate */
  TARGET_HALO_STAGED,   /* through pinned host buffers, copies queued on the stream */
  TARGET_HALO_DIRECT,   /* target buffers straight to MPI: CUDA-aware MPI, or the C backend */
  TARGET_HALO_IPC,      /* CUDA IPC: peer copies between GPUs of one node, MPI for signals */
  TARGET_HALO_NCCL,     /* the device communicator (NCCL): every phase queued on the stream */
  TARGET_HALO_PUT       /* one node: the pack writes into the neighbour's buffer (CUDA IPC; an
                         * MPI shared window on the C backend), stream-ordered flags signal
                         * data in and buffer free (targetStreamWriteFlag): every phase queued
                         * on the stream, no copy, no message, no host wait */
} targetHaloTransport_t;

/* A caller's own face packing (targetHaloConfig.pack / .unpack): queue on
 * stream the packing of the edge face of t_field leaving through side
 * (0: low, 1: high) of axis dim into t_buf, or the unpacking of t_buf into
 * the halo face on side; face_doubles[dim] doubles. Return 0, or nonzero
 * (the exchange then fails with a message naming the face). */
typedef int (*targetHaloFaceFn)(void *ctx, int dim, int side, double *t_dst,
                                const double *t_src, targetStream_t stream);

/* Optional beside pack/unpack (targetHaloConfig.self_copy): a periodic
 * axis held by this rank alone, queue on stream the fill of the halo face
 * on side !side of axis dim straight from the edge face leaving through
 * side, in t_field: bitwise what pack then unpack would give, without the
 * buffer (half the memory traffic, one kernel instead of two). Used for
 * every periodic axis this rank holds alone, also beside axes split over
 * ranks, queued in axis order with no host synchronisation (its time is
 * targetHaloTimes.self_s). Return 0, or nonzero. */
typedef int (*targetHaloSelfFn)(void *ctx, int dim, int side, double *t_field,
                                targetStream_t stream);

/* Faces as lists of sites, for fields that are not a row-major box with
 * halo (e.g. even/odd site order, or only the sites of one parity): for
 * each axis d and side s, the field sites packed and sent to the
 * neighbour on side s, and the field sites filled from what it sends.
 * The k-th entry of send[d][s] on one rank lands at the k-th entry of
 * recv[d][!s] on its neighbour, so both lists of a pair must be built in
 * the same order and be of the same length n[d][s] (checked). Host arrays,
 * copied at targetHaloCreate. No forwarding between axes: every axis is
 * sent at targetHaloStart (edges and corners are the caller's; a
 * nearest-neighbour stencil along the axes needs none). */
typedef struct {
  long nall;                                  /* sites of the field (TDP_INDEX's site count) */
  size_t elem_size;                           /* bytes per value: 0 or sizeof(double), or sizeof(float) */
  long n[TARGET_HALO_MAXDIM][2];              /* sites of face (d, side) */
  const long *send[TARGET_HALO_MAXDIM][2];    /* field sites sent to the neighbour on side s */
  const long *recv[TARGET_HALO_MAXDIM][2];    /* field sites filled from the neighbour on side s */
} targetHaloSites;

typedef struct {
  int ndim;                             /* 3 or 4 (1 and 2 work too) */
  long global[TARGET_HALO_MAXDIM];      /* global lattice, without halo */
  int dims[TARGET_HALO_MAXDIM];         /* ranks along each axis; 0: choose */
  int periodic[TARGET_HALO_MAXDIM];     /* 1: periodic axis; 0: the ends keep their halo */
  int nhalo;                            /* halo depth >= 1 */
  int ncomp;                            /* components per site */
  targetHaloTransport_t transport;      /* AUTO, or forced; TARGETDP_HALO=auto|staged|direct|ipc|nccl|put overrides */
  int allow_oversubscribe;              /* more ranks than GPUs on a node (or TARGETDP_OVERSUBSCRIBE=1) */
  int verbose;                          /* rank 0 logs the decomposition and the transport (stderr) */
  /* Optional (all zero: the module packs every component of a row-major
   * field of nsites sites with targetPackBox). A padded layout (sites in
   * front of site 0, an allocated size other than nsites), a subset of the
   * components per face (lattice Boltzmann: the 5 of 19 velocities that
   * cross it), or a layout of the caller's own: pack and unpack do the
   * faces, face_doubles[d] says how many doubles a face along d holds (the
   * same on every rank), ctx is passed back. The module keeps the rest:
   * order of axes, transports, overlap, errors. */
  targetHaloFaceFn pack, unpack;
  targetHaloSelfFn self_copy;           /* optional with pack/unpack: see targetHaloSelfFn */
  void *ctx;
  long face_doubles[TARGET_HALO_MAXDIM];
  /* Or faces as site lists (exclusive with pack/unpack): NULL for none. */
  const targetHaloSites *sites;         /* NULL: row-major box faces (above); else these lists */
} targetHaloConfig;

typedef struct targetHalo_ targetHalo;

/* Collective over comm. Checks everything first and fails on every rank
 * together (never a hang): returns 0, or -1 with a one-line reason in err.
 * The ranks must agree on the configuration: one collective check of it
 * (ndim, global extents, decomposition, periodicity, nhalo, ncomp,
 * transport, the caller's pack and face sizes, site-list lengths and
 * element size) refuses any difference on every rank with the same
 * message, naming the field ("the ranks disagree on the halo depth
 * (nhalo): 1 on some ranks, 2 on others"), where a mismatch would
 * otherwise exchange wrong values, hang, or abort inside MPI.
 * A field for it has TDP_FIELD_SIZE(targetHaloSites(h), ncomp) doubles.
 * *h is a checked handle (as streams are): every call on it after
 * targetHaloFree (or targetFinalize) is refused, as the layer's errors are
 * (file:line, exit by default), never a use of freed memory. */
int targetHaloCreate(MPI_Comm comm, const targetHaloConfig *cfg, targetHalo **h, char *err,
                     size_t errlen);
/* Collective, as targetHaloCreate (it frees the halo's communicator; with
 * the put transport it waits for every rank's queued work first, as a
 * neighbour's last flag may still be on its way into our buffer). */
void tdpHaloFree(targetHalo *h, const char *f, int l);
#define targetHaloFree(h) tdpHaloFree((h), TDP_AT_) /* NULL: nothing */

/* Exchange the halo of t_field (the local lattice with its halo, site
 * index row-major), kernels and copies on stream. Start posts the
 * receives and sends the first axis; Wait completes the other axes (one
 * after the other, so edges and corners are filled too) and returns with
 * the halo in t_field. Between them the caller may update the interior on
 * another stream. Returns 0, or -1 with targetHaloError(h) set (MPI
 * errors abort, as MPI's default handler does). */
int tdpHaloStart(targetHalo *h, double *t_field, targetStream_t stream, const char *f, int l);
int tdpHaloWait(targetHalo *h, const char *f, int l);
int tdpHaloExchange(targetHalo *h, double *t_field, targetStream_t stream, const char *f, int l);
int tdpHaloStartSites(targetHalo *h, void *t_field, targetStream_t stream, const char *f, int l);
#define targetHaloStart(h, t_field, stream) tdpHaloStart((h), (t_field), (stream), TDP_AT_)
#define targetHaloWait(h) tdpHaloWait((h), TDP_AT_)
#define targetHaloExchange(h, t_field, stream) /* both */ \
  tdpHaloExchange((h), (t_field), (stream), TDP_AT_)
/* targetHaloStart for a halo made with site lists whose values need not
 * be double (targetHaloSites.elem_size); targetHaloWait completes it. */
#define targetHaloStartSites(h, t_field, stream) \
  tdpHaloStartSites((h), (t_field), (stream), TDP_AT_)

/* Pure function (no MPI): choose dims for nranks over global[0..ndim-1].
 * request[d] > 0 fixes an axis; among the splits that divide every extent
 * the one with the least halo surface wins (the first on ties). */
int targetHaloChooseDims(int nranks, int ndim, const long global[], const int request[],
                         int dims[], char *err, size_t errlen);

/* Facts about a halo, for the caller's kernels and logs. */
typedef struct {
  MPI_Comm comm;                             /* Cartesian communicator */
  int rank, nranks;
  int ndim, nhalo, ncomp;
  int dims[TARGET_HALO_MAXDIM], coords[TARGET_HALO_MAXDIM];
  long local[TARGET_HALO_MAXDIM];            /* sub-domain without halo */
  long extents[TARGET_HALO_MAXDIM];          /* with halo: local + 2 nhalo */
  long offset[TARGET_HALO_MAXDIM];           /* global coordinate of the first interior site */
  int nbr[TARGET_HALO_MAXDIM][2];            /* neighbour ranks (MPI_PROC_NULL at an end) */
  long nsites;                               /* sites with halo */
  targetHaloTransport_t transport;           /* the one chosen */
  size_t bytes_per_exchange;                 /* sent by this rank */
  int device_ordered; /* 1: targetHaloExchangeAsync queues the exchange without a host wait
                       * (transport nccl or put, or every neighbour this rank itself) */
} targetHaloInfo;
const targetHaloInfo *tdpHaloGetInfo(const targetHalo *h, const char *f, int l);
#define targetHaloGetInfo(h) tdpHaloGetInfo((h), TDP_AT_) /* NULL for a halo not live */
const char *targetHaloTransportName(targetHaloTransport_t t);

/* Where an exchange's time goes, summed over exchanges since the last
 * reset (host wall-clock seconds, the stream synchronised at each phase's
 * end): packing kernels, transfer (staging copies, peer copies, MPI
 * waits), unpacking kernels. A halo whose every neighbour is this rank
 * itself (one rank, periodic) is one batch of pack and unpack kernels,
 * synchronised once at targetHaloWait: its time, Start's launches plus
 * Wait's synchronisation, is self_s (the other three stay 0); in an
 * exchange between ranks, self_s is the queueing of the self_copy kernels
 * of the axes this rank holds alone (they finish inside the next phase's
 * or Wait's synchronisation). Each phase
 * is wall clock: device work the caller queued on other streams and left
 * running shares the device and lengthens it (time an exchange alone to
 * learn its own cost). */
typedef struct {
  double pack_s, transfer_s, unpack_s;
  double self_s; /* axes held alone: one rank's whole exchange, or the self_copy queueing */
  long exchanges;
} targetHaloTimes;
void tdpHaloGetTimes(const targetHalo *h, targetHaloTimes *t, const char *f, int l);
void tdpHaloResetTimes(targetHalo *h, const char *f, int l);
const char *tdpHaloError(const targetHalo *h, const char *f, int l);
#define targetHaloGetTimes(h, t) tdpHaloGetTimes((h), (t), TDP_AT_)
#define targetHaloResetTimes(h) tdpHaloResetTimes((h), TDP_AT_)
/* The reason of the last failure on h ("no halo" for NULL; the layer's
 * message for a halo that is not live) */
#define targetHaloError(h) tdpHaloError((h), TDP_AT_)

/* The whole exchange queued on stream (docs/halo.md, "Queued exchange"):
 * work queued on stream after it sees the halo. Where the exchange is
 * device-ordered (targetHaloInfo.device_ordered: transport nccl or put, or a
 * rank that is its own every neighbour) it returns once queued, with no
 * host wait; the other transports are driven by the host, and it returns
 * with the exchange done (targetHaloExchange). t_field: double *, or
 * float * for site lists of floats. */
int tdpHaloExchangeAsync(targetHalo *h, void *t_field, targetStream_t stream, const char *f, int l);
#define targetHaloExchangeAsync(h, t_field, stream) \
  tdpHaloExchangeAsync((h), (t_field), (stream), TDP_AT_)
/* Queue on stream the periodic copies of the axes this rank holds alone
 * (the caller's self_copy), axis after axis, now: for a caller that
 * updates the sites next to those faces before the exchange completes
 * (lb's interior sweep). The exchange still does them again, after the
 * axes before them (edges); the values are the same bits. A rank with no
 * such axis: nothing; site lists: nothing (nothing is forwarded); such an
 * axis without self_copy: -1. */
int tdpHaloSelfFill(targetHalo *h, void *t_field, targetStream_t stream, const char *f, int l);
#define targetHaloSelfFill(h, t_field, stream) tdpHaloSelfFill((h), (t_field), (stream), TDP_AT_)
/* Time each phase of the device-ordered exchanges (targetHaloExchangeAsync)
 * with events on their stream, no host synchronisation: pack, transfer,
 * unpack, self, each the device's time from the end of the phase before
 * (waits for the kernels queued before it on the stream included), summed
 * since on; exchanges counts them. Read them with targetHaloGetEventTimes,
 * which waits for the exchanges still in flight. */
int tdpHaloTimeEvents(targetHalo *h, int on, const char *f, int l);
void tdpHaloGetEventTimes(targetHalo *h, targetHaloTimes *t, const char *f, int l);
#define targetHaloTimeEvents(h, on) tdpHaloTimeEvents((h), (on), TDP_AT_)
#define targetHaloGetEventTimes(h, t) tdpHaloGetEventTimes((h), (t), TDP_AT_)

#ifdef __cplusplus
}
#endif
#endif
