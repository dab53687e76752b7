/*
 * targetDP_scan.h -- scans and stream compaction of target arrays: the
 * host API of targetDP_scan_C.c and targetDP_scan_CUDA.cu. Included by
 * targetDP.h inside its extern "C" block, after the core host API whose
 * tdpScanType_ (tdpType) and TDP_AT_ it uses; not a header to include on its
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
int tdpScan(void *t_out, const void *t_in, size_t n, tdpScanType_ type, tdpScanMode mode,
            const char *f, int l);
/* One typed wrapper per element type, generated: its pointer parameters
 * (and TDP_TYPED_ in C) refuse an array of another type at compile time.
 * (main cast the arguments, so targetScanInclusiveInt on a double array
 * compiled and scanned the doubles' bits as ints.) */
#define TDP_TYPED_SCAN_(Name, T, TYPE)                                                     \
  static inline int tdpScan##Name##_(T *t_out, const T *t_in, size_t n, tdpScanMode mode,  \
                                     const char *f, int l) {                               \
    return tdpScan(t_out, t_in, n, TYPE, mode, f, l);                                      \
  }
TDP_TYPED_SCAN_(Int, int, TDP_TYPE_INT)
TDP_TYPED_SCAN_(Long, long, TDP_TYPE_LONG)
TDP_TYPED_SCAN_(Double, double, TDP_TYPE_DOUBLE)
#define targetScanInclusiveInt(t_out, t_in, n) \
  tdpScanInt_(TDP_TYPED_(int, t_out), TDP_TYPED_(int, t_in), (n), TDP_SCAN_INCLUSIVE, TDP_AT_)
#define targetScanExclusiveInt(t_out, t_in, n) \
  tdpScanInt_(TDP_TYPED_(int, t_out), TDP_TYPED_(int, t_in), (n), TDP_SCAN_EXCLUSIVE, TDP_AT_)
#define targetScanInclusiveLong(t_out, t_in, n) \
  tdpScanLong_(TDP_TYPED_(long, t_out), TDP_TYPED_(long, t_in), (n), TDP_SCAN_INCLUSIVE, TDP_AT_)
#define targetScanExclusiveLong(t_out, t_in, n) \
  tdpScanLong_(TDP_TYPED_(long, t_out), TDP_TYPED_(long, t_in), (n), TDP_SCAN_EXCLUSIVE, TDP_AT_)
#define targetScanInclusiveDouble(t_out, t_in, n)                                       \
  tdpScanDouble_(TDP_TYPED_(double, t_out), TDP_TYPED_(double, t_in), (n), TDP_SCAN_INCLUSIVE, \
                 TDP_AT_)
#define targetScanExclusiveDouble(t_out, t_in, n)                                       \
  tdpScanDouble_(TDP_TYPED_(double, t_out), TDP_TYPED_(double, t_in), (n), TDP_SCAN_EXCLUSIVE, \
                 TDP_AT_)

/* The indices i < n with t_mask[i] != 0, in increasing order, into the
 * target array t_index (room for n); their number into the host *count. */
int tdpCompact(long *t_index, size_t *count, const char *t_mask, size_t n, const char *f, int l);
#define targetCompactIndices(t_index, count, t_mask, n) \
  tdpCompact(TDP_TYPED_(long, t_index), TDP_TYPED_(size_t, count), TDP_MASK_(t_mask), (n), TDP_AT_)

#endif /* TARGETDP_SCAN_H */
