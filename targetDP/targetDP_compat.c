/*
 * targetDP_compat.c -- the library half of targetDP_compat.h (the 2014 API):
 * the halo depth that the 2014 targetInit(extents, nfields, nhalo) set for
 * later 3D copies, and wrappers that need a body. Everything goes through
 * today's calls (tdpCopy, tdpCopy3D_, tdpConvert_, tdpMalloc) so that the
 * checks and messages are the same.
 */
#include <limits.h>

#include "targetDP_internal.h"

#define SITE(name) ((tdpSite){name, f, l})

/* The session of the last targetInit(extents, nfields, nhalo) (0: none):
 * its extents and halo end with it, at targetFinalize (issue 25: a later
 * targetInit() kept them, and the 4-argument copies used the old halo). */
static unsigned long init3d_session = 0;
static int init_extents[3];
static int init_nhalo;

int tdpInit3D_(const int extents[3], size_t extents_known, size_t nfieldsmax, int nhalo,
               const char *caller_config, const char *f, int l) {
  tdpSite at = SITE("targetInit");
  if (!extents) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL extents");
  if (tdpCheckHost(extents, 3 * sizeof(int), extents_known, "the extents", at))
    return targetLastError();
  if (extents[0] < 1 || extents[1] < 1 || extents[2] < 1 || nhalo < 0 || nfieldsmax < 1)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "need extents >= 1, nfieldsmax >= 1 and nhalo >= 0, not %d x %d x %d, "
                   "%zu, %d", extents[0], extents[1], extents[2], nfieldsmax, nhalo);
  int rc = tdpInit(caller_config, f, l);
  if (rc) return rc;
  memcpy(init_extents, extents, sizeof(init_extents));
  init_nhalo = nhalo;
  init3d_session = tdpSession();
  return TARGET_SUCCESS;
}

int tdpFinalize3D_(const char *f, int l) {
  init3d_session = 0;
  return tdpFinalize(f, l);
}

int tdpCopy3DInit_(double *dst, const double *src, const int extents[3], size_t nfields,
                   int to_target, size_t host_known, size_t extents_known, const char *f,
                   int l) {
  tdpSite at = SITE(to_target ? "copyToTarget3DHalo" : "copyFromTarget3DEdge");
  if (tdpCheckLive(at)) return targetLastError();
  if (init3d_session == 0 || init3d_session != tdpSession())
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "the 4-argument form takes nhalo from targetInit(extents, nfields, nhalo), "
                   "which was not called%s; call it, or pass nhalo: (dst, src, extents, nhalo, "
                   "ncomp)", init3d_session ? " since the last targetFinalize" : "");
  if (!extents) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL extents");
  int rc = tdpCheckHost(extents, sizeof(init_extents), extents_known, "the extents", at);
  if (rc) return rc;
  if (memcmp(extents, init_extents, sizeof(init_extents)) != 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                   "extents %d x %d x %d differ from targetInit's %d x %d x %d", extents[0],
                   extents[1], extents[2], init_extents[0], init_extents[1], init_extents[2]);
  if (nfields > 1u << 30)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nfields %zu is absurd", nfields);
  if (init_nhalo == 0) return TARGET_SUCCESS; /* no halo: nothing to copy */
  return tdpCopy3DT(dst, src, extents, init_nhalo, (long) nfields, TDP_TYPE_DOUBLE, sizeof(double),
                    to_target, host_known, extents_known, f, l);
}

/* 2014 converted in place (through the host). Here: convert into a
 * temporary target array with today's call, then copy it back on the target. */
int tdpConvertInPlace_(double *t_array, size_t nsites, size_t nfields, int aos2soa,
                       const char *f, int l) {
  tdpSite at = SITE(aos2soa ? "targetAoS2SoA" : "targetSoA2AoS");
  if (nsites > (size_t) INT_MAX || nfields > (size_t) INT_MAX ||
      nsites * nfields > ((size_t) -1) / sizeof(double))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "nsites %zu x nfields %zu is too large",
                   nsites, nfields);
  size_t nbytes = nsites * nfields * sizeof(double);
  if (nbytes == 0) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "zero sites or fields");
  double *t_tmp = NULL;
  /* today's conversion checks for a field of TDP_FIELD_SIZE elements */
  int rc = tdpMalloc((void **) &t_tmp, TDP_FIELD_SIZE(nsites, nfields) * sizeof(double), 0, 0,
                     f, l);
  if (rc == TARGET_SUCCESS) rc = tdpConvert_(t_tmp, t_array, (long) nsites, (long) nfields, aos2soa, f, l);
  if (rc == TARGET_SUCCESS) rc = tdpCopyTargetToTarget(t_array, t_tmp, nbytes, f, l);
  if (t_tmp) tdpFree(t_tmp, f, l);
  return rc;
}

int tdpCopyDeep_(void *t_obj, void *host_obj, size_t host_obj_known, void *host_member, int n,
                 int to_target, const char *f, int l) {
  tdpSite at = SITE(to_target ? "copyDeepDoubleArrayToTarget" : "copyDeepDoubleArrayFromTarget");
  if (tdpCheckLive(at)) return targetLastError();
  if (!t_obj || !host_obj || !host_member || n < 1)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer or n = %d < 1", n);
  ptrdiff_t offset = (char *) host_member - (char *) host_obj;
  if (offset < 0)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "the member lies before the object");
  /* the member's pointer lies inside the host object */
  int rc = tdpCheckHost(host_obj, (size_t) offset + sizeof(double *), host_obj_known,
                        "the host object", at);
  if (rc) return rc;
  /* The target array's address is stored in the target copy of the struct. */
  double *t_array = NULL;
  rc = tdpCopy(&t_array, (char *) t_obj + offset, sizeof(t_array), 0, sizeof(t_array), f,
               l);
  if (rc) return rc;
  double *h_array = *(double **) host_member;
  if (!h_array || !t_array)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "the %s array pointer is NULL",
                   h_array ? "target" : "host");
  return tdpCopy(to_target ? (void *) t_array : (void *) h_array,
                 to_target ? (const void *) h_array : (const void *) t_array,
                 (size_t) n * sizeof(double), to_target, TDP_SIZE_UNKNOWN_, f, l);
}
