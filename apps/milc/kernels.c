/* Kernels of the solver (kernels.h). Compiled as C (OpenMP) or as CUDA. */
#include <math.h>
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
  for (int k = 0; k < MILC_K_NKIND; k++) {
    o->cnt.seconds[k] = o->cnt.flops[k] = o->cnt.bytes[k] = 0.0;
    o->cnt.calls[k] = 0;
  }
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
    o->cnt.seconds[o->ev_kind[i]] += s;
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
static void time_start(milcOps *o, targetStream_t s0, int sync_first) {
  if (o->timing == MILC_TIME_SYNC) {
    if (sync_first) targetSynchronize();
    o->t0 = timerNow();
    return;
  }
  if (o->nev == MILC_NEV) milcOpsFlush(o);
  targetEventRecord(o->ev[o->nev][0], s0);
}

static void account(milcOps *o, milcKernelKind k, targetStream_t s1, double flops_site,
                    double bytes_site) {
  if (o->timing == MILC_TIME_SYNC) {
    targetSynchronize();
    o->cnt.seconds[k] += timerNow() - o->t0;
  } else {
    targetEventRecord(o->ev[o->nev][1], s1);
    o->ev_kind[o->nev++] = k;
    o->nrec++;
    /* The kernels before the last reduction's copy are complete: read
     * their times now, while the target has this one to run, not while
     * it waits for the host to launch the next. */
    if (o->ndone) read_events(o, o->ndone);
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

/* The halo of parity p of a vector field (esize bytes per value), timed
 * and counted as halo; nothing on a lattice without halo. */
static void halo_fill(milcOps *o, void *t_f, int p, size_t esize) {
  if (!o->L->halo) return;
  const double t1 = timerNow();
  milcHaloStart(o->L, t_f, MILC_NV, p, esize);
  milcHaloWait(o->L, t_f, MILC_NV, p, esize);
  o->cnt.seconds[MILC_K_HALO] += timerNow() - t1;
  o->cnt.calls[MILC_K_HALO]++;
}

/* n slots in a row from here on, for sums read together. */
static void sum_reserve(milcOps *o, int n) {
  if (o->timing != MILC_TIME_SYNC && o->slot + n > MILC_SUM_SLOTS) {
    targetExactZero(o->t_sum, MILC_SUM_SLOTS);
    o->slot = 0;
  }
}

/* n sums in adjacent slots from t_first (the last the one just queued),
 * each summed over the ranks exactly (one MPI_Allreduce of their digits),
 * read with one copy. */
static void global_sums(milcOps *o, const tdpExactSum *t_first, int n, double *total) {
  copyFromTargetAsync(o->h_sum, t_first, n * sizeof(tdpExactSum), TARGET_STREAM_DEFAULT);
  targetStreamSynchronize(TARGET_STREAM_DEFAULT);
  o->slot++;
  o->ndone = o->nev;
  targetExactAllreduce(total, o->h_sum, n, o->comm);
}

/* The reduction just queued (into sum_slot's slot), summed over the ranks.
 * Its copy waits for every kernel queued before it, so the events of those
 * are complete: the next account() reads them without waiting, once the
 * target has work again. */
static double global_sum(milcOps *o) {
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
  return total;
}

#define MILC_EACH_REAL_FILE "kernels_impl.h"
#include "each_real.h"
