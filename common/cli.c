#define _POSIX_C_SOURCE 200809L /* getline */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fileio.h"

/* ---------------------------------------------------------------- numbers */

static int is_sep(char c, int x_too) {
  return c == ' ' || c == '\t' || c == ',' || (x_too && c == 'x');
}

int cliNumbers(const char *s, double *out, int max, cliNumKind kind) {
  const int integers = kind == CLI_INTEGER;
  /* 'x' separates only the numbers of an integer list (64x64x64): "5x" is
   * not the integer 5 */
  const int x_too = integers && max > 1;
  int n = 0;
  const char *c = s;
  for (;;) {
    while (*c == ' ' || *c == '\t' || *c == ',' || (x_too && n > 0 && *c == 'x')) c++;
    if (*c == '\0') return n;
    if (n == max) return CLI_NUM_MALFORMED;
    char *end = NULL;
    errno = 0;
    double v;
    if (integers) {
      const long l = strtol(c, &end, 10);
      if (end == c) return CLI_NUM_MALFORMED;
      if (errno == ERANGE) return CLI_NUM_RANGE;
      v = (double) l;
    } else {
      v = strtod(c, &end);
      if (end == c) return CLI_NUM_MALFORMED;
      /* glibc reports underflow (a subnormal or zero result) and overflow
       * (infinity) alike as ERANGE: the value tells them apart */
      if (errno == ERANGE) return fabs(v) < DBL_MIN ? CLI_NUM_UNDERFLOW : CLI_NUM_RANGE;
    }
    if (*end && !is_sep(*end, x_too)) return CLI_NUM_MALFORMED;
    if (!isfinite(v) || (integers && fabs(v) > 9007199254740992.0)) return CLI_NUM_RANGE;
    out[n++] = v;
    c = end;
  }
}

/* ---------------------------------------------------------------- sizes */

int cliProduct(const long long *v, int n, long long max, long long *out) {
  long long p = 1;
  for (int k = 0; k < n; k++) {
    if (v[k] < 0) return -1;
    if (v[k] == 0) {
      p = 0;
      continue;
    }
    if (p > max / v[k]) { /* p * v[k] > max, decided without computing it */
      for (int j = k + 1; j < n; j++) {
        if (v[j] == 0) {
          *out = 0;
          return 0;
        }
      }
      return -1;
    }
    p *= v[k];
  }
  *out = p;
  return 0;
}

char *cliProductText(const long long *v, int n, char *buf, size_t len) {
  /* base 10^9 digits, least significant first: 20 of them hold 180
   * decimal digits, more than any product of a few 64-bit extents */
  enum { NLIMB = 20 };
  uint32_t d[NLIMB] = {1};
  int used = 1;
  for (int k = 0; k < n; k++) {
    const unsigned long long m = v[k] < 0 ? 0ULL : (unsigned long long) v[k];
    /* m can exceed 2^32: multiply by its two base-10^9 halves */
    const unsigned long long part[2] = {m % 1000000000ULL, m / 1000000000ULL};
    uint32_t r[NLIMB] = {0};
    for (int h = 0; h < 2; h++) {
      unsigned long long carry = 0;
      for (int i = 0; i + h < NLIMB; i++) {
        const unsigned long long t =
            (unsigned long long) r[i + h] + (i < used ? (unsigned long long) d[i] * part[h] : 0ULL) +
            carry;
        r[i + h] = (uint32_t) (t % 1000000000ULL);
        carry = t / 1000000000ULL;
      }
    }
    memcpy(d, r, sizeof(d));
    used = NLIMB;
    while (used > 1 && d[used - 1] == 0) used--;
  }
  size_t at = (size_t) snprintf(buf, len, "%u", (unsigned) d[used - 1]);
  for (int i = used - 2; i >= 0 && at < len; i--)
    at += (size_t) snprintf(buf + at, len - at, "%09u", (unsigned) d[i]);
  return buf;
}

/* ---------------------------------------------------------------- key tables */

static const char *count_word(int n) {
  static const char *const w[] = {"no", "one", "two", "three", "four"};
  return n >= 0 && n <= 4 ? w[n] : "several";
}

/* "8,8,8" or "8,8,8,8": an example of n integers */
static const char *example_ints(int n) {
  static const char *const e[] = {"", "8", "8,8", "8,8,8", "8,8,8,16"};
  return n >= 0 && n <= 4 ? e[n] : "8,8,...";
}

