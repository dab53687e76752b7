/* Kernels of the solver (kernels.h). Compiled as C (OpenMP) or as CUDA. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/timer.h"
#include "kernels.h"
#include "targetDP_exact_mpi.h"
#include "su3.h"

void milcOpsCreateTimed(milcOps *o, const milcLattice *L, MPI_Comm comm, milcTiming timing) {
  o->L = L;
  o->comm = comm;
  o->timing = timing;
  targetMalloc(&o->t_sum, MILC_SUM_SLOTS * sizeof(tdpExactSum));
  targetExactZero(o->t_sum, MILC_SUM_SLOTS);
  targetMallocHost(&o->h_sum, 2 * sizeof(tdpExactSum));
  o->slot = 0;
  targetStreamCreate(&o->interior);
  o->nev = o->ndone = 0;
  o->nrec = o->nread = 0;
  for (int i = 0; i < MILC_NEV; i++) {
    targetEventCreateTimed(&o->ev[i][0]);
    targetEventCreateTimed(&o->ev[i][1]);
  }
  o->t0 = 0.0;
  o->open = 0;
  for (int k = 0; k < MILC_K_NKIND; k++) {
    o->cnt.seconds[k] = o->cnt.flops[k] = o->cnt.bytes[k] = 0.0;
    o->cnt.calls[k] = 0;
  }
  /* Collective. Shared with the halo's (a congruent communicator): one
   * NCCL communicator for the exchanges and the sums. */
  MPI_Comm_size(comm, &o->nranks);
  char err[400];
  o->dc = NULL;
  if (targetDevCommCreate(comm, &o->dc, err, sizeof(err))) {
    fprintf(stderr, "milc: error: device communicator: %s\n", err);
    MPI_Abort(comm, 1);
  }
  o->devsums = o->nranks == 1 || targetDevCommPath(o->dc) == TARGET_DEVCOMM_NCCL ||
               targetDeviceId() < 0;
}

const char *milcSumPath(const milcOps *o, char *buf, size_t len) {
  if (o->nranks == 1) snprintf(buf, len, "one rank");
  else if (o->devsums)
    snprintf(buf, len, "device (%s)", targetDevCommDescribe(o->dc));
  else
    snprintf(buf, len, "host MPI (device communicator %s)", targetDevCommDescribe(o->dc));
  return buf;
}

void milcOpsCreate(milcOps *o, const milcLattice *L, MPI_Comm comm) {
  milcOpsCreateTimed(o, L, comm, MILC_TIME_EVENTS);
}

/* Add the times of the first n pending kernels (waits for them), and
 * keep the rest pending. */
static void read_events(milcOps *o, int n) {
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    targetEventElapsed(&s, o->ev[i][0], o->ev[i][1]);
    if (o->ev_kind[i] < MILC_K_NKIND) o->cnt.seconds[o->ev_kind[i]] += s; /* never an open one */
  }
  for (int i = n; i < o->nev; i++) { /* the events are handles: swap, not copy */
    targetEvent_t a = o->ev[i - n][0], b = o->ev[i - n][1];
    o->ev[i - n][0] = o->ev[i][0];
    o->ev[i - n][1] = o->ev[i][1];
    o->ev[i][0] = a;
    o->ev[i][1] = b;
    o->ev_kind[i - n] = o->ev_kind[i];
  }
  o->nev -= n;
  o->nread += n;
  o->ndone = 0;
}

long milcOpsMark(const milcOps *o) { return o->nrec; }

void milcOpsDone(milcOps *o, long mark) {
  const long n = mark - o->nread;
  o->ndone = n > 0 ? (int) n : 0;
}

void milcOpsFlush(milcOps *o) { read_events(o, o->nev); }

