/*
 * targetDP_box.c -- the checked constructors of targetBox (targetDP_box.h):
 * a box that does not fit its lattice is an error here, on the host, not
 * an out-of-bounds access in a kernel. Backend-independent.
 */
#include <stdio.h>
#include <stdlib.h>

/* Built by the host C compiler in every backend's library: the backend
 * object carries the configuration mark (targetDP.h), not this one. */
#ifndef TDP_NO_CONFIG_MARK
#define TDP_NO_CONFIG_MARK
#endif
#include "targetDP_internal.h"

#define SITE(name) ((tdpSite){name, f, l})

/* A box of ndim (2 to TDP_BOX_MAXDIM) dimensions that fits its lattice:
 * extents >= 1 (at most 2^40 sites), 0 <= lo <= hi <= extent. The one
 * rule for the constructors and for a launch over a box made by hand. */
static int check_box(int ndim, const long *extent, const long *lo, const long *hi,
                     const char *what, tdpSite at) {
  if (ndim < 2 || ndim > TDP_BOX_MAXDIM)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "%sndim %d: boxes have 2 to %d dimensions",
                   what, ndim, TDP_BOX_MAXDIM);
  long nsites = 1;
  for (int d = 0; d < ndim; d++) {
    if (extent[d] < 1 || extent[d] > (1L << 40) / nsites)
      return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                     "%sextent %ld of dimension %d (lattice of at most 2^40 sites)", what,
                     extent[d], d);
    nsites *= extent[d];
    if (lo[d] < 0 || hi[d] > extent[d] || lo[d] > hi[d])
      return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                     "%sdimension %d: box [%ld, %ld) does not fit the extent %ld", what, d,
                     lo[d], hi[d], extent[d]);
  }
  return TARGET_SUCCESS;
}

int tdpBoxMake(targetBox *box, int ndim, const long *extent, size_t extent_known,
               const long *lo, size_t lo_known, const long *hi, size_t hi_known, const char *f,
               int l) {
  tdpSite at = SITE("targetBoxMake");
  if (!box || !extent || !lo || !hi)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL argument");
  if (ndim < 2 || ndim > TDP_BOX_MAXDIM)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "ndim %d: boxes have 2 to %d dimensions",
                   ndim, TDP_BOX_MAXDIM);
  const size_t nb = (size_t) ndim * sizeof(long);
  int rc = tdpCheckHost(extent, nb, extent_known, "the extents", at);
  if (rc == TARGET_SUCCESS) rc = tdpCheckHost(lo, nb, lo_known, "lo", at);
  if (rc == TARGET_SUCCESS) rc = tdpCheckHost(hi, nb, hi_known, "hi", at);
  if (rc == TARGET_SUCCESS) rc = check_box(ndim, extent, lo, hi, "", at);
  if (rc) return rc;
  box->ndim = ndim;
  for (int d = 0; d < TDP_BOX_MAXDIM; d++) {
    box->extent[d] = d < ndim ? extent[d] : 1;
    box->lo[d] = d < ndim ? lo[d] : 0;
    box->hi[d] = d < ndim ? hi[d] : 1;
  }
  return TARGET_SUCCESS;
}

int tdpBoxInterior(targetBox *box, int ndim, const long *extent, size_t extent_known, long nhalo,
                   const char *f, int l) {
  tdpSite at = SITE(nhalo ? "targetBoxInterior" : "targetBoxAll");
  if (!box || !extent) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL argument");
  if (ndim < 2 || ndim > TDP_BOX_MAXDIM)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "ndim %d: boxes have 2 to %d dimensions",
                   ndim, TDP_BOX_MAXDIM);
  int rc = tdpCheckHost(extent, (size_t) ndim * sizeof(long), extent_known, "the extents", at);
  if (rc) return rc;
  long lo[TDP_BOX_MAXDIM], hi[TDP_BOX_MAXDIM];
  for (int d = 0; d < ndim; d++) {
    if (nhalo < 0 || extent[d] < 2 * nhalo)
      return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                     "nhalo %ld does not fit extent %ld of dimension %d", nhalo, extent[d], d);
    lo[d] = nhalo;
    hi[d] = extent[d] - nhalo;
  }
  return tdpBoxMake(box, ndim, extent, TDP_SIZE_UNKNOWN_, lo, sizeof(lo), hi, sizeof(hi), f, l);
}

int tdpLaunchBox_(const char *form, const char *kernel, const targetBox *box, const char *f,
                  int l) {
  tdpSite at = SITE(form);
  int rc = tdpLaunchBegin_(form, kernel, 0, f, l); /* live */
  if (rc) return rc;
  char what[160];
  snprintf(what, sizeof(what), "kernel %s not launched: ", kernel);
  if (!box) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "%sNULL box", what);
  return check_box(box->ndim, box->extent, box->lo, box->hi, what, at);
}

/* A kernel's TDP_TLP_nD met a box of another dimension: a bug in the
 * program, reported like an out-of-bounds index. */
void tdpBoxDimFail_(int ndim, int want, const char *file, int line) {
  fprintf(stderr, "targetDP: a %d-D box given to TDP_TLP_%dD at %s:%d\n", ndim, want, file, line);
  exit(1);
}

/* A shell loop given a negative depth (TDP_LAUNCH_SHELL refuses one before
 * the kernel; a kernel launched another way meets it here). */
void tdpShellDepthFail_(long nh, const char *file, int line) {
  fprintf(stderr, "targetDP: shell depth nh = %ld (must be >= 0) given to TDP_TLP_nD_SHELL at %s:%d\n",
          nh, file, line);
  exit(1);
}

long tdpBoxMarchForce_ = 0;

int tdpLaunchShell_(const char *kernel, const targetBox *box, long nh, const char *f, int l) {
  tdpSite at = SITE("TDP_LAUNCH_SHELL");
  int rc = tdpLaunchBox_("TDP_LAUNCH_SHELL", kernel, box, f, l);
  if (rc) return rc;
  if (box->ndim != 2 && box->ndim != 3)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "kernel %s not launched: a shell is of a 2-D or 3-D box, not %d-D", kernel,
                   box->ndim);
  if (nh < 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "kernel %s not launched: shell depth nh = %ld (must be >= 0)", kernel, nh);
  return TARGET_SUCCESS;
}