int cliSetKey(void *base, const cliKey *k, const char *text, char *err, size_t len) {
  char *at = (char *) base + k->offset;
  double v[8];
  const int max = k->count < 8 ? k->count : 8;
  int n;
  switch (k->type) {
  case CLI_INTS:
    n = cliNumbers(text, v, max, CLI_INTEGER);
    for (int d = 0; n > 0 && d < n; d++) {
      if (v[d] < INT_MIN || v[d] > INT_MAX) n = CLI_NUM_RANGE; /* the cast would be undefined */
    }
    if (n == CLI_NUM_RANGE) {
      snprintf(err, len, "%s: a value of '%s' is out of range", k->name, text);
      return -1;
    }
    if (n == 1 && k->one_for_all) {
      for (int d = 1; d < max; d++) v[d] = v[0];
      n = max;
    }
    if (n != max) {
      snprintf(err, len, "%s needs %s integers (e.g. %s%s), not '%s'", k->name, count_word(max),
               example_ints(max), k->one_for_all ? ", or one for all" : "", text);
      return -1;
    }
    for (int d = 0; d < max; d++) ((int *) at)[d] = (int) v[d];
    return 0;
  case CLI_REALS:
    n = cliNumbers(text, v, max, CLI_REAL);
    if (n == CLI_NUM_UNDERFLOW) {
      snprintf(err, len, "%s: %s'%s' underflows a double (non-zero and below 2.2e-308 in "
                         "magnitude: it would be rounded)", k->name, max > 1 ? "a value of " : "",
               text);
      return -1;
    }
    if (n == CLI_NUM_RANGE) {
      if (max > 1) snprintf(err, len, "%s needs finite numbers, not '%s'", k->name, text);
      else snprintf(err, len, "%s: '%s' is out of range (a finite number is needed)", k->name, text);
      return -1;
    }
    if (n != max) {
      if (max > 1)
        snprintf(err, len, "%s needs %s numbers (e.g. 0 0 1e-6), not '%s'", k->name,
                 count_word(max), text);
      else snprintf(err, len, "%s needs a number, not '%s'", k->name, text);
      return -1;
    }
    for (int d = 0; d < max; d++) ((double *) at)[d] = v[d];
    return 0;
  case CLI_LONG: {
    /* strtol directly, not through a double: all of a long's range */
    char *end = NULL;
    errno = 0;
    const long l = strtol(text, &end, 10);
    while (end && (*end == ' ' || *end == '\t')) end++;
    if (end == text || !end || *end != '\0') {
      snprintf(err, len, "%s needs an integer, not '%s'", k->name, text);
      return -1;
    }
    if (errno == ERANGE || l < k->min || l > k->max) {
      snprintf(err, len, "%s must be an integer in [%ld, %ld], not '%s'", k->name, k->min, k->max,
               text);
      return -1;
    }
    *(long *) at = l;
    return 0;
  }
  case CLI_STRING:
    if (strlen(text) >= (size_t) k->count) {
      snprintf(err, len, "%s is longer than %d characters", k->name, k->count - 1);
      return -1;
    }
    memcpy(at, text, strlen(text) + 1);
    return 0;
  case CLI_CHOICE: {
    int nc = 0;
    for (; k->choices[nc]; nc++) {
      if (strcmp(text, k->choices[nc]) == 0) {
        *(int *) at = nc;
        return 0;
      }
    }
    size_t m = (size_t) snprintf(err, len, "%s must be ", k->name);
    for (int c = 0; c < nc && m < len; c++)
      m += (size_t) snprintf(err + m, len - m, "%s%s", k->choices[c],
                             c == nc - 1 ? "" : c == nc - 2 ? " or " : ", ");
    if (m < len) snprintf(err + m, len - m, ", not '%s'", text);
    return -1;
  }
  case CLI_BOOL:
    if (strcmp(text, "0") == 0 || strcmp(text, "1") == 0) {
      *(int *) at = text[0] - '0';
      return 0;
    }
    snprintf(err, len, "%s must be 0 or 1, not '%s'", k->name, text);
    return -1;
  case CLI_AXES: {
    static const char axes[] = "xyzt";
    int w[4] = {0, 0, 0, 0};
    if (strcmp(text, "none") != 0) {
      for (const char *c = text; *c; c++) {
        const char *a = strchr(axes, *c);
        if (*c && a && a - axes < max) w[a - axes] = 1;
        else if (*c != ' ' && *c != ',') {
          snprintf(err, len, "%s must be none or axes among %.*s (e.g. x), not '%s'", k->name,
                   max, axes, text);
          return -1;
        }
      }
    }
    for (int d = 0; d < max && d < 4; d++) ((int *) at)[d] = w[d];
    return 0;
  }
  }
  snprintf(err, len, "%s: unknown key type (a bug)", k->name);
  return -1;
}

