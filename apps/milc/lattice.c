#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "lattice.h"

int milcLatticeCreate(milcLattice *L, const int global[4], const int n[4], const int offset[4],
                      char *err, size_t errlen) {
  memset(L, 0, sizeof(*L));
  milcGeom *g = &L->g;
  long long ext[4];
  for (int d = 0; d < 4; d++) {
    /* Staggered fermions need even extents: the phases and the even/odd
     * split must be the same on the periodic images. */
    if (n[d] < 2 || n[d] % 2) {
      snprintf(err, errlen, "local extent %d along %c must be even and >= 2", n[d], "xyzt"[d]);
      return -1;
    }
    L->global[d] = global[d];
    g->n[d] = n[d];
    /* An axis held whole wraps periodically on the rank: no halo. */
    g->hw[d] = n[d] < global[d];
    L->halo = L->halo || g->hw[d];
    ext[d] = (long long) n[d] + 2LL * g->hw[d];
    g->nh[d] = (int) ext[d]; /* used only once the product is checked */
    g->offset[d] = offset[d];
  }
  /* Sites are counted in ints: the block with its halo, checked in 64
   * bits before any product is used (65536^4 wraps a long to 0). */
  long long vhalo = 0;
  if (cliProduct(ext, 4, 1LL << 30, &vhalo)) {
    char num[64];
    snprintf(err, errlen, "local lattice of %s sites (halo included) is too large for int "
             "indices (at most 2^30)", cliProductText(ext, 4, num, sizeof(num)));
    return -1;
  }
  const long nint = (long) n[0] * n[1] * n[2] * n[3]; /* < vhalo: no overflow */
  g->str[0] = 1;
  for (int d = 1; d < 4; d++) g->str[d] = g->str[d - 1] * g->nh[d - 1];
  for (int d = 0; d < 4; d++) {
    g->wrap[d] = g->hw[d] ? 0 : n[d] * g->str[d];
    g->s0 += g->hw[d] * g->str[d];
  }
  g->par0 = (offset[0] + offset[1] + offset[2] + offset[3]) & 1;
  g->nhalf = (int) (nint / 2);
  /* Each parity starts on a boundary of m sites (and VVL, SAL): aligned
   * vectors. vh is an odd multiple of m: in SoA a component is nall = 2 vh
   * sites after the one before it, and a power-of-two lattice (16^4, 32^4)
   * made that stride a multiple of 4 KiB, so the 72 link and 6 vector
   * components of a site fell into one set of each CPU cache (D on the
   * 16-core host: 16% of triad in SoA VVL 8 against 60% in AoSoA VVL 4;
   * 56% with m = 8 and the odd multiple). On a GPU m = 64, a warp's 32
   * doubles on a 256-byte boundary: with m = 8 D lost 3 points of triad at
   * 32^4 on the H100 (90.8 against 93.9%). */
  int m = TDP_GPU ? 64 : 8;
  while (m % (SAL) || m % (VVL)) m += 8;
  long nm = (vhalo / 2 + m - 1) / m;
  if (nm % 2 == 0) nm++;
  g->vh = (int) (nm * m);
  g->nall = 2 * g->vh;

  /* Interior / boundary split of each parity, by half index: a site is
   * boundary when it lies on a face of an axis with halo. */
  for (int p = 0; p < 2; p++) {
    int *hin = (int *) malloc((g->nhalf + 1) * sizeof(int));
    int *hbd = (int *) malloc((g->nhalf + 1) * sizeof(int));
    if (!hin || !hbd) {
      snprintf(err, errlen, "out of host memory for the site lists");
      return -1;
    }
    for (int h = 0; h < g->nhalf; h++) {
      int s, x[4], inner = 1;
      milcSite(g, p, h, &s, x);
      for (int d = 0; d < 4; d++) inner = inner && (!g->hw[d] || (x[d] >= 1 && x[d] <= n[d] - 2));
      if (inner) hin[L->nin[p]++] = h;
      else hbd[L->nbd[p]++] = h;
    }
    targetMalloc(&L->t_hin[p], (L->nin[p] + 1) * sizeof(int));
    targetMalloc(&L->t_hbd[p], (L->nbd[p] + 1) * sizeof(int));
    if (L->nin[p]) copyToTarget(L->t_hin[p], hin, L->nin[p] * sizeof(int));
    if (L->nbd[p]) copyToTarget(L->t_hbd[p], hbd, L->nbd[p] * sizeof(int));
    free(hin);
    free(hbd);
  }
  return 0;
}

