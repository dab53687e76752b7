/*
 * proto_layer.h -- prototypes of layer forms the corpus measured as
 * missing (issue 28, phase 1). They live here, beside the corpus that
 * measures them, until the layer's files are reorganised (issue 26); then
 * they move into the layer (targetDP_box.h) under TDP_ names. Nothing
 * outside benchmarks/corpus/ includes this file.
 *
 * PROTO_TLP_2D_SUM(box, x, y0, base, a, ...)   (and _3D_: x, y, z0)
 *   TDP_TLP_2D / TDP_TLP_3D with sum variables, as TDP_TLP_SUM is TDP_TLP
 *   with them: a residual or a norm over the interior of a lattice in the
 *   box form, which vectorises, instead of the 1-D recipe with i = s / ny,
 *   j = s % ny and a boundary test, which does not (gcc 12: "control flow
 *   in loop"; clang 14 neither). The body is written as in TDP_TLP_SUM:
 *       double res = 0.0;
 *       PROTO_TLP_2D_SUM(box, x, y0, base, res) {
 *         TDP_ILP_REDUCE(v) { ... res += d * d; }        site base + v
 *       }
 *       targetBlockAddDouble(t_res, res);
 *   and launched with PROTO_LAUNCH_BOX_REDUCE(kernel, box, args...).
 *   C backend: "omp parallel for reduction(+: a ...)" over the rows of the
 *   box, and "omp simd reduction(+: a ...)" along each row, one site per
 *   SIMD lane (as the 1-D TDP_TLP_REDUCE does, whatever VVL). clang 14
 *   vectorises this inner simd reduction (it does not vectorise the
 *   combined "omp parallel for simd reduction" of the 1-D form: "value
 *   that could not be identified as reduction").
 *   CUDA: the box loop of TDP_TLP_2D (each thread's variables are its own
 *   partials) and a launch whose grid is capped at two fills of the GPU
 *   (grid-stride over rows and strides), so a kernel makes one atomic per
 *   resident block, as TDP_LAUNCH_REDUCE does for the 1-D loop.
 *
 * PROTO_TLP_SUM(base, N, a, ...)
 *   TDP_TLP_SUM in two levels on the C backend: threads over blocks of
 *   PROTO_SUM_BLOCK_ sites ("omp parallel for reduction"), each block one
 *   "omp simd reduction" loop. The layer's one "omp parallel for simd
 *   reduction" loop is not vectorised by clang 14 or 16 ("value that could
 *   not be identified as reduction": the combined construct's reduction
 *   variable lives in memory), which vectorise the inner simd loop of this
 *   form. (Both also sum a conditional reduction wrongly in the combined
 *   form: the corpus's jacobi2d port, issue 25; this form sums it right.)
 *
 * PROTO_INLINE
 *   for a function the body of a lane loop calls (an LB collision): always
 *   inlined (gcc, clang; __forceinline__ on CUDA). clang 14 left the
 *   unrolled D3Q19 collision a call, and a loop with a call is not
 *   vectorised ("call instruction cannot be vectorized"): the port, the
 *   proto and even the native "omp simd" row loop ran scalar.
 *
 * PROTO_TLP_2D(box, x, y0, base), PROTO_TLP_3D(box, x, y, z0, base)
 *   TDP_TLP_2D / TDP_TLP_3D with the row loop compiled as the 1-D TDP_TLP's
 *   is (C backend, VVL > 1; on CUDA they are TDP_TLP_2D / _3D). Measured
 *   (gcc 12, one Xeon thread, heat3d interior at 34^3, in cache): the
 *   layer's box loop ran at 0.54x a native "omp simd" row loop. Its row
 *   loop's two passes (full strides, then the short one) are not unrolled
 *   (no "GCC unroll 2", and the pass bound 2 + tdp_fence_ is not a
 *   constant), so every stride computes its lane count at run time and
 *   the lane loop becomes a general loop with a remainder, its invariants
 *   spilled; and each row finds its coordinates with two 64-bit divisions
 *   (tdpBoxCoord_). Here the passes are unrolled as in TDP_TLP (the full
 *   strides see the constant VVL: straight vector code) and the threads
 *   run over the rows as nested loops (collapse), no division.
 */
#ifndef CORPUS_PROTO_LAYER_H
#define CORPUS_PROTO_LAYER_H

#include "targetDP.h"

