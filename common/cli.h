/* Command-line and parameter-file reading shared by the apps and the
 * benchmarks. One parser for both apps: a table of keys (cliKey) drives
 * the command line (--key value), an optional parameter file (key = value
 * lines) and the usage text, so the three never disagree about which keys
 * exist; every value is converted strictly (the whole text must be the
 * value: "5x" is no integer, 1e-400 is no double) and a typo never runs a
 * default case. What the values mean together (ranges, conflicts) is the
 * app's check, after loading and before any work. */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- key tables */

typedef enum {
  CLI_INTS,   /* count ints: "64 64 64", "64,64,64" or "64x64x64" (one_for_all: "8" = 8 8 8) */
  CLI_REALS,  /* count finite doubles: "0 0 1e-6" or "0,0,1e-6" */
  CLI_LONG,   /* one long in [min, max] */
  CLI_STRING, /* a char[count] buffer, NUL-terminated */
  CLI_CHOICE, /* one of choices: its index is stored (int) */
  CLI_BOOL,   /* 0 or 1 (int) */
  CLI_AXES    /* "none", or axis letters among x, y, z(, t): count ints, 1 where named */
} cliType;

typedef struct {
  const char *name;           /* key in a file; --name on the command line */
  cliType type;
  size_t offset;              /* of the value in the app's struct (offsetof) */
  int count;                  /* CLI_INTS, CLI_REALS, CLI_AXES: values; CLI_STRING: buffer bytes */
  int one_for_all;            /* CLI_INTS: one number sets all count (1), or not (0) */
  long min, max;              /* CLI_LONG: the range */
  const char *const *choices; /* CLI_CHOICE: the names, NULL-terminated */
  const char *help;           /* usage line: "VALUE  what it is" */
} cliKey;

/* Sets key k of the struct at base from text. 0, or -1 with the reason in
 * err ("steps needs an integer, not '5x'"); base is then unchanged. */
int cliSetKey(void *base, const cliKey *k, const char *text, char *err, size_t len);

/* A parameter file of "key = value" lines ('#' starts a comment; blank
 * lines skipped). Refused with "path:line: reason": an unknown key, a key
 * twice, a line without '=' or without a value, a line over 1023 bytes, a
 * NUL byte in a line, and a path that is not a regular file (stat first: a
 * FIFO would block the open). given[k] becomes 1 for each key set. */
int cliReadFile(const char *path, const cliKey *keys, int nkeys, void *base, int *given,
                char *err, size_t len);

/* The whole input: "--<file_key> FILE" first (the last one given; NULL:
 * none), then every "--key value" in order, so that a repeated option
 * takes its last value. Returns 0; 1 if --help was asked (nothing read);
 * -1 with the reason ("bad command line: unknown option '--stpes'"). */
int cliLoad(int argc, char **argv, const cliKey *keys, int nkeys, const char *file_key,
            void *base, int *given, char *err, size_t len);

/* One line per key: "  --name VALUE  help". */
void cliUsage(FILE *out, const cliKey *keys, int nkeys);

/* ---------------------------------------------------------------- numbers */

typedef enum { CLI_REAL, CLI_INTEGER } cliNumKind;
typedef enum {
  CLI_NUM_MALFORMED = -1, /* not a number, characters after it, too many numbers */
  CLI_NUM_RANGE = -2,     /* not finite, beyond a double, or an integer beyond +-2^53 */
  CLI_NUM_UNDERFLOW = -3  /* non-zero and below the smallest normal double (2.2e-308) */
} cliNumError;

/* Up to max numbers separated by blanks or commas (integer lists of more
 * than one number also by 'x': 64x64x64) into out. Returns how many, or a
 * cliNumError. Integers stay exact through the double (|n| <= 2^53). */
int cliNumbers(const char *s, double *out, int max, cliNumKind kind);

/* ---------------------------------------------------------------- sizes */

/* The product of n extents, checked in 64 bits at every step: 0 and *out
 * when it is at most max, -1 when it is more (or an extent is negative):
 * nothing wraps (65536^4 is not 0). */
int cliProduct(const long long *v, int n, long long max, long long *out);
/* The exact decimal product of n extents >= 0, whatever its size (65536^4
 * = "18446744073709551616"), for messages. Returns buf. */
char *cliProductText(const long long *v, int n, char *buf, size_t len);

/* ---------------------------------------------------------------- simple readers
 * (the benchmarks' options: "--name value" or "--flag") */

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
