/*
 * targetDP_box.h -- multi-dimensional TLP loops over a box of a lattice
 * (the role of the original targetCoords3D / targetIndex3D): an interior-
 * only, halo-only or face-only update is one launch, and the kernel gets
 * the coordinates of every site. Included by targetDP.h; see docs/api.md.
 *
 * A lattice of 2, 3 or 4 dimensions (extents including any halo) stores
 * site (x, y, z) at (x*ny + y)*nz + z: the last dimension runs fastest.
 * A box is lo[d] <= coordinate d < hi[d] in each dimension. Along the last
 * dimension the sites of a row are consecutive in memory, so that dimension
 * is the vector one: strides of VVL sites, lanes base + vecIndex, as in the
 * 1-D TDP_TLP. The C backend threads over rows and vectorises along them;
 * CUDA puts the last dimension across consecutive threads (coalesced); a
 * short row (a z face) shares the x of the grid with the next dimension,
 * so a thin box still fills its blocks (see tdpBoxRun_).
 *
 * Index arithmetic is in long throughout (lattices beyond 2^31 sites).
 *
 *   TDP_KERNEL void k(targetBox box, double *f) {
 *     TDP_TLP_3D(box, x, y, z0, base) {    for each row (x, y) of the box and
 *                                          each stride z0, z0 + VVL, ... of it:
 *       TDP_ILP(v) f[base + v] = ...;      site base + v is (x, y, z0 + v)
 *     }
 *   }
 *   TDP_LAUNCH_BOX(k, box, t_f);          k(box, t_f) over the box's sites
 *   TDP_LAUNCH_BOX_STREAM(k, box, stream, t_f);   (queued on a stream)
 *
 * The box launches pass the box (evaluated once) as the kernel's first
 * argument, so a call names it once; the rest are the kernel's others.
 *
 * TDP_TLP_2D(box, x, y0, base) and TDP_TLP_4D(box, t, x, y, z0, base) are
 * the same with one row coordinate fewer / more.
 */
#ifndef TARGETDP_BOX_H
#define TARGETDP_BOX_H

#define TDP_BOX_MAXDIM 4

typedef struct {
  int ndim;                   /* 2, 3 or 4 */
  long extent[TDP_BOX_MAXDIM]; /* lattice extents, halo included */
  long lo[TDP_BOX_MAXDIM];     /* first coordinate of the box per dimension */
  long hi[TDP_BOX_MAXDIM];     /* one past the last */
} targetBox;

#ifdef __cplusplus
extern "C" {
#endif
/* Checked constructors (targetDP_box.c): any extent < 1, lo < 0,
 * hi > extent or lo > hi is an error naming the dimension. lo == hi is an
 * empty box (a launch over it does nothing). */
/* extent, lo and hi: ndim entries each, held to what the compiler knows
 * of each array (TDP_OBJECT_SIZE_). */
int tdpBoxMake(targetBox *box, int ndim, const long *extent, size_t extent_known,
               const long *lo, size_t lo_known, const long *hi, size_t hi_known, const char *f,
               int l);
int tdpBoxInterior(targetBox *box, int ndim, const long *extent, size_t extent_known, long nhalo,
                   const char *f, int l);
#define targetBoxMake(box, ndim, extent, lo, hi)                                            \
  tdpBoxMake((box), (ndim), TDP_TYPED_(long, extent), TDP_OBJECT_SIZE_(extent),            \
             TDP_TYPED_(long, lo), TDP_OBJECT_SIZE_(lo), TDP_TYPED_(long, hi),              \
             TDP_OBJECT_SIZE_(hi), __FILE__, __LINE__)
#define targetBoxInterior(box, ndim, extent, nhalo)                                         \
  tdpBoxInterior((box), (ndim), TDP_TYPED_(long, extent), TDP_OBJECT_SIZE_(extent), (nhalo), \
                 __FILE__, __LINE__)
/* The whole lattice, halo included. */
#define targetBoxAll(box, ndim, extent) \
  tdpBoxInterior((box), (ndim), TDP_TYPED_(long, extent), TDP_OBJECT_SIZE_(extent), 0,      \
                 __FILE__, __LINE__)
/* Called by TDP_LAUNCH_BOX and TDP_LAUNCH_BOX_STREAM before the kernel: the
 * layer is live and the box is one (a box made by hand past the checked
 * constructors: 2 to 4 dimensions, extents >= 1, 0 <= lo <= hi <= extent). */
int tdpLaunchBox_(const char *form, const char *kernel, const targetBox *box, const char *f,
                  int l);
#ifdef __cplusplus
}
#endif

