/*
 * halo_check.c -- targetDP_halo against a reference exchange, bit for bit.
 *
 *   mpirun -np N halo_check NDIM GLOBAL DIMS NHALO NCOMP PERIODIC [REPS]
 *   e.g.  mpirun -np 8 halo_check 3 12x8x10 2x2x2 1 19 111
 *
 * GLOBAL and DIMS are extents joined by 'x' (DIMS 0 = let the module
 * choose), PERIODIC one 0/1 per axis. Every interior site holds a value
 * made from its global coordinates and component; the reference is then
 * known everywhere: after an exchange each halo site must hold the value
 * of its periodic image (or, at a non-periodic end, the untouched
 * sentinel), edges and corners included, and the interior must be as it
 * was. Three exchanges, the interior changed between them; the second is
 * split (targetHaloStart, a kernel on another stream, targetHaloWait) as
 * an app overlaps it; the third queued (targetHaloExchangeAsync, with the
 * self-held axes filled first by targetHaloSelfFill when the caller gives
 * self_copy), its phases timed by events. Prints one line on rank 0 and exits 0 only if every
 * rank agrees. Bad input: every rank prints the module's message, exit 1.
 * REPS > 0: then time REPS more exchanges (after 3 untimed) and print the
 * time per exchange and the bytes each rank sent (tests/run_device.sh).
 *
 * HALO_CHECK_CUSTOM=1: the caller's pack and unpack (targetHaloConfig.pack)
 * on a padded field (PAD_FRONT sites before site 0, PAD_BACK after, the
 * pad holding a sentinel that must survive) sending a different subset of
 * the components through each face, as lattice Boltzmann does. A halo
 * site's component is then right where every axis it lies outside along
 * carried it, and keeps the sentinel otherwise. HALO_CHECK_CUSTOM=4: the
 * same with the caller's self_copy as well (an axis this rank holds alone
 * is copied edge to halo in place, no buffer). HALO_CHECK_CUSTOM=2 (no
 * unpack) and 3 (a face of 0 doubles) must be refused by every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP.h"
#include "targetDP_halo.h"

#define SENTINEL (-12345.0)

TDP_KERNEL void kAddOne(double *t_a, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) { t_a[base + v] += 1.0; }
  }
}

#define PAD_FRONT 13
#define PAD_BACK 21
#define PADVAL (-777.0)

/* Components sent toward side s of axis d (and unpacked, by the
 * neighbour, into its halo on side !s): a different half per face. */
static TDP_HOST_DEVICE int sent(int c, int d, int s) { return (c + d + s) % 2 == 0; }

/* A face box of the padded field and the components it carries. */
typedef struct {
  long n[4], lo[4], b[4];
  long nbox, nall, base;
  int ncomp, d, s;
} faceBox;

TDP_KERNEL void kFace(double *dst, const double *src, faceBox g, int unpack) {
  TDP_TLP_NOSTRIDE(k, g.nbox) {
    long r = k, x[4];
    for (int e = 3; e >= 0; e--) {
      x[e] = g.lo[e] + r % g.b[e];
      r /= g.b[e];
    }
    long site = g.base + ((x[0] * g.n[1] + x[1]) * g.n[2] + x[2]) * g.n[3] + x[3];
    int j = 0;
    for (int c = 0; c < g.ncomp; c++) {
      if (!sent(c, g.d, g.s)) continue;
      size_t fi = TDP_INDEX(g.nall, g.ncomp, site, c), bi = (size_t) j++ * g.nbox + k;
      if (unpack) dst[fi] = src[bi];
      else dst[bi] = src[fi];
    }
  }
}

typedef struct {
  const targetHaloInfo *in;
  long nall;
} customCtx;

static void face_box(const customCtx *cx, int d, int side, targetFaceRegion_t kind, faceBox *g);

static int custom_face(customCtx *cx, int d, int side, double *dst, const double *src,
                       targetStream_t stream, int unpack) {
  faceBox g;
  face_box(cx, d, side, unpack ? TARGET_FACE_HALO : TARGET_FACE_EDGE, &g);
  g.s = unpack ? !side : side; /* the halo on side s is what the neighbour sent toward !s */
  TDP_LAUNCH_STREAM(kFace, g.nbox, stream, dst, src, g, unpack);
  return 0;
}
static int custom_pack(void *ctx, int d, int side, double *t_buf, const double *t_f,
                       targetStream_t stream) {
  return custom_face((customCtx *) ctx, d, side, t_buf, t_f, stream, 0);
}
static int custom_unpack(void *ctx, int d, int side, double *t_f, const double *t_buf,
                         targetStream_t stream) {
  return custom_face((customCtx *) ctx, d, side, t_f, t_buf, stream, 1);
}

