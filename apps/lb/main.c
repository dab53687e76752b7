/* lb: a D3Q19 lattice Boltzmann fluid (BGK, Guo forcing, bounce-back
 * walls) on a 3-D MPI decomposition, with every kernel written once in
 * targetDP. docs/lb.md says how to run it and why it is built this way. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "checkpoint.h"
#include "common/decomp.h"
#include "common/fileio.h"
#include "common/timer.h"
#include "common/triad.h"
#include "diag.h"
#include "halo.h"
#include "kernels.h"
#include "lattice.h"
#include "output.h"
#include "params.h"
#include "targetDP.h"

/* Input errors: one message (rank 0), every rank leaves with status 2. */
static int fail(int rank, const char *err, int status) {
  if (rank == 0) fprintf(stderr, "lb: error: %s\n", err);
  MPI_Finalize();
  return status;
}

/* A halo exchange that fails during the run fails on one rank while the
 * others wait for its messages: abort the job rather than hang it. */
static void halo_failed(const decompInfo *dc, const char *err) {
  fprintf(stderr, "lb: error: rank %d: %s\n", dc->rank, err);
  MPI_Abort(dc->comm, 1);
}

/* Seconds summed over steps. Sequential steps (halo, then the update)
 * give halo, update, propagate, collide; overlapped steps (interior ||
 * halo, then boundary) their own step time, from which the share of the
 * halo that was hidden follows: (halo + update - overlapped step) / halo. */
typedef struct {
  double halo, update, propagate, collide;
  targetHaloTimes phases; /* the module's, over the sequential steps' exchanges only */
  double wait;            /* overlapped steps: host time in lbHaloWait, the device shared */
  long steps;     /* all */
  long seq_steps; /* sequential ones */
  double ovl;     /* overlapped steps, whole */
  long ovl_steps;
} lbTimes;

/* --breakdown: where the time of an overlapped step goes, from events on
 * the device's clock. Per step: on the halo stream H0 (start), H1 (the
 * periodic axes' self fill done), H2 (exchange and walls done), H3 (the
 * interior's end reached: the boundary may start), H4 (boundary done);
 * on the interior stream U0, U1 around the interior sweep. A ring of
 * LB_BRK sets, each read when it is used again (its step finished long
 * before) or when a block of steps ends; every time relative to the
 * block's first event, so the gap between two steps (the device idle
 * while the host queues) is H0 of a step minus H4 of the one before. */
enum { BK_H0, BK_H1, BK_H2, BK_H3, BK_H4, BK_U0, BK_U1, BK_NEV };
enum { BS_SELF, BS_EXCH, BS_IDLE, BS_BND, BS_INT, BS_LEAD, BS_DEV, BS_GAP, BS_HOSTQ, BS_HOSTW,
       BS_N };
#define LB_BRK 4
typedef struct {
  int on;
  lbHalo *halo;
  targetEvent_t ref, ev[LB_BRK][BK_NEV];
  int used[LB_BRK], slot;
  double hostq[LB_BRK], hostw[LB_BRK];
  double last_h4; /* ms after ref; < 0: none yet in this block */
  double sum[BS_N];
  long n, ngap;
} lbBreak;

static int lbBreakInit(lbBreak *b, int on, lbHalo *halo) {
  memset(b, 0, sizeof(*b));
  b->on = on;
  b->halo = halo;
  b->last_h4 = -1.0;
  if (!on) return 0;
  int rc = targetEventCreateTimed(&b->ref);
  for (int k = 0; k < LB_BRK && !rc; k++)
    for (int e = 0; e < BK_NEV && !rc; e++) rc = targetEventCreateTimed(&b->ev[k][e]);
  if (!rc && halo->device_ordered) rc = targetHaloTimeEvents(halo->h, 1);
  return rc;
}

static double bk_ms(const lbBreak *b, targetEvent_t e) {
  double sec = 0.0;
  targetEventElapsed(&sec, b->ref, e);
  return 1e3 * sec;
}

static void bk_read(lbBreak *b, int k) {
  if (!b->used[k]) return;
  double t[BK_NEV];
  for (int e = 0; e < BK_NEV; e++) t[e] = bk_ms(b, b->ev[k][e]);
  b->sum[BS_SELF] += t[BK_H1] - t[BK_H0];
  b->sum[BS_EXCH] += t[BK_H2] - t[BK_H1];
  b->sum[BS_IDLE] += t[BK_H3] - t[BK_H2];
  b->sum[BS_BND] += t[BK_H4] - t[BK_H3];
  b->sum[BS_INT] += t[BK_U1] - t[BK_U0];
  b->sum[BS_LEAD] += t[BK_U0] - t[BK_H0];
  b->sum[BS_DEV] += t[BK_H4] - t[BK_H0];
  b->sum[BS_HOSTQ] += b->hostq[k];
  b->sum[BS_HOSTW] += b->hostw[k];
  if (b->last_h4 >= 0.0) {
    b->sum[BS_GAP] += t[BK_H0] - b->last_h4;
    b->ngap++;
  }
  b->last_h4 = t[BK_H4];
  b->n++;
  b->used[k] = 0;
}

