/* The solver's kernels, written once in targetDP: the staggered operator
 * between parities (gather + SU(3) x vector), and the level-1 operations
 * of CG with their reductions fused in. Reductions end in a global sum
 * over the ranks (MPI_Allreduce). Each call is timed and its flops and
 * bytes (the minimum a kernel must move) counted by kind. */
#ifndef MILC_KERNELS_H
#define MILC_KERNELS_H

#include <mpi.h>

#include "lattice.h"
#include "targetDP_devcomm.h"

/* Where a CG iteration's time goes (issue 29): the kernels of D and of the
 * vector updates (target clock), the halo exchange as the host saw it
 * (its calls' time: waiting, where the host drives it) and as the target
 * ran it (EXCH: on the halo stream, beside D's interior sweep), the global
 * sums combined on the target (REDUCE: the device communicator), and the
 * host waiting for the target (WAIT: a sum read, its MPI_Allreduce; --cg
 * ahead: the event of the iteration before). */
typedef enum {
  MILC_K_DSLASH = 0,
  MILC_K_BLAS,
  MILC_K_HALO,
  MILC_K_EXCH,
  MILC_K_REDUCE,
  MILC_K_WAIT,
  MILC_K_NKIND
} milcKernelKind;

typedef struct {
  double seconds[MILC_K_NKIND], flops[MILC_K_NKIND], bytes[MILC_K_NKIND];
  long calls[MILC_K_NKIND];
} milcCounters;

/* How the kernels are timed (docs/milc.md, Performance):
 * MILC_TIME_EVENTS (default): events on the target's clock around each
 *   kernel, no host synchronisation but the reductions' own; the sums go
 *   to a ring of zeroed slots (one zeroing launch per MILC_SUM_SLOTS
 *   reductions) through pinned memory; D walks the parity without a site
 *   list when every site is interior;
 * MILC_TIME_SYNC: as before (main at 033dec7): the target synchronised
 *   before each D and after every kernel, the host clock read around it, the
 *   sum zeroed before each reduction, the interior site list read. */
typedef enum { MILC_TIME_EVENTS = 0, MILC_TIME_SYNC = 1 } milcTiming;

#define MILC_SUM_SLOTS 256 /* reduction results per zeroing */
#define MILC_NEV 64        /* kernels timed before their events are read */

typedef struct {
  const milcLattice *L;
  MPI_Comm comm;
  milcTiming timing;
  /* The reductions are exact (tdpExactSum): a sum is the same bits for any
   * decomposition, so the iterations and solution are too (issue 25). */
  tdpExactSum *t_sum; /* MILC_SUM_SLOTS sums of target scratch for the reductions */
  tdpExactSum *h_sum; /* two pinned sums: a reduction's result (or two read together) */
  int slot;         /* the slot of the next reduction (zeroed) */
  targetStream_t interior; /* the interior sweep of D, beside the halo's stream */
  /* MILC_TIME_EVENTS: start and stop of each kernel not yet read, its kind */
  targetEvent_t ev[MILC_NEV][2];
  int ev_kind[MILC_NEV], nev;
  int ndone; /* the first ndone of them are complete (a reduction's copy followed them) */
  long nrec, nread; /* kernels timed so far, and read */
  int open;         /* timed intervals started and not yet ended (D around its exchange) */
  double t0; /* MILC_TIME_SYNC: host clock at the start of the kernel */
  milcCounters cnt; /* this rank's */
  /* Global sums on the target (issue 29): the device communicator, and
   * whether sums may stay there (one rank; NCCL; the C backend, whose
   * MPI runs on the target memory itself), else they go through the host */
  targetDevComm *dc;
  int nranks;
  int devsums;
} milcOps;

void milcOpsCreate(milcOps *o, const milcLattice *L, MPI_Comm comm);
/* milcOpsCreate with a timing (MILC_TIME_EVENTS is milcOpsCreate's). */
void milcOpsCreateTimed(milcOps *o, const milcLattice *L, MPI_Comm comm, milcTiming timing);
/* Add the times of the kernels queued so far to o->cnt (waits for them). */
void milcOpsFlush(milcOps *o);
/* The kernels timed so far (a mark), and: those before the mark are
 * complete (the caller waited for an event after them), so their times
 * are read at the next launch without waiting. */
long milcOpsMark(const milcOps *o);
void milcOpsDone(milcOps *o, long mark);
void milcOpsFree(milcOps *o);

