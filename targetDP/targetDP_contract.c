/*
 * targetDP_contract.c -- batched contractions (targetDP_contract.h): the
 * argument checks, the crossover, the team kernels (written with the team
 * API, compiled like a program: C with OpenMP, or CUDA by nvcc -x cu) and
 * the vendor path (cuBLAS on CUDA; a blocked OpenMP loop on C).
 *
 * Team kernels (the forms of Kokkos' Intrepid case study, Edwards, Trott
 * and Sunderland, JPDC 2014):
 *   kDotRows  nl or nr is 1: out[row] = dot(row of one side, the cell's
 *             vector of the other); a thread per row, its lanes over k
 *             (coalesced), a vector reduction. DataData, DataField.
 *   kTiled    an output tile of one cell per team, one output per team
 *             thread (its sum in TDP_TEAM_PRIVATE storage: a register on
 *             the GPU), the left and right rows through team scratch in
 *             CONTRACT_TK-deep slices: each element read from memory once
 *             per tile instead of once per output. FieldField, nk of
 *             CONTRACT_TK and more.
 *   kFlat     a thread per output, its dot product straight from memory
 *             (the case study's flat form). FieldField with nk below
 *             CONTRACT_TK: a tile's slice would be mostly zeros and its
 *             rows are few enough bytes to come from L1 (H100,
 *             h100-7fbb5af-teams, FFS L = R = 8, P = 8, 256 MiB: hand-
 *             written flat 2240 GB/s, tiled 1586, the team kernel 1224).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP_internal.h"

#ifdef __CUDACC__
#include <cublas_v2.h>
#endif

#define SITE(name) ((tdpSite){name, f, l})

/* The depth of a scratch slice: 16 doubles, a 128-byte row segment per
 * load (the case study's tile); rows padded by one double so that the
 * threads of a warp reading one column of a tile hit different banks. */
#define CONTRACT_TK 16
#define CONTRACT_TILE 16 /* tile edge when a cell's nl x nr does not fit one team */

static long cross_lr = TDP_CONTRACT_CROSSOVER_LR, cross_k = TDP_CONTRACT_CROSSOVER_K;
static int cross_env_read = 0;

static void read_env(void) {
  if (cross_env_read) return;
  cross_env_read = 1;
  const char *e = getenv("TARGETDP_CONTRACT_CROSSOVER");
  long lr, k;
  char extra;
  if (e && sscanf(e, "%ld,%ld%c", &lr, &k, &extra) == 2 && lr >= 1 && k >= 1) {
    cross_lr = lr;
    cross_k = k;
  } else if (e) {
    fprintf(stderr, "targetDP: warning: TARGETDP_CONTRACT_CROSSOVER=\"%s\" is not \"lr,k\" with "
            "both at least 1; the crossover stays %ld,%ld\n", e, cross_lr, cross_k);
  }
}

int tdpContractSetCrossover(long min_lr, long min_k, const char *f, int l) {
  read_env();
  if (min_lr < 1 || min_k < 1)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, SITE("targetContractSetCrossover"),
                   "min_lr %ld and min_k %ld must both be at least 1", min_lr, min_k);
  cross_lr = min_lr;
  cross_k = min_k;
  return TARGET_SUCCESS;
}

void targetContractGetCrossover(long *min_lr, long *min_k) {
  read_env();
  if (min_lr) *min_lr = cross_lr;
  if (min_k) *min_k = cross_k;
}

tdpContractPath targetContractChoice(long nl, long nr, long nk) {
  read_env();
  return nl >= cross_lr && nr >= cross_lr && nk >= cross_k ? TDP_CONTRACT_VENDOR
                                                          : TDP_CONTRACT_TEAM;
}

/* ---------------------------------------------------------------------- */
/* Team kernels. */

/* out[row] (= or +=) sum_k rows[row][k] * vecs[row / per][k]: rpt rows
 * per team (one per team thread), a row's k over the thread's lanes. */
