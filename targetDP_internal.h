/*
 * targetDP_internal.h -- the interface between targetDP_common.c (argument
 * checks, errors, bookkeeping: everything that does not depend on the
 * hardware) and the backends targetDP_C.c and targetDP_CUDA.cu (everything
 * that does). Not for applications.
 */
#ifndef TARGETDP_INTERNAL_H
#define TARGETDP_INTERNAL_H

#include "targetDP.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where an API call came from, for error messages. */
typedef struct {
  const char *call;
  const char *file;
  int line;
} tdpSite;

/* Record an error; print it and exit(1), or return code when the caller
 * asked for error codes (targetSetErrorAbort(0)). */
int tdpFail(targetError_t code, tdpSite at, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Implemented by each backend; arguments are already checked. */
int tdpBackendInit(tdpSite at);
void tdpBackendFinalize(void);
const char *tdpBackendDevice(void);
const char *tdpBackendConfig(void); /* TARGETDP_CONFIG as the backend was compiled */
int tdpBackendMalloc(void **t_ptr, size_t nbytes, int zero, int unified, tdpSite at);
int tdpBackendFree(void *t_ptr, tdpSite at);
int tdpBackendCopy(void *dst, const void *src, size_t nbytes, int to_target, tdpSite at);
int tdpBackendCopyConst(void *t_symbol, const void *src, size_t nbytes, tdpSite at);
int tdpBackendSetConstant(double *t_a, double value, size_t n, tdpSite at);
int tdpBackendCopySites(double *dst, const double *src, long nsites, long ncomp,
                        const long *sites, long nlist, int to_target, tdpSite at);
int tdpBackendReduceDouble(double *res, const double *t_a, size_t n, tdpReduceOp op, tdpSite at);
int tdpBackendReduceInt(long long *res, const int *t_a, size_t n, tdpReduceOp op, tdpSite at);
int tdpBackendConvert(double *t_dst, const double *t_src, long nsites, long ncomp,
                      int aos2soa, tdpSite at);
int tdpBackendSynchronize(tdpSite at);
int tdpBackendLaunchCheck(const char *kernel, tdpSite at); /* right after a launch */

/* Constants and target-to-target copies (arguments checked). */
int tdpBackendCopyConstFrom(void *dst, const void *t_symbol, size_t nbytes, tdpSite at);
int tdpBackendCopyConstFromArray(void *t_symbol, const void *t_src, size_t nbytes, tdpSite at);
int tdpBackendConstAddress(void **t_ptr, const void *t_symbol, tdpSite at);
int tdpBackendCopyTargetToTarget(void *t_dst, const void *t_src, size_t nbytes, tdpSite at);

/* Scans and compaction (targetDP_scan_C.c, targetDP_scan_CUDA.cu); n > 0.
 * tdpBackendScanFinalize frees their scratch (called by targetFinalize). */
int tdpBackendScan(void *t_out, const void *t_in, size_t n, tdpScanType type, tdpScanMode mode,
                   tdpSite at);
int tdpBackendCompact(long *t_index, size_t *count, const char *t_mask, size_t n, tdpSite at);
void tdpBackendScanFinalize(void);

/* Profiling (targetDP_profile.c keeps the table): start a timer for the
 * call at nesting depth `depth`, and stop it, returning seconds. CUDA also
 * opens and closes an NVTX range named `name`. */
void tdpBackendProfileStart(int depth, const char *name);
double tdpBackendProfileStop(int depth);
void tdpProfileFinalize_(void); /* targetFinalize: print the table, reset */
#ifdef TARGETDP_PROFILE
#define TDP_PROFILED_(name, bytes, call) \
  (tdpProfileStart((name), (bytes)), tdpProfileStop((name), (call)))
#else
#define TDP_PROFILED_(name, bytes, call) (call)
#endif

/* The node-local MPI rank from the launcher's environment (the first of
 * TARGETDP_DEVICE, OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, PMI_LOCAL_RANK, PALS_LOCAL_RANKID, SLURM_LOCALID that
 * is set), 0 if none; *from names the variable (or "none"). */
int tdpLocalRank(const char **from);

#ifdef __cplusplus
}
#endif

#endif
