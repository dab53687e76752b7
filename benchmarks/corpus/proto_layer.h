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
 *
 * PROTO_TLP_3D_EDGE(box, nh, x, y, z0, base, edge)
 *   One pass over every site of the box in memory order, `edge` (0 or 1,
 *   the same for every lane of a stride) saying whether the stride lies in
 *   the shell of depth nh: the interior update and the boundary copy of
 *   heat3d / stencil27 in one launch (TDP_LAUNCH_BOX over targetBoxAll):
 *     PROTO_TLP_3D_EDGE(box, 1, x, y, z0, base, edge) {
 *       if (edge) { TDP_ILP(v) copy; } else { TDP_ILP(v) update; }
 *     }
 *   Why: the interior launch plus a shell pass reads and writes the lines
 *   of both ends of every interior row a second time, after they have left
 *   the cache, and a row end stored ahead of its row breaks the stores'
 *   stream: heat3d at 161^3 on one thread of the 2-core box (issue 28):
 *   interior 8.1 ms + shell 1.9 ms; the native with its row ends stored
 *   first 9.8 ms, stored in order 7.6-8.3 ms (clang 14, gcc 12). On the C
 *   backend a row is four segments: nh edge sites, the interior's full
 *   strides (VVL lanes, a constant once the segment loop is unrolled), its
 *   short stride, nh edge sites; a row within nh of an outer face is all
 *   edge. On CUDA (VVL 1) TDP_TLP_3D with the site's test.
 */
#ifndef CORPUS_PROTO_LAYER_H
#define CORPUS_PROTO_LAYER_H

#include "targetDP.h"

#define PROTO_RSUM_CLAUSE_(v) reduction(+ : v)
#define PROTO_RADDR_(v) TDP_RADDR_(TDP_RSUM(v))

#ifdef __CUDACC__

#define PROTO_TLP_SUM(baseIndex, N, ...) TDP_TLP_SUM(baseIndex, N, __VA_ARGS__)

#if VVL != 1
#error "PROTO_TLP_3D_EDGE on CUDA needs VVL 1 (a stride would straddle the shell)"
#endif
#define PROTO_NEAR_(box, k, d, nh) ((d) - (box).lo[k] < (nh) || (box).hi[k] - (d) <= (nh))
#define PROTO_TLP_3D_EDGE(box, nh, x, y, z0, base, edge)                                     \
  TDP_TLP_3D(box, x, y, z0, base)                                                            \
  for (long edge = PROTO_NEAR_(box, 0, x, nh) || PROTO_NEAR_(box, 1, y, nh) ||                \
                   PROTO_NEAR_(box, 2, z0, nh),                                              \
            tdp_o7_ = 1;                                                                     \
       tdp_o7_; tdp_o7_ = 0)

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

/* The segments of a row (see PROTO_TLP_3D_EDGE): tdp_s_ 0..3 from lo to
 * hi; segment 1 holds the interior's full strides, so its lane count is
 * the constant VVL (tdp_pass_ 0) once the segment loop is unrolled; every
 * other stride has tdp_n_ lanes (TDP_NLANE_ reads tdp_n_ % VVL where
 * tdp_pass_). A wall row (within nh of an outer face, or a row no longer
 * than 2 nh) is segment 0 alone, all of it edge. */
#define PROTO_SEG_LO_(lo, hi, nh, m, s)                                                       \
  ((s) == 0 ? (lo) : (s) == 1 ? (lo) + (nh) : (s) == 2 ? (lo) + (nh) + (m) : (hi) - (nh))
#define PROTO_SEG_HI_(lo, hi, nh, m, s)                                                       \
  ((s) == 0 ? (lo) + (nh) : (s) == 1 ? (lo) + (nh) + (m) : (s) == 2 ? (hi) - (nh) : (hi))
#define PROTO_EDGE_ROW_(wall, z0, base, first, nh, edge)                                      \
  for (int tdp_fence_ = 0, tdp_o4_ = 1; tdp_o4_ && !tdp_fence_; tdp_o4_ = 0)                 \
    for (long tdp_lo_ = tdp_bx_->lo[2], tdp_hi_ = tdp_bx_->hi[2],                             \
              tdp_w_ = (wall) || tdp_hi_ - tdp_lo_ <= 2 * (nh),                               \
              tdp_m_ = tdp_w_ ? 0 : (tdp_hi_ - tdp_lo_ - 2 * (nh)) / (VVL) * (VVL),            \
              tdp_first_ = (first), tdp_o6_ = 1;                                              \
         tdp_o6_; tdp_o6_ = 0)                                                                \
      TDP_PRAGMA(GCC unroll 4)                                                               \
      for (long tdp_s_ = 0; tdp_s_ < 4; tdp_s_++)                                             \
        for (long z0 = tdp_w_ ? (tdp_s_ ? tdp_hi_ : tdp_lo_)                                  \
                              : PROTO_SEG_LO_(tdp_lo_, tdp_hi_, (nh), tdp_m_, tdp_s_),         \
                  tdp_e_ = tdp_w_ ? tdp_hi_ : PROTO_SEG_HI_(tdp_lo_, tdp_hi_, (nh), tdp_m_, tdp_s_); \
             z0 < tdp_e_; z0 += (VVL))                                                        \
          for (long base = tdp_first_ + z0,                                                   \
                    tdp_n_ = tdp_s_ == 1 ? (VVL) : tdp_e_ - z0 < (VVL) ? tdp_e_ - z0 : (VVL), \
                    tdp_pass_ = tdp_s_ == 1 ? 0 : tdp_n_ < (VVL),                             \
                    edge = tdp_w_ || tdp_s_ == 0 || tdp_s_ == 3, tdp_o2_ = 1;                 \
               tdp_o2_ && tdp_pass_ >= 0; tdp_o2_ = 0)
#define PROTO_TLP_3D_EDGE(box, nh, x, y, z0, base, edge)                                     \
  TDP_BOX_BIND_(box, 3)                                                                      \
  for (long tdp_nh_ = tdpShellDepth_((nh), __FILE__, __LINE__), tdp_o5_ = 1; tdp_o5_;          \
       tdp_o5_ = 0)                                                                          \
    TDP_OMP_(parallel for collapse(2) schedule(static))                                      \
    for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                                   \
      for (long y = tdp_bx_->lo[1]; y < tdp_bx_->hi[1]; y++)                                 \
        PROTO_EDGE_ROW_(TDP_SHELL_NEAR_(0, x, tdp_nh_) || TDP_SHELL_NEAR_(1, y, tdp_nh_), z0,  \
                        base, (x * tdp_bx_->extent[1] + y) * tdp_bx_->extent[2], tdp_nh_, edge)

#endif /* __CUDACC__ */

#endif /* CORPUS_PROTO_LAYER_H */