/* Every set recorded so far, in the order of their steps. */
static void lbBreakFlush(lbBreak *b) {
  if (!b->on) return;
  for (int i = 0; i < LB_BRK; i++) bk_read(b, (b->slot + i) % LB_BRK);
}

static void lbBreakBlock(lbBreak *b, targetStream_t s) {
  if (!b->on) return;
  lbBreakFlush(b);
  targetEventRecord(b->ref, s);
  b->last_h4 = -1.0;
}

static void lbBreakMark(lbBreak *b, int e, targetStream_t s) {
  if (b->on) targetEventRecord(b->ev[b->slot][e], s);
}

static void lbBreakStep(lbBreak *b, double hostq, double hostw) {
  if (!b->on) return;
  b->used[b->slot] = 1;
  b->hostq[b->slot] = 1e3 * hostq;
  b->hostw[b->slot] = 1e3 * hostw;
  b->slot = (b->slot + 1) % LB_BRK;
  bk_read(b, b->slot); /* the set of LB_BRK steps ago, used next */
}

static void lbBreakFree(lbBreak *b) {
  if (!b->on) return;
  targetEventDestroy(b->ref);
  for (int k = 0; k < LB_BRK; k++)
    for (int e = 0; e < BK_NEV; e++) targetEventDestroy(b->ev[k][e]);
}

/* The end of a block of overlapped steps: synchronised, timed. */
static void lb_close_block(long *blk_steps, double blk_t0, lbTimes *tm, double *interval,
                           long *interval_steps, double *blk_best, lbBreak *brk) {
  if (*blk_steps == 0) return;
  targetSynchronize();
  const double t = timerNow() - blk_t0;
  tm->ovl += t;
  tm->ovl_steps += *blk_steps;
  *interval += t;
  *interval_steps += *blk_steps;
  *blk_best = fmin(*blk_best, t / *blk_steps);
  lbBreakFlush(brk);
  *blk_steps = 0;
}

static const char breakdown_header[] =
    "device,ranks,px,py,pz,nx,ny,nz,halo_path,early_fill,ovl_steps,step_ms,dev_step_ms,"
    "interior_ms,lead_ms,self_fill_ms,exchange_ms,pack_ms,transfer_ms,unpack_ms,self_ms,"
    "halo_idle_ms,boundary_ms,gap_ms,host_queue_ms,host_wait_ms,seq_step_ms,update_ms,"
    "seq_halo_ms,fill_pieces,self_again,one_boundary\n";

static int threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* The device's name for the CSV: the layer's device="..." up to its first
 * '(' or ',' ("NVIDIA H200", "host"), without commas. */
static void device_name(char *out, size_t len) {
  const char *d = strstr(targetConfigString(), "device=\"");
  snprintf(out, len, "%s", d ? d + 8 : "unknown");
  size_t n = strcspn(out, "(,\"");
  while (n > 0 && out[n - 1] == ' ') n--;
  out[n] = '\0';
}

/* 100 a / b as "%.1f", or "-" when there is no b (no triad ran: a share
 * of nothing is not 0%). */
static const char *pct(double a, double b, char *buf, size_t len) {
  if (b > 0) snprintf(buf, len, "%.1f", 100.0 * a / b);
  else snprintf(buf, len, "-");
  return buf;
}

/* Rank 0 prints per-kernel time, bandwidth (minimal bytes: 19 doubles read
 * and written per site per pass) and its share of the triad of this run,
 * and makes the summary CSV row (row[0] = '\0' on the other ranks and when
 * no step ran). Collective (the slowest rank's times). */
