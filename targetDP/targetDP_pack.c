/*
 * targetDP_pack.c -- packing boxes of a field (faces, for halo exchange)
 * into contiguous buffers, written as targetDP kernels: compiled like a
 * program, as C with OpenMP on the C backend and as CUDA (nvcc -x cu) on
 * the CUDA backend, into the layer's library. Also the fast path of
 * copyToTarget3DHalo / copyFromTarget3DEdge: a few boxes through one
 * buffer each way instead of a scan of the whole volume.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP_internal.h"

#define SITE(name) ((tdpSite){name, f, l})

/* A box of a lattice, as 4-D (a lattice of fewer dimensions has leading
 * extents of 1): field extents n, box origin lo and extents b. */
typedef struct {
  long n[4], lo[4], b[4];
  long nsites, nbox;
  int ncomp;
  int esz; /* bytes per element: 4, 8 or 16 */
} tdpBox;

/* Elements are moved as bytes: a kernel per element size, generated from
 * one definition (TDP_PACK_KERNEL_), serves every element type. */
typedef struct {
  unsigned long long w[2];
} tdpPackE16_;

/* The field index of the k-th site of the box. A box has fewer than 2^31
 * sites (checked), so 32-bit divisions do: several times cheaper than
 * 64-bit ones on a CPU. */
static TDP_HOST_DEVICE inline long box_site(const tdpBox *g, long kk) {
  unsigned int k = (unsigned int) kk;
  unsigned int x3 = k % (unsigned int) g->b[3];
  k /= (unsigned int) g->b[3];
  unsigned int x2 = k % (unsigned int) g->b[2];
  k /= (unsigned int) g->b[2];
  unsigned int x1 = k % (unsigned int) g->b[1];
  unsigned int x0 = k / (unsigned int) g->b[1];
  return (((g->lo[0] + x0) * g->n[1] + g->lo[1] + x1) * g->n[2] + g->lo[2] + x2) * g->n[3] +
         g->lo[3] + x3;
}

/* One site per lane; the buffer side is written (read) contiguously by
 * consecutive sites, component by component. */
#define TDP_PACK_KERNEL_(Name, E)                                          \
  TDP_KERNEL void Name(E *dst, const E *src, tdpBox g, int unpack) {       \
    TDP_TLP(baseIndex, (int) g.nbox) {                                     \
      TDP_ILP(vecIndex) {                                                  \
        long k = baseIndex + vecIndex;                                     \
        long site = box_site(&g, k);                                       \
        for (int c = 0; c < g.ncomp; c++) {                                \
          size_t fi = TDP_INDEX(g.nsites, g.ncomp, site, c);               \
          size_t bi = (size_t) c * g.nbox + k;                             \
          if (unpack) dst[fi] = src[bi];                                   \
          else dst[bi] = src[fi];                                          \
        }                                                                  \
      }                                                                    \
    }                                                                      \
  }
TDP_PACK_KERNEL_(tdpPackKernel4, unsigned int)
TDP_PACK_KERNEL_(tdpPackKernel8, unsigned long long)
TDP_PACK_KERNEL_(tdpPackKernel16, tdpPackE16_)

/* Launch the kernel of g's element size. */
#define TDP_PACK_LAUNCH_(LAUNCH, dst, src, g, unpack)                                           \
  do {                                                                                       \
    if ((g).esz == 4) LAUNCH(tdpPackKernel4, (int) (g).nbox, (unsigned int *) (dst),          \
                              (const unsigned int *) (src), (g), (unpack));                  \
    else if ((g).esz == 8) LAUNCH(tdpPackKernel8, (int) (g).nbox, (unsigned long long *) (dst), \
                                   (const unsigned long long *) (src), (g), (unpack));         \
    else LAUNCH(tdpPackKernel16, (int) (g).nbox, (tdpPackE16_ *) (dst),                       \
                (const tdpPackE16_ *) (src), (g), (unpack));                                  \
  } while (0)

/* The same on the host, for the host side of the 3-D halo copies, a row
 * (the last axis) at a time. mode 0: field -> buffer, 1: buffer -> field,
 * 2: field -> field at the same sites (target memory is host memory). */
