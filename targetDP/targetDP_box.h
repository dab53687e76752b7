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
/* The same for TDP_LAUNCH_SHELL: a 2-D or 3-D box and a depth nh >= 0. */
int tdpLaunchShell_(const char *kernel, const targetBox *box, long nh, const char *f, int l);
/* Tests: TDP_LAUNCH_BOX_MARCH's march length when > 0 (CUDA), so that a
 * small lattice marches too; 0 (the default): the launch's own rule. */
extern long tdpBoxMarchForce_;
#ifdef __cplusplus
}
#endif

/* Sites in the lattice (the nsites of TDP_INDEX) and in the box. The loop
 * runs over TDP_BOX_MAXDIM, not ndim, so that once unrolled every index is
 * a constant: a loop to the run-time ndim indexed the kernel's by-value box
 * with a variable, and nvcc copied the box to local memory in every thread
 * (sm_90 SASS of the corpus's d2q9 and d3q19 ports: a 104-byte stack frame,
 * 10 STL and 16 LDL per thread before the first site; none now). */
static TDP_HOST_DEVICE inline long targetBoxLatticeSites(const targetBox *b) {
  long n = 1;
  for (int d = 0; d < TDP_BOX_MAXDIM; d++) n *= d < b->ndim ? b->extent[d] : 1;
  return n;
}
static TDP_HOST_DEVICE inline long targetBoxSites(const targetBox *b) {
  long n = 1;
  for (int d = 0; d < TDP_BOX_MAXDIM; d++) n *= d < b->ndim ? b->hi[d] - b->lo[d] : 1;
  return n;
}

/* Sites of the shell of depth nh of a box (TDP_TLP_2D_SHELL, _3D_SHELL):
 * all of it where a dimension is no longer than 2 nh. */
static TDP_HOST_DEVICE inline long tdpShellSites_(const targetBox *b, long nh) {
  long all = 1, in = 1;
  for (int d = 0; d < TDP_BOX_MAXDIM && d < b->ndim; d++) {
    const long len = b->hi[d] - b->lo[d];
    all *= len;
    in *= len > 2 * nh ? len - 2 * nh : 0;
  }
  return all - in;
}

/* Internal helpers of the loops below. */
static TDP_HOST_DEVICE inline long tdpBoxLen_(const targetBox *b, int d) {
  return b->hi[d] - b->lo[d];
}
/* A kernel written for n dimensions given a box of another: stop, as an
 * out-of-bounds index does, instead of visiting the wrong sites. */
#ifndef __CUDACC__
#ifdef __cplusplus
extern "C"
#endif
void tdpBoxDimFail_(int ndim, int want, const char *file, int line);
#ifdef __cplusplus
extern "C"
#endif
void tdpShellDepthFail_(long nh, const char *file, int line);
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

/* TDP_TLP_3D_MARCH: the sites of a 3-D box, each thread walking x (the
 * first, slowest dimension) through m consecutive planes at one (y, z0):
 * the 2.5-D blocking of Micikevicius ("3D finite difference computation on
 * GPUs using CUDA", GPGPU-2 2009) with L1 in place of his register queue
 * and shared-memory tile. Blocks are tiles of 32 strides by TPB / 32 rows
 * (rows shorter than a warp: the flat plane of TDP_TLP_3D), so the y and z
 * neighbours of a site are the block's own loads, and each plane a thread
 * loads as x + 1 is the one it reads again as x and x - 1: a 7-point
 * stencil loads about 1.8 values per site from L2 (TDP_TLP_3D's rows of
 * TPB strides: 5; the corpus's native 32 x 4 x 2 blocks: 2.8). m is the
 * planes over gridDim.z (TDP_LAUNCH_BOX_MARCH picks gridDim.z); any grid
 * visits every site once. The walk is the innermost loop with `base`
 * stepped by a plane, so that nvcc computes the site's addresses once.
 * TDP_MARCH_3D_ is the march of both TDP_TLP_3D_MARCH and TDP_TLP_3D_EDGE:
 * the thread's (y, c0) and, for each x of its planes, first = the index of
 * (x, y, c0) (MARCH, off = c0: the site's base) or of (x, y, 0) (EDGE,
 * off = 0: the row's start, to which each piece adds its z0). */
/* TDP_KERNEL_STENCIL kernels launched by TDP_LAUNCH_STENCIL (CUDA, VVL 1)
 * take one site per thread instead of the march, in blocks of w = 32 sites
 * along z (fewer where the box's row is shorter: the next power of two
 * above it) by TPB / 2w rows by 2 planes: the block of the textbook CUDA
 * stencil (the corpus's native heat3d, 32 x 4 x 2 at TPB 256), whose y and
 * x neighbours are in large part the block's own loads. The launch picks
 * that form only where its grid covers the box, so a thread has one site
 * or none and no loop: any loop around the site made nvcc keep each
 * neighbour's address across it, and since every launch must be correct a
 * kernel that can be given any grid needs one. So the kernel is a template
 * (tdp_stencil_ 1: covered by the grid, one site; 0: the march, for any
 * grid), and each instance has only its own form's registers. Issue 28,
 * H100, heat3d / stencil27, port / native (benchmarks/results/h100-38b71df-
 * site/, h100-8beb91e-stencil/): the march of 16 planes 0.88 / 0.95; one site in
 * a kernel that must also walk any grid 0.71 / 0.61 (nested loops), 0.89 /
 * 0.77 (one loop), 0.93 / 0.80 (two passes, 40 registers in stencil27's
 * kernel against 32 for one site alone); one site alone, in its own
 * instance, 0.97 / 1.00 (8beb91e), 0.963 / 0.992 with the test below that
 * its loop's box is covered (80317e5).
 * Coordinates are int (extents below 2^30, else the launch marches) and a
 * thread's set-up is shifts and masks of its indices. */
#define TDP_SITE_TILED_ (TARGET_TPB >= 64 && (TARGET_TPB & (TARGET_TPB - 1)) == 0)
#define TDP_SITE_ON_ (VVL == 1 && TDP_SITE_TILED_ && tdp_stencil_ == 1)
#define TDP_TPB_LOG2_                                                                       \
  (TARGET_TPB >= 1024 ? 10 : TARGET_TPB >= 512 ? 9 : TARGET_TPB >= 256 ? 8 : TARGET_TPB >= 128 \
   ? 7 : 6)
