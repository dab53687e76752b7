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

/* PROTO_TLP_3D_SITE / PROTO_LAUNCH_BOX_SITE: one site per thread in the
 * native's blocks, 32 sites by TPB / 64 rows by 2 planes, the coordinates
 * int (a box with an extent beyond INT_MAX is refused at the launch) and no
 * loop but the thread's one site. Issue 28, H100, heat3d: 1.01 of the
 * native (an earlier proto, one plane of 32 x 8 with 64-bit grid-stride
 * loops: 0.72, 209 warp instructions per site against the native's 81).
 * Not yet the layer's: correct only where the grid covers the box, and the
 * loop any grid needs cost the layer's versions of it 0.71 to 0.89
 * (benchmarks/results/h100-38b71df-site/). TPB a multiple of 64. */
#define PROTO_TLP_3D_SITE(box, nh, x, y, z0, base, edge)                                      \
  for (int tdp_nh_ = (int) (nh), x = (int) (box).lo[0] + (int) (blockIdx.z * 2 + threadIdx.z),  \
           y = (int) (box).lo[1] + (int) (blockIdx.y * blockDim.y + threadIdx.y),             \
           z0 = (int) (box).lo[2] + (int) (blockIdx.x * 32 + threadIdx.x),                     \
           tdp_o1_ = x < (int) (box).hi[0] && y < (int) (box).hi[1] && z0 < (int) (box).hi[2];  \
       tdp_o1_; tdp_o1_ = 0)                                                                    \
    for (long base = ((long) x * (box).extent[1] + y) * (box).extent[2] + z0,                   \
              edge = x - (int) (box).lo[0] < tdp_nh_ || (int) (box).hi[0] - x <= tdp_nh_ ||      \
                     y - (int) (box).lo[1] < tdp_nh_ || (int) (box).hi[1] - y <= tdp_nh_ ||      \
                     z0 - (int) (box).lo[2] < tdp_nh_ || (int) (box).hi[2] - z0 <= tdp_nh_,      \
              tdp_o2_ = 1;                                                                      \
         tdp_o2_; tdp_o2_ = 0)                                                                  \
      TDP_SHELL_LANE_
static inline dim3 protoBoxGridSite_(const targetBox *b, const char *file, int line) {
  const long nz = (b->hi[2] - b->lo[2] + 31) / 32, ny = (b->hi[1] - b->lo[1] + TARGET_TPB / 64 - 1) /
                                                     (TARGET_TPB / 64),
             nx = (b->hi[0] - b->lo[0] + 1) / 2;
  if (b->extent[0] > 0x7fffffffL || b->extent[1] > 0x7fffffffL || b->extent[2] > 0x7fffffffL ||
      ny > 65535 || nx > 65535) {
    fprintf(stderr, "%s:%d: PROTO_LAUNCH_BOX_SITE: box too large for its grid\n", file, line);
    exit(1);
  }
  return dim3((unsigned) (nz < 1 ? 1 : nz), (unsigned) (ny < 1 ? 1 : ny), (unsigned) (nx < 1 ? 1 : nx));
}
#define PROTO_LAUNCH_BOX_SITE(kernel, box, ...)                                          \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    if (tdpLaunchBox_("PROTO_LAUNCH_BOX_SITE", #kernel, &tdp_lbox_, __FILE__, __LINE__) == \
        TARGET_SUCCESS) {                                                                \
      kernel<<<protoBoxGridSite_(&tdp_lbox_, __FILE__, __LINE__),                        \
               dim3(32, TARGET_TPB / 64, 2)>>>(tdp_lbox_, __VA_ARGS__);                   \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                       \
    }                                                                                    \
  } while (0)

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