static void host_box(void *dstv, const void *srcv, const tdpBox *g, int mode) {
  char *dst = (char *) dstv;
  const char *src = (const char *) srcv;
  const size_t e = (size_t) g->esz;
  const long nrows = g->b[0] * g->b[1] * g->b[2], b3 = g->b[3];
  TDP_OMP_(parallel for schedule(static) if (g->nbox * g->ncomp > 65536))
  for (long r = 0; r < nrows; r++) {
    long x2 = r % g->b[2], x1 = (r / g->b[2]) % g->b[1], x0 = r / (g->b[2] * g->b[1]);
    long site0 =
        (((g->lo[0] + x0) * g->n[1] + g->lo[1] + x1) * g->n[2] + g->lo[2] + x2) * g->n[3] + g->lo[3];
    /* all components of a site together: the field is the side with the
     * long strides (in AoS and AoSoA a site's components share lines) */
    for (long x3 = 0; x3 < b3; x3++) {
      size_t k = (size_t) r * b3 + x3;
      for (int c = 0; c < g->ncomp; c++) {
        size_t fi = TDP_INDEX(g->nsites, g->ncomp, site0 + x3, c);
        size_t bi = (size_t) c * g->nbox + k;
        if (mode == 0) memcpy(dst + bi * e, src + fi * e, e);
        else if (mode == 1) memcpy(dst + fi * e, src + bi * e, e);
        else memcpy(dst + fi * e, src + fi * e, e);
      }
    }
  }
}

static void make_box(tdpBox *g, int ndim, const long extents[], const long lo[],
                     const long hi[], int ncomp, size_t esz) {
  g->esz = (int) esz;
  g->nsites = 1;
  g->nbox = 1;
  g->ncomp = ncomp;
  for (int d = 0; d < 4; d++) {
    int e = d - (4 - ndim); /* the caller's axis, or < 0: a leading axis of extent 1 */
    g->n[d] = e < 0 ? 1 : extents[e];
    g->lo[d] = e < 0 ? 0 : lo[e];
    g->b[d] = e < 0 ? 1 : hi[e] - lo[e];
    g->nsites *= g->n[d];
    g->nbox *= g->b[d];
  }
}

/* ---------------------------------------------------------------------- */

int tdpPackBox_(double *t_dst, const double *t_src, int ndim, const long extents[],
               const long lo[], const long hi[], int ncomp, int unpack, targetStream_t stream,
               const char *f, int l) {
  return tdpPackBoxT(t_dst, t_src, ndim, extents, TDP_SIZE_UNKNOWN_, lo, TDP_SIZE_UNKNOWN_, hi,
                     TDP_SIZE_UNKNOWN_, ncomp, TDP_TYPE_DOUBLE, sizeof(double), unpack, stream,
                     f, l);
}

/* The ndim entries of a box's host arrays (extents, lo, hi), each held to
 * what the caller's compiler knows of it; NULL is refused. */
static int check_box_arrays(int ndim, const long extents[], size_t ext_known, const long lo[],
                            size_t lo_known, const long hi[], size_t hi_known, tdpSite at) {
  const size_t nb = (size_t) ndim * sizeof(long);
  if (!extents || !lo || !hi) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  int rc = tdpCheckHost(extents, nb, ext_known, "the extents", at);
  if (rc == TARGET_SUCCESS) rc = tdpCheckHost(lo, nb, lo_known, "lo", at);
  if (rc == TARGET_SUCCESS) rc = tdpCheckHost(hi, nb, hi_known, "hi", at);
  return rc;
}

