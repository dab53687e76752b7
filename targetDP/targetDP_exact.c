/*
 * targetDP_exact.c -- the host calls of the exact sums (targetDP_exact.h),
 * whatever the backend: argument checks, and the library's float and
 * double sums (targetDoubleSum, targetFloatSum and their complex forms,
 * through tdpReduceT) as the correctly rounded exact sum.
 */
#include <stdint.h>
#include <stdlib.h>

/* Built by the host C compiler in every backend's library: the backend
 * object carries the configuration mark (targetDP.h), not this one. */
#ifndef TDP_NO_CONFIG_MARK
#define TDP_NO_CONFIG_MARK
#endif
#include "targetDP_internal.h"

static int check_sums(const void *t_sums, size_t n, const char *what, tdpSite at) {
  int rc = tdpCheckLive(at);
  if (rc) return rc;
  if (!t_sums) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  if (n == 0 || n > SIZE_MAX / sizeof(tdpExactSum))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "%zu sums: at least one, and not absurdly many", n);
  return tdpCheckTarget(t_sums, n * sizeof(tdpExactSum), what, at);
}

/* A sum whose digits may have overflowed (more contributions than the
 * format takes between carries) is refused, not rounded. */
static int check_ops(const tdpExactSum *s, size_t i, tdpSite at) {
  const int64_t ops = s->w[TDP_EXACT_OPS_];
  if (ops >= 0 && ops < 2 * TDP_EXACT_OPS_MAX_) return TARGET_SUCCESS;
  return tdpFail(TARGET_ERROR_INVALID_VALUE, at,
                 "exact sum %zu: %lld contributions since it was zeroed (at most 2^31 between "
                 "read-outs: its 64-bit digits may have overflowed); zero it and read it more often, "
                 "or is it not a tdpExactSum?", i, (long long) ops);
}

int tdpExactSumT_(tdpExactSum *res, size_t res_known, const void *t_a, size_t n, tdpType type,
                  size_t esz, const char *f, int l) {
  tdpSite at = {type == TDP_TYPE_FLOAT ? "targetFloatSumExact" : "targetDoubleSumExact", f, l};
  int rc = tdpCheckLive(at);
  if (rc) return rc;
  if (type != TDP_TYPE_DOUBLE && type != TDP_TYPE_FLOAT)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "element type %d: exact sums are of float or double",
                   (int) type);
  if (esz != tdpTypeSize(type))
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "element size %zu is not that of the type (%zu)",
                   esz, tdpTypeSize(type));
  if (!res || (!t_a && n)) return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  if (n > SIZE_MAX / 64)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "size %zu is absurd (a negative value?)", n);
  rc = tdpCheckHost(res, sizeof *res, res_known, "the result", at);
  if (rc) return rc;
  tdpExactSumZero(res);
  if (n == 0) return TARGET_SUCCESS; /* a rank's empty part of a global sum */
  rc = tdpCheckTarget(t_a, n * esz, "the target array", at);
  return rc ? rc : TDP_PROFILED_(at.call, (double) n * esz, tdpBackendExactSum(res, t_a, n, 1, type, at));
}

/* tdpReduceT's sums of float and double (real or complex; arguments
 * checked there): the exact sum of each component, correctly rounded to
 * the element type. */
int tdpExactReduce(void *res, const void *t_a, size_t n, tdpType type, tdpSite at) {
  const int ncomp = type == TDP_TYPE_DOUBLE_COMPLEX || type == TDP_TYPE_FLOAT_COMPLEX ? 2 : 1;
  const tdpType real = type == TDP_TYPE_FLOAT || type == TDP_TYPE_FLOAT_COMPLEX ? TDP_TYPE_FLOAT
                                                                                : TDP_TYPE_DOUBLE;
  tdpExactSum *s = (tdpExactSum *) calloc(2, sizeof(tdpExactSum));
  if (!s) return tdpFail(TARGET_ERROR_MEMORY, at, "no memory for the exact sums");
  int rc = tdpBackendExactSum(s, t_a, n, ncomp, real, at);
  for (int c = 0; c < ncomp && rc == TARGET_SUCCESS; c++) {
    if (real == TDP_TYPE_FLOAT) ((float *) res)[c] = tdpExactSumValueFloat(&s[c]);
    else ((double *) res)[c] = tdpExactSumValue(&s[c]);
  }
  free(s);
  return rc;
}

int tdpExactZero_(tdpExactSum *t_sums, size_t n, const char *f, int l) {
  tdpSite at = {"targetExactZero", f, l};
  static const int64_t zero = 0;
  int rc = check_sums(t_sums, n, "the target sums", at);
  return rc ? rc
            : TDP_PROFILED_(at.call, (double) n * sizeof(tdpExactSum),
                            tdpBackendSetConstant(t_sums, &zero, sizeof zero, n * TDP_EXACT_WORDS, at));
}

int tdpExactValue_(double *res, size_t res_known, const tdpExactSum *t_sums, size_t n,
                   const char *f, int l) {
  tdpSite at = {"targetExactValue", f, l};
  int rc = check_sums(t_sums, n, "the target sums", at);
  if (rc == TARGET_SUCCESS && !res) rc = tdpFail(TARGET_ERROR_INVALID_VALUE, at, "NULL pointer argument");
  if (rc == TARGET_SUCCESS) rc = tdpCheckHost(res, n * sizeof(double), res_known, "the results", at);
  if (rc) return rc;
  tdpExactSum *h = (tdpExactSum *) malloc(n * sizeof(tdpExactSum));
  if (!h) return tdpFail(TARGET_ERROR_MEMORY, at, "no memory for %zu sums", n);
  rc = tdpBackendCopy(h, t_sums, n * sizeof(tdpExactSum), 0, at);
  for (size_t i = 0; i < n && rc == TARGET_SUCCESS; i++) {
    rc = check_ops(&h[i], i, at);
    if (rc == TARGET_SUCCESS) res[i] = tdpExactSumValue(&h[i]);
  }
  free(h);
  return rc;
}

/* For targetDP_exact_mpi.c: the same refusal on host sums. */
int tdpExactCheckOps(const tdpExactSum *s, size_t n, tdpSite at) {
  for (size_t i = 0; i < n; i++) {
    int rc = check_ops(&s[i], i, at);
    if (rc) return rc;
  }
  return TARGET_SUCCESS;
}
