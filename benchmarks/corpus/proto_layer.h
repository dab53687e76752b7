/*
 * proto_layer.h -- prototypes of layer forms the corpus measured as
 * missing (issue 28), kept beside the corpus that measures them until they
 * move into the layer. Nothing outside benchmarks/corpus/ includes this
 * file. Phase 2 moved the box loops with unrolled passes and collapsed
 * rows, the box reductions (TDP_TLP_2D_SUM, TDP_LAUNCH_BOX_REDUCE), the
 * shell pass (TDP_TLP_3D_SHELL, TDP_LAUNCH_SHELL) and TDP_INLINE into
 * targetDP_box.h / targetDP.h (docs/api.md); what is left:
 *
 * PROTO_TLP_SUM(base, N, a, ...)
 *   TDP_TLP_SUM in two levels on the C backend: threads over blocks of
 *   PROTO_SUM_BLOCK_ sites ("omp parallel for reduction"), each block one
 *   "omp simd reduction" loop. The layer's clang form is already this (its
 *   TDP_RCHUNK_ chunks, issue 25); on gcc the layer keeps one "omp parallel
 *   for simd reduction" loop. Whether gcc gains from the two levels is
 *   what the norm shape's proto measures; the reduction machinery lives in
 *   targetDP.h, which another change is reorganising (issue 26).
 */
#ifndef CORPUS_PROTO_LAYER_H
#define CORPUS_PROTO_LAYER_H

#include "targetDP.h"

#define PROTO_RSUM_CLAUSE_(v) reduction(+ : v)
#define PROTO_RADDR_(v) TDP_RADDR_(TDP_RSUM(v))

#ifdef __CUDACC__

#define PROTO_TLP_SUM(baseIndex, N, ...) TDP_TLP_SUM(baseIndex, N, __VA_ARGS__)

#else /* C backend */

/* Blocks of sites over the threads, one simd reduction loop per block
 * (TDP_ILP_REDUCE is a single pass here, as in TDP_TLP_REDUCE). */
#define PROTO_SUM_BLOCK_ 4096
#define PROTO_TLP_SUM(baseIndex, N, ...)                                                       \
  TDP_RREGISTER_(TDP_EACH_(PROTO_RADDR_, __VA_ARGS__))                                         \
  TDP_OMP_(parallel for schedule(static) TDP_EACH_(PROTO_RSUM_CLAUSE_, __VA_ARGS__))           \
  for (long tdp_b_ = 0; tdp_b_ < (N); tdp_b_ += PROTO_SUM_BLOCK_)                              \
    for (long tdp_e_ = (N) - tdp_b_ < PROTO_SUM_BLOCK_ ? (N) : tdp_b_ + PROTO_SUM_BLOCK_,      \
              tdp_o5_ = 1; tdp_o5_; tdp_o5_ = 0)                                               \
      TDP_OMP_SIMD_(TDP_EACH_(PROTO_RSUM_CLAUSE_, __VA_ARGS__))                                \
      for (long baseIndex = tdp_b_; baseIndex < tdp_e_; baseIndex++)

#endif /* __CUDACC__ */

#endif /* CORPUS_PROTO_LAYER_H */