int tdpPackBoxT(void *t_dst, const void *t_src, int ndim, const long extents[], size_t ext_known,
                const long lo[], size_t lo_known, const long hi[], size_t hi_known, int ncomp,
                tdpType type, size_t esz, int unpack, targetStream_t stream, const char *f,
                int l) {
  tdpSite at = SITE(unpack ? "targetUnpackBox" : "targetPackBox");
  if (tdpCheckLive(at)) return targetLastError();
  if (tdpTypeSize(type) == 0 || esz != tdpTypeSize(type))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "element size %zu does not match element type %d (%zu bytes)", esz,
                   (int) type, tdpTypeSize(type));
  if (!t_dst || !t_src) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  if (ndim < 1 || ndim > 4)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "ndim %d must be 1 to 4", ndim);
  if (ncomp < 1) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "ncomp %d must be positive", ncomp);
  int rc = check_box_arrays(ndim, extents, ext_known, lo, lo_known, hi, hi_known, at);
  if (rc) return rc;
  long nsites = 1, nbox = 1;
  for (int d = 0; d < ndim; d++) {
    if (extents[d] < 1 || lo[d] < 0 || hi[d] <= lo[d] || hi[d] > extents[d])
      return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                     "axis %d: need 0 <= lo < hi <= extent, got lo %ld hi %ld extent %ld", d,
                     lo[d], hi[d], extents[d]);
    if (nsites > LONG_MAX / extents[d])
      return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "the extents overflow a long");
    nsites *= extents[d];
    nbox *= hi[d] - lo[d];
  }
  /* The kernel's site loop is an int (TDP_TLP); a box beyond it is no face. */
  if (nbox > INT_MAX)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "the box has %ld sites, more than %d", nbox,
                   INT_MAX);
  if ((size_t) ncomp > SIZE_MAX / 4 / 16 / TDP_NSITES_ALLOC(nsites))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nsites %ld x ncomp %d is absurd", nsites,
                   ncomp);
  size_t field_bytes = TDP_FIELD_SIZE(nsites, ncomp) * esz;
  size_t buf_bytes = (size_t) nbox * ncomp * esz;
  rc = tdpCheckTarget(unpack ? t_dst : t_src, field_bytes, "the field", at);
  if (rc == TARGET_SUCCESS) rc = tdpCheckTarget(unpack ? t_src : t_dst, buf_bytes, "the buffer", at);
  if (rc == TARGET_SUCCESS) rc = tdpCheckStream(stream, at);
  if (rc) return rc;
  tdpBox g;
  make_box(&g, ndim, extents, lo, hi, ncomp, esz);
  unsigned long nfail = tdpFailCount();
#define TDP_PACK_ON_STREAM_(kernel, N, ...) TDP_LAUNCH_STREAM(kernel, N, stream, __VA_ARGS__)
  TDP_PACK_LAUNCH_(TDP_PACK_ON_STREAM_, t_dst, t_src, g, unpack);
  return tdpFailCount() == nfail ? TARGET_SUCCESS : (int) targetLastError();
}

/* A face of the lattice: checked like a call (issue 25: main wrote lo[4]
 * and hi[4] for ndim 5 and gave boxes outside the lattice for a negative
 * halo, or one deeper than half the extent). No target memory involved,
 * so the layer need not be live. */
long tdpFaceBox(int ndim, const long extents[], size_t ext_known, int nhalo, int dim, int side,
                targetFaceRegion_t region, long lo[], size_t lo_known, long hi[],
                size_t hi_known, const char *f, int l) {
  tdpSite at = SITE("targetFaceBox");
  if (ndim < 1 || ndim > 4) {
    tdpFail(TARGET_ERROR_INVALID_VALUE, at, "ndim %d must be 1 to 4", ndim);
    return -1;
  }
  if (check_box_arrays(ndim, extents, ext_known, lo, lo_known, hi, hi_known, at)) return -1;
  if (dim < 0 || dim >= ndim || (side != 0 && side != 1) ||
      (region != TARGET_FACE_EDGE && region != TARGET_FACE_HALO)) {
    tdpFail(TARGET_ERROR_INVALID_VALUE, at,
            "dim %d, side %d, region %d: need 0 <= dim < ndim = %d, side 0 or 1, "
            "TARGET_FACE_EDGE or TARGET_FACE_HALO", dim, side, (int) region, ndim);
    return -1;
  }
  for (int d = 0; d < ndim; d++) {
    if (extents[d] < 1) {
      tdpFail(TARGET_ERROR_INVALID_VALUE, at, "extent %ld of axis %d", extents[d], d);
      return -1;
    }
  }
  if (nhalo < 1) {
    tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nhalo %d must be at least 1", nhalo);
    return -1;
  }
  if (2L * nhalo > extents[dim]) {
    tdpFail(TARGET_ERROR_INVALID_VALUE, at,
            "nhalo %d is deeper than half the extent %ld of axis %d: the halo and edge of both "
            "sides do not fit", nhalo, extents[dim], dim);
    return -1;
  }
  long n = 1;
  for (int d = 0; d < ndim; d++) {
    lo[d] = 0;
    hi[d] = extents[d];
    if (d == dim) {
      long first = region == TARGET_FACE_HALO ? 0 : nhalo; /* from the near end */
      lo[d] = side ? extents[d] - first - nhalo : first;
      hi[d] = lo[d] + nhalo;
    }
    n *= hi[d] - lo[d];
  }
  return n;
}

/* ---------------------------------------------------------------------- */
/* copyToTarget3DHalo / copyFromTarget3DEdge. The region is a shell of
 * thickness nhalo: of the whole lattice (halo) or of the lattice less its
 * halo (edge). It is cut into at most six disjoint boxes; each is packed
 * into one buffer (host side on the host, target side by the kernel), and
 * the buffer crosses in one copy. The buffers are kept for the next call. */