/* self_copy: the edge face leaving through side s of axis d straight into
 * the halo face on side !s, the components sent toward s. */
TDP_KERNEL void kSelf(double *t_f, faceBox e, faceBox h) {
  TDP_TLP_NOSTRIDE(k, e.nbox) {
    long r = k, xe[4], xh[4];
    for (int a = 3; a >= 0; a--) {
      xe[a] = e.lo[a] + r % e.b[a];
      xh[a] = h.lo[a] + r % e.b[a];
      r /= e.b[a];
    }
    long se = e.base + ((xe[0] * e.n[1] + xe[1]) * e.n[2] + xe[2]) * e.n[3] + xe[3];
    long sh = e.base + ((xh[0] * e.n[1] + xh[1]) * e.n[2] + xh[2]) * e.n[3] + xh[3];
    for (int c = 0; c < e.ncomp; c++)
      if (sent(c, e.d, e.s)) t_f[TDP_INDEX(e.nall, e.ncomp, sh, c)] = t_f[TDP_INDEX(e.nall, e.ncomp, se, c)];
  }
}

static void face_box(const customCtx *cx, int d, int side, targetFaceRegion_t kind, faceBox *g) {
  const targetHaloInfo *in = cx->in;
  long lo[4], hi[4];
  targetFaceBox(in->ndim, in->extents, in->nhalo, d, side, kind, lo, hi);
  g->nbox = 1;
  for (int e = 0; e < 4; e++) { /* as 4-D, leading axes of extent 1 */
    int a = e - (4 - in->ndim);
    g->n[e] = a < 0 ? 1 : in->extents[a];
    g->lo[e] = a < 0 ? 0 : lo[a];
    g->b[e] = a < 0 ? 1 : hi[a] - lo[a];
    g->nbox *= g->b[e];
  }
  g->nall = cx->nall;
  g->base = PAD_FRONT;
  g->ncomp = in->ncomp;
  g->d = d;
  g->s = side;
}

static long self_calls[4]; /* per axis */

static int custom_self(void *ctx, int d, int side, double *t_f, targetStream_t stream) {
  self_calls[d]++;
  faceBox e, h;
  face_box((const customCtx *) ctx, d, side, TARGET_FACE_EDGE, &e);
  face_box((const customCtx *) ctx, d, !side, TARGET_FACE_HALO, &h);
  TDP_LAUNCH_STREAM(kSelf, e.nbox, stream, t_f, e, h);
  return 0;
}

static int parse_list(const char *s, long *v, int n) {
  char *end = NULL;
  for (int d = 0; d < n; d++) {
    v[d] = strtol(s, &end, 10);
    if (end == s || (d < n - 1 && *end != 'x') || (d == n - 1 && *end)) return -1;
    s = end + 1;
  }
  return 0;
}

/* The value of component c at global site g (coordinates wrapped into the
 * lattice), changed by round: exact in a double. */