void milcLatticeFree(milcLattice *L) {
  for (int p = 0; p < 2; p++) {
    targetFree(L->t_hin[p]);
    targetFree(L->t_hbd[p]);
  }
  if (L->halos) {
    targetHalo **h = &L->halos->h[0][0][0];
    for (int i = 0; i < 12; i++) targetHaloFree(h[i]);
    if (L->halos->stream) targetStreamDestroy(L->halos->stream);
    free(L->halos);
  }
  memset(L, 0, sizeof(*L));
}

int milcLatticeConnect(milcLattice *L, MPI_Comm comm, const int dims[4], char *err,
                       size_t errlen) {
  L->halos = (milcHalos *) calloc(1, sizeof(milcHalos));
  if (!L->halos) {
    snprintf(err, errlen, "out of host memory");
    return -1;
  }
  L->halos->comm = comm;
  for (int d = 0; d < 4; d++) {
    if ((dims[d] > 1) != L->g.hw[d]) {
      snprintf(err, errlen, "axis %c: %d rank(s) but the lattice was made %s halo", "xyzt"[d],
               dims[d], L->g.hw[d] ? "with" : "without");
      return -1;
    }
    L->halos->dims[d] = dims[d];
  }
  if (targetStreamCreateWithPriority(&L->halos->stream, TARGET_STREAM_PRIORITY_HIGH)) {
    snprintf(err, errlen, "cannot create the halo stream: %s", targetLastErrorString());
    return -1;
  }
  return 0;
}

/* The faces of parity p (-1: both) as site lists: along an axis d with
 * halo, side s, the interior layer next to the side (sent) and the halo
 * layer beyond it (received), the other coordinates interior, in one loop
 * order on every rank (a neighbour's global coordinates there are ours).
 * Only the axes' faces: the staggered operator reads no diagonal
 * neighbour. An axis without halo has empty faces: it wraps in the
 * kernels. */
static targetHalo *make_halo(const milcLattice *L, int ncomp, int p, size_t esize) {
  const milcGeom *g = &L->g;
  targetHaloSites sites;
  memset(&sites, 0, sizeof(sites));
  sites.nall = g->nall;
  sites.elem_size = esize;
  long *mem[4][2][2];
  for (int d = 0; d < 4; d++) {
    long nface = 1;
    for (int e = 0; e < 4; e++)
      if (e != d) nface *= g->n[e];
    for (int s = 0; s < 2; s++) {
      for (int k = 0; k < 2; k++) {
        mem[d][s][k] = (long *) malloc((nface + 1) * sizeof(long));
        if (!mem[d][s][k]) {
          fprintf(stderr, "milc: error: out of host memory for the halo lists\n");
          exit(1);
        }
      }
      long ns = 0, nr = 0;
      int x[4];
      if (g->hw[d]) /* else no face: the axis wraps */
        for (x[3] = 0; x[3] < g->n[3]; x[3]++)
          for (x[2] = 0; x[2] < g->n[2]; x[2]++)
            for (x[1] = 0; x[1] < g->n[1]; x[1]++)
              for (x[0] = 0; x[0] < g->n[0]; x[0]++) {
                if (x[d] != 0) continue; /* one layer: coordinate d set below */
                int snd[4], rcv[4];
                for (int e = 0; e < 4; e++) snd[e] = rcv[e] = x[e];
                snd[d] = s ? g->n[d] - 1 : 0;
                rcv[d] = s ? g->n[d] : -1;
                /* Each list keeps the sites of parity p: what we send
                 * lands on the neighbour's list of the opposite side,
                 * filtered there by the parity of the same global site. */
                const int qs = (snd[0] + snd[1] + snd[2] + snd[3] + g->par0) & 1;
                const int qr = (rcv[0] + rcv[1] + rcv[2] + rcv[3] + g->par0) & 1;
                if (p < 0 || qs == p) mem[d][s][0][ns++] = milcSiteAt(g, snd);
                if (p < 0 || qr == p) mem[d][s][1][nr++] = milcSiteAt(g, rcv);
              }
      /* a slab of even extents holds as many sites of each parity */
      sites.n[d][s] = ns < nr ? ns : nr;
      sites.send[d][s] = mem[d][s][0];
      sites.recv[d][s] = mem[d][s][1];
    }
  }
  targetHaloConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.ndim = 4;
  for (int d = 0; d < 4; d++) {
    cfg.global[d] = L->global[d];
    cfg.dims[d] = L->halos->dims[d];
    cfg.periodic[d] = 1;
  }
  cfg.nhalo = 1;
  cfg.ncomp = ncomp;
  cfg.transport = TARGET_HALO_AUTO;
  cfg.sites = &sites;
  targetHalo *h = NULL;
  char err[400];
  if (targetHaloCreate(L->halos->comm, &cfg, &h, err, sizeof(err))) {
    fprintf(stderr, "milc: error: halo exchange: %s\n", err);
    MPI_Abort(L->halos->comm, 2);
  }
  for (int d = 0; d < 4; d++)
    for (int s = 0; s < 2; s++)
      for (int k = 0; k < 2; k++) free(mem[d][s][k]);
  return h;
}