static char *t_scratch = NULL, *h_scratch = NULL;
static size_t scratch_bytes = 0;

void tdpPackFinalize(void) {
  tdpSite at = {"targetFinalize", __FILE__, __LINE__};
  if (t_scratch) tdpBackendFree(t_scratch, at);
  if (h_scratch) tdpBackendFreeHost(h_scratch, at);
  t_scratch = h_scratch = NULL;
  scratch_bytes = 0;
}

static int grow(size_t nbytes, tdpSite at) {
  if (nbytes <= scratch_bytes) return TARGET_SUCCESS;
  tdpPackFinalize();
  void *t = NULL, *h = NULL;
  int rc = tdpBackendMalloc(&t, nbytes, 0, 0, at);
  if (rc) return rc;
  rc = tdpBackendMallocHost(&h, nbytes, at);
  if (rc) {
    tdpBackendFree(t, at);
    return rc;
  }
  t_scratch = (char *) t;
  h_scratch = (char *) h;
  scratch_bytes = nbytes;
  return TARGET_SUCCESS;
}

/* Cut the shell of thickness t of the box [a, b) into boxes. */
static int shell_boxes(const long a[3], const long b[3], long t, long lo[6][3], long hi[6][3]) {
  long cl[3] = {a[0], a[1], a[2]}, ch[3] = {b[0], b[1], b[2]};
  int nb = 0;
  for (int d = 0; d < 3; d++) {
    if (ch[d] - cl[d] <= 2 * t) { /* no core left: the rest is shell */
      memcpy(lo[nb], cl, sizeof(cl));
      memcpy(hi[nb], ch, sizeof(ch));
      return nb + 1;
    }
    for (int side = 0; side < 2; side++) {
      memcpy(lo[nb], cl, sizeof(cl));
      memcpy(hi[nb], ch, sizeof(ch));
      if (side) lo[nb][d] = ch[d] - t;
      else hi[nb][d] = cl[d] + t;
      nb++;
    }
    cl[d] += t;
    ch[d] -= t;
  }
  return nb;
}

int tdpCopy3DBoxes(void *dst, const void *src, const long extents[3], int nhalo, int ncomp,
                   size_t esz, int to_target, tdpSite at) {
  long a[3], b[3], lo[6][3], hi[6][3];
  for (int d = 0; d < 3; d++) {
    a[d] = to_target ? 0 : nhalo;
    b[d] = to_target ? extents[d] : extents[d] - nhalo;
  }
  int nb = shell_boxes(a, b, nhalo, lo, hi);
  tdpBox g[6];
  size_t off[7] = {0};
  for (int i = 0; i < nb; i++) {
    make_box(&g[i], 3, extents, lo[i], hi[i], ncomp, esz);
    off[i + 1] = off[i] + (size_t) g[i].nbox * ncomp * esz; /* bytes */
  }
  if (tdpBackendDeviceId() < 0) { /* the target is the host: one pass, no buffer */
    for (int i = 0; i < nb; i++) host_box(dst, src, &g[i], 2);
    return TARGET_SUCCESS;
  }
  int rc = grow(off[nb], at);
  if (rc) return rc;
  unsigned long nfail = tdpFailCount();
  if (to_target) {
    for (int i = 0; i < nb; i++) host_box(h_scratch + off[i], src, &g[i], 0);
    rc = tdpBackendCopy(t_scratch, h_scratch, off[nb], 1, at);
    for (int i = 0; i < nb && rc == TARGET_SUCCESS; i++) {
      TDP_PACK_LAUNCH_(TDP_LAUNCH, dst, t_scratch + off[i], g[i], 1);
      if (tdpFailCount() != nfail) rc = (int) targetLastError();
    }
  } else {
    for (int i = 0; i < nb && rc == TARGET_SUCCESS; i++) {
      TDP_PACK_LAUNCH_(TDP_LAUNCH, t_scratch + off[i], src, g[i], 0);
      if (tdpFailCount() != nfail) rc = (int) targetLastError();
    }
    if (rc == TARGET_SUCCESS) rc = tdpBackendCopy(h_scratch, t_scratch, off[nb], 0, at);
    for (int i = 0; i < nb && rc == TARGET_SUCCESS; i++) host_box(dst, h_scratch + off[i], &g[i], 1);
  }
  return rc;
}