#define TDP_SITE_MAX_ 0x3fffffffL
/* tdp_stencil_ outside a TDP_KERNEL_STENCIL kernel: the march. */
static constexpr int tdp_stencil_ = 0;
/* log2 of w for a box (the launch and the kernel agree on it). */
static TDP_HOST_DEVICE inline int tdpSiteLogW_(const targetBox *b) {
  const long len = b->hi[2] - b->lo[2];
  if (len >= 32) return 5; /* the common case first: no loop in the thread's set-up */
  int lw = 0;
  while ((1L << lw) < len) lw++;
  return lw;
}
typedef struct {
  int i, j, k, in; /* the thread's site; in: it is in the box */
} tdpSite_;
/* The one-site instance is correct only where the grid covers the loop's
 * box (the launch's box, or one no larger in any dimension) and its bounds
 * fit the int coordinates. A loop over another box (a misuse:
 * TDP_LAUNCH_STENCIL sized the grid for its own box) that the grid does not
 * cover, or that ends at 2^30 or beyond, stops the kernel, naming the
 * loop. The condition does not depend on the block, so every thread of
 * block (0,0,0) makes it and no other. That requires what the docs require
 * of the kernel: its loop's box is one box for all blocks, and block
 * (0,0,0) reaches the loop as every block does (a loop behind a test of
 * blockIdx that block (0,0,0) skips is not checked).
 * Why there: blockIdx is uniform in a block, so the branch is uniform and
 * ptxas keeps the box's bounds, and the body's addressing, on the uniform
 * datapath. A test that depends on threadIdx (warp 0, or thread 0 of the
 * grid) makes it load the bounds into vector registers, and the body then
 * uses those (18 R2UR moves in stencil27's kernel). Port / native on the
 * H100, heat3d / stencil27: no test 0.970 / 0.998; block (0,0,0) 0.963 /
 * 0.992; warp 0 of each block 0.954 / 0.945 (the same run,
 * benchmarks/results/h100-80317e5-block0/); every thread 0.91-0.93 /
 * 0.94-0.96, after the body 0.79 / 0.93 (h100-8fce96f-check2/). */
#define TDP_SITE_MSG_                                                                         \
  "targetDP: the box of the 3-D stencil loop at " __FILE__ ":" TDP_STR(__LINE__)              \
  " is not covered by its TDP_LAUNCH_STENCIL's grid (a TDP_KERNEL_STENCIL's TDP_TLP_3D_MARCH " \
  "/ _EDGE loops must be over the launch's box or one no larger, below 2^30 sites)\n"
static __device__ inline tdpSite_ tdpSiteOf_(const targetBox *b, int on, const char *msg) {
  tdpSite_ s = {0, 0, 0, 0};
  if (!on) return s;
  const int t = (int) threadIdx.x, lw = tdpSiteLogW_(b), lh = TDP_TPB_LOG2_ - lw - 1;
  if ((blockIdx.x | blockIdx.y | blockIdx.z) == 0 &&
      (blockDim.x != TARGET_TPB || ((long) gridDim.x << lw) < b->hi[2] - b->lo[2] ||
       ((long) gridDim.y << lh) < b->hi[1] - b->lo[1] || 2L * gridDim.z < b->hi[0] - b->lo[0] ||
       b->hi[0] > TDP_SITE_MAX_ || b->hi[1] > TDP_SITE_MAX_ || b->hi[2] > TDP_SITE_MAX_)) {
    printf(msg);
    __trap();
  }
  s.k = (int) b->lo[2] + ((int) blockIdx.x << lw) + (t & ((1 << lw) - 1));
  s.j = (int) b->lo[1] + ((int) blockIdx.y << lh) + ((t >> lw) & ((1 << lh) - 1));
  s.i = (int) b->lo[0] + 2 * (int) blockIdx.z + (t >> (lw + lh));
  s.in = s.i < b->hi[0] && s.j < b->hi[1] && s.k < b->hi[2];
  return s;
}
/* In a one-site instance (TDP_SITE_ON_, a constant) each of the march's
 * loops below runs once (the first: if the site is in the box) at the
 * thread's site, and the compiler folds them away. */
#define TDP_MARCH_3D_(box, x, y, c0, first, off)                                            \
  for (tdpBoxRun_ tdp_run_ = tdpBoxRunDim_(&(box), 3, TDP_BOX_DIM_MSG_(3)); tdp_run_.once;   \
       tdp_run_.once = 0)                                                                    \
    for (tdpSite_ tdp_st_ = tdpSiteOf_(&(box), TDP_SITE_ON_, TDP_SITE_MSG_); tdp_run_.once; \
         tdp_run_.once = 0)                                                                  \
    for (long tdp_tile_ = !tdp_run_.flat && blockDim.x % 32 == 0,                            \
              tdp_tw_ = tdp_tile_ ? 32 : blockDim.x, tdp_th_ = tdp_tile_ ? blockDim.x / 32 : 1, \
              tdp_m_ = gridDim.z >= tdp_run_.outer                                           \
                           ? 1 : (tdp_run_.outer + gridDim.z - 1) / gridDim.z,               \
              tdp_q0_ = TDP_SITE_ON_ ? 0 : blockIdx.z * tdp_m_;                              \
         tdp_q0_ < (TDP_SITE_ON_ ? tdp_st_.in : tdp_run_.outer);                             \
         tdp_q0_ += TDP_SITE_ON_ ? 1 : gridDim.z * tdp_m_)                                   \
      for (long tdp_j_ = TDP_SITE_ON_ ? 0 : blockIdx.y * tdp_th_ + (tdp_tile_ ? threadIdx.x / 32 : 0); \
           tdp_j_ < (TDP_SITE_ON_ ? 1 : tdp_run_.rows);                                      \
           tdp_j_ += TDP_SITE_ON_ ? 1 : gridDim.y * tdp_th_)                                 \
        for (long tdp_p_ = TDP_SITE_ON_ ? 0                                                  \
                           : blockIdx.x * tdp_tw_ + (tdp_tile_ ? threadIdx.x % 32 : threadIdx.x); \
             tdp_p_ < (TDP_SITE_ON_ ? 1 : tdp_run_.plane);                                   \
             tdp_p_ += TDP_SITE_ON_ ? 1 : gridDim.x * tdp_tw_)                               \
          for (long y = tdp_st_.j, c0 = tdp_st_.k, tdp_o1_ = 1; tdp_o1_; tdp_o1_ = 0)        \
            for (TDP_SITE_ON_ ? (void) 0 : tdpBoxPoint_(&tdp_run_, &(box), 3, tdp_j_, tdp_p_, &y, &c0); \
                 tdp_o1_; tdp_o1_ = 0)                                                       \
              _Pragma("unroll 1") for (long x = TDP_SITE_ON_ ? (long) tdp_st_.i : (box).lo[0] + tdp_q0_, \
                        tdp_xe_ = TDP_SITE_ON_ ? x + 1                                       \
                                  : (box).lo[0] + (tdp_q0_ + tdp_m_ < tdp_run_.outer          \
                                                       ? tdp_q0_ + tdp_m_ : tdp_run_.outer),  \
                        first = (x * (box).extent[1] + y) * (box).extent[2] + (off),          \
                        tdp_sx_ = (box).extent[1] * (box).extent[2];                          \
                   x < tdp_xe_; x++, first += tdp_sx_)
#define TDP_TLP_3D_MARCH(box, x, y, z0, base) \
  TDP_MARCH_3D_(box, x, y, z0, base, z0)        \
    TDP_BOX_LANES_(box, 3, z0)

/* Box reductions: the box loop, each thread's variables its partials
 * (combined by targetBlockAdd/Min/Max*, as after TDP_TLP_REDUCE), lanes as
 * TDP_ILP_REDUCE reads them; launched by TDP_LAUNCH_BOX_REDUCE, whose grid
 * is capped so that a kernel makes one atomic per resident block. */
#define TDP_TLP_2D_REDUCE(box, x, y0, base, ...) \
  TDP_TLP_2D(box, x, y0, base)                   \
  for (int tdp_rlane_ = tdp_nlane_, tdp_o3_ = 1; tdp_o3_; tdp_o3_ = 0)