static void report(const lbParams *p, const decompInfo *dc, const lbGeom *g, const lbTimes *loc,
                   double triad, const lbHalo *halo, char *row, size_t rowlen) {
  row[0] = '\0';
  /* The phases of the sequential steps' exchanges only: in an overlapped
   * step the exchange shares the device with the interior update, and its
   * phases would count waiting for it (that time is wait, per step). */
  const targetHaloTimes *ph = &loc->phases;
  const double mine[10] = {loc->halo, loc->update,   loc->propagate, loc->collide, loc->ovl,
                           ph->pack_s, ph->transfer_s, ph->unpack_s,  ph->self_s,  loc->wait};
  double worst[10];
  MPI_Reduce(mine, worst, 10, MPI_DOUBLE, MPI_MAX, 0, dc->comm); /* the slowest rank's */
  lbTimes t;
  memset(&t, 0, sizeof(t));
  t.halo = worst[0];
  t.update = worst[1];
  t.propagate = worst[2];
  t.collide = worst[3];
  t.ovl = worst[4];
  t.wait = worst[9];
  t.steps = loc->steps;
  t.seq_steps = loc->seq_steps;
  t.ovl_steps = loc->ovl_steps;
  targetHaloTimes ht = {worst[5], worst[6], worst[7], worst[8], ph->exchanges};
  if (dc->rank != 0 || loc->steps == 0) return;
  char pb[3][32];
  const double ns = (double) (t.seq_steps ? t.seq_steps : 1);
  const double nx = (double) (ht.exchanges ? ht.exchanges : 1);
  const double no = (double) (t.ovl_steps ? t.ovl_steps : 1);
  const double sites = (double) g->global[0] * g->global[1] * g->global[2];
  const double pass_gb = sites * LB_BYTES_PER_SITE * 1e-9; /* one sweep, all ranks */
  const double seq_step = (t.halo + t.update + t.propagate + t.collide) / ns;
  const double ovl_step = t.ovl_steps ? t.ovl / t.ovl_steps : seq_step;
  /* the run's step: that of the mode it settled on (main may drop overlap
   * after trying it) */
  const double step = t.ovl_steps && p->overlap ? ovl_step : seq_step;
  /* hidden: what overlapping saved, as a share of the sequential halo */
  double hidden = 0.0;
  if (t.ovl_steps && t.halo > 0.0) hidden = 100.0 * (seq_step - ovl_step) / (t.halo / ns);
  hidden = hidden < 0.0 ? 0.0 : hidden > 100.0 ? 100.0 : hidden;
  printf("# timing over %ld steps (%ld sequential, %ld overlapped), %d rank(s) x %d "
         "thread(s), %s %s VVL=%d, kernel %s, halo %s\n",
         loc->steps, t.seq_steps, t.ovl_steps, dc->nranks, threads(), TARGETDP_BACKEND,
         TARGETDP_LAYOUT, VVL, p->kernel == LB_KERNEL_FUSED ? "fused" : "split",
         lbHaloPath(halo));
  printf("# %-10s %10s %10s %9s\n", "kernel", "ms/step", "GB/s", "%triad");
  const char *names[4] = {"halo", "update", "propagate", "collide"};
  const double secs[4] = {t.halo, t.update, t.propagate, t.collide};
  for (int k = 0; k < 4; k++) {
    if (secs[k] == 0.0 && k > 0) continue;
    const double per = secs[k] / ns;
    if (k == 0) {
      printf("# %-10s %10.4f %10s %9s  (%.3g MB sent by rank 0 per step; pack %.4f, "
             "transfer %.4f, unpack %.4f, self %.4f ms)\n",
             names[k], 1e3 * per, "-", "-", halo->bytes * 1e-6, 1e3 * ht.pack_s / nx,
             1e3 * ht.transfer_s / nx, 1e3 * ht.unpack_s / nx, 1e3 * ht.self_s / nx);
      continue;
    }
    const double gbs = pass_gb / per;
    printf("# %-10s %10.4f %10.2f %9s\n", names[k], 1e3 * per, gbs,
           pct(gbs, triad, pb[0], sizeof(pb[0])));
  }
  const double step_gbs = pass_gb / step, mlups = sites / step * 1e-6;
  printf("# %-10s %10.4f %10.2f %9s  MLUPS %.1f\n", "step", 1e3 * step, step_gbs,
         pct(step_gbs, triad, pb[0], sizeof(pb[0])), mlups);
  if (t.ovl_steps)
    printf("# overlapped step %.4f ms against %.4f ms sequential: %.0f%% of the halo hidden; "
           "%.4f ms a step waiting for the exchange after the interior launch\n",
           1e3 * ovl_step, 1e3 * seq_step, hidden, 1e3 * t.wait / no);
  if (triad > 0) printf("# triad      %.2f GB/s (all ranks together, same run)\n", triad);
  if (!p->summary[0]) return;
  char device[128];
  device_name(device, sizeof(device));
  const double upd = (t.update + t.propagate + t.collide) / ns;
  /* no triad: its columns are empty (not measured), not 0 */
  char tri[32] = "";
  if (triad > 0) snprintf(tri, sizeof(tri), "%.2f", triad);
  snprintf(row, rowlen,
           "%s,%s,%d,%s,%d,%d,%d,%d,%d,%ld,%.2f,%.5f,%.5f,%.5f,%.5f,%.5f,%.2f,%.2f,%s,"
           "%s,%s,%s,%s,%.5f,%.5f,%.5f,%.1f,%.5f,%.4f,%.5f,%.5f,%d,%d,%d,%d,%d\n",
           TARGETDP_BACKEND, TARGETDP_LAYOUT, VVL,
           p->kernel == LB_KERNEL_FUSED ? "fused" : "split", dc->nranks, threads(),
           g->global[0], g->global[1], g->global[2], loc->steps, mlups, 1e3 * step,
           1e3 * t.update / ns, 1e3 * t.propagate / ns, 1e3 * t.collide / ns,
           1e3 * t.halo / ns, pass_gb / upd, step_gbs, tri,
           triad > 0 ? pct(pass_gb / upd, triad, pb[1], sizeof(pb[1])) : "",
           triad > 0 ? pct(step_gbs, triad, pb[2], sizeof(pb[2])) : "",
           lbHaloPath(halo), device, 1e3 * ht.pack_s / nx, 1e3 * ht.transfer_s / nx,
           1e3 * ht.unpack_s / nx, hidden, 1e3 * seq_step, halo->bytes * 1e-6,
           1e3 * ht.self_s / nx, t.ovl_steps ? 1e3 * t.wait / no : 0.0,
           t.ovl_steps && p->overlap, /* step_ms is the overlapped one */
           dc->dims[0], dc->dims[1], dc->dims[2], p->early_fill);
}

