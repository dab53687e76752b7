#define _XOPEN_SOURCE 700 /* fileno, ftruncate, realpath under -std=c99 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileio.h"

/* dir: the directory part of path ("." when there is none) */
static void dir_of(const char *path, char *dir, size_t len) {
  snprintf(dir, len, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, len, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
}

char *fioFreeSpace(const char *path, char *buf, size_t len) {
  char dir[1024];
  dir_of(path, dir, sizeof(dir));
  struct statvfs s;
  if (statvfs(dir, &s) != 0) {
    snprintf(buf, len, "free space unknown: statvfs('%s'): %s", dir, strerror(errno));
  } else {
    const double mib = (double) s.f_bavail * (double) s.f_frsize / (1024.0 * 1024.0);
    snprintf(buf, len, "%.1f MiB free on the file system of '%s'", mib, dir);
  }
  return buf;
}

static const char *kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "of another kind";
}

int fioCheckRegular(const char *path, const char *what, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, len, "cannot read %s '%s': %s", what, path, strerror(errno));
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, len, "%s '%s' is %s, not a regular file; refusing to open it", what, path,
             kind(st.st_mode));
    return -1;
  }
  return 0;
}

int fioWriteFlush(FILE *fp, const void *buf, size_t n) {
  errno = 0;
  const size_t done = fwrite(buf, 1, n, fp);
  if (done == n && fflush(fp) == 0) return 0;
  if (errno == 0) errno = EIO;
  return -1;
}

int fioTruncate(FILE *fp, long bytes) {
  clearerr(fp);
  if (bytes < 0) return -1;
  if (ftruncate(fileno(fp), (off_t) bytes) != 0) return -1;
  return fseek(fp, bytes, SEEK_SET);
}

int fioCheckOutput(const char *path, const char *what, char *err, size_t len) {
  struct stat st;
  if (path[0] == '\0') {
    snprintf(err, len, "the %s has an empty file name", what);
    return -1;
  }
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      snprintf(err, len, "cannot create '%s': %s (the %s)", path, strerror(EISDIR), what);
      return -1;
    }
    if (!S_ISREG(st.st_mode)) {
      snprintf(err, len, "cannot create '%s': it is %s, not a regular file (the %s; opening it "
                         "could block the run or write nowhere)", path, kind(st.st_mode), what);
      return -1;
    }
    if (access(path, W_OK) != 0) {
      snprintf(err, len, "cannot write '%s': %s (the %s)", path, strerror(errno), what);
      return -1;
    }
    return 0;
  }
  if (errno != ENOENT) {
    snprintf(err, len, "cannot create '%s': %s (the %s)", path, strerror(errno), what);
    return -1;
  }
  char dir[1024];
  dir_of(path, dir, sizeof(dir));
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    const int why = stat(dir, &st) != 0 ? errno : ENOTDIR;
    snprintf(err, len, "cannot create '%s': %s (the %s; does the directory '%s' exist?)", path,
             strerror(why), what, dir);
    return -1;
  }
  /* access, not a test file: it sees permissions and a read-only mount
   * (EROFS, for root too) without creating anything */
  if (access(dir, W_OK | X_OK) != 0) {
    snprintf(err, len, "cannot create '%s': %s (the %s, in '%s')", path, strerror(errno), what,
             dir);
    return -1;
  }
  return 0;
}

/* Canonical "dir/name" of path, whose directory must exist; -1 if not. */
static int canonical(const char *path, char *out, size_t len) {
  char dir[1024], *real;
  dir_of(path, dir, sizeof(dir));
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (!(real = realpath(dir, NULL))) return -1;
  snprintf(out, len, "%s/%s", real, name);
  free(real);
  return 0;
}

int fioSameFile(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char ca[2100], cb[2100];
  if (canonical(a, ca, sizeof(ca)) || canonical(b, cb, sizeof(cb))) return strcmp(a, b) == 0;
  return strcmp(ca, cb) == 0;
}

int fioAppendRow(const char *path, const char *header, const char *row, char *err, size_t len) {
  if (fioCheckOutput(path, "CSV file", err, len)) return -1;
  FILE *fp = fopen(path, "a");
  if (!fp) {
    snprintf(err, len, "cannot append to '%s': %s", path, strerror(errno));
    return -1;
  }
  setvbuf(fp, NULL, _IONBF, 0); /* a failed row leaves nothing in a buffer */
  fseek(fp, 0, SEEK_END);
  const long before = ftell(fp);
  const size_t nh = before == 0 && header ? strlen(header) : 0, nr = strlen(row);
  char *text = (char *) malloc(nh + nr + 1);
  if (!text) {
    fclose(fp);
    snprintf(err, len, "no memory to append to '%s'", path);
    return -1;
  }
  memcpy(text, header, nh);
  memcpy(text + nh, row, nr + 1);
  const int bad = fioWriteFlush(fp, text, nh + nr), why = errno;
  free(text);
  int cut = 1;
  if (bad && before >= 0) cut = fioTruncate(fp, before) == 0; /* no torn row */
  if (fclose(fp) != 0 || bad) {
    char space[1200];
    snprintf(err, len, "appending to '%s' failed: %s%s; %s", path, strerror(bad ? why : errno),
             cut ? "" : " (its last row may be partial)", fioFreeSpace(path, space, sizeof(space)));
    return -1;
  }
  return 0;
}