#define TDP_TLP_3D_REDUCE(box, x, y, z0, base, ...) \
  TDP_TLP_3D(box, x, y, z0, base)                   \
  for (int tdp_rlane_ = tdp_nlane_, tdp_o3_ = 1; tdp_o3_; tdp_o3_ = 0)

/* The shell (see the C backend's TDP_TLP_3D_SHELL): its sites numbered
 * (the walls of dimension 0, then those of dimension 1 between them, then
 * those of the last dimension of the rows left), one per thread, found by
 * divisions: the shell is a small part of the lattice. (k, len): the
 * coordinate of wall point k of a dimension of length len. */
static __device__ inline long tdpShellCoord_(long k, long nh, long len, int all) {
  return (all || k < nh) ? k : len - 2 * nh + k;
}
/* n: the loop's dimension (a constant, checked against the box's), so that
 * the arrays here stay registers: read from b->ndim it put them and the box
 * in local memory (a 152-byte stack frame, 350 local loads and stores in
 * the sm_90 SASS of a 3-D shell kernel). */
static __device__ inline void tdpShellSite_(const targetBox *b, const int n, long nh, long k,
                                            long *c) {
  const long h2 = 2 * nh;
  long len[3], rest = 1;
  for (int d = 0; d < n; d++) len[d] = b->hi[d] - b->lo[d];
  for (int d = 1; d < n; d++) rest *= len[d];
  int all = 0;
  for (int d = 0; d < n; d++) all |= len[d] <= h2;
  const long a = all ? len[0] * rest : h2 * rest;
  if (k < a) { /* the walls of dimension 0 (or all of a box with no interior) */
    c[0] = tdpShellCoord_(k / rest, nh, len[0], all);
    long r = k % rest;
    for (int d = n - 1; d > 0; d--) {
      c[d] = r % len[d];
      r /= len[d];
    }
  } else if (n == 2) { /* the ends of the rows between them */
    k -= a;
    c[0] = nh + k / h2;
    c[1] = tdpShellCoord_(k % h2, nh, len[1], 0);
  } else if ((k -= a) < h2 * (len[0] - h2) * len[2]) { /* the walls of dimension 1 */
    const long q = k / len[2];
    c[2] = k % len[2];
    c[0] = nh + q / h2;
    c[1] = tdpShellCoord_(q % h2, nh, len[1], 0);
  } else { /* the ends of the rows left */
    k -= h2 * (len[0] - h2) * len[2];
    const long q = k / h2;
    c[2] = tdpShellCoord_(k % h2, nh, len[2], 0);
    c[0] = nh + q / (len[1] - h2);
    c[1] = nh + q % (len[1] - h2);
  }
  for (int d = 0; d < n; d++) c[d] += b->lo[d];
}
static __device__ inline long tdpShellNh_(const targetBox *b, int n, long nh, const char *msg) {
  if (b->ndim != n) {
    printf(msg);
    __trap();
  }
  return nh;
}
#define TDP_SHELL_LOOP_(box, nh, n)                                                        \
  for (long tdp_nh_ = tdpShellNh_(&(box), n, (nh), TDP_BOX_DIM_MSG_(n)), tdp_k_ = TDP_THREAD_, \
            tdp_ns_ = tdpShellSites_(&(box), tdp_nh_);                                    \
       tdp_k_ < tdp_ns_; tdp_k_ += TDP_NTHREADS_)                                         \
    for (long tdp_c_[3], tdp_o0_ = (tdpShellSite_(&(box), n, tdp_nh_, tdp_k_, tdp_c_), 1); tdp_o0_; \
         tdp_o0_ = 0)
#define TDP_SHELL_LANE_ \
  for (int tdp_nlane_ = 1, tdp_lstride_ = 1, tdp_once_ = 1; tdp_once_; tdp_once_ = 0)
#define TDP_TLP_2D_SHELL(box, nh, x, y0, base)                                             \
  TDP_SHELL_LOOP_(box, nh, 2)                                                              \
  for (long x = tdp_c_[0], y0 = tdp_c_[1], tdp_o1_ = 1; tdp_o1_; tdp_o1_ = 0)                 \
    for (long base = x * (box).extent[1] + y0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)              \
      TDP_SHELL_LANE_
#define TDP_TLP_3D_SHELL(box, nh, x, y, z0, base)                                          \
  TDP_SHELL_LOOP_(box, nh, 3)                                                              \
  for (long x = tdp_c_[0], y = tdp_c_[1], z0 = tdp_c_[2], tdp_o1_ = 1; tdp_o1_; tdp_o1_ = 0)  \
    for (long base = (x * (box).extent[1] + y) * (box).extent[2] + z0, tdp_o2_ = 1; tdp_o2_; \
         tdp_o2_ = 0)                                                                      \
      TDP_SHELL_LANE_

/* The edge forms (see the C backend's TDP_TLP_3D_EDGE): each stride cut
 * where the shell begins and ends, so that every piece is all edge or all
 * interior; with VVL 1 (the CUDA default) a stride is one site and one
 * piece, its flag one test. A negative depth stops the kernel. The 3-D form
 * walks as TDP_TLP_3D_MARCH (the 2-D one as TDP_TLP_2D), so that one kernel
 * of one form is the best on both backends: issue 28's heat3d / stencil27
 * on the H100 + 16-core host, port / best native, the interior march plus
 * the shell pass 0.80 / 0.83 on the GPU but 0.73 / 0.93 on one host thread
 * (gcc 13), the edge form over TDP_TLP_3D's rows 0.87 / 1.04 on the host
 * but 0.71 / 0.52 on the GPU (rows of TPB strides, each plane loaded by
 * its own threads: no reuse of x neighbours). TDP_LAUNCH_BOX_MARCH picks
 * its grid; TDP_LAUNCH_BOX's is correct too (each thread one plane). */
static __device__ inline long tdpEdgeNh_(long nh) {
  if (nh < 0) {
    printf("targetDP: a negative shell depth given to TDP_TLP_2D_EDGE / _3D_EDGE\n");
    __trap();
  }
  return nh;
}
#define TDP_EDGE_NEAR_(box, k, d) ((d) - (box).lo[k] < tdp_nh_ || (box).hi[k] - (d) <= tdp_nh_)
/* A site within nh of either end of its row is edge: this alone covers a
 * row no longer than 2 nh. */
#if VVL == 1
#define TDP_EDGE_PIECES_(box, n, wall, c0, z0, base, first, edge)                          \
  for (long z0 = (c0), edge = (wall) || TDP_EDGE_NEAR_(box, n - 1, z0), base = (first) + z0, \
            tdp_o2_ = 1;                                                                    \
       tdp_o2_; tdp_o2_ = 0)                                                                \
    TDP_SHELL_LANE_