void milcOpsFree(milcOps *o) {
  milcOpsFlush(o);
  targetDevCommFree(o->dc);
  o->dc = NULL;
  targetFree(o->t_sum);
  o->t_sum = NULL;
  targetFreeHost(o->h_sum);
  o->h_sum = NULL;
  targetStreamDestroy(o->interior);
  o->interior = NULL;
  for (int i = 0; i < MILC_NEV; i++) {
    targetEventDestroy(o->ev[i][0]);
    targetEventDestroy(o->ev[i][1]);
  }
}

/* Staggered phase eta_mu(x) = (-1)^(x_0 + ... + x_{mu-1}), global x. */
TDP_HOST_DEVICE static inline double milcEta(const milcGeom *g, const int x[4], int mu) {
  int s = 0;
  for (int d = 0; d < mu; d++) s += g->offset[d] + x[d];
  return (s & 1) ? -1.0 : 1.0;
}

/* ---------------------------------------------------------------- host */

/* Timing of one kernel (or the launches of one D sweep) of kind k: start
 * before its first launch on stream s0, account after its last on stream
 * s1. MILC_TIME_EVENTS records an event on each (read later: milcOpsFlush,
 * and for free after each reduction's copy, when they are complete);
 * MILC_TIME_SYNC reads the host clock, after synchronising the target
 * first where the code before did (sync_first: D), and after the kernel. */
/* Returns the interval's slot; room: the slots the caller will have open
 * at once (D: 2, itself and its exchange), so that none is read (or
 * moved) while open. */
static int time_start_room(milcOps *o, targetStream_t s0, int sync_first, int room) {
  if (o->timing == MILC_TIME_SYNC) {
    if (sync_first) targetSynchronize();
    o->t0 = timerNow();
    return -1;
  }
  if (o->nev + room > MILC_NEV) milcOpsFlush(o);
  const int k = o->nev++;
  o->ev_kind[k] = MILC_K_NKIND; /* open */
  o->open++;
  targetEventRecord(o->ev[k][0], s0);
  return k;
}
static int time_start(milcOps *o, targetStream_t s0, int sync_first) {
  return time_start_room(o, s0, sync_first, 1);
}

static void account_at(milcOps *o, int slot, milcKernelKind k, targetStream_t s1,
                       double flops_site, double bytes_site) {
  if (o->timing == MILC_TIME_SYNC) {
    targetSynchronize();
    o->cnt.seconds[k] += timerNow() - o->t0;
  } else {
    targetEventRecord(o->ev[slot][1], s1);
    o->ev_kind[slot] = k;
    o->open--;
    o->nrec++;
    /* The kernels before the last reduction's copy are complete: read
     * their times now, while the target has this one to run, not while
     * it waits for the host to launch the next. */
    if (o->ndone && !o->open) read_events(o, o->ndone);
  }
  o->cnt.flops[k] += flops_site * o->L->g.nhalf;
  o->cnt.bytes[k] += bytes_site * o->L->g.nhalf;
  o->cnt.calls[k]++;
}

/* The target scratch of the next reduction, zeroed: MILC_TIME_SYNC zeroes
 * its one double before each; otherwise the next slot of a ring zeroed
 * whole once it is used up. */
static tdpExactSum *sum_slot(milcOps *o) {
  if (o->timing == MILC_TIME_SYNC) {
    targetExactZero(o->t_sum, 1);
    return o->t_sum;
  }
  if (o->slot == MILC_SUM_SLOTS) {
    targetExactZero(o->t_sum, MILC_SUM_SLOTS);
    o->slot = 0;
  }
  return o->t_sum + o->slot;
}

/* The halo of parity p of a vector field (esize bytes per value), queued
 * on the halo stream (milcHaloQueue: with the nccl transport the host does
 * not wait; the others return with the halo done): the host's time in it
 * counted as halo, the target's (events on the halo stream) as exch;
 * nothing on a lattice without halo. */
