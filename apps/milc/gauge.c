#include <math.h>
#include <string.h>

#include "gauge.h"
#include "su3.h"

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void milcRngInit(milcRng *r, uint64_t seed, milcStream stream, uint64_t index) {
  r->s = mix64(mix64(seed + 0x9E3779B97F4A7C15ULL * (uint64_t) stream) ^
               (index * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL));
}

double milcRngUniform(milcRng *r) {
  r->s += 0x9E3779B97F4A7C15ULL;
  return ((double) (mix64(r->s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double milcRngGauss(milcRng *r) {
  const double u1 = milcRngUniform(r), u2 = milcRngUniform(r);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void milcRandomSU3(uint64_t seed, milcStream stream, uint64_t index, double u[18]) {
  milcRng r;
  milcRngInit(&r, seed, stream, index);
  for (int k = 0; k < 12; k++) u[k] = milcRngGauss(&r); /* rows 0 and 1 */
  /* row 0 normalised */
  double n = 0.0;
  for (int k = 0; k < 6; k++) n += u[k] * u[k];
  n = 1.0 / sqrt(n);
  for (int k = 0; k < 6; k++) u[k] *= n;
  /* row 1 -= <row0, row1> row0, twice (reorthogonalisation), normalised */
  for (int pass = 0; pass < 2; pass++) {
    double cr = 0.0, ci = 0.0; /* sum conj(a_j) b_j */
    for (int j = 0; j < 3; j++) {
      const double ar = u[2 * j], ai = u[2 * j + 1], br = u[6 + 2 * j], bi = u[6 + 2 * j + 1];
      cr += ar * br + ai * bi;
      ci += ar * bi - ai * br;
    }
    for (int j = 0; j < 3; j++) {
      const double ar = u[2 * j], ai = u[2 * j + 1];
      u[6 + 2 * j] -= cr * ar - ci * ai;
      u[6 + 2 * j + 1] -= cr * ai + ci * ar;
    }
  }
  n = 0.0;
  for (int k = 6; k < 12; k++) n += u[k] * u[k];
  n = 1.0 / sqrt(n);
  for (int k = 6; k < 12; k++) u[k] *= n;
  /* row 2 = conj(row0 x row1) */
  for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const double ajr = u[2 * j], aji = u[2 * j + 1], akr = u[2 * k], aki = u[2 * k + 1];
    const double bjr = u[6 + 2 * j], bji = u[6 + 2 * j + 1], bkr = u[6 + 2 * k],
                 bki = u[6 + 2 * k + 1];
    const double re = (ajr * bkr - aji * bki) - (akr * bjr - aki * bji);
    const double im = (ajr * bki + aji * bkr) - (akr * bji + aki * bjr);
    u[12 + 2 * i] = re;
    u[12 + 2 * i + 1] = -im;
  }
}

double milcSU3DetError(const double u[18]) {
  /* det = sum_i a_0i (cofactor): row 0 . (row1 x row2) */
  double dr = 0.0, di = 0.0;
  for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const double bjr = u[6 + 2 * j], bji = u[6 + 2 * j + 1], bkr = u[6 + 2 * k],
                 bki = u[6 + 2 * k + 1];
    const double cjr = u[12 + 2 * j], cji = u[12 + 2 * j + 1], ckr = u[12 + 2 * k],
                 cki = u[12 + 2 * k + 1];
    const double xr = (bjr * ckr - bji * cki) - (bkr * cjr - bki * cji);
    const double xi = (bjr * cki + bji * ckr) - (bkr * cji + bki * cjr);
    dr += u[2 * i] * xr - u[2 * i + 1] * xi;
    di += u[2 * i] * xi + u[2 * i + 1] * xr;
  }
  return hypot(dr - 1.0, di);
}

double milcSU3UnitarityError(const double u[18]) {
  double p[18], e = 0.0;
  su3MulNA(u, u, p);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const double d = hypot(p[2 * (3 * i + j)] - (i == j), p[2 * (3 * i + j) + 1]);
      if (d > e) e = d;
    }
  return e;
}

/* Interior site h of parity p: storage index, coordinates, global index. */
static int site_of(const milcLattice *L, int p, int h, int x[4], long *gi) {
  int s;
  const int site = milcSite(&L->g, p, h, &s, x);
  *gi = milcGlobalIndex(L->global, &L->g, x);
  return site;
}

static void set_link(const milcLattice *L, double *h_U, int site, int mu, const double u[18]) {
  (void) L; /* not every layout's TDP_INDEX reads the site count */
  for (int c = 0; c < 18; c++) h_U[TDP_INDEX(L->g.nall, MILC_NL, site, 18 * mu + c)] = u[c];
}
static void get_link(const milcLattice *L, const double *h_U, int site, int mu, double u[18]) {
  (void) L;
  for (int c = 0; c < 18; c++) u[c] = h_U[TDP_INDEX(L->g.nall, MILC_NL, site, 18 * mu + c)];
}

void milcGaugeUnit(const milcLattice *L, double *h_U) {
  double u[18];
  memset(u, 0, sizeof(u));
  u[0] = u[8] = u[16] = 1.0;
  for (int p = 0; p < 2; p++)
    for (int h = 0; h < L->g.nhalf; h++) {
      int x[4];
      long gi;
      const int site = site_of(L, p, h, x, &gi);
      for (int mu = 0; mu < 4; mu++) set_link(L, h_U, site, mu, u);
    }
}

void milcGaugeRandom(const milcLattice *L, double *h_U, uint64_t seed) {
  for (int p = 0; p < 2; p++)
    for (int h = 0; h < L->g.nhalf; h++) {
      int x[4];
      long gi;
      const int site = site_of(L, p, h, x, &gi);
      for (int mu = 0; mu < 4; mu++) {
        double u[18];
        milcRandomSU3(seed, MILC_STREAM_LINKS, 4 * (uint64_t) gi + mu, u);
        set_link(L, h_U, site, mu, u);
      }
    }
}

void milcGaugeTransformLinks(const milcLattice *L, double *h_U, uint64_t seed) {
  for (int p = 0; p < 2; p++)
    for (int h = 0; h < L->g.nhalf; h++) {
      int x[4];
      long gi;
      const int site = site_of(L, p, h, x, &gi);
      double g[18], gn[18], u[18], t[18];
      milcRandomSU3(seed, MILC_STREAM_GAUGE_TRANSFORM, gi, g);
      for (int mu = 0; mu < 4; mu++) {
        int xn[4];
        for (int d = 0; d < 4; d++) xn[d] = L->g.offset[d] + x[d];
        xn[mu] = (xn[mu] + 1) % L->global[mu];
        long gn_i = 0;
        for (int d = 3; d >= 0; d--) gn_i = gn_i * L->global[d] + xn[d];
        milcRandomSU3(seed, MILC_STREAM_GAUGE_TRANSFORM, gn_i, gn);
        get_link(L, h_U, site, mu, u);
        su3MulNN(g, u, t);
        su3MulNA(t, gn, u);
        set_link(L, h_U, site, mu, u);
      }
    }
}

void milcGaugeTransformVector(const milcLattice *L, double *h_v, int p, uint64_t seed) {
  for (int h = 0; h < L->g.nhalf; h++) {
    int x[4];
    long gi;
    const int site = site_of(L, p, h, x, &gi);
    double g[18], v[6], y[6];
    milcRandomSU3(seed, MILC_STREAM_GAUGE_TRANSFORM, gi, g);
    for (int c = 0; c < 6; c++) v[c] = h_v[TDP_INDEX(L->g.nall, MILC_NV, site, c)];
    su3MulVec(g, v, y);
    for (int c = 0; c < 6; c++) h_v[TDP_INDEX(L->g.nall, MILC_NV, site, c)] = y[c];
  }
}

void milcSourceRandom(const milcLattice *L, double *h_v, int p, uint64_t seed) {
  for (int h = 0; h < L->g.nhalf; h++) {
    int x[4];
    long gi;
    const int site = site_of(L, p, h, x, &gi);
    milcRng r;
    milcRngInit(&r, seed, MILC_STREAM_SOURCE, gi);
    for (int c = 0; c < 6; c++) h_v[TDP_INDEX(L->g.nall, MILC_NV, site, c)] = milcRngGauss(&r);
  }
}