#else
#define TDP_EDGE_PIECES_(box, n, wall, c0, z0, base, first, edge)                               \
  for (long tdp_lo_ = (box).lo[n - 1] + tdp_nh_, tdp_hi_ = (box).hi[n - 1] - tdp_nh_,            \
            tdp_w_ = (wall) || tdp_lo_ >= tdp_hi_,                                               \
            tdp_se_ = (c0) + (VVL) < (box).hi[n - 1] ? (c0) + (VVL) : (box).hi[n - 1],           \
            z0 = (c0), tdp_ze_ = 0;                                                              \
       z0 < tdp_se_; z0 = tdp_ze_)                                                               \
    for (long edge = tdp_w_ || z0 < tdp_lo_ || z0 >= tdp_hi_, base = (first) + z0,              \
              tdp_o2_ = (tdp_ze_ = tdp_w_ || z0 >= tdp_hi_ ? tdp_se_                              \
                                   : z0 < tdp_lo_ ? (tdp_lo_ < tdp_se_ ? tdp_lo_ : tdp_se_)      \
                                                  : (tdp_hi_ < tdp_se_ ? tdp_hi_ : tdp_se_),     \
                        1);                                                                      \
         tdp_o2_; tdp_o2_ = 0)                                                                   \
      for (int tdp_nlane_ = (int) (tdp_ze_ - z0), tdp_lstride_ = 1, tdp_once_ = 1; tdp_once_;    \
           tdp_once_ = 0)
#endif
#define TDP_TLP_2D_EDGE(box, nh, x, y0, base, edge)                                             \
  for (long tdp_nh_ = tdpEdgeNh_(nh), tdp_o5_ = 1; tdp_o5_; tdp_o5_ = 0)                         \
    TDP_BOX_RUN_(box, 2)                                                                         \
      TDP_BOX_PLANE_(box, 2, x, tdp_c0_)                                                         \
        TDP_EDGE_PIECES_(box, 2, TDP_EDGE_NEAR_(box, 0, x), tdp_c0_, y0, base,                   \
                         x * (box).extent[1], edge)
#define TDP_TLP_3D_EDGE(box, nh, x, y, z0, base, edge)                                          \
  for (long tdp_nh_ = tdpEdgeNh_(nh), tdp_o5_ = 1; tdp_o5_; tdp_o5_ = 0)                         \
    TDP_MARCH_3D_(box, x, y, tdp_c0_, tdp_first_, 0)                                             \
      TDP_EDGE_PIECES_(box, 3, TDP_EDGE_NEAR_(box, 0, x) || TDP_EDGE_NEAR_(box, 1, y),           \
                       tdp_c0_, z0, base, tdp_first_, edge)

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
/* A reduction's grid: at most tdpGridBlocksMax_ (two fills of the GPU)
 * blocks, the outer dimensions (z) and the rows (y) shrinking first; the
 * box loop is grid-stride in every direction. */
static inline dim3 tdpBoxGridReduce_(const targetBox *b) {
  dim3 g = tdpBoxGrid_(b);
  while ((long) g.x * g.y * g.z > tdpGridBlocksMax_ && g.z > 1) g.z = (g.z + 1) / 2;
  while ((long) g.x * g.y * g.z > tdpGridBlocksMax_ && g.y > 1) g.y = (g.y + 1) / 2;
  while ((long) g.x * g.y * g.z > tdpGridBlocksMax_ && g.x > 1) g.x = (g.x + 1) / 2;
  return g;
}
/* A shell's grid: one thread per shell site (grid-stride beyond it). */
static inline dim3 tdpShellGrid_(const targetBox *b, long nh) {
  long n = (tdpShellSites_(b, nh) + TARGET_TPB - 1) / TARGET_TPB;
  if (n > 0x7fffffffL) n = 0x7fffffffL;
  return dim3((unsigned int) (n < 1 ? 1 : n));
}
/* TDP_LAUNCH_BOX_MARCH's grid: TDP_TLP_3D_MARCH's (and TDP_TLP_3D_EDGE's)
 * tiles of 32 strides by TPB / 32 rows (the flat plane of TDP_LAUNCH_BOX
 * where rows are shorter than a warp), and each thread marching through m
 * planes: the longest of 16, 8, 4, 2 that leaves at least two fills of the GPU (marching costs
 * parallelism: Micikevicius's kernel walking the whole of x in a thread ran
 * at 0.76x the plain 3-D one on the H100 with 400 blocks for 132 SMs, the
 * corpus's heat3d "cuda-march"). */
#define TDP_BOX_MARCH_ 16
static inline dim3 tdpBoxGridMarch_(const targetBox *b) {
  tdpBoxRun_ run = tdpBoxRunOf_(b, b->ndim);
  const int tile = !run.flat && TARGET_TPB % 32 == 0;
  const long tw = tile ? 32 : TARGET_TPB, th = tile ? TARGET_TPB / 32 : 1;
  long nx = (run.plane + tw - 1) / tw, ny = (run.rows + th - 1) / th, m = TDP_BOX_MARCH_;
  while (m > 1 && nx * ny * ((run.outer + m - 1) / m) < tdpGridBlocksMax_) m /= 2;
  if (tdpBoxMarchForce_ > 0) m = tdpBoxMarchForce_;
  long nz = (run.outer + m - 1) / m;
  if (nx > 0x7fffffffL) nx = 0x7fffffffL;
  if (ny > 65535) ny = 65535;
  if (nz > 65535) nz = 65535;
  return dim3((unsigned int) (nx < 1 ? 1 : nx), (unsigned int) (ny < 1 ? 1 : ny),
              (unsigned int) (nz < 1 ? 1 : nz));
}
#define TDP_LAUNCH_BOX_WITH_(form, grid, kernel, box, ...)                               \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    if (tdpLaunchBox_(form, #kernel, &tdp_lbox_, __FILE__, __LINE__) == TARGET_SUCCESS) { \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel<<<grid(&tdp_lbox_), TARGET_TPB>>>(tdp_lbox_, __VA_ARGS__);                  \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                       \
      TDP_PROFILE_STOP_(#kernel);                                                        \
    }                                                                                    \
  } while (0)
#define TDP_LAUNCH_BOX(kernel, box, ...) \
  TDP_LAUNCH_BOX_WITH_("TDP_LAUNCH_BOX", tdpBoxGrid_, kernel, box, __VA_ARGS__)
#define TDP_LAUNCH_BOX_REDUCE(kernel, box, ...) \
  TDP_LAUNCH_BOX_WITH_("TDP_LAUNCH_BOX_REDUCE", tdpBoxGridReduce_, kernel, box, __VA_ARGS__)
#define TDP_LAUNCH_BOX_MARCH(kernel, box, ...) \
  TDP_LAUNCH_BOX_WITH_("TDP_LAUNCH_BOX_MARCH", tdpBoxGridMarch_, kernel, box, __VA_ARGS__)
/* TDP_LAUNCH_STENCIL's grid where the one-site form applies (VVL 1, a TPB
 * that is a power of two of at least 64, a 3-D box, extents below 2^30 and
 * within CUDA's grid): a block per w x TPB / 2w x 2 sites, covering the
 * box; else 0, and the launch marches. */
