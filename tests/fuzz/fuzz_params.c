/*
 * fuzz_params.c -- libFuzzer target for the parameter parser of apps/lb
 * (apps/lb/params.c: lbParamsLoad, with common/cli.c).
 *
 * An input is either a parameter file's contents, or, when it starts with
 * "--", a command line: one argument per line. Files are handed to the
 * parser as they are in a run, through --params and a path, here the
 * /proc path of a memory file (memfd), so the fuzzer exercises exactly the
 * code a user's file goes through. Whatever the input, lbParamsLoad must
 * return 0, 1 or -1 with a message, and no sanitizer may complain.
 *
 *   make fuzz-build && build/fuzz/fuzz_params -close_fd_mask=3 CORPUS_DIR
 *
 * tests/suites/fuzz.sh runs it for a bounded time on the inputs in
 * apps/lb/input/ and tests/fuzz/seeds/.
 */
#define _GNU_SOURCE /* memfd_create */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apps/lb/params.h"

#define MAXARGS 64

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void) argc;
  (void) argv;
  fd = memfd_create("fuzz_params", 0);
  if (fd < 0) {
    perror("memfd_create");
    abort();
  }
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lbParams p;
  char err[1200];
  err[0] = '\0';
  int rc;
  if (size >= 2 && data[0] == '-' && data[1] == '-') {
    /* A command line: arguments are the lines (no NUL inside an argv
     * string: a NUL ends the argument, as the kernel would). */
    char *buf = (char *) malloc(size + 1);
    char *argv[MAXARGS + 1];
    int argc = 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    argv[argc++] = (char *) "lb";
    for (char *s = buf; s && argc < MAXARGS;) {
      char *nl = strchr(s, '\n');
      if (nl) *nl = '\0';
      argv[argc++] = s;
      s = nl ? nl + 1 : NULL;
    }
    argv[argc] = NULL;
    /* --params must not open whatever file the fuzzer names: point every
     * --params at the (empty) memory file instead. */
    if (ftruncate(fd, 0)) abort();
    for (int i = 1; i + 1 < argc; i++) {
      if (strcmp(argv[i], "--params") == 0) argv[i + 1] = path;
    }
    rc = lbParamsLoad(argc, argv, &p, err, sizeof(err));
    free(buf);
  } else {
    if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t) size)) abort();
    char *argv[] = {(char *) "lb", (char *) "--params", path, NULL};
    rc = lbParamsLoad(3, argv, &p, err, sizeof(err));
  }
  /* The contract of lbParamsLoad (params.h). */
  if (rc != 0 && rc != 1 && rc != -1) abort();
  if (rc == -1 && (err[0] == '\0' || strlen(err) >= sizeof(err))) abort(); /* a reason */
  if (rc == 0) {
    /* A run may start: the values must be the checked ones. */
    for (int d = 0; d < 3; d++)
      if (p.size[d] < 1 || p.size[d] > 4096 || p.decomposition[d] < 0) abort();
    if (!(p.tau > 0.5) || !(p.rho > 0.0) || p.steps < 0 || p.output[0] == '\0') abort();
    /* no NaN or infinity gets into a run */
    double v = p.tau + p.rho + p.amplitude;
    for (int d = 0; d < 3; d++) v += p.force[d] + p.velocity[d];
    if (!isfinite(v)) abort();
    if (memchr(p.output, '\0', sizeof(p.output)) == NULL) abort();
    if (memchr(p.restart, '\0', sizeof(p.restart)) == NULL) abort();
    if (memchr(p.summary, '\0', sizeof(p.summary)) == NULL) abort();
  }
  return 0;
}