/* PROTO_TLP_3D_SHELL(box, nh, x, y, z0, base): the boundary shell of a
 * 3-D lattice (box: the whole lattice, targetBoxAll; every site within nh
 * of a face), the pass beside an interior launch (TDP_LAUNCH_BOX over
 * targetBoxInterior) that a code whose boundary sites are updated another
 * way needs (walls copied, a boundary condition):
 *     TDP_KERNEL void walls(targetBox box, double *unew, const double *u) {
 *       PROTO_TLP_3D_SHELL(box, 1, x, y, z0, base) {
 *         TDP_ILP(v) unew[base + v] = u[base + v];     site base + v is (x, y, z0 + v)
 *       }
 *     }
 *     PROTO_LAUNCH_SHELL(walls, all, 1, t_unew, t_u);
 * Why not a box launch per face: a z face is a box of rows one site long,
 * and a box loop pays its per-row set-up (a division, the two-pass stride
 * loop) for each: the six faces of a 200^3 heat step cost 10-15% of the
 * interior update on one Xeon thread (gcc 12). Here the C backend runs
 * over the rows of the lattice once (threads over (x, y), no division): a
 * row on an x or y wall is all shell, in VVL strides; any other row has
 * nh sites at each end. CUDA numbers the shell sites (x walls, then the y
 * walls between them, then the z walls) and gives one to each thread,
 * finding it by divisions: the shell is a small part of the lattice. */
static TDP_HOST_DEVICE inline long protoShellSites3_(const targetBox *b, long nh) {
  const long nx = b->extent[0], ny = b->extent[1], nz = b->extent[2];
  if (nx <= 2 * nh || ny <= 2 * nh || nz <= 2 * nh) return nx * ny * nz;
  return nx * ny * nz - (nx - 2 * nh) * (ny - 2 * nh) * (nz - 2 * nh);
}

#if defined(__CUDACC__)
#define PROTO_INLINE __forceinline__
#elif defined(__GNUC__)
#define PROTO_INLINE inline __attribute__((always_inline))
#else
#define PROTO_INLINE inline
#endif

#define PROTO_RSUM_CLAUSE_(v) reduction(+ : v)
#define PROTO_RADDR_(v) TDP_RADDR_(TDP_RSUM(v))

#ifdef __CUDACC__

#define PROTO_TLP_SUM(baseIndex, N, ...) TDP_TLP_SUM(baseIndex, N, __VA_ARGS__)
#define PROTO_TLP_2D(box, x, y0, base) TDP_TLP_2D(box, x, y0, base)
#define PROTO_TLP_3D(box, x, y, z0, base) TDP_TLP_3D(box, x, y, z0, base)
#define PROTO_TLP_2D_SUM(box, x, y0, base, ...) \
  TDP_TLP_2D(box, x, y0, base)                  \
  for (int tdp_rlane_ = tdp_nlane_, tdp_o3_ = 1; tdp_o3_; tdp_o3_ = 0)
#define PROTO_TLP_3D_SUM(box, x, y, z0, base, ...) \
  TDP_TLP_3D(box, x, y, z0, base)                  \
  for (int tdp_rlane_ = tdp_nlane_, tdp_o3_ = 1; tdp_o3_; tdp_o3_ = 0)

/* Shell site k (0 <= k < protoShellSites3_) and its coordinates. */
static __device__ inline long protoShellSite3_(const targetBox *b, long nh, long k, long *x,
                                               long *y, long *z) {
  const long nx = b->extent[0], ny = b->extent[1], nz = b->extent[2], h2 = 2 * nh;
  const long a = (nx <= h2 || ny <= h2 || nz <= h2) ? nx * ny * nz : h2 * ny * nz;
  if (k < a) { /* the x walls (or all of a lattice with no interior) */
    const long p = k / (ny * nz), r = k % (ny * nz);
    *x = (a == nx * ny * nz || p < nh) ? p : nx - h2 + p;
    *y = r / nz;
    *z = r % nz;
  } else if ((k -= a) < h2 * (nx - h2) * nz) { /* the y walls between them */
    const long q = k / nz, yy = q % h2;
    *z = k % nz;
    *x = nh + q / h2;
    *y = yy < nh ? yy : ny - h2 + yy;
  } else { /* the z walls of the interior rows */
    k -= h2 * (nx - h2) * nz;
    const long q = k / h2, zz = k % h2;
    *z = zz < nh ? zz : nz - h2 + zz;
    *x = nh + q / (ny - h2);
    *y = nh + q % (ny - h2);
  }
  return (*x * ny + *y) * nz + *z;
}
#define PROTO_TLP_3D_SHELL(box, nh, x, y, z0, base)                                           \
  for (long tdp_k_ = TDP_THREAD_, tdp_ns_ = protoShellSites3_(&(box), (nh)); tdp_k_ < tdp_ns_; \
       tdp_k_ += TDP_NTHREADS_)                                                                 \
    for (long x = 0, y = 0, z0 = 0, tdp_o0_ = 1; tdp_o0_; tdp_o0_ = 0)                         \
      for (long base = protoShellSite3_(&(box), (nh), tdp_k_, &x, &y, &z0), tdp_o2_ = 1;       \
           tdp_o2_; tdp_o2_ = 0)                                                                \
        for (int tdp_nlane_ = 1, tdp_lstride_ = 1, tdp_once_ = 1; tdp_once_; tdp_once_ = 0)
