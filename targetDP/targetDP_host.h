/*
 * targetDP_host.h -- the host functions behind the front door's host API
 * (targetDP.h, "Host API", which lists each public name with the call it
 * stands for): the element types (tdpType, the complex types), the error
 * calls (targetSetErrorAbort, targetLastError, ...), and the generic forms
 * the public macros call with the caller's file and line (tdpInit,
 * tdpMalloc, tdpCopy, ...; C99 code may call them, the macros are the
 * documented names). Implemented by targetDP_common.c and the backends.
 * Included by targetDP.h inside its extern "C" block, after targetError_t
 * and TDP_AT_; not a header to include on its own. Declarations only.
 */
#ifndef TARGETDP_H
#error "targetDP_host.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_HOST_H
#define TARGETDP_HOST_H

/* Element types of the typed helpers (docs/api.md, "Element types"). Each
 * helper has one implementation over the element size (moves: fills,
 * copies, packs, conversions) or one per arithmetic type generated from one
 * definition (reductions). The complex types are C99 double _Complex and
 * float _Complex in C; in C++ (and CUDA) a struct of the same layout, two
 * doubles or floats (real, imaginary), as cuDoubleComplex / cuFloatComplex. */
typedef enum {
  TDP_TYPE_INT = 0,
  TDP_TYPE_LONG = 1,
  TDP_TYPE_DOUBLE = 2,
  TDP_TYPE_FLOAT = 3,
  TDP_TYPE_DOUBLE_COMPLEX = 4,
  TDP_TYPE_FLOAT_COMPLEX = 5
} tdpType;
typedef tdpType tdpScanType_; /* the scans take int, long and double */
#ifdef __cplusplus
typedef struct { double re, im; } tdpDoubleComplex;
typedef struct { float re, im; } tdpFloatComplex;
#else
typedef double _Complex tdpDoubleComplex;
typedef float _Complex tdpFloatComplex;
#endif
size_t tdpTypeSize(tdpType type); /* bytes of one element; 0 for an unknown type */

int tdpInit(const char *caller_config, const char *file, int line);
int tdpFinalize(const char *file, int line);

void targetSetErrorAbort(int abort_on_error);
targetError_t targetLastError(void);
const char *targetLastErrorString(void);
const char *targetConfigString(void); /* library build + device, for logs */

int tdpMalloc(void **t_ptr, size_t nbytes, int zero, int unified, const char *f, int l);
int tdpFree(void *t_ptr, const char *f, int l);
int tdpCopy(void *dst, const void *src, size_t nbytes, int to_target, size_t host_known,
            const char *f, int l);
int tdpCopyConst(void *t_symbol, size_t symbol_bytes, const void *src, size_t src_known,
                 size_t nbytes, const char *f, int l);

/* The double calls as functions (the 2014 layer, targetDP_compat.c, calls
 * them; they cannot know the host side's size). */
int tdpSetConstant_(double *t_array, double value, size_t n, const char *f, int l);
int tdpCopySites_(double *dst, const double *src, long nsites, long ncomp,
                 const int *sites, long nlist, int to_target, const char *f, int l);
int tdpCopyMasked_(double *dst, const double *src, long nsites, long ncomp,
                  const char *mask, int to_target, const char *f, int l);
int tdpCopy3D_(double *dst, const double *src, const int extents[3], long nhalo,
              long ncomp, int to_target, const char *f, int l);
int tdpReduceDouble(double *result, const double *t_a, size_t n, tdpReduceOp op, const char *f,
                    int l);
int tdpReduceInt(long long *result, const int *t_a, size_t n, tdpReduceOp op, const char *f,
                 int l);
int tdpConvert_(double *t_dst, const double *t_src, long nsites, long ncomp, int aos2soa,
               const char *f, int l);

#endif /* TARGETDP_HOST_H */
