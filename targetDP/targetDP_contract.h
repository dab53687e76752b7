/*
 * targetDP_contract.h -- batched contractions: for every cell c of a batch,
 *     out[c][l][r] (=, or +=) sum_k left[c][l][k] * right[c][r][k]
 * (row-major, cells outermost: the layout of Intrepid's ArrayTools
 * contractions). What it holds: the host API of targetDP_contract.c.
 * What it may use: the team API (targetDP_team.h), the core host API, and
 * cuBLAS on the CUDA backend. Included by targetDP.h (never on its own).
 *
 * The nine Intrepid contractions are all this one call (docs/api.md,
 * "Batched contractions"): DataData* are nl = nr = 1, DataField* nr = 1
 * (nl = fields), FieldField* nl = left fields, nr = right fields; k runs
 * over the points times the components (P, P*D or P*D1*D2).
 *
 * Two ways to compute it, chosen per call by a crossover:
 *   TDP_CONTRACT_TEAM    the layer's team kernels (a tile of outputs per
 *                        team through team scratch; a dot product per
 *                        thread with vector lanes when nl or nr is 1)
 *   TDP_CONTRACT_VENDOR  the vendor library where there is one (CUDA:
 *                        cublasDgemmStridedBatched); on the C backend a
 *                        cache-blocked OpenMP loop (register blocks of
 *                        4 x 4 outputs)
 * AUTO takes VENDOR when nl >= min_lr, nr >= min_lr and nk >= min_k: the
 * vendor's GEMM wins once there is enough reuse per cell; small cells are
 * memory-bound and the team kernel streams them at the copy's speed.
 */
#ifndef TARGETDP_H
#error "targetDP_contract.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_CONTRACT_H
#define TARGETDP_CONTRACT_H

/* The crossover's defaults (-D to change them at build time;
 * targetContractSetCrossover or TARGETDP_CONTRACT_CROSSOVER="lr,k" at run
 * time). CUDA: measured on one H100 (benchmarks/results/h100-7fbb5af-teams/
 * crossover.txt: TEAM against cuBLAS over L = R 2..64, K 8..512, 64 MiB a
 * point): cuBLAS from L = R = 12 and K = 32 up, and at L = R = 16 from
 * K = 8; the team kernel at every K for L = R <= 8 but two (L = R = 8,
 * K >= 128, and L = R = 4, K = 512). 12,8 costs at worst 2.41x the faster
 * path on that grid (L = R = 8, K = 512: the team kernel); the earlier
 * 16,16 cost 4.85x (L = R = 12, K = 512). C: the blocked loop won at every
 * shape measured on the 2-core development box, the team kernel only
 * where nl or nr is 1 (docs/performance.md, "Teams"). */
#ifndef TDP_CONTRACT_CROSSOVER_LR
#ifdef __CUDACC__
#define TDP_CONTRACT_CROSSOVER_LR 12
#else
#define TDP_CONTRACT_CROSSOVER_LR 2
#endif
#endif
#ifndef TDP_CONTRACT_CROSSOVER_K
#ifdef __CUDACC__
#define TDP_CONTRACT_CROSSOVER_K 8
#else
#define TDP_CONTRACT_CROSSOVER_K 1
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TDP_CONTRACT_SET = 0, TDP_CONTRACT_ADD = 1 } tdpContractMode;
typedef enum { TDP_CONTRACT_AUTO = 0, TDP_CONTRACT_TEAM = 1, TDP_CONTRACT_VENDOR = 2 } tdpContractPath;

int tdpContract(double *t_out, const double *t_left, const double *t_right, long ncells, long nl,
                long nr, long nk, tdpContractMode mode, tdpContractPath path, const char *f, int l);
/* t_out[c][l][r] (=: TDP_CONTRACT_SET, +=: TDP_CONTRACT_ADD)
 *   sum_k t_left[c][l][k] * t_right[c][r][k], target arrays of ncells*nl*nr,
 *   ncells*nl*nk and ncells*nr*nk doubles (the output must not overlap
 *   the inputs) */
#define targetContract(t_out, t_left, t_right, ncells, nl, nr, nk, mode)                    \
  tdpContract((t_out), (t_left), (t_right), (ncells), (nl), (nr), (nk), (mode),            \
              TDP_CONTRACT_AUTO, TDP_AT_)
/* the same by a given path (TDP_CONTRACT_TEAM or TDP_CONTRACT_VENDOR) */
#define targetContractPath(t_out, t_left, t_right, ncells, nl, nr, nk, mode, path)          \
  tdpContract((t_out), (t_left), (t_right), (ncells), (nl), (nr), (nk), (mode), (path), TDP_AT_)

/* The crossover (both at least 1); the path AUTO takes for a shape. */
int tdpContractSetCrossover(long min_lr, long min_k, const char *f, int l);
#define targetContractSetCrossover(min_lr, min_k) tdpContractSetCrossover((min_lr), (min_k), TDP_AT_)
void targetContractGetCrossover(long *min_lr, long *min_k);
tdpContractPath targetContractChoice(long nl, long nr, long nk);

void tdpContractFinalize_(void); /* targetFinalize: the cuBLAS handle */

#ifdef __cplusplus
}
#endif

#endif /* TARGETDP_CONTRACT_H */
