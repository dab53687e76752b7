#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Does known entry k name option arg? Sets *takes_value. */
static int matches(const char *k, const char *arg, int *takes_value) {
  size_t n = strlen(k);
  *takes_value = n > 0 && k[n - 1] == '=';
  if (*takes_value) n--;
  return strlen(arg) == n && strncmp(k, arg, n) == 0;
}

int cliCheck(int argc, char **argv, const char *const *known) {
  for (int i = 1; i < argc; i++) {
    int found = 0, takes_value = 0;
    for (int k = 0; known[k] && !found; k++) found = matches(known[k], argv[i], &takes_value);
    if (!found) {
      fprintf(stderr, "%s: unknown option '%s'; known:", argv[0], argv[i]);
      for (int k = 0; known[k]; k++) fprintf(stderr, " %s", known[k]);
      fprintf(stderr, "\n");
      return -1;
    }
    if (takes_value && ++i >= argc) {
      fprintf(stderr, "%s: option '%s' needs a value\n", argv[0], argv[i - 1]);
      return -1;
    }
  }
  return 0;
}

int cliFlag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], name) == 0) return 1;
  }
  return 0;
}

const char *cliString(int argc, char **argv, const char *name, const char *def) {
  for (int i = 1; i < argc - 1; i++) {
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return def;
}

long cliLong(int argc, char **argv, const char *name, long def, long min, long max) {
  const char *s = cliString(argc, argv, name, NULL);
  if (!s) return def;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end != '\0' || v < min || v > max) {
    fprintf(stderr, "%s: %s must be an integer in [%ld, %ld], not '%s'\n", argv[0], name, min,
            max, s);
    exit(2);
  }
  return v;
}

double cliDouble(int argc, char **argv, const char *name, double def) {
  const char *s = cliString(argc, argv, name, NULL);
  if (!s) return def;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end != '\0') {
    fprintf(stderr, "%s: %s must be a number, not '%s'\n", argv[0], name, s);
    exit(2);
  }
  return v;
}