static targetHalo *get_halo(const milcLattice *L, int ncomp, int p, size_t esize) {
  if (!L->halos) {
    fprintf(stderr, "milc: error: halo exchange on a lattice not connected (milcLatticeConnect)\n");
    exit(2);
  }
  targetHalo **h = &L->halos->h[esize == sizeof(float)][ncomp == MILC_NL][p < 0 ? 2 : p];
  if (!*h) *h = make_halo(L, ncomp, p, esize);
  return *h;
}

void milcHaloStart(const milcLattice *L, void *t_f, int ncomp, int p, size_t esize) {
  if (!L->halo) return; /* every axis wraps on the rank */
  targetHalo *h = get_halo(L, ncomp, p, esize);
  if (targetHaloStartSites(h, t_f, L->halos->stream)) {
    fprintf(stderr, "milc: error: halo exchange: %s\n", targetHaloError(h));
    MPI_Abort(L->halos->comm, 1);
  }
}

void milcHaloWait(const milcLattice *L, void *t_f, int ncomp, int p, size_t esize) {
  (void) t_f;
  if (!L->halo) return;
  targetHalo *h = get_halo(L, ncomp, p, esize);
  if (targetHaloWait(h)) {
    fprintf(stderr, "milc: error: halo exchange: %s\n", targetHaloError(h));
    MPI_Abort(L->halos->comm, 1);
  }
}

void milcHaloQueue(const milcLattice *L, void *t_f, int ncomp, int p, size_t esize) {
  if (!L->halo) return;
  targetHalo *h = get_halo(L, ncomp, p, esize);
  if (targetHaloExchangeAsync(h, t_f, L->halos->stream)) {
    fprintf(stderr, "milc: error: halo exchange: %s\n", targetHaloError(h));
    MPI_Abort(L->halos->comm, 1);
  }
}

int milcHaloQueueFirst(const milcLattice *L, int ncomp, int p, size_t esize) {
  if (!L->halo) return 0;
  return targetHaloGetInfo(get_halo(L, ncomp, p, esize))->transport == TARGET_HALO_PUT;
}

const char *milcHaloTransport(const milcLattice *L) {
  if (!L->halo) return "none (no axis split)";
  if (!L->halos) return "not connected";
  targetHalo *const *h = &L->halos->h[0][0][0];
  for (int i = 0; i < 12; i++)
    if (h[i]) return targetHaloTransportName(targetHaloGetInfo(h[i])->transport);
  return "none made yet";
}

size_t milcFieldBytes(const milcLattice *L, int ncomp, size_t esize) {
  return TDP_FIELD_SIZE(L->g.nall, ncomp) * esize;
}

void *milcFieldAlloc(const milcLattice *L, int ncomp, size_t esize) {
  void *t_f = NULL;
  targetCalloc(&t_f, milcFieldBytes(L, ncomp, esize));
  return t_f;
}

size_t milcPrecisionSize(milcPrecision prec) {
  return prec == MILC_SINGLE ? sizeof(float) : sizeof(double);
}

void milcUpload(const milcLattice *L, void *t_f, const double *h_f, int ncomp, milcPrecision prec) {
  const size_t n = TDP_FIELD_SIZE(L->g.nall, ncomp);
  if (prec == MILC_DOUBLE) {
    copyToTarget(t_f, h_f, n * sizeof(double));
    return;
  }
  float *tmp = (float *) malloc(n * sizeof(float));
  if (!tmp) {
    fprintf(stderr, "milc: out of host memory for a %zu-value field\n", n);
    exit(1);
  }
  for (size_t i = 0; i < n; i++) tmp[i] = (float) h_f[i];
  copyToTarget(t_f, tmp, n * sizeof(float));
  free(tmp);
}

void milcDownload(const milcLattice *L, double *h_f, const void *t_f, int ncomp,
                  milcPrecision prec) {
  const size_t n = TDP_FIELD_SIZE(L->g.nall, ncomp);
  if (prec == MILC_DOUBLE) {
    copyFromTarget(h_f, t_f, n * sizeof(double));
    return;
  }
  float *tmp = (float *) malloc(n * sizeof(float));
  if (!tmp) {
    fprintf(stderr, "milc: out of host memory for a %zu-value field\n", n);
    exit(1);
  }
  copyFromTarget(tmp, t_f, n * sizeof(float));
  for (size_t i = 0; i < n; i++) h_f[i] = tmp[i];
  free(tmp);
}