TDP_TEAM_KERNEL(256) void tdpContractDotRows_(double *out, const double *rows, const double *vecs,
                                              long nrows, long per, long nk, long nteams, int rpt,
                                              int add) {
  TDP_TEAMS(team, nteams) {
    TDP_TEAM_THREADS(i, rpt) {
      const long row = team * rpt + i;
      if (row < nrows) {
        const double *a = rows + row * nk, *b = vecs + (per == 1 ? row : row / per) * nk;
        double s = 0.0;
        TDP_TEAM_VECTOR_SUM(k, nk, s) { s += a[k] * b[k]; }
        TDP_TEAM_ONE_LANE { out[row] = add ? out[row] + s : s; }
      }
    }
  }
}

/* An output tile of tl x tr (l, r) of one cell per team, team thread
 * t = l * tr + r; the rows of the tile through scratch, CONTRACT_TK at a
 * time (zeros past the ends, so every slice is a full one). Registers
 * (nvcc 13.0, sm_90): 32, as the hand-written natTiled; the slices' loads
 * over the team's threads (one lane each: TDP_TEAM_THREADS, not RANGE's
 * 2-D index) and (l, r) from t where used instead of a private copy took
 * it from 38, which on the H100 left 25 blocks of 64 threads per SM
 * against 32 (FFS L = 8: 0.77x the hand-written kernel). */
TDP_TEAM_KERNEL(1024) void tdpContractTiled_(double *out, const double *left, const double *right,
                                             long nl, long nr, long nk, long nteams, long ntl,
                                             long ntr, int tl, int tr, int add) {
  TDP_TEAMS(team, nteams) {
    const long c = team / (ntl * ntr), tile = team % (ntl * ntr);
    const long l0 = tile / ntr * tl, r0 = tile % ntr * tr;
    const int ml = (int) (nl - l0 < tl ? nl - l0 : tl), mr = (int) (nr - r0 < tr ? nr - r0 : tr);
    const double *a = left + (c * nl + l0) * nk, *b = right + (c * nr + r0) * nk;
    TDP_TEAM_SCRATCH2(double, as, tl, CONTRACT_TK + 1);
    TDP_TEAM_SCRATCH2(double, bs, tr, CONTRACT_TK + 1);
    TDP_TEAM_PRIVATE(double, acc, 1024, 1);
    TDP_TEAM_EACH(t) { TDP_PRIV(acc, t, 0) = 0.0; }
    for (long k0 = 0; k0 < nk; k0 += CONTRACT_TK) {
      const int mk = (int) (nk - k0 < CONTRACT_TK ? nk - k0 : CONTRACT_TK);
      TDP_TEAM_THREADS(i, tl * CONTRACT_TK) {
        const int ll = i / CONTRACT_TK, kk = i % CONTRACT_TK;
        TDP_SCR2(as, ll, kk) = ll < ml && kk < mk ? a[ll * nk + k0 + kk] : 0.0;
      }
      TDP_TEAM_THREADS(i, tr * CONTRACT_TK) {
        const int rr = i / CONTRACT_TK, kk = i % CONTRACT_TK;
        TDP_SCR2(bs, rr, kk) = rr < mr && kk < mk ? b[rr * nk + k0 + kk] : 0.0;
      }
      TDP_TEAM_BARRIER();
      TDP_TEAM_EACH(t) {
        const int ll = t / tr, rr = t - ll * tr;
        if (ll < tl) { /* the team is whole warps: threads past tl x tr idle */
          double s = 0.0;
          TDP_UNROLL(16)
          for (int kk = 0; kk < CONTRACT_TK; kk++) s += TDP_SCR2(as, ll, kk) * TDP_SCR2(bs, rr, kk);
          TDP_PRIV(acc, t, 0) += s;
        }
      }
      TDP_TEAM_BARRIER();
    }
    TDP_TEAM_EACH(t) {
      const int ll = t / tr, rr = t - ll * tr;
      if (ll < ml && rr < mr) {
        const long o = (c * nl + l0 + ll) * nr + r0 + rr;
        out[o] = add ? out[o] + TDP_PRIV(acc, t, 0) : TDP_PRIV(acc, t, 0);
      }
    }
  }
}