#define PROTO_LAUNCH_SHELL(kernel, box, nh, ...)                                         \
  do {                                                                                   \
    const targetBox proto_sbox_ = (box);                                                 \
    const long proto_ns_ = protoShellSites3_(&proto_sbox_, (nh));                         \
    kernel<<<(unsigned) ((proto_ns_ + TARGET_TPB - 1) / TARGET_TPB), TARGET_TPB>>>(proto_sbox_, __VA_ARGS__); \
    tdpLaunchCheck(#kernel, __FILE__, __LINE__);                                         \
  } while (0)

/* tdpBoxGrid_ with at most tdpGridBlocksMax_ (two fills of the GPU) blocks:
 * the rows (y) and the outer dimensions (z) shrink first, then the plane. */
static inline dim3 protoBoxGridReduce_(const targetBox *b) {
  dim3 g = tdpBoxGrid_(b);
  while ((long) g.x * g.y * g.z > tdpGridBlocksMax_ && g.z > 1) g.z = (g.z + 1) / 2;
  while ((long) g.x * g.y * g.z > tdpGridBlocksMax_ && g.y > 1) g.y = (g.y + 1) / 2;
  while ((long) g.x * g.y * g.z > tdpGridBlocksMax_ && g.x > 1) g.x = (g.x + 1) / 2;
  return g;
}
#define PROTO_LAUNCH_BOX_REDUCE(kernel, box, ...)                            \
  do {                                                                     \
    const targetBox proto_lbox_ = (box);                                   \
    kernel<<<protoBoxGridReduce_(&proto_lbox_), TARGET_TPB>>>(proto_lbox_, __VA_ARGS__); \
    tdpLaunchCheck(#kernel, __FILE__, __LINE__);                           \
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

/* The rows of the box over the threads (nested loops, no division), each
 * thread's partials combined by the reduction clauses, each row one simd
 * reduction loop, one site per lane; the checked build registers the
 * variables as TDP_TLP_REDUCE does, so targetBlock* accepts them. */
#define PROTO_ROW_SUM_(box, n, c0, base, first, ...)                  \
  TDP_OMP_SIMD_(TDP_EACH_(PROTO_RSUM_CLAUSE_, __VA_ARGS__))            \
  for (long c0 = (box).lo[n - 1]; c0 < (box).hi[n - 1]; c0++)          \
    for (long base = (first) + c0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)

#define PROTO_TLP_2D_SUM(box, x, y0, base, ...)                                            \
  TDP_RREGISTER_(TDP_EACH_(PROTO_RADDR_, __VA_ARGS__))                                     \
  for (long tdp_q_ = tdpBoxDim_(&(box), 2, __FILE__, __LINE__); tdp_q_ < 1; tdp_q_++)      \
    TDP_OMP_(parallel for schedule(static) TDP_EACH_(PROTO_RSUM_CLAUSE_, __VA_ARGS__))     \
    for (long x = (box).lo[0]; x < (box).hi[0]; x++)                                      \
      PROTO_ROW_SUM_(box, 2, y0, base, x * (box).extent[1], __VA_ARGS__)

#define PROTO_TLP_3D_SUM(box, x, y, z0, base, ...)                                           \
  TDP_RREGISTER_(TDP_EACH_(PROTO_RADDR_, __VA_ARGS__))                                       \
  for (long tdp_q_ = tdpBoxDim_(&(box), 3, __FILE__, __LINE__); tdp_q_ < 1; tdp_q_++)        \
    TDP_OMP_(parallel for collapse(2) schedule(static)                                       \
             TDP_EACH_(PROTO_RSUM_CLAUSE_, __VA_ARGS__))                                     \
    for (long x = (box).lo[0]; x < (box).hi[0]; x++)                                        \
      for (long y = (box).lo[1]; y < (box).hi[1]; y++)                                      \
        PROTO_ROW_SUM_(box, 3, z0, base, (x * (box).extent[1] + y) * (box).extent[2],        \
                       __VA_ARGS__)

#define PROTO_LAUNCH_BOX_REDUCE(kernel, box, ...) TDP_LAUNCH_BOX(kernel, box, __VA_ARGS__)

#if VVL > 1
/* One row of the box: the full strides (lane count the constant VVL once
 * the pass loop is unrolled), then the short one; tdp_pass_ and tdp_n_ are
 * what TDP_ILP's lane count (TDP_NLANE_) reads: here tdp_n_ is the row's
 * length, so tdp_n_ % VVL the short stride's lanes. tdp_fence_ = 0: no
 * streaming-store fence per row (as the layer's box loop). */
#define PROTO_BOX_ROW_(box, n, c0, base, first)                                               \
  for (int tdp_fence_ = 0, tdp_o4_ = 1; tdp_o4_ && !tdp_fence_; tdp_o4_ = 0)                \
    TDP_UNROLL_PASSES_                                                                      \
    for (long tdp_n_ = tdpBoxLen_(&(box), n - 1), tdp_pass_ = 0; tdp_pass_ < 2; tdp_pass_++) \
      for (long c0 = (box).lo[n - 1] + (tdp_pass_ ? tdp_n_ / (VVL) * (VVL) : 0);            \
           c0 < (box).lo[n - 1] + (tdp_pass_ ? tdp_n_ : tdp_n_ / (VVL) * (VVL)); c0 += (VVL)) \
        for (long base = (first) + c0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)
#define PROTO_TLP_2D(box, x, y0, base)                                                   \
  for (long tdp_q_ = tdpBoxDim_(&(box), 2, __FILE__, __LINE__); tdp_q_ < 1; tdp_q_++)    \
    TDP_OMP_(parallel for schedule(static))                                             \
    for (long x = (box).lo[0]; x < (box).hi[0]; x++)                                    \
      PROTO_BOX_ROW_(box, 2, y0, base, x * (box).extent[1])
#define PROTO_TLP_3D(box, x, y, z0, base)                                                \
  for (long tdp_q_ = tdpBoxDim_(&(box), 3, __FILE__, __LINE__); tdp_q_ < 1; tdp_q_++)    \
    TDP_OMP_(parallel for collapse(2) schedule(static))                                 \
    for (long x = (box).lo[0]; x < (box).hi[0]; x++)                                    \
      for (long y = (box).lo[1]; y < (box).hi[1]; y++)                                  \
        PROTO_BOX_ROW_(box, 3, z0, base, (x * (box).extent[1] + y) * (box).extent[2])
#else
#define PROTO_TLP_2D(box, x, y0, base) TDP_TLP_2D(box, x, y0, base)
#define PROTO_TLP_3D(box, x, y, z0, base) TDP_TLP_3D(box, x, y, z0, base)
#endif

/* The shell: threads over the (x, y) rows; per row one segment (a wall
 * row: all of it) or two (nh sites at each end), each in strides of VVL.
 * tdp_n_ (the lanes of the stride) and tdp_pass_ (a short stride) are the
 * names TDP_ILP reads its lane count from (TDP_NLANE_). */
#define PROTO_TLP_3D_SHELL(box, nh, x, y, z0, base)                                              \
  for (long tdp_q_ = tdpBoxDim_(&(box), 3, __FILE__, __LINE__); tdp_q_ < 1; tdp_q_++)            \
    TDP_OMP_(parallel for collapse(2) schedule(static))                                          \
    for (long x = 0; x < (box).extent[0]; x++)                                                   \
      for (long y = 0; y < (box).extent[1]; y++)                                                 \
        for (long tdp_nz_ = (box).extent[2],                                                     \
                  tdp_wall_ = x < (nh) || x >= (box).extent[0] - (nh) || y < (nh) ||             \
                              y >= (box).extent[1] - (nh) || tdp_nz_ <= 2 * (nh),                \
                  tdp_seg_ = 0;                                                                  \
             tdp_seg_ < 2 - tdp_wall_; tdp_seg_++)                                               \
          for (long tdp_hi_ = tdp_wall_ || tdp_seg_ ? tdp_nz_ : (nh),                            \
                    z0 = tdp_seg_ ? tdp_nz_ - (nh) : 0;                                          \
               z0 < tdp_hi_; z0 += (VVL))                                                        \
            for (long base = (x * (box).extent[1] + y) * tdp_nz_ + z0,                           \
                      tdp_n_ = tdp_hi_ - z0 < (VVL) ? tdp_hi_ - z0 : (VVL),                      \
                      tdp_pass_ = tdp_n_ < (VVL), tdp_o2_ = 1;                                   \
                 tdp_o2_ && tdp_pass_ >= 0; tdp_o2_ = 0)
#define PROTO_LAUNCH_SHELL(kernel, box, nh, ...) TDP_LAUNCH_BOX(kernel, box, __VA_ARGS__)

#endif /* __CUDACC__ */

#endif /* CORPUS_PROTO_LAYER_H */