static double value(int ndim, const long *global, const long *g, int c, int round) {
  double v = 0.0;
  for (int d = 0; d < ndim; d++) v = v * global[d] + g[d];
  return v * 64.0 + c + 0.25 * round;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long global[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
  int ndim = argc > 1 ? atoi(argv[1]) : 0;
  if ((argc != 7 && argc != 8) || ndim < 1 || ndim > 4 || parse_list(argv[2], global, ndim) ||
      parse_list(argv[3], dl, ndim) || (int) strlen(argv[6]) != ndim) {
    if (rank == 0)
      fprintf(stderr, "usage: halo_check NDIM GLOBAL DIMS NHALO NCOMP PERIODIC, e.g. "
                      "halo_check 3 12x8x10 2x2x2 1 19 111\n");
    MPI_Finalize();
    return 2;
  }
  targetInit();
  targetHaloConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    cfg.global[d] = global[d];
    cfg.dims[d] = (int) dl[d];
    cfg.periodic[d] = argv[6][d] == '1';
  }
  cfg.nhalo = atoi(argv[4]);
  cfg.ncomp = atoi(argv[5]);
  cfg.transport = TARGET_HALO_AUTO;
  /* 1: the caller's faces; 2: pack without unpack, 3: a face of 0 doubles (both refused) */
  const int custom = getenv("HALO_CHECK_CUSTOM") ? atoi(getenv("HALO_CHECK_CUSTOM")) : 0;
  customCtx cx = {NULL, 0};
  if (custom) {
    cfg.pack = custom_pack;
    cfg.unpack = custom_unpack;
    cfg.ctx = &cx;
    for (int d = 0; d < ndim; d++) {
      /* at least the larger half of the components (an upper bound when
       * the module chooses the split) */
      long face = cfg.nhalo;
      for (int e = 0; e < ndim; e++)
        if (e != d) face *= global[e] / (dl[e] ? dl[e] : 1) + 2L * cfg.nhalo;
      cfg.face_doubles[d] = face * ((cfg.ncomp + 1) / 2);
    }
    if (custom == 2) cfg.unpack = NULL;
    if (custom == 3) cfg.face_doubles[ndim - 1] = 0;
    if (custom == 4) cfg.self_copy = custom_self;
  }
  targetHalo *h = NULL;
  char err[400];
  if (targetHaloCreate(MPI_COMM_WORLD, &cfg, &h, err, sizeof(err))) {
    fprintf(stderr, "halo_check: rank %d: targetHaloCreate: %s\n", rank, err);
    targetFinalize();
    MPI_Finalize();
    return 1;
  }
  const targetHaloInfo *in = targetHaloGetInfo(h);
  const long nsites = in->nsites;
  const int ncomp = in->ncomp, nh = in->nhalo;
  /* custom: sites stored from PAD_FRONT on, nall allocated */
  const long nall = custom ? PAD_FRONT + nsites + PAD_BACK : nsites, base = custom ? PAD_FRONT : 0;
  cx.in = in;
  cx.nall = nall;
  size_t fsize = TDP_FIELD_SIZE(nall, ncomp);
  double *f = (double *) malloc(fsize * sizeof(double));
  double *t_f = NULL, *t_work = NULL, *work = NULL;
  const int nwork = 100003;
  work = (double *) malloc(nwork * sizeof(double));
  targetMalloc(&t_f, fsize * sizeof(double));
  targetCalloc(&t_work, nwork * sizeof(double));
  targetStream_t halo_stream = NULL, interior = NULL;
  targetStreamCreate(&halo_stream);
  targetStreamCreate(&interior);

  long nbad = 0, nchecked = 0;
  for (int round = 0; round < 3; round++) {
    /* interior from the global function, halo the sentinel, pad PADVAL */
    for (size_t i = 0; i < fsize; i++) f[i] = PADVAL;
    for (long s = 0; s < nsites; s++) {
      long x[4], g[4], r = s;
      int inside = 1;
      for (int d = ndim - 1; d >= 0; d--) {
        x[d] = r % in->extents[d];
        r /= in->extents[d];
        g[d] = in->offset[d] + x[d] - nh;
        if (x[d] < nh || x[d] >= in->extents[d] - nh) inside = 0;
      }
      for (int c = 0; c < ncomp; c++)
        f[TDP_INDEX(nall, ncomp, base + s, c)] =
            inside ? value(ndim, global, g, c, round) : SENTINEL;
    }
    copyToTarget(t_f, f, fsize * sizeof(double));
    int rc = 0;
    if (round == 1) { /* overlapped, as an app does it */
      rc = targetHaloStart(h, t_f, halo_stream);
      TDP_LAUNCH_STREAM(kAddOne, nwork, interior, t_work, nwork);
      if (rc == 0) rc = targetHaloWait(h);
      targetStreamSynchronize(interior);
    } else if (round == 2) { /* queued (no host wait where device-ordered), timed by events */
      if (custom == 4) rc = targetHaloSelfFill(h, t_f, halo_stream); /* then again in the exchange */
      if (rc == 0) rc = targetHaloTimeEvents(h, 1);
      if (rc == 0) rc = targetHaloExchangeAsync(h, t_f, halo_stream);
      if (rc == 0) rc = targetStreamSynchronize(halo_stream);
      targetHaloTimes et;
      targetHaloGetEventTimes(h, &et);
      if (rc == 0 && in->device_ordered && (et.exchanges != 1 || et.pack_s < 0 || et.transfer_s < 0 ||
                                            et.unpack_s < 0 || et.self_s < 0)) {
        fprintf(stderr, "halo_check: rank %d: event times of one queued exchange: %ld exchanges, "
                        "pack %g, transfer %g, unpack %g, self %g s\n",
                rank, et.exchanges, et.pack_s, et.transfer_s, et.unpack_s, et.self_s);
        nbad++;
      }
      if (rc == 0) rc = targetHaloTimeEvents(h, 0);
    } else {
      rc = targetHaloExchange(h, t_f, TARGET_STREAM_DEFAULT);
    }
    if (rc) {
      fprintf(stderr, "halo_check: rank %d: exchange failed: %s\n", rank, targetHaloError(h));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    copyFromTarget(f, t_f, fsize * sizeof(double));
    for (long s = 0; s < nsites; s++) {
      long x[4], g[4], r = s;
      int outside = 0; /* beyond a non-periodic end: the halo keeps the sentinel */
      int side[4] = {-1, -1, -1, -1}; /* the halo side along each axis, -1: inside */
      for (int d = ndim - 1; d >= 0; d--) {
        x[d] = r % in->extents[d];
        r /= in->extents[d];
        g[d] = in->offset[d] + x[d] - nh;
        if (x[d] < nh) side[d] = 0;
        if (x[d] >= in->extents[d] - nh) side[d] = 1;
        if (g[d] < 0 || g[d] >= global[d]) {
          if (cfg.periodic[d]) g[d] = (g[d] + global[d]) % global[d];
          else outside = 1;
        }
      }
      for (int c = 0; c < ncomp; c++) {
        int carried = 1; /* custom: through every face it came */
        for (int d = 0; d < ndim && custom; d++)
          if (side[d] >= 0 && !sent(c, d, !side[d])) carried = 0;
        double want = outside || !carried ? SENTINEL : value(ndim, global, g, c, round);
        double got = f[TDP_INDEX(nall, ncomp, base + s, c)];
        nchecked++;
        if (got != want && nbad++ < 3)
          fprintf(stderr, "halo_check: rank %d round %d: site %ld component %d: got %.17g, want %.17g\n",
                  rank, round, s, c, got, want);
      }
    }
  }
  for (long s = 0; s < nall && custom; s++) { /* the padding untouched */
    if (s == base) s += nsites;
    for (int c = 0; c < ncomp && s < nall; c++)
      if (f[TDP_INDEX(nall, ncomp, s, c)] != PADVAL && nbad++ < 3)
        fprintf(stderr, "halo_check: rank %d: pad site %ld component %d written\n", rank, s, c);
  }
  copyFromTarget(work, t_work, nwork * sizeof(double));
  for (int i = 0; i < nwork; i++)
    if (work[i] != 1.0 && nbad++ < 3) fprintf(stderr, "halo_check: interior work wrong\n");
  /* self_copy serves every periodic axis this rank holds alone, also beside
   * axes split over ranks, and no other */
  for (int d = 0; custom == 4 && d < ndim; d++) {
    const int alone = in->dims[d] == 1 && cfg.periodic[d];
    if ((alone ? self_calls[d] == 0 : self_calls[d] != 0) && nbad++ < 3)
      fprintf(stderr, "halo_check: rank %d: self_copy called %ld times for axis %d (%s)\n", rank,
              self_calls[d], d, alone ? "held alone: expected" : "not held alone: unexpected");
  }

  int reps = argc == 8 ? atoi(argv[7]) : 0;
  double per = 0.0;
  for (int r = 0; r < reps + 3 && reps > 0; r++) {
    if (r == 3) {
      MPI_Barrier(MPI_COMM_WORLD);
      per = MPI_Wtime();
    }
    if (targetHaloExchange(h, t_f, halo_stream)) {
      fprintf(stderr, "halo_check: rank %d: exchange failed: %s\n", rank, targetHaloError(h));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (reps > 0) {
    double t = (MPI_Wtime() - per) / reps, tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("halo_check: timing: %.3f ms per exchange (slowest rank), %.2f MB sent per rank, "
             "%.1f GB/s, transport %s\n",
             1e3 * tmax, in->bytes_per_exchange / 1e6, in->bytes_per_exchange / tmax / 1e9,
             targetHaloTransportName(in->transport));
  }

  long tot[2] = {nbad, nchecked}, sum[2];
  MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Bcast(sum, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    char dims[64] = "";
    for (int d = 0; d < ndim; d++)
      snprintf(dims + strlen(dims), sizeof(dims) - strlen(dims), "%s%d", d ? "x" : "", in->dims[d]);
    printf("halo_check: %s: %d ranks as %s, halo %d, %d components%s, transport %s: %ld of %ld "
           "values wrong\n",
           sum[0] ? "FAIL" : "PASS", in->nranks, dims, nh, ncomp,
           custom ? " (caller's pack: padded, a subset per face)" : "",
           targetHaloTransportName(in->transport), sum[0], sum[1]);
  }
  targetStreamDestroy(halo_stream);
  targetStreamDestroy(interior);
  targetFree(t_f);
  targetFree(t_work);
  free(f);
  free(work);
  targetHaloFree(h);
  targetFinalize();
  MPI_Finalize();
  return sum[0] ? 1 : 0;
}