static const char summary_header[] =
    "backend,layout,vvl,kernel,ranks,threads,nx,ny,nz,steps,mlups,step_ms,"
    "update_ms,propagate_ms,collide_ms,halo_ms,update_gbs,step_gbs,triad_gbs,"
    "update_pct_triad,step_pct_triad,halo_path,device,pack_ms,transfer_ms,"
    "unpack_ms,hidden_pct,seq_step_ms,halo_mb,self_ms,wait_ms,overlap,px,py,pz,early_fill\n";

/* Collective (the summary file's fate is shared): rank 0 appends its row
 * (common/fileio: checked, a failed row cut off). 0, or -1 + err. */
static int write_summary(const lbParams *p, const decompInfo *dc, const char *row, char *err,
                         size_t len) {
  int failed = 0;
  if (dc->rank == 0 && p->summary[0] && row[0])
    failed = fioAppendRow(p->summary, summary_header, row, err, len) != 0;
  else if (dc->rank == 0 && p->summary[0])
    printf("# summary: no step was run, no row appended to '%s'\n", p->summary);
  MPI_Bcast(&failed, 1, MPI_INT, 0, dc->comm);
  if (failed && dc->rank != 0) snprintf(err, len, "rank 0 failed writing the summary");
  return failed ? -1 : 0;
}
/* Collective: the breakdown's row (the slowest rank's averages, ms per
 * overlapped step; the module's event times per exchange), appended by
 * rank 0. 0, or -1 + err on every rank. */
