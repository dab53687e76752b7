/* Includes the file named by MILC_EACH_REAL_FILE once per storage type of
 * the fields: with MILC_REAL double and R(name) name, then with MILC_REAL
 * float and R(name) name##_f. The one home of the two precisions: the
 * headers (kernels_api.h, cg_api.h) and the sources (kernels_impl.h,
 * cg_impl.h) are written once, for MILC_REAL. No include guard. */
#ifndef MILC_EACH_REAL_FILE
#error "each_real.h: define MILC_EACH_REAL_FILE (the file to include per precision) first"
#endif
#define MILC_REAL double
#define R(name) name
#include MILC_EACH_REAL_FILE
#undef MILC_REAL
#undef R
#define MILC_REAL float
#define R(name) name##_f
#include MILC_EACH_REAL_FILE
#undef MILC_REAL
#undef R
#undef MILC_EACH_REAL_FILE