/* Sum n exact sums at t_sum over the ranks, in place, queued on the default
 * stream (the device communicator: NCCL, or MPI; nothing on one rank),
 * timed as MILC_K_REDUCE. A failure stops the run with the reason. */
void milcDeviceSum(milcOps *o, tdpExactSum *t_sum, int n);
/* "device (nccl 2.28.9)", "one rank", or "host MPI (why)": how this
 * solver's global sums are combined, for the log. */
const char *milcSumPath(const milcOps *o, char *buf, size_t len);

/* The kernels' host calls, for double fields (names as below) and for
 * float fields (the same names + _f): kernels_api.h, included once per
 * storage type. */
#define MILC_EACH_REAL_FILE "kernels_api.h"
#include "each_real.h"

/* Flops and minimal memory traffic per output site (for the report).
 * Flops as MILC counts them: 8 SU(3) x vector (66) + 7 vector sums (6).
 * Bytes: what a sweep over one parity must move at least: the 8 links
 * that touch the site (4 its own, 4 of its backward neighbours: over the
 * sweep every link of the lattice once), the source once (each source
 * site is read by 8 output sites, which a cache or the halo of a thread
 * block can share) and the result once. Counting the source 8 times
 * would report bandwidth that was never drawn from memory. */
/* The D kernels: TDP_KERNEL, or with a minimum of MILC_DSLASH_MINBLOCKS
 * blocks per multiprocessor (make MILC_MINBLOCKS=n: registers capped at
 * 64K / (n TPB); 0, the default, leaves the compiler free). */
#if defined(MILC_DSLASH_MINBLOCKS) && MILC_DSLASH_MINBLOCKS > 0
#define MILC_DSLASH_KERNEL TDP_KERNEL_OCC(MILC_DSLASH_MINBLOCKS)
#else
#define MILC_DSLASH_KERNEL TDP_KERNEL
#endif

/* make MILC_RESTRICT=0: the D kernels' pointers without restrict (as
 * before; with it, 1 the default, the compiler may read the links and
 * vectors through the read-only path: dst differs from U, src and w in
 * every call). make MILC_LINKS_ONCE=1: the links read by TDP_LOAD_ONCE
 * (evict first: each link is read once per sweep, the source vector 8
 * times, and the links' stream should not push the source out of L2):
 * the default since it was measured (H100, 2026-11-24, perf_variants.sh:
 * D 89.4-90.5 -> 93.6-94.3% of triad at 32^4, 89.6 -> 94.5% at 48^4; CG
 * 83.8-86.7 -> 88.0-89.5% and 88.7-89.0 -> 93.0-93.8%); 0: plain loads. */
#ifndef MILC_RESTRICT_ON
#define MILC_RESTRICT_ON 1
#endif
#if MILC_RESTRICT_ON
#define MILC_RESTRICT TDP_RESTRICT
#else
#define MILC_RESTRICT
#endif
#ifndef MILC_LINKS_ONCE_ON
#define MILC_LINKS_ONCE_ON 1
#endif
#if MILC_LINKS_ONCE_ON
#define MILC_LINK_LOAD(p) TDP_LOAD_ONCE(p)
#else
#define MILC_LINK_LOAD(p) (*(p))
#endif

/* kDslashAxpby ends in a block sum but is a stencil: launched with a
 * block per TPB sites (TDP_LAUNCH_STREAM), so that its blocks sweep the
 * lattice in order, as kDslash's do, and the source's neighbours stay
 * close (in L2); one atomic per block, ~10^4 per sweep at 48^4, spread
 * over the sweep. make MILC_CAPPED_REDUCE=1: the capped grid of
 * TDP_LAUNCH_REDUCE_STREAM as before (two fills of the GPU, each block
 * striding over the lattice: from 2112 blocks on an H100 at TPB 256, i.e.
 * lattices above 32^4; apps/lb lost 20% that way, docs/api.md). */
#if defined(MILC_CAPPED_REDUCE_ON) && MILC_CAPPED_REDUCE_ON
#define MILC_DSLASH_REDUCE_STREAM TDP_LAUNCH_REDUCE_STREAM
#else
#define MILC_DSLASH_REDUCE_STREAM TDP_LAUNCH_STREAM
#endif

#define MILC_DSLASH_FLOPS 570.0
#define MILC_DSLASH_DOUBLES (8.0 * MILC_NM + 2.0 * MILC_NV) /* values: x sizeof(real) */

#endif