/* out[o] (= or +=) the dot product of output o = (c, l, r), a team
 * thread per output, CONTRACT_FLAT_TEAM outputs per team. */
#define CONTRACT_FLAT_TEAM 256
TDP_TEAM_KERNEL(CONTRACT_FLAT_TEAM) void tdpContractFlat_(double *out, const double *left,
                                                          const double *right, long nl, long nr,
                                                          long nk, long nout, long nteams,
                                                          int add) {
  TDP_TEAMS(team, nteams) {
    TDP_TEAM_EACH(t) {
      const long o = team * TDP_TEAM_SIZE() + t;
      if (o < nout) {
        const long cl = o / nr, r = o - cl * nr, c = cl / nl;
        const double *a = left + cl * nk, *b = right + (c * nr + r) * nk;
        double s = 0.0;
        for (long k = 0; k < nk; k++) s += a[k] * b[k];
        out[o] = add ? out[o] + s : s;
      }
    }
  }
}

static long pow2_at_least(long n, long cap) {
  long p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

static int contract_team(double *out, const double *left, const double *right, long nc, long nl,
                         long nr, long nk, int add) {
  if (nl == 1 || nr == 1) {
    /* the side with the rows is the one with more than one per cell */
    const int rows_left = nr == 1;
    const long per = rows_left ? nl : nr, nrows = nc * per;
    const long lanes = pow2_at_least(nk, 32), rpt = 256 / lanes;
    const long nteams = (nrows + rpt - 1) / rpt;
    TDP_LAUNCH_TEAMS(tdpContractDotRows_, nteams, rpt, lanes, 0, out, rows_left ? left : right,
                     rows_left ? right : left, nrows, per, nk, nteams, (int) rpt, add);
  } else if (nk < CONTRACT_TK) {
    const long nout = nc * nl * nr, nteams = (nout + CONTRACT_FLAT_TEAM - 1) / CONTRACT_FLAT_TEAM;
    TDP_LAUNCH_TEAMS(tdpContractFlat_, nteams, CONTRACT_FLAT_TEAM, 1, 0, out, left, right, nl, nr,
                     nk, nout, nteams, add);
  } else {
    const int whole = nl * nr <= 1024;
    const int tl = whole ? (int) nl : CONTRACT_TILE, tr = whole ? (int) nr : CONTRACT_TILE;
    const long nthreads = ((long) tl * tr + 31) / 32 * 32;
    const long ntl = (nl + tl - 1) / tl, ntr = (nr + tr - 1) / tr, nteams = nc * ntl * ntr;
    const size_t bytes = TDP_SCRATCH_BYTES(double, tl * (CONTRACT_TK + 1)) +
                         TDP_SCRATCH_BYTES(double, tr * (CONTRACT_TK + 1));
    TDP_LAUNCH_TEAMS(tdpContractTiled_, nteams, nthreads, 1, bytes, out, left, right, nl, nr, nk,
                     nteams, ntl, ntr, tl, tr, add);
  }
  return TARGET_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* The vendor path. */

#ifdef __CUDACC__
static cublasHandle_t handle;
static int have_handle = 0;

static const char *cublas_name(cublasStatus_t s) {
  switch (s) {
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  default: return "a cuBLAS error";
  }
}

/* Row-major out_c (nl x nr) = left_c (nl x nk) right_c^T is, column-major,
 * out_c^T (nr x nl) = right_c^T left_c: cuBLAS's C = op(A) op(B) with
 * A = right_c (nk x nr column-major, transposed), B = left_c (nk x nl). */
static int contract_vendor(double *out, const double *left, const double *right, long nc, long nl,
                           long nr, long nk, int add, tdpSite at) {
  if (!have_handle) {
    cublasStatus_t s = cublasCreate(&handle);
    if (s != CUBLAS_STATUS_SUCCESS)
      return tdpFail(TARGET_ERROR_DEVICE, at, "cublasCreate: %s", cublas_name(s));
    have_handle = 1;
  }
  const double one = 1.0, beta = add ? 1.0 : 0.0;
  const int ld = nk > 1 ? (int) nk : 1;
  for (long c0 = 0; c0 < nc; c0 += 65535L * 1024) { /* the batch count is an int */
    const long nb = nc - c0 < 65535L * 1024 ? nc - c0 : 65535L * 1024;
    cublasStatus_t s = cublasDgemmStridedBatched(
        handle, CUBLAS_OP_T, CUBLAS_OP_N, (int) nr, (int) nl, (int) nk, &one, right + c0 * nr * nk,
        ld, nr * nk, left + c0 * nl * nk, ld, nl * nk, &beta, out + c0 * nl * nr, (int) nr,
        nl * nr, (int) nb);
    if (s != CUBLAS_STATUS_SUCCESS)
      return tdpFail(TARGET_ERROR_DEVICE, at, "cublasDgemmStridedBatched(%ld cells of %ld x %ld x "
                     "%ld): %s", nb, nl, nr, nk, cublas_name(s));
  }
  return TARGET_SUCCESS;
}

void tdpContractFinalize_(void) {
  if (have_handle) cublasDestroy(handle);
  have_handle = 0;
}
#else
/* 4 x 4 outputs at a time (16 sums in registers, their k loop
 * vectorised), each left and right row read once per block: a quarter
 * of the memory traffic of one dot product per output. */
#define CONTRACT_RB 4
static void block4(double *o, const double *a, const double *b, long nr, long nk, int add) {
  double s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
  double s20 = 0, s21 = 0, s22 = 0, s23 = 0, s30 = 0, s31 = 0, s32 = 0, s33 = 0;
  const double *a0 = a, *a1 = a + nk, *a2 = a + 2 * nk, *a3 = a + 3 * nk;
  const double *b0 = b, *b1 = b + nk, *b2 = b + 2 * nk, *b3 = b + 3 * nk;
  TDP_OMP_SIMD_(reduction(+ : s00, s01, s02, s03, s10, s11, s12, s13, s20, s21, s22, s23, s30, \
                          s31, s32, s33))
  for (long k = 0; k < nk; k++) {
    s00 += a0[k] * b0[k]; s01 += a0[k] * b1[k]; s02 += a0[k] * b2[k]; s03 += a0[k] * b3[k];
    s10 += a1[k] * b0[k]; s11 += a1[k] * b1[k]; s12 += a1[k] * b2[k]; s13 += a1[k] * b3[k];
    s20 += a2[k] * b0[k]; s21 += a2[k] * b1[k]; s22 += a2[k] * b2[k]; s23 += a2[k] * b3[k];
    s30 += a3[k] * b0[k]; s31 += a3[k] * b1[k]; s32 += a3[k] * b2[k]; s33 += a3[k] * b3[k];
  }
  const double s[4][4] = {{s00, s01, s02, s03}, {s10, s11, s12, s13}, {s20, s21, s22, s23},
                          {s30, s31, s32, s33}};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) o[i * nr + j] = add ? o[i * nr + j] + s[i][j] : s[i][j];
}
static void block_edge(double *o, const double *a, const double *b, int ml, int mr, long nr,
                       long nk, int add) {
  for (int i = 0; i < ml; i++)
    for (int j = 0; j < mr; j++) {
      double s = 0.0;
      TDP_OMP_SIMD_(reduction(+ : s))
      for (long k = 0; k < nk; k++) s += a[i * nk + k] * b[j * nk + k];
      o[i * nr + j] = add ? o[i * nr + j] + s : s;
    }
}
static int contract_vendor(double *out, const double *left, const double *right, long nc, long nl,
                           long nr, long nk, int add, tdpSite at) {
  (void) at;
  const long nlb = (nl + CONTRACT_RB - 1) / CONTRACT_RB;
  TDP_OMP_(parallel for collapse(2) schedule(static))
  for (long c = 0; c < nc; c++)
    for (long lb = 0; lb < nlb; lb++) {
      const long l0 = lb * CONTRACT_RB;
      const int ml = (int) (nl - l0 < CONTRACT_RB ? nl - l0 : CONTRACT_RB);
      const double *a = left + (c * nl + l0) * nk;
      for (long r0 = 0; r0 < nr; r0 += CONTRACT_RB) {
        const int mr = (int) (nr - r0 < CONTRACT_RB ? nr - r0 : CONTRACT_RB);
        const double *b = right + (c * nr + r0) * nk;
        double *o = out + (c * nl + l0) * nr + r0;
        if (ml == CONTRACT_RB && mr == CONTRACT_RB) block4(o, a, b, nr, nk, add);
        else block_edge(o, a, b, ml, mr, nr, nk, add);
      }
    }
  return TARGET_SUCCESS;
}
void tdpContractFinalize_(void) {}
#endif

/* ---------------------------------------------------------------------- */

static int overlap(const void *p, size_t np, const void *q, size_t nq) {
  const char *a = (const char *) p, *b = (const char *) q;
  return np > 0 && nq > 0 && a < b + nq && b < a + np;
}

int tdpContract(double *t_out, const double *t_left, const double *t_right, long ncells, long nl,
                long nr, long nk, tdpContractMode mode, tdpContractPath path, const char *f,
                int l) {
  tdpSite at = SITE("targetContract");
  int rc = tdpCheckLive(at);
  if (rc) return rc;
  if (mode != TDP_CONTRACT_SET && mode != TDP_CONTRACT_ADD)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "mode %d is neither TDP_CONTRACT_SET nor "
                   "TDP_CONTRACT_ADD", (int) mode);
  if (path != TDP_CONTRACT_AUTO && path != TDP_CONTRACT_TEAM && path != TDP_CONTRACT_VENDOR)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "path %d is not TDP_CONTRACT_AUTO, _TEAM or "
                   "_VENDOR", (int) path);
  if (ncells < 0 || nl < 1 || nr < 1 || nk < 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "ncells %ld, nl %ld, nr %ld, nk %ld (want "
                   "ncells >= 0, nl >= 1, nr >= 1, nk >= 0)", ncells, nl, nr, nk);
  /* every extent below 2^31 (cuBLAS takes int) and every array below 2^62 bytes */
  const long big = 2147483647L;
  if (nl > big || nr > big || nk > big ||
      (ncells > 0 && (nl * nr > (1L << 59) / ncells || (nk > 0 && nl > (1L << 59) / ncells / nk) ||
                      (nk > 0 && nr > (1L << 59) / ncells / nk))))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "ncells %ld, nl %ld, nr %ld, nk %ld: an "
                   "extent of 2^31 or more, or an array too large", ncells, nl, nr, nk);
  const size_t bo = (size_t) ncells * nl * nr * sizeof(double);
  const size_t bl = (size_t) ncells * nl * nk * sizeof(double);
  const size_t br = (size_t) ncells * nr * nk * sizeof(double);
  if (bo && (rc = tdpCheckTarget(t_out, bo, "t_out", at))) return rc;
  if (bl && (rc = tdpCheckTarget(t_left, bl, "t_left", at))) return rc;
  if (br && (rc = tdpCheckTarget(t_right, br, "t_right", at))) return rc;
  if (overlap(t_out, bo, t_left, bl) || overlap(t_out, bo, t_right, br))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "t_out overlaps %s: the output must be an "
                   "array of its own", overlap(t_out, bo, t_left, bl) ? "t_left" : "t_right");
  if (ncells == 0) return TARGET_SUCCESS;
  if (path == TDP_CONTRACT_AUTO) path = targetContractChoice(nl, nr, nk);
  const int add = mode == TDP_CONTRACT_ADD;
  const unsigned long fails = tdpFailCount();
  if (path == TDP_CONTRACT_VENDOR)
    rc = contract_vendor(t_out, t_left, t_right, ncells, nl, nr, nk, add, at);
  else
    rc = contract_team(t_out, t_left, t_right, ncells, nl, nr, nk, add);
  if (rc == TARGET_SUCCESS && tdpFailCount() != fails) rc = targetLastError();
  return rc;
}