/* Sites in the lattice (the nsites of TDP_INDEX) and in the box. */
static TDP_HOST_DEVICE inline long targetBoxLatticeSites(const targetBox *b) {
  long n = 1;
  for (int d = 0; d < b->ndim; d++) n *= b->extent[d];
  return n;
}
static TDP_HOST_DEVICE inline long targetBoxSites(const targetBox *b) {
  long n = 1;
  for (int d = 0; d < b->ndim; d++) n *= b->hi[d] - b->lo[d];
  return n;
}

/* Internal helpers of the loops below. */
static TDP_HOST_DEVICE inline long tdpBoxLen_(const targetBox *b, int d) {
  return b->hi[d] - b->lo[d];
}
/* Rows: every box site with the last coordinate at lo, counted over the
 * dimensions before the last. */
static TDP_HOST_DEVICE inline long tdpBoxRows_(const targetBox *b, int ndim) {
  long n = 1;
  for (int d = 0; d < ndim - 1; d++) n *= tdpBoxLen_(b, d);
  return n;
}
/* A kernel written for n dimensions given a box of another: stop, as an
 * out-of-bounds index does, instead of visiting the wrong sites. */
#ifndef __CUDACC__
#ifdef __cplusplus
extern "C"
#endif
void tdpBoxDimFail_(int ndim, int want, const char *file, int line);
static inline long tdpBoxDim_(const targetBox *b, int want, const char *file, int line) {
  if (b->ndim != want) tdpBoxDimFail_(b->ndim, want, file, line);
  return 0;
}
#endif

#ifdef __CUDACC__

/* The launch, from the box alone (host and device agree on it): the
 * dimensions before the row's (the outer ones) go across the z of the grid.
 * A row of at least TDP_BOX_ROWMIN_ strides (VVL sites each) goes across
 * the x of the grid by itself and the rows across y: each thread then
 * finds its site with no division, as the 1-D TDP_TLP does. A shorter row
 * would leave most of its warps idle, so there the plane (rows times
 * strides) goes across x, in plane order, and each thread divides its
 * plane point by the strides of a row, once per point. */
#define TDP_BOX_ROWMIN_ 256
typedef struct {
  long outer;   /* points of the outer dimensions: across z */
  long rows;    /* rows across y: the rows of the plane, or 1 */
  long plane;   /* points across x: the strides of a row, or of the plane */
  long strides; /* strides of VVL sites in a row */
  int flat;     /* the plane across x (a division per point) */
  int once;
} tdpBoxRun_;
static TDP_HOST_DEVICE inline tdpBoxRun_ tdpBoxRunOf_(const targetBox *b, int n) {
  tdpBoxRun_ run;
  long len = tdpBoxLen_(b, n - 2);
  run.strides = (tdpBoxLen_(b, n - 1) + VVL - 1) / VVL;
  run.outer = 1;
  for (int d = 0; d < n - 2; d++) run.outer *= tdpBoxLen_(b, d);
  run.flat = run.strides < TDP_BOX_ROWMIN_;
  run.rows = run.flat ? 1 : len;
  run.plane = run.flat ? len * run.strides : run.strides;
  run.once = 1;
  return run;
}
/* The device's report of a box of the wrong dimension is one string made
 * at compile time (TDP_BOX_DIM_MSG_), printed with no arguments: a printf
 * with arguments builds them in a stack frame, whose set-up cost every
 * thread of every box kernel 4 instructions (sm_90 SASS), failing or not.
 * It names the kernel's dimension and file:line, not the box's dimension. */
#define TDP_BOX_DIM_MSG_(n) \
  "targetDP: a box of another dimension given to TDP_TLP_" #n "D at " __FILE__ ":" TDP_STR(__LINE__) "\n"
static __device__ inline tdpBoxRun_ tdpBoxRunDim_(const targetBox *b, int n, const char *msg) {
  if (b->ndim != n) {
    printf(msg);
    __trap();
  }
  return tdpBoxRunOf_(b, n);
}
/* p = q * s + r with 32-bit arithmetic when both fit (a 64-bit division
 * costs a GPU several times more). */