static void halo_fill(milcOps *o, void *t_f, int p, size_t esize) {
  if (!o->L->halo) return;
  const int tx = o->timing == MILC_TIME_SYNC ? -1 : time_start(o, o->L->halos->stream, 0);
  const double t1 = timerNow();
  milcHaloQueue(o->L, t_f, MILC_NV, p, esize);
  o->cnt.seconds[MILC_K_HALO] += timerNow() - t1;
  o->cnt.calls[MILC_K_HALO]++;
  if (tx >= 0) account_at(o, tx, MILC_K_EXCH, o->L->halos->stream, 0.0, 0.0);
}

/* The exact sums' 64-bit digits added over the ranks (integer addition:
 * exact in any order, the same bits on every rank and any split; the
 * contributions' count is summed with them and a read-out of 2^31 or more
 * is NaN, so digits that could have overflowed never pass for a sum). */
void milcDeviceSum(milcOps *o, tdpExactSum *t_sum, int n) {
  if (o->nranks == 1) return; /* the kernels' sum is the global one */
  const int ts = time_start(o, TARGET_STREAM_DEFAULT, 0);
  if (targetDevCommAllreduceSum(o->dc, t_sum, (long) n * TDP_EXACT_WORDS, TDP_TYPE_LONG,
                                TARGET_STREAM_DEFAULT)) {
    fprintf(stderr, "milc: error: global sum on the device: %s\n", targetDevCommError(o->dc));
    MPI_Abort(o->comm, 1);
  }
  account_at(o, ts, MILC_K_REDUCE, TARGET_STREAM_DEFAULT, 0.0, 0.0);
}

/* n slots in a row from here on, for sums read together. */
static void sum_reserve(milcOps *o, int n) {
  if (o->timing != MILC_TIME_SYNC && o->slot + n > MILC_SUM_SLOTS) {
    targetExactZero(o->t_sum, MILC_SUM_SLOTS);
    o->slot = 0;
  }
}

/* n sums in adjacent slots from t_first (the last the one just queued),
 * each summed over the ranks exactly (one MPI_Allreduce of their digits;
 * summed: already on the target, milcDeviceSum), read with one copy; the
 * host's wait timed as wait. */
static void global_sums(milcOps *o, const tdpExactSum *t_first, int n, double *total, int summed) {
  const double t0 = timerNow();
  copyFromTargetAsync(o->h_sum, t_first, n * sizeof(tdpExactSum), TARGET_STREAM_DEFAULT);
  targetStreamSynchronize(TARGET_STREAM_DEFAULT);
  o->slot++;
  o->ndone = o->nev;
  if (summed)
    for (int i = 0; i < n; i++) total[i] = tdpExactSumValue(&o->h_sum[i]);
  else
    targetExactAllreduce(total, o->h_sum, n, o->comm);
  o->cnt.seconds[MILC_K_WAIT] += timerNow() - t0;
  o->cnt.calls[MILC_K_WAIT]++;
}

/* The reduction just queued (into sum_slot's slot), summed over the ranks.
 * Its copy waits for every kernel queued before it, so the events of those
 * are complete: the next account() reads them without waiting, once the
 * target has work again. */
static double global_sum(milcOps *o) {
  const double t0 = timerNow();
  double total = 0.0;
  if (o->timing == MILC_TIME_SYNC) {
    copyFromTarget(o->h_sum, o->t_sum, sizeof(tdpExactSum));
  } else {
    copyFromTargetAsync(o->h_sum, o->t_sum + o->slot, sizeof(tdpExactSum), TARGET_STREAM_DEFAULT);
    targetStreamSynchronize(TARGET_STREAM_DEFAULT);
    o->slot++;
    o->ndone = o->nev;
  }
  targetExactAllreduce(&total, o->h_sum, 1, o->comm);
  o->cnt.seconds[MILC_K_WAIT] += timerNow() - t0;
  o->cnt.calls[MILC_K_WAIT]++;
  return total;
}

#define MILC_EACH_REAL_FILE "kernels_impl.h"
#include "each_real.h"
