/*
 * targetDP_reduce.h -- the clauses of the in-kernel reductions
 * (TDP_TLP_REDUCE, TDP_TLP_SUM/MIN/MAX) and tdpReduceOp, the operation of
 * a reduction (the library's targetDoubleSum etc. and the block reductions
 * targetBlockAdd/Min/Max). TDP_TLP_REDUCE takes one clause per variable,
 * TDP_RSUM(v), TDP_RMIN(v) or TDP_RMAX(v), at most 8; a clause is the
 * triple (OpenMP operator, tdpReduceOp, v), from which each backend builds
 * what it needs: the OpenMP reduction clause, and in the checked C build
 * the variable's operation, name, size and address (for the checks).
 * TDP_EACH_(m, a, b) is m(a) m(b). A ninth clause names a macro
 * TDP_EACH_<ninth>_ that does not exist: a compile error, not a dropped
 * variable. Min and max are the layer's own OpenMP reductions tdp_min_ and
 * tdp_max_ (declared with the C backend's loops), which keep a NaN: the
 * built-in min and max combine the threads' and lanes' partials in an
 * unspecified way for NaN, and gcc's dropped it (issue 25 item 3).
 * Included by targetDP.h (never on its own) before the backend's header.
 */
#ifndef TARGETDP_H
#error "targetDP_reduce.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_REDUCE_H
#define TARGETDP_REDUCE_H

typedef enum { TDP_SUM = 0, TDP_MIN = 1, TDP_MAX = 2 } tdpReduceOp;

#define TDP_RSUM(v) (+, TDP_SUM, v)
#define TDP_RMIN(v) (tdp_min_, TDP_MIN, v)
#define TDP_RMAX(v) (tdp_max_, TDP_MAX, v)
/* TDP_TLP_SUM(base, N, a, b) is TDP_TLP_REDUCE(base, N, TDP_RSUM(a), TDP_RSUM(b)). */
#define TDP_RSUM_EACH_(v) , TDP_RSUM(v)
#define TDP_RMIN_EACH_(v) , TDP_RMIN(v)
#define TDP_RMAX_EACH_(v) , TDP_RMAX(v)
#define TDP_TLP_REDUCE_ALL_(baseIndex, N, each, ...) \
  TDP_TLP_REDUCE_LIST_(baseIndex, N TDP_EACH_(each, __VA_ARGS__))
#define TDP_TLP_REDUCE_LIST_(...) TDP_TLP_REDUCE(__VA_ARGS__)
#define TDP_TLP_SUM(baseIndex, N, ...) TDP_TLP_REDUCE_ALL_(baseIndex, N, TDP_RSUM_EACH_, __VA_ARGS__)
#define TDP_TLP_MIN(baseIndex, N, ...) TDP_TLP_REDUCE_ALL_(baseIndex, N, TDP_RMIN_EACH_, __VA_ARGS__)
#define TDP_TLP_MAX(baseIndex, N, ...) TDP_TLP_REDUCE_ALL_(baseIndex, N, TDP_RMAX_EACH_, __VA_ARGS__)
/* The lane loop inside a reduction. Its lane count has its own name, so
 * TDP_ILP (which needs TDP_TLP's) inside TDP_TLP_REDUCE does not compile. */
#define TDP_ILP_SUM(vecIndex, ...) TDP_ILP_REDUCE(vecIndex)

#endif /* TARGETDP_REDUCE_H */