static __device__ inline void tdpDivmod_(long p, long s, long *q, long *r) {
  if (((unsigned long) p | (unsigned long) s) <= 0xffffffffUL) {
    unsigned int q32 = (unsigned int) p / (unsigned int) s;
    *q = q32;
    *r = (long) ((unsigned int) p - q32 * (unsigned int) s);
  } else {
    *q = p / s;
    *r = p % s;
  }
}
/* Row j (across y) and point p (across x) to the row coordinate r and the
 * stride start c0. */
static __device__ inline void tdpBoxPoint_(const tdpBoxRun_ *run, const targetBox *b, int n,
                                           long j, long p, long *r, long *c0) {
  long c = p;
  *r = j;
  if (run->flat) tdpDivmod_(p, run->strides, r, &c);
  *r += b->lo[n - 2];
  *c0 = b->lo[n - 1] + VVL * c;
}

#define TDP_BOX_RUN_(box, n)                                                              \
  for (tdpBoxRun_ tdp_run_ = tdpBoxRunDim_(&(box), n, TDP_BOX_DIM_MSG_(n)); tdp_run_.once;  \
       tdp_run_.once = 0)                                                                    \
    for (long tdp_q_ = blockIdx.z; tdp_q_ < tdp_run_.outer; tdp_q_ += gridDim.z)

/* One plane point: the row coordinate r, the stride start c0. */
#define TDP_BOX_PLANE_(box, n, r, c0)                                                     \
  for (long tdp_j_ = blockIdx.y; tdp_j_ < tdp_run_.rows; tdp_j_ += gridDim.y)             \
    for (long tdp_p_ = (long) blockIdx.x * blockDim.x + threadIdx.x; tdp_p_ < tdp_run_.plane; \
         tdp_p_ += (long) gridDim.x * blockDim.x)                                         \
      for (long r = 0, c0 = 0, tdp_o1_ = 1; tdp_o1_; tdp_o1_ = 0)                         \
        for (tdpBoxPoint_(&tdp_run_, &(box), n, tdp_j_, tdp_p_, &r, &c0); tdp_o1_; tdp_o1_ = 0)
/* With VVL 1 the one lane is always in the box: no test per site. */
#if VVL == 1
#define TDP_BOX_LANES_(box, n, c0) \
  for (int tdp_nlane_ = 1, tdp_lstride_ = 1, tdp_once_ = 1; tdp_once_; tdp_once_ = 0)
#else
#define TDP_BOX_LANES_(box, n, c0)                                                     \
  for (int tdp_nlane_ = ((box).hi[n - 1] - (c0) < VVL) ? (int) ((box).hi[n - 1] - (c0)) : VVL, \
           tdp_lstride_ = 1, tdp_once_ = 1; tdp_once_; tdp_once_ = 0)
#endif

#define TDP_TLP_2D(box, x, y0, base)                                                   \
  TDP_BOX_RUN_(box, 2)                                                                 \
    TDP_BOX_PLANE_(box, 2, x, y0)                                                      \
      for (long base = x * (box).extent[1] + y0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)       \
        TDP_BOX_LANES_(box, 2, y0)

#define TDP_TLP_3D(box, x, y, z0, base)                                                \
  TDP_BOX_RUN_(box, 3)                                                                 \
    for (long x = (box).lo[0] + tdp_q_, tdp_o0_ = 1; tdp_o0_; tdp_o0_ = 0)              \
      TDP_BOX_PLANE_(box, 3, y, z0)                                                    \
        for (long base = (x * (box).extent[1] + y) * (box).extent[2] + z0, tdp_o2_ = 1;  \
             tdp_o2_; tdp_o2_ = 0)                                                     \
          TDP_BOX_LANES_(box, 3, z0)

#define TDP_TLP_4D(box, t, x, y, z0, base)                                             \
  TDP_BOX_RUN_(box, 4)                                                                 \
    for (long t = 0, x = 0, tdp_o0_ = 1; tdp_o0_; tdp_o0_ = 0)                          \
      for (tdpDivmod_(tdp_q_, tdpBoxLen_(&(box), 1), &t, &x), t += (box).lo[0],          \
           x += (box).lo[1]; tdp_o0_; tdp_o0_ = 0)                                      \
        TDP_BOX_PLANE_(box, 4, y, z0)                                                  \
          for (long base = ((t * (box).extent[1] + x) * (box).extent[2] + y) * (box).extent[3] \
                           + z0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)                    \
            TDP_BOX_LANES_(box, 4, z0)

