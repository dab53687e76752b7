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
 */
#ifndef CORPUS_PROTO_LAYER_H
#define CORPUS_PROTO_LAYER_H

#include "targetDP.h"

/* protoFaces(face, ndim, extent, nhalo): the boundary shell of a lattice
 * (every site within nhalo of a face) as 2 * ndim disjoint boxes, for a
 * boundary pass beside an interior launch:
 *     targetBox face[8];
 *     int nf = protoFaces(face, 3, extent, 1);
 *     TDP_LAUNCH_BOX(update, interior, interior, t_new, t_old);
 *     PROTO_LAUNCH_FACES(walls, face, nf, t_new, t_old);  (walls(box, ...) each face)
 * Face d covers coordinate d within nhalo of either end, the interior of
 * the dimensions before d and the whole of those after it, so each shell
 * site is in exactly one face. */
static inline int protoFaces(targetBox *face, int ndim, const long *extent, long nhalo) {
  int n = 0;
  for (int d = 0; d < ndim; d++)
    for (int side = 0; side < 2; side++) {
      long lo[TDP_BOX_MAXDIM], hi[TDP_BOX_MAXDIM];
      for (int e = 0; e < ndim; e++) {
        lo[e] = e < d ? nhalo : 0;
        hi[e] = e < d ? extent[e] - nhalo : extent[e];
      }
      lo[d] = side ? extent[d] - nhalo : 0;
      hi[d] = side ? extent[d] : nhalo;
      targetBoxMake(&face[n++], ndim, extent, lo, hi);
    }
  return n;
}
/* One box launch per face, the face the kernel's first argument. */
#define PROTO_LAUNCH_FACES(kernel, face, nface, ...)                         \
  do {                                                                     \
    for (int proto_f_ = 0; proto_f_ < (nface); proto_f_++)                  \
      TDP_LAUNCH_BOX(kernel, (face)[proto_f_], (face)[proto_f_], __VA_ARGS__); \
  } while (0)

#define PROTO_RSUM_CLAUSE_(v) reduction(+ : v)
#define PROTO_RADDR_(v) TDP_RADDR_(TDP_RSUM(v))

#ifdef __CUDACC__

#define PROTO_TLP_2D_SUM(box, x, y0, base, ...) \
  TDP_TLP_2D(box, x, y0, base)                  \
  for (int tdp_rlane_ = tdp_nlane_, tdp_o3_ = 1; tdp_o3_; tdp_o3_ = 0)
#define PROTO_TLP_3D_SUM(box, x, y, z0, base, ...) \
  TDP_TLP_3D(box, x, y, z0, base)                  \
  for (int tdp_rlane_ = tdp_nlane_, tdp_o3_ = 1; tdp_o3_; tdp_o3_ = 0)

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
    kernel<<<protoBoxGridReduce_(&proto_lbox_), TARGET_TPB>>>(__VA_ARGS__); \
    tdpLaunchCheck(#kernel, __FILE__, __LINE__);                           \
  } while (0)

#else /* C backend */

/* The rows of the box over the threads, each thread's partials combined
 * by the reduction clauses; the checked build registers the variables as
 * TDP_TLP_REDUCE does, so targetBlock* accepts them. */
#define PROTO_ROWS_SUM_(box, n, ...)                                                       \
  TDP_RREGISTER_(TDP_EACH_(PROTO_RADDR_, __VA_ARGS__))                                     \
  for (long tdp_q_ = tdpBoxDim_(&(box), n, __FILE__, __LINE__); tdp_q_ < 1; tdp_q_++)      \
    TDP_OMP_(parallel for schedule(static) TDP_EACH_(PROTO_RSUM_CLAUSE_, __VA_ARGS__))     \
    for (long tdp_row_ = 0; tdp_row_ < tdpBoxRows_(&(box), n); tdp_row_++)
/* One row, one site per SIMD lane. */
#define PROTO_ROW_SUM_(box, n, c0, base, first, ...)                  \
  TDP_OMP_SIMD_(TDP_EACH_(PROTO_RSUM_CLAUSE_, __VA_ARGS__))            \
  for (long c0 = (box).lo[n - 1]; c0 < (box).hi[n - 1]; c0++)          \
    for (long base = (first) + c0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)

#define PROTO_TLP_2D_SUM(box, x, y0, base, ...)                          \
  PROTO_ROWS_SUM_(box, 2, __VA_ARGS__)                                   \
  for (long x = (box).lo[0] + tdp_row_, tdp_o0_ = 1; tdp_o0_; tdp_o0_ = 0) \
    PROTO_ROW_SUM_(box, 2, y0, base, x * (box).extent[1], __VA_ARGS__)

#define PROTO_TLP_3D_SUM(box, x, y, z0, base, ...)                                   \
  PROTO_ROWS_SUM_(box, 3, __VA_ARGS__)                                               \
  for (long x = tdpBoxCoord_(&(box), 3, tdp_row_, 0),                                \
            y = (box).lo[1] + tdp_row_ % tdpBoxLen_(&(box), 1), tdp_o0_ = 1;          \
       tdp_o0_; tdp_o0_ = 0)                                                         \
    PROTO_ROW_SUM_(box, 3, z0, base, (x * (box).extent[1] + y) * (box).extent[2],     \
                   __VA_ARGS__)

#define PROTO_LAUNCH_BOX_REDUCE(kernel, box, ...) TDP_LAUNCH_BOX(kernel, box, __VA_ARGS__)

#endif /* __CUDACC__ */

#endif /* CORPUS_PROTO_LAYER_H */
