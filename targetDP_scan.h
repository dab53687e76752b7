/*
 * targetDP_scan.h -- scans and stream compaction of target arrays: the
 * host API of targetDP_scan_C.c and targetDP_scan_CUDA.cu. Included by
 * targetDP.h inside its extern "C" block, after the core host API whose
 * tdpScanType (tdpType) and TDP_AT it uses; not a header to include on its
 * own. Declarations and macros only.
 */
#ifndef TARGETDP_H
#error "targetDP_scan.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_SCAN_H
#define TARGETDP_SCAN_H

/* Scans and stream compaction of target arrays (targetDP_scan*.c*).
 * Inclusive: out[i] = in[0] + ... + in[i]; exclusive: out[0] = 0,
 * out[i] = in[0] + ... + in[i-1]. n may be 0; out may be in (in place).
 * Integer sums wrap as the element type does: scan int data that can
 * exceed INT_MAX as long. */

typedef enum { TDP_SCAN_INCLUSIVE = 0, TDP_SCAN_EXCLUSIVE = 1 } tdpScanMode;
int tdpScan(void *t_out, const void *t_in, size_t n, tdpScanType type, tdpScanMode mode,
            const char *f, int l);
#define targetScanInclusiveInt(t_out, t_in, n) \
  tdpScan((int *) (t_out), (const int *) (t_in), (n), TDP_TYPE_INT, TDP_SCAN_INCLUSIVE, TDP_AT)
#define targetScanExclusiveInt(t_out, t_in, n) \
  tdpScan((int *) (t_out), (const int *) (t_in), (n), TDP_TYPE_INT, TDP_SCAN_EXCLUSIVE, TDP_AT)
#define targetScanInclusiveLong(t_out, t_in, n)                                      \
  tdpScan((long *) (t_out), (const long *) (t_in), (n), TDP_TYPE_LONG, TDP_SCAN_INCLUSIVE, \
          TDP_AT)
#define targetScanExclusiveLong(t_out, t_in, n)                                      \
  tdpScan((long *) (t_out), (const long *) (t_in), (n), TDP_TYPE_LONG, TDP_SCAN_EXCLUSIVE, \
          TDP_AT)
#define targetScanInclusiveDouble(t_out, t_in, n)                                        \
  tdpScan((double *) (t_out), (const double *) (t_in), (n), TDP_TYPE_DOUBLE,               \
          TDP_SCAN_INCLUSIVE, TDP_AT)
#define targetScanExclusiveDouble(t_out, t_in, n)                                        \
  tdpScan((double *) (t_out), (const double *) (t_in), (n), TDP_TYPE_DOUBLE,               \
          TDP_SCAN_EXCLUSIVE, TDP_AT)

/* The indices i < n with t_mask[i] != 0, in increasing order, into the
 * target array t_index (room for n); their number into the host *count. */
int tdpCompact(long *t_index, size_t *count, const char *t_mask, size_t n, const char *f, int l);
#define targetCompactIndices(t_index, count, t_mask, n) \
  tdpCompact((t_index), (count), (t_mask), (n), TDP_AT)

#endif /* TARGETDP_SCAN_H */
