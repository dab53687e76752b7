/* A small command-line reader shared by apps and benchmarks: options are
 * "--name value" or "--flag". cliCheck rejects anything not in the list of
 * known options, with a message, so a typo never runs a default case. */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#ifdef __cplusplus
extern "C" {
#endif

/* known: NULL-terminated list like {"--size=", "--float", NULL}; a trailing
 * '=' marks an option that takes a value. Returns 0, or prints why and
 * returns -1. */
int cliCheck(int argc, char **argv, const char *const *known);

int cliFlag(int argc, char **argv, const char *name);
const char *cliString(int argc, char **argv, const char *name, const char *def);
/* Numbers: a malformed or out-of-range value prints a message and exits(2). */
long cliLong(int argc, char **argv, const char *name, long def, long min, long max);
double cliDouble(int argc, char **argv, const char *name, double def);

#ifdef __cplusplus
}
#endif
#endif