static const cliKey *find_key(const cliKey *keys, int nkeys, const char *name) {
  for (int k = 0; k < nkeys; k++) {
    if (strcmp(keys[k].name, name) == 0) return &keys[k];
  }
  return NULL;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

int cliReadFile(const char *path, const cliKey *keys, int nkeys, void *base, int *given,
                char *err, size_t len) {
  /* stat first: a FIFO would block fopen until a writer appears */
  if (fioCheckRegular(path, "parameter file", err, len)) return -1;
  FILE *fp = fopen(path, "r");
  if (!fp) {
    snprintf(err, len, "cannot read parameter file '%s': %s", path, strerror(errno));
    return -1;
  }
  int *seen = (int *) calloc((size_t) nkeys + 1, sizeof(int));
  char *line = NULL, msg[700];
  size_t cap = 0;
  int lineno = 0, rc = seen ? 0 : -1;
  if (!seen) snprintf(err, len, "no memory to read '%s'", path);
  ssize_t got;
  /* getline, not fgets: its count sees past a NUL byte, which would hide
   * the rest of the line (and its length) from every string function */
  while (rc == 0 && (got = getline(&line, &cap, fp)) != -1) {
    lineno++;
    const size_t n = (size_t) got;
    if (memchr(line, '\0', n)) {
      snprintf(err, len, "%s:%d: NUL byte in the line (not a text file?)", path, lineno);
      rc = -1;
      break;
    }
    /* A line that long is no parameter: say so rather than read its head. */
    if (n - (n > 0 && line[n - 1] == '\n') > 1022) {
      snprintf(err, len, "%s:%d: line longer than 1023 bytes", path, lineno);
      rc = -1;
      break;
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *s = trim(line);
    if (*s == '\0') continue;
    char *eq = strchr(s, '=');
    if (!eq) {
      snprintf(err, len, "%s:%d: expected 'key = value', got '%.200s'", path, lineno, s);
      rc = -1;
      break;
    }
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    const cliKey *k = find_key(keys, nkeys, key);
    if (!k) {
      snprintf(err, len, "%s:%d: unknown key '%.100s' (--help lists them)", path, lineno, key);
      rc = -1;
    } else if (seen[k - keys]) {
      snprintf(err, len, "%s:%d: key '%s' given twice (first on line %d)", path, lineno, key,
               seen[k - keys]);
      rc = -1;
    } else if (*value == '\0') {
      snprintf(err, len, "%s:%d: key '%s' has no value", path, lineno, key);
      rc = -1;
    } else if (cliSetKey(base, k, value, msg, sizeof(msg))) {
      snprintf(err, len, "%s:%d: %s", path, lineno, msg);
      rc = -1;
    } else {
      seen[k - keys] = lineno;
      if (given) given[k - keys] = 1;
    }
  }
  if (rc == 0 && ferror(fp)) {
    snprintf(err, len, "error reading parameter file '%s'", path);
    rc = -1;
  }
  free(line);
  free(seen);
  fclose(fp);
  return rc;
}

int cliLoad(int argc, char **argv, const cliKey *keys, int nkeys, const char *file_key,
            void *base, int *given, char *err, size_t len) {
  /* Vet the whole command line before anything is set. */
  const char *file = NULL;
  for (int i = 1; i < argc; i += 2) { /* an option and its value */
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0) return 1;
    const int is_file = file_key && strncmp(a, "--", 2) == 0 && strcmp(a + 2, file_key) == 0;
    if (strncmp(a, "--", 2) != 0 || (!is_file && !find_key(keys, nkeys, a + 2))) {
      if (strncmp(a, "--", 2) != 0)
        snprintf(err, len, "bad command line: '%.200s' is not an option (--help lists them)", a);
      else
        snprintf(err, len, "bad command line: unknown option '%.200s' (--help lists them)", a);
      return -1;
    }
    if (i + 1 >= argc) {
      snprintf(err, len, "bad command line: option '%s' needs a value", a);
      return -1;
    }
    if (is_file) file = argv[i + 1];
  }
  if (given) memset(given, 0, (size_t) nkeys * sizeof(int));
  if (file && cliReadFile(file, keys, nkeys, base, given, err, len)) return -1;
  char msg[700];
  for (int i = 1; i + 1 < argc; i += 2) {
    const cliKey *k = find_key(keys, nkeys, argv[i] + 2);
    if (!k) continue; /* the file option */
    if (cliSetKey(base, k, argv[i + 1], msg, sizeof(msg))) {
      snprintf(err, len, "command line: %s", msg);
      return -1;
    }
    if (given) given[k - keys] = 1;
  }
  return 0;
}

void cliUsage(FILE *out, const cliKey *keys, int nkeys) {
  for (int k = 0; k < nkeys; k++) fprintf(out, "  --%-16s %s\n", keys[k].name, keys[k].help);
}

/* ---------------------------------------------------------------- simple readers */

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
  double v = 0.0;
  const int n = cliNumbers(s, &v, 1, CLI_REAL);
  if (n != 1) {
    fprintf(stderr, "%s: %s must be %s, not '%s'\n", argv[0], name,
            n == CLI_NUM_UNDERFLOW ? "a number a double holds (it underflows)"
            : n == CLI_NUM_RANGE   ? "a finite number"
                                   : "a number",
            s);
    exit(2);
  }
  return v;
}