static int write_breakdown(const lbParams *p, const decompInfo *dc, const lbGeom *g,
                           const lbTimes *loc, lbBreak *b, const lbHalo *halo, char *err,
                           size_t len) {
  if (!b->on) return 0;
  lbBreakFlush(b);
  targetHaloTimes et;
  targetHaloGetEventTimes(halo->h, &et);
  const double nx = et.exchanges > 0 ? (double) et.exchanges : 1.0;
  const double nb = b->n > 0 ? (double) b->n : 1.0, ng = b->ngap > 0 ? (double) b->ngap : 1.0;
  const double ns = loc->seq_steps > 0 ? (double) loc->seq_steps : 1.0;
  double mine[BS_N + 7], worst[BS_N + 7];
  for (int i = 0; i < BS_N; i++) mine[i] = b->sum[i] / (i == BS_GAP ? ng : nb);
  mine[BS_N + 0] = 1e3 * et.pack_s / nx;
  mine[BS_N + 1] = 1e3 * et.transfer_s / nx;
  mine[BS_N + 2] = 1e3 * et.unpack_s / nx;
  mine[BS_N + 3] = 1e3 * et.self_s / nx;
  mine[BS_N + 4] = loc->ovl_steps ? 1e3 * loc->ovl / loc->ovl_steps : 0.0;
  mine[BS_N + 5] = 1e3 * (loc->halo + loc->update) / ns;
  mine[BS_N + 6] = 1e3 * loc->update / ns;
  MPI_Reduce(mine, worst, BS_N + 7, MPI_DOUBLE, MPI_MAX, 0, dc->comm);
  int failed = 0;
  if (dc->rank == 0) {
    char device[128], row[1200], pe[4][24];
    device_name(device, sizeof(device));
    for (int i = 0; i < 4; i++) { /* no event phases (host-driven transport): empty, not 0 */
      if (et.exchanges > 0) snprintf(pe[i], sizeof(pe[i]), "%.5f", worst[BS_N + i]);
      else pe[i][0] = '\0';
    }
    snprintf(row, sizeof(row),
             "%s,%d,%d,%d,%d,%d,%d,%d,%s,%d,%ld,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%s,%s,%s,%s,%.5f,"
             "%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%d,%d,%d\n",
             device, dc->nranks, dc->dims[0], dc->dims[1], dc->dims[2], g->global[0],
             g->global[1], g->global[2], lbHaloPath(halo), p->early_fill, b->n, worst[BS_N + 4],
             worst[BS_DEV], worst[BS_INT], worst[BS_LEAD], worst[BS_SELF], worst[BS_EXCH], pe[0],
             pe[1], pe[2], pe[3], worst[BS_IDLE], worst[BS_BND], worst[BS_GAP], worst[BS_HOSTQ],
             worst[BS_HOSTW], worst[BS_N + 5], worst[BS_N + 6],
             worst[BS_N + 5] - worst[BS_N + 6], p->fill_pieces, p->self_again, p->one_boundary);
    printf("# breakdown of %ld overlapped steps (device events, slowest rank, ms a step): "
           "interior %.4f (starts %.4f after the step), self fill %.4f, exchange %.4f "
           "(pack %s, transfer %s, unpack %s, self %s), halo stream idle %.4f, boundary %.4f, "
           "step on the device %.4f, gap between steps %.4f; host: queueing %.4f, waiting %.4f\n",
           b->n, worst[BS_INT], worst[BS_LEAD], worst[BS_SELF], worst[BS_EXCH],
           pe[0][0] ? pe[0] : "-", pe[1][0] ? pe[1] : "-", pe[2][0] ? pe[2] : "-",
           pe[3][0] ? pe[3] : "-", worst[BS_IDLE], worst[BS_BND], worst[BS_DEV], worst[BS_GAP],
           worst[BS_HOSTQ], worst[BS_HOSTW]);
    failed = fioAppendRow(p->breakdown, breakdown_header, row, err, len) != 0;
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, dc->comm);
  if (failed && dc->rank != 0) snprintf(err, len, "rank 0 failed writing the breakdown");
  return failed ? -1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  char err[1200];
  lbParams p;
  int rc = lbParamsLoad(argc, argv, &p, err, sizeof(err));
  if (rc == 1) { /* --help: usage is printed, nothing to run */
    MPI_Finalize();
    return 0;
  }
  if (rc) return fail(wrank, err, 2);
  /* Every file of the run, before any work: a FIFO (whose open would
   * block), a directory, a missing or read-only directory is refused now,
   * not after the run (common/fileio: stat and access, never an open). */
  if (wrank == 0) rc = lbParamsCheckFiles(&p, err, sizeof(err)) != 0;
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc) return fail(wrank, err, 2);

  decompInfo dc;
  const int periodic[3] = {!p.walls[0], !p.walls[1], !p.walls[2]};
  if (decompCreate(MPI_COMM_WORLD, p.size, p.decomposition, periodic, &dc, err, sizeof(err)))
    return fail(wrank, err, 2);
  targetInit(); /* on CUDA, picks GPU (node-local rank) % (GPUs on the node) */
  if (dc.rank == 0) {
    printf("# lb D3Q19: %s\n", targetConfigString());
    printf("# %d MPI rank(s) as %d x %d x %d, block %d x %d x %d per rank\n", dc.nranks,
           dc.dims[0], dc.dims[1], dc.dims[2], dc.local[0], dc.local[1], dc.local[2]);
    lbParamsPrint(stdout, &p);
  }

  lbLattice L;
  lbHalo halo;
  lbOutput out;
  if (lbLatticeCreate(&L, &dc)) MPI_Abort(dc.comm, 1);
  if (lbHaloCreate(&halo, &L.g, &dc, err, sizeof(err))) return fail(dc.rank, err, 2);
  /* Overlap can pay only where streams run concurrently (a GPU). On the
   * host they run in order: nothing is hidden and the boundary layer is
   * swept a second time. On one GPU there is no message to hide, but the
   * overlapped step is a different step: the early fill in pieces beside
   * the sweep and no exchange after it, against the whole fill, then the
   * whole sweep (issue 11 measured it slower, 2.36 against 2.05 ms at
   * 256^3, when the exchange still queued behind the sweep; issue 29
   * changed that), so it is tried there too: the 1-GPU baseline of the
   * scaling runs is then the faster of the two steps. */
  /* Not given: tried where it can pay, and kept only if it does (below). */
  const int overlap_auto = p.overlap < 0;
  if (overlap_auto) p.overlap = targetDeviceId() >= 0;
  double auto_best[2] = {1e30, 1e30}; /* fastest sequential, overlapped step so far */
  targetStream_t upd_stream = NULL; /* the interior update's, beside the halo's */
  if (targetStreamCreate(&upd_stream) != TARGET_SUCCESS) MPI_Abort(dc.comm, 1);
  if (p.interior_share < 1.0 && targetStreamSetShare(upd_stream, p.interior_share) != TARGET_SUCCESS)
    MPI_Abort(dc.comm, 1);
  lbKernelsSetup(&L.g, p.tau, p.force);
  long step = 0;
  if (p.restart[0]) {
    if (lbCheckpointRead(&L, &dc, &p, p.restart, &step, err, sizeof(err)))
      return fail(dc.rank, err, 2);
    if (step > p.steps) {
      snprintf(err, sizeof(err), "checkpoint '%s' is at step %ld, beyond steps = %ld",
               p.restart, step, p.steps);
      return fail(dc.rank, err, 2);
    }
    if (dc.rank == 0) printf("# restarted from '%s' at step %ld\n", p.restart, step);
  } else {
    lbLatticeInitial(&L, &p);
    lbLatticeUpload(&L);
  }
  if (lbOutputOpen(&out, &p, &dc, p.restart[0] ? step : -1, err, sizeof(err)))
    return fail(dc.rank, err, 2);

  double triad = 0.0;
  if (p.triad > 0) { /* every rank at once: the node's (or GPUs') bandwidth */
    MPI_Barrier(dc.comm);
    double mine = triadBandwidth(p.triad, 10);
    MPI_Allreduce(&mine, &triad, 1, MPI_DOUBLE, MPI_SUM, dc.comm);
  }

  int nobs = 0, maxobs = 16;
  lbObs *obs = (lbObs *) malloc(maxobs * sizeof(lbObs));
  lbObserve(&L, &dc, &p, step, &obs[nobs]);
  if (lbOutputObs(&out, &p, &dc, &obs[nobs++], -1.0, err, sizeof(err)))
    return fail(dc.rank, err, 1);
  if (p.vtk_every && !p.restart[0] && lbWriteVTK(&L, &dc, &p, step, err, sizeof(err)))
    return fail(dc.rank, err, 1);

  lbTimes tm;
  memset(&tm, 0, sizeof(tm));
  double interval = 0.0; /* stepping time since the last progress line */
  long interval_steps = 0;
  const double sites = (double) p.size[0] * p.size[1] * p.size[2];
  char chk[LB_PATH_MAX + 8];
  snprintf(chk, sizeof(chk), "%s.chk", p.output);
  long chk_step = -1; /* step of the last checkpoint this run wrote */

  /* Overlapped steps are queued without a host synchronisation between
   * them (issue 29: a synchronisation per step left the GPU idle while
   * the host launched the next); they are timed in blocks, from one
   * synchronisation to the next (a sequential step, an observation, the
   * end), and the block's time per step is the step time. */
  const int redo[3] = {1, !(p.early_fill && halo.self_axis[1]), !(p.early_fill && halo.self_axis[2])};
  const int early = p.early_fill && (halo.self_axis[0] || halo.self_axis[1] || halo.self_axis[2]);
  /* the interior sweep in pieces along x, each after its piece of the
   * early fill (one piece: the whole fill, by the module, then the sweep) */
  halo.self_again = p.self_again;
  lbPiece pc[64];
  const int npieces = lbInteriorPieces(&L.g, early ? p.fill_pieces : 1, pc);
  targetEvent_t ev_b = NULL, ev_i = NULL, ev_fill[64]; /* boundary, interior, fill pieces done */
  if (targetEventCreate(&ev_b) || targetEventCreate(&ev_i)) MPI_Abort(dc.comm, 1);
  for (int j = 0; j < npieces; j++)
    if (targetEventCreate(&ev_fill[j])) MPI_Abort(dc.comm, 1);
  lbBreak brk;
  if (lbBreakInit(&brk, p.breakdown[0] != 0, &halo)) MPI_Abort(dc.comm, 1);
  double blk_t0 = 0.0, blk_best = 1e30;
  long blk_steps = 0;
  while (step < p.steps) {
    /* Overlapped: interior || halo, then the boundary layer. Every 10th
     * step (and the first) sequential, to measure what overlapping hid;
     * both give bitwise the same fields. */
    const int overlap = p.overlap && p.kernel == LB_KERNEL_FUSED && tm.steps % 10 != 0;
    double t0 = 0.0, t1, t2 = 0.0;
    if (overlap) {
      if (blk_steps == 0) { /* a block begins */
        targetSynchronize();
        blk_t0 = timerNow();
        lbBreakBlock(&brk, upd_stream);
      }
      const double tq = timerNow();
      lbBreakMark(&brk, BK_H0, halo.stream);
      /* the last step's boundary wrote sites this interior sweep reads */
      targetStreamWaitEvent(upd_stream, ev_b);
      /* The interior first: it reads no halo site of a split axis and the
       * exchange writes only halo sites; the exchange's kernels, on a
       * high-priority stream, still run while the interior's blocks are
       * queued. Started the other way round, the host waited for the
       * first axis's faces before the interior was even launched.
       * With early fill, the periodic axes held alone before the sweep
       * that reads their faces: in pieces along x (fill_pieces), each
       * piece of the sweep after the piece of the fill it reads, so that
       * the sweep starts after the first piece and the rest of the fill
       * runs beside it (issue 29: the whole fill first, 0.09-0.11 ms on
       * an H100 at 256^2 faces, was the step's lead, serial); queued
       * piece by piece, so that on the host, whose streams run at once,
       * a piece that read a plane of the fill not yet done would differ. */
      for (int j = 0; j < npieces; j++) {
        if (early && npieces > 1) {
          lbHaloFillPlanes(&halo, L.t_f, pc[j].fx0, pc[j].fx1, j == 0);
          targetEventRecord(ev_fill[j], halo.stream);
        } else if (early) {
          if (lbHaloSelfFill(&halo, L.t_f, err, sizeof(err))) halo_failed(&dc, err);
          targetEventRecord(ev_fill[j], halo.stream);
        }
        if (j == npieces - 1) lbBreakMark(&brk, BK_H1, halo.stream);
        if (early) targetStreamWaitEvent(upd_stream, ev_fill[j]);
        if (j == 0) lbBreakMark(&brk, BK_U0, upd_stream);
        lbUpdateInteriorRange(&L.g, L.t_f, L.t_fn, pc[j].first, pc[j].n, upd_stream);
      }
      targetEventRecord(ev_i, upd_stream);
      lbBreakMark(&brk, BK_U1, upd_stream);
      double tw = timerNow();
      if (halo.device_ordered) { /* nccl: queued, the host does not wait */
        if (lbHaloExchangeQueued(&halo, L.t_f, err, sizeof(err))) halo_failed(&dc, err);
      } else { /* host-driven transports: the host waits in lbHaloWait */
        if (lbHaloStart(&halo, L.t_f, err, sizeof(err))) halo_failed(&dc, err);
        tw = timerNow();
        if (lbHaloWait(&halo, err, sizeof(err))) halo_failed(&dc, err);
      }
      const double waited = timerNow() - tw;
      tm.wait += waited;
      lbBreakMark(&brk, BK_H2, halo.stream);
      /* the boundary rewrites sites the interior sweep wrote */
      targetStreamWaitEvent(halo.stream, ev_i);
      lbBreakMark(&brk, BK_H3, halo.stream);
      lbUpdateBoundaryFaces(&L.g, L.t_f, L.t_fn, redo, p.one_boundary, halo.stream);
      targetEventRecord(ev_b, halo.stream);
      lbBreakMark(&brk, BK_H4, halo.stream);
      lbBreakStep(&brk, timerNow() - tq, waited);
      blk_steps++;
    } else {
      /* a sequential step: the block of overlapped steps before it ends */
      lb_close_block(&blk_steps, blk_t0, &tm, &interval, &interval_steps, &blk_best, &brk);
      /* Every kernel is followed by a synchronisation only so that it can
       * be timed on its own; on a GPU this costs a few microseconds a step. */
      targetSynchronize();
      t0 = timerNow();
      targetHaloResetTimes(halo.h);
      if (brk.on && halo.device_ordered) targetHaloTimeEvents(halo.h, 0); /* overlapped steps only */
      if (lbHaloExchange(&halo, L.t_f, err, sizeof(err))) halo_failed(&dc, err);
      if (brk.on && halo.device_ordered) targetHaloTimeEvents(halo.h, 1);
      targetSynchronize();
      t1 = timerNow();
      targetHaloTimes ph;
      targetHaloGetTimes(halo.h, &ph);
      tm.phases.pack_s += ph.pack_s;
      tm.phases.transfer_s += ph.transfer_s;
      tm.phases.unpack_s += ph.unpack_s;
      tm.phases.self_s += ph.self_s;
      tm.phases.exchanges += ph.exchanges;
      tm.halo += t1 - t0;
      tm.seq_steps++;
      if (p.kernel == LB_KERNEL_FUSED) {
        lbUpdateFused(&L.g, L.t_f, L.t_fn);
        targetSynchronize();
        t2 = timerNow();
        tm.update += t2 - t1;
      } else {
        lbPropagate(&L.g, L.t_f, L.t_fn);
        targetSynchronize();
        double tp = timerNow();
        tm.propagate += tp - t1;
        lbCollide(&L.g, L.t_fn);
        targetSynchronize();
        t2 = timerNow();
        tm.collide += t2 - tp;
      }
      interval += t2 - t0;
      interval_steps++;
    }
    double *swap = L.t_f;
    L.t_f = L.t_fn;
    L.t_fn = swap;
    step++;
    tm.steps++;
    /* Overlap by default only where it wins: an overlapped step sweeps the
     * boundary layer twice, which can cost more than the halo it hides
     * (2 H200s over IPC: 5.3 MB move in 0.04 ms). Steps 1-30 give three
     * sequential steps and three blocks of nine overlapped ones; the
     * fastest sequential step and the fastest block (robust to a noisy
     * step, and to the first block's first use of the exchange) decide,
     * the same on every rank. */
    if (overlap_auto && p.overlap && tm.steps <= 31) {
      if (!overlap && tm.steps > 1) auto_best[0] = fmin(auto_best[0], t2 - t0);
      if (tm.steps == 31) {
        lb_close_block(&blk_steps, blk_t0, &tm, &interval, &interval_steps, &blk_best, &brk);
        auto_best[1] = blk_best;
        double best[2];
        MPI_Allreduce(auto_best, best, 2, MPI_DOUBLE, MPI_MAX, dc.comm);
        p.overlap = best[1] < best[0];
        if (dc.rank == 0)
          printf("# overlap %s after step %ld: fastest block of overlapped steps %.4f ms a step, "
                 "fastest sequential step %.4f ms (--overlap 0|1 decides instead)\n",
                 p.overlap ? "kept" : "off", step, 1e3 * best[1], 1e3 * best[0]);
      }
    }
    const int observe = (p.print_every && step % p.print_every == 0) || step == p.steps;
    const int snapshot = p.vtk_every && (step % p.vtk_every == 0 || step == p.steps);
    const int save = p.checkpoint_every && (step % p.checkpoint_every == 0 || step == p.steps);
    if (observe || snapshot || save || (p.inject_nan && step == p.inject_nan) || step == p.steps)
      lb_close_block(&blk_steps, blk_t0, &tm, &interval, &interval_steps, &blk_best, &brk);
    if (p.inject_nan && step == p.inject_nan) lbInjectNaN(&L);
    /* A NaN or infinity must not reach any output: the run stops here,
     * before this step's checkpoint could replace the last good one. */
    if ((observe || snapshot || save) && lbCheckFinite(&L, &dc, step, err, sizeof(err))) {
      size_t n = strlen(err);
      if (chk_step >= 0)
        snprintf(err + n, sizeof(err) - n,
                 "; stopped, the last checkpoint '%s' (step %ld) is intact", chk, chk_step);
      else
        snprintf(err + n, sizeof(err) - n, "; stopped (no checkpoint written yet)");
      return fail(dc.rank, err, 3);
    }
    if (observe) {
      if (nobs == maxobs) {
        maxobs *= 2;
        obs = (lbObs *) realloc(obs, maxobs * sizeof(lbObs));
      }
      double tmax = 0.0;
      MPI_Allreduce(&interval, &tmax, 1, MPI_DOUBLE, MPI_MAX, dc.comm);
      lbObserve(&L, &dc, &p, step, &obs[nobs]);
      if (lbOutputObs(&out, &p, &dc, &obs[nobs++], sites * interval_steps / tmax * 1e-6, err,
                      sizeof(err)))
        return fail(dc.rank, err, 1);
      interval = 0.0;
      interval_steps = 0;
    }
    if (snapshot && lbWriteVTK(&L, &dc, &p, step, err, sizeof(err))) return fail(dc.rank, err, 1);
    if (save) {
      if (lbCheckpointWrite(&L, &dc, &p, step, chk, err, sizeof(err)))
        return fail(dc.rank, err, 1);
      chk_step = step;
    }
  }
  /* No step ran (steps = 0, or a restart at its last step): the state
   * asked for is the one at hand; write it rather than claim it. */
  if (p.checkpoint_every && chk_step != step) {
    if (lbCheckpointWrite(&L, &dc, &p, step, chk, err, sizeof(err))) return fail(dc.rank, err, 1);
    chk_step = step;
  }
  if (dc.rank == 0 && chk_step >= 0) printf("# checkpoint: %s (step %ld)\n", chk, chk_step);

  char row[1024];
  report(&p, &dc, &L.g, &tm, triad, &halo, row, sizeof(row));
  int closed = lbOutputClose(&out, err, sizeof(err)) == 0; /* rank 0's CSV */
  MPI_Bcast(&closed, 1, MPI_INT, 0, dc.comm);
  if (!closed) {
    if (dc.rank != 0) snprintf(err, sizeof(err), "rank 0 failed closing the CSV");
    return fail(dc.rank, err, 1);
  }
  /* The verdict before the summary: a summary that cannot be written
   * fails the run, but does not hide what the run found. */
  int status = 0;
  if (p.validate && tm.steps == 0) {
    if (dc.rank == 0)
      printf("# validation skipped: no step was run (%s)\n",
             p.restart[0] ? "the restart checkpoint is already at steps" : "steps = 0");
  } else if (p.validate) {
    const int v = lbValidate(&p, &dc, obs, nobs);
    if (v < 0 && dc.rank == 0)
      printf("# validation skipped: case %s has no check\n", lbCaseName(p.lbcase));
    status = v == 0;
  }
  if (write_summary(&p, &dc, row, err, sizeof(err))) return fail(dc.rank, err, 1);
  if (write_breakdown(&p, &dc, &L.g, &tm, &brk, &halo, err, sizeof(err))) return fail(dc.rank, err, 1);
  lbBreakFree(&brk);
  targetEventDestroy(ev_b);
  targetEventDestroy(ev_i);
  for (int j = 0; j < npieces; j++) targetEventDestroy(ev_fill[j]);
  free(obs);
  targetStreamDestroy(upd_stream);
  lbHaloFree(&halo);
  lbLatticeFree(&L);
  targetFinalize();
  decompFree(&dc);
  MPI_Finalize();
  return status;
}
