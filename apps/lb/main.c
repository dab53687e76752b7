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
           "%s,%s,%s,%s,%.5f,%.5f,%.5f,%.1f,%.5f,%.4f,%.5f,%.5f,%d\n",
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
           t.ovl_steps && p->overlap); /* step_ms is the overlapped one */
}

static const char summary_header[] =
    "backend,layout,vvl,kernel,ranks,threads,nx,ny,nz,steps,mlups,step_ms,"
    "update_ms,propagate_ms,collide_ms,halo_ms,update_gbs,step_gbs,triad_gbs,"
    "update_pct_triad,step_pct_triad,halo_path,device,pack_ms,transfer_ms,"
    "unpack_ms,hidden_pct,seq_step_ms,halo_mb,self_ms,wait_ms,overlap\n";

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
  /* Overlap pays where streams run concurrently (a GPU) and there is a
   * message to hide. On the host streams run in order; on one rank the
   * exchange is only kernels (periodic copies onto itself) that would
   * queue behind the interior update, which fills the device: either way
   * nothing is hidden and the boundary layer is swept a second time, by a
   * slower kernel (issue 11: 2.36 against 2.05 ms a step at 256^3). */
  /* Not given: tried where it can pay, and kept only if it does (below). */
  const int overlap_auto = p.overlap < 0;
  if (overlap_auto) p.overlap = targetDeviceId() >= 0 && halo.remote;
  double auto_best[2] = {1e30, 1e30}; /* fastest sequential, overlapped step so far */
  targetStream_t upd_stream = NULL; /* the interior update's, beside the halo's */
  if (targetStreamCreate(&upd_stream) != TARGET_SUCCESS) MPI_Abort(dc.comm, 1);
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

  while (step < p.steps) {
    /* Every kernel is followed by a synchronisation only so that it can be
     * timed on its own; on a GPU this costs a few microseconds a step. */
    targetSynchronize();
    double t0 = timerNow(), t1, t2;
    /* Overlapped: interior || halo, then the boundary layer. Every 10th
     * step (and the first) sequential, to measure what overlapping hid;
     * both give bitwise the same fields. */
    const int overlap = p.overlap && p.kernel == LB_KERNEL_FUSED && tm.steps % 10 != 0;
    if (overlap) {
      /* The interior first: it reads no halo site and the exchange writes
       * only halo sites, and the exchange's kernels, on a high-priority
       * stream, still run while the interior's blocks are queued. Started
       * the other way round, the host waited for the first axis's faces
       * (packed, copied) before the interior was even launched. */
      lbUpdateInterior(&L.g, L.t_f, L.t_fn, upd_stream);
      if (lbHaloStart(&halo, L.t_f, err, sizeof(err))) halo_failed(&dc, err);
      const double tw = timerNow();
      if (lbHaloWait(&halo, err, sizeof(err))) halo_failed(&dc, err);
      tm.wait += timerNow() - tw;
      targetStreamSynchronize(upd_stream); /* the boundary rewrites some of its sites */
      lbUpdateBoundary(&L.g, L.t_f, L.t_fn, halo.stream);
      targetStreamSynchronize(halo.stream);
      t2 = timerNow();
      tm.ovl += t2 - t0;
      tm.ovl_steps++;
    } else {
      targetHaloResetTimes(halo.h);
      if (lbHaloExchange(&halo, L.t_f, err, sizeof(err))) halo_failed(&dc, err);
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
    }
    if (overlap) {
      /* the update is done: timed with the step */
    } else if (p.kernel == LB_KERNEL_FUSED) {
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
    double *swap = L.t_f;
    L.t_f = L.t_fn;
    L.t_fn = swap;
    step++;
    tm.steps++;
    interval += t2 - t0;
    interval_steps++;
    /* Overlap by default only where it wins: an overlapped step sweeps the
     * boundary layer twice, which can cost more than the halo it hides
     * (2 H200s over IPC: 5.3 MB move in 0.04 ms). Steps 1-30 give three
     * sequential and 27 overlapped samples; the fastest of each (robust to
     * a noisy step) decide, the same on every rank. */
    if (overlap_auto && p.overlap && tm.steps <= 31) {
      if (tm.steps > 1) auto_best[overlap] = fmin(auto_best[overlap], t2 - t0);
      if (tm.steps == 31) {
        double best[2];
        MPI_Allreduce(auto_best, best, 2, MPI_DOUBLE, MPI_MAX, dc.comm);
        p.overlap = best[1] < best[0];
        if (dc.rank == 0)
          printf("# overlap %s after step %ld: fastest overlapped step %.4f ms, sequential %.4f ms "
                 "(--overlap 0|1 decides instead)\n", p.overlap ? "kept" : "off", step,
                 1e3 * best[1], 1e3 * best[0]);
      }
    }
    if (p.inject_nan && step == p.inject_nan) lbInjectNaN(&L);

    const int observe = (p.print_every && step % p.print_every == 0) || step == p.steps;
    const int snapshot = p.vtk_every && (step % p.vtk_every == 0 || step == p.steps);
    const int save = p.checkpoint_every && (step % p.checkpoint_every == 0 || step == p.steps);
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
  free(obs);
  targetStreamDestroy(upd_stream);
  lbHaloFree(&halo);
  lbLatticeFree(&L);
  targetFinalize();
  decompFree(&dc);
  MPI_Finalize();
  return status;
}