/* The grid of a box launch (see tdpBoxRun_): as the 1-D launch, one thread
 * per stride, but up to TDP_BOX_ROWS_ rows per thread while the grid stays
 * at 4 fills of the GPU or more; grid-stride beyond the limits of y and z.
 * Any grid is correct. Why several rows: a box thread's set-up (its loop
 * bounds and the 64-bit base of its row) is about 120 SASS instructions
 * at sm_90 against 16 per site, and a 1-D thread's about 44 (benchmarks/
 * blocks.c at 512^3, one site per thread: Box3D 95% of copy, Flat1D 99.5%). */
#define TDP_BOX_ROWS_ 4
static inline dim3 tdpBoxGrid_(const targetBox *b) {
  tdpBoxRun_ run = tdpBoxRunOf_(b, b->ndim);
  long nx = (run.plane + TARGET_TPB - 1) / TARGET_TPB, ny = run.rows, nz = run.outer, k = 1;
  while (!run.flat && 2 * k <= TDP_BOX_ROWS_ &&
         nx * ((ny + 2 * k - 1) / (2 * k)) * nz >= 4 * tdpGridBlocksMax_)
    k *= 2;
  ny = (ny + k - 1) / k;
  if (nx > 0x7fffffffL) nx = 0x7fffffffL;
  if (ny > 65535) ny = 65535;
  if (nz > 65535) nz = 65535;
  return dim3((unsigned int) (nx < 1 ? 1 : nx), (unsigned int) (ny < 1 ? 1 : ny),
              (unsigned int) (nz < 1 ? 1 : nz));
}
#define TDP_LAUNCH_BOX(kernel, box, ...)                                                 \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    if (tdpLaunchBox_("TDP_LAUNCH_BOX", #kernel, &tdp_lbox_, __FILE__, __LINE__) ==      \
        TARGET_SUCCESS) {                                                                \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel<<<tdpBoxGrid_(&tdp_lbox_), TARGET_TPB>>>(tdp_lbox_, __VA_ARGS__);           \
      tdpLaunchCheck(#kernel, __FILE__, __LINE__);                                       \
      TDP_PROFILE_STOP_(#kernel);                                                        \
    }                                                                                    \
  } while (0)
/* The same on a stream (as TDP_LAUNCH_STREAM: a stream that is not live is
 * an error and the kernel is not launched). */
#define TDP_LAUNCH_BOX_STREAM(kernel, box, stream, ...)                                 \
  do {                                                                                  \
    const targetBox tdp_lbox_ = (box);                                                  \
    void *tdp_native_ = 0;                                                              \
    if (tdpLaunchBox_("TDP_LAUNCH_BOX_STREAM", #kernel, &tdp_lbox_, __FILE__, __LINE__) == \
            TARGET_SUCCESS &&                                                           \
        tdpStreamNative((stream), &tdp_native_, __FILE__, __LINE__) == TARGET_SUCCESS) { \
      TDP_PROFILE_START_(#kernel);                                                      \
      kernel<<<tdpBoxGrid_(&tdp_lbox_), TARGET_TPB, 0, (cudaStream_t) tdp_native_>>>(   \
          tdp_lbox_, __VA_ARGS__);                                                      \
      tdpLaunchCheck(#kernel, __FILE__, __LINE__);                                      \
      TDP_PROFILE_STOP_(#kernel);                                                       \
    }                                                                                   \
  } while (0)

#else /* C backend */

/* Coordinate d of row `row` (rows counted over dimensions 0..n-2). */
static inline long tdpBoxCoord_(const targetBox *b, int n, long row, int d) {
  for (int e = n - 2; e > d; e--) row /= tdpBoxLen_(b, e);
  return b->lo[d] + row % tdpBoxLen_(b, d);
}

/* The strides of one row: with VVL > 1, the full strides and then the short
 * one in two passes (as the 1-D TDP_TLP: the full strides see the constant
 * lane count VVL and vectorise like plain code); with VVL 1 the sites
 * themselves are the simd loop. */
#if VVL == 1
#define TDP_BOX_ROW_(box, n, c0, base, first)                                   \
  TDP_OMP_SIMD_()                                                               \
  for (long c0 = (box).lo[n - 1]; c0 < (box).hi[n - 1]; c0++)                   \
    for (long base = (first) + c0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)
#else
#define TDP_BOX_ROW_(box, n, c0, base, first)                                             \
  /* tdp_fence_ = 0: no fence per row, so TDP_STREAM_LANES stores plainly */             \
  for (int tdp_pass_ = 0, tdp_fence_ = 0; tdp_pass_ < 2 + tdp_fence_; tdp_pass_++)        \
    for (long tdp_n_ = tdpBoxLen_(&(box), n - 1), /* TDP_NLANE_: tdp_n_ % VVL in pass 1 */  \
              tdp_full_ = (box).lo[n - 1] + (tdp_n_ / (VVL)) * (VVL),                        \
              c0 = tdp_pass_ ? tdp_full_ : (box).lo[n - 1];                                \
         c0 < (tdp_pass_ ? (box).hi[n - 1] : tdp_full_); c0 += (VVL))                       \
      for (long base = (first) + c0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)
#endif
/* `base` (the caller's name for it) is declared inside TDP_BOX_ROW_ from
 * the row's first site. */
#define TDP_BOX_ROWS_(box, n)                                                            \
  for (long tdp_q_ = tdpBoxDim_(&(box), n, __FILE__, __LINE__); tdp_q_ < 1; tdp_q_++)    \
    TDP_OMP_(parallel for schedule(static))                                             \
    for (long tdp_row_ = 0; tdp_row_ < tdpBoxRows_(&(box), n); tdp_row_++)

#define TDP_TLP_2D(box, x, y0, base)                                            \
  TDP_BOX_ROWS_(box, 2)                                                         \
  for (long x = (box).lo[0] + tdp_row_, tdp_o0_ = 1; tdp_o0_; tdp_o0_ = 0)       \
    TDP_BOX_ROW_(box, 2, y0, base, x * (box).extent[1])

#define TDP_TLP_3D(box, x, y, z0, base)                                         \
  TDP_BOX_ROWS_(box, 3)                                                         \
  for (long x = tdpBoxCoord_(&(box), 3, tdp_row_, 0),                           \
            y = (box).lo[1] + tdp_row_ % tdpBoxLen_(&(box), 1), tdp_o0_ = 1;     \
       tdp_o0_; tdp_o0_ = 0)                                                    \
    TDP_BOX_ROW_(box, 3, z0, base, (x * (box).extent[1] + y) * (box).extent[2])

#define TDP_TLP_4D(box, t, x, y, z0, base)                                      \
  TDP_BOX_ROWS_(box, 4)                                                         \
  for (long t = tdpBoxCoord_(&(box), 4, tdp_row_, 0),                           \
            x = tdpBoxCoord_(&(box), 4, tdp_row_, 1),                           \
            y = (box).lo[2] + tdp_row_ % tdpBoxLen_(&(box), 2), tdp_o0_ = 1;     \
       tdp_o0_; tdp_o0_ = 0)                                                    \
    TDP_BOX_ROW_(box, 4, z0, base,                                              \
                 ((t * (box).extent[1] + x) * (box).extent[2] + y) * (box).extent[3])

#define TDP_LAUNCH_BOX(kernel, box, ...)                                                 \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    if (tdpLaunchBox_("TDP_LAUNCH_BOX", #kernel, &tdp_lbox_, __FILE__, __LINE__) ==      \
        TARGET_SUCCESS) {                                                                \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel(tdp_lbox_, __VA_ARGS__);                                                    \
      TDP_PROFILE_STOP_(#kernel);                                                        \
    }                                                                                    \
  } while (0)
/* On the C backend a stream runs its work in order as it is queued: the
 * kernel has run when the launch returns. */
#define TDP_LAUNCH_BOX_STREAM(kernel, box, stream, ...)                                  \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    void *tdp_native_ = 0;                                                               \
    if (tdpLaunchBox_("TDP_LAUNCH_BOX_STREAM", #kernel, &tdp_lbox_, __FILE__, __LINE__) == \
            TARGET_SUCCESS &&                                                            \
        tdpStreamNative((stream), &tdp_native_, __FILE__, __LINE__) == TARGET_SUCCESS) {  \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel(tdp_lbox_, __VA_ARGS__);                                                    \
      TDP_PROFILE_STOP_(#kernel);                                                        \
    }                                                                                    \
  } while (0)

#endif /* __CUDACC__ */

#endif /* TARGETDP_BOX_H */