static inline int tdpStencilGrid_(const targetBox *b, dim3 *g) {
  int ok = VVL == 1 && TDP_SITE_TILED_ && b->ndim == 3 && tdpBoxMarchForce_ <= 0;
  for (int d = 0; d < 3; d++) ok = ok && b->extent[d] <= TDP_SITE_MAX_;
  if (!ok) return 0;
  const long w = 1L << tdpSiteLogW_(b), h = TARGET_TPB / (2 * w);
  const long n[3] = {(tdpBoxLen_(b, 2) + w - 1) / w, (tdpBoxLen_(b, 1) + h - 1) / h,
                     (tdpBoxLen_(b, 0) + 1) / 2};
  if (n[1] > 65535 || n[2] > 65535) return 0;
  *g = dim3((unsigned int) (n[0] < 1 ? 1 : n[0]), (unsigned int) (n[1] < 1 ? 1 : n[1]),
            (unsigned int) (n[2] < 1 ? 1 : n[2]));
  return 1;
}
/* A TDP_KERNEL_STENCIL kernel is a template (see TDP_MARCH_3D_): a launch
 * that names no instance (TDP_LAUNCH_BOX, TDP_LAUNCH_BOX_MARCH) runs the
 * march, which any grid runs correctly. */
#define TDP_KERNEL_STENCIL template <int tdp_stencil_ = 0> __global__ __launch_bounds__(TARGET_TPB)
#define TDP_LAUNCH_STENCIL(kernel, box, ...)                                              \
  do {                                                                                    \
    const targetBox tdp_lbox_ = (box);                                                    \
    dim3 tdp_lgrid_;                                                                      \
    if (tdpLaunchBox_("TDP_LAUNCH_STENCIL", #kernel, &tdp_lbox_, __FILE__, __LINE__) ==   \
        TARGET_SUCCESS) {                                                                 \
      TDP_PROFILE_START_(#kernel);                                                        \
      if (tdpStencilGrid_(&tdp_lbox_, &tdp_lgrid_))                                       \
        kernel<1><<<tdp_lgrid_, TARGET_TPB>>>(tdp_lbox_, __VA_ARGS__);                    \
      else                                                                                \
        kernel<0><<<tdpBoxGridMarch_(&tdp_lbox_), TARGET_TPB>>>(tdp_lbox_, __VA_ARGS__);  \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                        \
      TDP_PROFILE_STOP_(#kernel);                                                         \
    }                                                                                     \
  } while (0)
#define TDP_LAUNCH_SHELL(kernel, box, nh, ...)                                           \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    const long tdp_lnh_ = (nh);                                                          \
    if (tdpLaunchShell_(#kernel, &tdp_lbox_, tdp_lnh_, __FILE__, __LINE__) == TARGET_SUCCESS) { \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel<<<tdpShellGrid_(&tdp_lbox_, tdp_lnh_), TARGET_TPB>>>(tdp_lbox_, __VA_ARGS__); \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                       \
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
        tdpStreamNative_((stream), &tdp_native_, __FILE__, __LINE__) == TARGET_SUCCESS) { \
      TDP_PROFILE_START_(#kernel);                                                      \
      kernel<<<tdpBoxGrid_(&tdp_lbox_), TARGET_TPB, 0, (cudaStream_t) tdp_native_>>>(   \
          tdp_lbox_, __VA_ARGS__);                                                      \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                      \
      TDP_PROFILE_STOP_(#kernel);                                                       \
    }                                                                                   \
  } while (0)

#else /* C backend */

/* The box of a loop, evaluated once (a pointer the threads share), after
 * the check of its dimension. */
static inline const targetBox *tdpBoxAt_(const targetBox *b, int want, const char *file,
                                         int line) {
  tdpBoxDim_(b, want, file, line);
  return b;
}
#define TDP_BOX_BIND_(box, n)                                                            \
  for (const targetBox *tdp_bx_ = tdpBoxAt_(&(box), n, __FILE__, __LINE__); tdp_bx_;       \
       tdp_bx_ = 0)

/* The strides of one row: with VVL > 1, the full strides and then the short
 * one in two passes (as the 1-D TDP_TLP: once the pass loop is unrolled the
 * full strides see the constant lane count VVL and vectorise like plain
 * code; TDP_NLANE_ reads tdp_pass_ and the row length tdp_n_); with VVL 1
 * the sites themselves are the simd loop. Measured (issue 28, gcc 12, one
 * Xeon thread, heat3d interior at 34^3): the earlier row loop, whose pass
 * loop was not unrolled (its bound was 2 + tdp_fence_) and which found each
 * row's coordinates by two 64-bit divisions, ran at 0.54x a native "omp
 * simd" row loop. tdp_fence_ = 0: no streaming-store fence per row, so
 * TDP_STREAM_LANES stores plainly here. */
#if VVL == 1
#define TDP_BOX_ROW_(n, c0, base, first)                                        \
  for (long tdp_first_ = (first), tdp_lo_ = tdp_bx_->lo[n - 1],                 \
            tdp_hi_ = tdp_bx_->hi[n - 1], tdp_o6_ = 1;                          \
       tdp_o6_; tdp_o6_ = 0)                                                    \
    TDP_OMP_SIMD_()                                                             \
    for (long c0 = tdp_lo_; c0 < tdp_hi_; c0++)                                 \
      for (long base = tdp_first_ + c0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)
#elif defined(TDP_ROW_SITES_) /* clang: one-lane strides, why in targetDP_C.h (the exit
                                 test reads tdp_n_ and tdp_pass_: used without a TDP_ILP) */
#define TDP_BOX_ROW_(n, c0, base, first)                                                   \
  for (long tdp_first_ = (first), tdp_lo_ = tdp_bx_->lo[n - 1],                           \
            tdp_hi_ = tdp_bx_->hi[n - 1], tdp_fence_ = 0, tdp_o6_ = 1;                    \
       tdp_o6_ && !tdp_fence_; tdp_o6_ = 0)                                               \
    TDP_ROW_SIMD_()                                                                       \
    for (long c0 = tdp_lo_; c0 < tdp_hi_; c0++)                                           \
      for (long base = tdp_first_ + c0, tdp_n_ = 1, tdp_pass_ = 1, tdp_o2_ = 1;         \
           tdp_o2_ && tdp_n_ == tdp_pass_; tdp_o2_ = 0)
#else
#define TDP_BOX_ROW_(n, c0, base, first)                                                     \
  for (int tdp_fence_ = 0, tdp_o4_ = 1; tdp_o4_ && !tdp_fence_; tdp_o4_ = 0)                \
    TDP_UNROLL_PASSES_                                                                      \
    for (long tdp_lo_ = tdp_bx_->lo[n - 1], tdp_m_ = tdp_bx_->hi[n - 1] - tdp_lo_,           \
              tdp_first_ = (first), tdp_p_ = 0;                                             \
         tdp_p_ < 2; tdp_p_++)                                                              \
      for (long c0 = tdp_lo_ + (tdp_p_ ? tdp_m_ / TDP_ROW_VVL_ * TDP_ROW_VVL_ : 0);          \
           c0 < tdp_lo_ + (tdp_p_ ? tdp_m_ : tdp_m_ / TDP_ROW_VVL_ * TDP_ROW_VVL_);          \
           c0 += TDP_ROW_VVL_)                                                              \
        for (long base = tdp_first_ + c0,                                                   \
                  tdp_n_ = tdp_p_ ? tdp_m_ % TDP_ROW_VVL_ : TDP_ROW_VVL_,                   \
                  tdp_pass_ = tdp_p_ || TDP_ROW_VVL_ < (VVL), tdp_o2_ = 1;                  \
             tdp_o2_ && tdp_pass_ >= 0; tdp_o2_ = 0)
#endif

/* The rows over the threads as nested loops (collapse): no division per
 * row. `base` (the caller's name for it) is declared inside the row from
 * the row's first site. */
#define TDP_TLP_2D(box, x, y0, base)                                              \
  TDP_BOX_BIND_(box, 2)                                                           \
  TDP_OMP_(parallel for schedule(static))                                         \
  for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                          \
    TDP_BOX_ROW_(2, y0, base, x * tdp_bx_->extent[1])

#define TDP_TLP_3D(box, x, y, z0, base)                                           \
  TDP_BOX_BIND_(box, 3)                                                           \
  TDP_OMP_(parallel for collapse(2) schedule(static))                             \
  for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                          \
    for (long y = tdp_bx_->lo[1]; y < tdp_bx_->hi[1]; y++)                        \
      TDP_BOX_ROW_(3, z0, base, (x * tdp_bx_->extent[1] + y) * tdp_bx_->extent[2])

#define TDP_TLP_4D(box, t, x, y, z0, base)                                        \
  TDP_BOX_BIND_(box, 4)                                                           \
  TDP_OMP_(parallel for collapse(3) schedule(static))                             \
  for (long t = tdp_bx_->lo[0]; t < tdp_bx_->hi[0]; t++)                          \
    for (long x = tdp_bx_->lo[1]; x < tdp_bx_->hi[1]; x++)                        \
      for (long y = tdp_bx_->lo[2]; y < tdp_bx_->hi[2]; y++)                      \
        TDP_BOX_ROW_(4, z0, base,                                                 \
                     ((t * tdp_bx_->extent[1] + x) * tdp_bx_->extent[2] + y) *    \
                         tdp_bx_->extent[3])

/* On the C backend the marching form is TDP_TLP_3D: a thread's rows are
 * already consecutive, and its caches keep the planes they share. */
#define TDP_TLP_3D_MARCH(box, x, y, z0, base) TDP_TLP_3D(box, x, y, z0, base)

/* The row's first site and bounds are locals of the row, set before its
 * simd loop: read through the box pointer inside it, gcc 12 could not see
 * them invariant and vectorised the Jacobi residual's row with gathers and
 * scatters (0.17x its serial original, one thread). */
/* Box reductions: the rows over the threads, each thread's partials
 * combined by the reduction clauses ("omp parallel for reduction"), each
 * row one "omp simd reduction" loop, one site per lane (as the 1-D
 * TDP_TLP_REDUCE, whatever VVL; TDP_ILP_REDUCE is one pass). The two
 * constructs apart, not "omp for simd": clang 14 and 16 sum a conditional
 * body wrongly in the combined one (issue 25) and vectorise this inner
 * loop, which they did not the combined one. The checked build registers
 * the variables as TDP_TLP_REDUCE does, so targetBlock* accepts them. */
#define TDP_BOX_RROW_(n, c0, base, first, ...)                                    \
  for (long tdp_first_ = (first), tdp_lo_ = tdp_bx_->lo[n - 1],                   \
            tdp_hi_ = tdp_bx_->hi[n - 1], tdp_o6_ = 1;                            \
       tdp_o6_; tdp_o6_ = 0)                                                      \
    TDP_OMP_SIMD_(TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))                           \
    TDP_RIC_()                                                                    \
    for (long c0 = tdp_lo_; c0 < tdp_hi_; c0++)                                   \
      for (long base = tdp_first_ + c0, tdp_o2_ = 1; tdp_o2_; tdp_o2_ = 0)

#define TDP_TLP_2D_REDUCE(box, x, y0, base, ...)                                   \
  TDP_RREGISTER_(TDP_EACH_(TDP_RADDR_, __VA_ARGS__))                               \
  TDP_BOX_BIND_(box, 2)                                                            \
  TDP_OMP_(parallel for schedule(static) TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))     \
  for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                           \
    TDP_BOX_RROW_(2, y0, base, x * tdp_bx_->extent[1], __VA_ARGS__)

#define TDP_TLP_3D_REDUCE(box, x, y, z0, base, ...)                                \
  TDP_RREGISTER_(TDP_EACH_(TDP_RADDR_, __VA_ARGS__))                               \
  TDP_BOX_BIND_(box, 3)                                                            \
  TDP_OMP_(parallel for collapse(2) schedule(static)                               \
           TDP_EACH_(TDP_RCLAUSE_, __VA_ARGS__))                                   \
  for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                           \
    for (long y = tdp_bx_->lo[1]; y < tdp_bx_->hi[1]; y++)                         \
      TDP_BOX_RROW_(3, z0, base, (x * tdp_bx_->extent[1] + y) * tdp_bx_->extent[2], \
                    __VA_ARGS__)

/* The shell of a box: its sites within nh of a face of the box (with
 * targetBoxAll, the lattice's outer nh layers), the pass beside an interior
 * launch that a code whose boundary sites are updated another way needs
 * (walls copied, a boundary condition). One pass over the rows of the box
 * (threads over rows, no division): a row on an outer wall is all shell,
 * in VVL strides; any other row has nh sites at each end. Why not a box
 * launch per face: a z face is a box of rows one site long, each paying a
 * row's set-up: the six faces of a 200^3 heat step cost 10-15% of the
 * interior update on one Xeon thread (gcc 12). tdp_n_ (the lanes of the
 * stride) and tdp_pass_ (a short stride) are what TDP_ILP's lane count
 * (TDP_NLANE_) reads. */
static inline long tdpShellDepth_(long nh, const char *file, int line) {
  if (nh < 0) tdpShellDepthFail_(nh, file, line);
  return nh;
}
#define TDP_SHELL_SEGS_(n, wall, c0, base, first, nh)                                      \
  for (long tdp_wall_ = (wall) || tdp_bx_->hi[n - 1] - tdp_bx_->lo[n - 1] <= 2 * (nh),      \
            tdp_seg_ = 0;                                                                  \
       tdp_seg_ < 2 - tdp_wall_; tdp_seg_++)                                               \
    for (long tdp_hi_ = tdp_wall_ || tdp_seg_ ? tdp_bx_->hi[n - 1] : tdp_bx_->lo[n - 1] + (nh), \
              c0 = tdp_seg_ ? tdp_bx_->hi[n - 1] - (nh) : tdp_bx_->lo[n - 1];               \
         c0 < tdp_hi_; c0 += (VVL))                                                        \
      for (long base = (first) + c0, tdp_n_ = tdp_hi_ - c0 < (VVL) ? tdp_hi_ - c0 : (VVL),  \
                tdp_pass_ = tdp_n_ < (VVL), tdp_o2_ = 1;                                   \
           tdp_o2_ && tdp_pass_ >= 0; tdp_o2_ = 0)
/* d within nh of the ends of the box in dimension k */
#define TDP_SHELL_NEAR_(k, d, nh) \
  ((d) - tdp_bx_->lo[k] < (nh) || tdp_bx_->hi[k] - (d) <= (nh))

#define TDP_TLP_2D_SHELL(box, nh, x, y0, base)                                     \
  TDP_BOX_BIND_(box, 2)                                                            \
  for (long tdp_nh_ = tdpShellDepth_((nh), __FILE__, __LINE__), tdp_o5_ = 1; tdp_o5_;  \
       tdp_o5_ = 0)                                                                \
    TDP_OMP_(parallel for schedule(static))                                        \
    for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                         \
      TDP_SHELL_SEGS_(2, TDP_SHELL_NEAR_(0, x, tdp_nh_), y0, base, x * tdp_bx_->extent[1], \
                      tdp_nh_)

#define TDP_TLP_3D_SHELL(box, nh, x, y, z0, base)                                  \
  TDP_BOX_BIND_(box, 3)                                                            \
  for (long tdp_nh_ = tdpShellDepth_((nh), __FILE__, __LINE__), tdp_o5_ = 1; tdp_o5_;  \
       tdp_o5_ = 0)                                                                \
    TDP_OMP_(parallel for collapse(2) schedule(static))                            \
    for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                         \
      for (long y = tdp_bx_->lo[1]; y < tdp_bx_->hi[1]; y++)                       \
        TDP_SHELL_SEGS_(3, TDP_SHELL_NEAR_(0, x, tdp_nh_) || TDP_SHELL_NEAR_(1, y, tdp_nh_), \
                        z0, base, (x * tdp_bx_->extent[1] + y) * tdp_bx_->extent[2], tdp_nh_)

/* The edge forms: every site of the box in one pass, in memory order, and
 * `edge` (0 or 1, the same for every lane of a stride) saying whether the
 * stride lies in the shell of depth nh (TDP_TLP_3D_SHELL's sites): an
 * interior update and a boundary copy in one launch over targetBoxAll
 * (3-D: TDP_LAUNCH_BOX_MARCH, which marches on CUDA), without the shell pass's second visit to both ends of every
 * interior row. Measured (issue 28, heat3d at 161^3, one thread of the
 * 2-core box, clang 14 and gcc 12): the interior launch 8.1 ms and the
 * shell pass 1.9 ms; one pass in order 7.6-8.3 ms, the native's time once
 * it stores the row ends in order too. A row is four segments: nh edge
 * sites, the interior's full strides (segment 1: the lane count is the
 * constant VVL once the segment loop is unrolled, so its ILP loops
 * vectorise as the row form's), its short stride, nh edge sites; a row
 * within nh of an outer face of the box, or no longer than 2 nh, is
 * segment 0 alone, all edge. tdp_n_ / tdp_pass_ give TDP_NLANE_ the lanes
 * of a stride as TDP_SHELL_SEGS_ does. */
#define TDP_EDGE_SEG_LO_(lo, hi, nh, m, s) \
  ((s) == 0 ? (lo) : (s) == 1 ? (lo) + (nh) : (s) == 2 ? (lo) + (nh) + (m) : (hi) - (nh))
#define TDP_EDGE_SEG_HI_(lo, hi, nh, m, s) \
  ((s) == 0 ? (lo) + (nh) : (s) == 1 ? (lo) + (nh) + (m) : (s) == 2 ? (hi) - (nh) : (hi))
/* Under clang (TDP_ROW_SITES_, why in targetDP_C.h) three segments of
 * one-lane strides, each an "omp simd" loop VVL wide: nh edge sites, the
 * interior, nh edge sites; `edge` a constant of each once the segment loop is
 * unrolled (a wall row is segment 0 alone, the others empty). */
#if defined(TDP_ROW_SITES_) || defined(TDP_EDGE_SITES_) /* TDP_EDGE_SITES_: the edge rows alone */
#define TDP_EDGE_ROW_(n, wall, c0, base, first, nh, edge)                                     \
  for (long tdp_lo_ = tdp_bx_->lo[n - 1], tdp_hi_ = tdp_bx_->hi[n - 1],                       \
            tdp_w_ = (wall) || tdp_hi_ - tdp_lo_ <= 2 * (nh), tdp_first_ = (first),           \
            tdp_fence_ = 0, tdp_o6_ = 1;                                                      \
       tdp_o6_ && !tdp_fence_; tdp_o6_ = 0)                                                   \
    TDP_PRAGMA(GCC unroll 3)                                                                 \
    for (long tdp_s_ = 0; tdp_s_ < 3; tdp_s_++)                                               \
      for (long tdp_c_ = tdp_w_ ? (tdp_s_ ? tdp_hi_ : tdp_lo_)                                \
                                : tdp_s_ == 0 ? tdp_lo_ : tdp_s_ == 1 ? tdp_lo_ + (nh) : tdp_hi_ - (nh), \
                tdp_e_ = tdp_w_ ? tdp_hi_                                                     \
                                : tdp_s_ == 0 ? tdp_lo_ + (nh) : tdp_s_ == 1 ? tdp_hi_ - (nh) : tdp_hi_, \
                tdp_o7_ = 1;                                                                  \
           tdp_o7_; tdp_o7_ = 0)                                                              \
        TDP_EDGE_SIMD_()                                                                      \
        TDP_EDGE_SITES_LOOP_(c0, base, edge)
/* The segment's sites: one loop. Under clang's loop pragma (TDP_EDGE_ONE_LOOP_,
 * targetDP_C.h) base and edge are declared in the loop itself; a one-trip loop
 * around the body, as the "omp simd" form needs (a canonical loop declares one
 * variable), made clang 22 leave the edge rows scalar: its LICM hoists the loads
 * of the kernel's shared variables (unew, u: the parallel region's captured
 * pointers) out of the one-trip loop, speculatively past the body's `if (edge)`,
 * and drops their access group, after which they cannot leave the row's loop
 * and its vectoriser "cannot identify array bounds" (heat3d's port 0.64, and
 * stencil27's 0.28, of the native on one thread of the H100's host; clang 14
 * vectorised both forms; benchmarks/results/host-clang22/). `continue` goes on
 * with the next site; a `break` in the body itself would leave the segment. */
#if TDP_EDGE_ONE_LOOP_
#define TDP_EDGE_SITES_LOOP_(c0, base, edge)                                              \
  for (long c0 = tdp_c_, base = tdp_first_ + tdp_c_, tdp_n_ = 1, tdp_pass_ = 1,            \
            edge = tdp_s_ != 1;                                                             \
       c0 < tdp_e_ && tdp_n_ == tdp_pass_; c0++, base++)
#else
#define TDP_EDGE_SITES_LOOP_(c0, base, edge)                                                \
  for (long c0 = tdp_c_; c0 < tdp_e_; c0++)                                                 \
    for (long base = tdp_first_ + c0, tdp_n_ = 1, tdp_pass_ = 1, edge = tdp_s_ != 1,          \
              tdp_o2_ = 1;                                                                  \
         tdp_o2_ && tdp_n_ == tdp_pass_; tdp_o2_ = 0)
#endif
#else
#define TDP_EDGE_ROW_(n, wall, c0, base, first, nh, edge)                                        \
  for (int tdp_fence_ = 0, tdp_o4_ = 1; tdp_o4_ && !tdp_fence_; tdp_o4_ = 0)                    \
    for (long tdp_lo_ = tdp_bx_->lo[n - 1], tdp_hi_ = tdp_bx_->hi[n - 1],                        \
              tdp_w_ = (wall) || tdp_hi_ - tdp_lo_ <= 2 * (nh),                                  \
              tdp_m_ = tdp_w_ ? 0 : (tdp_hi_ - tdp_lo_ - 2 * (nh)) / (VVL) * (VVL),               \
              tdp_first_ = (first), tdp_o6_ = 1;                                                 \
         tdp_o6_; tdp_o6_ = 0)                                                                   \
      TDP_PRAGMA(GCC unroll 4)                                                                  \
      for (long tdp_s_ = 0; tdp_s_ < 4; tdp_s_++)                                                \
        for (long c0 = tdp_w_ ? (tdp_s_ ? tdp_hi_ : tdp_lo_)                                     \
                              : TDP_EDGE_SEG_LO_(tdp_lo_, tdp_hi_, (nh), tdp_m_, tdp_s_),         \
                  tdp_e_ = tdp_w_ ? tdp_hi_ : TDP_EDGE_SEG_HI_(tdp_lo_, tdp_hi_, (nh), tdp_m_, tdp_s_); \
             c0 < tdp_e_; c0 += (VVL))                                                           \
          for (long base = tdp_first_ + c0,                                                      \
                    tdp_n_ = tdp_s_ == 1 ? (VVL) : tdp_e_ - c0 < (VVL) ? tdp_e_ - c0 : (VVL),    \
                    tdp_pass_ = tdp_s_ == 1 ? 0 : tdp_n_ < (VVL),                                \
                    edge = tdp_s_ == 0 || tdp_s_ == 3, tdp_o2_ = 1;                              \
               tdp_o2_ && tdp_pass_ >= 0; tdp_o2_ = 0)

#endif

#define TDP_TLP_2D_EDGE(box, nh, x, y0, base, edge)                                \
  TDP_BOX_BIND_(box, 2)                                                            \
  for (long tdp_nh_ = tdpShellDepth_((nh), __FILE__, __LINE__), tdp_o5_ = 1; tdp_o5_;  \
       tdp_o5_ = 0)                                                                \
    TDP_OMP_(parallel for schedule(static))                                        \
    for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                         \
      TDP_EDGE_ROW_(2, TDP_SHELL_NEAR_(0, x, tdp_nh_), y0, base, x * tdp_bx_->extent[1], \
                    tdp_nh_, edge)

#define TDP_TLP_3D_EDGE(box, nh, x, y, z0, base, edge)                             \
  TDP_BOX_BIND_(box, 3)                                                            \
  for (long tdp_nh_ = tdpShellDepth_((nh), __FILE__, __LINE__), tdp_o5_ = 1; tdp_o5_;  \
       tdp_o5_ = 0)                                                                \
    TDP_OMP_(parallel for collapse(2) schedule(static))                            \
    for (long x = tdp_bx_->lo[0]; x < tdp_bx_->hi[0]; x++)                         \
      for (long y = tdp_bx_->lo[1]; y < tdp_bx_->hi[1]; y++)                       \
        TDP_EDGE_ROW_(3, TDP_SHELL_NEAR_(0, x, tdp_nh_) || TDP_SHELL_NEAR_(1, y, tdp_nh_), \
                      z0, base, (x * tdp_bx_->extent[1] + y) * tdp_bx_->extent[2], tdp_nh_, edge)

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
/* The launch of a TDP_TLP_3D_MARCH or TDP_TLP_3D_EDGE kernel: on the C
 * backend TDP_LAUNCH_BOX (the host's loops do not march). */
#define TDP_LAUNCH_BOX_MARCH(kernel, box, ...) TDP_LAUNCH_BOX(kernel, box, __VA_ARGS__)
/* A kernel of 3-D stencil loops and its launch (CUDA: one site per thread
 * where the grid can cover the box); on the C backend TDP_KERNEL and
 * TDP_LAUNCH_BOX. */
#define TDP_KERNEL_STENCIL TDP_KERNEL
#define TDP_LAUNCH_STENCIL(kernel, box, ...) TDP_LAUNCH_BOX(kernel, box, __VA_ARGS__)
/* The launch of a box reduction (TDP_TLP_2D_REDUCE, _SUM, ...): on CUDA a
 * grid capped at two fills of the GPU. */
#define TDP_LAUNCH_BOX_REDUCE(kernel, box, ...)                                          \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    if (tdpLaunchBox_("TDP_LAUNCH_BOX_REDUCE", #kernel, &tdp_lbox_, __FILE__, __LINE__) == \
        TARGET_SUCCESS) {                                                                \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel(tdp_lbox_, __VA_ARGS__);                                                      \
      TDP_PROFILE_STOP_(#kernel);                                                        \
    }                                                                                    \
  } while (0)
/* The launch of a shell kernel (TDP_TLP_2D_SHELL, _3D_SHELL) over the shell
 * of depth nh of box. */
#define TDP_LAUNCH_SHELL(kernel, box, nh, ...)                                           \
  do {                                                                                   \
    const targetBox tdp_lbox_ = (box);                                                   \
    if (tdpLaunchShell_(#kernel, &tdp_lbox_, (nh), __FILE__, __LINE__) == TARGET_SUCCESS) { \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel(tdp_lbox_, __VA_ARGS__);                                                      \
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
        tdpStreamNative_((stream), &tdp_native_, __FILE__, __LINE__) == TARGET_SUCCESS) {  \
      TDP_PROFILE_START_(#kernel);                                                       \
      kernel(tdp_lbox_, __VA_ARGS__);                                                    \
      TDP_PROFILE_STOP_(#kernel);                                                        \
    }                                                                                    \
  } while (0)

#endif /* __CUDACC__ */

/* TDP_TLP_2D_SUM(box, x, y0, base, a, b) is TDP_TLP_2D_REDUCE(box, x, y0,
 * base, TDP_RSUM(a), TDP_RSUM(b)); _MIN and _MAX the same. */
#define TDP_BOX_REDUCE_LIST2_(...) TDP_TLP_2D_REDUCE(__VA_ARGS__)
#define TDP_BOX_REDUCE_LIST3_(...) TDP_TLP_3D_REDUCE(__VA_ARGS__)
#define TDP_TLP_2D_SUM(box, x, y0, base, ...) \
  TDP_BOX_REDUCE_LIST2_(box, x, y0, base TDP_EACH_(TDP_RSUM_EACH_, __VA_ARGS__))
#define TDP_TLP_2D_MIN(box, x, y0, base, ...) \
  TDP_BOX_REDUCE_LIST2_(box, x, y0, base TDP_EACH_(TDP_RMIN_EACH_, __VA_ARGS__))
#define TDP_TLP_2D_MAX(box, x, y0, base, ...) \
  TDP_BOX_REDUCE_LIST2_(box, x, y0, base TDP_EACH_(TDP_RMAX_EACH_, __VA_ARGS__))
#define TDP_TLP_3D_SUM(box, x, y, z0, base, ...) \
  TDP_BOX_REDUCE_LIST3_(box, x, y, z0, base TDP_EACH_(TDP_RSUM_EACH_, __VA_ARGS__))
#define TDP_TLP_3D_MIN(box, x, y, z0, base, ...) \
  TDP_BOX_REDUCE_LIST3_(box, x, y, z0, base TDP_EACH_(TDP_RMIN_EACH_, __VA_ARGS__))
#define TDP_TLP_3D_MAX(box, x, y, z0, base, ...) \
  TDP_BOX_REDUCE_LIST3_(box, x, y, z0, base TDP_EACH_(TDP_RMAX_EACH_, __VA_ARGS__))

#endif /* TARGETDP_BOX_H */
