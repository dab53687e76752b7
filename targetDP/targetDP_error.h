/*
 * targetDP_error.h -- errors: where a call came from (tdpSite), recording
 * an error and stopping or returning its code (tdpFail), and the node-local
 * rank of the launcher (tdpLocalRank). The one unit that the hardware-free
 * half (targetDP_common.c and the modules) and the backends (targetDP_C.c,
 * targetDP_CUDA.cu and their module parts) both call: it calls neither, so
 * the backends never call back into the common half. It may use only
 * targetDP.h's error codes. Not installed, not for applications.
 */
#ifndef TARGETDP_ERROR_H
#define TARGETDP_ERROR_H

/* The library's own sources: no -fopenmp mark of a program (targetDP.h). */
#ifndef TDP_LIBRARY_
#define TDP_LIBRARY_ 1
#endif
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

/* How many errors tdpFail has recorded: a call that runs a macro which
 * may fail (TDP_LAUNCH) compares it before and after. */
unsigned long tdpFailCount(void);

/* The node-local MPI rank from the launcher's environment (the first of
 * TARGETDP_DEVICE, OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, PMI_LOCAL_RANK, PALS_LOCAL_RANKID, SLURM_LOCALID that
 * is set), 0 if none; *from names the variable (or "none"). */
int tdpLocalRank(const char **from);

/* For targetDP_common.c. tdpErrorOnExit_: the function tdpFail calls
 * (errors returned, not stopping, while it runs) before it stops the
 * program, to give back what the program holds; registered by targetInit,
 * so that the error unit never names the common half. tdpErrorAborts_:
 * whether errors stop the program (targetSetErrorAbort). tdpErrorReset_:
 * no error (a new session). */
void tdpErrorOnExit_(void (*release)(void));
int tdpErrorAborts_(void);
void tdpErrorReset_(void);

#ifdef __cplusplus
}
#endif

#endif /* TARGETDP_ERROR_H */
