/*
 * targetDP_error.c -- the error state of the layer (targetSetErrorAbort,
 * targetLastError, targetLastErrorString), tdpFail and tdpLocalRank
 * (targetDP_error.h). Calls nothing of the layer: the backends and the
 * common half both call it, and the common half's clean-up on a fatal
 * error reaches it only through the function targetInit registers.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Compiled by the host C compiler in a CUDA build too: the backend's
 * object carries the library's configuration mark (targetDP.h), not this. */
#ifndef TDP_NO_CONFIG_MARK
#define TDP_NO_CONFIG_MARK
#endif
#include "targetDP_error.h"

static int abort_on_error = 1;
static targetError_t last_error = TARGET_SUCCESS;
static char last_message[512] = "no error";
static unsigned long fail_count = 0;
static void (*on_exit_release)(void) = NULL;

void targetSetErrorAbort(int flag) { abort_on_error = flag; }
targetError_t targetLastError(void) { return last_error; }
const char *targetLastErrorString(void) { return last_message; }
unsigned long tdpFailCount(void) { return fail_count; }
int tdpErrorAborts_(void) { return abort_on_error; }
void tdpErrorOnExit_(void (*release)(void)) { on_exit_release = release; }
void tdpErrorReset_(void) {
  last_error = TARGET_SUCCESS;
  snprintf(last_message, sizeof(last_message), "no error");
}

int tdpFail(targetError_t code, tdpSite at, const char *fmt, ...) {
  fail_count++;
  int n = snprintf(last_message, sizeof(last_message), "targetDP: %s failed at %s:%d: ",
                   at.call, at.file ? at.file : "?", at.line);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t) n < sizeof(last_message))
    vsnprintf(last_message + n, sizeof(last_message) - n, fmt, ap);
  va_end(ap);
  last_error = code;
  if (abort_on_error) {
    fprintf(stderr, "%s\n", last_message);
    if (on_exit_release) on_exit_release();
    exit(1);
  }
  return code;
}

int tdpLocalRank(const char **from) {
  static const char *vars[] = {"TARGETDP_DEVICE", "OMPI_COMM_WORLD_LOCAL_RANK",
                               "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK",
                               "PALS_LOCAL_RANKID", "SLURM_LOCALID"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) {
      char *end = NULL;
      long r = strtol(v, &end, 10);
      if (end != v && *end == '\0' && r >= 0 && r <= INT_MAX) {
        if (from) *from = vars[i];
        return (int) r;
      }
    }
  }
  if (from) *from = "none";
  return 0;
}
